"""End to end: games against the computer (the bot user itself), through the emulator."""

from __future__ import annotations

import random

import pytest

import engine.hong as hong
import engine.hongkong as hk
from bot.storage.store import GameStore

from tests.bot.harness import decode_png, display, place_options, resign
from tests.bot.shared import emu, redis, running, world  # noqa: F401  (one emulator and bot for the module)

# each test plays in a channel of its own against the one bot (its own people too): nothing is shared but the bot
pytestmark = [pytest.mark.timeout(300), pytest.mark.asyncio(loop_scope="module")]


def computer_posts(emu, channel):
    return [m for m in emu.messages(channel) if m.interaction_id is None and m.attachments]


async def test_hongkong_against_the_computer_to_the_end(emu, world, running, redis):
    # Loosened: Ann plays up to 30 moves as fast as the host allows and the computer answers each with a channel
    # post, which Discord's 5-per-5 s bucket paces to one a second (the bot waits as told, no 429: 1.2 s -> 10.7 s
    # for this test). The pacing is not what this test checks; tests/emulator/tests/test_limits.py checks the limits.
    emu.rate_limits.set_limit("POST", "/channels/{id}/messages", 50, 5.0)
    it = await emu.slash(
        world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="me"
    )
    start = (await it.wait_followups(1))[0]
    assert "against the computer (easy, unrated)" in start.content
    decode_png(start.attachments[0].data)
    store = GameStore(redis)
    rng = random.Random(5)
    last = None
    for _ in range(30):
        doc = (await store.get(world.channel)).record
        game = hk.from_dict(doc.state)
        assert game.to_move == 0  # the computer has answered: it is Ann's turn again
        move = rng.choice(game.legal_moves())
        it = await emu.slash(world.ann, world.channel, "hongkong place", **place_options(move))
        await it.wait_followups(1)
        game.play(move)
        if game.is_over:
            break
        seen = len(computer_posts(emu, world.channel))
        await emu.wait_for_message(world.channel, lambda m: len(computer_posts(emu, world.channel)) > seen, timeout=20)
        last = computer_posts(emu, world.channel)[-1]
        assert "played" in last.content
        if "Game over" in last.content:
            break
    assert await store.get(world.channel) is None  # the game ended
    final = [m for m in emu.messages(world.channel) if "Game over" in m.content][-1]
    assert final.content.endswith(f"\n<@{world.ann['id']}> — thanks for playing!")  # never the computer itself
    assert "Computer wins" in final.content or "ann wins" in final.content or "Draw" in final.content
    record_id = final.button("Rematch")["custom_id"].split(":")[-1]
    record = await store.finished(world.channel, record_id)
    # every move on record is legal: the record replays through the engine to the end
    replay = hk.from_dict(record.state)
    assert replay.is_over and record.player(1).bot is True
    assert emu.errors == []


async def test_hong_computer_moves_first_as_emperor(emu, world, running, redis):
    it = await emu.slash(
        world.ann, world.channel, "hong challenge", opponent=emu.bot_user, board="inner", role="dragon_master"
    )
    start = (await it.wait_followups(1))[0]
    assert "against the computer (medium, unrated)" in start.content
    reply = await emu.wait_for_message(
        world.channel, lambda m: m.interaction_id is None and "played" in m.content, timeout=20
    )
    assert f"<@{world.ann['id']}>, your turn (dragon master)" in reply.content
    doc = (await GameStore(redis).get(world.channel)).record
    game = hong.from_dict(doc.state)
    assert len(game.moves) == 1 and game.to_move == 1
    assert emu.errors == []


async def test_a_rematch_against_the_computer_says_so(emu, world, running, redis):
    it = await emu.slash(
        world.ann, world.channel, "hong challenge", opponent=emu.bot_user, board="inner", role="emperor", level="easy"
    )
    await it.wait_followups(1)
    final = await resign(emu, world.ann, world.channel, "hong")
    click = await emu.click(world.ann, final, final.button("Rematch")["custom_id"])  # the computer always agrees
    start = (await click.wait_followups(1))[0]
    assert start.content.startswith(
        f"**Hong** — rematch against the computer (easy, unrated): Computer plays the "
        f"emperor and moves first; {display(world.ann)} plays the dragon master.\n"
    )
    assert emu.errors == []


async def test_takeback_against_the_computer_undoes_its_reply_too(emu, world, running, redis):
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy")
    await it.wait_followups(1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    await it.wait_followups(1)
    await emu.wait_for_message(world.channel, lambda m: m.interaction_id is None and "played" in m.content, timeout=20)
    store = GameStore(redis)
    played = (await store.get(world.channel)).record.state["moves"]
    assert len(played) == 2 and played[0] == "S@B2"
    it = await emu.slash(world.ann, world.channel, "takeback")
    posted = (await it.wait_followups(1))[0]
    assert posted.content.startswith(
        f"Takeback: ann's last turn and the computer's reply are undone (`S@B2`, `{played[1]}`).\n"
    )
    assert f"<@{world.ann['id']}>, your turn" in posted.content
    assert (await store.get(world.channel)).record.state["moves"] == []
    it = await emu.slash(world.ann, world.channel, "takeback")
    await it.wait_response()
    assert it.ephemeral and "nothing to take back" in (await it.wait_done()).content
    assert emu.errors == []
