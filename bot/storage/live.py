"""Hearing each commit of a watched channel: the commit script publishes the record's new version on the channel's
pub/sub channel (:meth:`bot.storage.keys.Keys.live`; ``lua/commit.lua``), and a :class:`LiveFeed` subscribes to the
channels its watchers look at (one pub/sub connection per process, whatever the number of watchers).

A message is ``"<version>"`` after a change, ``"end:<version>"`` when the record was finished or deleted. Pub/sub
delivers at most once: a message lost while the connection was down is made up for by calling ``on_change`` for
every watched channel after each reconnection, and by the web process's slow re-read of what it watches
(:mod:`bot.web.live`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Callable

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from .decoding import RedisClient, decoded
from .keys import Keys, keys_for

log = logging.getLogger(__name__)

#: Seconds between attempts to reconnect a lost pub/sub connection.
RECONNECT = 1.0


def parse(message: str) -> tuple[int, bool]:
    """A published message → (version, ended): ``"7"`` → ``(7, False)``, ``"end:8"`` → ``(8, True)``.

    Raises:
        ValueError: not a message the commit script writes.
    """
    ended = message.startswith("end:")
    return int(message[4:] if ended else message), ended


class LiveFeed:
    """Subscriptions to the channels watched in this process, calling ``on_change(channel id, message)`` for each
    message heard (and with ``""`` for every watched channel after a reconnection: something may have been missed).

    On a Redis Cluster the shard channels are subscribed with ``SSUBSCRIBE`` when the commits use ``SPUBLISH``
    (``sharded``), else with ``SUBSCRIBE`` (Redis before 7 sends a ``PUBLISH`` to every node).
    """

    def __init__(self, redis: RedisClient, on_change: Callable[[int, str], None], *, sharded: bool = False) -> None:
        self.redis = redis
        self.keys: type[Keys] = keys_for(redis)
        self.on_change = on_change
        self.sharded = sharded and isinstance(redis, RedisCluster)
        self.watched: set[int] = set()
        self._pubsub: Any = None
        self._task: asyncio.Task | None = None
        self._lock = asyncio.Lock()

    def start(self) -> None:
        """Start listening (a task of the running loop)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="live-feed")

    async def close(self) -> None:
        """Stop listening and close the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        await self._drop()

    async def watch(self, channel_id: int) -> None:
        """Hear the channel's commits from now on (a no-op if already watched)."""
        if channel_id in self.watched:
            return
        self.watched.add(channel_id)
        async with self._lock:
            if self._pubsub is not None:
                with contextlib.suppress(RedisError, OSError):
                    await self._subscribe(self._pubsub, [channel_id])

    async def unwatch(self, channel_id: int) -> None:
        """Stop hearing the channel (its last watcher left)."""
        if channel_id not in self.watched:
            return
        self.watched.discard(channel_id)
        async with self._lock:
            if self._pubsub is not None:
                name = self.keys.live(channel_id)
                with contextlib.suppress(RedisError, OSError):
                    await (self._pubsub.sunsubscribe(name) if self.sharded else self._pubsub.unsubscribe(name))

    async def _subscribe(self, pubsub, channels: list[int]) -> None:
        names = [self.keys.live(c) for c in channels]
        if names:
            await (pubsub.ssubscribe(*names) if self.sharded else pubsub.subscribe(*names))

    async def _drop(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def _connect(self) -> None:
        async with self._lock:
            pubsub = self.redis.pubsub()
            # a subscription needs one channel at least before messages can be read: the feed's own, never published
            await (pubsub.ssubscribe if self.sharded else pubsub.subscribe)(f"{self.keys.live(0)}:feed")
            await self._subscribe(pubsub, sorted(self.watched))
            self._pubsub = pubsub
        for channel_id in list(self.watched):  # anything said while we weren't listening: re-read
            self.on_change(channel_id, "")

    async def _listen(self) -> None:
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                pubsub = self._pubsub
                assert pubsub is not None
                read = pubsub.get_sharded_message if self.sharded else pubsub.get_message
                message = await read(ignore_subscribe_messages=True, timeout=1.0)
                if message is None or message.get("type") not in ("message", "smessage"):
                    continue
                channel_id = self.keys.channel_of(decoded(message["channel"]))
                if channel_id in self.watched:
                    self.on_change(channel_id, decoded(message["data"]))
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                log.warning("the live feed lost Redis (%s); reconnecting", exc)
                await self._drop()
                await asyncio.sleep(RECONNECT)
            except Exception:
                log.exception("the live feed failed on a message; going on")


__all__ = ["LiveFeed", "parse"]
