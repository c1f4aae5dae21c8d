"""The outbox (:mod:`bot.storage.outbox`): the announcements a commit puts, leased to one process at a time when
their grace has passed, retried with a doubling lease, removed when made — and kept by Redis across a new client and
a restart of the server. Against a real Redis (tests/conftest.py; tests/bot/processes.py for the restart), no mocks;
times are the test's clock, started at Redis's own ``TIME``."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bot.core.record import Player, Record, Status
from bot.storage.errors import StoreLost
from bot.storage.guard import StoreGuard
from bot.storage.keys import Keys
from bot.storage.outbox import GRACE, Announcement, Outbox
from bot.storage.store import Effects, GameStore, Shards
from tests.bot.processes import RedisServer
from tests.conftest import Clock, make_client

from .contents import contents

CHANNEL = 7
#: Two servers on different shards of two (``(id >> 22) % 2``).
EVEN, ODD = 81384788765712384, 81384788765712384 + (1 << 22)

TURN = Announcement("turn", CHANNEL, "g1", 1, 1, "move")
RESULT = Announcement("result", CHANNEL, "g1")
COMPUTER = Announcement("computer", CHANNEL, "g1", 1)


def game(guild: int = EVEN, channel: int = CHANNEL) -> Record:
    return Record(
        id="g1",
        kind="hongkong",
        status=Status.ACTIVE,
        guild_id=guild,
        channel_id=channel,
        challenger=1,
        opponent=2,
        players=(Player(1, "Ann"), Player(2, "Ben")),
        state={},
    )


async def put(redis, outbox: Outbox, *announcements: Announcement, guild: int = EVEN) -> None:
    """Commit a record of :data:`CHANNEL` announcing ``announcements`` now, as the game layer does."""
    now = outbox.clock()
    stored = await GameStore(redis).get(CHANNEL)
    effects = Effects(announce=tuple(outbox.entry(a, now) for a in announcements))
    assert await GameStore(redis).commit(CHANNEL, game(guild), stored.version if stored else 0, effects)


def claimed(announcements: list[Announcement]) -> list[tuple[str, float, int]]:
    """What a claim handed out: ``(member, leased until, tries)`` each."""
    return [(a.member, a.leased_until, a.tries) for a in announcements]


async def test_a_commit_puts_each_announcement_due_after_its_grace(redis, redis_clock):
    """An announcement is put with the time after which a reconciler may make it: now + 15 s for a board post or a
    result, + 30 s for the computer's reply; it is pending from then on, and not claimed before its time."""
    t = redis_clock.t
    outbox = Outbox(redis, redis_clock)
    assert outbox.entry(TURN, t) == ("turn|7|g1|1|1|move", t + 15.0)
    assert outbox.entry(COMPUTER, t) == ("computer|7|g1|1|0|-", t + 30.0)
    await put(redis, outbox, TURN, RESULT, COMPUTER)
    assert await redis.zrange(Keys.OUTBOX, 0, -1, withscores=True) == [
        ("result|7|g1|0|0|-", t + 15.0),
        ("turn|7|g1|1|1|move", t + 15.0),
        ("computer|7|g1|1|0|-", t + 30.0),
    ]
    assert sorted(a.member for a in await outbox.pending()) == sorted(a.member for a in (TURN, RESULT, COMPUTER))
    assert await outbox.is_pending(TURN) and not await outbox.is_pending(Announcement("turn", CHANNEL, "g1", 2))
    redis_clock.advance(GRACE["turn"] - 0.01)
    assert await outbox.claim() == []


async def test_a_due_announcement_is_claimed_once_with_a_lease_and_its_count(redis, redis_clock):
    """When its grace has passed an announcement is claimed — leased until now + 15 s, claim 1 — and a second
    claim at once gets nothing; the entry stays pending meanwhile (its score is the lease's end)."""
    t = redis_clock.t
    outbox = Outbox(redis, redis_clock)
    await put(redis, outbox, TURN)
    redis_clock.advance(GRACE["turn"])
    got = await outbox.claim()
    assert got == [TURN] and claimed(got) == [(TURN.member, t + 30.0, 1)]
    assert await outbox.claim() == []
    assert await outbox.is_pending(TURN)
    assert await redis.zscore(Keys.OUTBOX, TURN.member) == t + 30.0
    assert await redis.hgetall("hongbot:outbox:tries") == {TURN.member: "1"}


async def test_another_process_claims_it_only_when_the_lease_has_ended(redis, other, redis_clock):
    """A claimed announcement is not claimed by a second process (its own client) before the lease ends, and is
    at its end — the second claim's lease twice as long (30 s), its count 2."""
    t = redis_clock.t
    mine, theirs = Outbox(redis, redis_clock), Outbox(other, redis_clock)
    await put(redis, mine, TURN)
    redis_clock.advance(GRACE["turn"])
    assert claimed(await mine.claim()) == [(TURN.member, t + 30.0, 1)]
    redis_clock.advance(GRACE["turn"] - 0.01)
    assert await theirs.claim() == []
    redis_clock.advance(0.01)
    assert claimed(await theirs.claim()) == [(TURN.member, t + 60.0, 2)]
    assert await mine.claim() == []


async def test_an_announcement_never_settled_is_retried_with_a_lease_doubling_up_to_an_hour(redis, redis_clock):
    """Claimed and never made, an announcement comes back at each lease's end: leases of 15, 30, 60 … seconds,
    never longer than an hour, the claim count one more each time (the reconciler gives up at MAX_TRIES)."""
    outbox = Outbox(redis, redis_clock)
    await put(redis, outbox, TURN)
    redis_clock.advance(GRACE["turn"])
    leases, counts = [], []
    for _ in range(12):
        now = redis_clock.t
        (got,) = await outbox.claim()
        leases.append(got.leased_until - now)
        counts.append(got.tries)
        redis_clock.t = got.leased_until
    assert leases == [15, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600, 3600]
    assert counts == list(range(1, 13))


async def test_done_removes_it_whoever_holds_the_lease_and_a_late_settle_keeps_it_gone(redis, other, redis_clock):
    """The process that made an announcement removes it (:meth:`Outbox.done`) even while another holds a lease on
    it: entry, claim count and shard key go; the claimer's settle afterwards finds nothing and puts nothing back."""
    mine, theirs = Outbox(redis, redis_clock), Outbox(other, redis_clock)
    await put(redis, mine, TURN)
    redis_clock.advance(GRACE["turn"])
    (lease,) = await theirs.claim()
    await mine.done(TURN)
    await theirs.settle(lease)
    redis_clock.advance(7200)
    assert await mine.pending() == [] and await theirs.claim() == []
    assert [key for key in await redis.keys("*") if "outbox" in key] == []


async def test_a_settle_from_a_claim_whose_lease_ran_out_leaves_the_new_claim(redis, other, redis_clock):
    """Settling needs the lease it was claimed with: a process whose lease ran out (and another claimed the
    announcement since) settles nothing; the current claimer's settle removes it and its claim count."""
    slow, quick = Outbox(redis, redis_clock), Outbox(other, redis_clock)
    await put(redis, slow, TURN)
    redis_clock.advance(GRACE["turn"])
    (old,) = await slow.claim()
    redis_clock.t = old.leased_until
    (new,) = await quick.claim()
    await slow.settle(old)
    assert await quick.is_pending(TURN)
    assert await redis.zscore(Keys.OUTBOX, TURN.member) == new.leased_until
    await quick.settle(new)
    assert await quick.pending() == []
    assert await redis.exists("hongbot:outbox:tries") == 0


async def test_claims_come_in_due_order_and_at_most_the_limit(redis, redis_clock):
    """A claim hands out the earliest due first (same time: by member), at most ``limit``; the rest wait for the
    next claim, and nothing not yet due comes with them."""
    outbox = Outbox(redis, redis_clock)
    t = redis_clock.t
    scores = {
        "turn|7|g1|3|3|move": t + 3,
        "turn|7|g1|1|1|move": t + 1,
        "result|7|g1|0|0|-": t + 2,
        "turn|7|g1|2|2|move": t + 2,
        "computer|7|g1|4|0|-": t + 100,
    }
    assert await GameStore(redis).commit(CHANNEL, game(), 0, Effects(announce=tuple(scores.items())))
    redis_clock.advance(10)
    first, second, third = await outbox.claim(limit=2), await outbox.claim(limit=2), await outbox.claim(limit=2)
    assert [a.member for a in first] == ["turn|7|g1|1|1|move", "result|7|g1|0|0|-"]
    assert [a.member for a in second] == ["turn|7|g1|2|2|move", "turn|7|g1|3|3|move"]
    assert third == []


async def test_a_process_claims_only_the_announcements_of_its_shards_servers(redis, other, redis_clock):
    """Announcements carry their server's shard key: a process running shard 0 of 2 claims the even server's, one
    running shard 1 the odd server's, and an announcement of no known server goes to whichever claims first."""
    even, odd = Outbox(redis, redis_clock), Outbox(other, redis_clock)
    on_even, on_odd = Announcement("turn", 8, "e", 1), Announcement("turn", 9, "o", 1)
    await even.resume(on_even, guild_id=EVEN)
    await even.resume(on_odd, guild_id=ODD)
    await even.resume(COMPUTER)  # no server: no shard key
    assert await redis.hgetall("hongbot:outbox:shard") == {
        on_even.member: str(EVEN >> 22),
        on_odd.member: str(ODD >> 22),
    }
    assert [a.member for a in await odd.claim(shards=Shards(2, (1,)))] == sorted([on_odd.member, COMPUTER.member])
    assert [a.member for a in await even.claim(shards=Shards(2, (0,)))] == [on_even.member]


async def test_resume_makes_an_announcement_due_now_unless_it_is_due_sooner(redis, redis_clock):
    """:meth:`Outbox.resume` (start-up, for the computer's turns) brings an announcement due later to now, and
    leaves one due sooner at its time (``ZADD LT``)."""
    t = redis_clock.t
    outbox = Outbox(redis, redis_clock)
    await put(redis, outbox, COMPUTER)
    await outbox.resume(COMPUTER)
    assert await redis.zscore(Keys.OUTBOX, COMPUTER.member) == t
    redis_clock.advance(5)
    await outbox.resume(COMPUTER)
    assert await redis.zscore(Keys.OUTBOX, COMPUTER.member) == t
    assert [a.member for a in await outbox.claim()] == [COMPUTER.member]


async def test_one_holder_at_a_time_until_it_is_released(redis, other):
    """:meth:`Outbox.hold` reserves making an announcement: one process gets it (a key with the given TTL), the
    other is refused until :meth:`Outbox.release`."""
    mine, theirs = Outbox(redis, Clock()), Outbox(other, Clock())
    assert await mine.hold(RESULT, seconds=120) is True
    assert await theirs.hold(RESULT, seconds=120) is False
    key = "hongbot:outbox:hold:result|7|g1|0|0|-"
    assert await redis.get(key) == "1" and 115 <= await redis.ttl(key) <= 120
    await mine.release(RESULT)
    assert await redis.exists(key) == 0
    assert await theirs.hold(RESULT, seconds=120) is True


async def test_a_new_client_finds_every_entry_lease_and_count(redis, redis_server, redis_clock):
    """What a process leaves in the outbox is Redis's, not the process's: a new client (a restarted bot) finds the
    pending announcements, cannot claim one leased before its lease ends, and its claim then counts 2."""
    t = redis_clock.t
    first = Outbox(redis, redis_clock)
    await put(redis, first, TURN, COMPUTER)
    redis_clock.advance(GRACE["turn"])
    assert [a.member for a in await first.claim()] == [TURN.member]
    await redis.aclose()

    client = make_client(redis_server)
    try:
        restarted = Outbox(client, redis_clock)
        assert sorted(a.member for a in await restarted.pending()) == sorted([TURN.member, COMPUTER.member])
        assert await restarted.claim() == []
        redis_clock.t = t + 30
        assert sorted(claimed(await restarted.claim())) == [(COMPUTER.member, t + 45.0, 1), (TURN.member, t + 60.0, 2)]
    finally:
        await client.aclose()


async def test_the_outbox_survives_a_restart_of_the_redis_server(tmp_path, redis_clock):
    """Stopped and started again on its data (append-only, as the bot's embedded server), Redis holds the outbox
    exactly as it was — entries, leases, claim counts, shard keys — and a claim goes on from there."""
    server = RedisServer(tmp_path / "redis")
    server.start()
    try:
        client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
        outbox = Outbox(client, redis_clock)
        await put(client, outbox, TURN, COMPUTER)
        redis_clock.advance(GRACE["turn"])
        (lease,) = await outbox.claim()
        before = await contents(client)
        await client.aclose()
        server.stop()
        server.start()
        client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
        assert await contents(client) == before
        redis_clock.t = lease.leased_until
        assert sorted(claimed(await Outbox(client, redis_clock).claim())) == [
            (COMPUTER.member, lease.leased_until + 15.0, 1),
            (TURN.member, lease.leased_until + 30.0, 2),
        ]
        await client.aclose()
    finally:
        server.stop()


async def test_a_store_that_lost_its_identity_marker_leases_and_removes_nothing(redis_server, redis, redis_clock):
    """On a guarded store whose identity marker is gone, a claim and a done are refused with :class:`StoreLost`
    and the outbox stays exactly as it was."""
    client = make_client(redis_server)
    guard = StoreGuard(client, "the test's Redis")
    try:
        await guard.establish()
        outbox = Outbox(client, redis_clock)
        await put(client, outbox, TURN)
        redis_clock.advance(GRACE["turn"])
        await redis.delete(Keys.IDENTITY)
        before = await contents(redis)
        with pytest.raises(StoreLost):
            await outbox.claim()
        with pytest.raises(StoreLost):
            await outbox.done(TURN)
        assert await contents(redis) == before
    finally:
        await guard.stop()
        await client.aclose()
