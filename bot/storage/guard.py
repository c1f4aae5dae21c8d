"""Noticing a Redis that lost its data — or stopped keeping it — while the bot runs, and writing nothing then.

The game store carries an *identity marker* (:meth:`bot.storage.keys.Keys.identity_keys`: one hash
``hongbot:store:identity`` on one server; on a Redis Cluster one per bucket of channels, so that every primary holding
games holds one): ``{"id": <random hex>, "created": <unix seconds>}``, written when the bot first meets a store without
one (:meth:`StoreGuard.establish`). The bot remembers the id it met. A server that restarted empty, or was flushed, has
no marker any more; a different server has another id.

:class:`StoreGuard` checks the marker — and, for the operator's own server, that it still keeps its data on disk
(:func:`bot.storage.connection.check_server`'s rules: an append-only file or RDB save points, a ``maxmemory-policy`` that never
evicts the bot's keys) —

- every ``store_check_interval`` seconds (on a connection of its own), and
- on every new connection of the bot's client to the server (redis-py's ``redis_connect_func``: after a Redis
  restart, every connection is new, so the check runs before the first command reaches the restarted server).

When the check fails the bot logs an ERROR saying what happened (:attr:`StoreGuard.problem`), ``/healthz`` answers 503
naming it (:mod:`bot.interface.metrics`), every connection of the bot's client is closed and every new one refused with
:class:`bot.storage.errors.StoreLost` — so nothing is read or written, and players get an apology (:func:`bot.interface.replies.apology`)
— until an operator decides (README, "Redis lost its data"):

- restore the data (the marker comes back with it) or the persistence: the next check finds the marker the bot knew,
  and the bot carries on by itself, without a restart;
- or accept the store as it is (emptied): ``python -m bot store accept-empty`` writes a new marker flagged
  ``accepted``, which every running bot adopts at its next check (:func:`accept_empty`).

A new connection checks what it can see (on a Redis Cluster: the markers of the slots its node serves) and may only
find a problem; the periodic check, which sees every marker, is what finds the store sound again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from pathlib import Path

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisError

from .errors import StoreLost
from .connection import OVERRIDE, RedisHandle, check_server, connect, persistence_problem
from .embedded import running_embedded
from .keys import keys_for
from .decoding import RedisClient

log = logging.getLogger(__name__)

#: Seconds between two periodic checks (the ``store_check_interval`` setting's default).
CHECK_INTERVAL = 5.0
#: What the log says the operator can do.
DECIDE = (
    "nothing is written until an operator decides: restore the data (the bot carries on once the marker is "
    "back) or run `python -m bot store accept-empty` to carry on with the store as it is (see README.md, "
    "'Redis lost its data')"
)


def _info(text) -> dict[str, str]:
    """An ``INFO`` reply as a dict (a raw reply is ``key:value`` lines; a parsed one is already a dict)."""
    if isinstance(text, dict):
        return {k: str(v) for k, v in text.items()}
    if isinstance(text, bytes):
        text = text.decode()
    return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line and not line.startswith("#"))


def _pairs(reply) -> dict[str, str]:
    """A ``CONFIG GET`` reply (a flat list, or a dict) as a dict."""
    if isinstance(reply, dict):
        return {str(k): str(v) for k, v in reply.items()}
    items = [item.decode() if isinstance(item, bytes) else str(item) for item in reply or []]
    return dict(zip(items[::2], items[1::2]))


class StoreGuard:
    """Watches one client's Redis for a lost identity marker or lost persistence, and then writes nothing (see the
    module docstring).

    Args:
        client: the bot's client (``decode_responses=True``): a plain client, or a ``RedisCluster`` (each node's
            connections checked for the markers in the slots it serves).
        where: the server as the log names it.
        external: the operator's server (its persistence is checked; the embedded one is configured by the bot).
        allow_unsafe: ``allow_unsafe_redis``: lost persistence is logged, never refused.
        url: the server's URL: a Cluster's checks need a client of their own, made from it (without it a Cluster
            gets the periodic check only, and nothing is refused).

    Attributes:
        known: the identity the bot met (None before :meth:`establish`).
        problem: why nothing is written now (one line), or None.
    """

    def __init__(
        self,
        client,
        where: str = "Redis",
        *,
        external: bool = False,
        allow_unsafe: bool = False,
        url: str | None = None,
    ) -> None:
        self.client = client
        self.where = where
        self.external = external
        self.allow_unsafe = allow_unsafe
        self.keys = keys_for(client)
        self.known: str | None = None
        self.problem: str | None = None
        self._warned: str | None = None
        self._task: asyncio.Task | None = None
        self._stopping = asyncio.Event()
        self._own_connect = None
        self._probe: RedisClient | None = None
        pool = getattr(client, "connection_pool", None)
        if isinstance(client, RedisCluster):
            if url:  # its own client: the bot's connections are refused while the store is lost
                self._probe = RedisCluster.from_url(url, decode_responses=True, max_connections=2)
        elif pool is not None:
            kwargs = dict(pool.connection_kwargs)
            kwargs.pop("redis_connect_func", None)
            self._probe = aioredis.Redis(
                connection_pool=aioredis.ConnectionPool(
                    connection_class=pool.connection_class, max_connections=2, **kwargs
                )
            )

    @classmethod
    def of(cls, handle: RedisHandle) -> "StoreGuard":
        """The guard of a :class:`bot.storage.connection.RedisHandle` (made once: bots sharing a handle share it)."""
        if handle.guard is None:
            handle.guard = cls(
                handle.client, handle.where, external=handle.external, allow_unsafe=handle.allow_unsafe, url=handle.url
            )
        return handle.guard

    # --- the marker -----------------------------------------------------------------------------------

    async def establish(self) -> str:
        """Meet the store: adopt its identity marker, or write one if it has none (a new store — or data from before
        the marker existed). Returns the identity. Call it at start-up, before anything else is written.

        Raises:
            redis.RedisError: the store can't be reached.
        """
        await self._install()
        candidate = secrets.token_hex(8)
        keys = self.keys.identity_keys()
        for key in keys:  # an existing id wins: every marker of the store carries the same one
            found = await self.client.hget(key, "id")
            if found:
                candidate = found
                break
        written = False
        for key in keys:
            if await self.client.hsetnx(key, "id", candidate):
                await self.client.hsetnx(key, "created", f"{time.time():.3f}")
                written = True
        self.known = await self.client.hget(keys[0], "id")
        self.problem = None
        self.client._hongbot_guard = self  # the stores' scripts check the marker from now on (bot.storage.store.marker)
        if written:
            log.info("game store identity %s: marker written (%s)", self.known, ", ".join(keys))
        else:
            log.info("game store identity %s", self.known)
        return self.known

    def _judge(self, markers: list[tuple[str | None, str | None]], persistence: str | None) -> None:
        """Set :attr:`problem` from the markers read (``(id, accepted)`` per key) and a persistence problem."""
        problem = None
        ids = {marker_id for marker_id, _ in markers}
        accepted = {marker_id for marker_id, flag in markers if marker_id and flag}
        key = self.keys.identity_keys()[0] if len(markers) == 1 else "hongbot:…:store:identity"
        if self.known is None or not markers:  # nothing to judge by (a Cluster node serving no marker's slot)
            pass
        elif None in ids:
            problem = (
                f"Redis at {self.where} lost its data: the game store's identity marker {key} (id {self.known}) "
                f"is gone — the server restarted empty or was flushed"
            )
        elif ids != {self.known}:
            if len(ids) == 1 and ids <= accepted:
                new = ids.pop()
                log.warning(
                    "an operator accepted the game store at %s as it is (accept-empty): identity %s → %s, carrying on",
                    self.where,
                    self.known,
                    new,
                )
                self.known = new
            else:
                problem = (
                    f"Redis at {self.where} is another store: identity {', '.join(sorted(map(str, ids)))} "
                    f"found where {self.known} was — its data is not the bot's"
                )
        if problem is None and persistence is not None:
            if self.allow_unsafe:
                if persistence != self._warned:
                    log.warning("%s (allow_unsafe_redis is set: carrying on)", persistence)
            else:
                problem = persistence
        self._warned = persistence
        if problem != self.problem:
            if problem is not None:
                log.error("%s; %s", problem, DECIDE)
            else:
                log.warning("the game store at %s is sound again (identity %s): carrying on", self.where, self.known)
        self.problem = problem

    def lost(self, key: str) -> StoreLost:
        """A write refused (or a read found nothing) because the identity marker ``key`` is gone — the store was
        flushed or restarted empty, found on the way before the periodic check (:func:`bot.storage.store.guarded`, the
        scripts of :mod:`bot.storage.store`). Sets :attr:`problem` (the ERROR logged once) and closes every connection of the
        bot's client, as :meth:`check` does. Returns the :class:`bot.storage.errors.StoreLost` to raise."""
        if self.problem is None:  # worded as _judge words it, so that its next check logs nothing new
            key = key if len(self.keys.identity_keys()) == 1 else "hongbot:…:store:identity"
            self.problem = (
                f"Redis at {self.where} lost its data: the game store's identity marker {key} "
                f"(id {self.known}) is gone — the server restarted empty or was flushed"
            )
            log.error("%s; %s", self.problem, DECIDE)
            if self._probe is not None:  # every next command meets _on_connect (refused until the check clears it)
                task = asyncio.get_running_loop().create_task(self._disconnect(), name="store-guard-disconnect")
                self._disconnecting = task  # (a reference: the task must not be collected mid-way)
        return StoreLost(self.problem)

    # --- the checks -----------------------------------------------------------------------------------

    async def _on_connect(self, connection) -> None:
        """redis-py's ``redis_connect_func``: set the new connection up, then check the store on it before any
        command of the bot goes through (after a Redis restart every connection is new).

        Raises:
            StoreLost: the check failed: the connection is closed (by redis-py) and the command refused.
        """
        if self._own_connect is not None:  # the cluster client's (READONLY on a replica)
            await self._own_connect(connection)
        else:
            await connection.on_connect()
        if self.known is None:
            return
        if self.problem is not None:  # found already: only the periodic check, which sees it all, clears it
            raise StoreLost(self.problem)

        async def ask(*args):
            await connection.send_command(*args)
            return await connection.read_response()

        markers = [tuple(await ask("HMGET", key, "id", "accepted")) for key in self._markers_on(connection)]
        persistence = await self._persistence(ask)
        self._judge(markers, persistence)
        if self.problem is not None:
            raise StoreLost(self.problem)

    def _markers_on(self, connection) -> list[str]:
        """The identity marker keys a new connection can read: every one on a single server; on a Cluster those in
        the slots the connection's node serves as a primary (as the client last mapped them)."""
        keys = self.keys.identity_keys()
        if not isinstance(self.client, RedisCluster):
            return keys
        name = f"{connection.host}:{connection.port}"
        slots = self.client.nodes_manager.slots_cache
        return [key for key in keys if (nodes := slots.get(key_slot(key.encode()))) and nodes[0].name == name]

    async def _install(self) -> None:
        """Make :meth:`_on_connect` redis-py's ``redis_connect_func`` of every connection of the bot's client — those
        to come (the connection settings) and those made already (each connection keeps the function it was made
        with) — and close those, so that every connection from now on is checked when made (not without a client of
        the guard's own to find the store back: a Cluster client given without its URL)."""
        if self._probe is None:
            return
        if isinstance(self.client, RedisCluster):
            settings = [
                self.client.get_connection_kwargs(),
                *(node.connection_kwargs for node in self.client.get_nodes()),
            ]
            made = [conn for node in self.client.get_nodes() for conn in node._connections]
        else:
            pool = self.client.connection_pool
            settings = [pool.connection_kwargs]
            made = [*pool._get_free_connections(), *pool._get_in_use_connections()]
        if settings[0].get("redis_connect_func") == self._on_connect:
            return
        self._own_connect = settings[0].get("redis_connect_func")
        for kwargs in settings:
            kwargs["redis_connect_func"] = self._on_connect
        for connection in made:
            connection.redis_connect_func = self._on_connect
        await self._disconnect()

    async def _disconnect(self) -> None:
        """Close every connection of the bot's client (each next command makes a new one, checked)."""
        if isinstance(self.client, RedisCluster):
            for node in self.client.get_nodes():
                await node.disconnect()
        else:
            await self.client.connection_pool.disconnect()

    async def _persistence(self, ask) -> str | None:
        """A persistence problem of the server, asked with ``ask(*command)`` (raw replies), or None."""
        policy = _info(await ask("INFO", "memory")).get("maxmemory_policy", "noeviction")
        aof = save = None
        if self.external:
            aof = _info(await ask("INFO", "persistence")).get("aof_enabled", "0") == "1"
            try:
                save = _pairs(await ask("CONFIG", "GET", "save")).get("save", "")
            except RedisError:  # CONFIG is disabled: the host manages persistence, we can't tell
                save = None
        return persistence_problem(self.where, policy, bool(aof), save, external=self.external)

    async def check(self) -> str | None:
        """Check the store now (on the guard's own connection; on a Cluster through the client). When it has just
        been found lost, close every connection of the bot's client so that each command meets the connect-time
        check. Returns :attr:`problem`.

        Raises:
            redis.RedisError: the store can't be reached (nothing is judged then).
        """
        if self.known is None:
            return self.problem
        client = self._probe or self.client
        markers = [tuple(await client.hmget(key, "id", "accepted")) for key in self.keys.identity_keys()]
        persistence = None
        if isinstance(client, RedisCluster):
            try:
                await check_server(client, self.where, external=self.external)
            except RuntimeError as exc:
                persistence = str(exc).split(f", or {OVERRIDE}")[0]
        else:

            async def ask(*args):
                return await client.execute_command(*args)

            persistence = await self._persistence(ask)
        was = self.problem
        self._judge(markers, persistence)
        if self.problem is not None and was is None and self._probe is not None:
            await self._disconnect()  # every next command meets _on_connect
        return self.problem

    def start(self, interval: float = CHECK_INTERVAL) -> None:
        """Check every ``interval`` seconds until :meth:`stop` (once; a check that can't reach Redis is skipped)."""
        if self._task is None:
            self._stopping = asyncio.Event()
            self._task = asyncio.create_task(self._run(interval), name="store-guard")

    async def _run(self, interval: float) -> None:
        while True:
            try:  # sleep, but wake at once when asked to stop
                await asyncio.wait_for(self._stopping.wait(), interval)
                return
            except asyncio.TimeoutError:
                pass
            try:
                await self.check()
            except (RedisError, OSError) as exc:
                log.debug("store check skipped: %s", exc)
            except Exception:
                log.exception("store check failed")

    async def stop(self, grace: float = 5.0) -> None:
        """Stop checking — a check under way may finish (up to ``grace`` seconds) — and close the guard's own
        connection."""
        if self._task is not None:
            self._stopping.set()
            try:
                await asyncio.wait_for(asyncio.shield(self._task), grace)
            except asyncio.TimeoutError:
                self._task.cancel()
            self._task = None
        if self._probe is not None:
            await self._probe.aclose()


async def accept_empty(client) -> str:
    """Accept the store as it is after a loss: write a new identity marker flagged ``accepted`` (every marker key of
    the layout), which every running bot adopts at its next check (:class:`StoreGuard`). Returns the new identity.

    Raises:
        redis.RedisError: the store can't be reached.
    """
    identity, now = secrets.token_hex(8), f"{time.time():.3f}"
    for key in keys_for(client).identity_keys():
        await client.hset(key, mapping={"id": identity, "created": now, "accepted": now})
    return identity


async def accept_configured(redis_url: str | None, data_dir: Path, *, cluster: bool = False) -> str:
    """``python -m bot store accept-empty``: :func:`accept_empty` on the configured Redis — ``redis_url`` (a node
    of a Redis Cluster with ``cluster``), else the embedded server a bot runs in ``data_dir``. Returns what to tell
    the operator.

    Raises:
        RuntimeError: Redis can't be reached (the message says where).
    """
    if redis_url:
        handle = await connect(redis_url, data_dir, allow_unsafe=True, cluster=cluster)
        client, where = handle.client, redis_url.split("@")[-1]
    else:
        socket = running_embedded(data_dir)
        if socket is None:
            return (
                f"no bot is running on the embedded Redis in {data_dir}: nothing to accept (a bot started "
                f"on it adopts the store as it is)"
            )
        handle, client, where = (
            None,
            aioredis.Redis(unix_socket_path=socket, decode_responses=True),
            f"the embedded Redis in {data_dir}",
        )
    try:
        identity = await accept_empty(client)
    except RedisError as exc:
        raise RuntimeError(f"cannot reach Redis at {where}: {exc}") from exc
    finally:
        await (handle.close() if handle is not None else client.aclose())
    return (
        f"accepted the game store at {where} as it is (new identity {identity}): running bots carry on at their "
        f"next check"
    )


__all__ = ["StoreGuard", "accept_empty", "accept_configured", "CHECK_INTERVAL", "DECIDE"]
