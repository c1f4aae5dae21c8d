"""End to end: every post is made once though Discord answers 5xx after making it (and discord.py retries), the bot's
own channel posts are paced fairly between servers, and it gets almost no invalid requests (401/403/404/429).

Faults come from the emulator's REST layer (``emu.faults``): ``when='after'`` makes the post, then answers 502.
A board is counted by its attachment's file name, which carries the game id and the version it shows.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

import engine.hongkong as hk
from bot.interface import discordhttp
from bot.interface.posts import send_quietly
from bot.storage.store import GameStore
from bot.storage.keys import Keys

from tests.bot.harness import place_options, resign
from tests.e2e.test_lifecycle import bots, new_game, set_timer, world  # noqa: F401  (a world with an admin; bots on the test clock)

pytestmark = pytest.mark.timeout(240)

HOUR = 3600
FOLLOW_UPS = r"/webhooks/\d+/[^/]+"
CHANNEL_POSTS = r"/channels/\d+/messages"


def bot_files(emu, channel) -> Counter:
    """How many of the channel's messages carry each attachment file name."""
    return Counter(a.filename for m in emu.messages(channel) for a in m.attachments)


def invalid() -> float:
    return sum(discordhttp.invalid_requests().values())


async def settle(redis, *, timeout: float = 30.0) -> None:
    """Wait until the outbox is empty (every announcement made and marked done)."""
    for _ in range(int(timeout / 0.05)):
        if not await redis.zcard(Keys.OUTBOX):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"announcements left: {await redis.zrange(Keys.OUTBOX, 0, -1)}")


async def play(emu, world, redis, moves: int, rng: random.Random) -> list[str]:
    """Ann and Ben play ``moves`` legal Hong Kong turns in the channel's game, each waiting for its board; returns
    the turns played."""
    store, played = GameStore(redis), []
    users = {int(world.ann["id"]): world.ann, int(world.ben["id"]): world.ben}
    for _ in range(moves):
        record = (await store.get(world.channel)).record
        game = hk.from_dict(record.state)
        if game.is_over:
            break
        turn = rng.choice(game.legal_moves())
        it = await emu.slash(
            users[record.player(game.to_move).id], world.channel, "hongkong place", **place_options(turn)
        )
        await it.wait_followups(1, timeout=20)
        played.append(turn)
    return played


async def test_every_board_rating_line_and_move_once_under_502s_after_posting(emu, world, bots, redis):
    await bots()
    follow_ups = emu.faults.add("POST", FOLLOW_UPS, status=502, when="after")  # every public follow-up
    channel = emu.faults.add("POST", CHANNEL_POSTS, status=502, when="after", probability=0.3)
    before = invalid()
    await new_game(emu, world)
    played = await play(emu, world, redis, 8, random.Random(3))
    final = await resign(emu, world.ann, world.channel)
    assert "Game over" in final.content
    await settle(redis)
    lines = await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))
    await asyncio.sleep(1.5)  # a doubled post would have shown by now
    files = bot_files(emu, world.channel)
    boards = [name for name in files if name.startswith("hongkong-")]
    # the first board, one per move, the final one: each once
    assert len(boards) == len(played) + 2 and set(files.values()) == {1}, files
    assert sum(m.content.startswith("📈") for m in emu.messages(world.channel)) == 1, lines.content
    # every move stored once, in order
    record_id = final.button("Rematch")["custom_id"].split(":")[-1]
    record = await GameStore(redis).finished(world.channel, record_id)
    assert record.state["moves"] == played
    assert follow_ups.hits >= len(played) + 2
    print(
        f"\nfollow-ups answered 502 after posting: {follow_ups.hits}; channel posts: {channel.hits}; "
        f"invalid requests the bot counted (401/403/404/429): {invalid() - before:.0f}; the emulator's "
        f"(401/403/429): {emu.invalid_requests()}, 404s: {emu.not_found_requests()}, 429s: {len(emu.ratelimited)}"
    )
    assert invalid() - before <= 2 and emu.invalid_requests() <= 2
    assert emu.errors == []


async def test_a_follow_up_failing_before_posting_is_sent_again_once(emu, world, bots, redis):
    await bots()
    await new_game(emu, world)
    await settle(redis)
    fault = emu.faults.add("POST", FOLLOW_UPS, status=502, when="before", times=2)
    played = await play(emu, world, redis, 1, random.Random(4))
    await settle(redis)
    assert fault.hits == 2
    boards = [n for n, count in bot_files(emu, world.channel).items() if n.startswith("hongkong-")]
    assert len(boards) == 2 and set(bot_files(emu, world.channel).values()) == {1}  # first board + the move's
    posted = [m for m in emu.messages(world.channel) if f"played `{played[0]}`" in m.content]
    assert len(posted) == 1 and posted[0].attachments
    assert emu.errors == []


async def test_a_reminder_and_a_rating_line_once_under_502s_after_posting(emu, world, bots, clock, redis):
    await bots()
    await set_timer(emu, world, "2h")
    await new_game(emu, world)
    await play(emu, world, redis, 1, random.Random(5))
    await settle(redis)
    # the reminder: made, then 502 twice — discord.py retries with the same nonce, Discord returns the first
    fault = emu.faults.add("POST", CHANNEL_POSTS, status=502, when="after", times=2)
    clock.advance(HOUR + 1)
    await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    for _ in range(400):  # discord.py's retries (1 s, then 3 s) end; the reminder's deadline is settled
        if not any(d.startswith("remind|") for d in await redis.zrange(Keys.DEADLINES, 0, -1)):
            break
        await asyncio.sleep(0.05)
    assert fault.hits == 2
    # the rating line (a channel post after the final board): made, then 502 twice
    fault = emu.faults.add("POST", CHANNEL_POSTS, status=502, when="after", times=2)
    await resign(emu, world.ben, world.channel)
    await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))
    await settle(redis)
    assert fault.hits == 2
    await asyncio.sleep(1.0)
    assert sum("⏰" in m.content for m in emu.messages(world.channel)) == 1
    assert sum(m.content.startswith("📈") for m in emu.messages(world.channel)) == 1
    assert emu.errors == []


async def test_the_computers_boards_appear_once_under_502s_after_posting(emu, world, bots, redis):
    await bots()
    emu.faults.add("POST", FOLLOW_UPS, status=502, when="after")
    channel = emu.faults.add("POST", CHANNEL_POSTS, status=502, when="after", probability=0.3)
    it = await emu.slash(
        world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="me"
    )
    await it.wait_followups(1, timeout=20)
    store, rng = GameStore(redis), random.Random(6)
    for _ in range(6):
        record = (await store.get(world.channel)).record
        game = hk.from_dict(record.state)
        if game.is_over or game.to_move != 0:
            break
        moves = len(game.moves)
        it = await emu.slash(
            world.ann, world.channel, "hongkong place", **place_options(rng.choice(game.legal_moves()))
        )
        await it.wait_followups(1, timeout=20)
        for _ in range(400):  # the computer's reply: committed and posted
            stored = await store.get(world.channel)
            if stored is None or len(stored.record.state["moves"]) >= moves + 2:
                break
            await asyncio.sleep(0.05)
        await settle(redis)
    await asyncio.sleep(1.0)
    files = bot_files(emu, world.channel)
    assert set(files.values()) == {1}, files
    replies = [m for m in emu.messages(world.channel) if m.interaction_id is None and "played" in m.content]
    assert len(replies) == len({m.content for m in replies}) >= 3
    print(f"\nchannel posts answered 502 after posting: {channel.hits}")
    assert emu.errors == []


async def test_one_busy_server_does_not_starve_anothers_posts(emu, world, bots, redis):
    bot = (await bots()).bot
    busy_guild = emu.create_guild("Busy")
    busy = [emu.create_channel(busy_guild, f"busy-{n}") for n in range(5)]
    for _ in range(100):
        if all(bot.get_channel(c) for c in busy):
            break
        await asyncio.sleep(0.05)
    bot.gate.rate, bot.gate.burst = 5.0, 1  # a small budget, so the posts queue within the test
    it = await emu.slash(
        world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="me"
    )
    await it.wait_followups(1, timeout=20)
    posts = 100  # the busy server's: 20 s of the budget; first come, first served would put the other's behind all
    flood = [asyncio.create_task(send_quietly(bot, busy[n % 5], f"flood {n}", nonce=f"flood{n}")) for n in range(posts)]
    try:
        await asyncio.sleep(0.5)
        assert bot.gate.waiting > posts - 20
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        await it.wait_followups(1, timeout=30)  # an interaction's follow-up never waits behind the queue
        flooded = sum(len(emu.messages(c)) for c in busy)
        assert flooded < posts - 20, flooded
        reply = await emu.wait_for_message(
            world.channel, lambda m: m.interaction_id is None and "played" in m.content, timeout=60
        )
        flooded = sum(len(emu.messages(c)) for c in busy)
        print(
            f"\nthe other server's reply came after {flooded} of the busy server's {posts} posts; "
            f"429s: {len(emu.ratelimited)}, invalid requests: {emu.invalid_requests()}"
        )
        assert flooded < posts - 10, flooded  # served in turn, not behind the whole queue
        assert reply.attachments
    finally:
        assert all(await asyncio.gather(*flood))
    assert sum(len(emu.messages(c)) for c in busy) == posts
    assert emu.invalid_requests() <= 5  # discord.py waits out each channel's bucket as its headers say
    assert emu.errors == []


async def test_a_follow_up_the_bot_cant_check_is_left_to_the_outbox_and_counted(emu, world, bots, clock, redis):
    await bots()
    await new_game(emu, world)
    await settle(redis)
    forbidden = discordhttp.invalid_requests()["403"]
    emu.faults.add("POST", FOLLOW_UPS, status=502, when="after", times=1)
    history = emu.faults.add("GET", CHANNEL_POSTS, status=403, when="before", times=1)  # the look in the channel
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    board, note = await it.wait_followups(2, timeout=20)
    assert board.attachments and note.ephemeral and "is saved" in note.content
    assert history.hits == 1 and await redis.zcard(Keys.OUTBOX) == 1  # it can't tell: the outbox decides
    assert discordhttp.invalid_requests()["403"] == forbidden + 1  # counted by the bot's trace
    clock.advance(16)  # the reconciler's turn: it finds the board and posts nothing
    await settle(redis)
    await asyncio.sleep(0.5)
    files = bot_files(emu, world.channel)
    assert len([n for n in files if n.startswith("hongkong-")]) == 2 and set(files.values()) == {1}, files
    assert emu.invalid_requests() == 1
    assert emu.errors == []


async def test_a_first_response_answered_502_after_being_made_counts_as_made(emu, world, bots, redis):
    await bots()
    callbacks = emu.faults.add("POST", r"/interactions/\d+/[^/]+/callback", status=502, when="after", times=1)
    # a challenge (the initial response, with buttons): made once, and its buttons work
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    assert callbacks.hits == 1 and len(it.responses) == 1
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1, timeout=20)
    await settle(redis)
    # a move: its "thinking…" made, then 502; discord.py's retry is refused (40060): the board still follows it
    callbacks = emu.faults.add("POST", r"/interactions/\d+/[^/]+/callback", status=502, when="after", times=1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    [board] = await it.wait_followups(1, timeout=20)
    await settle(redis)  # posted by the move itself: the outbox empty on the test's clock (no reconciler)
    assert callbacks.hits == 1 and board.attachments and "played `S@B2`" in board.content
    assert not any(m.ephemeral for m in it.messages)  # no "couldn't post the board" note
    files = bot_files(emu, world.channel)
    assert len([n for n in files if n.startswith("hongkong-")]) == 2 and set(files.values()) == {1}, files
    # the only errors: resends of the two callbacks, which Discord refuses (40060) — one each, unless a loaded host
    # left no time for the quick resend and discord.py's own came too late to be counted
    kinds = [e.kind for e in emu.errors]
    assert set(kinds) == {"already_acknowledged"} and 1 <= len(kinds) <= 2, kinds


@pytest.mark.parametrize("when", ["after", "before"])
async def test_a_first_response_whose_connection_drops_is_sent_again_and_the_move_made(emu, world, bots, redis, when):
    """The connection of a move's "thinking…" drops — after Discord took it, or before: either way it is sent again
    at once, and the move is made and its board posted (not a "thinking…" left in the channel for good)."""
    await bots()
    await new_game(emu, world)
    await settle(redis)
    callbacks = emu.faults.add("POST", r"/interactions/\d+/[^/]+/callback", status=None, drop=True, when=when, times=1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    [board] = await it.wait_followups(1, timeout=20)
    assert callbacks.hits == 1 and it.response_type == 5 and not it.ephemeral
    assert board.attachments and "played `S@B2`" in board.content
    await settle(redis)
    assert (await GameStore(redis).get(world.channel)).record.state["moves"] == ["S@B2"]
    assert set(bot_files(emu, world.channel).values()) == {1}
    # after: the resent callback is refused as already acknowledged, which tells the bot the first was made
    assert [e.kind for e in emu.errors] == (["already_acknowledged"] if when == "after" else [])


async def test_a_thread_made_before_a_502_is_the_games_thread(emu, world, bots, redis):
    await bots()
    it = await emu.slash(world.admin, world.channel, "settings", threads=True)
    await it.wait_done()
    fault = emu.faults.add("POST", r"/channels/\d+/messages/\d+/threads", status=502, when="after", times=1)
    challenge, click = await new_game(emu, world)
    first = await emu.wait_for_message(challenge.id, lambda m: "the game begins" in m.content)
    assert fault.hits == 1 and [int(t["id"]) for t in emu.threads(world.channel)] == [challenge.id]
    assert first.attachments and (await GameStore(redis).get(challenge.id)) is not None
    assert not any("couldn't open a thread" in m.content for m in emu.messages(world.channel))
    # the only error: discord.py's own retry, which Discord refuses (160004: the thread exists)
    assert [e.kind for e in emu.errors] in ([], ["bad_request"])


async def test_a_first_response_failing_before_it_is_made_is_sent_again_in_time(emu, world, bots, redis):
    await bots()
    await new_game(emu, world)
    await settle(redis)
    # twice 502: discord.py alone would send it again after 1 s, then 3 s — past Discord's 3 s, refused (10062)
    callbacks = emu.faults.add("POST", r"/interactions/\d+/[^/]+/callback", status=502, when="before", times=2)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    [board] = await it.wait_followups(1, timeout=20)
    assert callbacks.hits == 2 and it.response_type == 5  # accepted: the emulator refuses one past 3 s
    assert board.attachments and "played `S@B2`" in board.content
    await settle(redis)
    assert set(bot_files(emu, world.channel).values()) == {1}
    assert emu.errors == []


async def test_posts_whose_connection_drops_after_they_were_made_appear_once(emu, world, bots, clock, redis):
    await bots()
    await set_timer(emu, world, "2h")
    await new_game(emu, world)
    await settle(redis)
    # a follow-up (the move's board): made, then the connection closed without an answer
    dropped = emu.faults.add("POST", FOLLOW_UPS, status=None, drop=True, when="after", times=1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    [board] = await it.wait_followups(1, timeout=20)
    await settle(redis)
    assert dropped.hits == 1 and board.attachments
    # a channel post (the reminder): made, then dropped; sent again with the same nonce, Discord returns the first
    dropped = emu.faults.add("POST", CHANNEL_POSTS, status=None, drop=True, when="after", times=1)
    clock.advance(HOUR + 1)
    await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    for _ in range(200):
        if not any(d.startswith("remind|") for d in await redis.zrange(Keys.DEADLINES, 0, -1)):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    assert dropped.hits == 1
    assert sum("⏰" in m.content for m in emu.messages(world.channel)) == 1
    assert set(bot_files(emu, world.channel).values()) == {1}
    assert emu.errors == []
