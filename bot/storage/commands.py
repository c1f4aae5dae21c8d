"""The slash commands as last synced to Discord, kept in Redis per application and scope (one server, or global):
the hash of their definitions (:meth:`bot.storage.keys.Keys.commands`) and the ids Discord gave them
(:meth:`bot.storage.keys.Keys.command_ids`). :func:`bot.interface.client.sync_commands` decides with them whether to
sync again.
"""

from __future__ import annotations

from .decoding import RedisClient, decoded, decoded_hash
from .keys import PREFIX, Keys


async def synced_digest(redis: RedisClient, application_id: int, guild_id: int | None) -> str | None:
    """The hash of the definitions last synced for the application in ``guild_id`` (None: global), or None."""
    return decoded(await redis.get(Keys.commands(application_id, guild_id)))


async def save_sync(
    redis: RedisClient, application_id: int, guild_id: int | None, digest: str, ids: dict[str, int]
) -> None:
    """Keep a sync's result: the ids Discord gave the top-level commands (name → id), then the definitions' hash
    — the ids first: a death in between leaves the old hash, and the next start syncs again."""
    key = Keys.command_ids(application_id, guild_id)
    await redis.delete(key)
    await redis.hset(key, mapping={name: snowflake for name, snowflake in ids.items()})
    await redis.set(Keys.commands(application_id, guild_id), digest)


async def kept_ids(redis: RedisClient, application_id: int, guild_id: int | None) -> dict[str, int]:
    """The top-level commands' ids kept for the application in ``guild_id`` (name → id); empty if none."""
    kept = decoded_hash(await redis.hgetall(Keys.command_ids(application_id, guild_id)))
    return {name: int(snowflake) for name, snowflake in kept.items()}


async def keep_ids(redis: RedisClient, application_id: int, guild_id: int | None, ids: dict[str, int]) -> None:
    """Keep the top-level commands' ids (name → id) fetched from Discord for the application in ``guild_id``."""
    if ids:
        await redis.hset(
            Keys.command_ids(application_id, guild_id), mapping={name: snowflake for name, snowflake in ids.items()}
        )


async def synced_guilds(redis: RedisClient, application_id: int) -> set[int]:
    """The servers the application's commands were ever synced to on their own (``dev_guild_id``) and not yet
    withdrawn from (:func:`forget_guild`): the guild ids found in the kept keys (a SCAN: on a Cluster, over every
    primary)."""
    found: set[int] = set()
    async for key in redis.scan_iter(match=f"{PREFIX}:commands:{application_id}:*", count=200):
        scope = decoded(key).split(":")[3]
        if scope.isdigit():
            found.add(int(scope))
    return found


async def forget_guild(redis: RedisClient, application_id: int, guild_id: int) -> None:
    """Forget a server's synced commands (their hash and ids): they were withdrawn from it."""
    await redis.delete(Keys.commands(application_id, guild_id))
    await redis.delete(Keys.command_ids(application_id, guild_id))


__all__ = ["synced_digest", "save_sync", "kept_ids", "keep_ids", "synced_guilds", "forget_guild"]
