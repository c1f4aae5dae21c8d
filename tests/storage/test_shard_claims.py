"""Deadlines and announcements are claimed by a process of their server's gateway shard (bot.storage.store.DueSet with
bot.storage.store.Shards), against a real Redis: the others' are skipped however many come first, and never leased or counted
as tried by the wrong process."""

from __future__ import annotations

from bot.storage.deadlines import Deadline, Deadlines
from bot.storage.outbox import Announcement, Outbox
from bot.storage.store import Shards
from bot.storage.keys import Keys

NOW = 1_700_000_000.0
#: Guild ids on shard 0 and on shard 1 of 2 (``(id >> 22) % 2``).
ON_0, ON_1 = 1000 << 22, 1001 << 22


def test_a_guild_is_served_by_its_shard():
    assert Shards().serves(ON_0) and Shards().serves(ON_1) and Shards().args() == [0]
    assert Shards(2, (0,)).serves(ON_0) and not Shards(2, (0,)).serves(ON_1) and Shards(2, (0,)).args() == [2, 0]
    assert Shards(2, (0, 1)).args() == [0]  # every shard here: claim everything
    assert Shards(2, (1,)).serves(None) is False and Shards(2, (0,)).serves(None)  # direct messages: shard 0


async def test_each_process_claims_its_shards_deadlines_and_those_of_no_known_guild(redis):
    deadlines = Deadlines(redis, lambda: NOW)
    await deadlines.schedule((Deadline("forfeit", 1, "a", 1), NOW - 5), guild_id=ON_0)
    await deadlines.schedule((Deadline("forfeit", 2, "b", 1), NOW - 4), guild_id=ON_1)
    await deadlines.schedule((Deadline("expire", 3, "c", 0), NOW - 3))  # scheduled without its guild (older data)
    first = await deadlines.claim_due(shards=Shards(2, (0,)))
    assert [d.channel_id for d in first] == [1, 3]
    second = await deadlines.claim_due(shards=Shards(2, (1,)))
    assert [d.channel_id for d in second] == [2]
    for deadline in first + second:
        await deadlines.done(deadline)
    assert await redis.zcard(Keys.DEADLINES) == 0
    assert await redis.hlen(Keys.shards(Keys.DEADLINES)) == 0 and await redis.hlen(Keys.tries(Keys.DEADLINES)) == 0


async def test_the_others_announcements_are_skipped_however_many_come_first(redis):
    outbox = Outbox(redis, lambda: NOW)
    foreign = {Announcement("turn", 10_000 + n, "g", n).member: NOW - 100 + (n % 7) for n in range(700)}
    await redis.zadd(Keys.OUTBOX, foreign)  # due before ours, 100 of them at each of 7 times
    await redis.hset(Keys.shards(Keys.OUTBOX), mapping={m: Shards.key(ON_1) for m in foreign})
    ours = [Announcement("result", 5, f"g{n}") for n in range(3)]
    for n, announcement in enumerate(ours):
        await outbox.resume(announcement, ON_0)  # due now
    await redis.zadd(Keys.OUTBOX, {ours[2].member: NOW - 97})  # one of ours among the others, at the same time
    claimed = await outbox.claim(limit=3, shards=Shards(2, (0,)))
    assert sorted(a.game_id for a in claimed) == ["g0", "g1", "g2"] and all(a.tries == 1 for a in claimed)
    # the others' are neither leased nor counted as tried: their process claims every one of them at once
    assert await redis.hlen(Keys.tries(Keys.OUTBOX)) == 3
    assert len(await outbox.claim(limit=1000, shards=Shards(2, (1,)))) == 700
