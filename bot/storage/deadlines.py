"""Deadlines kept in Redis, so timers survive restarts and fire exactly once across bot processes.

One sorted set (:meth:`bot.storage.keys.Keys.deadlines`; one per bucket of channels on a Redis Cluster), scores = due
time (Unix seconds). A member names what is due:
``<what>|<channel id>|<game id>|<marker>`` with ``what`` one of ``expire`` (a challenge), ``remind`` and
``forfeit`` (a turn; ``marker`` = the number of moves played when the turn began, so a deadline of a turn that
is already over is recognised as stale and ignored), and ``takeback`` (a takeback request running out; ``marker``
= the move count it applies to).

A turn's deadlines are written by the commit that starts the turn, in the same atomic step (see
:class:`bot.storage.store.Effects`), and the commit that ends it removes them: a stored turn always has its timers.

Firing: every process polls :meth:`Deadlines.claim_due`; a due member is *leased* to one process
(:class:`bot.storage.store.DueSet`), which handles it and then settles it (:meth:`Deadlines.done`). A process killed in
between leaves the deadline to fire again when the lease ends — so each deadline fires once across processes,
and a crash never loses one (handling one twice is harmless: a forfeit or an expiry is a compare-and-set that
finds the turn over, and a reminder is sent with a nonce Discord deduplicates).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


from .store import DueSet, Shards
from .keys import keys_for
from .decoding import RedisClient

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

    def __init__(self, redis: RedisClient, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.clock = clock
        self._due = DueSet(redis, keys_for(redis).deadlines, lease=LEASE)

    async def schedule(
        self, *items: tuple[Deadline, float], only_new: bool = False, guild_id: int | None = None
    ) -> None:
        """Set each ``(deadline, due)``; with ``only_new`` keep an existing member's time (``ZADD NX``). With
        ``guild_id`` (the games' server) only a process running that server's shard claims them."""
        for channel_id, mine in _by_channel(items, lambda item: item[0].channel_id).items():
            await self._due.add(channel_id, {d.member: due for d, due in mine}, guild_id=guild_id, nx=only_new)

    async def cancel(self, *deadlines: Deadline) -> None:
        for channel_id, mine in _by_channel(deadlines, lambda d: d.channel_id).items():
            await self._due.remove(channel_id, *(d.member for d in mine))

    async def due(self, deadline: Deadline) -> float | None:
        """When ``deadline`` is due (or its lease ends, once claimed), or None if it is not scheduled."""
        return await self._due.score(deadline.channel_id, deadline.member)

    async def claim_due(self, limit: int = 100, shards: Shards = Shards()) -> list[Deadline]:
        """Lease every deadline due now (up to ``limit``; of ``shards``' servers) to this caller; settle each with
        :meth:`done`."""
        return [Deadline.parse(m, until) for m, until, _ in await self._due.claim(self.clock(), limit, shards)]

    async def done(self, deadline: Deadline) -> None:
        """A claimed deadline was handled: remove it (unless its turn scheduled it anew since)."""
        await self._due.settle(deadline.channel_id, deadline.member, deadline.leased_until)

    async def members(self) -> list[str]:
        """Every deadline scheduled (for tests and the chaos benchmark)."""
        return await self._due.members()


def _by_channel(items, channel_of) -> dict[int, list]:
    """``items`` grouped by their channel (each channel's deadlines are in its bucket's set)."""
    groups: dict[int, list] = {}
    for item in items:
        groups.setdefault(channel_of(item), []).append(item)
    return groups
