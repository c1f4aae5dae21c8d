"""A tournament as plain data: its settings, entrants, rounds and results, and the steps that change it (join, leave,
start, pair the next round, record a result, withdraw). Pure: every step returns a new :class:`Tournament`. The store
(:mod:`bot.storage.tournaments`) applies the same rules in its own writes — a result, a join or a withdrawal each
an atomic write of its own, a round paired by a compare-and-set — and puts a :class:`Tournament` together to read.

Rulings (pairing, byes, forfeits, late joiners, withdrawals, tie-breaks) are in ``RULES.md`` beside this module.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from .pairing import DRAW, LOSS, WIN, History, NoPairing, berger, berger_rounds, pair_swiss


class Format(str, Enum):
    """How rounds are paired: a Swiss, a round robin (everyone meets everyone once), or a double round robin (every
    two players meet twice, the seats swapped the second time)."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    DOUBLE_ROUND_ROBIN = "double_round_robin"

    @property
    def all_play_all(self) -> bool:
        """A round robin, single or double: paired by Berger tables, its table fixed at the start."""
        return self is not Format.SWISS

    @property
    def cycles(self) -> int:
        """How many times every two players meet in a round robin (1 for a Swiss: none is planned)."""
        return 2 if self is Format.DOUBLE_ROUND_ROBIN else 1


class Phase(str, Enum):
    """Where a tournament is in its life."""

    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


#: A board's results: seat 0 won, seat 1 won, a draw (played); seat 0 / seat 1 wins by forfeit, both lose by forfeit
#: (not played); the Swiss bye (a win's points) and a round robin's rest (no points).
RESULTS = ("1-0", "0-1", "=", "+-", "-+", "--", "bye", "rest")
_POINTS = {
    "1-0": (WIN, LOSS),
    "0-1": (LOSS, WIN),
    "=": (DRAW, DRAW),
    "+-": (WIN, LOSS),
    "-+": (LOSS, WIN),
    "--": (LOSS, LOSS),
    "bye": (WIN, LOSS),
    "rest": (LOSS, LOSS),
}
#: The fewest players a tournament starts with.
MIN_PLAYERS = 2


class TournamentError(ValueError):
    """A step that the tournament's state or rules refuse; ``reason`` is one of the codes below, which the bot words
    for the player."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Entrant:
    """A player in the tournament: ``seed`` is the pairing number (1 = strongest, set at the start; sign-up order
    before), ``joined`` the first round they may be paired in, ``withdrawn`` the first round they are not."""

    id: int
    name: str
    seed: int
    joined: int = 1
    withdrawn: int | None = None

    def active_in(self, round_no: int) -> bool:
        return self.joined <= round_no and (self.withdrawn is None or self.withdrawn > round_no)


@dataclass(frozen=True)
class Board:
    """One board of a round: ``first`` in seat 0, ``second`` in seat 1 (None: a bye or a rest), ``result`` one of
    :data:`RESULTS` or None while it is played; ``channel`` and ``game`` the game's thread and record id once
    started."""

    first: int
    second: int | None
    result: str | None = None
    channel: int | None = None
    game: str | None = None

    @property
    def played(self) -> bool:
        """A game was played to a result on the board (not a bye, a rest or a forfeit)."""
        return self.result in ("1-0", "0-1", "=")

    def points(self, player: int) -> int:
        """Half points ``player`` scored here (0 while pending)."""
        if self.result is None:
            return 0
        first, second = _POINTS[self.result]
        return first if player == self.first else second

    def opponent(self, player: int) -> int | None:
        return self.second if player == self.first else self.first

    def has(self, player: int) -> bool:
        return player in (self.first, self.second)


@dataclass(frozen=True)
class Tournament:
    """One tournament of a server. Times are Unix seconds; ``rounds`` the planned count (a round robin's is set at
    the start); ``boards`` one tuple per round paired so far; ``options`` the game's engine options but the seats."""

    id: str
    guild_id: int
    channel_id: int
    creator: int
    kind: str
    format: Format
    rounds: int
    options: dict = field(default_factory=dict)
    turn_timer: float | None = None
    starts: float | None = None
    phase: Phase = Phase.SIGNUP
    entrants: tuple[Entrant, ...] = ()
    boards: tuple[tuple[Board, ...], ...] = ()
    message_id: int | None = None
    created: float = 0.0
    ended_early: bool = False
    name: str = ""
    #: The last round whose standings and pairings were posted (each is posted once, though its round is run again).
    announced: int = 0
    #: The last round whose wait for players busy in another tournament's game was posted (once a round).
    waited: int = 0

    # --- reading --------------------------------------------------------------------------------

    @property
    def round(self) -> int:
        """The round being played or last played (0 before the first)."""
        return len(self.boards)

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.id == user_id), None)

    def active(self, round_no: int) -> list[Entrant]:
        """Entrants who may be paired in ``round_no``."""
        return [e for e in self.entrants if e.active_in(round_no)]

    @property
    def round_complete(self) -> bool:
        """Every board of the current round has its result (true before the first round)."""
        return all(b.result is not None for b in (self.boards[-1] if self.boards else ()))

    def score(self, user_id: int) -> int:
        """Half points of ``user_id`` so far."""
        return sum(b.points(user_id) for r in self.boards for b in r if b.has(user_id))

    def board_of_game(self, game_id: str) -> tuple[int, int] | None:
        """``(round index, board index)`` of the board whose game is ``game_id``, or None."""
        for r, boards in enumerate(self.boards):
            for i, board in enumerate(boards):
                if board.game == game_id:
                    return r, i
        return None

    def pending_board(self, user_id: int) -> Board | None:
        """The current round's board of ``user_id`` still without a result, or None."""
        if not self.boards:
            return None
        return next((b for b in self.boards[-1] if b.has(user_id) and b.result is None), None)

    @property
    def last_round(self) -> bool:
        return self.round >= self.rounds

    @property
    def joining_round(self) -> int:
        """The round a player joining now would be paired from: 1 during the sign-up, the next round of a running
        Swiss with rounds to come (a late joiner); 0 when nobody can join (a started round robin, a Swiss in its last
        round, a tournament over)."""
        if self.phase is Phase.SIGNUP:
            return 1
        if self.phase is Phase.RUNNING and self.format is Format.SWISS and self.round < self.rounds:
            return self.round + 1
        return 0

    # --- steps ----------------------------------------------------------------------------------

    def replace(self, **changes: Any) -> "Tournament":
        return dataclasses.replace(self, **changes)

    def join(self, user_id: int, name: str) -> "Tournament":
        """``user_id`` signs up (a Swiss also takes late joiners while rounds remain: paired from the next round).

        Raises:
            TournamentError: ``joined`` (already in), ``closed`` (started round robin, finished, cancelled, or a Swiss
            in its last round).
        """
        if self.entrant(user_id) is not None and self.entrant(user_id).withdrawn is None:  # type: ignore[union-attr]
            raise TournamentError("joined")
        if self.entrant(user_id) is not None:
            raise TournamentError("withdrawn")
        joined = self.joining_round
        if not joined:
            raise TournamentError("closed")
        seed = len(self.entrants) + 1
        return self.replace(entrants=self.entrants + (Entrant(user_id, name, seed, joined),))

    def leave(self, user_id: int) -> "Tournament":
        """Before the start: ``user_id`` is taken off the list; after it: withdrawn (:meth:`withdraw`).

        Raises:
            TournamentError: ``not_in`` (not signed up), or as :meth:`withdraw`.
        """
        entrant = self.entrant(user_id)
        if entrant is None:
            raise TournamentError("not_in")
        if self.phase is Phase.SIGNUP:
            left = [e for e in self.entrants if e.id != user_id]
            return self.replace(entrants=tuple(dataclasses.replace(e, seed=i + 1) for i, e in enumerate(left)))
        return self.withdraw(user_id)

    def withdraw(self, user_id: int) -> "Tournament":
        """``user_id`` leaves a running tournament: not paired from the next round on (a game they are playing is
        theirs to finish or resign: the caller resigns it). In a round robin their unplayed boards are forfeits.

        Raises:
            TournamentError: ``not_in``, ``withdrawn`` (already), ``over`` (finished or cancelled).
        """
        entrant = self.entrant(user_id)
        if entrant is None:
            raise TournamentError("not_in")
        if entrant.withdrawn is not None:
            raise TournamentError("withdrawn")
        if self.phase in (Phase.FINISHED, Phase.CANCELLED):
            raise TournamentError("over")
        if self.phase is Phase.SIGNUP:
            return self.leave(user_id)
        gone = dataclasses.replace(entrant, withdrawn=self.round + 1)
        out = self.replace(entrants=tuple(gone if e.id == user_id else e for e in self.entrants))
        board = self.pending_board(user_id)
        if board is not None and board.game is None and board.second is not None:  # paired, its game not started
            i = self.boards[-1].index(board)
            out = out.with_board(len(self.boards) - 1, i, result="-+" if board.first == user_id else "+-")
        return out

    def start(self, seeds: Mapping[int, float] | None = None) -> "Tournament":
        """Close the sign-up: seeds by ``seeds`` (user id → rating, higher first; sign-up order breaks ties), a round
        robin's round count set (a double one's twice), then the first round paired (:meth:`next_round`).

        Raises:
            TournamentError: ``started`` (not in sign-up), ``too_few`` (fewer than :data:`MIN_PLAYERS`).
        """
        if self.phase is not Phase.SIGNUP:
            raise TournamentError("started")
        if len(self.entrants) < MIN_PLAYERS:
            raise TournamentError("too_few")
        ratings = seeds or {}
        order = sorted(self.entrants, key=lambda e: (-ratings.get(e.id, 0.0), e.seed))
        entrants = tuple(dataclasses.replace(e, seed=i + 1) for i, e in enumerate(order))
        fmt = self.format
        rounds = berger_rounds(len(entrants)) * fmt.cycles if fmt.all_play_all else self.rounds
        return self.replace(phase=Phase.RUNNING, entrants=entrants, rounds=rounds).next_round()

    def next_round(self) -> "Tournament":
        """The next round paired (every board of the current one has its result), or the tournament finished after
        its last round, or finished early when no pairing exists (RULES.md).

        Raises:
            TournamentError: ``playing`` (the current round still has games), ``over`` (not running).
        """
        if self.phase is not Phase.RUNNING:
            raise TournamentError("over")
        if not self.round_complete:
            raise TournamentError("playing")
        if self.round >= self.rounds:
            return self.replace(phase=Phase.FINISHED)
        number = self.round + 1
        try:
            boards = self._round_robin(number) if self.format.all_play_all else self._swiss(number)
        except NoPairing:
            return self.replace(phase=Phase.FINISHED, ended_early=True)
        return self.replace(boards=self.boards + (boards,))

    def boards_of(self) -> dict[int, list[Board]]:
        """Each player's boards, oldest first (one pass over every board)."""
        mine: dict[int, list[Board]] = {e.id: [] for e in self.entrants}
        for boards in self.boards:
            for b in boards:
                for player in (b.first, b.second):
                    if player is not None:
                        mine.setdefault(player, []).append(b)
        return mine

    def scores(self) -> dict[int, int]:
        """Every entrant's half points so far (:meth:`score` for all, in one pass)."""
        return {p: sum(b.points(p) for b in boards) for p, boards in self.boards_of().items()}

    def _floated(self, player: int, scores: dict[int, int], back: int = 1) -> int:
        """How ``player`` was paired ``back`` rounds ago (1: the previous round): -1 down (fewer points before it,
        or the bye), +1 up, 0."""
        return self._floats(scores).get(player, (0, 0))[back - 1]

    def _floats(self, scores: dict[int, int]) -> dict[int, tuple[int, int]]:
        """How every player was paired in the previous round and the one before (:meth:`_floated`), in one pass."""
        out: dict[int, list[int]] = {}
        before = dict(scores)
        for back in (1, 2):
            if len(self.boards) < back:
                break
            boards = self.boards[-back]
            for b in boards:  # the points before this round
                for p in (b.first, b.second):
                    if p is not None:
                        before[p] = before.get(p, 0) - b.points(p)
            for b in boards:
                if b.result in (None, "rest"):
                    continue
                if b.second is None:
                    out.setdefault(b.first, [0, 0])[back - 1] = -1
                    continue
                d = before.get(b.first, 0) - before.get(b.second, 0)
                way = -1 if d > 0 else 1 if d < 0 else 0
                out.setdefault(b.first, [0, 0])[back - 1] = way
                out.setdefault(b.second, [0, 0])[back - 1] = -way
        return {p: (f[0], f[1]) for p, f in out.items()}

    def _swiss(self, number: int) -> tuple[Board, ...]:
        players = []
        by_player = self.boards_of()
        scores = {p: sum(b.points(p) for b in boards) for p, boards in by_player.items()}
        floats = self._floats(scores)
        for e in self.active(number):
            mine = by_player.get(e.id, [])
            players.append(
                History(
                    id=e.id,
                    seed=e.seed,
                    score=scores.get(e.id, 0),
                    colours=tuple(0 if b.first == e.id else 1 for b in mine if b.played),
                    opponents=frozenset(o for b in mine if (o := b.opponent(e.id)) is not None),
                    had_bye=any(
                        b.result == "bye" or (b.result in ("+-", "-+") and b.points(e.id) == WIN) for b in mine
                    ),
                    floated=floats.get(e.id, (0, 0))[0],
                    floated_before=floats.get(e.id, (0, 0))[1],
                )
            )
        pairing = pair_swiss(players, played=number - 1, last=number == self.rounds)
        return tuple(Board(p.first, p.second, "bye" if p.second is None else None) for p in pairing.pairs)

    def _round_robin(self, number: int) -> tuple[Board, ...]:
        """Round ``number`` of the Berger table (RULES.md, "Round robin"); in a double round robin the second cycle
        plays the first again with the seats swapped, and the first cycle's last two rounds are played in the
        other order (FIDE Handbook C.05 Annex 1: nobody then gets one colour three times running between the
        cycles)."""
        by_seed = {e.seed: e for e in self.entrants}
        boards = []
        for a, b in berger_cycle(len(self.entrants), number, self.format.cycles):
            first = by_seed[a]
            if b is None:
                boards.append(Board(first.id, None, "rest"))
                continue
            second = by_seed[b]
            here = (first.active_in(number), second.active_in(number))
            result = {(True, True): None, (True, False): "+-", (False, True): "-+", (False, False): "--"}[here]
            boards.append(Board(first.id, second.id, result))
        return tuple(sorted(boards, key=lambda b: b.second is None))

    def with_board(self, round_index: int, board_index: int, **changes: Any) -> "Tournament":
        """The tournament with one board changed (its ``channel``, ``game`` or ``result``)."""
        rounds = list(self.boards)
        boards = list(rounds[round_index])
        boards[board_index] = dataclasses.replace(boards[board_index], **changes)
        rounds[round_index] = tuple(boards)
        return self.replace(boards=tuple(rounds))

    def record_result(self, game_id: str, winner_seat: int | None, played: bool = True) -> "Tournament":
        """The result of the game ``game_id``: ``winner_seat`` 0/1, or None for a draw (``played``) or a game ended
        without a result (an abort: both lose by forfeit, RULES.md). A board that has its result already is left.

        Raises:
            TournamentError: ``no_board`` (no board has this game).
        """
        found = self.board_of_game(game_id)
        if found is None:
            raise TournamentError("no_board")
        r, i = found
        if self.boards[r][i].result is not None:
            return self
        if not played:
            result = "--"
        else:
            result = {0: "1-0", 1: "0-1", None: "="}[winner_seat]
        return self.with_board(r, i, result=result)

    def cancel(self) -> "Tournament":
        """Cancelled (a running round's games play on, unrated for the event). Raises ``TournamentError("over")`` if
        already finished or cancelled."""
        if self.phase in (Phase.FINISHED, Phase.CANCELLED):
            raise TournamentError("over")
        return self.replace(phase=Phase.CANCELLED)

    # --- privacy ----------------------------------------------------------------------------------

    def involves(self, user_id: int) -> bool:
        """Whether ``user_id`` is an entrant (or created it)."""
        return self.entrant(user_id) is not None or self.creator == user_id

    def open_for(self, user_id: int) -> bool:
        """Whether ``user_id`` still takes part: signed up or playing, not withdrawn, the tournament not over."""
        entrant = self.entrant(user_id)
        return entrant is not None and entrant.withdrawn is None and self.phase in (Phase.SIGNUP, Phase.RUNNING)

    def forgetting(self, user_id: int, former_name: str) -> "Tournament":
        """This tournament with ``user_id`` erased (``/privacy forget``): their entry's id becomes a negative
        stand-in unique in the tournament (minus their pairing number) and their name ``former_name``, on every
        board too, so pairings, results and standings stay as they were; as its creator, id 0."""
        entrant = self.entrant(user_id)
        out = self.replace(creator=0) if self.creator == user_id else self
        if entrant is None:
            return out
        stand_in = -entrant.seed

        def swap(player: int) -> int:
            return stand_in if player == user_id else player

        entrants = tuple(
            dataclasses.replace(e, id=stand_in, name=former_name) if e.id == user_id else e for e in out.entrants
        )
        boards = tuple(
            tuple(
                dataclasses.replace(b, first=swap(b.first), second=None if b.second is None else swap(b.second))
                for b in r
            )
            for r in out.boards
        )
        return out.replace(entrants=entrants, boards=boards)

    # --- JSON -----------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["format"] = self.format.value
        d["phase"] = self.phase.value
        d["entrants"] = [dataclasses.asdict(e) for e in self.entrants]
        d["boards"] = [[_board_dict(b) for b in r] for r in self.boards]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Tournament":
        """Raises ``KeyError``/``ValueError``/``TypeError`` for a damaged document."""
        return cls(
            id=str(d["id"]),
            guild_id=int(d["guild_id"]),
            channel_id=int(d["channel_id"]),
            creator=int(d["creator"]),
            kind=str(d["kind"]),
            format=Format(d["format"]),
            rounds=int(d["rounds"]),
            options=dict(d.get("options") or {}),
            turn_timer=d.get("turn_timer"),
            starts=d.get("starts"),
            phase=Phase(d["phase"]),
            entrants=tuple(Entrant(**e) for e in d.get("entrants", ())),
            boards=tuple(tuple(Board(**b) for b in r) for r in d.get("boards", ())),
            message_id=d.get("message_id"),
            created=float(d.get("created", 0.0)),
            ended_early=bool(d.get("ended_early", False)),
            name=str(d.get("name", "")),
            announced=int(d.get("announced", 0)),
            waited=int(d.get("waited", 0)),
        )


def berger_cycle(count: int, number: int, cycles: int = 1) -> list[tuple[int, int | None]]:
    """Round ``number`` (1-based) of a round robin of ``count`` players met ``cycles`` times (1 or 2), as
    :func:`bot.core.tournament.pairing.berger` gives it: ``[(seat 0, seat 1)]`` by pairing number. In a double round
    robin, rounds R−1 and R of the first cycle (R rounds a cycle) are exchanged, and round R + k is round k with the
    seats swapped (FIDE Handbook C.05 Annex 1).

    Raises:
        ValueError: fewer than 2 players, or a round out of 1..R × ``cycles``.
    """
    per_cycle = berger_rounds(count)
    if cycles == 1:
        return berger(count, number)
    if not 1 <= number <= per_cycle * cycles:
        raise ValueError(f"round {number} is not in 1..{per_cycle * cycles}")
    if number > per_cycle:
        return [(b, a) if b is not None else (a, b) for a, b in berger(count, number - per_cycle)]
    if per_cycle >= 3 and number >= per_cycle - 1:
        number = 2 * per_cycle - 1 - number  # R-1 <-> R
    return berger(count, number)


def _board_dict(board: Board) -> dict:
    """A board as JSON, without its empty fields (a thousand boards a round stay small)."""
    return {k: v for k, v in dataclasses.asdict(board).items() if v is not None or k == "second"}


__all__ = [
    "Format",
    "Phase",
    "RESULTS",
    "MIN_PLAYERS",
    "TournamentError",
    "Entrant",
    "Board",
    "Tournament",
    "berger_cycle",
]
