"""Post-game analysis: the computer replays a finished game and judges every move.

For every position of the game the full search (the ``assess`` of the game's computer opponent,
:class:`engine.contract.Coach`) gives the move it would play and the mover's chance to win; the chance after a move is
also searched (or is the exact result once the game is over). Two searches see each position after a move — the
mover's and the next mover's — and each leans towards the side to move at its horizon, so the chance *shown* for a
position is the mean of the two (:meth:`Analysis.chances`; a game stopped off the board, by a resignation or on time,
has its last position searched once more from the side that was to move: :attr:`Analysis.end`).

**One voice.** Everything a player is shown comes from those chances, one value per position: the graph's line, and
each move's :class:`Verdict` — the mover's chance before and after it, in whole percentage points as printed, and its
label. A move's *drop* is the points it lost (0 when the move is the one the search would have played: the search's
own horizon is not the player's fault). Labelled as lichess labels them:

* **inaccuracy**: a drop of at least 10 points (:data:`INACCURACY`);
* **mistake**: at least 20 points (:data:`MISTAKE`);
* **blunder**: at least 30 points (:data:`BLUNDER`).

Moves are numbered as everywhere else (the text record, the web replay's ``?ply=``): a move's number is its place in
the game's move list, from 1 (:attr:`Judgement.ply`).

How a search value becomes a chance is each game's own (``chance_of`` in :mod:`engine.ai.hongkong`: a logistic of the
building lead; :mod:`engine.ai.hong`: the dragon master's chance to reach the threshold the evaluation already
computes). A forced result the search sees is 100% or 0%.

Reproducible: the search runs on a node budget (:data:`NODES`) and each position's tie-breaks come from a generator
seeded with the game, the seed and the ply, so the same game and seed give the same analysis on any machine (while the
per-position wall-clock cap, a safety net, is not reached). Pure: no I/O; the arguments and the result pickle, so it
runs in a worker process.

Usage::

    from engine.ai.analysis import analyse
    report = analyse(game.to_dict(), seed=0)
    report.worst(0)        # the first player's three worst moves (Verdicts)
    report.chances()       # the first player's chance at the start and after every move
"""

from __future__ import annotations

import importlib
import random
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Mapping, cast

from engine import IllegalMove, registry
from engine.contract import Coach, Game

__all__ = [
    "Analysis",
    "BLUNDER",
    "INACCURACY",
    "Judgement",
    "MISTAKE",
    "NODES",
    "VERSION",
    "Verdict",
    "analyse",
    "can_analyse",
    "label_of",
]

#: Drops of the mover's chance to win (0–1) from which a move is labelled (see the module docstring).
INACCURACY = 0.10
MISTAKE = 0.20
BLUNDER = 0.30
#: The search's node budget per position (the hard level searches 80,000–150,000 for a move it must play in a few
#: seconds; an analysis judges every position of the game in the background: about 0.2–0.4 s a Hong Kong position,
#: 0.05–0.09 s a Hong one on a shared 2-core host, so a castle game with the lair takes about 6 s:
#: tests/bench/analysis.py).
NODES = 30_000
#: The layout of :meth:`Analysis.to_dict` (2: with :attr:`Analysis.end`); an analysis kept in another is made again.
VERSION = 2
#: The wall-clock cap per position in seconds: a safety net for a much slower machine (reached, the analysis is no
#: longer reproducible, only slower to drift).
SECONDS = 2.0


@dataclass(frozen=True)
class Judgement:
    """One move as the searches saw it (what is kept; what is shown is its :class:`Verdict`).

    Attributes:
        ply: the move's number in the game's move list, from 1.
        mover: the seat (0 or 1) that played it.
        move: the move played (canonical notation).
        best: the move the search would have played there.
        before: the mover's chance to win before the move, by the mover's search (0–1).
        after: the mover's chance to win after it, by the same search (0–1; the exact result if it ended the game).
    """

    ply: int
    mover: int
    move: str
    best: str
    before: float
    after: float


def label_of(points: int) -> str | None:
    """``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or None for a drop of ``points`` whole percentage points
    (:data:`BLUNDER`, :data:`MISTAKE`, :data:`INACCURACY`)."""
    if points >= round(BLUNDER * 100):
        return "blunder"
    if points >= round(MISTAKE * 100):
        return "mistake"
    if points >= round(INACCURACY * 100):
        return "inaccuracy"
    return None


@dataclass(frozen=True)
class Verdict(Judgement):
    """One move as it is shown: a :class:`Judgement` whose ``before`` and ``after`` are the graph's chances
    (:meth:`Analysis.chances`) before and after it, from the mover's side, and what they make of it."""

    @property
    def points(self) -> int:
        """The whole percentage points the move lost, as printed (``round(before·100) − round(after·100)``); 0 for the
        search's own move or a move that lost nothing."""
        if self.move == self.best:
            return 0
        return max(0, round(self.before * 100) - round(self.after * 100))

    @property
    def label(self) -> str | None:
        """:func:`label_of` :attr:`points`: the label always matches the numbers printed beside it."""
        return label_of(self.points)


@dataclass(frozen=True)
class Analysis:
    """A finished game judged move by move (:func:`analyse`).

    Attributes:
        kind: the game's name (:mod:`engine.registry`).
        start: the first player's (seat 0's) chance to win at the start (0–1).
        plies: every move judged, in order.
        nodes: the search's budget per position; seed: the seed used.
        end: for a game stopped before its end on the board (resigned, lost on time), seat 0's chance to win in the
            last position by the search of the player to move there (0–1); None for a game over on the board.
    """

    kind: str
    start: float
    plies: tuple[Judgement, ...]
    nodes: int = NODES
    seed: int = 0
    end: float | None = None

    def chances(self) -> list[float]:
        """Seat 0's chance to win at the start and after every move: ``len(plies) + 1`` values in 0–1.

        Two searches see each position after a move: the mover's (its ``after``) and the next mover's (the next
        move's ``before``, or :attr:`end` after the last move). Each leans towards the side to move at its horizon,
        so a position's chance is the mean of the two, which cancels the lean (a graph of either alone zigzags move
        by move); after the last move of a game over on the board it is the result."""
        out = [self.start]
        for i, j in enumerate(self.plies):
            after = j.after if j.mover == 0 else 1.0 - j.after
            if i + 1 < len(self.plies):
                following = self.plies[i + 1]
                after = (after + (following.before if following.mover == 0 else 1.0 - following.before)) / 2
            elif self.end is not None:
                after = (after + self.end) / 2
            out.append(after)
        return out

    def verdicts(self) -> list[Verdict]:
        """Every move as shown (:class:`Verdict`): its mover's chances before and after it are the graph's."""
        chances = self.chances()

        def seen(chance: float, seat: int) -> float:
            return chance if seat == 0 else 1.0 - chance

        return [
            Verdict(j.ply, j.mover, j.move, j.best, seen(chances[j.ply - 1], j.mover), seen(chances[j.ply], j.mover))
            for j in self.plies
        ]

    def worst(self, seat: int, count: int = 3) -> list[Verdict]:
        """The ``count`` largest drops of ``seat``'s moves that carry a label (:attr:`Verdict.label`), largest
        first (ties: the earlier move); fewer if the player made fewer such moves."""
        labelled = [v for v in self.verdicts() if v.mover == seat and v.label is not None]
        return sorted(labelled, key=lambda v: (-v.points, v.ply))[:count]

    def turning_points(self, count: int = 3) -> list[int]:
        """The moves to mark on the graph: each player's :meth:`worst` ``count`` (the moves an analysis lists), their
        numbers (plies from 1) in order of play."""
        return sorted(v.ply for seat in (0, 1) for v in self.worst(seat, count))

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: ``{"version", "kind", "start", "end", "nodes", "seed", "plies": [{ply, mover, move,
        best, before, after}, …]}``; :meth:`from_dict` restores it."""
        return {
            "version": VERSION,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "nodes": self.nodes,
            "seed": self.seed,
            "plies": [asdict(j) for j in self.plies],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Analysis":
        """The analysis :meth:`to_dict` wrote.

        Raises:
            KeyError, TypeError, ValueError: not such a dict (or one of another :data:`VERSION`).
        """
        if data.get("version") != VERSION:
            raise ValueError(f"an analysis of layout {data.get('version')!r}, not {VERSION}: analyse it again")
        plies = tuple(
            Judgement(
                ply=int(p["ply"]),
                mover=int(p["mover"]),
                move=str(p["move"]),
                best=str(p["best"]),
                before=float(p["before"]),
                after=float(p["after"]),
            )
            for p in data["plies"]
        )
        end = data.get("end")
        return cls(
            kind=str(data["kind"]),
            start=float(data["start"]),
            plies=plies,
            nodes=int(data["nodes"]),
            seed=int(data["seed"]),
            end=None if end is None else float(end),
        )


def _coach(kind: str) -> Coach[Any] | None:
    module = importlib.import_module(registry.find(kind).ai_module_name)
    return cast(Coach[Any], module) if hasattr(module, "assess") else None


def can_analyse(kind: str) -> bool:
    """Whether the game ``kind``'s computer opponent can judge positions (has ``assess``).

    Raises:
        ValueError: unknown kind.
    """
    return _coach(kind) is not None


def _result_for(game: Game, seat: int) -> float:
    """``seat``'s share of a finished game: 1 won, 0 lost, ½ drawn."""
    if game.winner is None:
        return 0.5
    return 1.0 if game.winner == seat else 0.0


def analyse(
    state: Mapping[str, Any],
    *,
    nodes: int = NODES,
    seed: int = 0,
    seconds: float = SECONDS,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Judge every move of a game (see the module docstring).

    Args:
        state: the game's ``to_dict()`` (``{"game": NAME, …options, "moves": [...]}``), finished or not: its moves
            are judged from the start position of its options.
        nodes: the search's node budget per position.
        seed: any int; the same state, nodes and seed give the same analysis.
        seconds: wall-clock cap per position (a safety net).
        progress: called as ``progress(positions done, positions)`` after each position.

    Returns:
        The :class:`Analysis`, one :class:`Judgement` per move.

    Raises:
        ValueError: unknown game, or its computer cannot judge positions (:func:`can_analyse`);
            ``engine.InvalidState`` (a ``ValueError``): the state does not replay.
    """
    kind = str(state.get("game", ""))
    coach = _coach(kind)
    if coach is None:
        raise ValueError(f"the computer of {kind!r} cannot analyse games")
    from engine.ai import SETTINGS  # (imports every game's model: here, not at import time)

    depth = SETTINGS[kind]["hard"]["depth"]
    game = registry.find(kind).load(state)
    moves = list(game.moves)
    game.truncate(0)

    def judge(position: int, move: str | None) -> tuple[str, float, float]:
        """The search's move at the current position, the mover's chance after it and after ``move``."""
        rng = random.Random(f"{kind}:analysis:{seed}:{position}")
        return coach.assess(game, rng, nodes=nodes, depth=depth, deadline=time.perf_counter() + seconds, move=move)

    start = 0.5
    plies: list[Judgement] = []
    for i, move in enumerate(moves):
        mover = game.to_move
        try:
            best, before, after = judge(i, move)
            searched = True
        except (
            IllegalMove
        ):  # the model can't play this move (it and the engine disagree): judged from the next position
            best, before, _same = judge(i, None)
            searched = False
        if i == 0:
            start = before if mover == 0 else 1.0 - before
        game.play(move)
        if game.is_over:
            after = _result_for(game, mover)
        elif not searched:
            _next, chance, _same = judge(i + 1, None)
            after = chance if game.to_move == mover else 1.0 - chance
        plies.append(Judgement(ply=i + 1, mover=mover, move=move, best=best, before=before, after=after))
        if progress is not None:
            progress(i + 1, len(moves))
    end = None
    if moves and not game.is_over:  # stopped off the board: the last position seen by the side to move there too
        _best, chance, _same = judge(len(moves), None)
        end = chance if game.to_move == 0 else 1.0 - chance
    return Analysis(kind=kind, start=start, plies=tuple(plies), nodes=nodes, seed=seed, end=end)
