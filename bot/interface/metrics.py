"""Prometheus metrics and the health check, served over HTTP on the ``metrics_port`` setting (off by default).

The metrics (the official ``prometheus_client``, in this process's default registry; the ``python_*`` and
``process_*`` ones come with it):

- ``hongbot_moves_total{game, by}`` — moves committed and announced, ``by`` a ``person`` or the ``computer``;
- ``hongbot_first_response_seconds`` — a person's move: from the interaction's creation (its id's time) to the bot's
  first answer (Discord shows "The application did not respond" past 3 s);
- ``hongbot_board_posted_seconds`` — a person's move: from the interaction's creation to its board posted;
- ``hongbot_failures_total{reason}`` — ``error`` (a player got an apology), ``board`` (a board post failed: the
  reconciler makes it later), ``expired`` (the interaction was gone before the first answer);
- ``hongbot_busy_total`` — moves answered "busy: your move is saved, the board follows";
- ``hongbot_queue_length{queue}`` — ``boards``: board posts waiting for a render worker (:mod:`bot.interface.board_pool`);
  ``computer``: the computer's moves waiting or being thought; ``requests``: the bot's own requests to Discord
  waiting for their turn (:class:`bot.interface.discordhttp.FairGate`);
- ``hongbot_invalid_requests_total{status}`` — answers 401, 403, 404 and 429 from Discord (past 10,000 401/403/429
  in 10 minutes Discord bans the bot for a while; :func:`bot.interface.discordhttp.trace`);
- ``hongbot_active_games`` — running games in this process's servers (read from Redis at a scrape, at most every
  :data:`ACTIVE_EVERY` seconds);
- ``hongbot_computer_think_seconds{level}`` — the computer's search, per move.

``GET /healthz`` answers 200 ``ok`` when Redis answers a PING within :data:`HEALTH_TIMEOUT` seconds and the gateway
is connected (every shard of this process), and the game store has not lost its data nor stopped keeping it on disk
(:mod:`bot.storage.guard`), else 503 naming what is down — for a container's health check or a load balancer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    import discord

    from .client import HongBot

log = logging.getLogger(__name__)

#: Seconds between two counts of the active games in Redis.
ACTIVE_EVERY = 10.0
#: Seconds Redis has to answer the health check's PING.
HEALTH_TIMEOUT = 2.0

#: Latency buckets (seconds) around Discord's 3 s first-response deadline.
_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)

MOVES = Counter("hongbot_moves", "Moves committed and announced", ["game", "by"])
FIRST_RESPONSE = Histogram(
    "hongbot_first_response_seconds", "A person's move: interaction created to the bot's first answer", buckets=_BUCKETS
)
BOARD_POSTED = Histogram(
    "hongbot_board_posted_seconds", "A person's move: interaction created to its board posted", buckets=_BUCKETS
)
FAILURES = Counter(
    "hongbot_failures",
    "Interactions answered with an apology, board posts that failed, expired "
    "interactions (and changes not made for one), acknowledgements that failed, "
    "changes refused as not saved (the store did not answer in time)",
    ["reason"],
)
for _reason in ("error", "board", "expired", "unacknowledged", "not_saved"):
    FAILURES.labels(_reason)  # every reason shown from the start, at 0
BUSY = Counter("hongbot_busy", "Moves answered 'busy: your move is saved, the board follows'")
QUEUE_LENGTH = Gauge("hongbot_queue_length", "Work waiting: board posts for a slot, the computer's moves", ["queue"])
INVALID_REQUESTS = Counter("hongbot_invalid_requests", "Answers 401, 403, 404 and 429 from Discord", ["status"])
for _status in ("401", "403", "404", "429"):
    INVALID_REQUESTS.labels(_status)  # every status shown from the start, at 0
ACTIVE_GAMES = Gauge("hongbot_active_games", "Running games in this process's servers")
COMPUTER_THINK = Histogram(
    "hongbot_computer_think_seconds",
    "The computer's search for one move",
    ["level"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
)


def since(interaction: "discord.Interaction") -> float:
    """Seconds since ``interaction`` was created (by Discord: its id's timestamp)."""
    return max(0.0, time.time() - interaction.created_at.timestamp())


def gateway_connected(bot: "discord.Client") -> bool:
    """Whether the bot is logged in, ready and its gateway connection(s) open."""
    if bot.is_closed() or not bot.is_ready():
        return False
    shards = getattr(bot, "shards", None)
    if shards:
        return all(not shard.is_closed() for shard in shards.values())
    ws = getattr(bot, "ws", None)
    return ws is not None and ws.open


class MetricsServer:
    """``/metrics`` and ``/healthz`` on ``port`` (every interface), in the bot's event loop.

    Args:
        bot: the running bot (its gateway state, its servers, its ``layer`` for Redis and the queues).
        port: the TCP port (0 picks a free one: see :attr:`port` after :meth:`start`).
        host: the interface to listen on.
    """

    def __init__(self, bot: "HongBot", port: int, host: str = "0.0.0.0") -> None:
        self.bot, self.port, self.host = bot, port, host
        self._runner: web.AppRunner | None = None
        self._counted = 0.0

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self.metrics)
        app.router.add_get("/healthz", self.health)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        log.info("metrics on http://%s:%d/metrics, health check on /healthz", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def metrics(self, request: web.Request) -> web.Response:
        computer = getattr(self.bot.get_cog("Play"), "computer", None)  # (None: the play feature is not loaded)
        QUEUE_LENGTH.labels("computer").set(computer.pending if computer is not None else 0)
        try:
            await self._count_active()
        except Exception as exc:  # Redis down: the other metrics still tell
            log.warning("could not count the active games: %s", exc)
        return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _count_active(self) -> None:
        if time.monotonic() - self._counted < ACTIVE_EVERY:
            return
        self._counted = time.monotonic()
        guilds = [g.id for g in self.bot.guilds]
        if not guilds:
            ACTIVE_GAMES.set(0)
            return
        store = self.bot.layer.store  # (RuntimeError before start-up: the caller logs it)
        ACTIVE_GAMES.set(sum(map(len, await asyncio.gather(*(store.active_channels(g) for g in guilds)))))

    async def health(self, request: web.Request) -> web.Response:
        down = []
        guard = self.bot.guard
        try:
            layer = self.bot.layer  # (RuntimeError before start-up)
            if guard is not None and guard.problem:
                raise RuntimeError(guard.problem)
            await asyncio.wait_for(layer.store.ping(), HEALTH_TIMEOUT)
        except Exception as exc:
            down.append(f"redis: {exc or type(exc).__name__}")
        if not gateway_connected(self.bot):
            down.append("gateway: not connected")
        if down:
            return web.Response(status=503, text="; ".join(down) + "\n")
        return web.Response(text="ok\n")


__all__ = [
    "MetricsServer",
    "MOVES",
    "FIRST_RESPONSE",
    "BOARD_POSTED",
    "FAILURES",
    "BUSY",
    "QUEUE_LENGTH",
    "INVALID_REQUESTS",
    "ACTIVE_GAMES",
    "COMPUTER_THINK",
    "since",
    "gateway_connected",
    "ACTIVE_EVERY",
    "HEALTH_TIMEOUT",
]
