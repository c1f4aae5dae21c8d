"""Finished games: indexed for history and replays, and rated — each exactly once, even after a crash.

The record itself is the finished game's :class:`bot.core.record.Record` that :meth:`bot.storage.store.GameStore.finish`
writes in the same atomic step that ends the game (id, kind, options, players, result and how it ended, times,
guild and channel, and the engine state with the full move list). Records are kept — forever by default, or
``finished_retention`` days (:meth:`bot.storage.privacy.Privacy.sweep_retention`) — and Redis persists them
(append-only file when embedded); a player who asks to be forgotten becomes "a former player" in them
(:mod:`bot.storage.privacy`). This module adds the indexes the commands read (keys from
:class:`bot.storage.keys.Keys`):

- ``GAME_INDEX`` — hash game id → channel id: find a game by its id alone;
- ``guild_games`` — sorted set game id → end time: a server's history;
- ``user_games`` — sorted set game id → end time: a player's games in a server;
- ``RECORDS_DONE`` — set of ``<channel id>:<game id>`` whose indexing and rating are complete.

:meth:`Records.on_finished` runs when a game ends: index (idempotent writes), rate
(:meth:`bot.storage.ratings.Ratings.apply`, exactly once per leaderboard), then mark done. It never raises: if
anything fails the result is still stored (the game ended before this runs), the error is logged, and
:meth:`Records.sweep` — at start-up over every finished game, and after each finished game over the last
day — completes whatever was left undone.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from .ratings import Ratings
from ..core.record import Record, Status
from .store import GameStore, guarded, marker
from .keys import Keys
from .decoding import decoded_list

log = logging.getLogger(__name__)

GAME_INDEX = Keys.GAME_INDEX
DONE = Keys.RECORDS_DONE
#: How far back the sweep after each finished game looks (seconds).
CATCH_UP_WINDOW = 24 * 3600
guild_games_key = Keys.guild_games
user_games_key = Keys.user_games


class Records:
    """Finished-game records: indexing, look-up by id, history, and the exactly-once rating step.

    Args:
        store: the :class:`GameStore` (its Redis client is used for everything here).
        ratings: the :class:`Ratings` to apply results to.
        clock: Unix seconds (injectable for tests).
    """

    def __init__(self, store: GameStore, ratings: Ratings, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.redis = store.redis
        self.keys = store.keys
        self.ratings = ratings
        self.clock = clock

    # --- when a game ends -------------------------------------------------------------------------

    async def on_finished(self, record: Record, *, catch_up: bool = True) -> bool:
        """Index and rate a game that just finished; then (``catch_up``) finish any recent game left undone.

        Never raises. Returns True if this game is now completely processed, False if something failed
        (logged; the next sweep retries). Calling it again, or from another process at the same time, is
        harmless: indexing is idempotent and ratings are applied exactly once.
        """
        ok = True
        try:
            await self.process(record)
        except Exception:
            ok = False
            log.exception("recording finished game %s failed; the next sweep will retry", record.id)
        if catch_up:
            try:
                await self.sweep(since=self.clock() - CATCH_UP_WINDOW)
            except Exception:
                log.exception("catching up on recently finished games failed")
        return ok

    async def process(self, record: Record) -> None:
        """Index ``record``, apply its ratings, and mark it done (each step safe to repeat).

        Raises:
            ValueError: the record is not of a finished game.
            redis.RedisError, RuntimeError: on failure; what was done stays done.
        """
        if record.status is not Status.FINISHED:
            raise ValueError(f"game {record.id} is not finished (status {record.status.value!r})")
        await self.index(record)
        await self.ratings.apply(record)
        await guarded(self.redis, None, ("SADD", DONE, f"{record.channel_id}:{record.id}"))

    async def index(self, record: Record) -> None:
        """Write the look-up indexes of a finished game (idempotent)."""
        gid, ended = record.id, float(record.ended or 0)
        if marker(self.redis, None):  # one server: all at once, refused when the store lost its data
            await guarded(
                self.redis,
                None,
                ("HSET", GAME_INDEX, gid, str(record.channel_id)),
                (
                    "ZADD",
                    self.keys.finished_index(self.keys.bucket(record.channel_id)),
                    ended,
                    f"{record.channel_id}:{gid}",
                ),
                ("ZADD", guild_games_key(record.guild_id), ended, gid),
                *(
                    ("ZADD", user_games_key(record.guild_id, record.player(seat).id), ended, gid)
                    for seat in (0, 1)
                    if not record.player(seat).former
                ),
            )
            return
        async with self.redis.pipeline(transaction=False) as pipe:  # on a Cluster: keys of many slots
            pipe.hset(GAME_INDEX, gid, str(record.channel_id))
            pipe.zadd(
                self.keys.finished_index(self.keys.bucket(record.channel_id)), {f"{record.channel_id}:{gid}": ended}
            )
            pipe.zadd(guild_games_key(record.guild_id), {gid: ended})
            for seat in (0, 1):
                if not record.player(seat).former:  # a forgotten player has no history
                    pipe.zadd(user_games_key(record.guild_id, record.player(seat).id), {gid: ended})
            await pipe.execute()

    async def sweep(self, *, since: float | None = None, scan: bool = False) -> int:
        """Process every finished game not yet done, oldest first (so ratings apply in the order played).

        Args:
            since: only games that ended at or after this time (Unix seconds); None for all.
            scan: also SCAN the keyspace for finished records missing from ``hongbot:finished`` (a crash
                between ending a game and indexing it); used at start-up.

        Returns:
            How many games this call completed.
        """
        members: list[str] = []
        for bucket in range(self.keys.BUCKETS):
            members += decoded_list(
                await self.redis.zrangebyscore(
                    self.keys.finished_index(bucket), "-inf" if since is None else since, "+inf"
                )
            )
        if scan:
            async for key in self.redis.scan_iter(match=self.keys.FINISHED_PATTERN, count=1000):
                members.append(f"{Keys.channel_of(key)}:{key.rsplit(':', 1)[1]}")
        members = list(dict.fromkeys(members))
        pending = []
        for i in range(0, len(members), 500):
            chunk = members[i : i + 500]
            flags = await self.redis.smismember(DONE, chunk)
            pending += [m for m, done in zip(chunk, flags) if not done]
        wanted = [(int(cid), gid) for cid, gid in (m.split(":", 1) for m in pending)]
        records = await self.store.finished_many(wanted)
        if len(records) < len(wanted):
            log.warning(
                "sweep: %d finished game(s) are indexed but their record is missing or damaged",
                len(wanted) - len(records),
            )
        records.sort(key=lambda r: (float(r.ended or 0), r.id))
        done = 0
        for record in records:
            try:
                await self.process(record)
                done += 1
            except Exception:
                log.exception("sweep: recording finished game %s failed", record.id)
        if done:
            log.info("sweep: recorded and rated %d finished game(s) left over", done)
        return done

    # --- reading ----------------------------------------------------------------------------------

    async def find(self, game_id: str) -> Record | None:
        """The finished game with this id (any server), or None."""
        cid = await self.redis.hget(GAME_INDEX, game_id)
        if cid is None:
            return None
        return await self.store.finished(int(cid), game_id)

    async def recent(
        self, guild_id: int, user_id: int | None = None, *, limit: int = 10, kind: str | None = None
    ) -> list[Record]:
        """The server's (or one player's there) most recent finished games, newest first, at most ``limit``.

        With ``kind``, only games of that kind (looks at most 200 games back).
        """
        key = guild_games_key(guild_id) if user_id is None else user_games_key(guild_id, user_id)
        ids = decoded_list(await self.redis.zrevrange(key, 0, (200 if kind else limit) - 1))
        if not ids:
            return []
        cids = await self.redis.hmget(GAME_INDEX, ids)
        records = await self.store.finished_many([(int(cid or 0), gid) for gid, cid in zip(ids, cids)])
        if kind:
            records = [r for r in records if r.kind == kind]
        return records[:limit]

    async def count(self, guild_id: int, user_id: int | None = None) -> int:
        """Finished games in the server (or of one player there)."""
        key = guild_games_key(guild_id) if user_id is None else user_games_key(guild_id, user_id)
        return await self.redis.zcard(key)
