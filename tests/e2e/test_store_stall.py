"""A game store that hangs: every interaction is still answered within Discord's 3 s, and a move is either applied
and answered or refused as not saved — never applied later in silence.

The real bot through the emulator, with its Redis connection made as ``python -m bot`` makes it
(:func:`bot.storage.connection.connect`: the timeouts of :mod:`bot.budget`), and the test's real redis-server stopped with
SIGSTOP (nothing answers, nothing errors) and resumed with SIGCONT. The emulator refuses an initial response later
than 3 s after the interaction was sent (``response_deadline``), as Discord does. Also a commit queued in a stopped
server, at the store level: when the server wakes past the commit's deadline, the script refuses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time

import pytest
import redis.asyncio as aioredis

from bot import budget
from bot.core.record import Player, Record, Status
from bot.storage.store import Effects, GameStore, NotSaved, fresh_task
from bot.storage.connection import connect, redis_options

from tests.bot.harness import decode_png, display, place_options, start_bot

pytestmark = pytest.mark.timeout(180)

FIRST = "Q@B2 S@B3"  # ann's first turn


@pytest.fixture
async def redis_pid(redis_server, redis):
    """The process id of the test's redis-server (stopped and resumed by the tests; local servers only)."""
    if "url" in redis_server:
        pytest.skip("the Redis server is not a local process of this test run")
    return int((await redis.info("server"))["process_id"])


@contextlib.contextmanager
def stopped(pid: int):
    """The redis-server stopped (SIGSTOP) for the block; always resumed (SIGCONT)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.fixture
async def bot(emu, world, redis_server, redis, tmp_path):
    """The bot with the production connection to Redis: a waiting pool, the budget's timeouts, no retries."""
    url = redis_server.get("url") or f"unix://{redis_server['unix_socket_path']}"
    handle = await connect(url, tmp_path, allow_unsafe=True)
    running = await start_bot(emu, redis_server, guild=world.guild, rng=random.Random(1), redis=handle)
    yield running
    await running.stop()


async def started(emu, world):
    """Ann challenges Ben, Ben accepts: a running Hong Kong game, Ann to move."""
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben, first="me")
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)


async def first_response_in_time(it) -> dict:
    """The interaction's initial response; the emulator fails the wait if it came later than Discord's 3 s."""
    response = await it.wait_response(timeout=budget.DISCORD_INITIAL + 1, fail_on_refusal=True)
    assert it.deadline is not None
    return response


async def test_a_move_while_redis_hangs_is_answered_in_time_refused_and_never_stored(emu, world, bot, redis, redis_pid):
    await started(emu, world)
    store = GameStore(redis)
    before = await store.raw(world.channel)
    with stopped(redis_pid):
        it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
        response = await first_response_in_time(it)
        # the watchdog's "thinking…", to the player alone
        assert response["type"] == 5 and it.ephemeral, it.state()
        told = await it.wait_done(timeout=budget.STORE_DEADLINE + 10)
        assert told.content == (
            f"The game store isn't answering — your move `{FIRST}` was not saved. Please try again in a moment."
        ), it.state()
        assert told.ephemeral and told.attachments == []
        await asyncio.sleep(0.5)  # still stopped: nothing was said twice
        assert len(it.followups) == 1 and it.original is told
    await asyncio.sleep(1.0)  # Redis runs whatever waited in it
    assert await store.raw(world.channel) == before  # the move is not stored, then or later
    assert not [m for m in emu.messages(world.channel) if f"`{FIRST}`" in m.content]
    # the same move made again is played
    again = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
    posted = await again.wait_done()
    assert not again.ephemeral and posted.content.startswith(f"{display(world.ann)} played `{FIRST}`")
    decode_png(posted.attachments[0].data)
    assert (await store.raw(world.channel))["v"] == str(int(before["v"]) + 1)
    assert emu.errors == []


async def test_a_stall_shorter_than_the_budget_still_plays_the_move_and_posts_its_board(
    emu, world, bot, redis, redis_pid
):
    await started(emu, world)
    store = GameStore(redis)
    before = await store.raw(world.channel)
    with stopped(redis_pid):
        it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(FIRST))
        response = await first_response_in_time(it)
        assert response["type"] == 5 and it.ephemeral, it.state()  # answered before Redis came back
        await asyncio.sleep(max(0.0, it.dispatched_at + budget.ANSWER_BY + 0.7 - emu._loop_time()))
    # Redis answers within the socket timeout: the move is stored, the board posted in the channel
    board = (await it.wait_followups(1, timeout=15))[0]
    assert not board.ephemeral and board.content.startswith(f"{display(world.ann)} played `{FIRST}`"), it.state()
    decode_png(board.attachments[0].data)
    assert it.original.content == f"Your move `{FIRST}` is saved; its board is posted in this channel."
    assert it.original.ephemeral
    assert (await store.raw(world.channel))["v"] == str(int(before["v"]) + 1)
    assert emu.errors == []


async def test_a_button_a_board_and_an_autocomplete_are_answered_in_time_while_redis_hangs(
    emu, world, bot, redis, redis_pid
):
    await started(emu, world)
    store = GameStore(redis)
    ask = await emu.slash(world.ann, world.channel, "hongkong resign")
    question = await ask.wait_done()
    before = await store.raw(world.channel)
    with stopped(redis_pid):
        click = await emu.click(world.ann, question, question.button("Confirm")["custom_id"])
        board = await emu.slash(world.cleo, world.channel, "hongkong board")
        choices = await emu.autocomplete(world.ann, world.channel, "hongkong place", focused="square", square="B")
        assert choices == []  # given up quietly, in time
        assert (await first_response_in_time(click))["type"] == 6  # a deferred update: the button shows it works
        assert (await first_response_in_time(board))["type"] == 5 and board.ephemeral
        nothing = "The game store isn't answering — nothing was saved. Please try again in a moment."
        told = (await click.wait_followups(1, timeout=budget.STORE_DEADLINE + 10))[0]
        assert told.ephemeral and told.content == nothing, click.state()
        # a command that only reads is not told "nothing was saved": it saved nothing to begin with
        read = "The game store isn't answering right now. Please try again in a moment."
        assert (await board.wait_done(timeout=budget.STORE_DEADLINE + 10)).content == read, board.state()
    await asyncio.sleep(1.0)
    assert await store.raw(world.channel) == before  # not resigned
    assert question.buttons()  # the question still stands: Confirm works once Redis is back
    again = await emu.click(world.ann, question, question.button("Confirm")["custom_id"])
    final = (await again.wait_followups(1))[0]
    assert "resigned" in final.content and question.content == "You resigned."
    assert emu.errors == []


async def test_a_commit_queued_in_a_stopped_server_is_refused_when_it_wakes_past_its_deadline(
    redis_server, redis, redis_pid
):
    """The store alone: the commit is sent, the server is stopped before it runs it, the reply times out; the
    server wakes after the commit's deadline and runs it — the script refuses it — and the re-read says "not
    saved". Without the deadline the move would be applied then, after the player was told it was not."""
    await redis.flushdb()
    channel = 7001
    store = GameStore(redis)
    record = Record.from_json((await _seed(store, channel))["doc"])
    before = await store.raw(channel)
    changed = record.replace(updated=record.updated + 1)
    client = aioredis.Redis(
        unix_socket_path=redis_server["unix_socket_path"],
        decode_responses=True,
        **{**redis_options(), "socket_timeout": 1.0},
    )
    hung = GameStore(client)
    try:
        await hung._clock_offset()  # compared while the server answers
        fresh_task(time.monotonic() + 1.0)
        os.kill(redis_pid, signal.SIGSTOP)
        loop = asyncio.get_running_loop()
        # the reply times out at 1 s; the re-read (at 1.25 s, after the deadline) waits for the server to wake
        resume = loop.call_later(1.7, os.kill, redis_pid, signal.SIGCONT)
        try:
            with pytest.raises(NotSaved):
                await hung.commit(channel, changed, 1, Effects())
        finally:
            resume.cancel()
            os.kill(redis_pid, signal.SIGCONT)
        await asyncio.sleep(0.3)
        assert await store.raw(channel) == before
        # a commit that reaches the server in time is applied as before
        fresh_task(time.monotonic() + 5.0)
        assert await hung.commit(channel, changed, 1, Effects()) == 2
    finally:
        fresh_task(None)
        await client.aclose()


async def test_the_commit_script_refuses_a_change_past_its_deadline(redis):
    """A commit that reaches Redis after its deadline (on Redis's clock) changes nothing and is NotSaved."""
    await redis.flushdb()
    store = GameStore(redis)
    channel = 7002
    record = Record.from_json((await _seed(store, channel))["doc"])
    before = await store.raw(channel)
    offset = await store._clock_offset()
    store._offset = (offset - 10, time.monotonic())  # as if it arrived 10 s after its deadline
    fresh_task(time.monotonic() + 2.0)
    try:
        with pytest.raises(NotSaved):
            await store.commit(channel, record.replace(updated=record.updated + 1), 1, Effects())
        assert await store.raw(channel) == before
        fresh_task(time.monotonic() - 0.1)  # already past: not even sent
        with pytest.raises(NotSaved):
            await store.commit(channel, record.replace(updated=record.updated + 1), 1, Effects())
        assert await store.raw(channel) == before
    finally:
        fresh_task(None)


async def _seed(store: GameStore, channel: int) -> dict:
    """A stored record (version 1) in ``channel``."""
    record = Record(
        id=f"g{channel}",
        kind="hongkong",
        status=Status.CHALLENGE,
        guild_id=9,
        channel_id=channel,
        challenger=1,
        opponent=2,
        players=(Player(1, "ann"), None),
        created=1.0,
        updated=1.0,
        expires=10.0**10,
    )
    assert await store.commit(channel, record, 0) == 1
    return await store.raw(channel)
