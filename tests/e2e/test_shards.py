"""End to end: the bot on gateway shards (discord.py's AutoShardedBot) through the emulator, which shards as Discord
does (a server's events and interactions go to shard ``(guild id >> 22) % shard count``).

Two bot processes on shards 0 and 1 of 2 share one Redis: each gets only its servers' interactions and serves the
games there, and each claims only its servers' deadlines and announcements — so a forfeit, the computer's move and a
rating line are each posted once, by the process that holds the server. A bot Discord says needs sharding (close
4011) stops with one line; ``shard_count = "auto"`` runs Discord's recommended number of shards in one process.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from dataclasses import dataclass

import discord
import pytest

from bot.__main__ import closed, point_at
from bot.interface.client import HongBot
from bot.config import Config
from bot.storage.outbox import Announcement
from bot.core.session import Person
from bot.storage.store import Shards
from bot.storage.connection import RedisHandle
from bot.storage.keys import Keys
from tests.emulator import PERMISSIONS, DiscordEmulator

from tests.conftest import make_client
from tests.bot.harness import display, start_bot
from tests.bot.processes import ROOT

pytestmark = pytest.mark.timeout(240)

MINUTE = 60


@dataclass
class Server:
    """A server on one shard of two, with a channel for games and one for the computer."""

    guild: int
    channel: int
    computer_channel: int


@dataclass
class People:
    ann: dict
    ben: dict
    ada: dict  # may change the server's settings


@pytest.fixture
def people(emu) -> People:
    return People(*(emu.create_user(name) for name in ("ann", "ben", "ada")))


@pytest.fixture
def servers(emu, people) -> list[Server]:
    """Server k on shard k of 2, the same people in both."""
    made = []
    for shard in (0, 1):
        guild = emu.create_guild(f"Shard {shard}", shard=(shard, 2))
        emu.add_member(guild, people.ann)
        emu.add_member(guild, people.ben)
        emu.add_member(guild, people.ada, permissions=PERMISSIONS["manage_guild"])
        made.append(Server(guild, emu.create_channel(guild, "games"), emu.create_channel(guild, "computer")))
    return made


@pytest.fixture
async def shard_bots(emu, servers, redis_server, redis, clock):
    """Two processes on the same Redis, on shards 0 and 1 of 2 (commands synced globally by the first)."""
    bots = []
    for shard in (0, 1):
        bots.append(
            await start_bot(
                emu,
                redis_server,
                clock=clock,
                poll_interval=0.02,
                rng=random.Random(shard),
                shard_count=2,
                shard_ids=(shard,),
            )
        )
    for running in bots:
        await asyncio.wait_for(running.bot.wait_until_ready(), 10)
    yield [running.bot for running in bots]
    for running in bots:
        await running.stop()


def spy(obj, name: str, seen: list, key) -> None:
    """Record ``key(argument)`` of every call of the coroutine method ``obj.name`` in ``seen`` (then call it)."""
    original = getattr(obj, name)

    async def recorded(item, *args, **kwargs):
        seen.append(key(item))
        return await original(item, *args, **kwargs)

    setattr(obj, name, recorded)


async def new_game(emu, people, channel: int):
    it = await emu.slash(people.ann, channel, "hongkong challenge", opponent=people.ben)
    challenge = await it.wait_done()
    click = await emu.click(people.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)


async def place(emu, user, channel: int, square: str):
    it = await emu.slash(user, channel, "hongkong place", square=square)
    return (await it.wait_followups(1))[0]


def count(emu, channel: int, text: str) -> int:
    return sum(text in m.content for m in emu.messages(channel))


async def test_each_process_gets_only_its_shards_servers_and_serves_their_games(emu, servers, people, shard_bots):
    zero, one = shard_bots
    assert [g.id for g in zero.guilds] == [servers[0].guild] and [g.id for g in one.guilds] == [servers[1].guild]
    assert zero.served_shards == Shards(2, (0,)) and one.served_shards == Shards(2, (1,))
    seen = {0: [], 1: []}
    for shard, bot in enumerate(shard_bots):

        async def note(interaction: discord.Interaction, shard=shard) -> None:
            seen[shard].append(interaction.guild_id)

        bot.add_listener(note, "on_interaction")
    for server in servers:
        await new_game(emu, people, server.channel)
        await place(emu, people.ann, server.channel, "A1")
        board = await place(emu, people.ben, server.channel, "E5")
        assert f"{display(people.ben)} played `S@E5`" in board.content and board.attachments
    it = await emu.slash(people.ann, servers[1].channel, "games")
    listed = (await it.wait_done()).embeds[0]["fields"]
    assert len(listed) == 1 and str(servers[1].channel) in listed[0]["value"]
    # each process got the interactions of its own server, and only those (4 per server: challenge, accept, 2 moves)
    assert seen == {0: [servers[0].guild] * 4, 1: [servers[1].guild] * 5}
    assert {
        emu.gateway.sessions[it.session_id].shard[0] for it in emu.interactions if it.guild_id == servers[1].guild
    } == {1}
    assert emu.errors == []


async def test_two_shards_post_a_forfeit_a_computer_move_and_a_rating_line_once(
    emu, servers, people, shard_bots, clock, redis
):
    fired, made = {0: [], 1: []}, {0: [], 1: []}
    guild_of = {s.channel: s.guild for s in servers} | {s.computer_channel: s.guild for s in servers}
    for shard, bot in enumerate(shard_bots):
        play = bot.get_cog("Play")
        spy(play.timers, "_fire", fired[shard], lambda d: guild_of[d.channel_id])
        spy(play.reconciler, "_make", made[shard], lambda a: (a.what, guild_of[a.channel_id]))
    for server in servers:
        it = await emu.slash(people.ada, server.channel, "settings", turn_timer="10m", reminders=False)
        assert "Settings updated" in (await it.wait_done()).content
        await new_game(emu, people, server.channel)
        await place(emu, people.ann, server.channel, "A1")
    # a computer game in server 1 whose first board and computer's move are left to the reconcilers (committed by
    # the process of the other shard, as if the one that started it had died before posting)
    layer = shard_bots[0].layer
    me = shard_bots[0].user
    computer = servers[1].computer_channel
    record, game = await layer.start_computer_game(
        layer.kinds["hongkong"],
        guild_id=servers[1].guild,
        channel_id=computer,
        human=Person(int(people.ann["id"]), "ann"),
        computer=Person(me.id, "Computer"),
        level="easy",
        options={"first": "them"},
    )
    assert record.player(game.to_move).bot

    clock.advance(MINUTE)  # the computer game's announcements are due
    await emu.wait_for_message(computer, lambda m: "Computer played" in m.content)
    clock.advance(10 * MINUTE)  # Ben's 10 minutes are over in both servers
    for server in servers:
        await emu.wait_for_message(server.channel, lambda m: "ran out of time" in m.content)
        await emu.wait_for_message(server.channel, lambda m: m.content.startswith("📈"))
    # the rating lines' announcements due once more (a lost "done"): looked for, found, not posted again
    for server in servers:
        finished = [m for m in await redis.zrange(Keys.FINISHED, 0, -1) if m.startswith(f"{server.channel}:")]
        (game_id,) = [m.split(":")[1] for m in finished]
        ended = await layer.store.finished(server.channel, game_id)
        await layer.outbox.resume(Announcement.result(ended), ended.guild_id)
    clock.advance(MINUTE)
    for _ in range(100):
        if not await layer.outbox.pending():
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # every poller has run several times since

    for server in servers:
        assert count(emu, server.channel, "ran out of time") == 1
        assert sum(m.content.startswith("📈") for m in emu.messages(server.channel)) == 1
    assert count(emu, computer, "Computer played") == 1 and count(emu, computer, "the game begins") == 1
    # each deadline and announcement was handled by the process holding its server, and only by it
    assert set(fired[0]) == {servers[0].guild} and set(fired[1]) == {servers[1].guild}
    assert {g for _, g in made[0]} <= {servers[0].guild} and {g for _, g in made[1]} == {servers[1].guild}
    assert ("computer", servers[1].guild) in made[1] and ("result", servers[1].guild) in made[1]
    assert ("result", servers[0].guild) in made[0]
    assert await layer.outbox.pending() == []
    assert emu.errors == []


async def test_a_bot_that_needs_sharding_stops_with_one_line_and_auto_runs_the_recommended_shards(redis_server, redis):
    class Quick(HongBot):
        async def before_identify_hook(self, shard_id, *, initial: bool = False) -> None:
            pass  # discord.py waits 5 s between two shards' IDENTIFYs (Discord's rate limit); the emulator has none

    async with DiscordEmulator(max_guilds_per_shard=2, patch_discord=False) as emu:
        point_at(emu.api_base, emu.gateway_url)
        guilds = [emu.create_guild(f"g{n}", shard=(n % 2, 2)) for n in range(3)]
        ann = emu.create_user("ann")
        channels = []
        for guild in guilds:
            emu.add_member(guild, ann)
            channels.append(emu.create_channel(guild, "games"))
        config = Config(token=emu.token, api_base=emu.api_base, gateway_url=emu.gateway_url)
        one_shard = HongBot(config, redis=RedisHandle(make_client(redis_server)))
        with pytest.raises(discord.ConnectionClosed) as stopped:
            await asyncio.wait_for(one_shard.start(emu.token), 30)
        await one_shard.close()
        assert stopped.value.code == 4011 and "would hold 3 guilds" in str(emu.errors[-1])
        assert "Discord requires sharding" in closed(4011, "") and "shard_count" in closed(4011, "")
        emu.errors.clear()

        auto = Quick(
            Config(token=emu.token, api_base=emu.api_base, gateway_url=emu.gateway_url, shard_count=None),
            redis=RedisHandle(make_client(redis_server)),
        )
        task = asyncio.create_task(auto.start(emu.token))
        try:
            await asyncio.wait_for(auto.wait_until_ready(), 30)
            assert auto.shard_count == 2 and auto.served_shards == Shards(2, (0, 1))
            assert sorted(s.shard for s in emu.sessions if s.live) == [[0, 2], [1, 2]]
            assert sorted(g.id for g in auto.guilds) == sorted(guilds)
            for channel in channels:  # every server is served, whichever shard it is on
                it = await emu.slash(ann, channel, "hongkong challenge")
                assert "challenge" in (await it.wait_done()).content.lower()
            assert emu.errors == []
        finally:
            await auto.close()
            await asyncio.wait_for(task, 10)
            await auto._redis.close()


async def test_python_m_bot_told_to_shard_exits_with_one_line(tmp_path):
    async with DiscordEmulator(max_guilds_per_shard=1, patch_discord=False) as emu:
        for n in range(2):
            emu.create_guild(f"g{n}")
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HONGBOT_CONFIG")}
        env.update(
            PYTHONPATH=str(ROOT),
            DISCORD_TOKEN=emu.token,
            HONGBOT_API_BASE=emu.api_base,
            HONGBOT_GATEWAY_URL=emu.gateway_url,
            HONGBOT_DATA_DIR=str(tmp_path / "data"),
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=str(tmp_path),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    lines = [line for line in err.decode().splitlines() if line.startswith("hongbot:")]
    assert proc.returncode == 1 and lines == [f"hongbot: {closed(4011, 'Sharding required')}"], err.decode()[-2000:]
    assert "Traceback" not in err.decode()
