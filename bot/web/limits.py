"""Per-address rate limiting of the web companion's clients: a token bucket per remote address, in this process
(each web process limits what reaches it; nothing is written to Redis)."""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, OrderedDict
from typing import Callable

#: Event streams (``/g/<token>/events``) one client (:func:`client_key`) may hold open at once in one web process;
#: one more is answered 429. A reader with a few tabs open stays well below; one host can't hold hundreds.
STREAMS = 16


def client_key(address: str) -> str:
    """What one client is counted as: an IPv4 address whole, an IPv6 address by its /64 (one host usually has a
    whole /64, so its addresses are one client), e.g. ``"2001:db8:1:2::/64"``; anything else (``"?"``) as is."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class StreamCounter:
    """The event streams open per client in this process, at most ``limit`` each (:data:`STREAMS`)."""

    def __init__(self, limit: int = STREAMS) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def open(self, client: str) -> bool:
        """Count one more stream of ``client``: False (nothing counted) when it already holds :attr:`limit`."""
        if self._open[client] >= self.limit:
            return False
        self._open[client] += 1
        return True

    def close(self, client: str) -> None:
        """One stream of ``client`` ended."""
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    def count(self, client: str) -> int:
        """The streams ``client`` holds open now."""
        return self._open.get(client, 0)


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


__all__ = ["RateLimiter", "StreamCounter", "client_key", "STREAMS"]
