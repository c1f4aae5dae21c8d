"""End to end: ``/hongkong learn`` and ``/hong learn`` (issue 24, item 3) — a guided first game, shown to the learner
alone, played to its end by pressing its buttons: a wrong choice explained without moving on, someone else's press
refused privately, a press after a restart going on, a board that decodes as PNG, and a German client reading German.
"""

from __future__ import annotations

import pytest

from bot.games import all_kinds
from bot.interface import mentions

from tests.bot.harness import decode_png, refused, start_bot

pytestmark = pytest.mark.timeout(300)


def board_of(message):
    """The message's one attachment, decoded (it is the step's board)."""
    (attachment,) = message.attachments
    assert attachment.filename == "lesson.png"
    # alt text for who can't see it: the game, the turn, the score, whose turn it is
    assert attachment.description and (
        " board, turn " in attachment.description or "Spielbrett, Zug" in attachment.description
    )
    return decode_png(attachment.data)


async def press(emu, user, message, label: str):
    click = await emu.click(user, message, message.button(label)["custom_id"])
    await click.wait_done()
    return click


@pytest.mark.parametrize("game", ["hongkong", "hong"])
async def test_a_lesson_is_played_to_its_end_by_its_buttons(emu, world, running, game):
    kind = all_kinds()[game]
    lesson = kind.lesson
    it = await emu.slash(world.ann, world.channel, f"{game} learn")
    message = await it.wait_done()
    assert it.ephemeral
    assert message.content.startswith(f"**{kind.title} — your first game, step 1 of {len(lesson.steps)}**\n")
    boards = [board_of(message).tobytes()]
    for n, step in enumerate(lesson.steps):
        assert step.task in message.content
        assert sorted(b["label"] for b in message.buttons()) == sorted([step.right, *step.wrong])
        if n == 1:  # a wrong choice: its why, on the same step, the same board
            wrong, why = next(iter(step.wrong.items()))
            await press(emu, world.ann, message, wrong)
            assert f"❌ `{wrong}`: {why}" in message.content and step.task in message.content
            assert board_of(message).tobytes() == boards[-1]
        await press(emu, world.ann, message, step.right)
        assert f"✅ `{step.right}`: {step.done}" in message.content
        assert f"🤖 The computer answers `{step.reply}`: {step.because}" in message.content
        boards.append(board_of(message).tobytes())
        assert boards[-1] != boards[-2]
    assert message.content.startswith(f"**{kind.title} — your first game, done!**")
    assert lesson.ending() in message.content
    assert mentions.command(f"{game} challenge") in message.content
    assert message.buttons() == []


async def test_only_the_learner_presses_and_a_restart_changes_nothing(emu, world, redis, redis_server):
    step = all_kinds()["hongkong"].lesson.steps[0]
    first = await start_bot(emu, redis_server, guild=world.guild)
    try:
        it = await emu.slash(world.ann, world.channel, "hongkong learn")
        message = await it.wait_done()
        # only Ann sees her lesson; a modified client that puts her id in Ben's own lesson's button is refused
        it = await emu.slash(world.ben, world.channel, "hongkong learn")
        his = await it.wait_done()
        button = his.button(step.right)
        button["custom_id"] = button["custom_id"].replace(f":{world.ben['id']}", f":{world.ann['id']}")
        click = await emu.click(world.ben, his, button["custom_id"])
        assert (await refused(click)).startswith(f"This lesson belongs to <@{world.ann['id']}>. Start your own with ")
        assert "step 1 of" in his.content and "step 1 of" in message.content
    finally:
        await first.stop()
    second = await start_bot(emu, redis_server, guild=world.guild)
    try:
        keys = {key async for key in redis.scan_iter()}
        await press(emu, world.ann, message, step.right)
        assert "step 2 of" in message.content
        assert {key async for key in redis.scan_iter()} == keys  # a lesson writes nothing to the store
    finally:
        await second.stop()


async def test_a_german_client_learns_in_german(emu, world, running):
    emu.set_locale(world.ann, "de")
    it = await emu.slash(world.ann, world.channel, "hongkong learn")
    message = await it.wait_done()
    assert "Schritt 1 von 4" in message.content
    board_of(message)
