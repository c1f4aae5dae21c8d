"""Resilience through the real bot and a real Redis: every stored change is announced once even when its post was
lost (the outbox and its reconciler), damaged records are set aside, the Redis server is checked at start-up,
and a reminder whose forfeit is also due is dropped.

A "crash after the commit" is the game layer's commit without the post that normally follows (what a bot killed
at that moment leaves); the process-level kills are in ``test_process.py``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.storage.outbox import Announcement
from bot.core.record import Player, Record, Status
from bot.core.session import Person
from bot.storage.store import Effects, GameStore
from bot.storage.connection import check_server
from bot.storage.keys import Keys

from tests.bot.harness import display, refused
from tests.e2e.test_lifecycle import bots, world  # noqa: F401  (the same world with an admin, and bots on the test clock)

pytestmark = pytest.mark.timeout(180)

HOUR = 3600


async def new_game(emu, world, channel=None):
    channel = channel or world.channel
    it = await emu.slash(world.ann, channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)


def carries(message, tag: str) -> bool:
    """Whether ``message`` carries the board of announcement ``tag`` (``<game id>-<version>``)."""
    return any(a.filename.endswith(f"-{tag}.png") for a in message.attachments)


def boards(emu, channel, tag: str) -> list:
    """The channel's messages carrying the board of announcement ``tag``."""
    return [m for m in emu.messages(channel) if carries(m, tag)]


async def settle(redis, *, timeout: float = 10.0) -> None:
    """Wait until the outbox is empty (every announcement made)."""
    for _ in range(int(timeout / 0.05)):
        if not await redis.zcard(Keys.OUTBOX):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"announcements left: {await redis.zrange(Keys.OUTBOX, 0, -1, withscores=True)}")


async def test_a_move_stored_but_not_posted_is_posted_once_by_the_reconciler(emu, world, bots, clock, redis):
    bot = await bots()
    await new_game(emu, world)
    await settle(redis)
    layer = bot.bot.layer
    turn = await layer.play(layer.kinds["hongkong"], world.channel, int(world.ann["id"]), "S@B2")  # then "crash"
    members = await redis.zrange(Keys.OUTBOX, 0, -1)
    assert turn.announcement.member in members
    # the commit armed Ben's turn in the same step: forfeit and reminder at move 1, nothing of move 0 left
    deadlines = await redis.zrange(Keys.DEADLINES, 0, -1)
    assert sorted(d.split("|")[0] + d.split("|")[3] for d in deadlines) == ["forfeit1", "remind1"]
    await asyncio.sleep(0.3)
    assert boards(emu, world.channel, turn.announcement.tag) == []  # the live bot has 15 s to post it
    clock.advance(16)
    posted = await emu.wait_for_message(world.channel, lambda m: carries(m, turn.announcement.tag))
    assert (
        f"{display(world.ann)} played `S@B2`" in posted.content and f"<@{world.ben['id']}>, your turn" in posted.content
    )
    await settle(redis)
    clock.advance(HOUR / 4)  # later polls find nothing more to post
    await asyncio.sleep(0.3)
    assert len(boards(emu, world.channel, turn.announcement.tag)) == 1
    assert emu.errors == []


async def test_a_post_made_but_not_marked_done_is_not_posted_again(emu, world, bots, clock, redis):
    await bots()
    await new_game(emu, world)
    await settle(redis)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    [posted] = await it.wait_followups(1)
    [name] = [a.filename for a in posted.attachments]
    game_id, version = name.removesuffix(".png").split("-")[1:]
    await settle(redis)  # marked done at once
    lost = Announcement("turn", world.channel, game_id, int(version), 1, "move")
    await redis.zadd(Keys.OUTBOX, {lost.member: clock()})  # as if the bot died between the post and marking it
    await settle(redis)
    assert len(boards(emu, world.channel, lost.tag)) == 1
    assert emu.errors == []


async def test_a_stale_announcement_is_dropped_when_the_game_went_on(emu, world, bots, clock, redis):
    bot = await bots()
    await new_game(emu, world)
    await settle(redis)
    layer = bot.bot.layer
    first = await layer.play(layer.kinds["hongkong"], world.channel, int(world.ann["id"]), "S@B2")  # not posted
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")  # Ben moves on from /board
    await it.wait_followups(1)
    clock.advance(16)
    await settle(redis)
    assert boards(emu, world.channel, first.announcement.tag) == []  # Ben's board shows both moves
    assert [m for m in emu.messages(world.channel) if "played `S@D4`" in m.content]


async def test_a_game_ended_but_not_announced_gets_its_last_board_rating_and_line_once(emu, world, bots, clock, redis):
    bot = await bots()
    await new_game(emu, world)
    await settle(redis)
    layer = bot.bot.layer
    turn = await layer.resign(layer.kinds["hongkong"], world.channel, int(world.ann["id"]))  # then "crash"
    members = set(await redis.zrange(Keys.OUTBOX, 0, -1))
    assert members == {turn.announcement.member, Announcement.result(turn.record).member}
    assert await redis.zrange(Keys.DEADLINES, 0, -1) == []  # the ending removed the turn's timers in the same step
    assert await redis.smembers(Keys.active(world.guild)) == set()
    clock.advance(16)
    await settle(redis)
    over = [m for m in emu.messages(world.channel) if "Game over" in m.content]
    lines = [m for m in emu.messages(world.channel) if m.content.startswith("📈")]
    assert len(over) == 1 and f"{display(world.ann)} resigned" in over[0].content
    assert len(lines) == 1 and "ratings in this server" in lines[0].content
    assert await redis.scard(Keys.RECORDS_DONE) == 1
    # the same result due again (a lost "done") posts nothing more and rates nobody twice
    await redis.zadd(Keys.OUTBOX, {Announcement.result(turn.record).member: clock()})
    await settle(redis)
    await asyncio.sleep(0.2)
    assert len([m for m in emu.messages(world.channel) if m.content.startswith("📈")]) == 1
    rated = await redis.zrange(Keys.rating("hongkong", f"g{world.guild}", "board"), 0, -1)
    assert len(rated) == 2


async def test_the_computer_resumes_from_the_outbox(emu, world, bots, clock, redis):
    bot = await bots()
    layer = bot.bot.layer
    await bot.bot.get_cog("Play").reconciler.stop()  # as if this process died right after the commit
    me = bot.bot.user
    record, game = await layer.start_computer_game(
        layer.kinds["hongkong"],
        guild_id=world.guild,
        channel_id=world.channel,
        human=Person(int(world.ann["id"]), "ann"),
        computer=Person(me.id, "Computer (easy)"),
        level="easy",
        options={"first": "them"},
    )
    assert record.player(game.to_move).bot
    assert Announcement.computer(record, 1).member in await redis.zrange(Keys.OUTBOX, 0, -1)
    await bot.stop()
    clock.advance(60)
    await bots()  # a new process: posts the first board and lets the computer move
    await emu.wait_for_message(world.channel, lambda m: "the game begins" in m.content)
    moved = await emu.wait_for_message(world.channel, lambda m: "Computer (easy) played" in m.content)
    assert f"<@{world.ann['id']}>, your turn" in moved.content
    await settle(redis)


# --- damaged records ----------------------------------------------------------------------------------


def damaged_docs(world, channels) -> dict[int, str]:
    good = Record(
        id="dmg00001",
        kind="hongkong",
        status=Status.ACTIVE,
        guild_id=world.guild,
        channel_id=0,
        challenger=1,
        opponent=2,
        players=(Player(1, "a"), Player(2, "b")),
        state={"game": "hongkong", "moves": []},
        created=1.0,
        updated=1.0,
    ).to_dict()
    no_status = {k: v for k, v in good.items() if k != "status"}
    no_guild = {k: v for k, v in good.items() if k != "guild_id"}
    return dict(zip(channels, (json.dumps(no_status), json.dumps(no_guild), "{not json at all")))


async def test_damaged_records_are_set_aside_and_block_nothing(emu, world, bots, clock, redis):
    channels = [emu.create_channel(world.guild, f"bad{i}") for i in range(3)]
    for channel, doc in damaged_docs(world, channels).items():
        await redis.hset(Keys.game(channel), mapping={"v": 3, "doc": doc})
        await redis.sadd(Keys.active(world.guild), channel)
    await redis.set(Keys.game(world.other_channel), "a key of the wrong type")
    bot = await bots()  # starts: the damaged records do not stop it
    assert bot.bot.get_cog("Play") is not None and bot.bot.get_cog("Stats") is not None
    await new_game(emu, world)  # another channel plays as usual
    it = await emu.slash(world.cleo, world.channel, "games")
    listing = await it.wait_done()
    assert it.ephemeral and "Games in progress (1)" in listing.embeds[0]["title"]
    for channel in channels:
        assert await redis.exists(Keys.game(channel)) == 0  # freed
        text = await refused(await emu.slash(world.admin, channel, "game abort"))
        assert "There is no game running in this channel" in text
    # a new challenge in a damaged record's channel works
    it = await emu.slash(world.ann, channels[0], "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_done()
    assert (await GameStore(redis).get(channels[0])).record.status is Status.ACTIVE
    kept = await redis.zrange(Keys.QUARANTINE, 0, -1)
    assert len(kept) == 4 and all(":quarantine:" in key for key in kept)
    docs = {json.dumps(await redis.hgetall(k)) if await redis.type(k) == "hash" else await redis.get(k) for k in kept}
    assert "a key of the wrong type" in docs  # kept as it was, for inspection
    assert emu.errors == []


# --- downtime longer than a turn ---------------------------------------------------------------------


async def test_after_downtime_longer_than_the_turn_the_forfeit_comes_without_a_stale_reminder(emu, world, bots, clock):
    first = await bots()
    it = await emu.slash(world.admin, world.channel, "settings", turn_timer="2h")
    await it.wait_done()
    await new_game(emu, world)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="A1")
    await it.wait_followups(1)
    await first.stop()
    clock.advance(3 * HOUR)  # the reminder (1 h) and the forfeit (2 h) both passed while no bot ran
    await bots()
    final = await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
    assert f"{display(world.ben)} ran out of time" in final.content
    await asyncio.sleep(0.3)
    assert not any("⏰" in m.content for m in emu.messages(world.channel))


# --- the Redis server ----------------------------------------------------------------------------------


async def test_an_evicting_or_forgetful_redis_is_refused_with_one_line(redis):
    old = await redis.config_get("maxmemory-policy")
    try:
        await redis.config_set("maxmemory-policy", "allkeys-lru")
        with pytest.raises(RuntimeError) as refused_:
            await check_server(redis, "test", external=False)
        line = str(refused_.value)
        assert "maxmemory-policy allkeys-lru" in line and "noeviction" in line and "HONGBOT_ALLOW_UNSAFE_REDIS" in line
        assert "\n" not in line
        await redis.config_set("maxmemory-policy", "volatile-lru")  # game keys have no TTL: accepted
        await check_server(redis, "test", external=True)
    finally:
        await redis.config_set("maxmemory-policy", old["maxmemory-policy"])
    saved = await redis.config_get("save")
    try:
        await redis.config_set("appendonly", "no")
        await redis.config_set("save", "")
        await check_server(redis, "test", external=False)  # the embedded server is configured by the bot itself
        with pytest.raises(RuntimeError, match="keeps nothing on disk"):
            await check_server(redis, "test", external=True)
        await redis.config_set("save", "3600 1")
        await check_server(redis, "test", external=True)  # RDB save points are persistence too
    finally:
        await redis.config_set("save", saved["save"])
        await redis.config_set("appendonly", "yes")


async def test_the_commit_and_its_effects_are_one_step(store, redis):
    record = Record(
        id="g1",
        kind="hongkong",
        status=Status.CHALLENGE,
        guild_id=9,
        channel_id=5,
        challenger=1,
        opponent=2,
        players=(Player(1, "a"), Player(2, "b")),
        expires=50.0,
    )
    effects = Effects(schedule=(("expire|5|g1|0", 50.0),), announce=(("turn|5|g1|1|0|start", 10.0),), active=True)
    assert await store.commit(5, record, 0, effects) == 1
    assert await redis.zrange(Keys.DEADLINES, 0, -1, withscores=True) == [("expire|5|g1|0", 50.0)]
    assert await redis.zrange(Keys.OUTBOX, 0, -1) == ["turn|5|g1|1|0|start"]
    assert await redis.smembers(Keys.active(9)) == {"5"}
    # a lost race changes nothing at all
    other = record.replace(opponent=3, players=(Player(1, "a"), Player(3, "c")))
    assert await store.commit(5, other, 0, Effects(cancel=("expire|5|g1|0",), active=False)) is None
    assert await redis.zcard(Keys.DEADLINES) == 1 and await redis.smembers(Keys.active(9)) == {"5"}
    # the same commit retried after its reply was lost reports success without applying it twice
    assert await store.commit(5, record, 0, effects) == 1
    assert (await store.get(5)).version == 1
