"""End to end: an interaction that would change a game is acknowledged before the change is committed, and one
Discord no longer takes changes nothing.

Discord refuses an initial response later than 3 s after it sent the interaction (10062 Unknown interaction; the
emulator's ``response_deadline``): when the bot's callback arrives that late (network latency before it, here the
emulator's ``when='before'`` latency on the callback route), or the interaction itself reaches the bot late (a
zombie connection's events replayed on RESUME), the player saw "The application did not respond" — so the move, the
acceptance or the resignation must not be stored, and pressing again must work. And a change that loses a race
after its public "thinking…" is refused privately: the "thinking…" goes, the refusal is the player's alone.
"""

from __future__ import annotations

import random

import pytest
from prometheus_client import REGISTRY

from bot.core.record import Status
from bot.storage.store import GameStore
from tests.emulator import DiscordEmulator

from tests.bot.harness import decode_png, display, place_options, start_bot

pytestmark = pytest.mark.timeout(180)

FIRST = "Q@B2 S@B3"  # ann's first turn
CALLBACK = r"/interactions/\d+/[^/]+/callback"
#: Latency before the callback's effect: it reaches Discord after its 3 s, and is refused 10062.
LATE = 3.5


@pytest.fixture
async def emu(clock):
    """A local Discord heartbeating every second (grace 2 s), so a zombie connection is noticed in seconds."""
    emulator = DiscordEmulator(patch_discord=False, clock=clock, heartbeat_interval_ms=1000, heartbeat_grace_ms=2000)
    emulator.connect_grace = 15.0
    await emulator.start()
    yield emulator
    await emulator.stop()


@pytest.fixture
async def bot(emu, world, redis_server, redis, clock):
    running = await start_bot(
        emu, redis_server, guild=world.guild, rng=random.Random(1), clock=clock, heartbeat_timeout=10.0
    )
    yield running
    await running.stop()


def expired() -> float:
    """``hongbot_failures_total{reason="expired"}`` of this process (the bot runs in the test's process)."""
    return REGISTRY.get_sample_value("hongbot_failures_total", {"reason": "expired"}) or 0.0


async def given_up(emu, before: float) -> None:
    """Wait until the bot has counted one more interaction it could not acknowledge (and so changed nothing)."""
    await emu._wait_until(lambda: expired() > before, 30, lambda: f"an expired interaction counted ({expired()})")


async def challenged(emu, world):
    """Ann challenges Ben (Ann moves first): the challenge's message."""
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben, first="me")
    return await it.wait_done()


async def started(emu, world) -> None:
    challenge = await challenged(emu, world)
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)


def posted_moves(emu, world, move: str) -> list:
    return [m for m in emu.messages(world.channel) if f"`{move}`" in m.content]


async def played(emu, world, move: str = FIRST):
    """Ann plays ``move`` and its public board is posted."""
    again = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(move))
    posted = await again.wait_done()
    assert not again.ephemeral and posted.content.startswith(f"{display(world.ann)} played `{move}`"), again.state()
    decode_png(posted.attachments[0].data)
    return posted


async def test_a_move_whose_acknowledgement_arrives_late_is_not_stored_and_can_be_played_again(emu, world, bot, redis):
    await started(emu, world)
    store = GameStore(redis)
    before, count = await store.raw(world.channel), expired()
    fault = emu.faults.add(method="POST", path=CALLBACK, status=None, when="before", delay=LATE)
    it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
    await given_up(emu, count)
    assert fault.hits >= 1
    assert it.responses == [] and it.followups == [], it.state()  # Discord took nothing: "did not respond"
    assert await store.raw(world.channel) == before  # the game is as it was
    assert posted_moves(emu, world, FIRST) == []
    fault.remove()
    await played(emu, world)  # not "It's not your turn": the same move is played
    assert (await store.raw(world.channel))["v"] == str(int(before["v"]) + 1)
    assert len(posted_moves(emu, world, FIRST)) == 1


async def test_a_challenge_accepted_too_late_stays_open_and_can_be_accepted_again(emu, world, bot, redis):
    challenge = await challenged(emu, world)
    store = GameStore(redis)
    before, count = await store.raw(world.channel), expired()
    fault = emu.faults.add(method="POST", path=CALLBACK, status=None, when="before", delay=LATE)
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await given_up(emu, count)
    assert click.responses == [] and click.followups == [], click.state()
    assert await store.raw(world.channel) == before
    assert (await store.get(world.channel)).record.status is Status.CHALLENGE
    assert not any(a.filename.endswith(".png") for m in emu.messages(world.channel) for a in m.attachments)
    fault.remove()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    board = (await click.wait_followups(1))[0]
    decode_png(board.attachments[0].data)
    assert (await store.get(world.channel)).record.status is Status.ACTIVE


async def test_a_resignation_confirmed_too_late_is_not_made_and_can_be_confirmed_again(emu, world, bot, redis):
    await started(emu, world)
    store = GameStore(redis)
    ask = await emu.slash(world.ann, world.channel, "hongkong resign")
    question = await ask.wait_done()
    before, count = await store.raw(world.channel), expired()
    fault = emu.faults.add(method="POST", path=CALLBACK, status=None, when="before", delay=LATE)
    click = await emu.click(world.ann, question, question.button("Confirm")["custom_id"])
    await given_up(emu, count)
    assert click.responses == [] and click.followups == [], click.state()
    assert await store.raw(world.channel) == before  # still running
    assert not any("resigned" in m.content for m in emu.messages(world.channel))
    fault.remove()
    click = await emu.click(world.ann, question, question.button("Confirm")["custom_id"])
    board = (await click.wait_followups(1))[0]
    assert "Game over" in board.content and "resigned" in board.content, board.content
    assert await store.get(world.channel) is None  # finished: the channel is free


async def test_a_move_replayed_after_a_zombie_connection_resumes_is_not_applied(emu, world, bot, redis):
    await started(emu, world)
    store = GameStore(redis)
    before, count = await store.raw(world.channel), expired()
    session = emu.sessions[-1]
    emu.stop_heartbeat_acks()  # a zombie: the move below is held, and replayed on RESUME, seconds late
    it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
    await emu._wait_until(lambda: session.resumes >= 1 and session.live, 30, lambda: "the bot to RESUME")
    assert session.replayed >= 1
    await given_up(emu, count)
    assert it.responses == [] and it.followups == [], it.state()
    assert await store.raw(world.channel) == before
    assert posted_moves(emu, world, FIRST) == []
    await played(emu, world)
    assert len(posted_moves(emu, world, FIRST)) == 1


async def test_a_move_that_loses_a_race_after_its_public_thinking_is_refused_privately(emu, world, bot, redis):
    await started(emu, world)
    store = GameStore(redis)
    stored = await store.get(world.channel)
    # the acknowledgement takes a second (within Discord's 3 s); meanwhile another change lands first
    fault = emu.faults.add(method="POST", path=CALLBACK, status=None, when="before", delay=1.5, times=1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
    await emu._wait_until(lambda: fault.hits >= 1, 10, lambda: "the move's acknowledgement sent")
    assert await store.commit(world.channel, stored.record, stored.version) == stored.version + 1
    told = (await it.wait_followups(1))[0]
    assert told.ephemeral, it.state()
    assert told.content == (
        "The game changed at the same moment (another move, takeback or answer landed first). "
        "Look at the board and try again."
    ), it.state()
    assert it.original is not None and it.original.deleted  # the public "thinking…" is gone
    assert (await store.get(world.channel)).version == stored.version + 1  # ours, not the move
    assert posted_moves(emu, world, FIRST) == []
    await played(emu, world)
