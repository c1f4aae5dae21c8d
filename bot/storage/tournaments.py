"""Tournaments kept in Redis (:class:`bot.core.tournament.event.Tournament` as JSON), changed only by compare-and-set,
with their steps due leased to one process at a time — so a round advances exactly once across processes and
restarts, and no game is started twice.

Keys (:mod:`bot.storage.keys`), all of the tournament's channel's hash slot: the document
(:meth:`Keys.tournament`, hash ``v``, ``doc``), the channel's game index (:meth:`Keys.tournament_games`: game id →
tournament id, so a finished game finds its board), and the bucket's due steps (:meth:`Keys.tournament_due`, a
:class:`bot.storage.store.DueSet`, the claims turn timers use). A server's list (:meth:`Keys.guild_tournaments`) is
written before the document and read leniently (an id without a document is skipped).

A step due is ``<what>|<channel id>|<tournament id>|<round>``: ``round`` (post the standings before round ``n`` and
start its games) or ``final`` (post the final standings and the podium), scheduled by the commit that makes it due
(:lua:`tournament.lua`), claimed by :meth:`Tournaments.claim_due`, settled by :meth:`Tournaments.done` once handled
(a process killed in between leaves it to be claimed again when the lease ends; every handler is idempotent).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field
from typing import Callable, Iterable

from redis.exceptions import ResponseError

from ..core.errors import GameChanged
from ..core.tournament.event import Phase, Tournament
from .decoding import RedisClient, decoded, decoded_hash
from .keys import keys_for
from .scripts import TOURNAMENT
from .store import DueSet, Shards, as_store_lost, guarded, marker, through_gate, writing

log = logging.getLogger(__name__)

#: Seconds a claimed step stays with its claimer before another process may take it (doubling each time).
LEASE = 60.0
#: Compare-and-set attempts of :meth:`Tournaments.update` before it gives up (every one lost a race).
TRIES = 20


@dataclass(frozen=True)
class Step:
    """A tournament step due: ``what`` (round|final|start), the tournament's ``channel_id`` and ``tournament_id``, and the
    ``round`` it is for."""

    what: str
    channel_id: int
    tournament_id: str
    round: int
    leased_until: float = field(default=0.0, compare=False)

    @property
    def member(self) -> str:
        return f"{self.what}|{self.channel_id}|{self.tournament_id}|{self.round}"

    @classmethod
    def parse(cls, member: str, leased_until: float = 0.0) -> "Step":
        what, channel, tid, number = member.split("|")
        return cls(what, int(channel), tid, int(number), leased_until)


@dataclass(frozen=True)
class Held:
    """A tournament as read: the document and its version (≥ 1)."""

    tournament: Tournament
    version: int


Change = Callable[[Tournament], tuple[Tournament, Iterable[str], tuple[Step, float] | None]]


def advancing(step: Callable[[Tournament], Tournament], clock: Callable[[], float]) -> Change:
    """A change to a tournament (``step``) that, when it completes the round, also pairs the next one (or finishes
    the tournament) and schedules what follows — in the same compare-and-set, so a round advances once."""

    def change(t: Tournament) -> tuple[Tournament, Iterable[str], tuple[Step, float] | None]:
        before = t
        t = step(t)
        if t.phase is Phase.RUNNING and t.round_complete and before.phase is Phase.RUNNING:
            t = t.next_round()
            what = "final" if t.phase is Phase.FINISHED else "round"
            return t, (), (Step(what, t.channel_id, t.id, t.round), clock())
        return t, (), None

    return change


class Tournaments:
    """Read, create and change tournaments; schedule, claim and settle their steps.

    Args:
        redis: a ``decode_responses=True`` client.
        clock: Unix seconds now (injectable: the tests' clock).
    """

    def __init__(self, redis: RedisClient, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.keys = keys_for(redis)
        self.clock = clock
        self._commit = TOURNAMENT.register(redis)
        self._due = DueSet(redis, self.keys.tournament_due, lease=LEASE)

    # --- reading --------------------------------------------------------------------------------

    async def get(self, channel_id: int, tournament_id: str) -> Held | None:
        """The tournament, or None if there is none (or its document is damaged: logged)."""
        data = decoded_hash(await self.redis.hgetall(self.keys.tournament(channel_id, tournament_id)))
        if not data:
            return None
        try:
            return Held(Tournament.from_dict(json.loads(data["doc"])), int(data["v"]))
        except (KeyError, TypeError, ValueError) as exc:
            log.error("tournament %s in %s is damaged (%s): left as it is", tournament_id, channel_id, exc)
            return None

    async def of_guild(self, guild_id: int) -> list[Tournament]:
        """Every tournament of the server, oldest first."""
        index = decoded_hash(await self.redis.hgetall(self.keys.guild_tournaments(guild_id)))
        out = []
        for tid, channel in index.items():
            held = await self.get(int(channel), tid)
            if held is not None:
                out.append(held.tournament)
        return sorted(out, key=lambda t: (t.created, t.id))

    async def find(self, guild_id: int, tournament_id: str) -> Held | None:
        """A tournament of the server by its id, or None."""
        channel = decoded(await self.redis.hget(self.keys.guild_tournaments(guild_id), tournament_id))
        return await self.get(int(channel), tournament_id) if channel else None

    async def of_game(self, channel_ids: Iterable[int], game_id: str) -> Held | None:
        """The tournament whose board plays ``game_id``, looked up in the game index of each of ``channel_ids``
        (a game's thread's parent, or its channel once moved there), or None for a game of no tournament."""
        for channel_id in channel_ids:
            tid = decoded(await self.redis.hget(self.keys.tournament_games(channel_id), game_id))
            if tid:
                return await self.get(channel_id, tid)
        return None

    async def involving(self, user_id: int) -> list[Tournament]:
        """Every tournament ``user_id`` entered or created, in every server (a SCAN: for ``/privacy``)."""
        found = []
        async for key in self.redis.scan_iter(match=self.keys.TOURNAMENT_PATTERN, count=1000):
            channel, tid = self.keys.channel_of(key), key.rsplit(":", 1)[1]
            held = await self.get(channel, tid)
            if held is not None and held.tournament.involves(user_id):
                found.append(held.tournament)
        return sorted(found, key=lambda t: (t.created, t.id))

    async def forget(self, user_id: int, former_name: str) -> int:
        """Erase ``user_id`` from every tournament (:meth:`Tournament.forgetting`). Returns how many changed."""
        changed = 0
        for t in await self.involving(user_id):
            await self.update(t.channel_id, t.id, lambda x: (x.forgetting(user_id, former_name), (), None))
            changed += 1
        return changed

    # --- writing --------------------------------------------------------------------------------

    async def create(self, tournament: Tournament, step: tuple[Step, float] | None = None) -> None:
        """Store a new tournament (listed in its server first), with its first step (e.g. its start time).

        Raises:
            GameChanged: a tournament with this id exists already (nothing written).
        """
        await through_gate()  # an interaction's change: stored only once it is acknowledged
        writing()
        await guarded(
            self.redis,
            None,
            ("HSET", self.keys.guild_tournaments(tournament.guild_id), tournament.id, tournament.channel_id),
        )
        if not await self.commit(tournament, 0, step=step):
            raise GameChanged("a tournament with this id exists already")

    async def commit(
        self,
        tournament: Tournament,
        version: int,
        *,
        games: Iterable[str] = (),
        step: tuple[Step, float] | None = None,
    ) -> int:
        """Write ``tournament`` if it is still at ``version`` (0: new), indexing ``games`` to it and scheduling
        ``step`` (a :class:`Step` and when), all in one atomic step. Returns the new version, or 0 if someone
        committed in between (nothing written).

        Raises:
            bot.storage.errors.StoreLost: the store lost its data (nothing written).
            bot.core.errors.NotAcknowledged: the change answers an interaction Discord refused (nothing written).
        """
        bucket = self.keys.bucket(tournament.channel_id)
        due = self._due.key(tournament.channel_id)
        await through_gate()  # (see bot.storage.store.gate: an interaction's change waits for its acknowledgement)
        writing()
        try:
            return int(
                await self._commit(
                    keys={
                        "doc": self.keys.tournament(tournament.channel_id, tournament.id),
                        "games": self.keys.tournament_games(tournament.channel_id),
                        "due": due,
                        "marker": marker(self.redis, bucket),
                    },
                    args={
                        "expected": version,
                        "body": json.dumps(tournament.to_dict(), separators=(",", ":"), ensure_ascii=False),
                        "id": tournament.id,
                        "step": step[0].member if step else "",
                        "step_at": step[1] if step else 0,
                        "game_ids": list(games),
                    },
                )
            )
        except ResponseError as exc:
            raise as_store_lost(self.redis, exc) from exc

    async def update(
        self,
        channel_id: int,
        tournament_id: str,
        change: Callable[[Tournament], tuple[Tournament, Iterable[str], tuple[Step, float] | None]],
    ) -> Tournament:
        """Apply ``change`` (tournament → (changed tournament, game ids to index, step to schedule)) to the stored
        tournament with a compare-and-set, reading again and re-applying after a lost race. ``change`` may raise
        (e.g. :class:`bot.core.tournament.event.TournamentError`): nothing is written. A change that returns the
        tournament unchanged writes nothing. Returns the tournament as stored.

        Raises:
            LookupError: no such tournament.
            GameChanged: :data:`TRIES` races lost in a row.
        """
        for attempt in range(TRIES):
            if attempt:  # a lost race: the winners spread out
                await asyncio.sleep(random.uniform(0, 0.01 * attempt))
            held = await self.get(channel_id, tournament_id)
            if held is None:
                raise LookupError(f"no tournament {tournament_id} in {channel_id}")
            changed, games, step = change(held.tournament)
            games = list(games)
            if changed == held.tournament and not games and step is None:
                return changed
            if await self.commit(changed, held.version, games=games, step=step):
                return changed
        raise GameChanged("the tournament changed too often at the same moment")

    # --- steps due ------------------------------------------------------------------------------

    async def schedule(self, step: Step, when: float, guild_id: int | None = None) -> None:
        """Set ``step`` due at ``when`` (again, if it is: a step put off)."""
        await self._due.add(step.channel_id, {step.member: when}, guild_id=guild_id)

    async def claim_due(self, limit: int = 100, shards: Shards = Shards()) -> list[Step]:
        """Lease every step due now (of ``shards``' servers and of unknown ones) to this caller; settle each with
        :meth:`done` once handled."""
        return [Step.parse(m, until) for m, until, _ in await self._due.claim(self.clock(), limit, shards)]

    async def done(self, step: Step) -> bool:
        """A claimed step was handled: removed (unless scheduled anew since its claim). True if removed."""
        return await self._due.settle(step.channel_id, step.member, step.leased_until)

    async def due(self, step: Step) -> float | None:
        """When ``step`` is due (or its lease ends), or None if it is not scheduled."""
        return await self._due.score(step.channel_id, step.member)

    async def memory(self, tournament: Tournament) -> int:
        """Bytes Redis uses for the tournament's document (``MEMORY USAGE``): for the benchmark."""
        return int(await self.redis.memory_usage(self.keys.tournament(tournament.channel_id, tournament.id)) or 0)


__all__ = ["LEASE", "TRIES", "Step", "Held", "Tournaments", "advancing"]
