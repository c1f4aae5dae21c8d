"""Computer player for Hong (and the Lair of the Seven Great Dragons): alpha-beta search over
placements and dragon actions, evaluated by the chance that the dragon master reaches the threshold.

Technique
---------
Hongs live in lines: a horizontal Hong is a run of ``H`` tiles in a row capped by ``V`` tiles, a vertical
one a run of ``V`` tiles in a column capped by ``H`` tiles. So the final count is a sum over rows and
columns, and each line's share depends only on that line. The evaluation exploits this:

* For each line, the mean and variance of the Hongs it will hold if its empty spaces were filled at
  random are computed exactly by a small dynamic programme over the line (states: no open run, just
  after a head, inside a run that started after a head). Results are cached by the line's contents,
  and a placement only changes one row and one column, so the position's totals are updated in O(1).
* The dragon master's chance to win is then ``Φ((mean - threshold + ½) / σ)`` (normal approximation,
  lines taken as independent). This is threshold-aware: a dragon master who is behind prefers
  positions that keep the count uncertain, an emperor who is ahead prefers to close lines. A small term
  for the mean itself keeps preferring a safer margin once the result looks certain.
* Open runs, capping heads and edges are all in this number: a run that touches the board's edge, a
  stone or a hole can never become a Hong, and an empty space next to a waiting run is worth a Hong to
  whoever caps it.

Why not Monte Carlo playouts: a uniformly random playout estimates exactly this mean, only with noise
and thousands of times more slowly in Python; the dynamic programme gives it exactly in microseconds,
which leaves the budget to alpha-beta for the part random playouts get wrong, the opponent's replies.

Alpha-beta (see :mod:`engine.ai.search`) looks a few placements ahead with moves ordered by this
evaluation; below the root only the most promising moves are searched. With the expansion the model
plays dragon actions too: a placement that creates a Hong whose dragon waits in the lair makes the
same player move again with that dragon's action, as in the rules. The root moves are exactly the
engine's ``legal_moves()``.
"""

from __future__ import annotations

import math
import random
import re

from typing import TYPE_CHECKING

from engine import N_, IllegalMove
from engine import hong as hg
from engine.ai.search import WIN, iterative_deepening, judged
from engine.contract import Settings

#: Per level (see :data:`engine.ai.SETTINGS`): ``nodes`` (search budget), ``depth`` (most placements or
#: dragon actions), ``naive`` (one ply ahead, counting Hongs only) and ``seconds`` (wall-clock safety cap).
SETTINGS: dict[str, Settings] = {
    "easy": {"nodes": 0, "depth": 1, "naive": True, "seconds": 1.0},
    "medium": {"nodes": 2_000, "depth": 2, "naive": False, "seconds": 1.5},
    "hard": {"nodes": 150_000, "depth": 10, "naive": False, "seconds": 2.5},
}

_SEG = "1"  # a tile whose body runs along the line
_CAP = "0"  # a tile whose heads cap the line
_EMPTY = "."
_BLOCK = "#"  # a stone or no space: breaks the line

#: Cache: line contents -> (mean, variance) of its Hongs under a random completion.
_LINE_STATS: dict[str, tuple[float, float]] = {}
#: Cache: line contents -> Hong spans now ((start, end), ...), end exclusive.
_LINE_SPANS: dict[str, tuple[tuple[int, int], ...]] = {}
#: Entries a cache may hold before it is emptied (a long-lived worker process must not grow forever;
#: one game touches a few thousand lines, about 200 bytes each).
_CACHE_LIMIT = 200_000
_HONG_RE = re.compile(r"(?<=0)1+(?=0)")


def line_stats(line: str) -> tuple[float, float]:
    """Mean and variance of the Hongs ``line`` will hold if each empty space becomes a segment or a
    head with probability ½ (``1`` segment, ``0`` head, ``.`` empty, ``#`` stone/no space)."""
    got = _LINE_STATS.get(line)
    if got is not None:
        return got
    # state: 0 no open run, 1 just after a head, 2 inside a run that started after a head;
    # per state: probability, E[count; state], E[count^2; state]
    p = [1.0, 0.0, 0.0]
    m1 = [0.0, 0.0, 0.0]
    m2 = [0.0, 0.0, 0.0]
    for ch in line:
        if ch == _BLOCK:
            p = [1.0 * sum(p), 0.0, 0.0]
            m1 = [sum(m1), 0.0, 0.0]
            m2 = [sum(m2), 0.0, 0.0]
            continue
        # after a head: from any state; a run after a head is completed (+1)
        cp = p[0] + p[1] + p[2]
        c1 = m1[0] + m1[1] + m1[2] + p[2]
        c2 = m2[0] + m2[1] + m2[2] + 2 * m1[2] + p[2]
        # after a segment: 0 stays 0, 1 and 2 go to 2
        sp = (p[0], 0.0, p[1] + p[2])
        s1 = (m1[0], 0.0, m1[1] + m1[2])
        s2 = (m2[0], 0.0, m2[1] + m2[2])
        if ch == _CAP:
            p, m1, m2 = [0.0, cp, 0.0], [0.0, c1, 0.0], [0.0, c2, 0.0]
        elif ch == _SEG:
            p, m1, m2 = list(sp), list(s1), list(s2)
        else:
            p = [0.5 * sp[0], 0.5 * cp, 0.5 * sp[2]]
            m1 = [0.5 * s1[0], 0.5 * c1, 0.5 * s1[2]]
            m2 = [0.5 * s2[0], 0.5 * c2, 0.5 * s2[2]]
    mean = sum(m1)
    var = max(0.0, sum(m2) - mean * mean)
    if len(_LINE_STATS) >= _CACHE_LIMIT:
        _LINE_STATS.clear()
    _LINE_STATS[line] = (mean, var)
    return mean, var


def line_spans(line: str) -> tuple[tuple[int, int], ...]:
    """The Hongs in ``line`` now, as (first segment, last segment + 1) positions."""
    got = _LINE_SPANS.get(line)
    if got is None:
        if len(_LINE_SPANS) >= _CACHE_LIMIT:
            _LINE_SPANS.clear()
        got = _LINE_SPANS[line] = tuple(m.span() for m in _HONG_RE.finditer(line))
    return got


#: A dragon action for the search: ``(size, notation, ((index, new content), ...))``.
Action = tuple[int, str, tuple[tuple[int, str], ...]]
#: A move for the search: a placement ``2 * index + (0 for H, 1 for V)``, or an :data:`Action`.
Move = int | Action


class Model:
    """A mutable mirror of a Hong position for search (see :mod:`engine.ai.search`).

    Moves: a placement is ``2 * index + (0 for H, 1 for V)`` (index row-major on the board's grid);
    a dragon action is a tuple ``(size, notation, ((index, new content), ...))``.
    """

    def __init__(self, game: hg.HongGame, weights: "Weights"):
        b = game.board
        self.w, self.h = w, h = b.width, b.height
        self.threshold = game.threshold
        self.grid = list("".join(game.rows()))  # . # H V S, as the engine
        self.names = [hg.square_name(i % w, i // w) for i in range(w * h)]
        self.rg = [""] * (w * h)  # row view, row-major
        self.cg = [""] * (w * h)  # column view, column-major
        for i, ch in enumerate(self.grid):
            self._views(i, ch)
        self.row_of = [i // w for i in range(w * h)]
        self.col_of = [i % w for i in range(w * h)]
        self.mean = [0.0] * (h + w)
        self.var = [0.0] * (h + w)
        for r in range(h):
            self.mean[r], self.var[r] = line_stats("".join(self.rg[r * w : (r + 1) * w]))
        for c in range(w):
            self.mean[h + c], self.var[h + c] = line_stats("".join(self.cg[c * h : (c + 1) * h]))
        self.total_mean = sum(self.mean)
        self.total_var = sum(self.var)
        self.empty = self.grid.count(_EMPTY)
        self.neighbours: list[tuple[int, ...]] = []
        for i in range(w * h):
            r, c = divmod(i, w)
            out = []
            for rr, cc in ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)):
                if 0 <= rr < h and 0 <= cc < w and b.template[rr * w + cc] != "#":
                    out.append(rr * w + cc)
            self.neighbours.append(tuple(out))
        self.expansion = game.expansion
        self.lair = dict(game.lair)
        self.pending: tuple[int, ...] | None = game.pending.sizes if game.pending else None
        self.mover = game.to_move
        #: per move played: the changed cells' old contents, the mover, the summon, the dragon taken (size, action)
        self.hist: list[tuple[tuple[tuple[int, str], ...], int, tuple[int, ...] | None, tuple[int, str] | None]] = []
        self.weights = weights

    # --- cells ---------------------------------------------------------------------------------

    def _views(self, i: int, ch: str) -> None:
        w, h = self.w, self.h
        r, c = divmod(i, w)
        if ch == "H":
            self.rg[i], self.cg[c * h + r] = _SEG, _CAP
        elif ch == "V":
            self.rg[i], self.cg[c * h + r] = _CAP, _SEG
        elif ch == _EMPTY:
            self.rg[i] = self.cg[c * h + r] = _EMPTY
        else:
            self.rg[i] = self.cg[c * h + r] = _BLOCK

    def row_line(self, r: int) -> str:
        """Row ``r`` as a line string (``1`` segment = H, ``0`` head = V, ``.`` empty, ``#`` block)."""
        return "".join(self.rg[r * self.w : (r + 1) * self.w])

    def col_line(self, c: int) -> str:
        """Column ``c`` as a line string (``1`` segment = V, ``0`` head = H, ``.`` empty, ``#`` block)."""
        return "".join(self.cg[c * self.h : (c + 1) * self.h])

    def _set(self, i: int, ch: str) -> None:
        """Put ``ch`` on cell ``i`` and update the line statistics of its row and column."""
        old = self.grid[i]
        if old == ch:
            return
        if old == _EMPTY:
            self.empty -= 1
        elif ch == _EMPTY:
            self.empty += 1
        self.grid[i] = ch
        self._views(i, ch)
        r, c = self.row_of[i], self.col_of[i]
        mean, var = self.mean, self.var
        m, v = line_stats(self.row_line(r))
        self.total_mean += m - mean[r]
        self.total_var += v - var[r]
        mean[r], var[r] = m, v
        k = self.h + c
        m, v = line_stats(self.col_line(c))
        self.total_mean += m - mean[k]
        self.total_var += v - var[k]
        mean[k], var[k] = m, v

    def _touching(self, cells: list[int]) -> set[tuple[int, int, int]]:
        """Hongs having one of ``cells`` as segment or head: (line, start, end) triples."""
        found = set()
        h = self.h
        for r in {self.row_of[i] for i in cells}:
            pos = [self.col_of[i] for i in cells if self.row_of[i] == r]
            for a, b in line_spans(self.row_line(r)):
                if any(a - 1 <= p <= b for p in pos):
                    found.add((r, a, b))
        for c in {self.col_of[i] for i in cells}:
            pos = [self.row_of[i] for i in cells if self.col_of[i] == c]
            for a, b in line_spans(self.col_line(c)):
                if any(a - 1 <= p <= b for p in pos):
                    found.add((h + c, a, b))
        return found

    # --- rules -----------------------------------------------------------------------------------

    def _possible(self, action: str, placing: bool = False) -> bool:
        """Whether ``action`` can be carried out now (the rules summon no dragon whose action cannot).

        ``placing``: ask about the position after one more tile is placed on an empty space (exact
        except for ``move``, which is checked on the position as it is)."""
        g = self.grid
        empty = self.empty - 1 if placing else self.empty
        has_tile = placing or "H" in g or "V" in g
        if action in ("rotate", "flip"):
            return has_tile
        if action in ("place", "stone"):
            return empty > 0
        if action == "movestone":
            return empty > 0 and "S" in g
        if action == "swap":
            return has_tile and "S" in g
        if action == "move":
            return empty > 0 and any(g[j] == _EMPTY for i, ch in enumerate(g) if ch in "HV" for j in self.neighbours[i])
        raise AssertionError(action)

    def play(self, move: Move) -> None:
        """Play a placement or dragon action for the mover, then summon or end the turn as the rules say
        (no legality check: moves come from :meth:`all_moves`)."""
        if isinstance(move, int):
            i = move >> 1
            changes: tuple[tuple[int, str], ...] = ((i, "V" if move & 1 else "H"),)
            size = None
        else:
            size, _, changes = move
        cells = [i for i, _ in changes]
        watch = self.expansion and bool(self.lair)
        before = self._touching(cells) if watch and size is not None else set()
        old = tuple((i, self.grid[i]) for i, _ in changes)
        for i, ch in changes:
            self._set(i, ch)
        removed = None
        if size is not None:
            removed = (size, self.lair.pop(size))
        self.hist.append((old, self.mover, self.pending, removed))
        self.pending = None
        if watch:
            sizes = set()
            for line, a, b in self._touching(cells) - before:
                s = b - a
                if s in self.lair:
                    sizes.add(s)
            options = tuple(sorted(s for s in sizes if self._possible(self.lair[s])))
            if options:
                self.pending = options
                return
        if self.empty > 0:
            self.mover = 1 - self.mover

    def undo(self) -> None:
        """Take back the last :meth:`play`."""
        old, mover, pending, removed = self.hist.pop()
        for i, ch in reversed(old):
            self._set(i, ch)
        if removed:
            self.lair[removed[0]] = removed[1]
        self.mover, self.pending = mover, pending

    def key(self) -> tuple[object, ...]:
        """Position key for the transposition table: the grid, who moves, the summon and the lair."""
        if self.expansion:
            return "".join(self.grid), self.mover, self.pending, tuple(sorted(self.lair))
        return "".join(self.grid), self.mover

    def terminal(self) -> bool:
        """Every space filled and no summon pending."""
        return self.empty == 0 and self.pending is None

    def hong_count(self) -> int:
        """Hongs on the board now."""
        return sum(len(line_spans(self.row_line(r))) for r in range(self.h)) + sum(
            len(line_spans(self.col_line(c))) for c in range(self.w)
        )

    def outcome(self) -> int:
        """Winner of a finished game: 1 (dragon master) at or above the threshold, else 0."""
        return 1 if self.hong_count() >= self.threshold else 0

    def costs_depth(self, move: Move) -> bool:
        """Every placement and action is one ply."""
        return True

    # --- moves -----------------------------------------------------------------------------------

    def all_moves(self) -> list[Move]:
        """Every legal move: placements, or the pending summon's dragon actions."""
        if self.terminal():
            return []
        out: list[Move] = []
        if self.pending is None:
            for i, ch in enumerate(self.grid):
                if ch == _EMPTY:
                    out.append(2 * i)
                    out.append(2 * i + 1)
            return out
        for size in self.pending:
            out.extend(self.action_moves(size, self.lair[size]))
        return out

    def action_moves(self, size: int, action: str) -> list[Action]:
        """Every way to carry out ``action`` as the dragon of ``size``, in the engine's notation."""
        g, names = self.grid, self.names
        tiles = [i for i, ch in enumerate(g) if ch in "HV"]
        stones = [i for i, ch in enumerate(g) if ch == "S"]
        empties = [i for i, ch in enumerate(g) if ch == _EMPTY]
        head = f"D{size} {action}"
        if action == "rotate":
            return [(size, f"{head} {names[i]}", ((i, "V" if g[i] == "H" else "H"),)) for i in tiles]
        if action == "flip":
            return [(size, f"{head} {names[i]}", ((i, "S"),)) for i in tiles]
        if action == "place":
            return [(size, f"{head} {names[i]}{o}", ((i, o),)) for i in empties for o in "HV"]
        if action == "stone":
            return [(size, f"{head} {names[i]}", ((i, "S"),)) for i in empties]
        if action == "movestone":
            return [(size, f"{head} {names[i]} {names[j]}", ((i, _EMPTY), (j, "S"))) for i in stones for j in empties]
        if action == "move":
            return [
                (size, f"{head} {names[i]} {names[j]}", ((i, _EMPTY), (j, g[i])))
                for i in tiles
                for j in self.neighbours[i]
                if g[j] == _EMPTY
            ]
        if action == "swap":
            return [
                (size, f"{head} {names[i]} {names[j]} {o}", ((i, "S"), (j, o)))
                for i in tiles
                for j in stones
                for o in "HV"
            ]
        raise AssertionError(action)

    def notation(self, move: Move) -> str:
        """A move in the engine's canonical notation (``C4H``, ``D2 rotate C4``)."""
        if isinstance(move, int):
            return self.names[move >> 1] + ("V" if move & 1 else "H")
        return move[1]

    # --- evaluation ------------------------------------------------------------------------------

    def win_chance(self) -> float:
        """The dragon master's chance to reach the threshold if the rest were filled at random."""
        return self._chance(self.total_mean, self.total_var)

    def _chance(self, mean: float, var: float) -> float:
        z = (mean - self.threshold + 0.5) / (math.sqrt(var) + 0.05)
        return 0.5 * (1.0 + math.erf(z * 0.7071067811865476))

    def evaluate(self) -> float:
        """Player 0's (the emperor's) view: 1000 × (1 - 2 × the dragon master's chance), minus a small
        term for the expected count, so that margins still matter when the result looks certain."""
        return self._value(self.total_mean, self.total_var)

    def _value(self, mean: float, var: float) -> float:
        z = (mean - self.threshold + 0.5) / (math.sqrt(var) + 0.05)
        w = self.weights
        return -w.chance * math.erf(z * 0.7071067811865476) - w.mean * (mean - self.threshold)

    def keyed_moves(self) -> list[tuple[float, Move]]:
        """Every legal move with its one-ply evaluation from the mover's side, best first.

        Placements are scored from the changed row and column alone (no play/undo); a placement that
        summons a Great Dragon gets ``weights.summon`` extra, as the action that follows is not seen
        here. Dragon actions are scored by playing them.
        """
        if self.pending is not None:
            return self._keyed_by_play()
        sign = 1.0 if self.mover == 0 else -1.0
        w, h = self.w, self.h
        rows = [self.row_line(r) for r in range(h)]
        cols = [self.col_line(c) for c in range(w)]
        mean, var = self.mean, self.var
        tm, tv = self.total_mean, self.total_var
        last = self.empty == 1
        watch = self.expansion and bool(self.lair)
        bonus = self.weights.summon
        value, threshold = self._value, self.threshold
        out: list[tuple[float, Move]] = []
        for i, ch in enumerate(self.grid):
            if ch != _EMPTY:
                continue
            r, c = divmod(i, w)
            rk, ck = rows[r], cols[c]
            base_m = tm - mean[r] - mean[h + c]
            base_v = tv - var[r] - var[h + c]
            for o, rch, cch in ((0, _SEG, _CAP), (1, _CAP, _SEG)):
                nr = rk[:c] + rch + rk[c + 1 :]
                nc = ck[:r] + cch + ck[r + 1 :]
                mr, vr = line_stats(nr)
                mc, vc = line_stats(nc)
                summons = watch and self._summons(nr, c, nc, r)
                m = base_m + mr + mc
                if last and not summons:
                    v = sign * (-1e6 if m >= threshold - 1e-9 else 1e6)
                else:
                    v = sign * value(m, base_v + vr + vc) + (bonus if summons else 0.0)
                out.append((v, 2 * i + o))
        out.sort(key=lambda t: -t[0])
        return out

    def _summons(self, row: str, c: int, col: str, r: int) -> bool:
        """Whether a placement making ``row`` (at column ``c``) and ``col`` (at row ``r``) creates a Hong
        whose dragon waits in the lair and can act."""
        lair = self.lair
        for a, b in line_spans(row):
            if a - 1 <= c <= b and (b - a) in lair and self._possible(lair[b - a], True):
                return True
        for a, b in line_spans(col):
            if a - 1 <= r <= b and (b - a) in lair and self._possible(lair[b - a], True):
                return True
        return False

    def _keyed_by_play(self) -> list[tuple[float, Move]]:
        sign = 1.0 if self.mover == 0 else -1.0
        out: list[tuple[float, Move]] = []
        for m in self.all_moves():
            self.play(m)
            if self.terminal():
                v = sign * (1e6 if self.outcome() == 0 else -1e6)
            else:
                v = sign * self.evaluate() + (self.weights.summon if self.pending is not None else 0.0)
            self.undo()
            out.append((v, m))
        out.sort(key=lambda t: -t[0])
        return out

    def frontier(self) -> tuple[float, int]:
        """Value of this position one ply deep (best one-ply child), player 0's view, and the number of
        children scored: the search's last ply, without playing each child."""
        keyed = self.keyed_moves()
        if not keyed:
            return self.evaluate(), 0
        v = keyed[0][0]
        return (v if self.mover == 0 else -v), len(keyed)

    def moves(self, depth: int, ply: int) -> list[Move]:
        """Moves to search, best first: all at the root, the best ``width`` below it."""
        keyed = self.keyed_moves()
        limit = len(keyed) if ply == 0 else self.weights.width
        return [m for _, m in keyed[:limit]]


class Weights:
    """Evaluation weights and search widths."""

    def __init__(self, **kw: float) -> None:
        self.chance = 1000.0
        self.mean = 5.0
        self.summon = 40.0
        self.width = 12
        self.table = True
        for k, v in kw.items():
            if not hasattr(self, k):
                raise TypeError(k)
            setattr(self, k, v)


def choose(
    game: hg.HongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    naive: bool = False,
    deadline: float | None = None,
    weights: Weights | None = None,
) -> str:
    """The move to play for ``game.to_move``: a placement, or a dragon action while a summon is pending.

    Args:
        game: a Hong game that is not over; it is not changed.
        rng: seeded generator: breaks ties between equally good moves.
        nodes: node budget of the search (positions visited or scored).
        depth: most plies to look ahead (a placement or a dragon action is one ply).
        naive: look one ply ahead and count only the Hongs on the board now, playing a random move
            among the best (the easy level).
        deadline: ``time.perf_counter()`` value after which the search stops early (safety net).
    """
    return _decide(game, rng, nodes=nodes, depth=depth, naive=naive, deadline=deadline, weights=weights)[0]


def chance_of(value: float) -> float:
    """A player's chance to win (0–1) for a search value from their view (the emperor's, player 0's: the
    evaluation's own view): a forced result is 1
    or 0; otherwise the value read back as :meth:`Model.evaluate`'s ``1000 × (1 − 2 × the dragon master's
    chance)``, clamped (the small term for the expected count is ignored)."""
    if value >= WIN - 1000:
        return 1.0
    if value <= -WIN + 1000:
        return 0.0
    return max(0.0, min(1.0, 0.5 + value / 2000.0))


def assess(
    game: hg.HongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    deadline: float | None = None,
    move: str | None = None,
) -> tuple[str, float, float]:
    """Judge a position for post-game analysis (:mod:`engine.ai.analysis`): the move the full search would play
    for ``game.to_move``, the mover's chance to win after it, and after ``move`` (a legal move; None: the search's
    own), each 0–1 (:func:`chance_of` of the search's value).

    ``move`` is searched alone to the depth the search completed, so both chances come from searches of the same
    depth. Same arguments as :func:`choose` (never naive); reproducible while ``nodes`` runs out first.

    Raises:
        IllegalMove: ``move`` is not a legal move here.
    """
    decided = _decide(game, rng, nodes=nodes, depth=depth, naive=False, deadline=deadline)

    def alone(move: str) -> tuple[Model, list[Move]]:
        model = Model(game, Weights())
        found = [m for m in model.all_moves() if model.notation(m) == move]
        if not found or move not in set(game.legal_moves()):
            raise IllegalMove(N_("{move} is not a legal move here.", move=move))
        return model, found[:1]

    return judged(decided, game.to_move, move, chance_of, alone)


def _decide(
    game: hg.HongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    naive: bool,
    deadline: float | None,
    weights: Weights | None = None,
) -> tuple[str, float, int]:
    """:func:`choose`'s move, the search's value of it (player 0's view; 0 when ``naive``) and the depth the search
    completed (0 when ``naive`` or the model found no move)."""
    legal = set(game.legal_moves())
    model = Model(game, weights or Weights())
    if naive:
        sign = 1 if model.mover == 1 else -1
        best, cands = None, []
        for m in model.all_moves():
            if model.notation(m) not in legal:
                continue
            model.play(m)
            v = sign * model.hong_count()
            model.undo()
            if best is None or v > best:
                best, cands = v, [m]
            elif v == best:
                cands.append(m)
        if not cands:
            return sorted(legal)[0], 0.0, 0
        return model.notation(cands[rng.randrange(len(cands))]), 0.0, 0
    keyed = model.keyed_moves()
    rng.shuffle(keyed)
    keyed.sort(key=lambda t: -t[0])
    roots = [m for v, m in keyed if model.notation(m) in legal]
    if not roots:  # the model and the engine disagree: never play an illegal move
        return sorted(legal)[0], model.evaluate(), 0
    move, value, _line, done = iterative_deepening(
        model, roots, nodes, depth, deadline=deadline, table=model.weights.table
    )
    return model.notation(move), value, done


if TYPE_CHECKING:  # this module is a computer opponent of the contract (engine/contract.py): mypy checks it here
    from engine.ai import hong as _module
    from engine.contract import Coach, Opponent

    _conforms: Opponent[hg.HongGame] = _module
    _coaches: Coach[hg.HongGame] = _module
