"""Reading a real Redis whole, for the storage tests: every key with its type, value and expiry, and Redis's clock."""

from __future__ import annotations


async def contents(redis) -> dict[str, tuple[str, object, bool]]:
    """Every key of the database: ``{key: (type, value, expires)}`` — a hash as a dict, a sorted set as
    ``[(member, score)]``, a set as a set, a string as itself; ``expires`` whether it has a TTL (the TTL itself
    ticks, so a test that compares two snapshots reads it apart)."""
    readers = {
        "hash": redis.hgetall,
        "zset": lambda key: redis.zrange(key, 0, -1, withscores=True),
        "set": redis.smembers,
        "string": redis.get,
    }
    out: dict[str, tuple[str, object, bool]] = {}
    for key in sorted(await redis.keys("*")):
        kind = await redis.type(key)
        out[key] = (kind, await readers[kind](key), await redis.ttl(key) >= 0)
    return out


async def redis_time(redis) -> float:
    """Redis's own clock (``TIME``), in Unix seconds."""
    seconds, micro = await redis.time()
    return seconds + micro / 1e6
