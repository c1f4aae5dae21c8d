"""Every game's rules pages (``/<game> rules``), checked for any game the registry has: each board is a position the
engine reaches by its moves, refuses each move the text calls illegal, and draws as a PNG; every page's words fit
Discord's limits in every language."""

from __future__ import annotations

import re

import pytest

from bot import i18n
from bot.core.kinds import GameKind
from bot.core.rules import TEXT_MAX, TITLE_MAX, is_legal, position
from tests.bot.harness import decode_png
from tests.contract.games import GAMES, kind

#: Discord's limits: an embed field's value (a caption is at most that long, as an attachment's description is).
FIELD_MAX = 1024
#: How long a page's text is meant to be (a screen on a phone); Discord allows :data:`TEXT_MAX`.
TEXT_AIM = 1000


def check_boards(game: GameKind) -> None:
    """Every board of ``game``'s rules is reached by legal moves (else the engine raises) and refuses what the
    text calls illegal."""
    for page in game.rules:
        for board in page.boards:
            position(game.engine, board)
            for move in board.refused:
                assert not is_legal(game.engine, board, move), (page.title(), move)


def check_words(game: GameKind, code: str) -> None:
    """Every page's title, text and captions of ``game`` in the language ``code`` fit Discord's limits."""
    with i18n.language(code):
        for page in game.rules:
            title, text = f"{game.title} — {page.title()}", page.text()
            assert 0 < len(title) <= TITLE_MAX and 0 < len(text) <= min(TEXT_MAX, TEXT_AIM), (code, title, len(text))
            for board in page.boards:
                assert 0 < len(board.caption()) <= FIELD_MAX, (code, title)


@pytest.mark.parametrize("name", GAMES)
def test_rules_boards_are_positions_the_engine_reaches(name):
    game = kind(name)
    check_boards(game)
    for page in game.rules:
        for board in page.boards:
            image = decode_png(game.render.png(position(game.engine, board), ("A", "B")))
            assert image.width >= 200


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("code", i18n.languages())
def test_rules_words_fit_discords_limits_in_every_language(name, code):
    check_words(kind(name), code)


#: A square in a caption's notation (`C2`, `S@C2`, `C2H`; not the dragon of size 1 in `D1 rotate C2`).
SQUARE = re.compile(r"(?<![A-Z0-9])(?!D\d+ [a-z])([A-Z]\d{1,2})(?!\d)")


def named_squares(text: str) -> set[str]:
    """The squares named in the notation (between backquotes) of ``text``."""
    return {square for quoted in re.findall(r"`([^`]*)`", text) for square in SQUARE.findall(quoted)}


@pytest.mark.parametrize("name", GAMES)
def test_every_square_a_caption_names_is_marked_on_its_board(name):
    """A reader looks for what the caption names: each square is ringed (``marks``) or is the last move's, which
    every board highlights — and a ringed square changes the picture."""
    game = kind(name)
    for page in game.rules:
        for board in page.boards:
            last = named_squares(f"`{board.moves[-1]}`") if board.moves else set()
            missing = named_squares(board.caption()) - set(board.marks) - last
            assert not missing, (page.title(), board.caption(), missing)
            if board.marks:
                shown = position(game.engine, board)
                assert game.render.png(shown, ("A", "B"), marks=board.marks) != game.render.png(shown, ("A", "B"))
