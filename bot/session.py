"""The game layer: challenge, accept, load, apply, commit, finish — once, for every game.

Pure of Discord: callers pass plain ids and names, and get back records and engine games. Every change is
computed from the stored record and committed with :meth:`bot.store.GameStore.commit` against the version
it was computed from; a lost race raises :class:`UserError` ("the game changed") and changes nothing.

A channel's record (``doc``) is a JSON dict::

    {"id": "k3x9q2ab", "kind": "hongkong", "status": "challenge" | "active" | "finished",
     "guild_id": int, "channel_id": int, "parent_id": int | None,   # parent_id: the channel a thread game came from
     "challenger": int, "opponent": int | None,                    # user ids; None: an open challenge
     "players": [{"id": int, "name": str} | None, ...],           # index = engine seat (player 0, player 1)
     "options": {...},                                             # engine new_game kwargs
     "state": {...} | None,                                        # engine to_dict() once accepted
     "created", "expires", "started", "updated", "turn_started", "deadline", "ended": float,  # Unix seconds
     "takeback": {"by": seat, "moves": int, "expires": float} | None,
     "rematch_of": str | None,
     "result": {"winner": 0 | 1 | None, "reason": "finished" | "resigned" | "timeout" | "aborted", "text": str}}
"""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import Callable

from engine import IllegalMove
from engine.result import Ended

from .deadlines import Deadline, Deadlines
from .kinds import Game, GameKind
from .store import GameStore, Stored

TAKEBACK_TIMEOUT = 300.0  # seconds an unanswered takeback request stays open


class UserError(Exception):
    """A refusal to show the user (ephemerally): what was wrong and what would be right."""


@dataclass(frozen=True)
class Person:
    """A Discord user as the game layer sees one: id and display name."""

    id: int
    name: str


@dataclass(frozen=True)
class Turn:
    """The outcome of a committed change to a running game.

    Attributes:
        doc: the record as committed (``status`` "active", or "finished" once the game ended).
        game: the engine game after the change.
        player: the seat (0/1) that moved, resigned, ran out of time or took back; None for an abort.
        move: the move in canonical notation, or None when no move was played.
        event: "move", "resigned", "timeout", "aborted" or "takeback".
    """

    doc: dict
    game: Game
    player: int | None
    move: str | None
    event: str = "move"

    @property
    def finished(self) -> bool:
        return self.doc["status"] == "finished"


def names(doc: dict) -> tuple[str, str]:
    """Display names of seat 0 and seat 1, as stored: safe to put in a Discord message (see :func:`safe_name`)."""
    return doc["players"][0]["name"], doc["players"][1]["name"]


def plain_names(doc: dict) -> tuple[str, str]:
    """Display names of seat 0 and seat 1 without the escapes that make them safe in messages (for images)."""
    return plain_name(doc["players"][0]["name"]), plain_name(doc["players"][1]["name"])


def ended_off_board(doc: dict) -> Ended | None:
    """For the renderers: how a finished game ended if not by play (resigned, out of time, aborted), else None."""
    result = doc.get("result")
    if not result or result.get("reason") == "finished":
        return None
    return Ended(result.get("winner"), result.get("reason", "aborted"))


_INVISIBLE = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u200b"), None)


def safe_name(name: str) -> str:
    """A display name fit to quote in a message: direction overrides and zero-width marks removed, white space
    folded, at most 32 characters (Discord's limit), markdown and mentions escaped (so a name can't ping anyone
    or restyle the message). Empty → ``"player"``."""
    import discord.utils

    name = " ".join((name or "").translate(_INVISIBLE).split())[:32] or "player"
    return discord.utils.escape_mentions(discord.utils.escape_markdown(name))


def plain_name(name: str) -> str:
    """Undo :func:`safe_name`'s escapes: ``"a\\_b"`` → ``"a_b"``."""
    return re.sub(r"\\(.)", r"\1", name).replace("\u200b", "")


def seat_of(doc: dict, user_id: int) -> int | None:
    """The seat (0/1) of ``user_id`` in the game, or None for a spectator."""
    for seat, player in enumerate(doc["players"]):
        if player and player["id"] == user_id:
            return seat
    return None


def turn_starts(kind: GameKind, doc: dict) -> list[tuple[int, int]]:
    """``[(move index, seat to move), ...]`` for every move that began a turn (not a dragon action mid-turn)."""
    game = kind.new_game(doc["options"])
    starts = []
    for i, move in enumerate(kind.load(doc["state"]).moves):
        if not getattr(game, "pending", None):
            starts.append((i, game.to_move))
        game.play(move)
    return starts


class GameLayer:
    """Drives every game kind through the engine contract and the store.

    Args:
        store: the Redis-backed :class:`GameStore`.
        kinds: the games hosted, by name.
        settings: per-server settings (turn timer, reminders); None → defaults (tests of the bare layer).
        challenge_timeout: seconds a challenge stays open.
        clock: returns Unix seconds (injectable for tests).
        rng: randomness for "random" options and game ids.
    """

    def __init__(
        self,
        store: GameStore,
        kinds: dict[str, GameKind],
        *,
        settings=None,
        challenge_timeout: float = 600.0,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        from .settings import SettingsStore

        self.store = store
        self.kinds = kinds
        self.settings = settings or SettingsStore(store.redis)
        self.deadlines = Deadlines(store.redis, clock)
        self.challenge_timeout = challenge_timeout
        self.clock = clock
        self.rng = rng or random.Random()

    # --- reading ----------------------------------------------------------------------------------

    async def current(self, channel_id: int) -> Stored | None:
        """The channel's live record: an open (unexpired) challenge or a running game, else None."""
        stored = await self.store.get(channel_id)
        if stored is None or self._expired(stored.doc):
            return None
        return stored

    async def running(self, channel_id: int, kind: GameKind | None = None) -> tuple[Stored, Game]:
        """The channel's running game and its engine state.

        Raises:
            UserError: no game here (or only a challenge), or (with ``kind``) the game here is another kind.
        """
        stored = await self.current(channel_id)
        if stored is None or stored.doc["status"] != "active":
            waiting = " (a challenge is waiting to be accepted)" if stored else ""
            hint = f"/{kind.name} challenge" if kind else "/hongkong challenge or /hong challenge"
            raise UserError(f"There is no game running in this channel{waiting}. Start one with {hint}.")
        doc = stored.doc
        if kind is not None and doc["kind"] != kind.name:
            other = self.kinds[doc["kind"]]
            raise UserError(f"The game in this channel is {other.title}: use /{other.name} commands here.")
        return stored, self.kinds[doc["kind"]].load(doc["state"])

    def _expired(self, doc: dict) -> bool:
        return doc["status"] == "challenge" and doc["expires"] <= self.clock()

    async def active_games(self, guild_id: int) -> list[tuple[dict, Game]]:
        """Every running game in the server: ``[(doc, engine game)]``, oldest first."""
        channels = await self.store.redis.smembers(self._active_key(guild_id))
        games = []
        for channel_id in channels:
            stored = await self.store.get(int(channel_id))
            if stored and stored.doc["status"] == "active":
                games.append((stored.doc, self.kinds[stored.doc["kind"]].load(stored.doc["state"])))
            else:
                await self.store.redis.srem(self._active_key(guild_id), channel_id)
        return sorted(games, key=lambda g: g[0].get("started", 0))

    @staticmethod
    def _active_key(guild_id: int) -> str:
        return f"hongbot:{{g:{guild_id}}}:active"

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(
        self,
        kind: GameKind,
        *,
        guild_id: int,
        channel_id: int,
        challenger: Person,
        opponent: Person | None,
        options: dict,
    ) -> dict:
        """Open a challenge in the channel (``opponent`` None: anyone but the challenger may accept).

        Returns the stored record (``status`` "challenge"); its expiry is scheduled.

        Raises:
            UserError: challenging yourself, or the channel already has a live challenge or game.
            IllegalMove: the options are not valid for the game (from the engine).
        """
        if opponent is not None and opponent.id == challenger.id:
            raise UserError("You can't challenge yourself. Pick another member as `opponent`, or leave it out "
                            "for an open challenge anyone can accept.")
        stored = await self.store.get(channel_id)
        if stored is not None and not self._expired(stored.doc):
            raise UserError(self._busy_message(stored.doc))
        seat, engine_options = kind.seat_options(options, self.rng)
        kind.new_game(engine_options)  # validates the options now rather than at accept time
        now = self.clock()
        players = [None, None]
        players[seat] = {"id": challenger.id, "name": challenger.name}
        if opponent is not None:
            players[1 - seat] = {"id": opponent.id, "name": opponent.name}
        doc = {
            "id": self._new_id(),
            "kind": kind.name,
            "status": "challenge",
            "guild_id": guild_id,
            "channel_id": channel_id,
            "parent_id": None,
            "challenger": challenger.id,
            "opponent": opponent.id if opponent else None,
            "players": players,
            "options": engine_options,
            "state": None,
            "created": now,
            "expires": now + self.challenge_timeout,
            "updated": now,
        }
        if await self.store.commit(channel_id, doc, stored.version if stored else 0) is None:
            raise UserError("Someone started a game in this channel at the same moment. Try again in a moment.")
        await self.deadlines.schedule((Deadline("expire", channel_id, doc["id"], 0), doc["expires"]))
        return doc

    async def start_computer_game(
        self, kind: GameKind, *, guild_id: int, channel_id: int, human: Person, computer: Person, level: str, options: dict
    ) -> tuple[dict, Game]:
        """Start a game against the computer at once (no challenge to accept). Unrated: the computer's seat is
        marked ``"bot": true``. Returns the record (``status`` "active") and the engine game.

        Raises:
            UserError: the channel already has a live challenge or game, or a race was lost.
            IllegalMove: the options are not valid for the game.
        """
        stored = await self.store.get(channel_id)
        if stored is not None and not self._expired(stored.doc):
            raise UserError(self._busy_message(stored.doc))
        seat, engine_options = kind.seat_options(options, self.rng)
        game = kind.new_game(engine_options)
        players = [None, None]
        players[seat] = {"id": human.id, "name": human.name}
        players[1 - seat] = {"id": computer.id, "name": computer.name, "bot": True, "level": level}
        now = self.clock()
        doc = {
            "id": self._new_id(), "kind": kind.name, "status": "active", "guild_id": guild_id,
            "channel_id": channel_id, "parent_id": None, "challenger": human.id, "opponent": computer.id,
            "players": players, "options": engine_options, "state": game.to_dict(),
            "created": now, "started": now, "updated": now,
        }
        doc = await self._with_deadline(doc, now)
        if await self.store.commit(channel_id, doc, stored.version if stored else 0) is None:
            raise UserError("Someone started a game in this channel at the same moment. Try again in a moment.")
        await self._arm_turn(doc, game)
        await self.store.redis.sadd(self._active_key(guild_id), channel_id)
        return doc, game

    def _new_id(self) -> str:
        return "".join(self.rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))

    def _busy_message(self, doc: dict) -> str:
        kind = self.kinds[doc["kind"]]
        if doc["status"] == "challenge":
            return (
                f"There is already an open {kind.title} challenge in this channel. "
                "Wait for it to be answered or to expire, or play in another channel."
            )
        a, b = names(doc)
        return (
            f"A game of {kind.title} is already running in this channel ({a} vs {b}). "
            f"Watch it with /{kind.name} board, or start yours in another channel."
        )

    async def remember_message(self, channel_id: int, game_id: str, message_id: int) -> None:
        """Note the challenge message's id, so it can be edited when the challenge expires.

        Kept beside the record (not in it), so noting it never races with an Accept click.
        """
        key = f"hongbot:{{ch:{channel_id}}}:msg:{game_id}"
        await self.store.redis.set(key, message_id, ex=int(self.challenge_timeout) + 86400)

    async def challenge_message(self, channel_id: int, game_id: str) -> int | None:
        """The challenge message's id noted by :meth:`remember_message`, if any."""
        value = await self.store.redis.get(f"hongbot:{{ch:{channel_id}}}:msg:{game_id}")
        return int(value) if value else None

    async def _challenge_for(self, channel_id: int, game_id: str) -> Stored:
        stored = await self.store.get(channel_id)
        if stored is None or stored.doc["id"] != game_id or stored.doc["status"] != "challenge":
            raise UserError("This challenge is no longer open.")
        if self._expired(stored.doc):
            raise UserError("This challenge has expired. Start a new one with the challenge command.")
        return stored

    async def accept(self, channel_id: int, game_id: str, user: Person) -> tuple[dict, Game]:
        """The challenged user (or, for an open challenge, anyone but the challenger) accepts: the game starts.

        Returns the record (``status`` "active") and the engine game; the first turn's deadlines are set.

        Raises:
            UserError: not the challenged user, the challenge is gone or expired, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        doc = stored.doc
        if user.id == doc["challenger"]:
            raise UserError("You can't accept your own challenge; you can withdraw it with Decline.")
        if doc["opponent"] is not None and user.id != doc["opponent"]:
            opponent = doc["players"][seat_of(doc, doc["opponent"])]["name"]
            raise UserError(f"Only {opponent} can accept this challenge.")
        players = [p or {"id": user.id, "name": user.name} for p in doc["players"]]
        kind = self.kinds[doc["kind"]]
        game = kind.new_game(doc["options"])
        now = self.clock()
        doc = {**doc, "status": "active", "opponent": user.id, "players": players, "state": game.to_dict(),
               "started": now, "updated": now}
        doc = await self._with_deadline(doc, now)
        if await self.store.commit(channel_id, doc, stored.version) is None:
            raise UserError("This challenge changed at the same moment (answered or withdrawn). Look again.")
        await self.deadlines.cancel(Deadline("expire", channel_id, game_id, 0))
        await self._arm_turn(doc, game)
        await self.store.redis.sadd(self._active_key(doc["guild_id"]), channel_id)
        return doc, game

    async def decline(self, channel_id: int, game_id: str, user_id: int) -> dict:
        """The challenged user declines, or the challenger withdraws; the challenge is removed. Returns its record.

        Raises:
            UserError: someone else clicked, the challenge is gone, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        doc = stored.doc
        if user_id != doc["challenger"] and (doc["opponent"] is None or user_id != doc["opponent"]):
            if doc["opponent"] is None:
                raise UserError("This is an open challenge: accept it to play, or let it expire.")
            raise UserError("Only the challenged player can decline this challenge (or the challenger withdraw it).")
        if await self.store.commit(channel_id, None, stored.version) is None:
            raise UserError("This challenge changed at the same moment. Look again.")
        await self.deadlines.cancel(Deadline("expire", channel_id, game_id, 0))
        return doc

    async def expire(self, channel_id: int, game_id: str) -> dict | None:
        """Remove the challenge ``game_id`` if it is still open and past its time; returns its record or None."""
        stored = await self.store.get(channel_id)
        if stored is None or stored.doc["id"] != game_id or not self._expired(stored.doc):
            return None
        if await self.store.commit(channel_id, None, stored.version) is None:
            return None
        return stored.doc

    async def move_to_thread(self, doc: dict, thread_id: int) -> dict:
        """Move a just-started game from its channel into ``thread_id`` (the game then lives there).

        Returns the record as stored in the thread. If the game changed in the channel meanwhile, it stays
        in the channel and that record is returned.
        """
        channel_id = doc["channel_id"]
        moved = {**doc, "channel_id": thread_id, "parent_id": channel_id}
        if await self.store.commit(thread_id, moved, 0) is None:
            return doc
        stored = await self.store.get(channel_id)
        if stored is None or stored.doc != doc or await self.store.commit(channel_id, None, stored.version) is None:
            await self.store.commit(thread_id, None, 1)
            return doc
        await self.deadlines.cancel_game(channel_id, doc["id"])
        await self._arm_turn(moved, self.kinds[doc["kind"]].load(doc["state"]))
        redis = self.store.redis
        await redis.srem(self._active_key(doc["guild_id"]), channel_id)
        await redis.sadd(self._active_key(doc["guild_id"]), thread_id)
        return moved

    # --- moves ------------------------------------------------------------------------------------

    async def play(self, kind: GameKind, channel_id: int, user_id: int, move: str, *, expected_state: dict | None = None) -> Turn:
        """Apply ``move`` for ``user_id`` to the channel's game and commit it atomically.

        Args:
            expected_state: if given, the move is only for this exact engine state (the computer's move, chosen for
                the position it was shown); any other position raises :class:`UserError`.

        Raises:
            UserError: no game, another game kind, a spectator, not their turn, their time ran out, a lost race.
            IllegalMove: the engine's reason the move is malformed or illegal (nothing is stored).
        """
        stored, game = await self.running(channel_id, kind)
        doc = stored.doc
        seat = self._player_seat(doc, user_id, kind)
        if expected_state is not None and doc["state"] != expected_state:
            raise UserError("The position changed while the move was being chosen.")
        if game.to_move != seat:
            waiting = doc["players"][game.to_move]["name"]
            raise UserError(f"It's not your turn: {waiting} ({kind.roles[game.to_move]}) is to move.")
        if doc.get("deadline") and self.clock() >= doc["deadline"]:
            raise UserError("Your time for this turn has run out: the game is being ended as a loss on time.")
        game.play(move)
        doc = {**doc, "takeback": None}
        return await self._commit(stored, doc, kind, game, Turn(doc, game, seat, game.moves[-1]))

    async def resign(self, kind: GameKind, channel_id: int, user_id: int) -> Turn:
        """``user_id`` resigns; the opponent wins. Returns the finished :class:`Turn`.

        Raises:
            UserError: no game, another kind, a spectator, or a lost race.
        """
        stored, game = await self.running(channel_id, kind)
        seat = self._player_seat(stored.doc, user_id, kind)
        return await self._commit(stored, stored.doc, kind, game, Turn(stored.doc, game, seat, None, "resigned"))

    async def forfeit(self, channel_id: int, game_id: str, marker: int) -> Turn | None:
        """The turn that began after ``marker`` moves ran out of time: the player to move loses.

        Returns the finished :class:`Turn`, or None if that turn is already over (a stale deadline).
        """
        stored = await self.store.get(channel_id)
        if not self._same_turn(stored, game_id, marker):
            return None
        kind = self.kinds[stored.doc["kind"]]
        game = kind.load(stored.doc["state"])
        try:
            return await self._commit(stored, stored.doc, kind, game, Turn(stored.doc, game, game.to_move, None, "timeout"))
        except UserError:
            return None

    async def reminder_due(self, channel_id: int, game_id: str, marker: int) -> tuple[dict, Game] | None:
        """The game and engine state to remind about, if the turn that began after ``marker`` moves still runs."""
        stored = await self.store.get(channel_id)
        if not self._same_turn(stored, game_id, marker):
            return None
        return stored.doc, self.kinds[stored.doc["kind"]].load(stored.doc["state"])

    def _same_turn(self, stored: Stored | None, game_id: str, marker: int) -> bool:
        return (
            stored is not None
            and stored.doc["id"] == game_id
            and stored.doc["status"] == "active"
            and len(self._game(stored.doc).moves) == marker
        )

    def _game(self, doc: dict) -> Game:
        """The engine game of a running record."""
        return self.kinds[doc["kind"]].load(doc["state"])

    async def abort(self, channel_id: int, by: Person) -> Turn:
        """An admin ends the channel's game, unrated, with nobody winning.

        Raises:
            UserError: no game running here, or a lost race.
        """
        stored, game = await self.running(channel_id)
        kind = self.kinds[stored.doc["kind"]]
        doc = {**stored.doc, "aborted_by": {"id": by.id, "name": by.name}}
        return await self._commit(stored, doc, kind, game, Turn(doc, game, None, None, "aborted"))

    def _player_seat(self, doc: dict, user_id: int, kind: GameKind) -> int:
        seat = seat_of(doc, user_id)
        if seat is None:
            a, b = names(doc)
            raise UserError(
                f"You're not playing in this game ({a} vs {b}). Watch with /{kind.name} board, "
                "or challenge someone in another channel."
            )
        return seat

    async def _with_deadline(self, doc: dict, now: float) -> dict:
        settings = await self.settings.get(doc["guild_id"])
        return {**doc, "turn_started": now, "deadline": now + settings.turn_timer}

    async def _commit(self, stored: Stored, doc: dict, kind: GameKind, game: Game, turn: Turn) -> Turn:
        """Commit ``doc`` with ``game``'s state: finished if the game is over or ``turn.event`` ends it."""
        now = self.clock()
        doc = {**doc, "state": game.to_dict(), "updated": now}
        channel_id = stored.doc["channel_id"]
        ending = turn.event in ("resigned", "timeout", "aborted") or game.is_over
        if ending:
            doc.update(status="finished", ended=now, takeback=None, result=self._result(kind, game, doc, turn))
            ok = await self.store.finish(channel_id, doc, stored.version)
        else:
            doc = await self._with_deadline(doc, now)
            ok = await self.store.commit(channel_id, doc, stored.version) is not None
        if not ok:
            raise UserError("The game changed at the same moment (another move, takeback or answer landed first). "
                            "Look at the board and try again.")
        if ending:
            await self.deadlines.cancel_game(channel_id, doc["id"])
            await self.store.redis.srem(self._active_key(doc["guild_id"]), channel_id)
        elif turn.event in ("move", "takeback"):
            await self._arm_turn(doc, game)
        return Turn(doc, game, turn.player, turn.move, turn.event)

    def _result(self, kind: GameKind, game: Game, doc: dict, turn: Turn) -> dict:
        players = doc["players"]
        if turn.event == "resigned":
            loser = turn.player
            return {"winner": 1 - loser, "reason": "resigned",
                    "text": f"{players[loser]['name']} resigned: {players[1 - loser]['name']} wins."}
        if turn.event == "timeout":
            loser = turn.player
            return {"winner": 1 - loser, "reason": "timeout",
                    "text": f"{players[loser]['name']} ran out of time: {players[1 - loser]['name']} wins."}
        if turn.event == "aborted":
            return {"winner": None, "reason": "aborted",
                    "text": f"Aborted by {doc['aborted_by']['name']}: no result, unrated."}
        return {"winner": game.winner, "reason": "finished", "text": kind.result(game, names(doc))}

    async def _arm_turn(self, doc: dict, game: Game) -> None:
        """Set the reminder (at half time, if reminders are on) and forfeit deadlines of the turn now running."""
        settings = await self.settings.get(doc["guild_id"])
        channel_id, marker = doc["channel_id"], len(game.moves)
        start = doc.get("turn_started", self.clock())
        await self.deadlines.cancel_game(channel_id, doc["id"])
        items = [(Deadline("forfeit", channel_id, doc["id"], marker), start + settings.turn_timer)]
        if settings.reminders:
            items.append((Deadline("remind", channel_id, doc["id"], marker), start + settings.turn_timer / 2))
        await self.deadlines.schedule(*items)

    async def rearm(self) -> int:
        """At start-up: make sure every open challenge and running game has its deadlines (``ZADD NX``).

        Covers a crash between a commit and its deadline write. Returns how many records were checked.
        """
        count = 0
        for channel_id in await self.store.channels_with_records():
            stored = await self.store.get(channel_id)
            if stored is None:
                continue
            doc = stored.doc
            count += 1
            if doc["status"] == "challenge":
                await self.deadlines.schedule((Deadline("expire", channel_id, doc["id"], 0), doc["expires"]), only_new=True)
            elif doc["status"] == "active":
                settings = await self.settings.get(doc["guild_id"])
                marker = len(self._game(doc).moves)
                start = doc.get("turn_started", doc["updated"])
                items = [(Deadline("forfeit", channel_id, doc["id"], marker), start + settings.turn_timer)]
                remind_at = start + settings.turn_timer / 2
                if settings.reminders and remind_at > self.clock():  # a past reminder has been sent: not twice
                    items.append((Deadline("remind", channel_id, doc["id"], marker), remind_at))
                await self.deadlines.schedule(*items, only_new=True)
                await self.store.redis.sadd(self._active_key(doc["guild_id"]), channel_id)
        return count

    # --- takebacks --------------------------------------------------------------------------------

    async def request_takeback(self, channel_id: int, user_id: int) -> tuple[dict, int] | Turn:
        """The caller asks to undo their last turn. Returns the record and the opponent's seat (who answers) —
        or, against the computer (which always agrees), the :class:`Turn` of the undone position at once.

        Raises:
            UserError: no game, a spectator, nothing of theirs to take back (the opponent has moved since, or no
                turn yet), a dragon summon in the middle of the turn, or a request already open.
        """
        stored, game = await self.running(channel_id)
        doc = stored.doc
        kind = self.kinds[doc["kind"]]
        seat = self._player_seat(doc, user_id, kind)
        if getattr(game, "pending", None):
            raise UserError("A dragon summon is in progress: finish the turn before asking for a takeback.")
        starts = turn_starts(kind, doc)
        if not any(mover == seat for _, mover in starts):
            raise UserError("You haven't played a turn yet: there is nothing to take back.")
        if doc["players"][1 - seat].get("bot"):
            return await self._undo_against_computer(stored, kind, seat, starts)
        if starts[-1][1] != seat:
            raise UserError("You can only take back your own last turn, before your opponent has moved.")
        open_request = doc.get("takeback")
        if open_request and open_request["expires"] > self.clock():
            raise UserError("A takeback request is already waiting for an answer.")
        request = {"by": seat, "moves": len(game.moves), "expires": self.clock() + TAKEBACK_TIMEOUT,
                   "nonce": self._new_id()[:4]}
        doc = {**doc, "takeback": request}
        if await self.store.commit(channel_id, doc, stored.version) is None:
            raise UserError("The game changed at the same moment. Look at the board and try again.")
        return doc, 1 - seat

    async def _undo_against_computer(self, stored: Stored, kind: GameKind, seat: int, starts: list) -> Turn:
        """Against the computer a takeback needs no answer: back to the start of the caller's last turn (undoing
        the computer's reply too, if it has moved since)."""
        start = max(index for index, mover in starts if mover == seat)
        game = kind.new_game(stored.doc["options"])
        for move in self._game(stored.doc).moves[:start]:
            game.play(move)
        doc = {**stored.doc, "takeback": None}
        return await self._commit(stored, doc, kind, game, Turn(doc, game, seat, None, "takeback"))

    async def answer_takeback(self, channel_id: int, game_id: str, moves: int, user_id: int, accept: bool,
                              nonce: str | None = None) -> Turn | dict:
        """The opponent answers a takeback request. Accepted → the last turn is undone (a :class:`Turn` with
        event "takeback"); declined → the request is dropped (the record is returned).

        Raises:
            UserError: not the opponent, the request is gone or expired, or the game moved on.
        """
        stored = await self.store.get(channel_id)
        doc = stored.doc if stored else None
        request = doc.get("takeback") if doc and doc["id"] == game_id and doc["status"] == "active" else None
        if not request or request["moves"] != moves or (nonce is not None and request.get("nonce") != nonce):
            raise UserError("This takeback request is no longer open.")
        if request["expires"] <= self.clock():
            raise UserError("This takeback request has expired.")
        kind = self.kinds[doc["kind"]]
        if seat_of(doc, user_id) != 1 - request["by"]:
            raise UserError(f"Only {doc['players'][1 - request['by']]['name']} can answer this takeback request.")
        if not accept:
            doc = {**doc, "takeback": None}
            if await self.store.commit(channel_id, doc, stored.version) is None:
                raise UserError("The game changed at the same moment. Look again.")
            return doc
        start = turn_starts(kind, doc)[-1][0]
        game = kind.new_game(doc["options"])
        for move in self._game(doc).moves[:start]:
            game.play(move)
        doc = {**doc, "takeback": None}
        return await self._commit(stored, doc, kind, game, Turn(doc, game, request["by"], None, "takeback"))

    # --- rematch ----------------------------------------------------------------------------------

    async def rematch(self, channel_id: int, game_id: str, user: Person) -> tuple[dict, Game] | str:
        """A player of the finished game ``game_id`` asks for a rematch. When both have asked, a new game starts in
        the same channel with the first player (or the roles) swapped: returns ``(doc, game)``. Otherwise returns
        the name of the player still to click.

        Raises:
            UserError: not one of the players, the game is unknown, the channel is busy, or the rematch already
                started.
        """
        record = await self.store.finished(channel_id, game_id)
        if record is None:
            raise UserError("That game is not found any more.")
        seat = seat_of(record, user.id)
        if seat is None:
            raise UserError("Only the two players of that game can ask for a rematch.")
        redis = self.store.redis
        votes_key = f"hongbot:{{ch:{channel_id}}}:rematch:{game_id}"
        other = record["players"][1 - seat]
        await redis.sadd(votes_key, user.id, *([other["id"]] if other.get("bot") else []))  # the computer always agrees
        await redis.expire(votes_key, 7 * 24 * 3600)
        if await redis.scard(votes_key) < 2:
            return record["players"][1 - seat]["name"]
        if not await redis.set(f"{votes_key}:started", "1", nx=True, ex=7 * 24 * 3600):
            raise UserError("The rematch has already started.")
        kind = self.kinds[record["kind"]]
        swap, options = kind.rematch(record["options"], self.rng)
        players = list(reversed(record["players"])) if swap else list(record["players"])
        game = kind.new_game(options)
        now = self.clock()
        doc = {
            "id": self._new_id(), "kind": kind.name, "status": "active", "guild_id": record["guild_id"],
            "channel_id": channel_id, "parent_id": record.get("parent_id"),
            "challenger": record["challenger"], "opponent": record["opponent"], "players": players,
            "options": options, "state": game.to_dict(), "created": now, "started": now, "updated": now,
            "rematch_of": game_id,
        }
        doc = await self._with_deadline(doc, now)
        if await self.store.commit(channel_id, doc, 0) is None:
            await redis.delete(f"{votes_key}:started")
            current = await self.store.get(channel_id)
            raise UserError(self._busy_message(current.doc) if current else "The channel is busy; try again.")
        await self._arm_turn(doc, game)
        await redis.sadd(self._active_key(doc["guild_id"]), channel_id)
        return doc, game


__all__ = ["GameLayer", "UserError", "Person", "Turn", "names", "plain_names", "safe_name", "seat_of", "IllegalMove",
           "turn_starts"]
