"""Per-address rate limiting of the web companion's clients: a token bucket per remote address, in this process
(each web process limits what reaches it; nothing is written to Redis)."""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, OrderedDict
from typing import Callable

from ..config import WEB_TRUSTED_PROXIES

#: Event streams (``/g/<token>/events``) one client (:func:`client_key`) may hold open at once in one web process;
#: one more is answered 429. A reader with a few tabs open stays well below; one host can't hold hundreds.
STREAMS = 16
#: Event streams a web process holds open at once in all (each a connection, about 15 KB): one more is answered 503,
#: so no crowd of viewers takes every socket (:data:`bot.web.sockets.CONNECTIONS`) or all of the process's memory.
LIVE_STREAMS = 8_000


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


#: The reverse proxies trusted by default (``web_trusted_proxies``): loopback and the private ranges.
PRIVATE_NETWORKS = WEB_TRUSTED_PROXIES


class Networks:
    """A set of IP networks (``"10.0.0.0/8"``, ``"203.0.113.7"``, ``"2001:db8::/32"``): ``address in networks``.

    Raises:
        ValueError: one of ``networks`` is not a network or an address.
    """

    def __init__(self, networks: tuple[str, ...] | list[str] = PRIVATE_NETWORKS) -> None:
        self.networks = tuple(ipaddress.ip_network(n.strip(), strict=False) for n in networks)

    def __contains__(self, address: object) -> bool:
        try:
            ip = ipaddress.ip_address(str(address).strip("[]"))
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in self.networks)

    def __repr__(self) -> str:
        return f"Networks({', '.join(map(str, self.networks))})"


class StreamCounter:
    """The event streams open in this process: at most ``limit`` per client (:data:`STREAMS`) and ``total`` in all
    (:data:`LIVE_STREAMS`)."""

    def __init__(self, limit: int = STREAMS, total: int = LIVE_STREAMS) -> None:
        self.limit = limit
        self.total = total
        self.open_now = 0
        self._open: Counter[str] = Counter()

    def open(self, client: str) -> int:
        """Count one more stream of ``client``: 0, or (nothing counted) 429 when it already holds :attr:`limit`,
        503 when the process holds :attr:`total`."""
        if self.open_now >= self.total:
            return 503
        if self._open[client] >= self.limit:
            return 429
        self._open[client] += 1
        self.open_now += 1
        return 0

    def close(self, client: str) -> None:
        """One stream of ``client`` ended."""
        self._open[client] -= 1
        self.open_now -= 1
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


__all__ = ["Networks", "PRIVATE_NETWORKS", "RateLimiter", "StreamCounter", "client_key", "STREAMS", "LIVE_STREAMS"]
