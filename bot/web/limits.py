"""Per-address rate limiting of the web companion's clients: a token bucket per remote address, in this process
(each web process limits what reaches it; nothing is written to Redis)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Callable


class RateLimiter:
    """``capacity`` requests at once from one address, refilled at ``rate`` a second; at most ``addresses`` buckets
    are kept (the least recently seen forgotten first: a forgotten address starts full again)."""

    def __init__(
        self,
        capacity: float = 120.0,
        rate: float = 4.0,
        addresses: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity, self.rate, self.addresses, self.clock = capacity, rate, addresses, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, address: str) -> float:
        """Take one request of ``address``'s bucket: 0 if allowed, else the seconds until one would be."""
        now = self.clock()
        level, then = self._buckets.pop(address, (self.capacity, now))
        level = min(self.capacity, level + (now - then) * self.rate)
        wait = 0.0
        if level >= 1:
            level -= 1
        else:
            wait = (1 - level) / self.rate
        self._buckets[address] = (level, now)
        if len(self._buckets) > self.addresses:
            self._buckets.popitem(last=False)
        return wait


__all__ = ["RateLimiter"]
