"""The bot's Redis client type, and its replies as text: the clients decode replies (``decode_responses=True``),
which redis-py's types can't say (they answer ``bytes | str``)."""

from __future__ import annotations

from typing import Iterable, Mapping, overload

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

#: A client of the bot's Redis (``decode_responses=True``): a plain one, or a Redis Cluster's.
RedisClient = aioredis.Redis | RedisCluster


@overload
def decoded(reply: bytes | str) -> str: ...
@overload
def decoded(reply: bytes | str | None) -> str | None: ...
def decoded(reply: bytes | str | None) -> str | None:
    """A Redis reply as text (see the module docstring); None stays None."""
    return reply.decode() if isinstance(reply, bytes) else reply


def decoded_hash(reply: Mapping[bytes | str, bytes | str]) -> dict[str, str]:
    """A hash as read (``HGETALL``) with its fields and values as text (see :func:`decoded`)."""
    return {decoded(field): decoded(value) for field, value in reply.items()}


def decoded_list(reply: Iterable[object]) -> list[str]:
    """A list of text as read (``ZRANGE`` without scores, ``SMEMBERS``…) as text (see :func:`decoded`).

    Raises:
        TypeError: an item is not text (e.g. a member with its score).
    """
    items = []
    for item in reply:
        if not isinstance(item, (bytes, str)):
            raise TypeError(f"a Redis reply of text holds {item!r}")
        items.append(decoded(item))
    return items


def decoded_scores(reply: Iterable[object]) -> list[tuple[str, float]]:
    """A sorted set's members with their scores as read (``ZRANGE … WITHSCORES``): ``[(member, score)]``.

    Raises:
        TypeError: an item is not a member and its score.
    """
    pairs = []
    for item in reply:
        if not isinstance(item, (tuple, list)) or len(item) != 2 or not isinstance(item[0], (bytes, str)):
            raise TypeError(f"a Redis reply of members and scores holds {item!r}")
        pairs.append((decoded(item[0]), float(item[1])))
    return pairs
