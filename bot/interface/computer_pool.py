"""The computer opponent's thinking, outside the event loop and outside the bot's process.

:class:`Thinker` owns a process pool (spawned lazily, ``spawn`` start method so no state of the running bot is
inherited) and asks :func:`engine.ai.choose_move_from_dict` for a move. The event loop only awaits the
future, so other games stay responsive while the computer thinks; the workers run at a lower OS priority
(:data:`NICE`), so on a busy host people's moves get the CPU first and the computer thinks with what is left.

The workers die with the bot, however it ends (even ``kill -9``, which runs no clean-up): each asks Linux to kill
it when its parent dies (``prctl(PR_SET_PDEATHSIG)``) and, everywhere, watches its parent's pid. With the workers
gone, multiprocessing's resource tracker (kept alive by the workers' handle on it) exits too.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable

from ..budget import COMPUTER_REPLY
from .metrics import COMPUTER_THINK

log = logging.getLogger(__name__)

LEVELS = ("easy", "medium", "hard")


def _choose(kind: str, state: dict, level: str, seed: int, until: float | None = None) -> str:
    """In a worker: the move, its search stopped by ``until`` (Unix seconds, wall time: the reply's deadline, set
    when it was asked for — a request that waited for the worker has less left) or the level's own cap."""
    from engine.ai import SETTINGS, choose_move_from_dict

    return choose_move_from_dict(kind, state, level=level, seed=seed, seconds=time_left(until, kind, level, SETTINGS))


def time_left(until: float | None, kind: str, level: str, settings: dict) -> float | None:
    """Seconds of search left before ``until`` (Unix seconds; None: no deadline), never more than the level's
    own wall-clock cap (``settings[kind][level]["seconds"]``), never less than 0 (the search then completes its
    first depth only)."""
    if until is None:
        return None
    cap = float(settings.get(kind, {}).get(level, {}).get("seconds", COMPUTER_REPLY))
    return max(0.0, min(cap, until - time.time()))


#: How much lower the computer's workers run than the bot (``os.nice``: 0 same, 19 lowest).
NICE = 10
#: Seconds between a worker's checks that the bot is still its parent.
WATCH_INTERVAL = 1.0
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make this (worker) process end when ``parent_pid`` does: ``PR_SET_PDEATHSIG`` on Linux (the kernel sends
    SIGKILL the moment the parent dies), and a daemon thread that exits the process once its parent's pid
    changes (other systems, and the instant before the prctl took effect)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            log.warning("prctl(PR_SET_PDEATHSIG) is unavailable; relying on the parent watch")

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(WATCH_INTERVAL)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker(parent_pid: int, nice: int) -> None:
    """A computer worker's start: die with the bot (:func:`die_with_parent`), run ``nice`` steps lower."""
    die_with_parent(parent_pid)
    try:
        os.nice(nice)
    except OSError:  # not allowed here: think at the bot's priority
        log.warning("could not lower the computer worker's priority")


def _warm_up() -> bool:
    import engine.ai  # noqa: F401  (import the engines once per worker)

    return True


class WorkerPool:
    """A pool of ``workers`` processes, spawned on first use (``spawn``: nothing of the running bot is inherited), each
    started with ``initializer(the bot's pid, *initargs)`` — :func:`die_with_parent` at least.

    A worker that died (killed by the host for memory, say) breaks the whole pool; the pool is then replaced and the
    call made once more (:meth:`run`), so one lost worker does not break every later call.
    """

    def __init__(self, workers: int, initializer: Callable[..., None] = die_with_parent, initargs: tuple = ()) -> None:
        self.workers = workers
        self._initializer, self._initargs = initializer, initargs
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=self._initializer,
                initargs=(os.getpid(), *self._initargs),
            )
        return self._pool

    async def run(self, fn: Callable, *args):
        """``fn(*args)`` in a worker (``fn`` and its arguments picklable).

        Raises:
            BrokenProcessPool: the fresh pool broke too.
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except BrokenProcessPool:
            log.warning("a worker process of %s died; starting a new pool", type(self).__name__)
            self.close()
            return await loop.run_in_executor(self._executor(), fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class Thinker(WorkerPool):
    """Runs computer moves in a pool of worker processes, ``nice`` steps below the bot's priority.

    Args:
        workers: processes in the pool (default 1: thinking never takes both cores of a small host).
        nice: how much lower than the bot the workers run (``os.nice`` steps).
    """

    def __init__(self, workers: int = 1, nice: int = NICE) -> None:
        super().__init__(workers, _start_worker, (nice,))
        self.nice = nice

    async def warm_up(self) -> None:
        """Start the workers now (imports take a moment), so the first computer move is not slower."""
        await self.run(_warm_up)

    async def choose(self, kind: str, state: dict, level: str, seed: int, until: float | None = None) -> str:
        """A legal move for the player to move in ``state`` (an engine ``to_dict()``) at ``level``, its search ended
        by ``until`` (Unix seconds, wall time; default :data:`bot.budget.COMPUTER_REPLY` from now), the wait for a
        free worker counted: on a busy host, or with several games waiting, the computer searches less deep but
        answers in time.

        A worker that died is replaced and the move asked for once more (:meth:`WorkerPool.run`), so one lost worker
        does not leave every later computer game playing fallback moves.

        Raises:
            ValueError: an unknown level or game (from the engine's AI).
            BrokenProcessPool: the fresh pool broke too.
        """
        started = time.monotonic()
        until = time.time() + COMPUTER_REPLY if until is None else until
        move = await self.run(_choose, kind, state, level, seed, until)
        COMPUTER_THINK.labels(level).observe(time.monotonic() - started)  # (waiting for a free worker included)
        return move
