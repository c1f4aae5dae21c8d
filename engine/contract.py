"""The game contract in one place: what every game's engine module, game object, outcome and computer opponent offer.

The bot, the renderers, the replays and ``tests/contract`` treat every game through these Protocols and nothing
else (python-chess's one ``Board`` and boardgame.io's typed ``Game`` are the models). They are checked by mypy,
not only by duck typing: each engine module ends with ::

    if TYPE_CHECKING:  # the module conforms to the contract (checked by mypy)
        from engine import hongkong as _module
        _conforms: GameModule[HongKongGame] = _module

which makes mypy hold the module (``NAME``, ``new_game``, ``from_dict``) to :class:`GameModule` and its game class
to :class:`Game` (the type argument's bound); its computer opponent ``engine.ai.<NAME>`` does the same with
:class:`Opponent`. :mod:`engine.registry` hands the modules out typed as :class:`GameModule`.

A game is added by adding modules, editing none: ``engine/<game>.py`` (declares ``NAME``, see :mod:`engine.registry`),
``engine/ai/<NAME>.py``, a renderer (:mod:`render.contract`) and the bot's ``bot/games/<NAME>.py`` (see
ARCHITECTURE.md, "Adding a game"). Pure: only typing.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Protocol, Self, Sequence, TypedDict, TypeVar, runtime_checkable

__all__ = ["Coach", "Game", "GameModule", "Opponent", "Outcome", "Settings"]


class Outcome(Protocol):
    """How a game ended by play (each engine's ``Outcome`` dataclass says more: the score, the end condition)."""

    @property
    def winner(self) -> int | None:
        """The winning seat, 0 or 1; None for a draw."""
        ...


class Game(Protocol):
    """A game in progress or over: a plain object changed only by :meth:`play` and :meth:`pop`.

    Seats are 0 and 1 (``to_move``, ``winner``); moves are strings in the game's canonical notation (the rules in
    ``engine/rules/``), and ``moves`` (all the moves played, in order) is the source of truth for the state.
    """

    @property
    def kind(self) -> str:
        """The module's ``NAME`` (``"hongkong"``): :func:`engine.registry.of` reads it from the class."""
        ...

    @property
    def to_move(self) -> int:
        """The seat (0 or 1) to move; after the end, the seat that would have been next."""
        ...

    @property
    def is_over(self) -> bool:
        """Whether the game has ended by play (no legal move is left)."""
        ...

    @property
    def winner(self) -> int | None:
        """The winning seat once over; None while playing and for a draw."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, once over; None while playing."""
        ...

    @property
    def pending(self) -> object:
        """What the player to move must finish before the turn passes (Hong's summoned dragon), or None (a game
        whose turns are one move each: always None)."""
        ...

    @property
    def moves(self) -> Sequence[str]:
        """The moves played, canonical notation, in order. Read it; don't change it."""
        ...

    def play(self, move: str) -> None:
        """Apply one move (an entry of :meth:`legal_moves`, or the same move written otherwise: the notation's
        forms the rules allow).

        Raises:
            engine.IllegalMove: malformed, or against the rules; its message, fit to show a player, says why (a
                translatable :class:`engine.Term`). The game is unchanged.
        """
        ...

    def pop(self) -> str:
        """Undo the last move and return it (canonical notation), restoring the state before it exactly.

        Raises:
            IndexError: no move was played, or the undo history is missing (a game loaded with ``replay=False``
                may lack it: load it with the replay to undo).
        """
        ...

    def truncate(self, n: int) -> list[str]:
        """Pop until ``len(moves) == n``; return the undone moves, oldest first (:func:`engine.truncate`).

        Raises:
            IndexError: ``n`` is not between 0 and ``len(moves)``; nothing is undone.
        """
        ...

    def legal_moves(self) -> Sequence[str]:
        """Every legal move now, canonical notation, empty once over: a sequence (``len``, index, iterate, ``in``;
        equal to a list of the same moves) that callers don't change."""
        ...

    def copy(self) -> Self:
        """An independent copy, undo history included."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The state, JSON-serialisable: ``{"game": NAME, ...options, "moves": [...]}``; the module's ``from_dict``
        restores it exactly."""
        ...


G_co = TypeVar("G_co", bound=Game, covariant=True)
G_contra = TypeVar("G_contra", bound=Game, contravariant=True)


@runtime_checkable
class GameModule(Protocol[G_co]):
    """A game's engine module (``engine.hongkong``), as :mod:`engine.registry` finds it.

    Attributes:
        NAME: the game's name: lowercase letters, ≤ 32 characters (it is a slash command's name), the stored
            ``kind`` and ``to_dict()["game"]``.
    """

    NAME: str

    def new_game(self, *args: Any, **options: Any) -> G_co:
        """A game at its start. Every option has a default (``new_game()`` is a game); the options are JSON values
        (the bot stores them and passes them back as keywords).

        Raises:
            engine.IllegalMove: an option out of range.
        """
        ...

    def from_dict(self, state: Mapping[str, Any], /, *, replay: bool = True) -> G_co:
        """The game a ``to_dict()`` describes: every move replayed and checked (``replay``), or the recorded
        position loaded as it is (``replay=False``: many times faster, for a state already checked by a replay; its
        shape is still checked, not the rules, and its undo history may be missing).

        Raises:
            engine.InvalidState: not this game's state, a field missing or malformed, an illegal move in it.
        """
        ...


class Settings(TypedDict):
    """One level of a computer opponent: the search's ``nodes`` budget (positions visited), its ``depth`` (plies),
    ``naive`` (look one move ahead, random among the near-best) and a wall-clock cap in ``seconds``."""

    nodes: int
    depth: int
    naive: bool
    seconds: float


class Opponent(Protocol[G_contra]):
    """A game's computer opponent, the module ``engine.ai.<NAME>`` (used through :mod:`engine.ai` only).

    Attributes:
        SETTINGS: level (``"easy"``, ``"medium"``, ``"hard"``: :data:`engine.ai.LEVELS`) → its :class:`Settings`.
    """

    SETTINGS: dict[str, Settings]

    def choose(
        self,
        game: G_contra,
        rng: random.Random,
        /,
        *,
        nodes: int,
        depth: int,
        naive: bool = False,
        deadline: float | None = None,
    ) -> str:
        """A legal move for ``game.to_move``, one of ``game.legal_moves()``, ``game`` left unchanged; the same
        for the same game, settings and ``rng`` state while the node budget runs out before ``deadline`` (a
        :func:`time.perf_counter` value)."""
        ...


class Coach(Protocol[G_contra]):
    """A computer opponent that can also judge a position (optional: :mod:`engine.ai.analysis` analyses the games
    whose ``engine.ai.<NAME>`` module has ``assess``; a game without it is simply not analysed)."""

    def assess(
        self,
        game: G_contra,
        rng: random.Random,
        /,
        *,
        nodes: int,
        depth: int,
        deadline: float | None = None,
        move: str | None = None,
    ) -> tuple[str, float, float]:
        """``(the move the search would play for game.to_move, the mover's chance to win after it, the mover's
        chance after move)`` (chances 0–1; ``move`` None: the search's own); the same for the same game, budget and
        ``rng`` state while ``nodes`` runs out before ``deadline``. Raises ``IllegalMove`` for an illegal ``move``."""
        ...
