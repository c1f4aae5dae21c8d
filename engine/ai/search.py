"""Depth-limited alpha-beta (minimax) search with iterative deepening and a node budget.

Both games' computer players use it through a small *model* protocol; the model is a fast, mutable
mirror of one position that can play and take back moves. Values are always from player 0's point of
view: player 0 maximises, player 1 minimises. Players need not alternate (a Hong Kong quick block or a
Hong dragon summon gives the same player another placement), so each node asks the model who moves.

The budget counts nodes (positions visited), not seconds, so a search is reproducible: the same model,
the same move order and the same budget give the same move on any machine.
"""

from __future__ import annotations

import time
from typing import Callable, Generic, Hashable, Protocol, Sequence, TypeVar

#: A game model's move: any hashable value (an int for both models here).
Move = TypeVar("Move", bound=Hashable)

#: A value beyond any evaluation: a finished game is worth ``±WIN`` (minus its depth, so that a quicker
#: win and a slower loss are preferred).
WIN = 1_000_000


class Model(Protocol[Move]):
    """What :func:`iterative_deepening` needs from a game model (moves are any hashable values)."""

    mover: int

    # Optional: ``frontier() -> (value, children scored)``, the value one ply deep, for models that can
    # score all children at once more cheaply than playing each.

    def moves(self, depth: int, ply: int) -> Sequence[Move]:
        """The moves to search here, best first (may be a pruned subset); empty only if terminal."""

    def play(self, move: Move) -> None:
        """Play ``move`` for :attr:`mover`."""

    def undo(self) -> None:
        """Take back the last :meth:`play`."""

    def terminal(self) -> bool:
        """Whether the game is over."""

    def outcome(self) -> int:
        """Winner of a finished game: 0, 1, or -1 for a draw."""

    def evaluate(self) -> float:
        """Heuristic value of a position that is not over, player 0's point of view."""

    def costs_depth(self, move: Move) -> bool:
        """Whether ``move`` uses up one ply of depth (False: a half-turn such as a quick block)."""


class OutOfBudget(Exception):
    """Raised inside the search when the node budget is spent."""


class Search(Generic[Move]):
    """Alpha-beta over a :class:`Model` with a node budget.

    Attributes:
        nodes: positions visited so far (every :meth:`Model.play` counts one; a frontier shortcut
            counts the children it scored).
        budget: the most nodes this search may visit.
        table: the transposition table, kept across the depths of one :func:`iterative_deepening`.
    """

    def __init__(self, model: Model[Move], budget: float, deadline: float | None = None, table: bool = True):
        self.model = model
        self.budget = budget
        self.nodes = 0
        self.deadline = deadline
        self._ticks = 0  # moves played, for checking the clock every 16 of them (a Hong node can cost 0.2 ms)
        #: optional shortcut for the last ply: ``model.frontier() -> (value, children scored)``
        self.frontier = getattr(model, "frontier", None)
        #: optional position key for the transposition table: ``model.key() -> hashable``
        self.key = getattr(model, "key", None) if table else None
        #: transposition table: key -> (depth, value, bound, best move); bound 0 exact, 1 lower, 2 upper
        self.table: dict[Hashable, tuple[int, float, int, Move | None]] = {}

    def _tick(self) -> None:
        """Count one node; raise :class:`OutOfBudget` when the budget (or the deadline) is spent."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise OutOfBudget
        if self.deadline is not None:
            self._ticks += 1
            if not self._ticks & 15 and time.perf_counter() > self.deadline:
                raise OutOfBudget

    def value(self, depth: int, alpha: float, beta: float, ply: int) -> tuple[float, list[Move]]:
        """Minimax value of the model's position searched ``depth`` plies deep, and the line that led
        to it (principal variation). Raises :class:`OutOfBudget` when the budget is spent."""
        m = self.model
        if m.terminal():
            w = m.outcome()
            return (0.0 if w < 0 else (WIN - ply if w == 0 else -WIN + ply)), []
        if depth <= 0:
            return m.evaluate(), []
        if depth == 1 and self.frontier is not None:
            v, n = self.frontier()
            self.nodes += n
            if self.nodes > self.budget or (self.deadline is not None and time.perf_counter() > self.deadline):
                raise OutOfBudget  # (a frontier scores many children at once: the clock is looked at after each)
            return v, []
        key = hint = None
        if self.key is not None:
            key = self.key()
            entry = self.table.get(key)
            if entry is not None:
                d, v, bound, hint = entry
                if d >= depth and (bound == 0 or (bound == 1 and v >= beta) or (bound == 2 and v <= alpha)):
                    return v, ([hint] if hint is not None else [])
        moves = m.moves(depth, ply)
        if not moves:
            return m.evaluate(), []
        if hint is not None and hint in moves:
            moves = list(moves)
            moves.remove(hint)
            moves.insert(0, hint)
        alpha0, beta0 = alpha, beta
        maximising = m.mover == 0
        best = -float("inf") if maximising else float("inf")
        best_line: list[Move] = []
        for move in moves:
            self._tick()
            m.play(move)
            try:
                v, line = self.value(depth - 1 if m.costs_depth(move) else depth, alpha, beta, ply + 1)
            finally:
                m.undo()
            if maximising:
                if v > best:
                    best, best_line = v, [move] + line
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best, best_line = v, [move] + line
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        if key is not None:
            bound = 1 if best >= beta0 else (2 if best <= alpha0 else 0)
            self.table[key] = (depth, best, bound, best_line[0] if best_line else None)
        return best, best_line


#: Seconds a search's first depths may run past its deadline before they are cut short too (see
#: :func:`iterative_deepening`): on a host so busy that the search gets a few percent of a core, the first depth
#: alone could take a second or more, and a reply promised in a couple of seconds would be late.
FIRST_DEPTH_GRACE = 0.25


def iterative_deepening(
    model: Model[Move],
    root_moves: list[Move],
    budget: int,
    max_depth: int,
    min_depth: int = 1,
    deadline: float | None = None,
    table: bool = True,
) -> tuple[Move, float, list[Move], int]:
    """Search ``root_moves`` (best first) one ply deeper at a time until ``budget`` nodes are spent.

    Each completed depth re-orders the root moves by their values, so the next depth searches the best
    one first. An unfinished depth still counts for the moves it finished that beat the previous best
    (the standard rule: its first move is the previous best, so a better one found later is real).
    ``min_depth`` is completed whatever the node budget, and past the ``deadline`` by at most
    :data:`FIRST_DEPTH_GRACE` seconds (a few milliseconds of work on any machine that is not starved of CPU: a
    first depth cut short keeps the best of the root moves it searched, or the first in the order). ``deadline``
    (a ``time.perf_counter()`` value) stops the search early like an exhausted budget; it is a safety net for slow
    or busy machines — a reply that must come in time (:mod:`engine.ai`) — and the result is reproducible only
    while the node budget runs out first. ``table``: use a transposition table if the model has ``key()``.

    Returns:
        ``(best move, its value, principal variation, depth completed)``.
    """
    mover = model.mover
    sign = 1 if mover == 0 else -1
    order = list(root_moves)
    best_move, best_value, best_line, done = order[0], 0.0, [order[0]], 0
    search = Search(model, budget, table=table)
    for depth in range(1, max_depth + 1):
        if depth <= min_depth:
            search.budget = float("inf")
            search.deadline = None if deadline is None else deadline + FIRST_DEPTH_GRACE
        else:
            search.budget, search.deadline = budget, deadline
        scored: list[tuple[float, int]] = []
        lines: dict[int, list[Move]] = {}
        alpha, beta = -float("inf"), float("inf")
        finished = True
        for i, move in enumerate(order):
            try:
                search._tick()
            except OutOfBudget:
                finished = False
                break
            model.play(move)
            try:
                v, line = search.value(depth - 1 if model.costs_depth(move) else depth, alpha, beta, 1)
            except OutOfBudget:
                finished = False
                break
            finally:
                model.undo()
            scored.append((v, i))
            lines[i] = [move] + line
            if sign > 0 and v > alpha:
                alpha = v
            elif sign < 0 and v < beta:
                beta = v
        if not scored:
            break
        # Moves searched in a window only have bounds, except the best, which is exact.
        top_value, top_i = max(scored, key=lambda t: (sign * t[0], -t[1]))
        if finished or top_i != 0 or done == 0:
            best_move, best_value, best_line = order[top_i], top_value, lines[top_i]
            done = depth if finished else done
        if not finished:
            break
        ranked = sorted(scored, key=lambda t: (-sign * t[0], t[1]))
        order = [order[i] for _, i in ranked]
        if abs(best_value) >= WIN - 1000:
            break  # a forced result: deeper search cannot change it
    return best_move, best_value, best_line, done


def judged(
    decided: tuple[str, float, int],
    mover: int,
    move: str | None,
    chance_of: Callable[[float], float],
    alone: Callable[[str], tuple[Model[Move], list[Move]]],
) -> tuple[str, float, float]:
    """A game's ``assess`` (engine/contract.py ``Coach``) from its full search: ``decided`` is ``(the move the search
    chose, its value in player 0's view, the depth completed)`` for a position where ``mover`` is to move; the
    result is ``(that move, the mover's chance after it, the mover's chance after move)``, chances by the game's
    ``chance_of`` (its own reading of a value in the mover's view, 0–1). ``move`` (None or the chosen one: the same
    chance twice) is searched alone to the completed depth, so both chances come from searches of the same depth;
    ``alone(move)`` gives the model at the position and the one root move that is ``move``.

    Raises:
        IllegalMove (from ``alone``): ``move`` is not legal here.
    """
    text, value, done = decided
    sign = 1 if mover == 0 else -1
    chance = chance_of(sign * value)
    if move is None or move == text:
        return text, chance, chance
    model, root = alone(move)
    fixed = max(1, done)
    _best, played, _line, _done = iterative_deepening(model, root, 0, fixed, min_depth=fixed)
    return text, chance, chance_of(sign * played)
