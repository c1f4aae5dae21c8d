"""Connecting to the game store: :func:`connect` (the operator's Redis, a Redis Cluster, or the embedded
server), the time budget's connection options, and the checks that a server keeps what it is given
(:func:`check_server`: persistence and eviction policy).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import BusyLoadingError, ResponseError

from .. import budget
from .decoding import RedisClient
from .embedded import EmbeddedRedis

if TYPE_CHECKING:
    from .guard import StoreGuard

log = logging.getLogger(__name__)


class RedisHandle:
    """A connected ``redis.asyncio`` client plus, when embedded, the redis-server behind it (:class:`EmbeddedRedis`),
    and (once the bot started on it) the :class:`bot.storage.guard.StoreGuard` that watches the server's identity and
    persistence for this client.

    Use :func:`connect`; call :meth:`close` at shutdown (it closes the client, then stops an embedded server).

    Args:
        client: the connected client (``decode_responses=True``).
        embedded: the embedded server behind it, or None.
        external: whether the server is the operator's (its persistence is checked, :func:`check_server`).
        allow_unsafe: start and carry on on a server that may lose games (``allow_unsafe_redis``).
        where: the server as the log names it.
        url: its URL (the guard of a Redis Cluster makes a client of its own from it).
    """

    def __init__(
        self,
        client: RedisClient,
        embedded: "EmbeddedRedis | None" = None,
        *,
        external: bool = False,
        allow_unsafe: bool = False,
        where: str = "Redis",
        url: str | None = None,
    ) -> None:
        self.client = client
        self.url = url
        self.embedded = embedded
        self.external = external and embedded is None
        self.allow_unsafe = allow_unsafe
        self.where = where
        self.guard: StoreGuard | None = None  # set by the bot at start-up (bot.storage.guard.StoreGuard.of)

    async def close(self) -> None:
        """Stop the guard, close the client, then stop the embedded server (its append-only file flushed)."""
        if self.guard is not None:
            await self.guard.stop()
        await self.client.aclose()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            await server.stop()


def unconnected() -> RedisHandle:
    """A handle on a client that never connects (redis-py connects at the first command): for building the bot
    offline, when nothing is read or written (:func:`bot.interface.extract.command_tree`)."""
    return RedisHandle(aioredis.Redis())


def redis_options() -> dict:
    """The ``redis.asyncio`` connection options of the time budget (:mod:`bot.budget`): ``socket_timeout``,
    ``socket_connect_timeout`` and ``retry`` (no retries)."""
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return {
        "socket_timeout": budget.SOCKET_TIMEOUT,
        "socket_connect_timeout": budget.SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), budget.RETRIES),
    }


#: ``maxmemory-policy`` values that never delete the bot's keys: ``volatile-*`` evicts only keys with a TTL, and
#: the bot gives a TTL only to small helpers (a challenge message's id, rematch votes), never to games, deadlines,
#: announcements, records or ratings.
SAFE_POLICIES = ("noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl")


#: How to start anyway (:attr:`bot.config.Config.allow_unsafe_redis`).
OVERRIDE = "set allow_unsafe_redis = true in config.toml (or HONGBOT_ALLOW_UNSAFE_REDIS=1) to start anyway"


def persistence_problem(where: str, policy: str, aof: bool, save: str | None, *, external: bool) -> str | None:
    """Why a Redis server may silently lose games, or None: a ``maxmemory-policy`` that evicts keys without a TTL
    (not in :data:`bot.storage.connection.SAFE_POLICIES`) or — ``external``: the operator's server — no append-only file and no
    RDB save points (``save`` None: ``CONFIG`` is disabled, the host manages persistence). One line naming the
    problem and the fix."""
    if policy not in SAFE_POLICIES:
        return (
            f"Redis at {where} evicts keys when memory is full (maxmemory-policy {policy}), which would silently "
            f"delete running games: set maxmemory-policy to noeviction"
        )
    if external and not aof and save is not None and not save.strip():
        return (
            f"Redis at {where} keeps nothing on disk (no append-only file, no RDB save points), so a restart of "
            f"Redis would lose every game: turn on appendonly yes (or set save points)"
        )
    return None


async def check_server(client: RedisClient, where: str, *, external: bool, **target) -> None:
    """Refuse a Redis that can silently lose games (:func:`persistence_problem`): one that evicts keys under memory
    pressure or, for an external server, one that keeps nothing on disk. A server that hides ``CONFIG`` (some hosted
    ones) is only checked for its policy. On a Redis Cluster every node is checked (a replica may become a primary).
    (While the bot runs, :mod:`bot.storage.guard` checks the same on every new connection and every few seconds.)

    Raises:
        RuntimeError: one line naming the problem (and the node), the fix, and the override (:data:`OVERRIDE`).
    """
    if isinstance(client, RedisCluster) and not target:
        for node in client.get_nodes():
            await check_server(client, f"{where} (node {node.name})", external=external, target_nodes=node)
        return
    policy = (await client.info("memory", **target)).get("maxmemory_policy", "noeviction")
    aof, save = False, None
    if external and policy in SAFE_POLICIES:
        aof = str((await client.info("persistence", **target)).get("aof_enabled", 0)) == "1"
        try:
            save = str((await client.config_get("save", **target)).get("save", ""))
        except ResponseError:  # CONFIG is disabled: the host manages persistence, we can't tell
            save = None
    problem = persistence_problem(where, policy, aof, save, external=external)
    if problem is not None:
        raise RuntimeError(f"{problem}, or {OVERRIDE}")


async def connect(
    redis_url: str | None,
    data_dir: Path,
    *,
    allow_unsafe: bool = False,
    pool_size: int = 50,
    pool_timeout: float = budget.POOL_TIMEOUT,
    cluster: bool = False,
) -> RedisHandle:
    """Connect to ``redis_url``, or start the embedded server in ``data_dir`` when it is None, and check that
    the server keeps games safely (:func:`check_server`; with ``allow_unsafe`` a failed check is only logged).

    The client draws on a ``redis.asyncio.BlockingConnectionPool`` of at most ``pool_size`` connections: under
    load a command waits (up to ``pool_timeout`` seconds, then ``redis.ConnectionError``) for a free connection
    instead of failing at once as the default pool does when it is full. Every command waits at most
    :data:`bot.budget.SOCKET_TIMEOUT` for its reply and is not retried (:func:`redis_options`: the
    interaction budget) — on a Cluster it is, as redis-py's cluster client retries to follow a failover (slower, still
    safe: a retried commit past its deadline is refused by the script).

    With ``cluster``, ``redis_url`` names one node of a Redis Cluster: the client is redis-py's
    ``redis.asyncio.cluster.RedisCluster`` (it finds the other nodes, follows the slots as they move and fails
    over to a promoted replica), with at most ``pool_size`` connections *per node* — its pools don't wait: a full
    one fails the command at once — and the keys are laid out for a Cluster (:class:`ClusterKeys`).

    Raises:
        RuntimeError: when the server cannot be reached or started, or fails the check; the message says which
            and where.
    """
    embedded = None
    if cluster and not redis_url:
        raise RuntimeError("a Redis Cluster needs redis_url naming one of its nodes (the embedded Redis is one server)")
    if redis_url:
        where = redis_url.split("@")[-1]
    else:
        embedded = EmbeddedRedis(data_dir)
        embedded.launch()  # in the event loop's thread: the server dies with it (see EmbeddedRedis)
        try:
            await embedded.wait_started()
        except BaseException:
            await embedded.stop()
            raise
        redis_url = f"unix://{embedded.socket_file}"
        where = f"embedded Redis in {data_dir}"
    client: RedisClient
    if cluster:
        timeouts = {k: v for k, v in redis_options().items() if k != "retry"}  # its retries follow failovers
        client = RedisCluster.from_url(redis_url, decode_responses=True, max_connections=pool_size, **timeouts)
    else:
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=pool_size, timeout=pool_timeout, decode_responses=True, **redis_options()
        )
        client = aioredis.Redis.from_pool(pool)  # the client owns the pool: closing it closes the connections
    handle = RedisHandle(
        client, embedded, external=embedded is None, allow_unsafe=allow_unsafe, where=where, url=redis_url
    )
    try:
        for attempt in itertools.count():
            try:
                await client.ping()
                break
            except BusyLoadingError:  # the server is reading its data back: wait for it
                if attempt > 600:
                    raise
                await asyncio.sleep(0.1)
    except Exception as exc:
        await handle.close()
        raise RuntimeError(f"cannot reach Redis at {where}: {exc}") from exc
    try:
        await check_server(client, where, external=embedded is None)
    except RuntimeError as exc:
        if not allow_unsafe:
            await handle.close()
            raise
        log.warning("%s (allow_unsafe_redis is set: starting anyway)", str(exc).split(": set ")[0])
    log.info("connected to %s", where)
    return handle


__all__ = [
    "RedisHandle",
    "unconnected",
    "redis_options",
    "SAFE_POLICIES",
    "OVERRIDE",
    "persistence_problem",
    "check_server",
    "connect",
]
