"""Deadlines kept in Redis, so timers survive restarts and fire exactly once across bot processes.

One sorted set (:attr:`bot.store.Keys.DEADLINES`), scores = due time (Unix seconds). A member names what is due:
``<what>|<channel id>|<game id>|<marker>`` with ``what`` one of ``expire`` (a challenge), ``remind`` and
``forfeit`` (a turn; ``marker`` = the number of moves played when the turn began, so a deadline of a turn that
is already over is recognised as stale and ignored).

Firing: every process polls :meth:`Deadlines.claim_due`; a due member is *claimed* by the ``ZREM`` that removes
it, and only the process whose ``ZREM`` removed it handles it — so each deadline fires exactly once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import redis.asyncio as aioredis

from .store import Keys

KEY = Keys.DEADLINES
KINDS = ("expire", "remind", "forfeit")


@dataclass(frozen=True)
class Deadline:
    """A due deadline: ``what`` (expire|remind|forfeit), ``channel_id``, ``game_id``, ``marker`` (moves played)."""

    what: str
    channel_id: int
    game_id: str
    marker: int

    @property
    def member(self) -> str:
        return f"{self.what}|{self.channel_id}|{self.game_id}|{self.marker}"

    @classmethod
    def parse(cls, member: str) -> "Deadline":
        what, channel, game, marker = member.split("|")
        return cls(what, int(channel), game, int(marker))


class Deadlines:
    """Schedule, cancel and claim deadlines.

    Args:
        redis: a ``decode_responses=True`` client.
        clock: Unix seconds now (injectable; tests move it instead of sleeping).
    """

    def __init__(self, redis: aioredis.Redis, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.clock = clock

    async def schedule(self, *items: tuple[Deadline, float], only_new: bool = False) -> None:
        """Set each ``(deadline, due)``; with ``only_new`` keep an existing member's time (``ZADD NX``)."""
        if items:
            await self.redis.zadd(KEY, {d.member: due for d, due in items}, nx=only_new)

    async def cancel(self, *deadlines: Deadline) -> None:
        if deadlines:
            await self.redis.zrem(KEY, *(d.member for d in deadlines))

    async def cancel_game(self, channel_id: int, game_id: str) -> None:
        """Remove every deadline of one game (any kind, any turn)."""
        pattern = f"*|{channel_id}|{game_id}|*"
        members = [m async for m, _ in self.redis.zscan_iter(KEY, match=pattern)]
        if members:
            await self.redis.zrem(KEY, *members)

    async def due(self, deadline: Deadline) -> float | None:
        """When ``deadline`` is due, or None if it is not scheduled."""
        return await self.redis.zscore(KEY, deadline.member)

    async def claim_due(self, limit: int = 100) -> list[Deadline]:
        """Claim every deadline due now (up to ``limit``): each is returned by exactly one caller, ever."""
        members = await self.redis.zrangebyscore(KEY, "-inf", self.clock(), start=0, num=limit)
        claimed = []
        for member in members:
            if await self.redis.zrem(KEY, member):
                claimed.append(Deadline.parse(member))
        return claimed
