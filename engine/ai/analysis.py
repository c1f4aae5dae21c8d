"""Post-game analysis: the computer replays a finished game and judges every move.

For every position of the game the full search (the ``assess`` of the game's computer opponent,
:class:`engine.contract.Coach`) gives the move it would play and the mover's chance to win; the chance after a move is
the next position's, seen from the same player (or the exact result once the game is over). A move's *drop* is the
mover's chance before it minus after it (0 when the move is the one the search would have played: the search's own
horizon is not the player's fault). The largest drops are labelled, as lichess labels them (drops of the chance to
win, in percentage points):

* **inaccuracy**: a drop of at least 10 points (:data:`INACCURACY`);
* **mistake**: at least 20 points (:data:`MISTAKE`);
* **blunder**: at least 30 points (:data:`BLUNDER`).

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
    report.worst(0)        # the first player's three worst moves
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

__all__ = ["Analysis", "BLUNDER", "INACCURACY", "Judgement", "MISTAKE", "NODES", "analyse", "can_analyse"]

#: Drops of the mover's chance to win (0–1) from which a move is labelled (see the module docstring).
INACCURACY = 0.10
MISTAKE = 0.20
BLUNDER = 0.30
#: The search's node budget per position (the hard level searches 80,000–150,000 for a move it must play in a few
#: seconds; an analysis judges every position of the game in the background: about 0.2–0.4 s a Hong Kong position,
#: 0.05–0.09 s a Hong one on a shared 2-core host, so a castle game with the lair takes about 6 s:
#: tests/bench/analysis.py).
NODES = 30_000
#: The wall-clock cap per position in seconds: a safety net for a much slower machine (reached, the analysis is no
#: longer reproducible, only slower to drift).
SECONDS = 2.0


@dataclass(frozen=True)
class Judgement:
    """One move judged.

    Attributes:
        ply: the move's number in the game's move list, from 1.
        mover: the seat (0 or 1) that played it.
        move: the move played (canonical notation).
        best: the move the search would have played there.
        before: the mover's chance to win before the move (0–1).
        after: the mover's chance to win after it (0–1; the exact result if it ended the game).
    """

    ply: int
    mover: int
    move: str
    best: str
    before: float
    after: float

    @property
    def drop(self) -> float:
        """How much the move lowered the mover's chance (0–1); 0 for the search's own move or a move that did not
        lower it."""
        if self.move == self.best:
            return 0.0
        return max(0.0, self.before - self.after)

    @property
    def label(self) -> str | None:
        """``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or None, by :attr:`drop` (:data:`BLUNDER`, :data:`MISTAKE`,
        :data:`INACCURACY`)."""
        drop = self.drop + 1e-9
        if drop >= BLUNDER:
            return "blunder"
        if drop >= MISTAKE:
            return "mistake"
        if drop >= INACCURACY:
            return "inaccuracy"
        return None


@dataclass(frozen=True)
class Analysis:
    """A finished game judged move by move (:func:`analyse`).

    Attributes:
        kind: the game's name (:mod:`engine.registry`).
        start: the first player's (seat 0's) chance to win at the start (0–1).
        plies: every move judged, in order.
        nodes: the search's budget per position; seed: the seed used.
    """

    kind: str
    start: float
    plies: tuple[Judgement, ...]
    nodes: int = NODES
    seed: int = 0

    def chances(self) -> list[float]:
        """Seat 0's chance to win at the start and after every move: ``len(plies) + 1`` values in 0–1.

        Two searches see each position after a move: the mover's (its ``after``) and the next mover's (the next
        move's ``before``). Each leans towards the side to move at its horizon, so a position's chance is the mean of
        the two, which cancels the lean (a graph of either alone zigzags move by move); after the last move it is
        the result."""
        out = [self.start]
        for i, j in enumerate(self.plies):
            after = j.after if j.mover == 0 else 1.0 - j.after
            if i + 1 < len(self.plies):
                following = self.plies[i + 1]
                before = following.before if following.mover == 0 else 1.0 - following.before
                after = (after + before) / 2
            out.append(after)
        return out

    def worst(self, seat: int, count: int = 3) -> list[Judgement]:
        """The ``count`` largest drops of ``seat``'s moves that carry a label (:attr:`Judgement.label`), largest
        first (ties: the earlier move); fewer if the player made fewer such moves."""
        labelled = [j for j in self.plies if j.mover == seat and j.label is not None]
        return sorted(labelled, key=lambda j: (-j.drop, j.ply))[:count]

    def turning_points(self, count: int = 6) -> list[int]:
        """The plies (from 1) where the game turned: a move labelled mistake or blunder, or one after which the
        other player leads (seat 0's chance crosses 50%) — the ``count`` largest swings, in order of play."""
        chances = self.chances()
        swings: list[tuple[float, int]] = []
        for j in self.plies:
            before, after = chances[j.ply - 1], chances[j.ply]
            crossed = (before - 0.5) * (after - 0.5) < 0
            if crossed or j.label in ("mistake", "blunder"):
                swings.append((abs(after - before), j.ply))
        top = sorted(swings, key=lambda t: (-t[0], t[1]))[:count]
        return sorted(ply for _swing, ply in top)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable: ``{"kind", "start", "nodes", "seed", "plies": [{ply, mover, move, best, before,
        after}, …]}``; :meth:`from_dict` restores it."""
        return {
            "kind": self.kind,
            "start": self.start,
            "nodes": self.nodes,
            "seed": self.seed,
            "plies": [asdict(j) for j in self.plies],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Analysis":
        """The analysis :meth:`to_dict` wrote.

        Raises:
            KeyError, TypeError, ValueError: not such a dict.
        """
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
        return cls(
            kind=str(data["kind"]),
            start=float(data["start"]),
            plies=plies,
            nodes=int(data["nodes"]),
            seed=int(data["seed"]),
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
    return Analysis(kind=kind, start=start, plies=tuple(plies), nodes=nodes, seed=seed)
