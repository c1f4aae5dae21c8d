"""Hong Kong (Reiner Knizia, Piatnik 1998/99): the rules engine.

Implements ``../shared/rules/hongkong.md`` exactly, rulings included. Two players (0 and 1) build on a
5×5 board of 25 plots. A building is the stack of pieces on one plot, controlled by the owner of its top
piece. Each player has 20 standard blocks (``S``), 5 quick blocks (``Q``) and 5 roofs (``R``).

Coordinates: columns ``A``–``E`` left to right, rows ``1``–``5`` top to bottom; ``A1`` is top-left,
``C3`` the centre. A plot index is ``row * 5 + column`` (0–24).

Notation: a placement is ``<piece>@<square>`` (``S@C3``); a turn is one placement of ``S`` or ``R``,
optionally preceded by a quick block: ``Q@B2 S@C3``, ``Q@B2 R@B2``. Input is case- and
whitespace-insensitive; :meth:`HongKongGame.legal_moves` and :attr:`HongKongGame.moves` use the
canonical form.

Usage::

    game = new_game(first=0)
    game.play("Q@B2 S@B3")
    game.legal_moves()      # every legal turn for the player to move
    game.pop()              # "Q@B2 S@B3": the turn is undone
    game.to_dict()          # JSON-serialisable; from_dict() restores it exactly
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import compress
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, SupportsIndex, overload

from engine import N_, IllegalMove, InvalidState, Term, n_, squares
from engine import truncate as _truncate

#: The game's name in the registry, in stored records and in ``to_dict()["game"]``.
NAME = "hongkong"

SIZE = 5
PLOTS = SIZE * SIZE
CENTRE = 12  # C3
MAX_PIECES = 5
COLUMNS = "ABCDE"

STANDARD, QUICK, ROOF = "S", "Q", "R"
PIECE_NAMES = {STANDARD: N_("standard block"), QUICK: N_("quick block"), ROOF: N_("roof")}
#: The refusal of a piece a player has none left of.
_NONE_LEFT = {
    STANDARD: N_("You have no standard blocks left: place a roof instead."),
    QUICK: N_("You have no quick blocks left."),
    ROOF: N_("You have no roofs left: place a standard block instead."),
}
#: Pieces each player starts with (rules: "Pieces").
START_PIECES = {STANDARD: 20, QUICK: 5, ROOF: 5}

#: Edge-adjacent plots of each plot.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        r * SIZE + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < SIZE and 0 <= c < SIZE
    )
    for row in range(SIZE)
    for col in range(SIZE)
)

_PLACEMENT = re.compile(r"^([SQR])@([A-E])([1-5])$")
# TRANSLATORS: S, Q, R and @ are the notation (standard block, quick block, roof); keep the examples as they are.
_NOTATION_HELP = N_(
    "A turn looks like S@C3, R@B2, Q@B2 S@C3 or Q@B2 R@B2 (piece S, Q or R, then @ and a square A1–E5)."
)


def square_name(plot: int) -> str:
    """``0`` → ``"A1"``, ``12`` → ``"C3"``, ``24`` → ``"E5"``."""
    return f"{COLUMNS[plot % SIZE]}{plot // SIZE + 1}"


def parse_square(text: str) -> int:
    """``"c3"``, ``" C 3 "``, ``"ｃ３"`` → plot index 12 (read by :func:`engine.squares.parse`, as in every game).

    Raises:
        IllegalMove: if ``text`` is not a square A1–E5; the message names a near miss ("Did you mean B3?").
    """
    col, row = squares.parse(text, SIZE, SIZE)
    return row * SIZE + col


def height_value(blocks: int, roofed: bool) -> int:
    """The rules' height order as one number: ``2 × blocks + (1 if roofed)``.

    ``N blocks < N blocks + roof < N+1 blocks`` (rules, placement rule 6).
    """
    return 2 * blocks + (1 if roofed else 0)


def describe_height(value: int) -> Term:
    """Height value → words: ``4`` → ``"2 blocks"``, ``5`` → ``"2 blocks + roof"``, ``1`` → ``"a roof"``."""
    blocks, roof = divmod(value, 2)
    if blocks == 0:
        return N_("a roof") if roof else N_("nothing")
    if roof:
        return n_("{count} block + roof", "{count} blocks + roof", blocks)
    return n_("{count} block", "{count} blocks", blocks)


# --- move generation: plot sets as bits ---------------------------------------------------------------
#
# A set of plots is an int with plot x at bit 24 - x, so ``bin()`` lists the plots in board order A1…E5. The single
# turns are a pair of such sets, 50 bits: standard blocks on the high 25, roofs on the low 25 (``legal_moves()``
# lists them in that order). The double turns are 1,250 bits: one block of 50 per quick-block plot, A1's highest,
# each laid out like the single turns. :func:`_single_texts` and :func:`_double_texts` turn a set of turns into their
# texts, in order, without a Python loop over the turns.
#
# Rule 6 is read from *level sets*: four pairs side by side (200 bits), the pair at bits 50 × (b - 1) standing for
# open buildings of b = 1…4 blocks (height value 2b). A player's *targets* are their open buildings, each in both
# halves of its own pair; a player's *capturers* are their buildings in every pair they are high enough for: in the
# high half where a block on b blocks would not top them (height value ≥ 2b + 2), in the low half where a roof would
# not (≥ 2b + 1). So the plots next to a player's capturers (one :func:`_next_to`), intersected with the opponent's
# targets and the four pairs folded into one, are the captures rule 6 allows. Both are kept with the player's
# buildings in one int, their *marks*, which a placement changes by one table look-up (:data:`_MARK`).

_BIT = tuple(1 << (PLOTS - 1 - x) for x in range(PLOTS))
_ALL = (1 << PLOTS) - 1
_PAIR = (1 << PLOTS) | 1  # plots × _PAIR: the same plots in both halves of a pair
_BOTH = _ALL * _PAIR
_CENTRE_BIT = _BIT[CENTRE]
_LEVELS = sum(_PAIR << (2 * PLOTS * i) for i in range(MAX_PIECES - 1))  # plots × _LEVELS: in all eight halves
_ROW_1, _ROW_5 = _ALL & ~(_ALL >> SIZE), _ALL >> (PLOTS - SIZE)
_COLUMN_A = sum(_BIT[x] for x in range(0, PLOTS, SIZE))
_COLUMN_E = sum(_BIT[x] for x in range(SIZE - 1, PLOTS, SIZE))
#: The plots that have a neighbour above, below, to the left and to the right (in every half of a level set).
_HAS_ABOVE, _HAS_BELOW = (_ALL & ~_ROW_1) * _LEVELS, (_ALL & ~_ROW_5) * _LEVELS
_HAS_LEFT, _HAS_RIGHT = (_ALL & ~_COLUMN_A) * _LEVELS, (_ALL & ~_COLUMN_E) * _LEVELS
#: A player's *marks*: their capturers (bits 0–199), their targets (200–399) and their buildings (400–424) in one
#: int, so that a placement changes them with one look-up in :data:`_MARK`.
_TARGETS_AT, _BUILDINGS_AT = 4 * 2 * PLOTS, 2 * 4 * 2 * PLOTS
#: Per plot, per height value 0–10: the marks of a building there (0 for none).
_MARK = tuple(
    tuple(
        0
        if h == 0
        else sum(
            ((_BIT[x] << PLOTS if h >= 2 * b + 2 else 0) | (_BIT[x] if h >= 2 * b + 1 else 0)) << (2 * PLOTS * (b - 1))
            for b in range(1, MAX_PIECES)
        )
        | ((_BIT[x] * _PAIR) << (PLOTS * (h - 2)) if h in (2, 4, 6, 8) else 0) << _TARGETS_AT
        | _BIT[x] << _BUILDINGS_AT
        for h in range(2 * MAX_PIECES + 1)
    )
    for x in range(PLOTS)
)
#: Where in the marks the pair of open buildings of four blocks is: a quick block there leaves no room for a second
#: piece.
_FOUR_BLOCKS_AT = _TARGETS_AT + 2 * PLOTS * (MAX_PIECES - 2)
_SINGLES = tuple(f"{kind}@{square_name(x)}" for kind in (STANDARD, ROOF) for x in range(PLOTS))
_DOUBLES = tuple(f"Q@{square_name(q)} {single}" for q in range(PLOTS) for single in _SINGLES)
#: Canonical turn text → (0 for a single turn, 1 for a double one; its bit among them; its placements).
_TURNS: dict[str, tuple[int, int, tuple[tuple[str, int], ...]]] = {
    **{text: (0, 49 - i, ((text[0], i % PLOTS),)) for i, text in enumerate(_SINGLES)},
    **{text: (1, 1249 - i, ((QUICK, i // 50), (text[5], i % PLOTS))) for i, text in enumerate(_DOUBLES)},
}
#: The single turns in six runs of 9, 8 and 8 bits (standard blocks, then roofs): per run, its bits → their texts.
_RUN_TEXT = tuple(
    tuple(tuple(_SINGLES[first + i] for i in range(width) if v >> (width - 1 - i) & 1) for v in range(1 << width))
    for first, width in ((0, 9), (9, 8), (17, 8), (25, 9), (34, 8), (42, 8))
)
#: A set of quick-block plots in three runs (A1–D2, E2–B4, C4–E5): per run, its bits → the lowest bit of each of
#: their blocks, so that single turns × it are the same turns after a quick block on any of them.
_SPREAD = tuple(
    tuple(
        sum(1 << (50 * (PLOTS - 1 - (first + i))) for i in range(width) if v >> (width - 1 - i) & 1)
        for v in range(1 << width)
    )
    for first, width in ((0, 9), (9, 8), (17, 8))
)
#: Per quick-block plot q: in q's block, the single turns on q itself (standard block and roof).
_SAME_PLOT = tuple((_BIT[q] * _PAIR) << (50 * (PLOTS - 1 - q)) for q in range(PLOTS))
#: Per plot n: ``(q's bit, q, turns)`` for each neighbour q: the double turns "quick block on q, then S or R on n".
_NEIGHBOUR_TURNS = tuple(
    tuple((_BIT[q], q, (_BIT[n] * _PAIR) << (50 * (PLOTS - 1 - q))) for q in NEIGHBOURS[n]) for n in range(PLOTS)
)
#: Single turns (50 bits) × _EVERY_BLOCK: the same turns after a quick block on any plot (1,250 bits).
_EVERY_BLOCK = sum(1 << (50 * j) for j in range(PLOTS))
_DOUBLES_TOP = 1 << len(_DOUBLES)
_TO_SELECTORS = bytes.maketrans(b"01", b"\x00\x01")


def _single_texts(turns: int) -> list[str]:
    """The texts of a set of single turns (50 bits), in order: six table look-ups."""
    r = _RUN_TEXT
    return [
        *r[0][turns >> 41],
        *r[1][turns >> 33 & 255],
        *r[2][turns >> 25 & 255],
        *r[3][turns >> 16 & 511],
        *r[4][turns >> 8 & 255],
        *r[5][turns & 255],
    ]


def _double_texts(turns: int) -> Iterator[str]:
    """The texts of a set of double turns (1,250 bits, not empty), in order.

    ``bin()`` writes the bits one character each, highest first (a bit above them all keeps the leading zeros);
    made into 0/1 bytes, they select from the texts (one pass in C, about 10 ns a turn: the floor of building the
    list)."""
    return compress(_DOUBLES, bin(turns | _DOUBLES_TOP)[3:].encode().translate(_TO_SELECTORS))


def _highest(bits: int, k: int, width: int) -> int:
    """The position of the ``k``-th highest set bit of ``bits`` (``k`` from 0; ``bits`` has at least ``k + 1``),
    counted from bit 0: a binary search on the counts above each position (``int.bit_count``, about log2 ``width``
    steps, each one pass in C)."""
    lo, hi = 0, width  # the answer p has (bits >> p).bit_count() > k, and (bits >> (p + 1)).bit_count() <= k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if (bits >> mid).bit_count() > k:
            lo = mid
        else:
            hi = mid
    return lo


class LegalTurns(Sequence[str]):
    """The legal turns of one position, in :meth:`HongKongGame.legal_moves`'s order, as an immutable sequence made
    from its sets of turns (bits) without writing the turns out: ``len()`` counts bits, ``turns[i]`` finds the i-th
    one (a binary search: :func:`_highest`), ``in`` tests one bit, and only iterating writes every turn (six table
    look-ups and one pass in C, see :func:`_single_texts`). So a random playout's ``rng.choice(legal_moves())``
    writes one turn, not 800. Equal to any sequence of the same turns in the same order (``== []`` once over).

    Raises (``turns[i]``): IndexError for ``i`` outside ``-len .. len - 1``; TypeError for an index that is not an
    int (or ``__index__``) or a slice. Not a list: no ``+``, ``*`` or JSON; ``list(turns)`` makes one.
    """

    __slots__ = ("_singles", "_doubles", "_count")

    def __init__(self, singles: int, doubles: int) -> None:
        self._singles, self._doubles = singles, doubles
        self._count = singles.bit_count()

    def __len__(self) -> int:
        return self._count + self._doubles.bit_count()

    @overload
    def __getitem__(self, index: SupportsIndex) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> str | list[str]:
        if isinstance(index, slice):
            return list(self)[index]
        i = operator.index(index)  # an int, or what stands for one (not 0.5)
        if i < 0:
            i += len(self)
        if i < 0:
            raise IndexError("turn index out of range")
        if i < self._count:
            return _SINGLES[49 - _highest(self._singles, i, 50)]
        i -= self._count
        if i >= self._doubles.bit_count():
            raise IndexError("turn index out of range")
        return _DOUBLES[len(_DOUBLES) - 1 - _highest(self._doubles, i, len(_DOUBLES))]

    def __iter__(self) -> Iterator[str]:
        yield from _single_texts(self._singles)
        if self._doubles:
            yield from _double_texts(self._doubles)

    def __contains__(self, turn: object) -> bool:
        known = _TURNS.get(str(turn)) if isinstance(turn, str) else None
        return known is not None and bool((self._doubles if known[0] else self._singles) >> known[1] & 1)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalTurns):
            return (self._singles, self._doubles) == (other._singles, other._doubles)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, like a list (typeshed marks list the same way)

    def __reduce__(self) -> tuple[Callable[[int, int], LegalTurns], tuple[int, int]]:
        return LegalTurns, (self._singles, self._doubles)

    def __repr__(self) -> str:
        return f"<LegalTurns {len(self)}: {', '.join(self[:3])}{', …' if len(self) > 3 else ''}>"


_NO_TURNS = LegalTurns(0, 0)


def _notation(placements: Iterable[tuple[str, int]]) -> str:
    """``[(kind, plot), ...]`` → the turn in canonical notation (``"Q@B2 S@C3"``)."""
    return " ".join(f"{kind}@{square_name(plot)}" for kind, plot in placements)


def _next_to(plots: int) -> int:
    """The plots edge-adjacent to at least one plot of ``plots`` (a set of plots, a pair of sets or a level set)."""
    return (
        ((plots << SIZE) & _HAS_BELOW)
        | ((plots >> SIZE) & _HAS_ABOVE)
        | ((plots >> 1) & _HAS_LEFT)
        | ((plots << 1) & _HAS_RIGHT)
    )


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: 0 or 1, or None for a draw.
        buildings: controlled buildings of player 0 and player 1.
        termination: ``"board full"`` or ``"pieces used"`` (the two end conditions).
        centre_decided: True when the counts were equal and the centre building C3 decided.
    """

    winner: int | None
    buildings: tuple[int, int]
    termination: str
    centre_decided: bool


@dataclass(frozen=True)
class TurnEvent:
    """One thing a turn did, found by comparing the positions before and after it (see
    :meth:`HongKongGame.last_turn_events`); the bot puts it in words.

    Attributes:
        kind: ``"capture"`` — ``player`` took the building on ``square`` from the other player;
            ``"seal"`` — ``player`` put a roof on ``square``: nothing more may be placed on that building;
            ``"lead"`` — ``player`` leads now in buildings (and did not before);
            ``"level"`` — the counts are equal now (they were not); ``player`` controls the centre C3, which
            decides a tie at the end, or is None (C3 empty);
            ``"centre"`` — the game ended level and the centre C3 decided it for ``player``.
        player: the player it concerns (see ``kind``), or None.
        square: the building's square (capture, seal), else None.
        buildings: the buildings each player controls after the turn (lead, level, centre), else None.
    """

    kind: str
    player: int | None
    square: str | None = None
    buildings: tuple[int, int] | None = None


def _leader(buildings: tuple[int, int]) -> int | None:
    return None if buildings[0] == buildings[1] else int(buildings[1] > buildings[0])


class HongKongGame:
    """One game of Hong Kong: the board, the pieces left, whose turn, the turns played.

    Attributes:
        first: the player (0 or 1) who moved first.
        stacks: 25 lists, one per plot (index ``row * 5 + column``), bottom piece first; each piece is
            a ``(player, kind)`` pair with kind ``"S"``, ``"Q"`` or ``"R"``.
        remaining: per player, a dict ``{"S": n, "Q": n, "R": n}`` of pieces not yet placed.
        moves: the turns played so far, canonical notation, in order (a turn is one entry).
        kind: ``"hongkong"`` (:data:`NAME`), the game's name in :mod:`engine.registry`.
        pending: always None: a Hong Kong turn is one move (the engine contract's field for an unfinished turn).

    Use :func:`new_game` or :func:`from_dict` to make one.

    Beside ``stacks`` the game keeps each plot's controller and height value, and sets of plots as bits (plot x
    is bit 24 - x): each player's buildings, the closed ones (roofed or five pieces), and each player's level sets
    for rule 6 (their open buildings as targets, their buildings as capturers; see the move generation notes above).
    They change with each placement by a few table look-ups, so :meth:`legal_moves` finds the plots a piece may go
    on with a few operations on whole sets.
    """

    __slots__ = (
        "first",
        "stacks",
        "remaining",
        "moves",
        "_to_move",
        "_owner",
        "_height",
        "_marks",
        "_closed",
        "_filled",
        "_left",
        "_legal",
    )

    kind = NAME
    pending = None

    def __init__(self, first: int = 0) -> None:
        if first not in (0, 1):
            raise IllegalMove("The first player must be 0 or 1.")
        self.first = first
        self.stacks: list[list[tuple[int, str]]] = [[] for _ in range(PLOTS)]
        self.remaining: list[dict[str, int]] = [dict(START_PIECES), dict(START_PIECES)]
        self.moves: list[str] = []
        self._to_move = first
        self._owner = [-1] * PLOTS  # controller of each plot, -1 for an empty one
        self._height = [0] * PLOTS  # height value of each plot: 2 × blocks + 1 if roofed (an open one: 2 × pieces)
        self._marks = [0, 0]  # each player's capturers, targets and buildings (see _MARK)
        self._closed = 0  # roofed, or five pieces: nothing more goes there
        self._filled = 0  # plots occupied
        self._left = 2 * (START_PIECES[STANDARD] + START_PIECES[ROOF])  # standard blocks and roofs not placed
        self._legal: tuple[int, int] | None = None  # legal_moves()'s single and double turns, until a change

    # --- state ------------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """The player (0 or 1) whose turn it is; after the end, the player who would have been next."""
        return self._to_move

    def controller(self, plot: int) -> int | None:
        """The player controlling the building on ``plot`` (owner of its top piece), or None if empty."""
        owner = self._owner[plot]
        return None if owner < 0 else owner

    def blocks(self, plot: int) -> int:
        """Number of blocks (standard and quick) in the building on ``plot``."""
        return self._height[plot] >> 1

    def roofed(self, plot: int) -> bool:
        """Whether the building on ``plot`` has a roof (always its top piece)."""
        return bool(self._height[plot] & 1)

    def height(self, plot: int) -> int:
        """The building's height value ``2 × blocks + (1 if roofed)`` (see :func:`height_value`)."""
        return self._height[plot]

    def buildings(self) -> tuple[int, int]:
        """Controlled buildings: ``(player 0's count, player 1's count)``."""
        return (self._marks[0] >> _BUILDINGS_AT).bit_count(), (self._marks[1] >> _BUILDINGS_AT).bit_count()

    @property
    def is_over(self) -> bool:
        """True once all 25 plots are occupied or both players have used every standard block and roof."""
        return self._filled == PLOTS or self._left == 0

    @property
    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` of a finished game, None while it goes on (rules: "Result")."""
        if not self.is_over:
            return None
        counts = self.buildings()
        termination = N_("board full") if self._filled == PLOTS else N_("pieces used")
        if counts[0] != counts[1]:
            return Outcome(0 if counts[0] > counts[1] else 1, counts, termination, False)
        return Outcome(self.controller(CENTRE), counts, termination, self.controller(CENTRE) is not None)

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is over and won; None for a draw or an unfinished game."""
        outcome = self.outcome
        return outcome.winner if outcome else None

    @property
    def last_turn_plots(self) -> tuple[int, ...]:
        """Plot indices the last turn placed on (one or two), empty before the first turn."""
        if not self.moves:
            return ()
        return tuple(dict.fromkeys(parse_square(p[2:]) for p in self.moves[-1].split()))

    def last_turn_events(self) -> list[TurnEvent]:
        """What the last turn did, in order: captures and seals on the plots it placed on (in placing order), then
        a change of lead (``"lead"`` or ``"level"``) while the game goes on, or — the game over and level — the
        centre deciding it. Derived from the positions before and after the turn; ``[]`` before the first turn.
        """
        if not self.moves:
            return []
        before = self.copy()
        before.pop()
        player = before.to_move
        events = []
        for plot in self.last_turn_plots:
            if before.controller(plot) == 1 - player and self.controller(plot) == player:
                events.append(TurnEvent("capture", player, square_name(plot)))
            if self.roofed(plot) and not before.roofed(plot):
                events.append(TurnEvent("seal", player, square_name(plot)))
        counts = self.buildings()
        outcome = self.outcome
        if outcome is not None:
            if outcome.centre_decided:
                events.append(TurnEvent("centre", outcome.winner, square_name(CENTRE), counts))
        elif _leader(counts) != _leader(before.buildings()):
            leader = _leader(counts)
            if leader is None:
                events.append(TurnEvent("level", self.controller(CENTRE), None, counts))
            else:
                events.append(TurnEvent("lead", leader, None, counts))
        return events

    def copy(self) -> "HongKongGame":
        """An independent copy (O(pieces placed)); it can :meth:`pop` the same turns."""
        other = HongKongGame.__new__(HongKongGame)
        other.first = self.first
        other.stacks = [list(s) for s in self.stacks]
        other.remaining = [dict(r) for r in self.remaining]
        other.moves = list(self.moves)
        other._to_move = self._to_move
        other._owner, other._height = list(self._owner), list(self._height)
        other._marks = list(self._marks)
        other._closed, other._filled, other._left = self._closed, self._filled, self._left
        other._legal = None  # found again on demand: a copy's play() checks every turn by the rules
        return other

    # --- rules ------------------------------------------------------------------------------------

    def _refusal(self, player: int, kind: str, plot: int, first_turn: bool) -> Term | None:
        """Why ``player`` may not put a ``kind`` piece on ``plot`` now, or None if they may.

        Implements placement rules 1–6 of the rules file, in order, against the board as it stands.
        """
        where = square_name(plot)
        piece = PIECE_NAMES[kind]
        if first_turn and plot == CENTRE:
            return N_("On the first player's first turn nothing may go on the centre plot C3. Choose another plot.")
        stack = self.stacks[plot]
        if not stack:
            return None
        if stack[-1][1] == ROOF:
            return N_("The building on {square} has a roof: nothing may be placed on a roof.", square=where)
        if len(stack) >= MAX_PIECES:
            return n_(
                "The building on {square} already has {count} piece, the most a building may have.",
                "The building on {square} already has {count} pieces, the most a building may have.",
                MAX_PIECES,
                square=where,
            )
        if stack[-1][0] == player:
            return None
        blocks = sum(1 for _, k in stack if k != ROOF)
        after = height_value(blocks + 1, False) if kind != ROOF else height_value(blocks, True)
        for n in NEIGHBOURS[plot]:
            if self.stacks[n] and self.stacks[n][-1][0] == player and self.height(n) >= after:
                return None
        # TRANSLATORS: {piece} is "standard block", "quick block" or "roof"; {height} e.g. "2 blocks + roof".
        return N_(
            "The building on {square} belongs to your opponent. To put a {piece} there you need a building of "
            "yours next to it (edge-adjacent) at least {height} high.",
            square=where,
            piece=piece,
            height=describe_height(after),
        )

    def _may(self, player: int, kind: str, plot: int, first_turn: bool) -> bool:
        """Whether :meth:`_refusal` would let ``player`` put a ``kind`` piece on ``plot`` (the same rules 1–6,
        read from the kept plot state instead of the stacks: the fast check of ``play``)."""
        if first_turn and plot == CENTRE:
            return False
        owner = self._owner[plot]
        if owner < 0:
            return True
        if self._closed & _BIT[plot]:
            return False
        if owner == player:
            return True
        height, owners = self._height, self._owner
        after = height[plot] + (1 if kind == ROOF else 2)  # an open building's height value is 2 × blocks
        return any(owners[n] == player and height[n] >= after for n in NEIGHBOURS[plot])

    def _check_piece(self, player: int, kind: str, plot: int, first_turn: bool) -> None:
        if self.remaining[player][kind] == 0:
            raise IllegalMove(_NONE_LEFT[kind])
        if not self._may(player, kind, plot, first_turn):
            raise IllegalMove(self._refusal(player, kind, plot, first_turn))

    def _put(self, player: int, kind: str, plot: int) -> None:
        """Place a piece (legality checked by the caller): on top of the stack, out of the player's hand; the
        plot's controller, height value and sets follow."""
        self.stacks[plot].append((player, kind))
        self.remaining[player][kind] -= 1
        bit, old, height = _BIT[plot], self._owner[plot], self._height[plot]
        mark = _MARK[plot]
        if old < 0:
            self._filled += 1
        else:
            self._marks[old] ^= mark[height]
        if kind == ROOF:
            height += 1
            self._left -= 1
            self._closed |= bit
        else:
            height += 2
            if kind == STANDARD:
                self._left -= 1
            if height == 2 * MAX_PIECES:
                self._closed |= bit
        self._marks[player] |= mark[height]
        self._owner[plot], self._height[plot] = player, height
        self._legal = None

    def _take(self, player: int, kind: str, plot: int) -> None:
        """Take the top piece of ``plot`` back into ``player``'s hand (undoing :meth:`_put`)."""
        stack = self.stacks[plot]
        stack.pop()
        self.remaining[player][kind] += 1
        bit, height = _BIT[plot], self._height[plot]
        mark = _MARK[plot]
        self._marks[player] ^= mark[height]
        if kind != QUICK:
            self._left += 1
        height -= 1 if kind == ROOF else 2
        self._closed &= ~bit  # what was under the top piece had no roof and at most four pieces
        owner = stack[-1][0] if stack else -1
        if owner < 0:
            self._filled -= 1
        else:
            self._marks[owner] |= mark[height]
        self._owner[plot], self._height[plot] = owner, height
        self._legal = None

    def _first_turn(self) -> bool:
        return not self.moves

    def parse(self, move: str) -> list[tuple[str, int]]:
        """Parse a turn into ``[(kind, plot), ...]`` (one or two placements) without checking legality.

        Raises:
            IllegalMove: if ``move`` is not in the notation of the rules file.
        """
        if not isinstance(move, str):
            raise IllegalMove(_NOTATION_HELP)
        # Accept "s @ c3", "Q@B2, S@C3" and full-width forms: spaces around '@', commas between placements.
        parts = re.sub(r"\s*@\s*", "@", squares.normal(move)).replace(",", " ").split()
        if not parts or len(parts) > 2:
            # TRANSLATORS: {text} is what the player typed; {help} says what a turn looks like.
            raise IllegalMove(N_("Can't read '{text}'. {help}", text=move.strip(), help=_NOTATION_HELP))
        placements = []
        for part in parts:
            m = _PLACEMENT.match(part)
            if not m:
                raise IllegalMove(N_("Can't read '{text}'. {help}", text=part, help=_NOTATION_HELP))
            placements.append((m.group(1), (int(m.group(3)) - 1) * SIZE + COLUMNS.index(m.group(2))))
        if len(placements) == 1 and placements[0][0] == QUICK:
            # TRANSLATORS: Q@{square} S@{square} is a turn in notation (Q@B2 S@B2).
            raise IllegalMove(
                N_(
                    "A quick block is never a turn on its own: follow it with a standard block or a "
                    "roof, e.g. Q@{square} S@{square}.",
                    square=square_name(placements[0][1]),
                )
            )
        if len(placements) == 2:
            if placements[0][0] != QUICK:
                # TRANSLATORS: {help} says what a turn looks like.
                raise IllegalMove(
                    N_("In a double move the first piece must be a quick block. {help}", help=_NOTATION_HELP)
                )
            if placements[1][0] == QUICK:
                raise IllegalMove(N_("A turn uses at most one quick block; the second piece must be S or R."))
        return placements

    def play(self, move: str) -> None:
        """Play one turn for the player to move.

        Args:
            move: a turn in the rules' notation (``S@C3``, ``R@B2``, ``Q@B2 S@C3``, ``Q@B2 R@B2``),
                case- and whitespace-insensitive.

        Raises:
            IllegalMove: if the game is over, the text is malformed, a piece is not available, or a
                placement breaks a rule. The message says why; the game is left exactly as it was.
        """
        if self._filled == PLOTS or self._left == 0:
            raise IllegalMove(N_("The game is over: no more turns can be played."))
        player = self._to_move
        known = _TURNS.get(move) if type(move) is str else None
        if known is not None and self._legal is not None and self._legal[known[0]] >> known[1] & 1:
            for kind, plot in known[2]:  # one of the turns legal_moves() found for this position
                self._put(player, kind, plot)
        else:
            placements = known[2] if known is not None else self.parse(move)
            move = _notation(placements)
            first_turn = not self.moves
            done: list[tuple[str, int]] = []
            try:
                for kind, plot in placements:
                    self._check_piece(player, kind, plot, first_turn)
                    self._put(player, kind, plot)
                    done.append((kind, plot))
            except IllegalMove:
                for kind, plot in reversed(done):
                    self._take(player, kind, plot)
                raise
        self.moves.append(move)
        self._to_move = 1 - player

    def _stack(self, move: str) -> None:
        """Put a recorded turn's pieces on their plots without the placement rules (``from_dict(replay=False)``);
        only what keeps the position whole is checked: the notation, the pieces in hand, no piece on a roof or on
        five pieces, no turn after the end.

        Raises:
            IllegalMove: one of those checks failed (the game is then half-loaded: the caller drops it).
        """
        if self._filled == PLOTS or self._left == 0:
            raise IllegalMove(N_("The game is over: no more turns can be played."))
        known = _TURNS.get(move)
        placements = known[2] if known is not None else self.parse(move)
        player = self._to_move
        for kind, plot in placements:
            if self.remaining[player][kind] == 0 or self._closed & _BIT[plot]:
                self._check_piece(player, kind, plot, False)  # raises: no such piece left, a roof, five pieces
            self._put(player, kind, plot)
        self.moves.append(move if known is not None else _notation(placements))
        self._to_move = 1 - player

    def pop(self) -> str:
        """Undo the last turn and return it (canonical notation), python-chess style.

        The pieces it placed go back to their owner's hand and the turn passes back, so the game is exactly as
        it was before that turn (``to_dict()``, stacks, pieces left, whose turn). Works on a finished game too.

        Raises:
            IndexError: no turn has been played.
        """
        if not self.moves:
            raise IndexError("No turn to undo: no turn has been played.")
        move = self.moves.pop()
        player = 1 - self._to_move
        for kind, plot in reversed(_TURNS[move][2]):
            self._take(player, kind, plot)
        self._to_move = player
        return move

    def truncate(self, n: int) -> list[str]:
        """Undo turns until ``n`` are left (``len(moves) == n``); returns the undone turns, oldest first.

        Raises:
            IndexError: ``n`` is negative or more than the turns played (nothing is undone then).
        """
        return _truncate(self, n)

    def _legal_plots(self, player: int, kind: str, first_turn: bool) -> Iterator[int]:
        if self.remaining[player][kind] == 0:
            return
        for plot in range(PLOTS):
            if self._may(player, kind, plot, first_turn):
                yield plot

    def _placeable(self, player: int) -> int:
        """The single turns ``player`` could play by placement rules 2–6 (a pair of plot sets: blocks, roofs; rule 1
        and the pieces in hand are the caller's).

        Empty plots and the player's own open buildings, plus the opponent's open buildings next to one of the
        player's at least as high as the result (rule 6): on ``b`` blocks (height value ``2b``) a block needs
        ``2b + 2``, a roof ``2b + 1``. For all ``b`` at once: the plots next to the player's capturers, within the
        opponent's targets, the four level pairs folded into one.
        """
        mine, theirs = self._marks[player], self._marks[1 - player]
        own = mine >> _BUILDINGS_AT
        captures = _next_to(mine) & theirs >> _TARGETS_AT  # _next_to's masks keep the capturers alone
        captures |= captures >> 100
        captures |= captures >> 50
        return ((_ALL ^ (own | theirs >> _BUILDINGS_AT)) | (own & ~self._closed)) * _PAIR | captures & _BOTH

    def legal_moves(self) -> LegalTurns:
        """Every legal turn for the player to move, canonical notation, no duplicates: an immutable sequence
        (:class:`LegalTurns`: ``len``, index, iterate, ``in``; a turn is written out only when read).

        Order: single placements (``S`` then ``R``, plots A1…E5), then double moves by quick-block plot.
        Empty once the game is over. At the start of a game there are exactly 1,200 (their sets are made once,
        when the module loads: the opening position is the same in every game).

        Generated on sets of turns (bits): the single turns from :meth:`_placeable`. A quick block on a plot q
        changes only q (now the player's, one block higher: a second piece still fits unless it had four blocks)
        and q's neighbours of the opponent (one with at most as many blocks as q had comes in reach), so the double
        turns are the single turns copied to every quick-block plot (one multiplication) and corrected there. The
        sets are kept until the position changes: :meth:`play` of a turn in them needs no further check.
        """
        if self._filled == PLOTS or self._left == 0:
            return _NO_TURNS
        if not self.moves and _OPENING_TURNS:  # (None while the module loads and makes it)
            self._legal = _OPENING_TURNS
            return LegalTurns(*_OPENING_TURNS)
        player = self._to_move
        hand = self.remaining[player]
        singles = self._placeable(player)
        if not self.moves:  # rule 1: the first turn keeps off the centre
            singles &= ~(_CENTRE_BIT * _PAIR)
        quick = singles >> PLOTS if hand[QUICK] else 0  # a quick block goes where a block may go
        in_hand = (_ALL << PLOTS if hand[STANDARD] else 0) | (_ALL if hand[ROOF] else 0)
        singles &= in_hand
        doubles = 0
        if quick and in_hand:
            spread = _SPREAD[0][quick >> 16] | _SPREAD[1][quick >> 8 & 255] | _SPREAD[2][quick & 255]
            doubles = singles * spread  # the single turns (pieces in hand) after a quick block on each plot q
            # q had four blocks: now five, closed to a second piece
            four = quick & (self._marks[0] | self._marks[1]) >> _FOUR_BLOCKS_AT
            while four:
                low = four & -four
                doubles &= ~_SAME_PLOT[PLOTS - low.bit_length()]
                four ^= low
            # the opponent's open buildings n next to q, as high as q or lower: q one block higher captures n
            near = self._marks[1 - player] >> _BUILDINGS_AT & ~self._closed & ~quick & _next_to(quick)
            height, captures = self._height, 0
            while near:
                low = near & -near
                n = PLOTS - low.bit_length()
                near ^= low
                for bit, q, turns in _NEIGHBOUR_TURNS[n]:
                    if quick & bit and height[q] >= height[n]:
                        captures |= turns
            if captures:
                doubles |= captures if in_hand == _BOTH else captures & in_hand * _EVERY_BLOCK
        self._legal = (singles, doubles)
        return LegalTurns(singles, doubles)

    def legal_squares(self, kind: str = STANDARD, quick: str | None = None) -> list[str]:
        """Squares where the player to move may put a ``kind`` piece now, after an optional quick block.

        Args:
            kind: ``"S"`` or ``"R"``.
            quick: a square for a quick block placed first, or None.

        Returns an empty list if the quick block itself is illegal or the game is over.
        """
        if self.is_over:
            return []
        player, first_turn = self._to_move, self._first_turn()
        if quick is None:
            return [square_name(p) for p in self._legal_plots(player, kind, first_turn)]
        try:
            q = parse_square(quick)
            self._check_piece(player, QUICK, q, first_turn)
        except IllegalMove:
            return []
        self._put(player, QUICK, q)
        try:
            return [square_name(p) for p in self._legal_plots(player, kind, first_turn)]
        finally:
            self._take(player, QUICK, q)

    # --- persistence ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable record: ``{"game": "hongkong", "first": 0|1, "moves": [str, ...]}``.

        The move list (one entry a turn) is the source of truth: :func:`from_dict` replays it.
        """
        return {"game": NAME, "first": self.first, "moves": list(self.moves)}

    def __repr__(self) -> str:
        return f"<HongKongGame first={self.first} moves={len(self.moves)} to_move={self._to_move} over={self.is_over}>"


#: The opening position's sets of legal turns (see :meth:`HongKongGame.legal_moves`).
_OPENING_TURNS: tuple[int, int] | None = None
_opening = HongKongGame(0)
_opening.legal_moves()
_OPENING_TURNS = _opening._legal
del _opening


def new_game(first: int = 0) -> HongKongGame:
    """A new game with an empty board; ``first`` (0 or 1) moves first.

    Raises:
        IllegalMove: if ``first`` is not 0 or 1.
    """
    return HongKongGame(first)


def from_dict(d: Mapping[str, Any], *, replay: bool = True) -> HongKongGame:
    """Restore a game saved by :meth:`HongKongGame.to_dict`.

    ``d`` is ``{"game": "hongkong", "first": 0|1, "moves": [str, ...]}``; nothing else is read (an older record
    that names its list ``"turns"`` is refused: the bot's record migration renames it).

    Args:
        replay: True (the default): every turn is played again and checked against the rules. False: the position
            the turns describe is loaded — each turn's pieces stacked on their plots in order, without the
            placement rules — for a record already known to be sound (the bot replays a game the first time it
            loads it, then loads it so); a few times faster. Its shape is still checked, so it never builds a broken
            position: every turn in notation, no piece on a roof or on five pieces, none a player does not have,
            no turn after the end.

    Raises:
        InvalidState: ``d`` is not a Hong Kong record, ``first`` or ``moves`` is missing or malformed, or a
            turn in it is illegal (the message names which).
    """
    if not isinstance(d, Mapping) or d.get("game") != NAME:
        raise InvalidState("This saved state is not a game of Hong Kong.")
    first, moves = d.get("first"), d.get("moves")
    if type(first) is not int or first not in (0, 1):
        raise InvalidState("This saved Hong Kong game is damaged: 'first' must be 0 or 1.")
    if not isinstance(moves, list) or not all(isinstance(t, str) for t in moves):
        raise InvalidState("This saved Hong Kong game is damaged: 'moves' must be a list of turns in notation.")
    game = HongKongGame(first)
    load = game.play if replay else game._stack
    for number, move in enumerate(moves, 1):
        try:
            load(move)
        except IllegalMove as e:
            raise InvalidState(f"This saved Hong Kong game is damaged: turn {number} ({move}) is illegal: {e}") from e
    return game


if TYPE_CHECKING:  # this module is a game of the contract (engine/contract.py): mypy checks it here
    from engine import hongkong as _module
    from engine.contract import GameModule

    _conforms: GameModule[HongKongGame] = _module
