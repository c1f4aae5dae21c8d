"""Redis persistence: one record per channel's game, committed atomically against its version.

Every key name the bot uses is built by :class:`bot.storage.keys.Keys`, there and nowhere else. The game records on one Redis
server (every key of one channel shares the ``{ch:<channel id>}`` hash tag; :class:`ClusterKeys` for a Cluster):

- ``hongbot:{ch:<cid>}:game`` — a hash ``{"v": <version>, "doc": <JSON>}``: the channel's open challenge
  or running game (a :class:`bot.core.record.Record`). Version 0 means "no record".
- ``hongbot:{ch:<cid>}:done:<game id>`` — the JSON of a finished game, written in the same atomic step
  that frees the channel.
- ``hongbot:finished`` — a sorted set of ``<channel id>:<game id>`` by end time (an index, written after).
- ``hongbot:{ch:<cid>}:msg:<game id>`` — a challenge message's id; ``…:rematch:<game id>`` — rematch votes;
  ``…:rmmsg:<game id>`` — the message that asked for the rematch.
- ``hongbot:{ch:<cid>}:reply:<turn announcement>`` — the interaction a stored turn answers (application id and token,
  15 minutes: :meth:`Keys.reply`), written by the commit, so the reconciler completes it if this process dies.
- ``hongbot:{g:<guild id>}:active`` — the server's channels with a running game.
- ``hongbot:store:identity`` — the store's identity marker (:mod:`bot.storage.guard`: a Redis that lost its data is noticed).

Every change goes through :meth:`GameStore.commit`, a Lua script (``lua/commit.lua``) that applies it only if the
stored version is the one the change was computed from, so of two concurrent moves exactly one lands. The same script
writes what follows from the change (:class:`Effects`): the turn's deadlines (``hongbot:deadlines``), the
announcements still to make (``hongbot:outbox``, see :mod:`bot.storage.outbox`), the server's active set and the
finished index — so a stored change always carries its consequences, even if Redis or the bot dies the moment after.

On a Redis Cluster (``redis_cluster``: redis-py's ``RedisCluster`` client) a script, a MULTI or a WATCH may only
touch keys of one hash slot. So there the keys are laid out by :class:`ClusterKeys`: the sets a commit writes beside
a record are kept per bucket of channels, each bucket under a hash tag of its own that the bucket's channels' keys
carry too — every commit stays in one slot. The other multi-key steps already are: a leaderboard's rating update
(``{rt:…}``), a due set and its hashes (its bucket's tag), rematch votes (one key). A commit there also waits for a
replica to have it (:data:`REPLICA_WAIT_MS`), and SCANs go over every primary (redis-py's ``scan_iter`` does).

A record that cannot be read (:class:`bot.core.record.RecordError`, or a key of the wrong type) is *set aside* on
read: renamed to ``hongbot:{ch:<cid>}:quarantine:<time>`` (kept for inspection, listed in ``hongbot:quarantine``)
and logged, so the channel is free and nothing else is blocked.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, Mapping

from redis.asyncio.cluster import PipelineCommand, RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .. import budget
from .errors import StoreLost
from ..core.record import Record, RecordError
from .decoding import RedisClient, decoded, decoded_hash, decoded_list, decoded_scores  # noqa: F401 (re-exported)
from .keys import Keys, keys_for
from .scripts import CLAIM, COMMIT, GUARDED, LOST_REPLY, SET_ASIDE, SETTLE  # noqa: F401 (LOST_REPLY re-exported)

log = logging.getLogger(__name__)

#: On a Redis Cluster, how long a commit waits at most for a replica to acknowledge it (milliseconds).
REPLICA_WAIT_MS = 100

#: The task handling an interaction and the local time (``time.monotonic()``) by which a change it makes must be
#: stored, or not at all (:func:`deadline`); None outside an interaction (timers, the computer: no deadline). Set by
#: :func:`fresh_task` (from :func:`bot.interface.answers.watch`).
_DEADLINE: contextvars.ContextVar[tuple[asyncio.Task | None, float] | None] = contextvars.ContextVar(
    "store_deadline", default=None
)
#: Whether the current interaction has sent a write to Redis (a commit, a setting, a vote…): until it has, a
#: failure to reach Redis means certainly nothing was saved (:func:`wrote`).
_WROTE: contextvars.ContextVar[bool] = contextvars.ContextVar("store_wrote", default=False)
#: The task handling an interaction and what it must do before it first changes a game (:func:`gate`), or None.
_GATE: contextvars.ContextVar[tuple[asyncio.Task | None, Callable[[], Awaitable[None]]] | None] = (
    contextvars.ContextVar("store_gate", default=None)
)
#: The interaction (``<application id>:<token>``) the current task's change answers, set by :func:`reply_to`.
_REPLY: contextvars.ContextVar[tuple[asyncio.Task | None, str] | None] = contextvars.ContextVar(
    "store_reply", default=None
)
#: Seconds an interaction's token may be used for follow-ups and edits of its response (Discord: 15 minutes).
REPLY_TTL = 15 * 60
#: Seconds a measured offset between Redis's clock and ours is used before it is measured again.
OFFSET_REFRESH = 60.0


def writing() -> None:
    """Note that the current task is about to send a write to Redis (see :func:`wrote`)."""
    _WROTE.set(True)


def wrote() -> bool:
    """Whether the current task (an interaction's handler) has sent a write to Redis since :func:`fresh_task`:
    while it has not, a failure to reach Redis means nothing of it was saved."""
    return _WROTE.get()


def fresh_task(deadline: float | None) -> None:
    """Start an interaction's accounting in the current task: nothing written yet, and its changes due by
    ``deadline`` (local ``time.monotonic()``; None: no deadline)."""
    _WROTE.set(False)
    _GATE.set(None)
    _REPLY.set(None)
    _DEADLINE.set(None if deadline is None else (asyncio.current_task(), deadline))


def gate(first: Callable[[], Awaitable[None]] | None) -> None:
    """Have the current task await ``first()`` just before it first changes a game (a commit, a finish, a rematch
    vote: :meth:`GameStore.commit`, :meth:`GameStore.finish`, :meth:`GameStore.vote_rematch`), once; None removes
    it. The reads and checks before go on as usual, and an exception of ``first`` ends the change with nothing
    written. Discord-free: the play cog passes the interaction's acknowledgement (:func:`bot.interface.answers.before_change`),
    so a change is stored only once its player has been answered. Tasks started from this one don't inherit it."""
    _GATE.set(None if first is None else (asyncio.current_task(), first))


async def through_gate() -> None:
    """Await the current task's :func:`gate` if it has one not yet passed (then it is passed).

    Raises:
        Exception: whatever the gate raises (it stays closed: a later change of the task raises too).
    """
    found = _GATE.get()
    if found is None or found[0] is not asyncio.current_task():
        return
    await found[1]()
    _GATE.set(None)


def reply_to(interaction: str | None) -> None:
    """Note that the current task's change answers the interaction ``interaction`` (``"<application id>:<token>"``,
    acknowledged: :func:`bot.interface.answers.before_change`): its commit stores it beside the turn announcement it adds
    (:meth:`Keys.reply`, for :data:`REPLY_TTL` seconds, in the same atomic step), so that whoever makes the
    announcement — the reconciler after this process died — completes that interaction rather than leaving it on
    "thinking…". None forgets it. Tasks started from this one don't inherit it."""
    _REPLY.set(None if interaction is None else (asyncio.current_task(), interaction))


def _reply() -> str:
    found = _REPLY.get()
    return found[1] if found is not None and found[0] is asyncio.current_task() else ""


def deadline() -> float | None:
    """The local time (``time.monotonic()``) by which the current task's next change must be stored, or not at all:
    the deadline of :func:`fresh_task`, while the task has written nothing yet (once it has, the interaction's
    outcome is that write, and later changes go as any other); None otherwise — and in tasks started from it (the
    computer's reply, an event's listeners: they don't inherit it)."""
    found = _DEADLINE.get()
    if found is None or found[0] is not asyncio.current_task() or _WROTE.get():
        return None
    return found[1]


class NotSaved(Exception):
    """A change that was certainly not stored and never will be: the game store did not answer before the change's
    deadline (:func:`deadline`) — its commit was refused as late, never sent, or its reply was lost and the record,
    re-read after the deadline, does not have it."""


#: Errors meaning a command's reply did not come (the server hung, the connection dropped): a write sent may or may
#: not have run.
LOST = (RedisConnectionError, RedisTimeoutError, OSError)


def _guard_of(redis):
    """The :class:`bot.storage.guard.StoreGuard` that established the store's identity on ``redis`` (None: none did, e.g.
    a test's bare client — then nothing is checked)."""
    guard = getattr(redis, "_hongbot_guard", None)
    return guard if guard is not None and guard.known is not None else None


def marker(redis, bucket: int | None) -> str | None:
    """The identity marker key a write in ``bucket`` (:meth:`Keys.bucket`) checks, in the same hash slot; None when
    nothing is to be checked: no guard established the store on ``redis``, or (``bucket`` None) the keys lie outside
    every bucket's slot on a Redis Cluster (a server's settings, a leaderboard, the game index: there only the guard's
    periodic and connect-time checks watch them)."""
    if _guard_of(redis) is None:
        return None
    keys = keys_for(redis)
    if bucket is None:
        return None if keys.BUCKETS > 1 else keys.identity_keys()[0]
    return keys.identity_keys()[bucket]


def as_store_lost(redis, error: BaseException) -> BaseException:
    """The error to raise for ``error`` from a guarded write or read: a :class:`bot.storage.errors.StoreLost` (the guard
    told, so that it logs the ERROR once, ``/healthz`` answers 503 and every connection is checked) when a script
    refused because the identity marker is gone (:data:`LOST_REPLY`), else ``error`` itself."""
    if not (isinstance(error, ResponseError) and LOST_REPLY in str(error)):
        return error
    key = str(error).split(LOST_REPLY, 1)[1].split()[0] if str(error).split(LOST_REPLY, 1)[1].split() else "?"
    guard = _guard_of(redis)
    return guard.lost(key) if guard is not None else StoreLost(f"the game store's identity marker {key} is gone")


async def check_marker(redis, bucket: int | None) -> None:
    """After a read found nothing: raise :class:`bot.storage.errors.StoreLost` if the identity marker of ``bucket`` is gone
    (the store lost its data: "nothing here" would be a lie), or if the guard found the store lost already. One
    ``EXISTS`` (nothing when no guard established the store).

    Raises:
        bot.storage.errors.StoreLost: the store lost its data.
        redis.RedisError: Redis did not answer.
    """
    guard = _guard_of(redis)
    if guard is None:
        return
    if guard.problem is not None:
        raise StoreLost(guard.problem)
    key = marker(redis, bucket)
    if key is not None and not await redis.exists(key):
        raise guard.lost(key)


async def guarded(redis, bucket: int | None, *commands) -> list:
    """Run ``commands`` — ``(name, key, *args)`` each, all keys in one hash slot on a Cluster, the slot of ``bucket``'s
    marker (:func:`marker`) when ``bucket`` is given — atomically in one round trip, refused when the store's identity
    marker is gone. Returns their replies (nil as 0).

    Raises:
        bot.storage.errors.StoreLost: the marker is gone: nothing was written.
        redis.RedisError: Redis did not answer.
    """
    key = marker(redis, bucket)
    sent: list = []
    for name, _key, *rest in commands:
        sent += [name, len(rest), *rest]
    script = getattr(redis, "_hongbot_guarded", None)
    if script is None:
        script = GUARDED.register(redis)
        with contextlib.suppress(AttributeError):
            redis._hongbot_guarded = script
    try:
        return await script(
            keys={"marker": key or commands[0][1], "targets": [command[1] for command in commands]},
            args={"check": "1" if key else "0", "commands": sent},
        )
    except ResponseError as exc:
        raise as_store_lost(redis, exc) from exc


@dataclass(frozen=True)
class Shards:
    """The gateway shards one bot process runs: ``ids`` out of ``count`` (Discord sends a guild's events to shard
    ``(guild id >> 22) % count``). The default is the whole of one shard: every guild.

    Deadlines and announcements are claimed only by a process whose shards hold their guild (:class:`DueSet`), so
    that what follows from them (checking the bot's permissions in the channel, posting) is done where the guild's
    state is known.
    """

    count: int = 1
    ids: tuple[int, ...] = (0,)

    @staticmethod
    def key(guild_id: int) -> int:
        """What the shard of ``guild_id`` is computed from, whatever the shard count: ``guild id >> 22``."""
        return guild_id >> 22

    def serves(self, guild_id: int | None) -> bool:
        """Whether a guild's events come to these shards (direct messages come to shard 0)."""
        return (self.key(guild_id) % self.count if guild_id else 0) in self.ids

    def args(self) -> list[int]:
        """The claim script's arguments ``shard_count`` and ``shards`` (``lua/claim.lua``) as a list: 0 when these
        shards are all of them (claim everything), else the count and the ids."""
        return [0] if set(range(self.count)) <= set(self.ids) else [self.count, *self.ids]


@dataclass(frozen=True)
class Effects:
    """What a commit changes besides the record, in the same atomic step.

    Attributes:
        cancel: deadline members to remove (:attr:`bot.storage.deadlines.Deadline.member`).
        schedule: ``(deadline member, due time)`` pairs to set.
        settle: outbox members to remove (:attr:`bot.storage.outbox.Announcement.member`).
        announce: ``(outbox member, when it may be retried)`` pairs to add.
        active: True/False: the channel joins/leaves its server's set of channels with a running game;
            None leaves the set alone.
    """

    cancel: tuple[str, ...] = ()
    schedule: tuple[tuple[str, float], ...] = ()
    settle: tuple[str, ...] = ()
    announce: tuple[tuple[str, float], ...] = ()
    active: bool | None = None

    def channels(self) -> set[int]:
        """The channels of the members changed (each member names its channel second: ``<what>|<channel id>|…``)."""
        return {int(member.split("|")[1]) for member in (*self.cancel, *self.settle)} | {
            int(member.split("|")[1]) for member, _ in (*self.schedule, *self.announce)
        }

    def args(self) -> list:
        """The commit script's tail ``effects...`` (``lua/commit.lua``) up to the interaction to complete."""
        out: list = []
        for remove, add in ((self.cancel, self.schedule), (self.settle, self.announce)):
            out += [len(remove), *remove, len(add)]
            for member, score in add:
                out += [member, score]
        return out


class DueSet:
    """A sorted set of members by due time whose due members are *leased* to one claimer at a time — one set per
    bucket of channels (:meth:`Keys.bucket`; one bucket on a single server).

    :meth:`claim` hands each due member to exactly one caller for a lease (doubling with every claim, up to
    ``longest``); the caller settles it (:meth:`settle`) when done. A claimer that dies leaves the member to be claimed
    again when its lease ends, so nothing due is ever dropped by a crash (at least once, never lost). A member added
    with its guild's shard key (:meth:`Shards.key`) is claimed only by a process running that guild's shard.

    Args:
        redis: a ``decode_responses=True`` client.
        key: a bucket's sorted set key, from the bucket number (e.g. :meth:`Keys.deadlines` of the layout).
        lease: seconds a first claim lasts.
        longest: the longest lease (seconds).
    """

    def __init__(self, redis: RedisClient, key: Callable[[int], str], lease: float, longest: float = 3600.0) -> None:
        self.redis = redis
        self.keys = keys_for(redis)
        self.key_of = key
        self.lease = lease
        self.longest = longest
        self._next = 0  # the bucket the next claim starts with (in turn, so that no bucket waits behind the others)
        self._claim = CLAIM.register(redis)
        self._settle = SETTLE.register(redis)

    def key(self, channel_id: int) -> str:
        """The sorted set holding the members of ``channel_id``."""
        return self.key_of(self.keys.bucket(channel_id))

    def all_keys(self) -> list[str]:
        """Every bucket's sorted set."""
        return [self.key_of(bucket) for bucket in range(self.keys.BUCKETS)]

    async def claim(self, now: float, limit: int = 100, shards: Shards = Shards()) -> list[tuple[str, float, int]]:
        """Lease every member due at ``now`` (at most ``limit``) of ``shards``' guilds (and of unknown guilds):
        ``[(member, leased until, claims so far)]``. One round trip a bucket."""
        out: list[tuple[str, float, int]] = []
        count = self.keys.BUCKETS
        start, self._next = self._next, (self._next + 1) % count
        for bucket in range(start, start + count):
            if len(out) >= limit:
                break
            key = self.key_of(bucket % count)
            try:
                count_and_ids = shards.args()
                raw = await self._claim(
                    keys=self._keys(key, bucket % count),
                    args={
                        "now": now,
                        "base_lease": self.lease,
                        "longest": self.longest,
                        "limit": limit - len(out),
                        "shard_count": count_and_ids[0],
                        "shards": count_and_ids[1:],
                    },
                )
            except ResponseError as exc:
                raise as_store_lost(self.redis, exc) from exc
            out += [(raw[i], float(raw[i + 1]), int(raw[i + 2])) for i in range(0, len(raw), 3)]
        return out

    async def settle(self, channel_id: int, member: str, leased_until: float) -> bool:
        """Remove a claimed member of ``channel_id`` (unless it was scheduled anew since the claim). True if removed."""
        key = self.key(channel_id)
        try:
            return bool(
                await self._settle(
                    keys=self._keys(key, self.keys.bucket(channel_id)), args={"member": member, "leased": leased_until}
                )
            )
        except ResponseError as exc:
            raise as_store_lost(self.redis, exc) from exc

    def _keys(self, key: str, bucket: int) -> dict[str, str | None]:
        """A script's keys for the sorted set ``key`` of ``bucket``: it, its tries and shard hashes, and the bucket's
        identity marker when the store is guarded (:func:`marker`: refused when it is gone; None: not checked)."""
        return {
            "due": key,
            "tries": Keys.tries(key),
            "shard_keys": Keys.shards(key),
            "marker": marker(self.redis, bucket),
        }

    async def add(self, channel_id: int, items: dict[str, float], *, guild_id: int | None = None, **options) -> None:
        """Add ``{member: due}`` of ``channel_id`` (``options``: ``ZADD``'s, e.g. ``nx=True``), with the guild's shard
        key when ``guild_id`` is known."""
        key = self.key(channel_id)
        flags = [flag.upper() for flag, on in options.items() if on]
        scores = [part for member, due in items.items() for part in (due, member)]
        commands = [("ZADD", key, *flags, *scores)]
        if guild_id:
            shard = Shards.key(guild_id)
            commands.append(("HSET", Keys.shards(key), *[part for member in items for part in (member, shard)]))
        await guarded(self.redis, self.keys.bucket(channel_id), *commands)

    async def remove(self, channel_id: int, *members: str) -> None:
        """Remove members of ``channel_id`` (whoever holds a lease)."""
        if not members:
            return
        key = self.key(channel_id)
        await guarded(
            self.redis,
            self.keys.bucket(channel_id),
            ("ZREM", key, *members),
            ("HDEL", Keys.tries(key), *members),
            ("HDEL", Keys.shards(key), *members),
        )

    async def score(self, channel_id: int, member: str) -> float | None:
        """When a member of ``channel_id`` is due (or its lease ends), or None if it is not in the set."""
        return await self.redis.zscore(self.key(channel_id), member)

    async def members(self) -> list[str]:
        """Every member of every bucket (for tests, start-up checks and the chaos benchmark)."""
        return [member for key in self.all_keys() for member in decoded_list(await self.redis.zrange(key, 0, -1))]


@dataclass(frozen=True)
class Stored:
    """A channel's record as read: the :class:`Record` and its ``version`` (≥ 1)."""

    record: Record
    version: int


class GameStore:
    """Per-channel game records in Redis with optimistic, atomic commits.

    Args:
        redis: a ``redis.asyncio.Redis`` client created with ``decode_responses=True``.
    """

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis
        self.keys = keys_for(redis)
        self._commit = COMMIT.register(redis)
        self._set_aside = SET_ASIDE.register(redis)
        self._offset: tuple[float, float] | None = None  # (Redis TIME - time.monotonic(), when measured)
        #: How a commit tells the web companion's watchers (commit.lua's ``publish``): ``PUBLISH``; on a Cluster
        #: ``SPUBLISH`` once :meth:`detect_publish` found Redis 7 or later (before it, ``PUBLISH``, which a Cluster
        #: sends to every node). "" publishes nothing.
        self.publish = "PUBLISH"

    async def get(self, channel_id: int) -> Stored | None:
        """The channel's current record, or None (one round trip).

        A record that cannot be read (damaged, of an unknown schema, or a key of the wrong type) is set aside
        (:meth:`set_aside`) and None is returned: one bad record never blocks its channel or anything else.
        """
        key = self.keys.game(channel_id)
        try:
            data = decoded_hash(await self.redis.hgetall(key))
        except ResponseError as exc:
            if "WRONGTYPE" not in str(exc):
                raise
            await self.set_aside(channel_id, "wrongtype", f"the key {key} is not a hash")
            return None
        if not data:  # nothing here — or the store lost its data: say which (one EXISTS, only when guarded)
            await check_marker(self.redis, self.keys.bucket(channel_id))
            return None
        try:
            return Stored(Record.from_json(data.get("doc", "")), int(data.get("v", 0)))
        except (RecordError, ValueError) as exc:
            await self.set_aside(channel_id, data.get("v", "0"), str(exc))
            return None

    async def set_aside(self, channel_id: int, version: str | int, why: str) -> bool:
        """Move the channel's record (if still at ``version``; ``"wrongtype"`` for a key that is not a hash) to a
        quarantine key kept for inspection, and log why; the channel is free afterwards. True if moved."""
        now = time.time()
        target = self.keys.quarantine(channel_id, now)
        index = self.keys.quarantine_index(self.keys.bucket(channel_id))
        writing()
        found = marker(self.redis, self.keys.bucket(channel_id))
        try:
            moved = await self._set_aside(
                keys={"game": self.keys.game(channel_id), "quarantine": target, "index": index, "marker": found},
                args={"version": str(version), "now": now},
            )
        except ResponseError as exc:
            raise as_store_lost(self.redis, exc) from exc
        if moved:
            log.error(
                "set aside the unreadable record of channel %s as %s (%s); the channel is free again",
                channel_id,
                target,
                why,
            )
        return bool(moved)

    async def raw(self, channel_id: int) -> dict[str, str]:
        """The channel's record exactly as stored (for tests that check nothing changed)."""
        return decoded_hash(await self.redis.hgetall(self.keys.game(channel_id)))

    async def commit(
        self,
        channel_id: int,
        record: Record | None,
        expected_version: int,
        effects: Effects = Effects(),
        *,
        guild_id: int | None = None,
    ) -> int | None:
        """Write ``record`` (or delete it when None) with its ``effects``, if the stored version is
        ``expected_version``; all of it in one atomic step, or nothing.

        ``expected_version`` 0 means "only if there is no record" (creating one). ``guild_id`` (for a delete;
        a record names its own) is the server whose active set ``effects.active`` changes.

        Returns:
            The new version (``expected_version + 1``; 0 after a delete), or None if someone else committed first.
        """
        text = "" if record is None else record.to_json()
        guild = record.guild_id if record is not None else guild_id
        result = await self._run(
            channel_id, guild, self.keys.game(channel_id), expected_version, text, "put", "", 0, effects
        )
        return None if result == -1 else int(result)

    async def finish(
        self, channel_id: int, record: Record, expected_version: int, effects: Effects = Effects()
    ) -> bool:
        """Atomically store ``record`` as a finished game, free the channel, index the game in ``hongbot:finished``
        and apply ``effects``, if the version still matches.

        Returns:
            True if this call finished the game; False if someone else committed first.
        """
        result = await self._run(
            channel_id,
            record.guild_id,
            self.keys.finished(channel_id, record.id),
            expected_version,
            record.to_json(),
            "finish",
            f"{channel_id}:{record.id}",
            record.ended or 0,
            effects,
        )
        return result != -1

    async def _run(
        self,
        channel_id: int,
        guild_id: int | None,
        second: str,
        expected: int,
        text: str,
        mode: str,
        member: str,
        ended: float,
        effects: Effects,
    ) -> int:
        strays = effects.channels() - {channel_id}
        if strays:
            raise ValueError(
                f"a commit of channel {channel_id} can't change the deadlines or announcements of "
                f"channel(s) {sorted(strays)}: commit each channel's own"
            )
        game, bucket = self.keys.game(channel_id), self.keys.bucket(channel_id)
        active = "" if effects.active is None or guild_id is None else ("1" if effects.active else "0")
        deadlines, outbox = self.keys.deadlines(bucket), self.keys.outbox(bucket)
        keys: dict[str, str | None] = {
            "game": game,
            "done": second,
            "deadlines": deadlines,
            "outbox": outbox,
            "active": self.keys.active(guild_id, bucket) if guild_id is not None else game,
            "finished": self.keys.finished_index(bucket),
            "deadline_tries": Keys.tries(deadlines),
            "outbox_tries": Keys.tries(outbox),
            "deadline_shards": Keys.shards(deadlines),
            "outbox_shards": Keys.shards(outbox),
        }
        args: dict[str, object] = {
            "expected": expected,
            "doc": text,
            "mode": mode,
            "channel": channel_id,
            "member": member,
            "ended": ended,
            "activate": active,
            "shard": Shards.key(guild_id) if guild_id else "",
            "due_by": "",
            "live": self.keys.live(channel_id),
            "publish": self.publish,
        }
        await through_gate()  # e.g. the interaction acknowledged first: nothing stored for one that expired
        turns = [m for m, _ in effects.announce if m.startswith("turn|")]
        reply = _reply() if turns else ""
        keys["reply"] = self.keys.reply(channel_id, turns[0]) if reply else game
        args["effects"] = [*effects.args(), reply, REPLY_TTL]
        # refused when the store's identity marker is gone (lua/marker_check.lua); None: not checked
        keys["marker"] = marker(self.redis, bucket)
        due = deadline()
        if due is None:
            writing()
            return await self._send(keys, args)
        if time.monotonic() >= due:
            raise NotSaved(f"the change to channel {channel_id} was past its deadline before it was sent")
        args["due_by"] = f"{due + await self._clock_offset():.6f}"  # on Redis's clock (see _clock_offset)
        if time.monotonic() >= due:
            raise NotSaved(f"the change to channel {channel_id} was past its deadline before it was sent")
        writing()
        try:
            result = await self._send(keys, args)
        except LOST as exc:
            return await self._decide(exc, due, channel_id, mode, second, expected, text)
        if result == -2:
            raise NotSaved(f"Redis ran the change to channel {channel_id} after its deadline: refused")
        return result

    async def _send(self, keys: Mapping[str, str | None], args: Mapping[str, object]) -> int:
        try:
            if isinstance(self.redis, RedisCluster):
                return await self._commit_replicated(self.redis, keys, args)
            return int(await self._commit(keys=keys, args=args))
        except ResponseError as exc:
            raise as_store_lost(self.redis, exc) from exc

    async def _clock_offset(self) -> float:
        """A lower bound of (Redis's ``TIME`` − our ``time.monotonic()``), measured with one ``TIME`` at most every
        :data:`OFFSET_REFRESH` seconds: Redis read its clock before our reply arrived, so Redis time at a local
        instant ``m`` is at least ``m + offset``. A deadline ``d`` (local) sent as ``d + offset`` (Redis) has surely
        passed on Redis's clock once ``d`` has passed here — then a stored version unchanged is final.

        Raises:
            redis.RedisError: Redis did not answer (nothing was written).
        """
        now = time.monotonic()
        if self._offset is None or now - self._offset[1] > OFFSET_REFRESH:
            seconds, micro = await self.redis.time()
            after = time.monotonic()
            self._offset = (float(seconds) + float(micro) / 1e6 - after, after)
        return self._offset[0]

    async def _decide(
        self, lost: BaseException, deadline: float, channel_id: int, mode: str, second: str, expected: int, text: str
    ) -> int:
        """A commit's reply was lost (it may or may not have run): wait until its deadline has passed on Redis's
        clock too (after which the script can no longer apply it), then re-read the record. Returns what the commit
        would have (the new version; -1 when another change landed instead); raises :class:`NotSaved` when the
        record is as it was, or ``lost`` again when Redis still does not answer or the record has moved on past a
        change that may have been ours (the outbox then posts its board if it was)."""
        await asyncio.sleep(max(0.0, deadline + budget.CLOCK_MARGIN - time.monotonic()))
        try:
            current = await self.redis.hgetall(self.keys.game(channel_id))
            finished = await self.redis.get(second) if mode == "finish" else None
        except LOST:
            log.warning(
                "a change to channel %s may or may not be stored: Redis lost its reply and does not answer (%s)",
                channel_id,
                lost,
            )
            raise lost
        version = int(current.get("v", 0) or 0)
        if mode == "finish":
            if finished == text:
                return 0
            if version == expected:
                raise NotSaved(f"the end of the game in channel {channel_id} was not stored before its deadline")
            return -1  # the game ended or moved on otherwise: ours was not stored (a finished record stays)
        if version == expected:
            raise NotSaved(f"the change to channel {channel_id} was not stored before its deadline")
        if not text and version == 0:
            return 0  # deleted, by us or by another change: the channel is free either way
        if text and version == expected + 1:
            return version if current.get("doc") == text else -1
        log.warning(
            "a change to channel %s may or may not be stored: Redis lost its reply and the record has "
            "moved on (version %s, expected %s)",
            channel_id,
            version,
            expected,
        )
        raise lost

    async def _commit_replicated(
        self, cluster: RedisCluster, keys: Mapping[str, str | None], args: Mapping[str, object]
    ) -> int:
        """Run the commit script on a Cluster, then — on the same connection — ``WAIT`` up to :data:`REPLICA_WAIT_MS`
        for a replica of the slot's primary to have it, so that a failover right after keeps the change. Anything
        unusual (no replica, a stale map of the slots, the primary unreachable, the script not loaded there) falls
        back to the client's own path, which finds the cluster's new shape and retries: the script recognises a
        change it already made (see ``lua/commit.lua``)."""
        slot = key_slot(str(keys["game"]).encode())
        nodes = cluster.nodes_manager.slots_cache.get(slot) or []
        if len(nodes) < 2:
            return int(await self._commit(keys=keys, args=args))
        positional_keys, positional_args = self._commit.script.positions(keys, args)
        commands = [
            PipelineCommand(0, "EVALSHA", self._commit.sha, len(positional_keys), *positional_keys, *positional_args),
            PipelineCommand(1, "WAIT", 1, REPLICA_WAIT_MS),
        ]
        try:
            await nodes[0].execute_pipeline(commands)
        except (RedisError, OSError) as exc:
            log.info("commit through %s failed (%s): retried by the cluster client", nodes[0].name, exc)
            return int(await self._commit(keys=keys, args=args))
        result, acknowledged = commands[0].result, commands[1].result
        if isinstance(result, Exception):
            return int(await self._commit(keys=keys, args=args))
        if isinstance(acknowledged, Exception) or int(acknowledged) < 1:
            log.warning(
                "a commit in slot %s was not acknowledged by a replica within %d ms (%s): a failover of %s "
                "now could lose it",
                slot,
                REPLICA_WAIT_MS,
                acknowledged,
                nodes[0].name,
            )
        return int(result)

    async def finished(self, channel_id: int, game_id: str) -> Record | None:
        """A finished game's record, or None.

        Raises:
            bot.core.record.RecordError: the stored record is damaged or of an unknown schema.
        """
        data = await self.redis.get(self.keys.finished(channel_id, game_id))
        return Record.from_json(data) if data else None

    async def finished_many(self, members: list[tuple[int, str]]) -> list[Record]:
        """The finished records of ``[(channel id, game id), ...]`` in one round trip, in that order; missing
        or damaged ones are left out (a damaged one is logged)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel_id, game_id in members:
                pipe.get(self.keys.finished(channel_id, game_id))
            raw = await pipe.execute()
        records = []
        for (channel_id, game_id), text in zip(members, raw):
            if not text:
                continue
            try:
                records.append(Record.from_json(text))
            except ValueError as exc:
                log.warning("skipping finished game %s in channel %s: %s", game_id, channel_id, exc)
        return records

    async def channels_with_records(self) -> list[int]:
        """Channel ids that hold a challenge or game now (a SCAN; for re-arming timers at start-up and the
        periodic check, never on a move's path)."""
        return [
            self.keys.channel_of(key) async for key in self.redis.scan_iter(match=self.keys.GAME_PATTERN, count=500)
        ]

    # --- small per-channel and per-server facts -------------------------------------------------------

    async def mark_active(self, guild_id: int, channel_id: int, active: bool = True) -> None:
        """Add ``channel_id`` to (or remove it from) the server's set of channels with a running game."""
        key = self.keys.active(guild_id, self.keys.bucket(channel_id))
        writing()
        await guarded(self.redis, self.keys.bucket(channel_id), ("SADD" if active else "SREM", key, channel_id))

    async def active_channels(self, guild_id: int) -> list[int]:
        """The server's channels marked active (a record may have ended since: callers check)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for bucket in range(self.keys.BUCKETS):
                pipe.smembers(self.keys.active(guild_id, bucket))
            found = await pipe.execute()
        return [int(c) for members in found for c in members]

    async def remember_message(self, channel_id: int, game_id: str, message_id: int, ttl: int) -> None:
        """Note a challenge message's id for ``ttl`` seconds (kept beside the record, so it never races a click)."""
        writing()
        await guarded(
            self.redis,
            self.keys.bucket(channel_id),
            ("SET", self.keys.challenge_message(channel_id, game_id), message_id, "EX", ttl),
        )

    async def challenge_message(self, channel_id: int, game_id: str) -> int | None:
        value = await self.redis.get(self.keys.challenge_message(channel_id, game_id))
        return int(value) if value else None

    async def remember_takeback(self, channel_id: int, game_id: str, nonce: str, message_id: int, ttl: int) -> None:
        """Note the message of the takeback request ``nonce`` (kept beside the record, so it never races a click)."""
        writing()
        await guarded(
            self.redis,
            self.keys.bucket(channel_id),
            ("SET", self.keys.takeback_message(channel_id, game_id), f"{nonce}:{message_id}", "EX", ttl),
        )

    async def takeback_message(self, channel_id: int, game_id: str) -> tuple[str, int] | None:
        """The noted takeback request's ``(nonce, message id)``, or None."""
        value = decoded(await self.redis.get(self.keys.takeback_message(channel_id, game_id)))
        nonce, _, message = (value or "").partition(":")
        return (nonce, int(message)) if message.isdigit() else None

    async def forget_takeback(self, channel_id: int, game_id: str, nonce: str) -> int | None:
        """Claim the message of request ``nonce`` to close it: its id for exactly one caller, None for every other
        (or when another request's message is noted now, which stays)."""
        key = self.keys.takeback_message(channel_id, game_id)
        writing()
        (value,) = await guarded(self.redis, self.keys.bucket(channel_id), ("GETDEL", key))
        if not value:
            return None
        found, _, message = value.partition(":")
        if found != nonce:  # another request's: put it back
            await guarded(self.redis, self.keys.bucket(channel_id), ("SET", key, value, "NX", "KEEPTTL"))
            return None
        return int(message)

    async def remember_rematch(self, channel_id: int, game_id: str, message_id: int, ttl: int = 7 * 24 * 3600) -> None:
        """Note the message that asked for ``game_id``'s rematch (kept as long as its votes), to retire it when the
        rematch starts (:meth:`claim_rematch_message`)."""
        writing()
        await guarded(
            self.redis,
            self.keys.bucket(channel_id),
            ("SET", self.keys.rematch_message(channel_id, game_id), message_id, "EX", ttl),
        )

    async def claim_rematch_message(self, channel_id: int, game_id: str) -> int | None:
        """The noted rematch request's message id for exactly one caller (it is forgotten), None for every other."""
        writing()
        (value,) = await guarded(
            self.redis, self.keys.bucket(channel_id), ("GETDEL", self.keys.rematch_message(channel_id, game_id))
        )
        return int(value) if value and str(value).isdigit() else None

    async def vote_rematch(
        self, channel_id: int, game_id: str, *user_ids: int, ttl: int = 7 * 24 * 3600
    ) -> tuple[bool, int]:
        """Add rematch votes for a finished game (atomically); returns whether the first of ``user_ids`` had not
        voted before, and how many players have voted now."""
        key = self.keys.rematch_votes(channel_id, game_id)
        await through_gate()
        writing()
        had, *_, count = await guarded(
            self.redis,
            self.keys.bucket(channel_id),
            ("SISMEMBER", key, user_ids[0]),
            ("SADD", key, *user_ids),
            ("EXPIRE", key, ttl),
            ("SCARD", key),
        )
        return not had, int(count)

    async def claim_rematch(self, channel_id: int, game_id: str, ttl: int = 7 * 24 * 3600) -> bool:
        """Claim the right to start the rematch of ``game_id`` (exactly one caller gets True)."""
        key = self.keys.rematch_votes(channel_id, game_id) + ":started"
        writing()
        return bool((await guarded(self.redis, self.keys.bucket(channel_id), ("SET", key, "1", "NX", "EX", ttl)))[0])

    async def rematch_state(self, channel_id: int, game_id: str) -> tuple[set[int], bool]:
        """A finished game's rematch as it stands (a read, no write): the ids of the players who have voted, and
        whether the rematch has started (:meth:`claim_rematch`)."""
        key = self.keys.rematch_votes(channel_id, game_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.smembers(key)
            pipe.exists(key + ":started")
            voters, started = await pipe.execute()
        return {int(v) for v in voters}, bool(started)

    async def release_rematch(self, channel_id: int, game_id: str) -> None:
        """Undo :meth:`claim_rematch` (the rematch could not start)."""
        writing()
        await guarded(
            self.redis, self.keys.bucket(channel_id), ("DEL", self.keys.rematch_votes(channel_id, game_id) + ":started")
        )

    async def detect_publish(self) -> str:
        """Choose how commits publish to the web companion (:attr:`publish`): on a Redis Cluster, ``SPUBLISH`` (a shard
        channel: only the slot's own nodes hear it) when its servers are Redis 7 or later, else ``PUBLISH``. Returns
        the choice. One ``INFO server`` on a Cluster; nothing on one server."""
        if isinstance(self.redis, RedisCluster):
            info = await self.redis.info("server", target_nodes=RedisCluster.RANDOM)
            if "redis_version" not in info:  # one answer per node
                info = next((v for v in info.values() if isinstance(v, dict)), {})
            version = str(info.get("redis_version", "0"))
            self.publish = "SPUBLISH" if int(version.split(".")[0] or 0) >= 7 else "PUBLISH"
        return self.publish

    async def ping(self) -> bool:
        """Whether the store answers now (one PING). Raises redis-py's errors when it doesn't."""
        return bool(await self.redis.ping())

    async def claim_rearm(self, seconds: int) -> bool:
        """Claim the periodic check of every game's deadlines for ``seconds`` (:data:`Keys.REARM_LOCK`, set only
        if no process holds it): True for the one process that gets it."""
        return bool(await self.redis.set(Keys.REARM_LOCK, "1", nx=True, ex=seconds))

    async def reply_of(self, channel_id: int, member: str) -> str | None:
        """The interaction whose change the channel's turn announcement ``member`` announces
        (``<application id>:<interaction token>``, :meth:`Keys.reply`), while Discord lets it be completed; else
        None."""
        return decoded(await self.redis.get(self.keys.reply(channel_id, member)))
