"""The store's own errors. A leaf module: it imports only redis-py's error base."""
from __future__ import annotations

from redis.exceptions import RedisError


class StoreLost(RedisError):
    """The game store (Redis) lost its data, or no longer keeps it on disk, and the bot writes nothing until an
    operator decides (:mod:`bot.storage.guard`); the message says what happened, for the log. Players get an apology
    (:func:`bot.interface.replies.apology`). A ``RedisError``, so that redis-py closes a connection whose connect-time check
    raised it."""


__all__ = ["StoreLost"]
