"""Rules engine for Hong (Néstor Romeral Andrés), with the optional Lair of the Seven Great Dragons.

The rules this module implements are ``shared/rules/hong.md``; section names below refer to it.

Vocabulary
----------
* A **square** is a string such as ``"B3"``: column letter (``A`` is the left column) then row number
  (``1`` is the top row).
* A cell holds ``None`` (an empty space), ``"H"`` (a dragon tile with its segment west–east and heads
  north and south), ``"V"`` (segment north–south, heads west and east) or ``"S"`` (a stone).
* Player ``0`` is the **emperor** (moves first, wants few Hongs); player ``1`` is the **dragon master**.
* Moves use the rules' notation: a placement is ``"B3H"``; a dragon action is ``"D2 rotate C4"`` etc.
  Input is case- and whitespace-insensitive; :attr:`HongGame.moves` keeps the canonical form.

The state is plain data (a list of one-character strings, a few dicts and lists), so :meth:`HongGame.copy`
and :meth:`HongGame.to_dict` are cheap. Hongs are found by regular-expression scans of the rows and
columns (a few microseconds for a full castle board); created Hongs are found by scanning only the rows
and columns through the squares a move changed.
"""

from __future__ import annotations

import random
import json
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from engine import N_, IllegalMove, InvalidState, Term, n_, squares
from engine import truncate as _truncate

__all__ = [
    "ACTIONS",
    "ACTION_EXPLAINED",
    "ACTION_HELP",
    "BOARDS",
    "Board",
    "DRAGON_MASTER",
    "EMPEROR",
    "Hong",
    "HongGame",
    "MoveEvent",
    "NAME",
    "Outcome",
    "ROLE_NAMES",
    "Summon",
    "board_named",
    "dragon_action",
    "from_dict",
    "new_game",
    "parse_board",
    "square_name",
]

#: The game's name in the registry, in stored records and in ``to_dict()["game"]``.
NAME = "hong"

#: Player numbers.
EMPEROR = 0
DRAGON_MASTER = 1
#: Role names as shown to players, index = player number.
ROLE_NAMES: tuple[str, str] = (N_("emperor"), N_("dragon master"))

#: The seven Great Dragons' actions, in the rules' table order.
ACTIONS: tuple[str, ...] = ("rotate", "place", "movestone", "flip", "move", "stone", "swap")

#: What each Great Dragon's action does, one sentence, for players (rules, "Expansion" table).
ACTION_EXPLAINED: Mapping[str, str] = MappingProxyType(
    {
        "rotate": N_("Turn one dragon tile on the board to the other orientation (H ↔ V)."),
        "place": N_("Place one more dragon tile on an empty space, either orientation."),
        "movestone": N_("Move one stone to any empty space."),
        "flip": N_("Flip one dragon tile on the board to its stone side."),
        "move": N_(
            "Move one dragon tile, keeping its orientation, to an empty space next to it (north, south, east or west)."
        ),
        "stone": N_("Place a stone on any empty space."),
        "swap": N_("Exchange a dragon tile and a stone; the tile may take either orientation."),
    }
)
_HELP_EXAMPLE = {
    "rotate": "D2 rotate C4",
    "place": "D5 place C4V",
    "movestone": "D1 movestone D5 F6 (stone from D5 to F6)",
    "flip": "D3 flip C4",
    "move": "D7 move C4 C5",
    "stone": "D4 stone D7",
    "swap": "D6 swap C4 D5 V (tile C4 → D5 as V, stone D5 → C4)",
}
#: One-line explanation of each Great Dragon's action with an example, in English (:data:`ACTION_EXPLAINED`
#: without the example is what the bot translates).
ACTION_HELP: Mapping[str, str] = MappingProxyType(
    {action: f"{ACTION_EXPLAINED[action]} Example: {_HELP_EXAMPLE[action]}" for action in ACTIONS}
)

_EMPTY = "."
_NO_SPACE = "#"
_TILES = ("H", "V")
_STONE = "S"


# --------------------------------------------------------------------------------------------------
# Squares


square_name = squares.square_name  # the square at 0-based col/row: square_name(1, 2) == "B3"
_split_square = squares.split  # typed text → (col, row) or None; the one reader of both games (engine.squares)


# --------------------------------------------------------------------------------------------------
# Boards


@dataclass(frozen=True)
class Board:
    """A Hong board: which squares of a ``width`` × ``height`` grid are spaces.

    Attributes:
        name: ``"castle"``, ``"garden"``, ``"inner"`` or a custom name.
        width, height: grid size in squares (columns ``A``.., rows ``1``..).
        template: the grid as one row-major string of ``width * height`` characters, ``.`` a space,
            ``#`` no space.
        threshold: Hongs the dragon master needs at the end to win (rules, "Play").
        features: what the renderer should draw on some no-space squares: square → ``"pond"`` or
            ``"tree"`` (the garden's pond E5 and trees D3, F7). Squares not listed are plain gaps.
    """

    name: str
    width: int
    height: int
    template: str
    threshold: int
    features: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __reduce__(self) -> tuple[Callable[..., Board], tuple[object, ...]]:
        """Pickled with its features as a plain dict (a ``mappingproxy`` does not pickle), read-only again once
        unpickled: so a game pickles, e.g. to a worker process."""
        return _board, (self.name, self.width, self.height, self.template, self.threshold, dict(self.features))

    @property
    def spaces(self) -> frozenset[str]:
        """The set of squares that are spaces."""
        return frozenset(self.squares())

    def squares(self) -> list[str]:
        """The spaces in row-major order (row 1 left to right, then row 2, ...)."""
        w = self.width
        return [square_name(i % w, i // w) for i, ch in enumerate(self.template) if ch == _EMPTY]

    @property
    def space_count(self) -> int:
        """Number of spaces."""
        return self.template.count(_EMPTY)

    def index(self, square: str) -> int | None:
        """Row-major index of ``square`` if it is inside the grid (space or not), else ``None``."""
        pos = _split_square(square)
        if pos is None:
            return None
        c, r = pos
        if 0 <= c < self.width and 0 <= r < self.height:
            return r * self.width + c
        return None

    def is_space(self, square: str) -> bool:
        """Whether ``square`` is a space of this board."""
        i = self.index(square)
        return i is not None and self.template[i] == _EMPTY

    def describe_extent(self) -> Term:
        """``"columns A–I, rows 1–9"``: for error messages."""
        # TRANSLATORS: {column} is the last column letter (I), {rows} the last row number (9).
        return N_("columns A–{column}, rows 1–{rows}", column=chr(64 + self.width), rows=self.height)

    def to_text(self) -> str:
        """This board in the text format :func:`parse_board` reads (header lines, then a labelled grid)."""
        lines = [f"name: {self.name}", f"threshold: {self.threshold}"]
        for kind in ("pond", "tree"):
            sq = sorted((s for s, k in self.features.items() if k == kind), key=_square_key)
            if sq:
                lines.append(f"{kind}: {' '.join(sq)}")
        lines.append("   " + "".join(chr(65 + c) for c in range(self.width)))
        for r in range(self.height):
            lines.append(f"{r + 1:>2} " + self.template[r * self.width : (r + 1) * self.width])
        return "\n".join(lines)


def _board(name: str, width: int, height: int, template: str, threshold: int, features: dict[str, str]) -> Board:
    return Board(name, width, height, template, threshold, MappingProxyType(features))


def _square_key(square: str) -> tuple[int, int]:
    c, r = _split_square(square)  # type: ignore[misc]
    return r, c


_HEADER_RE = re.compile(r"^\s*(name|threshold|pond|ponds|tree|trees)\s*:\s*(.*?)\s*$", re.I)
_LABELLED_ROW_RE = re.compile(r"^\s*(\d{1,2})\s+([.#]+)\s*$")
_COLUMN_HEADER_RE = re.compile(r"^\s*[A-Z]+\s*$")
_BARE_ROW_RE = re.compile(r"^\s*([.#]+)\s*$")


def parse_board(
    text: str, *, name: str | None = None, threshold: int | None = None, features: Mapping[str, str] | None = None
) -> Board:
    """Read a board from the rules' text format.

    ``text`` may start with ``key: value`` lines — ``name``, ``threshold``, ``pond`` and ``trees``
    (squares separated by spaces) — followed by the grid: one line per row, ``.`` a space, ``#`` no space.
    The grid may be bare or labelled as in the rules (a column-letter header line and row numbers)::

        threshold: 11
           ABC
         1 .#.
         2 ...

    Keyword arguments override the header. Rows must all have the same width (1–26 columns, 1–99 rows).
    Pond and tree squares must be no-space squares (``#``).

    Raises:
        IllegalMove: the text is malformed, a row has the wrong width or number, there is no space,
            no threshold is given, or a feature is not on a ``#`` square.
    """
    meta: dict[str, Any] = {"features": {}}
    rows: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _HEADER_RE.match(line)
        if m and not rows:
            key, value = m.group(1).lower(), m.group(2)
            if key == "name":
                meta["name"] = value
            elif key == "threshold":
                if not value.isdigit():
                    raise IllegalMove(f"The board's threshold must be a whole number, not {value!r}.")
                meta["threshold"] = int(value)
            else:
                kind = "pond" if key.startswith("pond") else "tree"
                for sq in value.upper().split():
                    meta["features"][sq] = kind
            continue
        m = _LABELLED_ROW_RE.match(line)
        if m:
            if int(m.group(1)) != len(rows) + 1:
                raise IllegalMove(f"Board row {m.group(1)} is out of order: expected row {len(rows) + 1}.")
            rows.append(m.group(2))
            continue
        if _COLUMN_HEADER_RE.match(line) and not rows:
            continue
        m = _BARE_ROW_RE.match(line)
        if m:
            rows.append(m.group(1))
            continue
        raise IllegalMove(f"Cannot read board line {line.strip()!r}: use '.' for a space and '#' for no space.")
    if not rows:
        raise IllegalMove("The board text has no rows: use '.' for a space and '#' for no space.")
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise IllegalMove(f"Board row {i + 1} has {len(row)} squares but row 1 has {width}.")
    if width > 26 or len(rows) > 99:
        raise IllegalMove("A board can have at most 26 columns and 99 rows.")
    template = "".join(rows)
    if _EMPTY not in template:
        raise IllegalMove("The board has no space ('.') at all.")
    name = name if name is not None else meta.get("name", "custom")
    threshold = threshold if threshold is not None else meta.get("threshold")
    if threshold is None:
        raise IllegalMove("The board gives no threshold: add a line 'threshold: N' (Hongs the dragon master needs).")
    feats = dict(features) if features is not None else meta["features"]
    board = Board(name=name, width=width, height=len(rows), template=template, threshold=int(threshold), features={})
    clean: dict[str, str] = {}
    for sq, kind in feats.items():
        at = board.index(sq)
        if at is None or template[at] != _NO_SPACE:
            raise IllegalMove(f"The board's {kind} at {sq} must be on a '#' square of the grid.")
        if kind not in ("pond", "tree"):
            raise IllegalMove(f"Unknown board feature {kind!r} at {sq}: use 'pond' or 'tree'.")
        clean[sq.strip().upper()] = kind
    return Board(
        name=name,
        width=width,
        height=len(rows),
        template=template,
        threshold=int(threshold),
        features=MappingProxyType(clean),
    )


#: The boards as data, in the text format of the rules file (rules, "Boards").
CASTLE_TEXT = """\
name: castle
threshold: 15
   ABCDEFGHI
 1 ##.....##
 2 #.......#
 3 .........
 4 .........
 5 .........
 6 .........
 7 .........
 8 #.......#
 9 ##.....##
"""

GARDEN_TEXT = """\
name: garden
threshold: 13
pond: E5
trees: D3 F7
   ABCDEFGHI
 1 ##.....##
 2 #.......#
 3 ...#.....
 4 .........
 5 ....#....
 6 .........
 7 .....#...
 8 #.......#
 9 ##.....##
"""


def _inner_of(castle: Board) -> Board:
    """The castle's columns B–H and rows 2–8, relabelled A1–G7; threshold 11 (rules, "Boards")."""
    rows = [castle.template[r * castle.width + 1 : r * castle.width + 8] for r in range(1, 8)]
    return parse_board("\n".join(rows), name="inner", threshold=11, features={})


_CASTLE = parse_board(CASTLE_TEXT)
BOARDS: Mapping[str, Board] = MappingProxyType(
    {
        "castle": _CASTLE,
        "garden": parse_board(GARDEN_TEXT),
        "inner": _inner_of(_CASTLE),
    }
)


def board_named(name: str) -> Board:
    """The built-in board called ``name`` (case-insensitive).

    Raises:
        IllegalMove: no such board; the message names the valid ones.
    """
    key = str(name).strip().lower()
    if key not in BOARDS:
        # TRANSLATORS: {name} is what was typed (quoted); castle, garden and inner are the boards' names.
        raise IllegalMove(N_("There is no board called {name}: choose castle, garden or inner.", name=repr(name)))
    return BOARDS[key]


# --------------------------------------------------------------------------------------------------
# Hongs and other small results


@dataclass(frozen=True)
class Hong:
    """One Hong on the board (rules, "Hongs").

    Attributes:
        direction: ``"H"`` (a horizontal run of ``H`` tiles capped west and east by ``V`` tiles) or
            ``"V"`` (a vertical run of ``V`` tiles capped north and south by ``H`` tiles).
        cells: the squares of its segments, west to east or north to south.
        size: number of segments, ``len(cells)`` (1 or more).
        heads: the two cap squares, (west, east) or (north, south).
    """

    direction: str
    cells: tuple[str, ...]
    size: int
    heads: tuple[str, str]

    @property
    def squares(self) -> tuple[str, ...]:
        """Every square the Hong spans, head to head: ``heads[0], *cells, heads[1]``."""
        return (self.heads[0], *self.cells, self.heads[1])


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    Attributes:
        winner: ``DRAGON_MASTER`` (1) if ``hongs >= threshold``, else ``EMPEROR`` (0). Never a draw.
        hongs: Hongs on the board when the game ended, horizontal and vertical.
        threshold: what the dragon master needed.
        spaces_left: empty spaces when the game ended: 0 for a full board, more for a base game decided early
            (rules, "Play", ruling "Decided early").
    """

    winner: int
    hongs: int
    threshold: int
    spaces_left: int = 0

    def describe(self) -> Term:
        """``"Dragon master wins: 16 Hongs (needs 15)"``, ``"Emperor wins: 9 Hongs (needs 15)"``, or for a game
        decided early ``"Dragon master wins: 15 Hongs (needs 15), decided with 8 spaces left"``."""
        hongs = n_("{count} Hong", "{count} Hongs", self.hongs)
        if self.winner == DRAGON_MASTER:
            if self.spaces_left:
                return N_(
                    "Dragon master wins: {hongs} (needs {threshold}), decided with {spaces} left",
                    hongs=hongs,
                    threshold=self.threshold,
                    spaces=n_("{count} space", "{count} spaces", self.spaces_left),
                )
            return N_("Dragon master wins: {hongs} (needs {threshold})", hongs=hongs, threshold=self.threshold)
        if self.spaces_left:
            return N_(
                "Emperor wins: {hongs} (needs {threshold}), decided with {spaces} left",
                hongs=hongs,
                threshold=self.threshold,
                spaces=n_("{count} space", "{count} spaces", self.spaces_left),
            )
        return N_("Emperor wins: {hongs} (needs {threshold})", hongs=hongs, threshold=self.threshold)


@dataclass(frozen=True)
class Summon:
    """A pending summon of a Great Dragon (rules, "Expansion").

    Attributes:
        player: who summons (and so is still to move).
        options: Hong size → that dragon's action, for every size the player may choose from now
            (only dragons still in the lair whose action can be carried out).
    """

    player: int
    options: Mapping[int, str]

    def __reduce__(self) -> tuple[Callable[[int, Mapping[int, str]], Summon], tuple[int, Mapping[int, str]]]:
        """Pickled with its options as a plain dict (a ``mappingproxy`` does not pickle), read-only again."""
        return _summon, (self.player, dict(self.options))

    @property
    def sizes(self) -> tuple[int, ...]:
        """The available sizes, ascending."""
        return tuple(sorted(self.options))


def _summon(player: int, options: Mapping[int, str]) -> Summon:
    return Summon(player, MappingProxyType(dict(options)))


@dataclass(frozen=True)
class MoveEvent:
    """One thing a move did, found by comparing the positions before and after it (see
    :meth:`HongGame.last_move_events`); the bot puts it in words.

    Attributes:
        kind: ``"hong"`` — the move made ``hong`` (rules: "created"); ``"broken"`` — a dragon's action undid
            ``hong``; ``"decided"`` — without the expansion the count reached the threshold with ``spaces_left``
            empty spaces: nothing can undo a Hong, so the dragon master has won (ruling "Decided early").
        hong: the Hong made or broken, else None.
        dragon: for ``"hong"`` with the expansion: the action of the Great Dragon this Hong summons now (its size's
            dragon waits in the lair and can act), else None.
        hongs: the Hong count after the move; ``threshold``: what the dragon master needs.
        spaces_left: empty spaces after the move.
    """

    kind: str
    hong: Hong | None
    dragon: str | None
    hongs: int
    threshold: int
    spaces_left: int


# --------------------------------------------------------------------------------------------------
# Notation

_PLACEMENT_RE = re.compile(r"([A-Z])(\d{1,2})([A-Z]?)")
_ACTION_RE = re.compile(r"D(\d+)\s+([A-Z]+)\s*(.*)")
# "D2 rotate ...": a size and an action word (not "D4 H"), or an action word alone (the size forgotten)
_ACTION_START_RE = re.compile(r"D\d+\s*[A-Z]{4,}|(?:%s)\b" % "|".join(a.upper() for a in ACTIONS))
#: What each action takes after ``D<size> <action>`` (the syntax shown to players).
# TRANSLATORS: the words between < > name what a dragon action takes; keep the < >, and H|V (orientations).
_ACTION_ARGS = {
    "rotate": N_("<tile>"),
    "place": N_("<empty space><H|V>"),
    "movestone": N_("<stone> <empty space>"),
    "flip": N_("<tile>"),
    "move": N_("<tile> <empty space next to it>"),
    "stone": N_("<empty space>"),
    "swap": N_("<tile> <stone> <H|V>"),
}
#: A fixed example of each action, for when the position offers none (see ``HongGame._action_usage``).
_ACTION_EXAMPLE = {
    "rotate": "rotate C4",
    "place": "place C4V",
    "movestone": "movestone D5 F6",
    "flip": "flip C4",
    "move": "move C4 C5",
    "stone": "stone D7",
    "swap": "swap C4 D5 V",
}
_H_RE = re.compile(r"(?<=V)H+(?=V)")
_V_RE = re.compile(r"(?<=H)V+(?=H)")


# --------------------------------------------------------------------------------------------------
# The game


#: One entry of a game's undo history (see :meth:`HongGame._apply`): the changed cells' old contents, the summoned
#: dragon taken from the lair (size, action), and the old ``to_move``, ``pending``, ``last_changed``,
#: ``last_created``, ``_decided`` and ``_empty``.
_Undo = tuple[
    tuple[tuple[int, str], ...],
    tuple[int, str] | None,
    int,
    Summon | None,
    tuple[str, ...],
    tuple[Hong, ...],
    bool,
    int,
]


class HongGame:
    """A game of Hong in progress (or over).

    Create with :func:`new_game` or :func:`from_dict`; change only with :meth:`play` and :meth:`pop` (undo,
    also :meth:`truncate`).

    Attributes:
        board: the :class:`Board`.
        seed: the seed the setup was drawn from (an ``int``; stored even when chosen at random).
        stones: the three setup stones' squares, in the order drawn (stones may later move or be
            added by dragons: read :attr:`cells` for where they are now).
        expansion: whether the Lair of the Seven Great Dragons is in play.
        lair_setup: size (1–7) → action as dealt at setup (empty without the expansion).
        lair: size → action for the Great Dragons still waiting in the lair.
        moves: every placement and dragon action played, canonical notation, in order.
        to_move: 0 (emperor) or 1 (dragon master). During a pending summon, the summoning player.
        pending: the :class:`Summon` waiting to be carried out, or ``None``.
        last_changed: squares changed by the last :meth:`play` (placement or action), for highlighting.
        last_created: Hongs created by the last :meth:`play`.
        kind: ``"hong"`` (:data:`NAME`), the game's name in :mod:`engine.registry`.
    """

    __slots__ = (
        "board",
        "seed",
        "stones",
        "expansion",
        "lair_setup",
        "lair",
        "moves",
        "to_move",
        "pending",
        "last_changed",
        "last_created",
        "_grid",
        "_empty",
        "_decided",
        "_undo",
    )

    kind = NAME

    def __init__(self, board: Board, seed: int, stones: tuple[str, ...], expansion: bool, lair_setup: dict[int, str]):
        self.board = board
        self.seed = seed
        self.stones = tuple(stones)
        self.expansion = expansion
        self.lair_setup = dict(lair_setup)
        self.lair = dict(lair_setup)
        self.moves: list[str] = []
        self.to_move = EMPEROR
        self.pending: Summon | None = None
        self.last_changed: tuple[str, ...] = ()
        self.last_created: tuple[Hong, ...] = ()
        self._grid = list(board.template)
        for sq in self.stones:
            self._grid[board.index(sq)] = _STONE  # type: ignore[index]
        self._empty = self._grid.count(_EMPTY)
        self._decided = self._reached_threshold()
        #: One entry per move played (see :meth:`_apply`), newest last: what :meth:`pop` restores.
        self._undo: list[_Undo] = []

    # ---- reading the position -----------------------------------------------------------------

    @property
    def threshold(self) -> int:
        """Hongs the dragon master needs (the board's threshold)."""
        return self.board.threshold

    def cell(self, square: str) -> str | None:
        """What is on ``square``: ``None`` (empty), ``"H"``, ``"V"`` or ``"S"`` (stone).

        Raises:
            IllegalMove: ``square`` is not a space of this board.
        """
        return self._content(self._space_index(square.strip().upper()))

    @property
    def cells(self) -> dict[str, str | None]:
        """Every space → its content (``None``, ``"H"``, ``"V"`` or ``"S"``), row-major order."""
        w = self.board.width
        return {
            square_name(i % w, i // w): (None if ch == _EMPTY else ch)
            for i, ch in enumerate(self._grid)
            if ch != _NO_SPACE
        }

    def rows(self) -> list[str]:
        """The grid as strings, one per row: ``.`` empty, ``#`` no space, ``H``, ``V``, ``S``."""
        w = self.board.width
        return ["".join(self._grid[r * w : (r + 1) * w]) for r in range(self.board.height)]

    def empty_squares(self) -> list[str]:
        """The empty spaces, row-major."""
        w = self.board.width
        return [square_name(i % w, i // w) for i, ch in enumerate(self._grid) if ch == _EMPTY]

    @property
    def is_over(self) -> bool:
        """True once every space is filled and the turn (with every dragon action) is done — or, without the
        expansion, once the Hong count has reached the threshold (rules, "Play", ruling "Decided early")."""
        return (self._empty == 0 or self._decided) and self.pending is None

    def _reached_threshold(self) -> bool:
        """Without the expansion, whether the count has reached the threshold: nothing can undo a Hong then."""
        return not self.expansion and self.hong_count() >= self.threshold

    @property
    def winner(self) -> int | None:
        """0 (emperor) or 1 (dragon master) once the game is over; ``None`` before. Never a draw."""
        return self.outcome.winner if self.is_over else None  # type: ignore[union-attr]

    @property
    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` once the game is over, else ``None`` (rules, "Play")."""
        if not self.is_over:
            return None
        n = self.hong_count()
        return Outcome(
            winner=DRAGON_MASTER if n >= self.threshold else EMPEROR,
            hongs=n,
            threshold=self.threshold,
            spaces_left=self._empty,
        )

    def hongs(self) -> list[Hong]:
        """Every Hong on the board: horizontal ones row by row (west to east), then vertical ones
        column by column (north to south). Rules, "Hongs"."""
        return self._scan(range(self.board.height), range(self.board.width))

    def hong_count(self) -> int:
        """``len(self.hongs())``, computed without building the Hongs."""
        g, w, h = self._grid, self.board.width, self.board.height
        rows = "#".join("".join(g[r * w : (r + 1) * w]) for r in range(h))
        cols = "#".join("".join(g[c::w]) for c in range(w))
        return len(_H_RE.findall(rows)) + len(_V_RE.findall(cols))

    def last_move_events(self) -> list[MoveEvent]:
        """What the last move (a placement or a dragon action) did: the Hongs it broke, the Hongs it made (each with
        the dragon it summons, if any), and whether that decided the game early. Derived from the positions before
        and after the move; ``[]`` before the first move or when a move changed no Hong.
        """
        if not self._undo:
            return []
        before = self.copy()
        before.pop()
        old, new = set(before.hongs()), self.hongs()
        count, left = len(new), self._empty
        summons = self.pending.options if self.pending is not None else {}
        events = [
            MoveEvent("broken", h, None, count, self.threshold, left) for h in before.hongs() if h not in set(new)
        ]
        events += [MoveEvent("hong", h, summons.get(h.size), count, self.threshold, left) for h in new if h not in old]
        if self._decided and not before._decided:
            events.append(MoveEvent("decided", None, None, count, self.threshold, left))
        return events

    # ---- moves ----------------------------------------------------------------------------------

    def legal_moves(self) -> list[str]:
        """Every legal move now, canonical notation; ``[]`` when the game is over.

        Without a pending summon: placements sorted by row, then column, ``H`` before ``V``
        (``["C1H", "C1V", "D1H", ...]``). During a pending summon: the dragon actions, by size, then
        by the action's squares row-major (the first argument first), ``H`` before ``V``.
        """
        if self.is_over:
            return []
        if self.pending is not None:
            out: list[str] = []
            for size in self.pending.sizes:
                out.extend(self._action_moves(size, self.pending.options[size]))
            return out
        out = []
        for sq in self.empty_squares():
            out.append(sq + "H")
            out.append(sq + "V")
        return out

    def play(self, move: str) -> None:
        """Play ``move`` for the player to move: a placement ``"B3H"`` or, while a summon is pending,
        a dragon action ``"D2 rotate C4"`` (rules, "Play", "Expansion" and "Notation").

        After a placement or action the Hongs it created are compared with the lair; if a dragon can
        be summoned, :attr:`pending` is set and the same player moves again. Otherwise the turn ends:
        :attr:`to_move` passes to the other player, unless the board is full, which ends the game.

        Raises:
            IllegalMove: the move is malformed or illegal now; the game is then unchanged.
        """
        if not isinstance(move, str):
            raise IllegalMove(N_("A move must be text such as C4H, not {move}.", move=repr(move)))
        text = _read(move)
        if self.is_over:
            # TRANSLATORS: {outcome} is e.g. "Emperor wins: 9 Hongs (needs 15)".
            outcome = self.outcome.describe()  # type: ignore[union-attr]
            raise IllegalMove(N_("The game is over — {outcome}.", outcome=outcome))
        if _ACTION_START_RE.match(text):
            self._play_action(text, move)
            return
        self._play_placement(text.replace(" ", ""), move)

    # ---- placements ---------------------------------------------------------------------------

    def _play_placement(self, text: str, raw: str) -> None:
        m = _PLACEMENT_RE.fullmatch(text)
        if not m:
            # TRANSLATORS: {move} is what the player typed (quoted); {example} a placement such as C4H.
            raise IllegalMove(
                N_(
                    "{move} is not a move: write a square then H or V, e.g. {example} (H: body "
                    "west–east, heads north and south; V: body north–south, heads west and east).",
                    move=repr(raw.strip()),
                    example=self._example_placement(),
                )
            )
        square = m.group(1) + str(int(m.group(2)))
        orient = m.group(3)
        if self.pending is not None:
            raise IllegalMove(self._pending_refusal())
        i = self._space_index(square)
        if self._grid[i] != _EMPTY:
            what = N_("a stone") if self._grid[i] == _STONE else N_("a dragon tile ({tile})", tile=self._grid[i])
            # TRANSLATORS: {square} and {example} are squares such as B3; {what} is "a stone" or "a dragon tile (H)".
            raise IllegalMove(
                N_(
                    "{square} is already taken by {what} — pick an empty space such as {example}.",
                    square=square,
                    what=what,
                    example=self._example_square(),
                )
            )
        if orient not in _TILES:
            if not orient:
                # TRANSLATORS: {square} is a square such as B3 (B3H and B3V are placements).
                raise IllegalMove(
                    N_(
                        "Say which way the tile lies: {square}H (body west–east) or {square}V (body north–south).",
                        square=square,
                    )
                )
            # TRANSLATORS: {orientation} is what the player typed (quoted); {square} a square such as B3.
            raise IllegalMove(
                N_(
                    "{orientation} is not an orientation: use {square}H (body west–east) or "
                    "{square}V (body north–south).",
                    orientation=repr(orient),
                    square=square,
                )
            )
        self._apply([(i, orient)], square + orient)

    # ---- dragon actions -------------------------------------------------------------------------

    def _play_action(self, text: str, raw: str) -> None:
        m = _ACTION_RE.fullmatch(text)
        if not self.expansion:
            # TRANSLATORS: {move} is what the player typed (quoted); {example} a placement such as C4H.
            raise IllegalMove(
                N_(
                    "{move}: this game is played without the lair of the Great Dragons — place a tile "
                    "such as {example}.",
                    move=repr(raw.strip()),
                    example=self._example_placement(),
                )
            )
        if self.pending is None:
            raise IllegalMove(
                N_(
                    "No Great Dragon is being summoned now — place a tile such as {example}.",
                    example=self._example_placement(),
                )
            )
        opts = self.pending.options
        if not m:
            word = text.split()[0].lower()
            sizes = [s for s, a in sorted(opts.items()) if a == word]
            if sizes:  # the action named, its dragon's size forgotten: "swap G7 B3 H"
                # TRANSLATORS: {usage} is e.g. "D1 swap <tile> <stone> <H|V>, e.g. D1 swap C3 C6 V".
                raise IllegalMove(N_("Say which dragon first: {usage}.", usage=self._action_usage(sizes[0], word)))
            # TRANSLATORS: {move} is what the player typed (quoted); keep D<size> <action> as notation;
            # {choices} is one or more dragon usages, e.g. "D2 rotate <tile>, e.g. D2 rotate C4".
            raise IllegalMove(
                N_(
                    "{move} is not a dragon action: write D<size> <action> then its squares. You can summon {choices}.",
                    move=repr(raw.strip()),
                    choices=self._summon_choices(),
                )
            )
        size, action, args = int(m.group(1)), m.group(2).lower(), m.group(3).split()
        if size not in opts:
            raise IllegalMove(
                N_(
                    "The dragon of size {size} is not being summoned now — you can summon {choices}.",
                    size=size,
                    choices=self._summon_choices(),
                )
            )
        if action != opts[size]:
            # TRANSLATORS: {action} is the dragon's action (notation, e.g. rotate); {typed} what the player typed.
            raise IllegalMove(
                N_(
                    "The dragon of size {size} does {action}, not {typed}: {usage}.",
                    size=size,
                    action=opts[size],
                    typed=repr(action),
                    usage=self._action_usage(size, opts[size]),
                )
            )
        changes, canonical = self._check_action(size, action, args)
        self._apply(changes, canonical, dragon=size)

    def _action_usage(self, size: int, action: str) -> Term:
        """``"D1 swap <tile> <stone> <H|V>, e.g. D1 swap C3 C6 V"``: the syntax, and a legal example from this
        position (a fixed one only if the action has no legal way now)."""
        legal = self._action_moves(size, action)
        example = legal[0] if legal else f"D{size} {_ACTION_EXAMPLE[action]}"
        # TRANSLATORS: {action} is notation (rotate, swap …); {args} what it takes, e.g. "<tile> <stone> <H|V>";
        # {example} a whole action such as "D1 swap C3 C6 V".
        return N_(
            "D{size} {action} {args}, e.g. {example}",
            size=size,
            action=action,
            args=_ACTION_ARGS[action],
            example=example,
        )

    def _summon_choices(self) -> Term:
        """Every dragon of the pending summon with its syntax and a legal example, ``" or "``-joined."""
        assert self.pending is not None
        usages = [self._action_usage(s, a) for s, a in sorted(self.pending.options.items())]
        choices = usages[0]
        for usage in usages[1:]:
            # TRANSLATORS: two alternatives (dragon actions); a longer list is made of this one, nested.
            choices = N_("{first} or {second}", first=choices, second=usage)
        return choices

    def _check_action(self, size: int, action: str, args: list[str]) -> tuple[list[tuple[int, str]], str]:
        """Validate a dragon action's arguments; return the cell changes and the canonical notation."""
        usage = self._action_usage(size, action)

        def need(n: int) -> None:
            if len(args) != n:
                # TRANSLATORS: {action} is notation (rotate …); {args} e.g. "<tile> <stone> <H|V>"; {usage} its usage.
                raise IllegalMove(
                    N_("{action} takes {args}: {usage}.", action=action, args=_ACTION_ARGS[action], usage=usage)
                )

        def sq(text: str) -> tuple[str, int]:
            pos = _split_square(text)
            if pos is None:
                near = squares.suggest(text, self.board.width, self.board.height)
                if near:
                    # TRANSLATORS: {text} is what the player typed (quoted); {usage} the dragon's usage; {near} a
                    # square.
                    raise IllegalMove(
                        N_(
                            "{text} is not a square — {usage}. Did you mean {near}?",
                            text=repr(text),
                            usage=usage,
                            near=near,
                        )
                    )
                raise IllegalMove(N_("{text} is not a square — {usage}.", text=repr(text), usage=usage))
            name = square_name(*pos)
            return name, self._space_index(name)

        def tile_at(text: str) -> tuple[str, int]:
            name, i = sq(text)
            if self._grid[i] not in _TILES:
                what = N_("empty") if self._grid[i] == _EMPTY else N_("a stone")
                # TRANSLATORS: {square} and {example} are squares; {what} is "empty" or "a stone"; {action} notation.
                raise IllegalMove(
                    N_(
                        "{square} is {what}, not a dragon tile — {action} needs a dragon tile such as {example}.",
                        square=name,
                        what=what,
                        action=action,
                        example=self._example_of(_TILES),
                    )
                )
            return name, i

        def stone_at(text: str) -> tuple[str, int]:
            name, i = sq(text)
            if self._grid[i] != _STONE:
                what = N_("empty") if self._grid[i] == _EMPTY else N_("a dragon tile")
                # TRANSLATORS: {square} and {example} are squares; {what} is "empty" or "a dragon tile"; {action}
                # is notation (movestone, swap).
                raise IllegalMove(
                    N_(
                        "{square} is {what}, not a stone — {action} needs a stone such as {example}.",
                        square=name,
                        what=what,
                        action=action,
                        example=self._example_of((_STONE,)),
                    )
                )
            return name, i

        def empty_at(text: str) -> tuple[str, int]:
            name, i = sq(text)
            if self._grid[i] != _EMPTY:
                raise IllegalMove(
                    N_(
                        "{square} is already taken — {action} needs an empty space such as {example}.",
                        square=name,
                        action=action,
                        example=self._example_square(),
                    )
                )
            return name, i

        def orientation(text: str) -> str:
            if text not in _TILES:
                raise IllegalMove(
                    N_(
                        "{text} is not an orientation: use H (body west–east) or V (body north–south) — {usage}.",
                        text=repr(text),
                        usage=usage,
                    )
                )
            return text

        head = f"D{size} {action}"
        if action in ("rotate", "flip"):
            need(1)
            name, i = tile_at(args[0])
            new = _STONE if action == "flip" else ("V" if self._grid[i] == "H" else "H")
            return [(i, new)], f"{head} {name}"
        if action == "place":
            if len(args) == 2 and args[1] in _TILES:
                args = [args[0] + args[1]]
            need(1)
            m = _PLACEMENT_RE.fullmatch(args[0])
            if not m:
                raise IllegalMove(N_("place takes an empty space and an orientation: {usage}.", usage=usage))
            name, i = empty_at(m.group(1) + m.group(2))
            orient = orientation(m.group(3))
            return [(i, orient)], f"{head} {name}{orient}"
        if action == "stone":
            need(1)
            name, i = empty_at(args[0])
            return [(i, _STONE)], f"{head} {name}"
        if action == "movestone":
            need(2)
            a, i = stone_at(args[0])
            b, j = empty_at(args[1])
            return [(i, _EMPTY), (j, _STONE)], f"{head} {a} {b}"
        if action == "move":
            need(2)
            a, i = tile_at(args[0])
            b, j = empty_at(args[1])
            if j not in self._neighbours(i):
                # TRANSLATORS: {to} and {square} are squares; "move" is notation (the dragon action).
                raise IllegalMove(
                    N_(
                        "{to} is not next to {square}: move takes a tile to an empty space north, south, "
                        "east or west of it.",
                        to=b,
                        square=a,
                    )
                )
            return [(i, _EMPTY), (j, self._grid[i])], f"{head} {a} {b}"
        if action == "swap":
            need(3)
            a, i = tile_at(args[0])
            b, j = stone_at(args[1])
            orient = orientation(args[2])
            return [(i, _STONE), (j, orient)], f"{head} {a} {b} {orient}"
        raise AssertionError(action)  # pragma: no cover - actions come from the lair

    def _action_moves(self, size: int, action: str) -> list[str]:
        """Every legal notation for ``action`` as the dragon of ``size`` (see :meth:`legal_moves`)."""
        g, w = self._grid, self.board.width
        names = [square_name(i % w, i // w) for i in range(len(g))]
        tiles = [i for i, ch in enumerate(g) if ch in _TILES]
        stones = [i for i, ch in enumerate(g) if ch == _STONE]
        empties = [i for i, ch in enumerate(g) if ch == _EMPTY]
        head = f"D{size} {action}"
        if action in ("rotate", "flip"):
            return [f"{head} {names[i]}" for i in tiles]
        if action == "place":
            return [f"{head} {names[i]}{o}" for i in empties for o in _TILES]
        if action == "stone":
            return [f"{head} {names[i]}" for i in empties]
        if action == "movestone":
            return [f"{head} {names[i]} {names[j]}" for i in stones for j in empties]
        if action == "move":
            return [f"{head} {names[i]} {names[j]}" for i in tiles for j in self._neighbours(i) if g[j] == _EMPTY]
        if action == "swap":
            return [f"{head} {names[i]} {names[j]} {o}" for i in tiles for j in stones for o in _TILES]
        raise AssertionError(action)  # pragma: no cover

    def _action_possible(self, action: str) -> bool:
        """Whether ``action`` has at least one legal way to be carried out now (rules: a dragon whose
        action is impossible is not summoned)."""
        g = self._grid
        has_tile = "H" in g or "V" in g
        if action in ("rotate", "flip"):
            return has_tile
        if action in ("place", "stone"):
            return self._empty > 0
        if action == "movestone":
            return self._empty > 0 and _STONE in g
        if action == "swap":
            return has_tile and _STONE in g
        if action == "move":
            return self._empty > 0 and any(
                g[j] == _EMPTY for i, ch in enumerate(g) if ch in _TILES for j in self._neighbours(i)
            )
        raise AssertionError(action)  # pragma: no cover

    # ---- turn bookkeeping -------------------------------------------------------------------------

    def _apply(self, changes: list[tuple[int, str]], canonical: str, dragon: int | None = None) -> None:
        """Carry out a checked move: set each ``(index, content)`` of ``changes``, take the summoned ``dragon``
        (its size) out of the lair, record ``canonical``, then summon or end the turn (:meth:`_after_change`).

        First pushes the move's undo entry: the changed cells' old contents, the dragon taken, and every field
        the move may change (``to_move``, ``pending``, ``last_changed``, ``last_created``, ``_decided``,
        ``_empty``), all immutable, so :meth:`pop` restores the state exactly.
        """
        g, w = self._grid, self.board.width
        indices = [i for i, _ in changes]
        self._undo.append(
            (
                tuple((i, g[i]) for i in indices),
                None if dragon is None else (dragon, self.lair[dragon]),
                self.to_move,
                self.pending,
                self.last_changed,
                self.last_created,
                self._decided,
                self._empty,
            )
        )
        # A placement fills an empty space, which is in no Hong: nothing to compare with.
        before = [] if dragon is None else self._hongs_touching(indices)
        for i, ch in changes:
            self._empty += (g[i] != _EMPTY) - (ch != _EMPTY)
            g[i] = ch
        if dragon is not None:
            del self.lair[dragon]
        self.moves.append(canonical)
        created = self._created_after(indices, before=before)
        self._after_change(tuple(square_name(i % w, i // w) for i in indices), created)

    def pop(self) -> str:
        """Undo the last move (a placement or a dragon action) and return it, canonical notation.

        The state is exactly as before that move: the cells, the lair (a dragon goes back), whose turn,
        the pending summon, :attr:`last_changed`, :attr:`last_created` and whether the game was decided early;
        ``to_dict()`` is equal to the one before the move. Works on a finished game too.

        Raises:
            IndexError: no move has been played, or the game was loaded with ``from_dict(..., replay=False)``
                and has no history of the moves it was loaded with.
        """
        if not self._undo:
            raise IndexError(
                "No move to undo: no move has been played."
                if not self.moves
                else "No move to undo: this game was loaded without its history."
            )
        cells, dragon, self.to_move, self.pending, self.last_changed, self.last_created, self._decided, self._empty = (
            self._undo.pop()
        )
        for i, ch in cells:
            self._grid[i] = ch
        if dragon is not None:
            self.lair = dict(sorted({**self.lair, dragon[0]: dragon[1]}.items()))
        return self.moves.pop()

    def truncate(self, n: int) -> list[str]:
        """Undo moves until ``n`` are left (``len(moves) == n``); returns the undone moves, oldest first.

        Raises:
            IndexError: ``n`` is negative or more than the moves played (nothing is undone then), or a move to
                undo has no history (see :meth:`pop`; the later moves stay undone).
        """
        return _truncate(self, n)

    def _after_change(self, squares: tuple[str, ...], created: list[Hong]) -> None:
        """Record the change, then summon a dragon or end the turn (rules, "Expansion")."""
        self.last_changed = squares
        self.last_created = tuple(created)
        player = self.to_move
        self.pending = None
        if self.expansion and created:
            options = {
                h.size: self.lair[h.size]
                for h in created
                if h.size in self.lair and self._action_possible(self.lair[h.size])
            }
            if options:
                self.pending = Summon(player=player, options=MappingProxyType(dict(sorted(options.items()))))
                return
        if created:
            self._decided = self._reached_threshold()
        if self._empty > 0 and not self._decided:
            self.to_move = 1 - player

    # ---- Hong scanning ------------------------------------------------------------------------------

    def _scan(self, rows: Iterable[int], cols: Iterable[int]) -> list[Hong]:
        """Horizontal Hongs in ``rows`` and vertical Hongs in ``cols``."""
        g, w = self._grid, self.board.width
        out: list[Hong] = []
        for r in rows:
            line = "".join(g[r * w : (r + 1) * w])
            for m in _H_RE.finditer(line):
                a, b = m.span()
                out.append(
                    Hong(
                        "H",
                        tuple(square_name(c, r) for c in range(a, b)),
                        b - a,
                        (square_name(a - 1, r), square_name(b, r)),
                    )
                )
        for c in cols:
            line = "".join(g[c::w])
            for m in _V_RE.finditer(line):
                a, b = m.span()
                out.append(
                    Hong(
                        "V",
                        tuple(square_name(c, r) for r in range(a, b)),
                        b - a,
                        (square_name(c, a - 1), square_name(c, b)),
                    )
                )
        return out

    def _hongs_touching(self, indices: list[int]) -> list[Hong]:
        """Hongs having one of ``indices`` as a segment or head (only their rows/columns are scanned)."""
        w = self.board.width
        names = {square_name(i % w, i // w) for i in indices}
        found = self._scan(sorted({i // w for i in indices}), sorted({i % w for i in indices}))
        return [h for h in found if names.intersection(h.squares)]

    def _created_after(self, indices: list[int], before: list[Hong]) -> list[Hong]:
        """Hongs that exist now and did not before a change at ``indices`` (rules: "created")."""
        old = set(before)
        return [h for h in self._hongs_touching(indices) if h not in old]

    # ---- helpers ------------------------------------------------------------------------------------

    def _content(self, i: int) -> str | None:
        ch = self._grid[i]
        return None if ch == _EMPTY else ch

    def _neighbours(self, i: int) -> list[int]:
        w, h = self.board.width, self.board.height
        r, c = divmod(i, w)
        out = []
        for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w and self._grid[rr * w + cc] != _NO_SPACE:
                out.append(rr * w + cc)
        return sorted(out)

    def _space_index(self, square: str) -> int:
        """Index of ``square`` (upper-case, canonical), which must be a space; else IllegalMove."""
        b = self.board
        i = b.index(square)
        if i is None:
            # TRANSLATORS: {board} is the board's name (castle, garden, inner); {extent} "columns A–I, rows 1–9".
            raise IllegalMove(
                N_(
                    "{square} is not on the {board} board ({extent}).",
                    square=square,
                    board=b.name,
                    extent=b.describe_extent(),
                )
            )
        if b.template[i] == _NO_SPACE:
            kind = b.features.get(square)
            what = {"pond": N_("the pond"), "tree": N_("a tree")}.get(kind or "", N_("outside the board's outline"))
            # TRANSLATORS: {what} is "the pond", "a tree" or "outside the board's outline"; {example} a square.
            raise IllegalMove(
                N_(
                    "{square} is {what}, not a space — pick an empty space such as {example}.",
                    square=square,
                    what=what,
                    example=self._example_square(),
                )
            )
        return i

    def _example_square(self) -> str:  # a square name, or the Term "none left"
        """An empty space near the middle of the board, for messages (or ``"none left"``)."""
        w, h = self.board.width, self.board.height
        best = None
        for i, ch in enumerate(self._grid):
            if ch == _EMPTY:
                r, c = divmod(i, w)
                d = (2 * r - h + 1) ** 2 + (2 * c - w + 1) ** 2
                if best is None or d < best[0]:
                    best = (d, i)
        return N_("none left") if best is None else square_name(best[1] % w, best[1] // w)

    def _example_placement(self) -> str:
        sq = self._example_square()
        return "C4H" if sq == "none left" else sq + "H"

    def _example_of(self, kinds: tuple[str, ...]) -> str:
        w = self.board.width
        for i, ch in enumerate(self._grid):
            if ch in kinds:
                return square_name(i % w, i // w)
        return N_("(none on the board)")

    def _pending_refusal(self) -> Term:
        """Why the player to move — always the summoner while a summon is pending — can't place a tile now."""
        return N_(
            "You are summoning a Great Dragon: carry out its action before placing a tile — {choices}.",
            choices=self._summon_choices(),
        )

    # ---- copying and serialising ----------------------------------------------------------------------

    def copy(self) -> "HongGame":
        """An independent copy (the board is shared; it is immutable); it can :meth:`pop` the same moves."""
        new = HongGame.__new__(HongGame)
        new.board = self.board
        new.seed = self.seed
        new.stones = self.stones
        new.expansion = self.expansion
        new.lair_setup = dict(self.lair_setup)
        new.lair = dict(self.lair)
        new.moves = list(self.moves)
        new.to_move = self.to_move
        new.pending = self.pending
        new.last_changed = self.last_changed
        new.last_created = self.last_created
        new._grid = list(self._grid)
        new._empty = self._empty
        new._decided = self._decided
        new._undo = list(self._undo)
        return new

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-serialisable plain data (see :func:`from_dict`).

        Shape::

            {"game": "hong", "v": 1,
             "board": "castle",                  # or a custom board's name
             "board_text": "...",                # only for a board that is not built in
             "expansion": false, "seed": 123, "stones": ["C4", "E7", "G3"],
             "lair_setup": {"1": "rotate", ...}, # {} without the expansion
             "lair": {"3": "flip", ...},         # dragons still waiting
             "grid": "##.....##/#..H....#/...",  # rows joined by "/": . # H V S
             "to_move": 0,
             "pending": null or {"player": 0, "sizes": [2, 5]},
             "moves": ["C4H", "D2 rotate C4", ...],
             "last_changed": ["C4"],
             "last_created": [["H", ["C4", "D4"]], ...]}
        """
        d: dict[str, Any] = {"game": NAME, "v": 1, "board": self.board.name}
        if BOARDS.get(self.board.name) != self.board:
            d["board_text"] = self.board.to_text()
        d.update(
            {
                "expansion": self.expansion,
                "seed": self.seed,
                "stones": list(self.stones),
                "lair_setup": {str(k): v for k, v in sorted(self.lair_setup.items())},
                "lair": {str(k): v for k, v in sorted(self.lair.items())},
                "grid": "/".join(self.rows()),
                "to_move": self.to_move,
                "pending": None
                if self.pending is None
                else {"player": self.pending.player, "sizes": list(self.pending.sizes)},
                "moves": list(self.moves),
                "last_changed": list(self.last_changed),
                "last_created": [[h.direction, list(h.cells)] for h in self.last_created],
            }
        )
        return d

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{ROLE_NAMES[self.to_move]} to move"
        return f"<HongGame {self.board.name} {len(self.moves)} moves, {state}>"


# --------------------------------------------------------------------------------------------------
# Creating and restoring games


def _check_lair(lair: Mapping[Any, str]) -> dict[int, str]:
    try:
        clean = {int(k): str(v).strip().lower() for k, v in lair.items()}
    except (TypeError, ValueError, AttributeError):
        raise IllegalMove("The lair must map Hong sizes 1–7 to actions, e.g. {1: 'rotate', 2: 'place', ...}.")
    if set(clean) != set(range(1, 8)):
        raise IllegalMove(f"The lair must have exactly the sizes 1–7, one dragon each; got {sorted(clean)}.")
    if sorted(clean.values()) != sorted(ACTIONS):
        raise IllegalMove(
            f"The lair must hold each of the seven actions once ({', '.join(ACTIONS)}); "
            f"got {', '.join(clean[k] for k in sorted(clean))}."
        )
    return dict(sorted(clean.items()))


def new_game(
    board: str | Board = "castle",
    expansion: bool = False,
    seed: int | None = None,
    stones: list[str] | None = None,
    lair: dict[int, str] | None = None,
) -> HongGame:
    """Set up a game of Hong (rules, "Setup").

    Args:
        board: ``"castle"``, ``"garden"`` or ``"inner"`` (case-insensitive), or a :class:`Board`
            from :func:`parse_board`.
        expansion: play with the Lair of the Seven Great Dragons.
        seed: seeds ``random.Random``; the draw is: three stone squares with ``rng.sample`` from the
            spaces in row-major order, then (always, so it does not depend on ``stones``) a shuffle of
            :data:`ACTIONS` dealt to sizes 1–7. ``None``: a seed is chosen with
            ``random.SystemRandom`` and stored in :attr:`HongGame.seed`.
        stones: three distinct spaces to use instead of the drawn stones.
        lair: size (1–7) → action, a permutation of :data:`ACTIONS`, instead of the drawn lair
            (only with ``expansion=True``).

    Raises:
        IllegalMove: unknown board; stones not exactly three distinct spaces; a lair that is not a
            permutation of the seven actions over sizes 1–7, or a lair without the expansion.
    """
    b = board if isinstance(board, Board) else board_named(board)
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise IllegalMove(f"The seed must be a whole number, not {seed!r}.")
    rng = random.Random(seed)
    spaces = b.squares()
    if len(spaces) < 3:
        raise IllegalMove("A board needs at least three spaces for the setup stones.")
    drawn = rng.sample(spaces, 3)
    actions = list(ACTIONS)
    rng.shuffle(actions)
    drawn_lair = {size: actions[size - 1] for size in range(1, 8)}
    if stones is not None:
        if isinstance(stones, str):
            stones = stones.replace(",", " ").split()
        clean = [str(s).strip().upper() for s in stones]
        if len(clean) != 3:
            raise IllegalMove(f"Setup needs exactly three stones, got {len(clean)}.")
        for s in clean:
            pos = _split_square(s)
            if pos is None:
                raise IllegalMove(f"{s!r} is not a square (write e.g. C4).")
            canon = square_name(*pos)
            if not b.is_space(canon):
                raise IllegalMove(f"Stone square {canon} is not a space of the {b.name} board ({b.describe_extent()}).")
        clean = [square_name(*_split_square(s)) for s in clean]  # type: ignore[misc]
        if len(set(clean)) != 3:
            raise IllegalMove(f"The three stones must be on three different spaces, got {', '.join(clean)}.")
        drawn = clean
    if lair is not None:
        if not expansion:
            raise IllegalMove("A lair only goes with the expansion: set expansion on to use it.")
        drawn_lair = _check_lair(lair)
    return HongGame(b, seed, tuple(drawn), bool(expansion), drawn_lair if expansion else {})


def _read(move: str) -> str:
    """A move as typed, in the form the notation is read: :func:`engine.squares.normal` (full-width forms, any
    script's digits, upper case; non-text is ``""``) with each run of white space one space."""
    return " ".join(squares.normal(move).split())


def dragon_action(move: str) -> str:
    """``move`` as typed where only a dragon action is meant (the bot's ``/hong dragon``), passed on as typed once it
    reads as one — ``D<size> <action> …``, or an action word alone (the size forgotten: :meth:`HongGame.play` then
    says which dragon); the position decides the rest. Never a placement: ``"D4H"`` here is a mistake, not a tile.

    Raises:
        IllegalMove: ``move`` doesn't read as a dragon action; the message gives the actions' syntax.
    """
    if not _ACTION_START_RE.match(_read(move)):
        # TRANSLATORS: {move} is what the player typed (quoted); keep D<size> <action> and the example as notation.
        raise IllegalMove(
            N_(
                "{move} is not a dragon action: write D<size> <action> then its squares, e.g. D2 rotate "
                "C4. The post that summons a Great Dragon lists the ones you can choose.",
                move=repr(str(move).strip()),
            )
        )
    return move


def from_dict(d: Mapping[str, Any], *, replay: bool = True) -> HongGame:
    """Restore a game from :meth:`HongGame.to_dict` output (exact round trip).

    The record is rebuilt from its setup (board, seed, stones, lair) by replaying its moves, then checked
    against the rest of the record, so a damaged or edited record is refused rather than half-loaded.
    ``replay=False`` loads the position exactly as recorded instead, some 30× faster: the bot loads so a game it
    has checked by a replay before; tests craft positions so. Such a game has no undo history (:meth:`HongGame.pop`).

    Raises:
        InvalidState: (an ``IllegalMove``, so a ``ValueError``) the data is not a Hong game record, a field is
            missing or malformed, a move in it is illegal, or the record does not match its own moves.
    """
    if not isinstance(d, Mapping) or d.get("game", NAME) != NAME:
        raise InvalidState("This saved state is not a game of Hong.")
    if not replay:
        return _load_snapshot(d)
    try:
        board = parse_board(d["board_text"]) if "board_text" in d else board_named(d["board"])
        seed, expansion, moves = d["seed"], d["expansion"], d["moves"]
        if type(seed) is not int or type(expansion) is not bool:
            raise TypeError("seed must be an integer and expansion true or false")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise TypeError("moves must be a list of moves")
        lair = {int(k): v for k, v in d["lair_setup"].items()} if expansion else None
        game = new_game(board, expansion=expansion, seed=seed, stones=list(d["stones"]), lair=lair)
    except IllegalMove as e:
        raise InvalidState(f"This saved Hong game is damaged: {e}") from e
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise InvalidState(f"This saved Hong game is damaged: a field is missing or malformed ({e}).") from e
    for number, move in enumerate(moves, 1):
        try:
            game.play(move)
        except IllegalMove as e:
            raise InvalidState(f"This saved Hong game is damaged: move {number} ({move}) is illegal: {e}") from e
    if _json_form(game.to_dict()) != _json_form(d):
        raise InvalidState("This saved Hong game is damaged: its board does not match its moves.")
    return game


def _load_snapshot(d: Mapping[str, Any]) -> HongGame:
    """A game exactly as ``d`` describes it, without replaying its moves (for crafted test positions).

    Raises:
        InvalidState: a field is missing or malformed, or the grid does not fit the board.
    """
    try:
        if d.get("game", NAME) != NAME:
            raise InvalidState("This saved state is not a game of Hong.")
        board = parse_board(d["board_text"]) if "board_text" in d else board_named(d["board"])
        g = HongGame.__new__(HongGame)
        g.board = board
        if type(d["seed"]) is not int or type(d["expansion"]) is not bool or d["to_move"] not in (0, 1):
            raise InvalidState("This saved Hong game is damaged: seed, expansion or to_move is malformed.")
        if not isinstance(d["moves"], list) or not all(isinstance(m, str) for m in d["moves"]):
            raise InvalidState("This saved Hong game is damaged: moves must be a list of moves.")
        if any(a not in ACTIONS for a in (*d["lair_setup"].values(), *d["lair"].values())):
            raise InvalidState("This saved Hong game is damaged: the lair names an unknown action.")
        g.seed = int(d["seed"])
        g.stones = tuple(d["stones"])
        g.expansion = bool(d["expansion"])
        g.lair_setup = {int(k): v for k, v in d["lair_setup"].items()}
        g.lair = {int(k): v for k, v in d["lair"].items()}
        grid = d["grid"].replace("/", "")
        if len(grid) != len(board.template) or any(
            (a == _NO_SPACE) != (b == _NO_SPACE) or a not in ".#HVS" for a, b in zip(grid, board.template)
        ):
            raise InvalidState("This saved Hong game is damaged: its grid does not fit the board.")
        g._grid = list(grid)
        g._empty = grid.count(_EMPTY)
        g._decided = g._reached_threshold()
        g._undo = []
        g.to_move = int(d["to_move"])
        p = d.get("pending")
        g.pending = (
            None
            if p is None
            else Summon(
                player=int(p["player"]), options=MappingProxyType({int(s): g.lair[int(s)] for s in sorted(p["sizes"])})
            )
        )
        g.moves = list(d["moves"])
        g.last_changed = tuple(d.get("last_changed", ()))
        created = []
        w = board.width
        for direction, cells in d.get("last_created", ()):
            found = [board.index(c) for c in cells]
            ii = [i for i in found if i is not None]
            if direction not in _TILES or not cells or len(ii) != len(found):
                raise InvalidState("This saved Hong game is damaged: last_created is malformed.")
            if direction == "H":
                heads = (square_name(ii[0] % w - 1, ii[0] // w), square_name(ii[-1] % w + 1, ii[-1] // w))
            else:
                heads = (square_name(ii[0] % w, ii[0] // w - 1), square_name(ii[-1] % w, ii[-1] // w + 1))
            created.append(Hong(direction, tuple(cells), len(cells), heads))
        g.last_created = tuple(created)
        return g
    except InvalidState:
        raise
    except IllegalMove as e:
        raise InvalidState(f"This saved Hong game is damaged: {e}") from e
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise InvalidState(f"This saved Hong game is damaged: a field is missing or malformed ({e}).") from e


def _json_form(d: Mapping[str, Any]) -> Any:
    """``d`` as it would come back from JSON (tuples → lists, int keys → strings), for comparisons."""
    return json.loads(json.dumps(d, sort_keys=True))


if TYPE_CHECKING:  # this module is a game of the contract (engine/contract.py): mypy checks it here
    from engine import hong as _module
    from engine.contract import GameModule

    _conforms: GameModule[HongGame] = _module
