"""The web companion as the bot's child process (``web_port``): the pages the bot serves itself are served by
``python -m bot.web`` started by the bot, never by the bot's own process.

Why a process and not the bot's event loop: the pages face the open internet. Slow or never-finished requests
hold sockets (file descriptors), floods take Redis connections and CPU; inside the bot those would be taken from
the players — a move unanswered in Discord's 3 s because a stranger held 20,000 sockets. A child has its own
descriptors, its own Redis connection pool and its own CPU time: whatever happens to it, the bot goes on. It dies
with the bot (``PR_SET_PDEATHSIG``, as the embedded Redis does), reads the bot's Redis (the embedded one through
its unix socket), and never sees the Discord token: it is given an empty configuration file and only the settings
it needs, in its environment.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time

import aiohttp

from ..config import Config
from ..storage.embedded import die_with_parent

log = logging.getLogger(__name__)

#: Seconds the bot waits for its web child to answer ``/healthz`` before going on without waiting (logged).
START_TIMEOUT = 20.0
#: Seconds a stopping child is given after SIGTERM before it is killed.
STOP_TIMEOUT = 5.0


def child_environment(config: Config, redis_url: str, config_file: str) -> dict[str, str]:
    """The web child's environment: the bot's, without any Discord token, with the settings the pages need
    (``redis_url`` the bot's Redis, ``config_file`` an empty file so no ``config.toml`` — and no token — is read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HONGBOT_") and k not in ("DISCORD_TOKEN",)}
    env.update(
        HONGBOT_CONFIG=config_file,
        REDIS_URL=redis_url,
        HONGBOT_LOG_LEVEL=config.log_level,
        HONGBOT_REDIS_POOL_SIZE=str(config.redis_pool_size),
        HONGBOT_REDIS_POOL_TIMEOUT=str(config.redis_pool_timeout),
        HONGBOT_REDIS_CLUSTER="1" if config.redis_cluster else "0",
        HONGBOT_WEB_PROXIES=str(config.web_proxies),
        HONGBOT_WEB_TRUSTED_PROXIES=",".join(config.web_trusted_proxies),
        HONGBOT_WEB_GLOBAL_LEADERBOARD="1" if config.web_global_leaderboard else "0",
    )
    if config.web_base:
        env["HONGBOT_PUBLIC_URL"] = config.web_base
    return env


def probe(host: str) -> str:
    """Where the bot asks its web child listening on ``host`` whether it is up: loopback for every interface, the
    address itself otherwise (in brackets for IPv6)."""
    wildcard = {"0.0.0.0": "127.0.0.1", "::": "::1"}
    address = wildcard.get(host, host)
    return f"[{address}]" if ":" in address else address


class WebChild:
    """``python -m bot.web --port <web_port> --host <web_host>`` run as the bot's child.

    Args:
        config: the bot's configuration (``web_port`` > 0).
        redis_url: the bot's Redis as a URL (``redis://…`` or, for the embedded server, ``unix://<socket>``).
    """

    def __init__(self, config: Config, redis_url: str) -> None:
        self.config = config
        self.redis_url = redis_url
        self.proc: subprocess.Popen[bytes] | None = None
        self._dir: str | None = None

    async def start(self) -> None:
        """Start the child (from the event loop's thread: it dies with that thread) and wait until it answers
        ``/healthz`` (at most :data:`START_TIMEOUT`; a slow start is logged, not fatal: the pages are the bot's
        extra, never a reason to stop playing)."""
        self._dir = tempfile.mkdtemp(prefix="hongbot-web-")
        empty = os.path.join(self._dir, "config.toml")
        open(empty, "w").close()
        port = self.config.web_port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.web", "--port", str(port), "--host", self.config.web_host],
            env=child_environment(self.config, self.redis_url, empty),
            preexec_fn=die_with_parent(),
        )
        deadline = time.monotonic() + START_TIMEOUT
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    async with session.get(f"http://{probe(self.config.web_host)}:{port}/healthz") as answer:
                        if answer.status < 500:
                            log.info("the web companion (pid %d) serves port %d", self.proc.pid, port)
                            return
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass
                await asyncio.sleep(0.1)
        log.warning("the web companion on port %d is not answering yet (exit code %s)", port, self.proc.poll())

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT`; its temporary directory removed."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                await asyncio.wait_for(asyncio.to_thread(proc.wait), STOP_TIMEOUT)
            except asyncio.TimeoutError:
                proc.kill()
                await asyncio.to_thread(proc.wait)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
