"""A player's data in the store: found, exported and erased (``/privacy``), and finished records swept past their
retention (``finished_retention``). README.md, "Privacy", says the same for people.

Where a user id or a display name is kept (keys from :class:`bot.storage.keys.Keys`):

- a channel's open challenge or running game (``game``): never touched here — a player in one is refused first;
- finished records (``done:<game id>``): the player becomes "a former player" (:mod:`bot.core.forgetting`, given
  as ``rewrite``), the game stays playable back and replayable;
- a player's history in each server (``u:<user id>:games``): deleted;
- each leaderboard (``{rt:<kind>:<scope>}``): their ``p:<user id>`` hash (rating, stats, name) deleted, their
  ``board`` entry removed, and their rating change taken out of every game's ``rated`` marker (the other player's
  stays: the game is never rated twice);
- a finished game's rematch votes (``rematch:<game id>``, 7 days): their vote removed;
- damaged records set aside for inspection (``quarantine:<when>``): deleted when they hold the id or the name.

The board images the web pages draw are never in Redis (:mod:`bot.web.boards`: a web process's memory, at most 15
minutes); their addresses cover the names shown, so once a game's record is rewritten its old boards answer 404 and
the pages draw them again, with "a former player".

Nothing else holds a user id or a name: deadlines and announcements name channels and games, settings are a
server's, command ids the application's, a game's analysis and hint counts (:mod:`bot.storage.analyses`) its moves and
seats; those two go with the finished record past its retention.

Finding them is a SCAN of the keyspace (finished records, histories, leaderboards): a rare, user-asked operation,
never on a move's path.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from engine.movetext import iso

from ..core.record import FORMER_NAME, Record, RecordError, Status
from ..core.tournament.event import Tournament
from .decoding import decoded, decoded_hash, decoded_list
from .finished_games import DONE, GAME_INDEX, Records
from .keys import Keys
from .ratings import Standing, scopes_of
from .store import guarded, writing
from .tournaments import Tournaments

log = logging.getLogger(__name__)

#: Keys read or written per round trip while scanning.
CHUNK = 200
#: Finished records deleted per retention sweep at most (the next sweep goes on).
SWEEP_LIMIT = 1000
_BOARD = re.compile(r"\{rt:([^:}]+):([^}]+)\}")
# KEYS: string keys; ARGV: 1 a text. Returns the keys whose value contains it (found in Redis: only those travel).
_HOLDING = """
local out = {}
for _, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value and string.find(value, ARGV[1], 1, true) then out[#out + 1] = key end
end
return out
"""


@dataclass(frozen=True)
class Erased:
    """What :meth:`Privacy.forget` changed: finished records rewritten, leaderboards left, histories deleted, rematch
    votes withdrawn, set-aside records deleted."""

    records: int = 0
    boards: int = 0
    histories: int = 0
    votes: int = 0
    quarantined: int = 0
    tournaments: int = 0


class Privacy:
    """One user's data across the store: :meth:`in_play`, :meth:`export`, :meth:`forget`; and the retention sweep.

    Args:
        records: the finished games (:class:`bot.storage.finished_games.Records`: its store, ratings and Redis).
    """

    def __init__(self, records: Records) -> None:
        self.records = records
        self.store = records.store
        self.ratings = records.ratings
        self.redis = records.redis
        self.keys = records.keys

    # --- finding ----------------------------------------------------------------------------------

    async def in_play(self, user_id: int) -> list[Record]:
        """The open challenges and running games ``user_id`` is in (seated, challenging or challenged): a SCAN of
        every channel's record."""
        found = []
        for channel_id in await self.store.channels_with_records():
            stored = await self.store.get(channel_id)
            if stored is not None and stored.record.involves(user_id):
                found.append(stored.record)
        return found

    async def finished_of(self, user_id: int) -> list[tuple[str, Record]]:
        """Every finished record involving ``user_id`` as ``(key, record)``, oldest first: a SCAN of every finished
        record (an index could miss one not yet indexed). Damaged ones are left out (logged)."""
        needle, found = str(user_id), []
        keys = [key async for key in self.redis.scan_iter(match=self.keys.FINISHED_PATTERN, count=1000)]
        for i in range(0, len(keys), CHUNK):
            chunk = await self._holding(keys[i : i + CHUNK], needle)
            for key, text in zip(chunk, await self._get_each(chunk)):
                if not text or needle not in text:
                    continue
                try:
                    record = Record.from_json(text)
                except RecordError as exc:
                    log.warning("privacy: skipping the damaged finished record %s: %s", key, exc)
                    continue
                if record.involves(user_id):
                    found.append((key, record))
        found.sort(key=lambda pair: (float(pair[1].ended or 0), pair[1].id))
        return found

    async def _holding(self, keys: list[str], needle: str) -> list[str]:
        """Those of ``keys`` whose value contains ``needle``: on one server decided in Redis (a script), so that only
        the matching records travel; on a Cluster (keys of many slots) every one is read here."""
        if self.keys.BUCKETS > 1 or not keys:
            return keys
        return decoded_list(await self.redis.eval(_HOLDING, len(keys), *keys, needle))

    async def _get_each(self, keys: list[str]) -> list[str | None]:
        async with self.redis.pipeline(transaction=False) as pipe:  # a Cluster's keys lie in many slots
            for key in keys:
                pipe.get(key)
            return [decoded(text) for text in await pipe.execute()]

    async def standings(self, user_id: int) -> list[tuple[str, str, Standing]]:
        """``(kind, scope, standing)`` on every leaderboard ``user_id`` is on (a server's, ``global``)."""
        found = []
        async for key in self.redis.scan_iter(match=Keys.rating_pattern(f"p:{user_id}"), count=1000):
            board = _BOARD.search(key)
            stored = decoded_hash(await self.redis.hgetall(key))
            if board and stored:
                found.append((board.group(1), board.group(2), Standing.from_hash(user_id, stored)))
        return sorted(found, key=lambda entry: (entry[0], entry[1] != "global", entry[1]))

    # --- export -----------------------------------------------------------------------------------

    async def export(self, user_id: int) -> dict:
        """Everything kept about ``user_id``, as JSON-ready data a person can read: times in ISO 8601 (UTC), ids as
        text (JSON readers lose digits of a snowflake as a number), no internals (no engine state, no rating model)::

            {"user_id": str,
             "games": [{"id", "game", "server", "channel", "started", "ended", "players": [{"name", "role": seat,
                        "you": bool}, ...], "options": {...}, "moves": [...], "result": str}, ...],  # oldest first
             "ratings": [{"game", "leaderboard": "global" | "server <id>", "rating": int, "uncertainty": int,
                          "provisional": bool, "games", "wins", "losses", "draws", "streak": int, "name": str,
                          "last_game": str, "by_seat": [{"wins", "losses", "draws"}, {...}]}, ...],
             "tournaments": [{"id", "name", "game", "format", "status", "server", "channel", "created",
                              "entry": {"name", "seed", "joined_round", "withdrew_before_round"},
                              "your_games": [{"round", "opponent": name | None, "result", "game"}, ...]}, ...]}

        (``result`` of a tournament game: ``win``, ``loss``, ``draw``, ``win by forfeit``, ``loss by forfeit``,
        ``bye``, ``rest``, or ``playing``.)
        """
        ratings = [
            {
                "game": kind,
                "leaderboard": "global" if scope == "global" else f"server {scope.removeprefix('g')}",
                "rating": s.rating,
                "uncertainty": s.uncertainty,
                "provisional": s.provisional,
                "games": s.games,
                "wins": s.wins,
                "losses": s.losses,
                "draws": s.draws,
                "streak": s.streak,
                "name": s.name,
                "last_game": _iso(s.last),
                "by_seat": [{"wins": won, "losses": lost, "draws": drawn} for won, lost, drawn in s.seats],
            }
            for kind, scope, s in await self.standings(user_id)
        ]
        games = [_game(record, user_id) for _key, record in await self.finished_of(user_id)]
        tournaments = [_tournament(t, user_id) for t in await Tournaments(self.redis, time.time).involving(user_id)]
        return {"user_id": str(user_id), "games": games, "ratings": ratings, "tournaments": tournaments}

    # --- forgetting -------------------------------------------------------------------------------

    async def forget(self, user_id: int, rewrite: Callable[[Record], Record]) -> Erased:
        """Erase ``user_id`` from the store (see the module docstring): each finished record → ``rewrite(record)``
        (rated first if it was not yet, so that the other player's rating counts it), their histories and
        leaderboard entries deleted, their rematch votes and set-aside records gone. The caller checks first that
        they are in no challenge or running game (:meth:`in_play`): those are left as they are. Safe to repeat.

        Raises:
            bot.storage.errors.StoreLost: the store lost its data (nothing more is written).
            redis.RedisError: Redis failed; what was erased stays erased, and forgetting again finishes it.
        """
        writing()
        finished = await self.finished_of(user_id)
        names = {
            p.name for _key, r in finished for p in (*r.players, r.aborted_by) if p is not None and p.id == user_id
        }
        done = await self.redis.smismember(DONE, [f"{r.channel_id}:{r.id}" for _key, r in finished]) if finished else []
        for (_key, record), processed in zip(finished, done):
            if not processed:
                await self.records.process(record)  # rated with them, before they are forgotten
        for key, record in finished:
            text = rewrite(record).to_json()
            await guarded(self.redis, self.keys.bucket(record.channel_id), ("SET", key, text, "XX"))
        boards = await self._leave_boards(user_id)
        histories = await self._delete_matching(Keys.user_games_pattern(user_id))
        votes = await self._withdraw_votes(user_id)
        quarantined = await self._drop_quarantined(user_id, names)
        tournaments = await Tournaments(self.redis, time.time).forget(user_id, FORMER_NAME)
        log.info("privacy: a user's data was erased: %d finished record(s), %d leaderboard(s)", len(finished), boards)
        return Erased(len(finished), boards, histories, votes, quarantined, tournaments)

    async def open_tournaments(self, user_id: int) -> list[Tournament]:
        """The tournaments ``user_id`` still takes part in (signed up or playing): forgetting waits for them."""
        return [t for t in await Tournaments(self.redis, time.time).involving(user_id) if t.open_for(user_id)]

    async def _leave_boards(self, user_id: int) -> int:
        """Delete the user's ``p:`` hash on every leaderboard, their ``board`` entry, and their side of each game's
        ``rated`` marker. Returns the leaderboards left."""
        left = 0
        async for key in self.redis.scan_iter(match=Keys.rating_pattern(f"p:{user_id}"), count=1000):
            board = _BOARD.search(key)
            if board is None:
                continue
            kind, scope = board.group(1), board.group(2)
            await self._scrub_rated(Keys.rating(kind, scope, "rated"), user_id)
            await guarded(self.redis, None, ("ZREM", Keys.rating(kind, scope, "board"), str(user_id)), ("DEL", key))
            left += 1
        return left

    async def _scrub_rated(self, rated: str, user_id: int) -> None:
        """Take ``user_id``'s rating change out of every game of one leaderboard's ``rated`` marker (JSON
        ``{"<user id>": [before, after], ...}``): the game stays marked rated."""
        needle = f'"{user_id}"'
        async for game_id, text in self.redis.hscan_iter(rated, count=500):
            if needle not in text:
                continue
            change = {uid: c for uid, c in json.loads(text).items() if uid != str(user_id)}
            await guarded(self.redis, None, ("HSET", rated, game_id, json.dumps(change)))

    async def _delete_matching(self, pattern: str) -> int:
        keys = [key async for key in self.redis.scan_iter(match=pattern, count=1000)]
        for key in keys:  # one at a time: on a Cluster they lie in many slots
            await guarded(self.redis, None, ("DEL", key))
        return len(keys)

    async def _withdraw_votes(self, user_id: int) -> int:
        withdrawn = 0
        async for key in self.redis.scan_iter(match=self.keys.rematch_pattern(), count=1000):
            if key.endswith(":started"):
                continue
            withdrawn += int((await guarded(self.redis, None, ("SREM", key, str(user_id))))[0])
        return withdrawn

    async def _drop_quarantined(self, user_id: int, names: set[str]) -> int:
        """Delete the set-aside (damaged) records holding the user's id or one of their names."""
        needles = {str(user_id), *filter(None, names)}
        dropped = 0
        for bucket in range(self.keys.BUCKETS):
            index = self.keys.quarantine_index(bucket)
            for key in decoded_list(await self.redis.zrange(index, 0, -1)):
                kind = decoded(await self.redis.type(key))
                if kind == "hash":
                    held = " ".join(decoded_hash(await self.redis.hgetall(key)).values())
                elif kind == "string":
                    held = decoded(await self.redis.get(key)) or ""
                else:  # set aside as a key of the wrong type: left to the operator
                    continue
                if any(needle in held for needle in needles):
                    await guarded(self.redis, bucket, ("DEL", key), ("ZREM", index, key))
                    dropped += 1
        return dropped

    # --- retention --------------------------------------------------------------------------------

    async def claim_retention(self, seconds: int) -> bool:
        """Claim the retention sweep for ``seconds`` (:data:`Keys.RETENTION_LOCK`, set only if no process holds it):
        True for the one process that gets it."""
        return bool(await self.redis.set(Keys.RETENTION_LOCK, "1", nx=True, ex=seconds))

    async def sweep_retention(self, before: float, limit: int = SWEEP_LIMIT) -> int:
        """Delete the finished records of games that ended before ``before`` (Unix seconds), at most ``limit``, with
        their index entries: the finished index, the game-id index, the done marker, the server's and the players'
        histories, and each leaderboard's ``rated`` marker of the game. Ratings stay. Returns how many were deleted.

        Raises:
            bot.storage.errors.StoreLost: the store lost its data.
            redis.RedisError: Redis failed (what was deleted stays deleted; the next sweep goes on).
        """
        swept = 0
        for bucket in range(self.keys.BUCKETS):
            index = self.keys.finished_index(bucket)
            members = decoded_list(
                await self.redis.zrangebyscore(index, "-inf", f"({before}", start=0, num=limit - swept)
            )
            for member in members:
                channel_id, _, game_id = member.partition(":")
                await self._delete_finished(bucket, index, member, int(channel_id), game_id)
                swept += 1
            if swept >= limit:
                break
        if swept:
            log.info("retention: deleted %d finished record(s) that ended before %s", swept, before)
        return swept

    async def _delete_finished(self, bucket: int, index: str, member: str, channel_id: int, game_id: str) -> None:
        key = self.keys.finished(channel_id, game_id)
        text = decoded(await self.redis.get(key))
        record = None
        if text:
            try:
                record = Record.from_json(text)
            except RecordError as exc:
                log.warning("retention: deleting the damaged finished record %s: %s", key, exc)
        if record is not None and record.status is Status.FINISHED:
            histories = [
                ("ZREM", Keys.guild_games(record.guild_id), game_id),
                *(("ZREM", Keys.user_games(record.guild_id, p.id), game_id) for p in record.players if p is not None),
            ]
            for scope in scopes_of(record):
                histories.append(("HDEL", Keys.rating(record.kind, scope, "rated"), game_id))
            for command in histories:  # one at a time: on a Cluster they lie in many slots
                await guarded(self.redis, None, command)
        await guarded(self.redis, None, ("HDEL", GAME_INDEX, game_id))
        for kept in (Keys.analysis(game_id), Keys.hints(game_id)):  # one at a time: on a Cluster in other slots
            await guarded(self.redis, None, ("DEL", kept))
        await guarded(self.redis, None, ("SREM", DONE, member))
        await guarded(self.redis, bucket, ("DEL", key), ("ZREM", index, member))


def _iso(ts: float | None) -> str | None:
    """Unix seconds → ``2025-01-02T18:04:11Z`` (UTC), None for none."""
    return iso(ts) if ts else None


def _game(record: Record, user_id: int) -> dict[str, Any]:
    """A finished game as its player reads it (see :meth:`Privacy.export`)."""
    return {
        "id": record.id,
        "game": record.kind,
        "server": str(record.guild_id),
        "channel": str(record.channel_id),
        "started": _iso(record.started or record.created),
        "ended": _iso(record.ended),
        "players": [
            {"name": p.name, "seat": seat, "you": p.id == user_id}
            for seat, p in enumerate(record.players)
            if p is not None
        ],
        "options": dict(record.options),
        "moves": list(record.game_state.get("moves", [])),
        "result": record.result.text if record.result else None,
    }


#: A tournament board's result for the player in seat 0 and in seat 1 (:data:`bot.core.tournament.event.RESULTS`).
_RESULT_WORDS = {
    "1-0": ("win", "loss"),
    "0-1": ("loss", "win"),
    "=": ("draw", "draw"),
    "+-": ("win by forfeit", "loss by forfeit"),
    "-+": ("loss by forfeit", "win by forfeit"),
    "--": ("loss by forfeit", "loss by forfeit"),
    "bye": ("bye", "bye"),
    "rest": ("rest", "rest"),
}


def _tournament(t: Tournament, user_id: int) -> dict[str, Any]:
    """A tournament as an entrant reads it: what it is, their entry and their games (see :meth:`Privacy.export`)."""
    entrant = t.entrant(user_id)
    names = {e.id: e.name for e in t.entrants}
    played = []
    for number, boards in enumerate(t.boards, start=1):
        for board in boards:
            if not board.has(user_id):
                continue
            seat = 0 if board.first == user_id else 1
            opponent = board.opponent(user_id)
            played.append(
                {
                    "round": number,
                    "opponent": names.get(opponent) if opponent is not None else None,
                    "result": _RESULT_WORDS[board.result][seat] if board.result in _RESULT_WORDS else "playing",
                    "game": board.game,
                }
            )
    return {
        "id": t.id,
        "name": t.name or None,
        "game": t.kind,
        "format": t.format.value,
        "status": t.phase.value,
        "server": str(t.guild_id),
        "channel": str(t.channel_id),
        "created": _iso(t.created),
        "entry": None
        if entrant is None
        else {
            "name": entrant.name,
            "seed": entrant.seed,
            "joined_round": entrant.joined,
            "withdrew_before_round": entrant.withdrawn,
        },
        "your_games": played,
    }


__all__ = ["Privacy", "Erased", "CHUNK", "SWEEP_LIMIT"]
