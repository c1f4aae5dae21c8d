"""A channel's game record: typed, versioned, validated on load.

One :class:`Record` per challenge or game, stored as JSON (see :mod:`bot.storage.store` for where). Every record
written carries ``"schema": SCHEMA``; :meth:`Record.from_json` migrates older layouts and refuses a damaged or
unknown one with :class:`RecordError` (never a ``KeyError`` deep in a handler).

Layout (schema 3)::

    {"schema": 3, "id": "k3x9q2ab", "kind": "hongkong", "status": "challenge" | "active" | "finished",
     "guild_id": int, "channel_id": int, "parent_id": int | null,    # parent_id: the channel a thread game came from
     "challenger": int, "opponent": int | null,                      # user ids; null: an open challenge
     "players": [{"id": int, "name": str, "bot": bool, "level": str | null} | null, ...],  # seat; name plain
     "options": {...},                                               # engine new_game kwargs
     "state": {...} | null,                                          # engine to_dict() once accepted
     "created", "updated": float, "expires", "started", "turn_started", "deadline", "ended": float | null,
     "takeback": {"by": seat, "moves": int, "expires": float, "nonce": str, "refused": bool} | null,
     "rematch_of": str | null, "aborted_by": player | null,
     "result": {"winner": 0 | 1 | null, "reason": "finished" | "resigned" | "timeout" | "aborted", "text": str} | null}

Schema 1 (before versioning) had no ``schema`` key, and Hong Kong's engine state kept its move list under
``"turns"``; schemas 1 and 2 stored players' names escaped for Discord markdown. :func:`migrate` brings both to
schema 3 (plain names, see :mod:`bot.i18n.names`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from engine.result import EndReason, Ended

from ..i18n import N_, _
from ..i18n.names import escape, unescape

#: The layout written by this version. Bump it (and extend :func:`migrate`) whenever the layout changes.
SCHEMA = 3
#: The user id a forgotten player is stored under (``/privacy forget``): no Discord user has it.
FORMER_ID = 0
#: A forgotten player's stored name (English; shown translated, :attr:`Player.plain`).
FORMER_NAME = N_("a former player")


class RecordError(ValueError):
    """A stored record that cannot be used: damaged (not JSON, a field missing or of the wrong type) or written
    by a newer version (an unknown ``schema``). The message names the record and what was wrong."""


class Status(str, Enum):
    """Where a record is in its life: an open challenge, a game being played, or a finished game."""

    CHALLENGE = "challenge"
    ACTIVE = "active"
    FINISHED = "finished"


class Event(str, Enum):
    """What a committed change to a running game was."""

    MOVE = "move"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ABORTED = "aborted"
    TAKEBACK = "takeback"

    @property
    def ends_game(self) -> bool:
        """True for a resignation, a timeout or an abort: the game ends whatever the board says."""
        return self in (Event.RESIGNED, Event.TIMEOUT, Event.ABORTED)


@dataclass(frozen=True)
class Player:
    """A seat's occupant: a Discord user, or the computer (``bot`` True, with its ``level``).

    ``name`` is the plain display name (as :func:`bot.i18n.names.clean` leaves it; never escaped): images draw it,
    messages show :attr:`shown`.
    """

    id: int
    name: str
    bot: bool = False
    level: str | None = None

    @property
    def former(self) -> bool:
        """A player who had their data erased (``/privacy forget``): id :data:`FORMER_ID`, "a former player"."""
        return self.id == FORMER_ID and not self.bot

    @property
    def plain(self) -> str:
        """The name to show, plain: as stored, or "a former player" in the current language."""
        return _(FORMER_NAME) if self.former else self.name

    @property
    def shown(self) -> str:
        """The name escaped once for a Discord message (markdown and mentions, see :func:`bot.i18n.names.escape`)."""
        return escape(self.plain)


@dataclass(frozen=True)
class Result:
    """How a finished game ended: the winning seat (None: a draw or an abort), why, and the result in words."""

    winner: int | None
    reason: EndReason
    text: str

    @property
    def ended_off_board(self) -> Ended | None:
        """For the renderers: an :class:`~engine.result.Ended` when the game did not end by play, else None."""
        return Ended(self.winner, self.reason) if self.reason.off_board else None


@dataclass(frozen=True)
class Takeback:
    """This turn's takeback request: the seat that asked, the move count it applies to, its expiry (Unix seconds),
    a nonce carried by its buttons (so an old request's button never answers a newer one), and whether the opponent
    refused it. It stays in the record, answered or not, until the turn ends: one request a turn."""

    by: int
    moves: int
    expires: float
    nonce: str = ""
    refused: bool = False


@dataclass(frozen=True)
class Record:
    """One channel's challenge or game. Immutable: change it with :meth:`replace`.

    Times are Unix seconds (float). ``players`` is indexed by engine seat (0, 1); a seat is None while an open
    challenge waits for someone to accept.
    """

    id: str
    kind: str
    status: Status
    guild_id: int
    channel_id: int
    challenger: int
    opponent: int | None
    players: tuple[Player | None, Player | None]
    options: dict = field(default_factory=dict)
    state: dict | None = None
    created: float = 0.0
    updated: float = 0.0
    parent_id: int | None = None
    expires: float | None = None
    started: float | None = None
    turn_started: float | None = None
    deadline: float | None = None
    ended: float | None = None
    takeback: Takeback | None = None
    rematch_of: str | None = None
    aborted_by: Player | None = None
    result: Result | None = None
    #: Seconds a turn may last in this game (a tournament's turn timer), None: the server's setting.
    turn_timer: float | None = None
    schema: int = SCHEMA

    # --- convenience ------------------------------------------------------------------------------

    def replace(self, **changes: Any) -> "Record":
        """A copy with ``changes`` applied (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    @property
    def finished(self) -> bool:
        return self.status is Status.FINISHED

    @property
    def names(self) -> tuple[str, str]:
        """Display names of seat 0 and seat 1 for a Discord message (:attr:`Player.shown`: escaped once)."""
        return self.player(0).shown, self.player(1).shown

    @property
    def plain_names(self) -> tuple[str, str]:
        """Display names of seat 0 and seat 1 as stored, unescaped (for images, thread names, choice labels); a
        forgotten player's in the current language."""
        return self.player(0).plain, self.player(1).plain

    def player(self, seat: int) -> Player:
        """The occupant of ``seat`` (0 or 1). Raises ``LookupError`` for an empty seat (an open challenge)."""
        occupant = self.players[seat]
        if occupant is None:
            raise LookupError(f"seat {seat} of {self.id} is empty")
        return occupant

    @property
    def game_state(self) -> dict:
        """The engine state of a started (running or finished) game. Raises ``LookupError`` for a challenge: no
        game yet."""
        if self.state is None:
            raise LookupError(f"{self.id} is a challenge: it has no game state yet")
        return self.state

    def player_of(self, user_id: int) -> Player:
        """The seated player ``user_id`` (a player, or the user a challenge is for). Raises ``LookupError`` for anyone
        else."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise LookupError(f"{user_id} has no seat in {self.id}")
        return self.player(seat)

    def seat_of(self, user_id: int) -> int | None:
        """The seat (0/1) of ``user_id``, or None for a spectator."""
        for seat, occupant in enumerate(self.players):
            if occupant is not None and occupant.id == user_id:
                return seat
        return None

    def involves(self, user_id: int) -> bool:
        """Whether ``user_id`` is in this record at all: seated, the challenger, the one challenged, or who aborted."""
        return (
            self.seat_of(user_id) is not None
            or user_id in (self.challenger, self.opponent)
            or (self.aborted_by is not None and self.aborted_by.id == user_id)
        )

    def forgetting(self, user_id: int) -> "Record":
        """This record with ``user_id`` erased (``/privacy forget``): their seat, challenger/opponent id and abort
        become :data:`FORMER_ID` / :data:`FORMER_NAME`; everything else (moves, options, result) stays, so the game
        still loads and replays. The result's stored words name them: the caller rewrites ``result.text`` (it needs
        the game's kind, :func:`bot.core.forgetting.forget`)."""
        former = Player(FORMER_ID, FORMER_NAME)
        return self.replace(
            players=tuple(former if p is not None and p.id == user_id and not p.bot else p for p in self.players),
            challenger=FORMER_ID if self.challenger == user_id else self.challenger,
            opponent=FORMER_ID if self.opponent == user_id else self.opponent,
            aborted_by=former if self.aborted_by is not None and self.aborted_by.id == user_id else self.aborted_by,
        )

    def mention(self, seat: int) -> str:
        """``<@id>`` of the player in ``seat``."""
        return f"<@{self.player(seat).id}>"

    @property
    def ended_off_board(self) -> Ended | None:
        """How a finished game ended if not by play (resigned, out of time, aborted), else None."""
        return self.result.ended_off_board if self.result else None

    # --- JSON -------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Plain JSON-ready data in the current layout (enums as their values)."""
        data = _plain(dataclasses.asdict(self))
        if data["turn_timer"] is None:  # (kept out unless set: most games have none)
            del data["turn_timer"]
        return data

    def to_json(self) -> str:
        """Compact JSON text of :meth:`to_dict` (UTF-8 kept, no spaces), written without copying the engine's state
        and the options first (plain JSON data already): a commit writes one on every move."""
        data = {name: _json_ready(getattr(self, name)) for name in _RECORD_FIELDS}
        if data["turn_timer"] is None:
            del data["turn_timer"]
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Record":
        """Parse, migrate and validate a stored record.

        Raises:
            RecordError: not JSON, a layout newer than :data:`SCHEMA`, or a field missing or malformed.
        """
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"a stored record is not JSON ({exc})") from exc
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Record":
        """:meth:`from_json` for already-decoded data (any schema this version knows).

        Raises:
            RecordError: as for :meth:`from_json`.
        """
        if not isinstance(data, Mapping):
            raise RecordError("a stored record is not a JSON object")
        d = migrate(data)
        label = f"record {d.get('id')!r}"
        try:
            return cls(
                id=_text(d["id"], "id"),
                kind=_text(d["kind"], "kind"),
                status=Status(d["status"]),
                guild_id=_int(d["guild_id"], "guild_id"),
                channel_id=_int(d["channel_id"], "channel_id"),
                challenger=_int(d["challenger"], "challenger"),
                opponent=_opt(d.get("opponent"), _int, "opponent"),
                players=_players(d["players"]),
                options=_mapping(d.get("options", {}), "options"),
                state=_opt(d.get("state"), _mapping, "state"),
                created=_num(d.get("created", 0.0), "created"),
                updated=_num(d.get("updated", 0.0), "updated"),
                parent_id=_opt(d.get("parent_id"), _int, "parent_id"),
                expires=_opt(d.get("expires"), _num, "expires"),
                started=_opt(d.get("started"), _num, "started"),
                turn_started=_opt(d.get("turn_started"), _num, "turn_started"),
                deadline=_opt(d.get("deadline"), _num, "deadline"),
                ended=_opt(d.get("ended"), _num, "ended"),
                takeback=_opt(d.get("takeback"), _takeback, "takeback"),
                rematch_of=_opt(d.get("rematch_of"), _text, "rematch_of"),
                aborted_by=_opt(d.get("aborted_by"), _player, "aborted_by"),
                result=_opt(d.get("result"), _result, "result"),
                turn_timer=_opt(d.get("turn_timer"), _num, "turn_timer"),
            )._checked()
        except RecordError as exc:
            raise RecordError(f"{label} is damaged: {exc}") from exc
        except KeyError as exc:
            raise RecordError(f"{label} is damaged: the field {exc} is missing") from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"{label} is damaged: {exc}") from exc

    def _checked(self) -> "Record":
        """Cross-field checks: what a running or finished game must have."""
        if self.status is not Status.CHALLENGE:
            if self.state is None or any(p is None for p in self.players):
                raise RecordError(f"a {self.status.value} game needs its state and both players")
        if self.status is Status.CHALLENGE and self.expires is None:
            raise RecordError("a challenge needs its expiry time")
        if self.status is Status.FINISHED and self.result is None:
            raise RecordError("a finished game needs its result")
        return self


#: The names of a record's fields, in order (:meth:`Record.to_json`).
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(Record))


def migrate(data: Mapping[str, Any]) -> dict:
    """``data`` (a decoded record of any known schema) in the current layout, as a new dict.

    Schema 1 → 2: ``schema`` added; a Hong Kong engine state's ``turns`` becomes ``moves`` (the engine contract's
    name for the move list). Schema 2 → 3: players' names (and an abort's ``aborted_by``) were stored escaped for
    Discord markdown; they are stored plain now (:func:`bot.i18n.names.unescape`). A result's ``text`` is a message
    sentence and stays as it was (its names escaped once).

    Raises:
        RecordError: a schema newer than :data:`SCHEMA` (written by a newer version of the bot) or not a number.
    """
    d = dict(data)
    schema = d.get("schema", 1)
    if type(schema) is not int or schema < 1:
        raise RecordError(f"record {d.get('id')!r} has an unreadable schema {schema!r}")
    if schema > SCHEMA:
        raise RecordError(
            f"record {d.get('id')!r} has schema {schema}, newer than this bot's {SCHEMA}: upgrade the bot to read it"
        )
    if schema == 1:
        state = d.get("state")
        if isinstance(state, Mapping) and "turns" in state and "moves" not in state:
            state = dict(state)
            state["moves"] = state.pop("turns")
            d["state"] = state
        schema = 2
    if schema == 2:
        d["players"] = _unescaped_players(d.get("players"))
        if isinstance(d.get("aborted_by"), Mapping):
            d["aborted_by"] = _unescaped(d["aborted_by"])
    d["schema"] = SCHEMA
    return d


def _unescaped(player: Any) -> Any:
    if isinstance(player, Mapping) and isinstance(player.get("name"), str):
        return {**player, "name": unescape(player["name"])}
    return player


def _unescaped_players(players: Any) -> Any:
    if isinstance(players, (list, tuple)):
        return [_unescaped(p) for p in players]
    return players  # malformed: validation names it


# --- field readers (each raises TypeError/ValueError with the field's name) --------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _json_ready(value: Any) -> Any:
    """``value`` as :meth:`Record.to_dict` has it, for ``json.dumps``: the record's own dataclasses as dicts and its
    enums as their values; a dict (the engine's state, the options: plain JSON data) as it is, uncopied."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (Player, Result, Takeback)):
        return {f.name: _json_ready(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_json_ready(v) for v in value]
    return value


def _opt(value: Any, read, name: str) -> Any:
    return None if value is None else read(value, name)


def _int(value: Any, name: str) -> int:
    if type(value) is not int:
        raise TypeError(f"{name} must be a whole number, not {value!r}")
    return value


def _num(value: Any, name: str) -> float:
    if type(value) not in (int, float):
        raise TypeError(f"{name} must be a number, not {value!r}")
    return float(value)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be non-empty text, not {value!r}")
    return value


def _mapping(value: Any, name: str) -> dict:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be an object, not {type(value).__name__}")
    return dict(value)


def _player(value: Any, name: str = "player") -> Player:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be an object")
    level = value.get("level")
    if level is not None and not isinstance(level, str):
        raise TypeError(f"{name}'s level must be text")
    return Player(_int(value["id"], f"{name}'s id"), str(value["name"]), bool(value.get("bot", False)), level)


def _players(value: Any) -> tuple[Player | None, Player | None]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise TypeError("players must be a list of two seats")
    first, second = value
    return (None if first is None else _player(first, "seat 0"), None if second is None else _player(second, "seat 1"))


def _takeback(value: Any, name: str) -> Takeback:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be an object")
    by = _int(value["by"], "takeback's seat")
    if by not in (0, 1):
        raise ValueError("takeback's seat must be 0 or 1")
    return Takeback(
        by,
        _int(value["moves"], "takeback's moves"),
        _num(value["expires"], "takeback's expiry"),
        str(value.get("nonce", "")),
        bool(value.get("refused", False)),
    )


def _result(value: Any, name: str) -> Result:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be an object")
    winner = value.get("winner")
    if winner not in (None, 0, 1) or isinstance(winner, bool):
        raise ValueError(f"the winner must be 0, 1 or null, not {winner!r}")
    return Result(winner, EndReason(value.get("reason", "finished")), str(value.get("text", "")))


__all__ = [
    "SCHEMA",
    "FORMER_ID",
    "FORMER_NAME",
    "Record",
    "RecordError",
    "Player",
    "Result",
    "Takeback",
    "Status",
    "Event",
    "migrate",
]
