"""The game layer: challenge, accept, load, apply, commit, finish — once, for every game.

Pure of Discord: callers pass plain ids and names, and get back records and engine games. Every change is
computed from the stored record and committed with :meth:`bot.store.GameStore.commit` against the version
it was computed from; a lost race raises :class:`UserError` ("the game changed") and changes nothing.

A channel's record (``doc``) is a JSON dict::

    {"id": "k3x9q2ab", "kind": "hongkong", "status": "challenge" | "active" | "finished",
     "guild_id": int, "channel_id": int, "message_id": int | None,
     "challenger": int, "opponent": int,                 # user ids
     "players": [{"id": int, "name": str}, {...}],       # index = engine seat (player 0, player 1)
     "options": {...},                                   # engine new_game kwargs
     "state": {...} | None,                              # engine to_dict() once accepted
     "created": float, "expires": float, "started": float, "updated": float, "ended": float,  # Unix seconds
     "result": {"winner": 0 | 1 | None, "reason": "finished" | "resigned", "text": str}}
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable

from engine import IllegalMove

from .kinds import Game, GameKind
from .store import GameStore, Stored


class UserError(Exception):
    """A refusal to show the user (ephemerally): what was wrong and what would be right."""


@dataclass(frozen=True)
class Person:
    """A Discord user as the game layer sees one: id and display name."""

    id: int
    name: str


@dataclass(frozen=True)
class Turn:
    """The outcome of a committed move or resignation.

    Attributes:
        doc: the record as committed (``status`` "active", or "finished" once the game ended).
        game: the engine game after the move.
        player: the seat (0/1) that moved or resigned.
        move: the move in canonical notation, or None for a resignation.
    """

    doc: dict
    game: Game
    player: int
    move: str | None

    @property
    def finished(self) -> bool:
        return self.doc["status"] == "finished"


def names(doc: dict) -> tuple[str, str]:
    """Display names of seat 0 and seat 1."""
    return doc["players"][0]["name"], doc["players"][1]["name"]


def seat_of(doc: dict, user_id: int) -> int | None:
    """The seat (0/1) of ``user_id`` in the game, or None for a spectator."""
    for seat, player in enumerate(doc["players"]):
        if player["id"] == user_id:
            return seat
    return None


class GameLayer:
    """Drives every game kind through the engine contract and the store.

    Args:
        store: the Redis-backed :class:`GameStore`.
        kinds: the games hosted, by name.
        challenge_timeout: seconds a challenge stays open.
        clock: returns Unix seconds (injectable for tests).
        rng: randomness for "random" options and game ids.
    """

    def __init__(
        self,
        store: GameStore,
        kinds: dict[str, GameKind],
        *,
        challenge_timeout: float = 600.0,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.kinds = kinds
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

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(
        self, kind: GameKind, *, guild_id: int, channel_id: int, challenger: Person, opponent: Person, options: dict
    ) -> dict:
        """Open a challenge in the channel; returns the stored record (``status`` "challenge").

        Raises:
            UserError: challenging yourself, or the channel already has a live challenge or game.
            IllegalMove: the options are not valid for the game (from the engine).
        """
        if opponent.id == challenger.id:
            raise UserError("You can't challenge yourself. Pick another member as `opponent`.")
        stored = await self.store.get(channel_id)
        if stored is not None and not self._expired(stored.doc):
            raise UserError(self._busy_message(stored.doc))
        seat, engine_options = kind.seat_options(options, self.rng)
        kind.new_game(engine_options)  # validates the options now rather than at accept time
        now = self.clock()
        players = [None, None]
        players[seat] = {"id": challenger.id, "name": challenger.name}
        players[1 - seat] = {"id": opponent.id, "name": opponent.name}
        doc = {
            "id": "".join(self.rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8)),
            "kind": kind.name,
            "status": "challenge",
            "guild_id": guild_id,
            "channel_id": channel_id,
            "message_id": None,
            "challenger": challenger.id,
            "opponent": opponent.id,
            "players": players,
            "options": engine_options,
            "state": None,
            "created": now,
            "expires": now + self.challenge_timeout,
            "updated": now,
        }
        if await self.store.commit(channel_id, doc, stored.version if stored else 0) is None:
            raise UserError("Someone started a game in this channel at the same moment. Try again in a moment.")
        return doc

    def _busy_message(self, doc: dict) -> str:
        kind = self.kinds[doc["kind"]]
        a, b = names(doc)
        if doc["status"] == "challenge":
            return (
                f"There is already an open {kind.title} challenge in this channel ({a} vs {b}). "
                "Wait for it to be answered or to expire, or play in another channel."
            )
        return (
            f"A game of {kind.title} is already running in this channel ({a} vs {b}). "
            f"Watch it with /{kind.name} board, or start yours in another channel."
        )

    async def remember_message(self, channel_id: int, game_id: str, message_id: int) -> None:
        """Note the challenge message's id (so it can be edited when the challenge expires). Best effort."""
        stored = await self.store.get(channel_id)
        if stored and stored.doc["id"] == game_id and stored.doc.get("message_id") is None:
            await self.store.commit(channel_id, {**stored.doc, "message_id": message_id}, stored.version)

    async def _challenge_for(self, channel_id: int, game_id: str) -> Stored:
        stored = await self.store.get(channel_id)
        if stored is None or stored.doc["id"] != game_id or stored.doc["status"] != "challenge":
            raise UserError("This challenge is no longer open.")
        if self._expired(stored.doc):
            raise UserError("This challenge has expired. Start a new one with the challenge command.")
        return stored

    async def accept(self, channel_id: int, game_id: str, user_id: int) -> tuple[dict, Game]:
        """The opponent accepts: the game starts. Returns the record (``status`` "active") and the engine game.

        Raises:
            UserError: not the challenged user, the challenge is gone or expired, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        doc = stored.doc
        if user_id != doc["opponent"]:
            if user_id == doc["challenger"]:
                raise UserError("You can't accept your own challenge; you can withdraw it with Decline.")
            opponent = doc["players"][seat_of(doc, doc["opponent"])]["name"]
            raise UserError(f"Only {opponent} can accept this challenge.")
        kind = self.kinds[doc["kind"]]
        game = kind.new_game(doc["options"])
        now = self.clock()
        doc = {**doc, "status": "active", "state": game.to_dict(), "started": now, "updated": now}
        if await self.store.commit(channel_id, doc, stored.version) is None:
            raise UserError("This challenge changed at the same moment (answered or withdrawn). Look again.")
        return doc, game

    async def decline(self, channel_id: int, game_id: str, user_id: int) -> dict:
        """The opponent declines, or the challenger withdraws; the challenge is removed. Returns its record.

        Raises:
            UserError: someone else clicked, the challenge is gone, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        if user_id not in (stored.doc["opponent"], stored.doc["challenger"]):
            raise UserError("Only the challenged player can decline this challenge (or the challenger withdraw it).")
        if await self.store.commit(channel_id, None, stored.version) is None:
            raise UserError("This challenge changed at the same moment. Look again.")
        return stored.doc

    async def expire(self, channel_id: int, game_id: str) -> dict | None:
        """Remove the challenge ``game_id`` if it is still open and past its time; returns its record or None."""
        stored = await self.store.get(channel_id)
        if stored is None or stored.doc["id"] != game_id or not self._expired(stored.doc):
            return None
        if await self.store.commit(channel_id, None, stored.version) is None:
            return None
        return stored.doc

    # --- moves ------------------------------------------------------------------------------------

    async def play(self, kind: GameKind, channel_id: int, user_id: int, move: str) -> Turn:
        """Apply ``move`` for ``user_id`` to the channel's game and commit it atomically.

        Raises:
            UserError: no game, another game kind, a spectator, not their turn, a lost race.
            IllegalMove: the engine's reason the move is malformed or illegal (nothing is stored).
        """
        stored, game = await self.running(channel_id, kind)
        doc = stored.doc
        seat = self._player_seat(doc, user_id, kind)
        if game.to_move != seat:
            waiting = doc["players"][game.to_move]["name"]
            raise UserError(f"It's not your turn: {waiting} ({kind.roles[game.to_move]}) is to move.")
        game.play(move)
        return await self._commit_turn(stored, kind, game, seat, game.moves[-1])

    async def resign(self, kind: GameKind, channel_id: int, user_id: int) -> Turn:
        """``user_id`` resigns; the opponent wins. Returns the finished :class:`Turn`.

        Raises:
            UserError: no game, another kind, a spectator, or a lost race.
        """
        stored, game = await self.running(channel_id, kind)
        seat = self._player_seat(stored.doc, user_id, kind)
        return await self._commit_turn(stored, kind, game, seat, None)

    def _player_seat(self, doc: dict, user_id: int, kind: GameKind) -> int:
        seat = seat_of(doc, user_id)
        if seat is None:
            a, b = names(doc)
            raise UserError(
                f"You're not playing in this game ({a} vs {b}). Watch with /{kind.name} board, "
                "or challenge someone in another channel."
            )
        return seat

    async def _commit_turn(self, stored: Stored, kind: GameKind, game: Game, seat: int, move: str | None) -> Turn:
        now = self.clock()
        doc = {**stored.doc, "state": game.to_dict(), "updated": now}
        if move is None or game.is_over:
            winner = 1 - seat if move is None else game.winner
            text = kind.result(game, names(doc)) if move is not None else (
                f"{doc['players'][seat]['name']} resigned: {doc['players'][1 - seat]['name']} wins."
            )
            doc.update(
                status="finished",
                ended=now,
                result={"winner": winner, "reason": "resigned" if move is None else "finished", "text": text},
            )
            ok = await self.store.finish(stored.doc["channel_id"], doc, stored.version)
        else:
            ok = await self.store.commit(stored.doc["channel_id"], doc, stored.version) is not None
        if not ok:
            raise UserError("The game changed while your move was being checked (another move landed first). "
                            "Look at the board and try again.")
        return Turn(doc, game, seat, move)


__all__ = ["GameLayer", "UserError", "Person", "Turn", "names", "seat_of", "IllegalMove"]
