"""The one poll loop of the play feature's background work (turn timers, the outbox's reconciler)."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from ...storage.errors import UNREACHABLE, StoreLost

log = logging.getLogger(__name__)


async def poll(step: Callable[[], Awaitable[object]], stopping: asyncio.Event, interval: float, what: str) -> None:
    """Run ``step`` every ``interval`` seconds until ``stopping`` is set (waking at once when it is).

    A lost store (:class:`bot.storage.errors.StoreLost`) is skipped quietly: :mod:`bot.storage.guard` has said it once, and nothing is
    written until an operator decides. A Redis that doesn't answer (a stall, a restart, a failover) is one WARNING
    line a round, not a traceback every second; anything else is logged with its traceback. Never raises."""
    while not stopping.is_set():
        try:
            await step()
        except StoreLost:
            pass
        except UNREACHABLE as exc:
            log.warning(
                "%s: the game store did not answer (%s: %s); trying again in %g s",
                what,
                type(exc).__name__,
                exc,
                interval,
            )
        except Exception:
            log.exception("%s failed", what)
        try:  # sleep, but wake at once when asked to stop
            await asyncio.wait_for(stopping.wait(), interval)
        except asyncio.TimeoutError:
            pass
