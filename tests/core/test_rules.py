"""The rules pages say what the rules files say (engine/rules/*.md), and their boards show it: positions the engine
reached, moves it refuses where the text says illegal. (Every game's boards and words in every language:
tests/contract/test_rules.py.)"""

from __future__ import annotations

import engine.hong as hong
from bot.core.rules import is_legal, position
from bot.games.hong import HONG
from bot.games.hongkong import HONGKONG

HK = HONGKONG.engine


def test_hong_kong_pages_show_a_capture_a_roof_and_the_centre_tie_break():
    titles = [page.title() for page in HONGKONG.rules]
    assert titles == ["Pieces and turns", "Placing and capturing", "Roofs and height", "The end and the winner"]
    capture, roof, end = HONGKONG.rules[1:]
    before = capture.boards[0]
    assert is_legal(HK, before, "S@C2") and not is_legal(HK, before, "S@D4")
    assert "`S@C2` is legal" in capture.text() and "`S@D4` is illegal" in capture.text()
    before = roof.boards[0]
    assert is_legal(HK, before, "R@C2") and not is_legal(HK, before, "S@C2")
    game = position(HK, end.boards[0])
    outcome = game.outcome
    assert outcome is not None and outcome.buildings == (12, 12) and outcome.centre_decided and outcome.winner == 0
    assert game.remaining[0]["S"] == game.remaining[1]["S"] == 0  # ended by pieces used, not a full board


def test_hong_pages_give_each_boards_target_and_each_dragon_before_and_after():
    text = HONG.rules[1].text()
    for name, needed in (("castle", 15), ("garden", 13), ("inner", 11)):
        assert hong.BOARDS[name].threshold == needed and f"**{name}** (" in text and f"**{needed}**" in text
    assert "there are no draws" in text and "Without the expansion" in text
    hongs = position(HONG.engine, HONG.rules[0].boards[0]).hongs()
    assert len(hongs) == 2  # C2 across and D2 down, as the caption says
    dragons = HONG.rules[3:]
    assert [page.title() for page in dragons] == [f"Great Dragon: {action}" for action in hong.ACTIONS]
    for action, page in zip(hong.ACTIONS, dragons):
        before, after = (position(HONG.engine, board) for board in page.boards)
        assert before.pending is not None and dict(before.pending.options) == {1: action}
        assert after.pending is None and after.moves[-1].split()[1] == action


def test_the_lair_page_says_the_dragons_are_dealt_to_its_spaces_at_random():
    # rules (hong.md, the Lair): "At setup the seven Great Dragons are assigned at random to the lair's spaces 1–7"
    lair = HONG.rules[2]
    assert lair.title() == "The Lair of the Seven Great Dragons"
    assert "dealt at random to the lair's spaces 1 to 7 when the game starts" in lair.text()
