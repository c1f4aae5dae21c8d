"""Faults a test injects into the emulator's REST layer: 5xx before or after the effect, latency, dropped connections.

Real Discord (and the Cloudflare/Google front in front of it) sometimes answers 500/502/503/504 — sometimes *after*
the request took effect (the message exists, the client was told it failed) — adds latency, or resets the
connection. A test says which requests suffer::

    fault = emu.faults.add('POST', r'/channels/\\d+/messages', status=502, when='after', times=1)
    ...
    assert fault.hits == 1
    fault.remove()          # or emu.faults.clear()
    emu.faults.add(None, r'/.*', delay=(2, 5))   # 2-5 s of latency on every route (no status: latency alone)
    emu.faults.add('POST', r'/webhooks/\\d+/[^/]+', status=500, when='before', probability=0.3)

``path`` is a regular expression matched (``re.fullmatch``) against the path after ``/api/v10`` (e.g.
``/channels/123/messages``, ``/interactions/1/tok/callback``, ``/webhooks/1/tok``); ``method`` ``None`` matches every
method. The first fault (in the order added) that matches and whose ``probability`` draw succeeds is applied; a fault
that has used its ``times`` is skipped.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any, List, Optional, Tuple, Union

from aiohttp import web

Delay = Union[float, Tuple[float, float]]

#: what the front answers for a 5xx: Discord's own JSON for 500, the proxy's reason for the others
REASONS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    520: "Unknown Error",
    521: "Web Server Is Down",
    522: "Connection Timed Out",
    524: "A Timeout Occurred",
}


_DEFAULT_STATUS: Any = object()  # add()'s status when not given: 502, or none for a latency-only fault


class Fault:
    """One injected fault (made by :meth:`Faults.add`).

    Attributes: ``method`` (str or None), ``pattern`` (compiled regex), ``status`` (int HTTP status answered, or
    None for latency only), ``when`` (``'before'``: answered instead of doing the request's effect; ``'after'``: the
    effect is done, then ``status`` answered instead of the real reply), ``delay`` (seconds, or a ``(lo, hi)`` range
    drawn per request; added before handling for ``'before'``, before the reply for ``'after'``), ``drop`` (close
    the connection without any reply), ``times`` (hits allowed, None = unlimited), ``probability`` (0..1 share of
    matching requests hit), ``hits`` (requests hit so far).
    """

    def __init__(
        self,
        owner: "Faults",
        method: Optional[str],
        path: str,
        *,
        status: Optional[int],
        when: str,
        delay: Delay,
        drop: bool,
        times: Optional[int],
        probability: float,
    ) -> None:
        if when not in ("before", "after"):
            raise ValueError(f"when must be 'before' or 'after', not {when!r}")
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"probability must be within 0..1, not {probability!r}")
        if isinstance(delay, tuple):
            lo, hi = delay
            if not 0 <= lo <= hi:
                raise ValueError(f"delay range must be 0 <= lo <= hi, not {delay!r}")
        elif delay < 0:
            raise ValueError(f"delay must be >= 0, not {delay!r}")
        if times is not None and times < 0:
            raise ValueError(f"times must be >= 0 or None, not {times!r}")
        self._owner = owner
        self.method = method.upper() if method else None
        self.pattern = re.compile(path)
        self.status = status
        self.when = when
        self.delay = delay
        self.drop = drop
        self.times = times
        self.probability = probability
        self.hits = 0

    def __repr__(self) -> str:
        what = "drop" if self.drop else (self.status or "latency")
        return (
            f"<Fault {self.method or '*'} {self.pattern.pattern} {what} {self.when} delay={self.delay} "
            f"hits={self.hits}/{self.times if self.times is not None else 'inf'}>"
        )

    @property
    def spent(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def matches(self, method: str, path: str) -> bool:
        """True when this fault is meant for ``method path`` (path after ``/api/v10``) and not yet spent."""
        if self.spent:
            return False
        if self.method is not None and self.method != method.upper():
            return False
        return self.pattern.fullmatch(path) is not None

    def draw_delay(self) -> float:
        """The latency for one request, in seconds (a uniform draw from the range, from ``emu.faults.rng``)."""
        if isinstance(self.delay, tuple):
            return self._owner.rng.uniform(*self.delay)
        return float(self.delay)

    def remove(self) -> None:
        """Stop injecting this fault (no error if it was already removed)."""
        if self in self._owner.active:
            self._owner.active.remove(self)


class Faults:
    """The faults injected into one emulator's REST layer (``emu.faults``). ``rng`` (a seeded ``random.Random``)
    decides probabilities and delay ranges, so a run is reproducible; reseed it with ``emu.faults.rng.seed(n)``."""

    def __init__(self, seed: int = 21) -> None:
        self.active: List[Fault] = []
        self.rng = random.Random(seed)

    def add(
        self,
        method: Optional[str] = "POST",
        path: str = r"/channels/\d+/messages",
        *,
        status: Optional[int] = _DEFAULT_STATUS,
        when: str = "after",
        delay: Delay = 0.0,
        drop: bool = False,
        times: Optional[int] = None,
        probability: float = 1.0,
    ) -> Fault:
        """Inject a fault into requests matching ``method`` (None = any) and ``path`` (regex, fullmatch against
        the path after ``/api/v10``). ``status`` defaults to 502, except that a fault given only a ``delay`` (no
        status, no drop) is latency alone; ``status=None`` says so explicitly. Returns the :class:`Fault`; raises
        ValueError for an impossible combination."""
        if status is _DEFAULT_STATUS:
            status = None if (delay and not drop) else 502
        if status is None and not drop and not delay:
            raise ValueError("a fault needs a status, drop=True or a delay")
        fault = Fault(
            self, method, path, status=status, when=when, delay=delay, drop=drop, times=times, probability=probability
        )
        self.active.append(fault)
        return fault

    def clear(self) -> None:
        """Remove every fault."""
        self.active.clear()

    def pick(self, method: str, path: str) -> Optional[Fault]:
        """The fault to apply to this request (its ``hits`` counted), or None. Called once per request."""
        for fault in list(self.active):
            if not fault.matches(method, path):
                continue
            if fault.probability < 1.0 and self.rng.random() >= fault.probability:
                continue
            fault.hits += 1
            return fault
        return None

    @staticmethod
    def body(status: int) -> dict:
        """The JSON body answered with an injected status: ``{"message": "502: Bad Gateway", "code": 0}``."""
        return {"message": f"{status}: {REASONS.get(status, 'Error')}", "code": 0}


# -- applying a fault to one aiohttp request (called by RestAPI.handle) ----------------------------------------------
DROPPED = 0  #: the status recorded in ``emu.requests`` for a dropped connection


def status_response(status: int) -> web.Response:
    """An injected error reply: JSON ``{"message": "502: Bad Gateway", "code": 0}`` with that status."""
    return web.Response(
        body=json.dumps(Faults.body(status)).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def drop(request: web.Request) -> web.Response:
    """Close the client's connection without a reply (the client sees ``ServerDisconnectedError``); the returned
    response is never written."""
    if request.transport is not None:
        request.transport.close()
    return web.Response(status=599)


async def apply_before(fault: Fault, request: web.Request) -> Optional[web.StreamResponse]:
    """A ``when='before'`` fault: wait its delay, then drop or answer its status instead of handling the request
    (returned), or None when it is latency only and the request should be handled as usual."""
    delay = fault.draw_delay()
    if delay:
        await asyncio.sleep(delay)
    if fault.drop:
        return drop(request)
    if fault.status is None:
        return None
    return status_response(fault.status)


async def apply_after(fault: Fault, request: web.Request, reply: web.StreamResponse) -> web.StreamResponse:
    """A ``when='after'`` fault, the request already handled (its effect stands): wait its delay, then drop, answer
    its status, or (latency only) the real ``reply``."""
    delay = fault.draw_delay()
    if delay:
        await asyncio.sleep(delay)
    if fault.drop:
        return drop(request)
    if fault.status is None:
        return reply
    return status_response(fault.status)
