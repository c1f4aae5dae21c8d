"""The one square reader of both games (``engine.squares``), and both engines reading squares through it."""

from __future__ import annotations

import pytest

import engine.hong as hong
import engine.hongkong as hk
from engine import IllegalMove, squares


@pytest.mark.parametrize("typed", ["B3", "b3", "B 3", " b 3 ", "ｂ３", "Ｂ3", "B\u00a03", "B03", "b٣"])
def test_every_spelling_of_b3(typed):
    assert squares.split(typed) == (1, 2)
    assert squares.parse(typed, 5, 5) == (1, 2)


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("3B", "B3"),
        ("3 b", "B3"),
        ("B-3", "B3"),
        ("B.3", "B3"),
        ("(B3)", "B3"),
        ("B3H", "B3"),
        ("B3x", "B3"),
        ("BI", "B1"),
        ("bl", "B1"),
        ("B1O", None),  # B1 or B10?
    ],
)
def test_near_misses_on_a_five_by_five_board(typed, meant):
    with pytest.raises(IllegalMove) as refused:
        squares.parse(typed, 5, 5)
    text = str(refused.value)
    assert text.startswith(f"'{typed.strip()}' is not a square on the board: use a column A–E and a row 1–5, like C3.")
    if meant:
        assert text.endswith(f" Did you mean {meant}?")
    else:
        assert "Did you mean" not in text


@pytest.mark.parametrize("typed", ["hello", "", "B", "33", "ZZ", "B0", "F3", "A6", "B 3 C 4"])
def test_no_guess_when_nothing_is_plainly_meant(typed):
    with pytest.raises(IllegalMove) as refused:
        squares.parse(typed, 5, 5)
    assert "Did you mean" not in str(refused.value)


def test_without_a_grid_any_letter_and_row_is_a_square():
    assert squares.parse("J9") == (9, 8)
    assert squares.parse("z99") == (25, 98)
    with pytest.raises(
        IllegalMove,
        match=r"^'9J' is not a square: give a column letter and a row number, like C3\. "
        r"Did you mean J9\?$",
    ):
        squares.parse("9J")


def test_hongkong_reads_squares_and_turns_the_same_way():
    assert hk.parse_square("ｃ ３") == hk.parse_square("C3") == 12
    game = hk.new_game()
    game.play("ｑ＠ｂ２ ｓ＠ｂ３")
    assert game.moves == ["Q@B2 S@B3"]
    with pytest.raises(IllegalMove, match="Did you mean B3"):
        hk.parse_square("3b")


def test_hong_reads_squares_and_actions_the_same_way():
    game = hong.new_game("castle", seed=1)
    free = game.empty_squares()[10]
    wide = "".join(chr(ord(ch) + 0xFEE0) for ch in free.lower())  # the full-width spelling
    game.play(f"{wide} h")
    assert game.moves == [f"{free}H"]
    assert game.cell(wide) == "H" and game.board.index(wide) == game.board.index(free)


def test_hong_dragon_action_square_near_miss():
    # the scripted position where the swap dragon (size 1) is summoned: see test_e2e_hong.EXPANSION_SCRIPT
    game = hong.new_game("inner", expansion=True, seed=577090037)
    script = [
        "E3V",
        "A4V",
        "G7V",
        "F2V",
        "F7V",
        "D3V",
        "D2H",
        "G3H",
        "B3V",
        "C2H",
        "E1V",
        "E7H",
        "D4V",
        "C5V",
        "B1V",
        "F4V",
        "A2H",
        "B7V",
        "D6V",
        "A6H",
        "A1H",
        "B4V",
        "E2V",
        "F1V",
        "G4H",
        "B6H",
        "G5V",
        "C3H",
    ]
    for move in script:
        game.play(move)
    assert game.pending is not None and game.pending.options == {1: "swap"}
    with pytest.raises(IllegalMove, match="Did you mean C3"):
        game.play("D1 swap 3C C6 V")
    game.play("ｄ１ ｓｗａｐ ｃ３ ｃ６ ｖ")
    assert game.moves[-1] == "D1 swap C3 C6 V"
