"""The deadlines (:mod:`bot.storage.deadlines` over :class:`bot.storage.store.DueSet`): scheduled, rescheduled and
cancelled in Redis; claimed when due — and only then — by exactly one process of many, leased until handled, and
claimable again when a claimer's lease runs out. Against a real Redis (tests/conftest.py), no mocks; times are the
test's clock, started at Redis's own ``TIME``, or the wall clock the bot itself uses."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.storage.deadlines import LEASE, Deadline, Deadlines
from bot.storage.errors import StoreLost
from bot.storage.guard import StoreGuard
from bot.storage.keys import Keys
from bot.storage.store import Shards
from tests.conftest import make_client

from .contents import contents, redis_time

CHANNEL = 7
GUILD = 81384788765712384
FORFEIT = Deadline("forfeit", CHANNEL, "g1", 3)
REMIND = Deadline("remind", CHANNEL, "g1", 3)
EXPIRE = Deadline("expire", 8, "g2", 0)


async def test_a_scheduled_deadline_is_kept_with_its_time_and_its_server_s_shard(redis, redis_clock):
    """Scheduling writes each member with its due time in ``hongbot:deadlines`` and, given the server, its shard key
    (``guild id >> 22``) beside it; :meth:`Deadlines.due` reads the time back, None for one never scheduled."""
    t = redis_clock.t
    deadlines = Deadlines(redis, redis_clock)
    await deadlines.schedule((FORFEIT, t + 600), (REMIND, t + 300), guild_id=GUILD)
    await deadlines.schedule((EXPIRE, t + 60))
    assert await contents(redis) == {
        "hongbot:deadlines": (
            "zset",
            [("expire|8|g2|0", t + 60), ("remind|7|g1|3", t + 300), ("forfeit|7|g1|3", t + 600)],
            False,
        ),
        "hongbot:deadlines:shard": (
            "hash",
            {"forfeit|7|g1|3": str(GUILD >> 22), "remind|7|g1|3": str(GUILD >> 22)},
            False,
        ),
    }
    assert await deadlines.due(FORFEIT) == t + 600
    assert await deadlines.due(Deadline("forfeit", CHANNEL, "g1", 4)) is None
    assert sorted(await deadlines.members()) == sorted(d.member for d in (FORFEIT, REMIND, EXPIRE))


async def test_rescheduling_moves_a_deadline_and_only_new_keeps_it(redis, redis_clock):
    """Scheduling a deadline again moves it, later or sooner; with ``only_new`` (the periodic re-arm) an existing
    deadline keeps its time and a missing one is added."""
    t = redis_clock.t
    deadlines = Deadlines(redis, redis_clock)
    await deadlines.schedule((FORFEIT, t + 600))
    await deadlines.schedule((FORFEIT, t + 900))
    assert await deadlines.due(FORFEIT) == t + 900
    await deadlines.schedule((FORFEIT, t + 100))
    assert await deadlines.due(FORFEIT) == t + 100
    await deadlines.schedule((FORFEIT, t + 5000), (REMIND, t + 50), only_new=True)
    assert await deadlines.due(FORFEIT) == t + 100
    assert await deadlines.due(REMIND) == t + 50


async def test_only_deadlines_due_at_the_clock_are_claimed(redis, redis_clock):
    """A claim takes what is due at the clock's now — a past deadline, one due exactly now — and leaves what is due
    even a millisecond later, until its time comes."""
    t = redis_clock.t
    deadlines = Deadlines(redis, redis_clock)
    await deadlines.schedule((EXPIRE, t - 1), (REMIND, t), (FORFEIT, t + 0.001))
    assert sorted(d.member for d in await deadlines.claim_due()) == sorted([EXPIRE.member, REMIND.member])
    assert await deadlines.claim_due() == []
    redis_clock.advance(0.001)
    assert [d.member for d in await deadlines.claim_due()] == [FORFEIT.member]


async def test_on_the_wall_clock_a_deadline_past_redis_time_is_due_and_a_future_one_is_not(redis):
    """With the bot's own clock (``time.time``), a deadline a second before Redis's ``TIME`` is claimed and one an
    hour after it is not."""
    now = await redis_time(redis)
    deadlines = Deadlines(redis, time.time)
    await deadlines.schedule((REMIND, now - 1), (FORFEIT, now + 3600))
    assert [d.member for d in await deadlines.claim_due()] == [REMIND.member]
    assert await deadlines.due(FORFEIT) == now + 3600


async def test_a_claimed_deadline_is_leased_and_claimed_again_only_when_the_lease_ends(redis, other, redis_clock):
    """A claim leases a deadline for 60 s (its time becomes the lease's end); no process claims it before then;
    at the end another process does, for twice as long."""
    t = redis_clock.t
    mine, theirs = Deadlines(redis, redis_clock), Deadlines(other, redis_clock)
    await mine.schedule((FORFEIT, t))
    (first,) = await mine.claim_due()
    assert (first, first.leased_until) == (FORFEIT, t + LEASE) and LEASE == 60.0
    assert await mine.due(FORFEIT) == t + 60
    redis_clock.advance(59.999)
    assert await theirs.claim_due() == [] and await mine.claim_due() == []
    redis_clock.advance(0.001)
    (second,) = await theirs.claim_due()
    assert (second, second.leased_until) == (FORFEIT, t + 60 + 120)


async def test_of_two_processes_claiming_at_once_each_deadline_goes_to_exactly_one(redis, other, redis_clock):
    """Forty due deadlines, two processes claiming concurrently (two connections, ``asyncio.gather``) seven at a
    time until neither gets more: every deadline was claimed, and none by both or twice."""
    t = redis_clock.t
    mine, theirs = Deadlines(redis, redis_clock), Deadlines(other, redis_clock)
    due = [Deadline("forfeit", 100 + i, f"g{i}", i) for i in range(40)]
    await mine.schedule(*((d, t - i) for i, d in enumerate(due)))
    got: dict[str, list[str]] = {"mine": [], "theirs": []}
    while True:
        a, b = await asyncio.gather(mine.claim_due(limit=7), theirs.claim_due(limit=7))
        if not a and not b:
            break
        got["mine"] += [d.member for d in a]
        got["theirs"] += [d.member for d in b]
    assert got["mine"] and got["theirs"]  # both processes claimed: a race, not one process alone
    everything = got["mine"] + got["theirs"]
    assert sorted(everything) == sorted(d.member for d in due)
    assert len(set(everything)) == 40
    assert await redis.hvals("hongbot:deadlines:tries") == ["1"] * 40


async def test_done_removes_a_handled_deadline_with_its_claim_count(redis, redis_clock):
    """A deadline handled and settled (:meth:`Deadlines.done`) is gone, with its claim count and shard key: it
    never fires again."""
    t = redis_clock.t
    deadlines = Deadlines(redis, redis_clock)
    await deadlines.schedule((FORFEIT, t), guild_id=GUILD)
    (claimed,) = await deadlines.claim_due()
    await deadlines.done(claimed)
    redis_clock.advance(7200)
    assert await deadlines.claim_due() == []
    assert await redis.keys("*") == []


async def test_done_keeps_a_deadline_its_turn_scheduled_anew_since_the_claim(redis, redis_clock):
    """A deadline scheduled again while it was being handled (same member, a new time) is not removed by the
    handler's settle: it fires at its new time."""
    t = redis_clock.t
    deadlines = Deadlines(redis, redis_clock)
    await deadlines.schedule((REMIND, t))
    (claimed,) = await deadlines.claim_due()
    await deadlines.schedule((REMIND, t + 300))
    await deadlines.done(claimed)
    assert await deadlines.due(REMIND) == t + 300
    redis_clock.advance(300)
    assert [d.member for d in await deadlines.claim_due()] == [REMIND.member]


async def test_a_claimer_whose_lease_ran_out_settles_nothing_of_the_new_claim(redis, other, redis_clock):
    """A process that held a deadline past its lease (another has claimed it since) settles nothing: the deadline
    stays with the new claimer's lease, which removes it."""
    t = redis_clock.t
    slow, quick = Deadlines(redis, redis_clock), Deadlines(other, redis_clock)
    await slow.schedule((FORFEIT, t))
    (old,) = await slow.claim_due()
    redis_clock.t = old.leased_until
    (new,) = await quick.claim_due()
    await slow.done(old)
    assert await quick.due(FORFEIT) == new.leased_until == t + 60 + 120
    await quick.done(new)
    assert await quick.members() == []


async def test_cancel_removes_a_deadline_whoever_holds_it_and_forgets_its_claims(redis, other, redis_clock):
    """Cancelling removes deadlines (the turn ended), even one leased to another process, with their claim counts
    and shard keys: that process's settle changes nothing, and the same deadline scheduled later starts over with
    a first 60 s lease."""
    t = redis_clock.t
    mine, theirs = Deadlines(redis, redis_clock), Deadlines(other, redis_clock)
    await mine.schedule((FORFEIT, t), (REMIND, t + 30), guild_id=GUILD)
    (leased,) = await theirs.claim_due()
    await mine.cancel(FORFEIT, REMIND)
    await theirs.done(leased)
    assert await redis.keys("*") == []
    await mine.schedule((FORFEIT, t))
    (again,) = await theirs.claim_due()
    assert again.leased_until == t + 60


async def test_a_process_claims_only_the_deadlines_of_its_shards_servers(redis, other, redis_clock):
    """A deadline carries its server's shard key: of two processes running shard 0 and shard 1 of 2, each claims its
    own server's, and a deadline of no known server goes to whichever claims first."""
    t = redis_clock.t
    even, odd = Deadlines(redis, redis_clock), Deadlines(other, redis_clock)
    odd_guild = GUILD + (1 << 22)
    await even.schedule((FORFEIT, t), guild_id=GUILD)
    await even.schedule((EXPIRE, t), guild_id=odd_guild)
    await even.schedule((REMIND, t))
    assert [d.member for d in await odd.claim_due(shards=Shards(2, (1,)))] == [EXPIRE.member, REMIND.member]
    assert [d.member for d in await even.claim_due(shards=Shards(2, (0,)))] == [FORFEIT.member]


async def test_a_store_that_lost_its_identity_marker_fires_and_changes_nothing(redis_server, redis, redis_clock):
    """On a guarded store whose identity marker is gone, claiming, scheduling and cancelling are refused with
    :class:`StoreLost`, and the deadlines stay exactly as they were."""
    client = make_client(redis_server)
    guard = StoreGuard(client, "the test's Redis")
    try:
        await guard.establish()
        deadlines = Deadlines(client, redis_clock)
        await deadlines.schedule((FORFEIT, redis_clock.t))
        await redis.delete(Keys.IDENTITY)
        before = await contents(redis)
        for refused in (deadlines.claim_due(), deadlines.schedule((REMIND, redis_clock.t)), deadlines.cancel(FORFEIT)):
            with pytest.raises(StoreLost):
                await refused
        assert await contents(redis) == before
    finally:
        await guard.stop()
        await client.aclose()
