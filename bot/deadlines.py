"""Deadlines kept in Redis, so timers survive restarts and fire exactly once across bot processes.

One sorted set (:attr:`bot.store.Keys.DEADLINES`), scores = due time (Unix seconds). A member names what is due:
``<what>|<channel id>|<game id>|<marker>`` with ``what`` one of ``expire`` (a challenge), ``remind`` and
``forfeit`` (a turn; ``marker`` = the number of moves played when the turn began, so a deadline of a turn that
is already over is recognised as stale and ignored), and ``takeback`` (a takeback request running out; ``marker``
= the move count it applies to).

A turn's deadlines are written by the commit that starts the turn, in the same atomic step (see
:class:`bot.store.Effects`), and the commit that ends it removes them: a stored turn always has its timers.

Firing: every process polls :meth:`Deadlines.claim_due`; a due member is *leased* to one process
(:class:`bot.store.DueSet`), which handles it and then settles it (:meth:`Deadlines.done`). A process killed in
between leaves the deadline to fire again when the lease ends — so each deadline fires once across processes,
and a crash never loses one (handling one twice is harmless: a forfeit or an expiry is a compare-and-set that
finds the turn over, and a reminder is sent with a nonce Discord deduplicates).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import redis.asyncio as aioredis

from .store import DueSet, Keys

KEY = Keys.DEADLINES
KINDS = ("expire", "remind", "forfeit", "takeback")
#: Seconds a claimed deadline stays with its claimer before another process may take it (doubling each time).
LEASE = 60.0


@dataclass(frozen=True)
class Deadline:
    """A due deadline: ``what`` (expire|remind|forfeit|takeback), ``channel_id``, ``game_id``, ``marker`` (moves
    played)."""

    what: str
    channel_id: int
    game_id: str
    marker: int
    #: For a claimed deadline: when its lease ends (to settle it).
    leased_until: float = field(default=0.0, compare=False)

    @property
    def member(self) -> str:
        return f"{self.what}|{self.channel_id}|{self.game_id}|{self.marker}"

    @classmethod
    def parse(cls, member: str, leased_until: float = 0.0) -> "Deadline":
        what, channel, game, marker = member.split("|")
        return cls(what, int(channel), game, int(marker), leased_until)


class Deadlines:
    """Schedule, cancel and claim deadlines.

    Args:
        redis: a ``decode_responses=True`` client.
        clock: Unix seconds now (injectable; tests move it instead of sleeping).
    """

    def __init__(self, redis: aioredis.Redis, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.clock = clock
        self._due = DueSet(redis, KEY, lease=LEASE)

    async def schedule(self, *items: tuple[Deadline, float], only_new: bool = False) -> None:
        """Set each ``(deadline, due)``; with ``only_new`` keep an existing member's time (``ZADD NX``)."""
        if items:
            await self.redis.zadd(KEY, {d.member: due for d, due in items}, nx=only_new)

    async def cancel(self, *deadlines: Deadline) -> None:
        if deadlines:
            await self.redis.zrem(KEY, *(d.member for d in deadlines))

    async def due(self, deadline: Deadline) -> float | None:
        """When ``deadline`` is due (or its lease ends, once claimed), or None if it is not scheduled."""
        return await self.redis.zscore(KEY, deadline.member)

    async def claim_due(self, limit: int = 100) -> list[Deadline]:
        """Lease every deadline due now (up to ``limit``) to this caller; settle each with :meth:`done`."""
        return [Deadline.parse(m, until) for m, until, _ in await self._due.claim(self.clock(), limit)]

    async def done(self, deadline: Deadline) -> None:
        """A claimed deadline was handled: remove it (unless its turn scheduled it anew since)."""
        await self._due.settle(deadline.member, deadline.leased_until)
