"""A game's page as its view says it: what a move did, and what the player to move must do beyond a move."""

from __future__ import annotations

from bot.games.hong import HONG
from bot.web.views import Found, game_view, plain

from tests.core.test_prompts import summoning
from tests.e2e.test_hong import EXPANSION_SEED


def test_the_page_tells_a_person_summoning_what_to_do_and_never_for_the_computer():
    for computer, expected in ((False, "summons a Great Dragon"), (True, "")):
        game, record = summoning(computer=computer)
        record = record.replace(options={"board": "inner", "expansion": True, "seed": EXPANSION_SEED})
        view = game_view(HONG, Found(record, 9), "t" * 22, "en")
        assert (expected in view.prompt) if expected else view.prompt == ""
        assert len(view.frames) == len(game.moves) + 1 and view.version == 9
        assert "`" not in view.prompt and "**" not in view.prompt  # worded for Discord, shown plain


def test_plain_undoes_discord_markdown():
    assert plain(r"**Ann\_b** played `Q@B2`") == "Ann_b played Q@B2"
