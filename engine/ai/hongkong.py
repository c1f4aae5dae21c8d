"""Computer player for Hong Kong: alpha-beta search over single placements with a building evaluation.

Technique
---------
A turn is one standard block or roof, optionally preceded by a quick block; about 1,200 turn strings at
the start. The search does not enumerate turns: it searches *placements*, and a quick block is a
half-move after which the same player places again without using up depth. So a node has at most
~75 children (S, R and Q on each plot) instead of ~1,200, and quick blocks are pruned to the few most
promising plots below the root.

The evaluation is built from the game's own ideas, in hundredths of a building, player 0's view:

* every controlled building is worth 100;
* a building that can never change hands again (roofed, or five pieces) is worth more;
* a building the opponent could capture on their next turn (an adjacent building of theirs high enough
  now, or after a quick block raises it) is worth less, much less if it is their turn;
* tall unroofed buildings next to the opponent's lower buildings threaten them;
* unused roofs and quick blocks are worth something while plots remain to fight over;
* the centre C3 breaks ties.

The model is a flat mirror of the board (owner, blocks, roof and piece count per plot) that plays and
takes back placements in place; it reads the game only through ``stacks``, ``remaining``, ``moves``
and ``to_move`` and the chosen turn is checked against ``legal_moves()``.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Callable

from engine import N_, IllegalMove
from engine import hongkong as hk
from engine.ai.search import WIN, iterative_deepening, judged
from engine.contract import Settings

#: Per level (see :data:`engine.ai.SETTINGS`): ``nodes`` (search budget), ``depth`` (most turns),
#: ``naive`` (one turn ahead, counting buildings only) and ``seconds`` (wall-clock safety cap).
SETTINGS: dict[str, Settings] = {
    "easy": {"nodes": 0, "depth": 1, "naive": True, "seconds": 1.0},
    "medium": {"nodes": 3_000, "depth": 2, "naive": False, "seconds": 1.5},
    "hard": {"nodes": 80_000, "depth": 10, "naive": False, "seconds": 2.5},
}

S, R, Q = 0, 1, 2
KIND_LETTER = ("S", "R", "Q")
LETTER_KIND = {"S": S, "R": R, "Q": Q}
PLOTS = hk.PLOTS
CENTRE = hk.CENTRE
NB = hk.NEIGHBOURS
SQUARE = tuple(hk.square_name(p) for p in range(PLOTS))

# Zobrist keys for the transposition table: a plot's state (owner, blocks, roof), pieces in hand,
# who moves, a quick block just placed, and the first turn (its centre ban).
_rng = random.Random(0x484B)
_PLOT_KEYS = [[_rng.getrandbits(62) for _ in range(24)] for _ in range(PLOTS)]
_REM_KEYS = [[_rng.getrandbits(62) for _ in range(21)] for _ in range(6)]
_MOVER_KEY = _rng.getrandbits(62)
_MID_KEY = _rng.getrandbits(62)
_FIRST_KEY = _rng.getrandbits(62)
del _rng


#: Ordering base of a placement on an empty plot: the centre first, corners and edges before the middle.
_EMPTY_BASE = tuple(100.0 + (12 if x == CENTRE else 0) - 3 * len(NB[x]) for x in range(PLOTS))


def _plot_key(x: int, owner: int, blocks: int, roof: bool) -> int:
    return 0 if owner < 0 else _PLOT_KEYS[x][owner * 12 + blocks * 2 + roof]


class Model:
    """A mutable mirror of a Hong Kong position for search (see :mod:`engine.ai.search`).

    A move is ``kind * 25 + plot`` with kind 0 = standard block, 1 = roof, 2 = quick block.
    """

    __slots__ = (
        "owner",
        "blocks",
        "roof",
        "pieces",
        "rem",
        "mover",
        "mid",
        "turns",
        "empty",
        "hist",
        "q_width",
        "width",
        "weights",
        "hash",
        "heights",
        "cache",
    )

    def __init__(self, game: hk.HongKongGame, weights: "Weights"):
        self.owner = [s[-1][0] if s else -1 for s in game.stacks]
        self.blocks = [sum(1 for _, k in s if k != "R") for s in game.stacks]
        self.roof = [bool(s) and s[-1][1] == "R" for s in game.stacks]
        self.pieces = [len(s) for s in game.stacks]
        self.heights = [2 * b + r for b, r in zip(self.blocks, self.roof)]
        self.cache: dict[int, float] = {}
        self.rem = [game.remaining[p][k] for p in (0, 1) for k in ("S", "R", "Q")]
        self.mover = game.to_move
        self.mid = False
        self.turns = len(game.moves)
        self.empty = sum(1 for s in game.stacks if not s)
        #: per placement played: the placement, the plot's old controller, ``mid``, ``mover``, ``turns``, ``hash``
        self.hist: list[tuple[int, int, bool, int, int, int]] = []
        self.weights = weights
        self.q_width = weights.q_width
        self.width = weights.width
        h = 0
        for x in range(PLOTS):
            h ^= _plot_key(x, self.owner[x], self.blocks[x], self.roof[x])
        for i, n in enumerate(self.rem):
            h ^= _REM_KEYS[i][n]
        self.hash = h ^ (_MOVER_KEY if self.mover else 0)

    def key(self) -> int:
        """Position key for the transposition table (Zobrist hash; plus mid-turn and first-turn bits)."""
        return self.hash ^ (_MID_KEY if self.mid else 0) ^ (_FIRST_KEY if self.turns == 0 else 0)

    # --- rules --------------------------------------------------------------------------------

    def legal(self, p: int, k: int, x: int) -> bool:
        """Whether player ``p`` may put a ``k`` piece on plot ``x`` now (placement rules 1-6)."""
        if self.rem[p * 3 + k] == 0:
            return False
        if x == CENTRE and self.turns == 0:
            return False
        o = self.owner[x]
        if o < 0:
            return True
        if self.roof[x] or self.pieces[x] >= 5:
            return False
        if o == p:
            return True
        after = 2 * self.blocks[x] + (1 if k == R else 2)
        owner, blocks, roof = self.owner, self.blocks, self.roof
        for n in NB[x]:
            if owner[n] == p and 2 * blocks[n] + roof[n] >= after:
                return True
        return False

    def all_moves(self) -> list[int]:
        """Every legal placement for the mover (quick blocks only when not mid-turn)."""
        p = self.mover
        kinds = (S, R) if self.mid else (S, R, Q)
        if not self.mid and self.rem[p * 3] + self.rem[p * 3 + 1] == 0:
            return []
        return [k * PLOTS + x for k in kinds for x in range(PLOTS) if self.legal(p, k, x)]

    def play(self, move: int) -> None:
        """Place one piece for the mover (no legality check: moves come from :meth:`all_moves`)."""
        k, x = divmod(move, PLOTS)
        p = self.mover
        self.hist.append((move, self.owner[x], self.mid, self.mover, self.turns, self.hash))
        h = self.hash ^ _plot_key(x, self.owner[x], self.blocks[x], self.roof[x])
        i = p * 3 + k
        h ^= _REM_KEYS[i][self.rem[i]] ^ _REM_KEYS[i][self.rem[i] - 1]
        if self.owner[x] < 0:
            self.empty -= 1
        self.owner[x] = p
        self.pieces[x] += 1
        if k == R:
            self.roof[x] = True
        else:
            self.blocks[x] += 1
        self.rem[i] -= 1
        self.heights[x] = 2 * self.blocks[x] + self.roof[x]
        h ^= _plot_key(x, p, self.blocks[x], self.roof[x])
        if k == Q:
            self.mid = True
        else:
            self.mid = False
            self.turns += 1
            self.mover = 1 - p
            h ^= _MOVER_KEY
        self.hash = h

    def undo(self) -> None:
        """Take back the last :meth:`play`."""
        move, owner, mid, mover, turns, self.hash = self.hist.pop()
        k, x = divmod(move, PLOTS)
        self.owner[x] = owner
        if owner < 0:
            self.empty += 1
        self.pieces[x] -= 1
        if k == R:
            self.roof[x] = False
        else:
            self.blocks[x] -= 1
        self.heights[x] = 2 * self.blocks[x] + self.roof[x]
        self.rem[mover * 3 + k] += 1
        self.mid, self.mover, self.turns = mid, mover, turns

    def terminal(self) -> bool:
        """The rules' end, checked at the end of a turn: every plot occupied, or both players out of
        standard blocks and roofs."""
        if self.mid:
            return False
        r = self.rem
        return self.empty == 0 or r[0] + r[1] + r[3] + r[4] == 0

    def counts(self) -> tuple[int, int]:
        """Controlled buildings of player 0 and player 1."""
        c0 = self.owner.count(0)
        return c0, self.owner.count(1)

    def outcome(self) -> int:
        """Winner of a finished game (most buildings, then the centre's controller); -1 for a draw."""
        c0, c1 = self.counts()
        if c0 != c1:
            return 0 if c0 > c1 else 1
        return self.owner[CENTRE]  # -1 (draw) when the centre is empty

    def costs_depth(self, move: int) -> bool:
        """A quick block costs no depth: the same player places again."""
        return move < 2 * PLOTS

    # --- evaluation ---------------------------------------------------------------------------

    def evaluate(self) -> float:
        """Heuristic value, player 0's view, in hundredths of a building (see the module docstring).

        Cached by position key for the life of the model (transpositions reach the same leaves)."""
        key = self.key()
        v = self.cache.get(key)
        if v is None:
            v = self.cache[key] = self._evaluate()
        return v

    def _evaluate(self) -> float:
        w = self.weights
        building, sealed, threatened, height = w.building, w.sealed, w.threatened, w.height
        owner, blocks, roof, pieces, rem, heights = (
            self.owner,
            self.blocks,
            self.roof,
            self.pieces,
            self.rem,
            self.heights,
        )
        score = 0.0
        best_capture = [0.0, 0.0]
        for x in range(PLOTS):
            o = owner[x]
            if o < 0:
                continue
            if roof[x] or pieces[x] >= 5:
                v = building + sealed
            else:
                # can the opponent capture it on their next turn: an adjacent building of theirs at least
                # as high as the result, possibly after a quick block raised it by one block
                v = building
                q = 1 - o
                reach = 0
                qq = rem[q * 3 + 2]
                for n in NB[x]:
                    if owner[n] == q:
                        h = heights[n]
                        if qq and not roof[n] and pieces[n] < 5:
                            h += 2
                        if h > reach:
                            reach = h
                b2 = 2 * blocks[x]
                if reach > b2:
                    by_roof = rem[q * 3 + 1] > 0
                    if by_roof or (reach >= b2 + 2 and rem[q * 3]):
                        gain = 2 * building + (sealed if by_roof else 0)
                        if gain > best_capture[q]:
                            best_capture[q] = gain
                        v -= threatened
                # height: a tall building guards itself and overlooks neighbours
                hx = heights[x]
                v += height * (hx if hx < 8 else 8)
            if x == CENTRE:
                v += w.centre
            if o == 0:
                score += v
            else:
                score -= v
        # the side to move cashes its best capture; the other side has to spend tempo defending
        mover = self.mover
        if best_capture[mover]:
            score += (1 if mover == 0 else -1) * w.to_move_capture * best_capture[mover]
        # pieces in hand, worth more while there are empty plots to fight over
        live = min(1.0, self.empty / 10.0 + 0.3)
        score += live * (w.roof_in_hand * (rem[1] - rem[4]) + w.quick_in_hand * (rem[2] - rem[5]))
        return score

    # --- move ordering ------------------------------------------------------------------------

    def keyed_moves(self) -> list[tuple[float, int, bool]]:
        """Every legal placement as ``(ordering key, move, forcing)``, for the mover, best first.

        ``forcing`` marks moves a pruned search must never drop: captures, quick blocks that make a
        capture possible, and moves that save a building the opponent threatens.
        """
        p = self.mover
        q = 1 - p
        owner, blocks, roof, pieces, rem, heights = (
            self.owner,
            self.blocks,
            self.roof,
            self.pieces,
            self.rem,
            self.heights,
        )
        if not self.mid and rem[p * 3] + rem[p * 3 + 1] == 0:
            return []
        has_s, has_r, has_q = rem[p * 3] > 0, rem[p * 3 + 1] > 0, rem[p * 3 + 2] > 0 and not self.mid
        q_s, q_r, q_q = rem[q * 3] > 0, rem[q * 3 + 1] > 0, rem[q * 3 + 2] > 0
        # the highest adjacent building of each player, and the opponent's after a quick block
        mine = [0] * PLOTS
        theirs = [0] * PLOTS
        reach = [0] * PLOTS
        for n in range(PLOTS):
            o = owner[n]
            if o < 0:
                continue
            h = heights[n]
            if o == p:
                for x in NB[n]:
                    if h > mine[x]:
                        mine[x] = h
            else:
                hq = h + 2 if q_q and not roof[n] and pieces[n] < 5 else h
                for x in NB[n]:
                    if h > theirs[x]:
                        theirs[x] = h
                    if hq > reach[x]:
                        reach[x] = hq
        first = self.turns == 0
        out: list[tuple[float, int, bool]] = []
        for x in range(PLOTS):
            o = owner[x]
            if o < 0:
                if first and x == CENTRE:
                    continue
                m, t = mine[x], theirs[x]
                # next to an own tall building is safer, next to the opponent's riskier
                base = _EMPTY_BASE[x] + 4 * (m if m < 6 else 6) - 5 * (t if t < 6 else 6)
                if has_s:
                    out.append((base, x, False))
                if has_r:
                    out.append((base - 40 + (20 if t >= 3 else 0), PLOTS + x, False))
                if has_q:
                    out.append((base + 10, 2 * PLOTS + x, False))
                continue
            if roof[x] or pieces[x] >= 5:
                continue
            b2 = 2 * blocks[x]
            if o == p:
                # is it threatened? (the opponent reaches b2+1 with a roof or b2+2 with a block)
                r = reach[x]
                threatened = (q_r and r >= b2 + 1) or (q_s and r >= b2 + 2)
                enables = False
                if has_q:
                    # does raising it by a quick block make a capture next to it possible?
                    hx = heights[x] + 2
                    for n in NB[x]:
                        if owner[n] == q and not roof[n] and pieces[n] < 5:
                            nb2 = 2 * blocks[n]
                            if mine[n] < nb2 + 1 and (has_r and hx >= nb2 + 1 or has_s and hx >= nb2 + 2):
                                enables = True
                                break
                if has_s:
                    out.append((300.0 + 5 * blocks[x] if threatened else 40.0 + 5 * blocks[x], x, threatened))
                if has_r:
                    key = (400.0 if threatened else 10.0 + 10 * blocks[x]) + (10 if x == CENTRE else 0)
                    out.append((key, PLOTS + x, threatened))
                if has_q:
                    key = 350.0 if enables else (250.0 if threatened else 30.0)
                    out.append((key, 2 * PLOTS + x, enables or threatened))
                continue
            if first and x == CENTRE:
                continue
            # the opponent's building: a capture if an own neighbour is high enough
            top = mine[x]
            if top > b2:
                value = 1000.0 + 30 * blocks[x] + (15 if x == CENTRE else 0)
                if has_s and top >= b2 + 2:
                    out.append((value, x, True))
                if has_r:
                    out.append((value + 100, PLOTS + x, True))
                if has_q and top >= b2 + 2:
                    out.append((value + 50, 2 * PLOTS + x, True))
        out.sort(key=lambda t: -t[0])
        return out

    def moves(self, depth: int, ply: int) -> list[int]:
        """Moves to search, best first: all at the root; below it the forcing ones plus the best
        ``width`` others, of which at most ``q_width`` quick blocks (``mid_width`` after a quick block)."""
        keyed = self.keyed_moves()
        if ply == 0:
            return [m for _, m, _ in keyed]
        width, q_width = (self.weights.mid_width, 0) if self.mid else (self.width, self.q_width)
        out, nq, n = [], 0, 0
        for _, m, forcing in keyed:
            if not forcing:
                if n >= width:
                    continue
                if m >= 2 * PLOTS:
                    if nq >= q_width:
                        continue
                    nq += 1
                n += 1
            out.append(m)
        return out


class Weights:
    """Evaluation weights and search widths (hundredths of a building)."""

    def __init__(self, **kw: float) -> None:
        self.building = 100.0
        self.sealed = 15.0
        self.threatened = 25.0
        self.height = 2.0
        self.centre = 8.0
        self.to_move_capture = 0.3
        self.roof_in_hand = 12.0
        self.quick_in_hand = 15.0
        self.width = 30
        self.q_width = 6
        self.mid_width = 30
        self.table = True
        for k, v in kw.items():
            if not hasattr(self, k):
                raise TypeError(k)
            setattr(self, k, v)


def turn_text(line: list[int]) -> str:
    """The first turn of a principal variation, in canonical notation."""
    first = line[0]
    parts = [first]
    if first >= 2 * PLOTS and len(line) > 1:
        parts.append(line[1])
    return " ".join(f"{KIND_LETTER[m // PLOTS]}@{SQUARE[m % PLOTS]}" for m in parts)


def _root_values(model: Model, roots: list[int], leaf: Callable[[Model], float]) -> list[tuple[float, list[int]]]:
    """One turn of look-ahead for every root placement: ``(value for the mover, the turn's placements)``.

    ``leaf(model)`` scores the position after the turn (player 0's view); a quick block is completed
    with its best second piece (every one is tried)."""
    sign = 1 if model.mover == 0 else -1
    out = []
    for m in roots:
        model.play(m)
        if model.mid:
            best = None
            for f in model.all_moves():
                model.play(f)
                v = sign * leaf(model)
                model.undo()
                if best is None or v > best[0]:
                    best = (v, [m, f])
            if best is not None:
                out.append(best)
        else:
            out.append((sign * leaf(model), [m]))
        model.undo()
    return out


def _leaf(model: Model) -> float:
    if model.terminal():
        w = model.outcome()
        return 0.0 if w < 0 else (WIN if w == 0 else -WIN)
    return model.evaluate()


def _count_leaf(model: Model) -> float:
    """Buildings on the board now (player 0's minus player 1's), ties to the centre's controller."""
    c0, c1 = model.counts()
    return 2 * (c0 - c1) + (0 if model.owner[CENTRE] < 0 else (1 if model.owner[CENTRE] == 0 else -1))


def choose(
    game: hk.HongKongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    naive: bool = False,
    deadline: float | None = None,
    weights: Weights | None = None,
) -> str:
    """The turn to play for ``game.to_move``, in canonical notation (see the module docstring).

    Args:
        game: a Hong Kong game that is not over; it is not changed.
        rng: seeded generator: breaks ties between equally good turns.
        nodes: node budget of the search (positions visited).
        depth: most turns to look ahead (a quick block and its second piece are one turn).
        naive: look one turn ahead and count only the buildings each player controls (ties: the
            centre), playing a random turn among the best (the easy level).
        deadline: ``time.perf_counter()`` value after which the search stops early (safety net).
    """
    return _decide(game, rng, nodes=nodes, depth=depth, naive=naive, deadline=deadline, weights=weights)[0]


#: How a search value (hundredths of a building, player 0's view) becomes a chance to win: the logistic
#: ``1 / (1 + exp(-value / CHANCE_SCALE))`` — one building ahead (100) is about a 78% chance, two about 92%.
CHANCE_SCALE = 80.0


def chance_of(value: float) -> float:
    """A player's chance to win (0–1) for a search value from their view: a forced result (``±WIN`` within
    the search's depth discount) is 1 or 0, a forced draw 0.5; otherwise the logistic of :data:`CHANCE_SCALE`."""
    if value >= WIN - 1000:
        return 1.0
    if value <= -WIN + 1000:
        return 0.0
    return 1.0 / (1.0 + math.exp(-max(-4000.0, min(4000.0, value)) / CHANCE_SCALE))


def assess(
    game: hk.HongKongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    deadline: float | None = None,
    move: str | None = None,
) -> tuple[str, float, float]:
    """Judge a position for post-game analysis (:mod:`engine.ai.analysis`): the turn the full search would play
    for ``game.to_move``, the mover's chance to win after it, and after ``move`` (a legal turn; None: the search's
    own), each 0–1 (:func:`chance_of` of the search's value).

    ``move`` is searched alone to the depth the search completed, so both chances come from searches of the same
    depth (comparing the searches of two successive positions would credit each player with what the search sees
    one turn later). Same arguments as :func:`choose` (never naive); reproducible while ``nodes`` runs out first.

    Raises:
        IllegalMove: ``move`` is not a legal turn here.
    """
    decided = _decide(game, rng, nodes=nodes, depth=depth, naive=False, deadline=deadline)

    def alone(move: str) -> tuple[Model, list[int]]:
        if move not in set(game.legal_moves()):
            raise IllegalMove(N_("{move} is not a legal turn here.", move=move))
        placements = [LETTER_KIND[p[0]] * PLOTS + SQUARE.index(p[2:]) for p in move.split()]
        model = Model(game, Weights())
        for first in placements[:-1]:  # a turn of two placements: its last is searched from after the first
            model.play(first)
        return model, placements[-1:]

    return judged(decided, game.to_move, move, chance_of, alone)


def _decide(
    game: hk.HongKongGame,
    rng: random.Random,
    *,
    nodes: int,
    depth: int,
    naive: bool,
    deadline: float | None,
    weights: Weights | None = None,
) -> tuple[str, float, int]:
    """:func:`choose`'s turn, the search's value of it (player 0's view; 0 when ``naive``) and the depth the search
    completed (0 when ``naive``)."""
    legal = set(game.legal_moves())
    model = Model(game, weights or Weights())
    keyed = model.keyed_moves()
    rng.shuffle(keyed)
    keyed.sort(key=lambda t: -t[0])
    roots = [m for _, m, _ in keyed]
    value, done = 0.0, 0
    if naive:
        scored = _root_values(model, roots, _count_leaf)
        top = max(v for v, _ in scored)
        near = [line for v, line in scored if v >= top]
        line = near[rng.randrange(len(near))]
    else:
        best, value, line, done = iterative_deepening(
            model, roots, nodes, depth, deadline=deadline, table=model.weights.table
        )
        # complete a quick block with its best second piece if the line stopped after it
        if line and line[0] >= 2 * PLOTS and len(line) < 2:
            model.play(line[0])
            follow = _root_values(model, model.all_moves(), _leaf)
            model.undo()
            follow.sort(key=lambda t: -t[0])
            line = [line[0]] + follow[0][1]
    text = turn_text(line)
    if text not in legal:  # the model and the engine disagree: never play an illegal move
        text = sorted(legal)[0]
    return text, value, done


if TYPE_CHECKING:  # this module is a computer opponent of the contract (engine/contract.py): mypy checks it here
    from engine.ai import hongkong as _module
    from engine.contract import Coach, Opponent

    _conforms: Opponent[hk.HongKongGame] = _module
    _coaches: Coach[hk.HongKongGame] = _module
