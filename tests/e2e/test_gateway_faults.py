"""End to end: a Hong Kong game played by the real bot across each gateway fault Discord has (the emulator's, see
tests/emulator/gateway.py): a zombie connection, a heartbeat request, close 4008, op 7, op 9, a TCP drop, a guild
outage. After each one the next move is answered, and no move sent while the bot was away is lost or doubled.

The emulator heartbeats every second here (Discord: 41.25 s) and the bot judges a silent connection dead after 10 s
(its ``heartbeat_timeout`` setting; default 60 s), so a zombie is noticed in seconds.
"""

from __future__ import annotations

import asyncio
import random

import pytest

import engine.hongkong as hk
from tests.emulator import DiscordEmulator, EmulatorAssertion

from tests.bot.harness import decode_png, place_options, start_bot
from tests.e2e.test_hongkong import challenge_and_accept

pytestmark = pytest.mark.timeout(180)

HOUR = 3600


@pytest.fixture
async def emu(clock):
    """A local Discord heartbeating every second (grace 2 s); interactions wait up to 15 s for a bot that is
    identifying again (discord.py sleeps 5 s before a new IDENTIFY)."""
    emulator = DiscordEmulator(patch_discord=False, clock=clock, heartbeat_interval_ms=1000, heartbeat_grace_ms=2000)
    emulator.connect_grace = 15.0
    await emulator.start()
    yield emulator
    await emulator.stop()


@pytest.fixture
async def running(emu, world, redis_server, redis, clock):
    """The bot on the test's clock (its deadlines move when the test says so)."""
    bot = await start_bot(
        emu, redis_server, guild=world.guild, rng=random.Random(1), clock=clock, heartbeat_timeout=10.0
    )
    yield bot
    await bot.stop()


class Game:
    """A Hong Kong game between ann and ben, its moves drawn from the engine's legal ones (seeded)."""

    def __init__(self, emu, world) -> None:
        self.emu, self.world = emu, world
        self.game = hk.new_game(0)
        self.rng = random.Random(5)
        self.users = [world.ann, world.ben]

    async def start(self) -> None:
        await challenge_and_accept(self.emu, self.world)

    async def send_move(self):
        """The player to move sends a legal turn; returns (interaction, turn) without waiting for the answer."""
        turn = self.rng.choice(self.game.legal_moves())
        it = await self.emu.slash(
            self.users[self.game.to_move], self.world.channel, "hongkong place", **place_options(turn)
        )
        return it, turn

    async def answered(self, it, turn: str):
        """The move's public board, and the engine follows."""
        posted = (await it.wait_followups(1))[0]
        assert not it.ephemeral and f"`{turn}`" in posted.content, posted.content
        decode_png(posted.attachments[0].data)
        self.game.play(turn)
        if not self.game.is_over:
            assert f"<@{self.users[self.game.to_move]['id']}>, your turn" in posted.content
        return posted

    async def move(self):
        return await self.answered(*await self.send_move())

    def boards(self) -> int:
        """Boards posted in the channel (one per move, plus the first)."""
        return sum(
            1 for m in self.emu.messages(self.world.channel) for a in m.attachments if a.filename.endswith(".png")
        )

    def check(self) -> None:
        """Every move answered once: a board each, none doubled, none missing; no refusal from Discord."""
        assert self.boards() == len(self.game.moves) + 1
        assert not any("ended without a result" in m.content for m in self.emu.messages(self.world.channel))
        assert self.emu.errors == []


async def resumed(emu, session, count: int = 1) -> None:
    await emu._wait_until(
        lambda: session.resumes >= count and session.live,
        20,
        lambda: f"the bot to RESUME session {session.id} ({session.resumes} so far)",
    )


async def test_a_zombie_connection_is_noticed_resumed_and_the_next_move_answered(emu, world, running):
    game = Game(emu, world)
    await game.start()
    await game.move()
    session = emu.sessions[-1]
    zombie = session.conn
    acks = zombie.acks
    emu.stop_heartbeat_acks()
    await resumed(emu, session)
    assert zombie.closed and zombie.acks == acks and zombie.heartbeats > 0
    assert len(emu.sessions) == 1  # resumed, not identified again
    await game.move()
    await game.move()
    game.check()


async def test_a_heartbeat_request_mid_game_is_answered(emu, world, running):
    game = Game(emu, world)
    await game.start()
    await game.move()
    session = emu.sessions[-1]
    assert await emu.request_heartbeat() == session.seq  # at once, with the last sequence number it had
    await game.move()
    game.check()


@pytest.mark.parametrize("fault", ["close 4008", "close 4000", "drop 1006", "op 7", "op 9 resumable"])
async def test_a_move_sent_while_the_bot_is_away_is_replayed_on_resume_and_answered(emu, world, running, fault):
    game = Game(emu, world)
    await game.start()
    await game.move()
    session = emu.sessions[-1]
    if fault.startswith(("close", "drop")):
        await emu.drop_connection(int(fault.split()[1]))
    elif fault == "op 7":
        await emu.request_reconnect()
    else:
        await emu.invalidate_session(resumable=True)
    it, turn = await game.send_move()  # at once: the bot is away, or leaving
    await game.answered(it, turn)
    await resumed(emu, session)
    assert session.replayed >= 1  # the move came on the RESUME
    assert len(emu.sessions) == 1
    await game.move()
    game.check()


async def test_after_an_invalid_session_the_bot_identifies_again_and_the_game_goes_on(emu, world, running):
    game = Game(emu, world)
    await game.start()
    await game.move()
    first = emu.sessions[-1]
    await emu.invalidate_session()
    second = await emu.wait_for_ready(timeout=20)
    assert first.invalidated and second is not first
    await game.move()  # the game is in Redis, not in the session: it goes on
    await game.move()
    game.check()


async def test_a_guild_outage_mid_game_keeps_the_game_and_it_goes_on_after(emu, world, running, clock):
    game = Game(emu, world)
    await game.start()
    await game.move()
    before = game.boards()
    bot = running.bot
    await emu.guild_outage(world.guild)
    await emu._wait_until(lambda: bot.get_guild(world.guild).unavailable, 5, lambda: "the guild unavailable")
    with pytest.raises(EmulatorAssertion, match="outage"):
        await game.send_move()
    clock.advance(13 * HOUR)  # the turn's reminder (at half of the 1-day timer) falls due during the outage
    await asyncio.sleep(2.5)  # the bot's deadline poll (every second) finds it: it waits for the server
    assert bot.get_guild(world.guild) is not None  # unavailable, not left
    assert emu.errors == [] and not reminders(emu, world)  # not even tried: nothing lost to a 503
    await emu.end_guild_outage(world.guild)
    await emu._wait_until(lambda: not bot.get_guild(world.guild).unavailable, 5, lambda: "the guild back")
    clock.advance(61)  # the reminder's lease ends: it fires again, the server back
    reminder = await emu.wait_for_message(world.channel, lambda m: m.content.startswith("⏰"))
    assert f"<@{game.users[game.game.to_move]['id']}>, it's your turn" in reminder.content
    await game.move()
    await game.move()
    assert game.boards() == before + 2
    assert not any("ended without a result" in m.content for m in emu.messages(world.channel))
    assert len(reminders(emu, world)) == 1
    assert emu.errors == []


async def test_a_bot_restarted_during_a_guild_outage_waits_for_the_guild_too(emu, world, running, clock, redis_server):
    game = Game(emu, world)
    await game.start()
    await game.move()
    await emu.guild_outage(world.guild)
    await running.stop()
    again = await start_bot(
        emu, redis_server, guild=world.guild, rng=random.Random(2), clock=clock, heartbeat_timeout=10.0
    )
    try:
        assert again.bot.get_guild(world.guild).unavailable  # known from READY only: no channel cached
        assert again.bot.get_channel(world.channel) is None
        clock.advance(13 * HOUR)
        await asyncio.sleep(2.5)
        assert emu.errors == [] and not reminders(emu, world)
        await emu.end_guild_outage(world.guild)
        await emu._wait_until(lambda: not again.bot.get_guild(world.guild).unavailable, 5, lambda: "the guild back")
        clock.advance(61)
        await emu.wait_for_message(world.channel, lambda m: m.content.startswith("⏰"))
        await game.move()
        game.check()
        assert len(reminders(emu, world)) == 1
    finally:
        await again.stop()


def reminders(emu, world) -> list:
    return [m for m in emu.messages(world.channel) if m.content.startswith("⏰")]
