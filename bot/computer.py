"""The computer opponent's thinking, outside the event loop and outside the bot's process.

:class:`Thinker` owns a process pool (spawned lazily, ``spawn`` start method so no state of the running bot is
inherited) and asks :func:`engine.ai.choose_move_from_dict` for a move. The event loop only awaits the
future, so other games stay responsive while the computer thinks.
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

log = logging.getLogger(__name__)

LEVELS = ("easy", "medium", "hard")


def _choose(kind: str, state: dict, level: str, seed: int) -> str:
    from engine.ai import choose_move_from_dict

    return choose_move_from_dict(kind, state, level=level, seed=seed)


def _warm_up() -> bool:
    import engine.ai  # noqa: F401  (import the engines once per worker)

    return True


class Thinker:
    """Runs computer moves in a pool of worker processes.

    Args:
        workers: processes in the pool (default 1: thinking never takes both cores of a small host).
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def warm_up(self) -> None:
        """Start the workers now (imports take a moment), so the first computer move is not slower."""
        await asyncio.get_running_loop().run_in_executor(self._executor(), _warm_up)

    async def choose(self, kind: str, state: dict, level: str, seed: int) -> str:
        """A legal move for the player to move in ``state`` (an engine ``to_dict()``) at ``level``.

        A worker that died (killed by the host for memory, say) breaks the whole pool; the pool is then
        replaced and the move asked for once more, so one lost worker does not leave every later computer
        game playing fallback moves.

        Raises:
            ValueError: an unknown level or game (from the engine's AI).
            BrokenProcessPool: the fresh pool broke too.
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), _choose, kind, state, level, seed)
        except BrokenProcessPool:
            log.warning("a computer-opponent worker died; starting a new pool")
            self.close()
            return await loop.run_in_executor(self._executor(), _choose, kind, state, level, seed)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
