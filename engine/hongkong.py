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

import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from engine import IllegalMove, InvalidState, squares
from engine import truncate as _truncate

#: The game's name in the registry, in stored records and in ``to_dict()["game"]``.
NAME = "hongkong"

SIZE = 5
PLOTS = SIZE * SIZE
CENTRE = 12  # C3
MAX_PIECES = 5
COLUMNS = "ABCDE"

STANDARD, QUICK, ROOF = "S", "Q", "R"
PIECE_NAMES = {STANDARD: "standard block", QUICK: "quick block", ROOF: "roof"}
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
_NOTATION_HELP = "A turn looks like S@C3, R@B2, Q@B2 S@C3 or Q@B2 R@B2 (piece S, Q or R, then @ and a square A1–E5)."


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


def describe_height(value: int) -> str:
    """Height value → words: ``4`` → ``"2 blocks"``, ``5`` → ``"2 blocks + roof"``, ``1`` → ``"a roof"``."""
    blocks, roof = divmod(value, 2)
    if blocks == 0:
        return "a roof" if roof else "nothing"
    text = f"{blocks} block" + ("s" if blocks != 1 else "")
    return text + (" + roof" if roof else "")


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
    """

    __slots__ = ("first", "stacks", "remaining", "moves", "_to_move")

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

    # --- state ------------------------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """The player (0 or 1) whose turn it is; after the end, the player who would have been next."""
        return self._to_move

    def controller(self, plot: int) -> int | None:
        """The player controlling the building on ``plot`` (owner of its top piece), or None if empty."""
        stack = self.stacks[plot]
        return stack[-1][0] if stack else None

    def blocks(self, plot: int) -> int:
        """Number of blocks (standard and quick) in the building on ``plot``."""
        return sum(1 for _, kind in self.stacks[plot] if kind != ROOF)

    def roofed(self, plot: int) -> bool:
        """Whether the building on ``plot`` has a roof (always its top piece)."""
        stack = self.stacks[plot]
        return bool(stack) and stack[-1][1] == ROOF

    def height(self, plot: int) -> int:
        """The building's height value ``2 × blocks + (1 if roofed)`` (see :func:`height_value`)."""
        return height_value(self.blocks(plot), self.roofed(plot))

    def buildings(self) -> tuple[int, int]:
        """Controlled buildings: ``(player 0's count, player 1's count)``."""
        counts = [0, 0]
        for stack in self.stacks:
            if stack:
                counts[stack[-1][0]] += 1
        return counts[0], counts[1]

    @property
    def is_over(self) -> bool:
        """True once all 25 plots are occupied or both players have used every standard block and roof."""
        if all(self.stacks):
            return True
        return all(r[STANDARD] == 0 and r[ROOF] == 0 for r in self.remaining)

    @property
    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` of a finished game, None while it goes on (rules: "Result")."""
        if not self.is_over:
            return None
        counts = self.buildings()
        termination = "board full" if all(self.stacks) else "pieces used"
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
        return other

    # --- rules ------------------------------------------------------------------------------------

    def _refusal(self, player: int, kind: str, plot: int, first_turn: bool) -> str | None:
        """Why ``player`` may not put a ``kind`` piece on ``plot`` now, or None if they may.

        Implements placement rules 1–6 of the rules file, in order, against the board as it stands.
        """
        where = square_name(plot)
        piece = PIECE_NAMES[kind]
        if first_turn and plot == CENTRE:
            return "On the first player's first turn nothing may go on the centre plot C3. Choose another plot."
        stack = self.stacks[plot]
        if not stack:
            return None
        if stack[-1][1] == ROOF:
            return f"The building on {where} has a roof: nothing may be placed on a roof."
        if len(stack) >= MAX_PIECES:
            return f"The building on {where} already has {MAX_PIECES} pieces, the most a building may have."
        if stack[-1][0] == player:
            return None
        blocks = sum(1 for _, k in stack if k != ROOF)
        after = height_value(blocks + 1, False) if kind != ROOF else height_value(blocks, True)
        for n in NEIGHBOURS[plot]:
            if self.stacks[n] and self.stacks[n][-1][0] == player and self.height(n) >= after:
                return None
        return (
            f"The building on {where} belongs to your opponent. To put a {piece} there you need a building of "
            f"yours next to it (edge-adjacent) at least {describe_height(after)} high."
        )

    def _check_piece(self, player: int, kind: str, plot: int, first_turn: bool) -> None:
        if self.remaining[player][kind] == 0:
            raise IllegalMove(f"You have no {PIECE_NAMES[kind]}s left.")
        reason = self._refusal(player, kind, plot, first_turn)
        if reason:
            raise IllegalMove(reason)

    def _put(self, player: int, kind: str, plot: int) -> None:
        self.stacks[plot].append((player, kind))
        self.remaining[player][kind] -= 1

    def _take(self, player: int, kind: str, plot: int) -> None:
        self.stacks[plot].pop()
        self.remaining[player][kind] += 1

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
            raise IllegalMove(f"Can't read '{move.strip()}'. {_NOTATION_HELP}")
        placements = []
        for part in parts:
            m = _PLACEMENT.match(part)
            if not m:
                raise IllegalMove(f"Can't read '{part}'. {_NOTATION_HELP}")
            placements.append((m.group(1), (int(m.group(3)) - 1) * SIZE + COLUMNS.index(m.group(2))))
        if len(placements) == 1 and placements[0][0] == QUICK:
            raise IllegalMove(
                "A quick block is never a turn on its own: follow it with a standard block or a roof, "
                f"e.g. Q@{square_name(placements[0][1])} S@{square_name(placements[0][1])}."
            )
        if len(placements) == 2:
            if placements[0][0] != QUICK:
                raise IllegalMove(f"In a double move the first piece must be a quick block. {_NOTATION_HELP}")
            if placements[1][0] == QUICK:
                raise IllegalMove("A turn uses at most one quick block; the second piece must be S or R.")
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
        if self.is_over:
            raise IllegalMove("The game is over: no more turns can be played.")
        placements = self.parse(move)
        player, first_turn = self._to_move, self._first_turn()
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
        self.moves.append(" ".join(f"{k}@{square_name(p)}" for k, p in placements))
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
        for kind, plot in reversed(self.parse(move)):
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
            if self._refusal(player, kind, plot, first_turn) is None:
                yield plot

    def legal_moves(self) -> list[str]:
        """Every legal turn for the player to move, canonical notation, no duplicates.

        Order: single placements (``S`` then ``R``, plots A1…E5), then double moves by quick-block plot.
        Empty once the game is over. At the start of a game there are exactly 1,200.
        """
        if self.is_over:
            return []
        player, first_turn = self._to_move, self._first_turn()
        moves = [f"{kind}@{square_name(p)}" for kind in (STANDARD, ROOF) for p in self._legal_plots(player, kind, first_turn)]
        for q in list(self._legal_plots(player, QUICK, first_turn)):
            self._put(player, QUICK, q)
            prefix = f"Q@{square_name(q)} "
            for kind in (STANDARD, ROOF):
                moves.extend(prefix + f"{kind}@{square_name(p)}" for p in self._legal_plots(player, kind, first_turn))
            self._take(player, QUICK, q)
        return moves

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

    def to_dict(self) -> dict:
        """JSON-serialisable record: ``{"game": "hongkong", "first": 0|1, "moves": [str, ...]}``.

        The move list (one entry a turn) is the source of truth: :func:`from_dict` replays it.
        """
        return {"game": NAME, "first": self.first, "moves": list(self.moves)}

    def __repr__(self) -> str:
        return f"<HongKongGame first={self.first} moves={len(self.moves)} to_move={self._to_move} over={self.is_over}>"


def new_game(first: int = 0) -> HongKongGame:
    """A new game with an empty board; ``first`` (0 or 1) moves first.

    Raises:
        IllegalMove: if ``first`` is not 0 or 1.
    """
    return HongKongGame(first)


def from_dict(d: Mapping[str, Any]) -> HongKongGame:
    """Restore a game saved by :meth:`HongKongGame.to_dict` by replaying its moves (one entry a turn).

    ``d`` is ``{"game": "hongkong", "first": 0|1, "moves": [str, ...]}``; nothing else is read (an older record
    that names its list ``"turns"`` is refused: the bot's record migration renames it).

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
    for number, move in enumerate(moves, 1):
        try:
            game.play(move)
        except IllegalMove as e:
            raise InvalidState(f"This saved Hong Kong game is damaged: turn {number} ({move}) is illegal: {e}") from e
    return game
