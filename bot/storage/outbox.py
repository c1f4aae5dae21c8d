"""Announcements still to make: what follows from a stored change, written in the same atomic step as the change.

A commit (:meth:`bot.storage.store.GameStore.commit`) adds an :class:`Announcement` for each thing that must follow from
it — the board post of the turn, a finished game's record, rating and rating line, the computer's reply — to the
sorted set :meth:`bot.storage.keys.Keys.outbox` (one per bucket of channels on a Redis Cluster), scored with the time after which a reconciler may make it
(now + :data:`GRACE`). The bot that made the change announces it at once and then removes the entry
(:meth:`Outbox.done`); if it can't (Redis or Discord failed, the process was killed), the entry stays, and the
play cog's reconciler claims it (:meth:`Outbox.claim`, a lease: one process at a time, retried with a doubling
lease until :data:`MAX_TRIES`) and makes it — checking first that it was not made already (the board's file name
carries :attr:`Announcement.tag`; a rating line is looked for by its text). So every stored change is announced
at least once, and a retry never posts it twice.

Member layout: ``<what>|<channel id>|<game id>|<version>|<moves>|<event>`` with ``what`` one of

- ``turn`` — the board post of a committed change: ``version`` the record version it produced (0 for a game's first
  board), ``moves`` the moves played after it, ``event`` a :class:`bot.core.record.Event` value or ``start``;
- ``result`` — a finished game's record, rating and rating line (the stats cog);
- ``computer`` — the computer is to move in the position of ``version`` (removed by the game's next commit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


from ..core.record import Record
from .store import DueSet, Shards, guarded
from .keys import keys_for
from .decoding import RedisClient

#: Seconds the bot that made a change has to announce it before a reconciler may (by ``what``).
GRACE = {"turn": 15.0, "result": 15.0, "computer": 30.0}
#: After this many claims an announcement is given up (logged): about 9 hours of retries.
MAX_TRIES = 12
#: The ``event`` of a game's first board.
START = "start"


@dataclass(frozen=True)
class Announcement:
    """One thing still to announce (see the module docstring for the fields)."""

    what: str
    channel_id: int
    game_id: str
    version: int = 0
    moves: int = 0
    event: str = "-"
    #: For a claimed one: the time its lease ends (to settle it) and how many times it was claimed.
    leased_until: float = field(default=0.0, compare=False)
    tries: int = field(default=0, compare=False)

    @property
    def member(self) -> str:
        return f"{self.what}|{self.channel_id}|{self.game_id}|{self.version}|{self.moves}|{self.event}"

    @property
    def tag(self) -> str:
        """What a post of it carries so a retry can find it: ``<game id>-<version>``."""
        return f"{self.game_id}-{self.version}"

    @classmethod
    def parse(cls, member: str, leased_until: float = 0.0, tries: int = 0) -> "Announcement":
        what, channel, game, version, moves, event = member.split("|")
        return cls(what, int(channel), game, int(version), int(moves), event, leased_until, tries)

    @classmethod
    def start(cls, record: Record) -> "Announcement":
        """A new game's first board."""
        return cls("turn", record.channel_id, record.id, 0, 0, START)

    @classmethod
    def result(cls, record: Record) -> "Announcement":
        """A finished game's record, rating and rating line."""
        return cls("result", record.channel_id, record.id)

    @classmethod
    def computer(cls, record: Record, version: int) -> "Announcement":
        """The computer's reply to the position stored at ``version``."""
        return cls("computer", record.channel_id, record.id, version)


class Outbox:
    """The announcements still to make.

    Args:
        redis: a ``decode_responses=True`` client.
        clock: Unix seconds now (injectable; tests move it).
    """

    def __init__(self, redis: RedisClient, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.clock = clock
        self._due = DueSet(redis, keys_for(redis).outbox, lease=GRACE["turn"], longest=3600.0)

    def entry(self, announcement: Announcement, now: float) -> tuple[str, float]:
        """``(member, score)`` to add in a commit's :class:`bot.storage.store.Effects`."""
        return announcement.member, now + GRACE[announcement.what]

    async def done(self, *announcements: Announcement) -> None:
        """Made: remove them (whoever holds a lease)."""
        for channel_id in {a.channel_id for a in announcements}:
            await self._due.remove(channel_id, *(a.member for a in announcements if a.channel_id == channel_id))

    async def claim(self, limit: int = 50, shards: Shards = Shards()) -> list[Announcement]:
        """Lease every announcement due now (of ``shards``' servers; each to one caller; see
        :class:`bot.storage.store.DueSet`)."""
        return [
            Announcement.parse(m, until, tries)
            for m, until, tries in await self._due.claim(self.clock(), limit, shards)
        ]

    async def settle(self, announcement: Announcement) -> None:
        """A claimed announcement was made (or is no longer needed): remove it unless it was re-added since."""
        await self._due.settle(announcement.channel_id, announcement.member, announcement.leased_until)

    async def resume(self, announcement: Announcement, guild_id: int | None = None) -> None:
        """Make ``announcement`` due now unless it is due sooner (``ZADD LT``): at start-up, for the computer's
        turns, which must not wait for a lease taken by a process that is gone. ``guild_id``: the game's server."""
        await self._due.add(announcement.channel_id, {announcement.member: self.clock()}, guild_id=guild_id, lt=True)

    async def is_pending(self, announcement: Announcement) -> bool:
        """Whether ``announcement`` is still to make."""
        return await self._due.score(announcement.channel_id, announcement.member) is not None

    def _hold_key(self, announcement: Announcement) -> str:
        return f"{self._due.key(announcement.channel_id)}:hold:{announcement.member}"

    async def hold(self, announcement: Announcement, seconds: int = 120) -> bool:
        """Reserve making ``announcement`` for ``seconds`` (one holder at a time: two handlers of the same finished
        game never both post its rating line). True if this caller holds it; :meth:`release` gives it back."""
        bucket = keys_for(self.redis).bucket(announcement.channel_id)
        return bool(
            (await guarded(self.redis, bucket, ("SET", self._hold_key(announcement), "1", "NX", "EX", seconds)))[0]
        )

    async def release(self, announcement: Announcement) -> None:
        await guarded(
            self.redis, keys_for(self.redis).bucket(announcement.channel_id), ("DEL", self._hold_key(announcement))
        )

    async def pending(self) -> list[Announcement]:
        """Every announcement not yet made (for tests and the chaos benchmark)."""
        return [Announcement.parse(m) for m in await self._due.members()]


__all__ = ["Announcement", "Outbox", "GRACE", "MAX_TRIES", "START"]
