"""What a game contributes to the bot: its engine, its renderer, its words — and its command group.

The session layer (:mod:`bot.session`) and the Discord glue (:mod:`bot.table`) treat every game through a
:class:`GameKind`, so a new game is one engine module, one renderer and one module in ``bot/games``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Protocol


class Game(Protocol):
    """The engine contract (``../shared/design.md``): what the bot may use of a game object."""

    to_move: int
    is_over: bool
    winner: int | None
    moves: list[str]  # moves played so far, canonical notation

    def play(self, move: str) -> None: ...

    def legal_moves(self) -> list[str]: ...

    def to_dict(self) -> dict: ...


@dataclass(frozen=True)
class GameKind:
    """One game the bot hosts.

    Attributes:
        name: command group and stored ``kind`` (``"hongkong"``); lowercase, ≤ 32 characters.
        title: the game's name for players (``"Hong Kong"``).
        engine: the engine module (``new_game(**options)``, ``from_dict(d)``).
        render: ``(game, names: tuple[str, str], *, ended: render.common.Ended | None = None) -> PNG bytes``;
            pure, run in a worker thread (``ended``: a result reached off the board, see ``Ended``).
        roles: what each seat is called (``("blue", "orange")``, ``("emperor", "dragon master")``).
        seat_options: ``(challenge options, rng) -> (challenger's seat 0|1, engine new_game kwargs)``:
            resolves "random" choices when the challenge is made.
        score: ``(game, names) -> str``: one line of the position's score, e.g. "Buildings: Ann 5 – Ben 4".
        result: ``(game, names) -> str``: the final result line of a finished game.
        describe_options: ``(engine kwargs) -> str``: the options in words for the challenge message.
        rematch: ``(engine kwargs, rng) -> (swap seats?, new engine kwargs)`` for a rematch: who moves first
            (Hong Kong) or the roles (Hong) are swapped.
        register: ``(group, table) -> None``: adds the game's own commands (``challenge``, ``place``, …)
            to its app-command group; :mod:`bot.table` adds the shared ones (``board``, ``resign``).
    """

    name: str
    title: str
    engine: ModuleType
    render: Callable[..., bytes]
    roles: tuple[str, str]
    seat_options: Callable[[dict, random.Random], tuple[int, dict]]
    score: Callable[[Any, tuple[str, str]], str]
    result: Callable[[Any, tuple[str, str]], str]
    describe_options: Callable[[dict], str]
    rematch: Callable[[dict, random.Random], tuple[bool, dict]]
    register: Callable[[Any, Any], None]

    def new_game(self, options: dict) -> Game:
        """A fresh engine game from the stored engine kwargs."""
        return self.engine.new_game(**options)

    def load(self, state: dict) -> Game:
        """Restore an engine game from its ``to_dict()``."""
        return self.engine.from_dict(state)
