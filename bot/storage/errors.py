"""The store's own errors, and redis-py's that mean it can't be reached. A leaf module: it imports only redis-py's
errors."""

from __future__ import annotations

from redis.exceptions import ClusterDownError, ClusterError, RedisError, SlotNotCoveredError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError


class StoreLost(RedisError):
    """The game store (Redis) lost its data, or no longer keeps it on disk, and the bot writes nothing until an
    operator decides (:mod:`bot.storage.guard`); the message says what happened, for the log. Players get an apology
    (:func:`bot.interface.replies.apology`). A ``RedisError``, so that redis-py closes a connection whose connect-time check
    raised it."""


#: Errors that mean the game store could not be reached just now (a Redis Cluster: down, failing over, a slot moving).
UNREACHABLE = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    ClusterError,
    SlotNotCoveredError,
    TryAgainError,
)


__all__ = ["StoreLost", "UNREACHABLE"]
