"""A game's rules as pages the bot shows (``/<game> rules``): each page a title, a short text and the boards that
illustrate it, each board a position reached by playing real moves through the game's engine.

A game declares its pages in its ``bot/games/<name>.py`` (``GameKind.rules``); the play feature shows them
(:mod:`bot.exts.play._rules`). No discord here: a page's words are functions called in the language current when the
page is shown, and a board is data (the engine's options and moves), so the picture is always a legal position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from engine import IllegalMove
from engine.contract import Game, GameModule

__all__ = ["Illustration", "RulesPage", "position", "is_legal"]

#: Discord's limits on what a page is shown in (an embed's title, description and footer; its alt text).
TITLE_MAX, TEXT_MAX, CAPTION_MAX = 256, 4096, 1024


@dataclass(frozen=True)
class Illustration:
    """One board of a rules page: the engine's ``new_game(**options)`` with ``moves`` played in order.

    Attributes:
        moves: turns in the rules' notation, each checked by the engine (:func:`position`).
        options: the engine's ``new_game`` keyword arguments (a fixed seed, stones or lair: the same picture every
            time).
        caption: ``() -> str``, what the board shows, in the current language (shown under it and as its alt text).
        refused: moves the page's text calls illegal in this position; the engine must refuse each
            (:func:`is_legal`, checked by the tests), so the text can't say a wrong thing about the picture.
        marks: the squares the caption names, ringed on the board (every square a caption names is marked or
            changed by the last move: the tests check it), so a reader finds them at a glance.
    """

    moves: tuple[str, ...]
    caption: Callable[[], str]
    options: Mapping[str, Any] = field(default_factory=dict)
    refused: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()


@dataclass(frozen=True)
class RulesPage:
    """One page of a game's rules.

    Attributes:
        title: ``() -> str``: the page's title in the current language (≤ 256 characters).
        text: ``() -> str``: its Markdown text in the current language (≤ ~900 characters; notation in code quotes,
            commands by their mention).
        boards: the positions that illustrate it, in order (none, one, or a before and an after).
    """

    title: Callable[[], str]
    text: Callable[[], str]
    boards: tuple[Illustration, ...] = ()


def position(engine: GameModule[Game], board: Illustration) -> Game:
    """The game ``board`` shows: a new game of ``engine`` with its moves played.

    Raises:
        engine.IllegalMove: a move the engine refuses (the page is wrong: the tests catch it).
    """
    game = engine.new_game(**board.options)
    for move in board.moves:
        game.play(move)
    return game


def is_legal(engine: GameModule[Game], board: Illustration, move: str) -> bool:
    """Whether the engine accepts ``move`` in the position ``board`` shows (the tests check every ``refused``)."""
    game = position(engine, board)
    try:
        game.play(move)
    except IllegalMove:
        return False
    return True
