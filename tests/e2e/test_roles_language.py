"""The seat's role inside a translated sentence is translated too: /hongkong board (public and ephemeral) and the
half-time reminder in a German server say "Blau"/"Orange", not "blue"/"orange" (found by a fresh tester)."""

from __future__ import annotations

import pytest

from bot import i18n
from bot.games.hongkong import HONGKONG

from tests.e2e.test_lifecycle import bots, new_game, place, set_timer, world  # noqa: F401

pytestmark = pytest.mark.timeout(240)
HOUR = 3600


async def test_board_and_reminder_roles_in_the_servers_language(emu, world, bots, clock):
    await emu.set_guild_locale(world.guild, "de")
    emu.set_locale(world.ann, "de")
    emu.set_locale(world.ben, "de")
    await bots()
    await set_timer(emu, world, "2h")  # world.admin has an English client
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    await (await emu.click(world.ben, challenge, challenge.buttons()[0]["custom_id"])).wait_done()
    with i18n.language("de"):
        blau, orange = HONGKONG.role(0), HONGKONG.role(1)
    assert blau == "Blau"
    # public /hongkong board (server language: German)
    it = await emu.slash(world.ann, world.channel, "hongkong board")
    board = await it.wait_done()
    # ephemeral /hongkong board (caller language: German)
    it = await emu.slash(world.ann, world.channel, "hongkong board", ephemeral=True)
    mine = await it.wait_done()
    await place(emu, world, world.ann, "A1")
    clock.advance(HOUR + 1)
    reminder = await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    assert f"({blau})" in board.content, board.content
    assert f"({blau})" in mine.content, mine.content
    assert f"({orange})" in reminder.content, reminder.content
