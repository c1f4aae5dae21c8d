"""``python -m bot.web`` / ``hongbot-web``: serve the web companion on ``web_port`` (default 8080 here) of
``web_host`` (default 127.0.0.1: a reverse proxy on this machine; ``0.0.0.0`` for every interface) over the
Redis ``redis_url`` names — the bot's (the embedded Redis lives inside the bot's process: there, set ``web_port``
and the bot serves the pages itself). Reads the same ``config.toml`` and environment as the bot, never the Discord
token. Run as many as wanted behind a load balancer: they share nothing but Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from ..config import ConfigError, load_config
from ..storage.connection import connect
from ..storage.store import GameStore
from .app import Web, serve
from .limits import Networks

log = logging.getLogger("bot.web")

#: The port served when neither ``--port`` nor ``web_port`` says one.
DEFAULT_PORT = 8080


async def run(port: int, host: str | None) -> int:
    """Serve until SIGTERM or SIGINT. Returns the exit code."""
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if not config.redis_url:
        print(
            "the web companion needs the bot's Redis: set redis_url (or $REDIS_URL); with the embedded Redis, set "
            "web_port and the bot serves the pages itself",
            file=sys.stderr,
        )
        return 2
    port = port or config.web_port or DEFAULT_PORT
    host = host or config.web_host
    handle = await connect(
        config.redis_url,
        config.data_dir,
        allow_unsafe=True,  # (the web process only reads: the bot judges the server)
        pool_size=config.redis_pool_size,
        pool_timeout=config.redis_pool_timeout,
        cluster=config.redis_cluster,
    )
    base = config.public_url or f"http://localhost:{port}"
    sharded = await GameStore(handle.client).detect_publish() == "SPUBLISH"  # as the bot's commits publish
    web_state = Web(
        handle.client,
        base,
        sharded=sharded,
        proxies=config.web_proxies,
        trusted_proxies=Networks(config.web_trusted_proxies),
        global_leaderboard=config.web_global_leaderboard,
        reads=max(1, config.redis_pool_size * 3 // 4),  # (the pool's rest: the live pages' shared refreshes)
    )
    runner = await serve(web_state, port, host)
    log.info("the web companion is serving %s on %s port %d", base, host, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await runner.cleanup()
    await handle.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """The console script ``hongbot-web``."""
    parser = argparse.ArgumentParser(prog="python -m bot.web", description="Serve the bot's web companion.")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: web_port, else 8080)")
    parser.add_argument("--host", default=None, help="interface to listen on (default: web_host, else 127.0.0.1)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return asyncio.run(run(args.port, args.host))


if __name__ == "__main__":
    sys.exit(main())
