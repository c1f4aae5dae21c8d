"""The compare-and-set commit (:meth:`bot.storage.store.GameStore.commit` and ``finish``), against a real Redis:
the record and everything it changes besides (deadlines, announcements, the server's active channels, the finished
index) are written in one atomic step at the expected version, or nothing is."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.core.record import Player, Record, Result, Status
from bot.storage.keys import Keys
from bot.storage.store import Effects, GameStore, NotSaved, fresh_task
from engine.result import EndReason

CHANNEL, GUILD = 7, 1


def challenge(game_id: str) -> Record:
    return Record(
        id=game_id,
        kind="hongkong",
        status=Status.CHALLENGE,
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=1,
        opponent=None,
        players=(Player(1, "Ann"), None),
        expires=99.0,
    )


def turn_effects(version: int) -> Effects:
    """What a turn commits beside its record: a forfeit deadline, its announcement, the channel active."""
    return Effects(
        schedule=((f"forfeit|{CHANNEL}|g|{version}", 500.0),),
        announce=((f"turn|{CHANNEL}|g|{version}", 10.0),),
        active=True,
    )


async def everything(redis) -> dict:
    """Every key the commit can touch, with its contents: what a refused commit must leave as it was."""
    return {
        "game": await redis.hgetall(Keys.game(CHANNEL)),
        "deadlines": await redis.zrange(Keys.DEADLINES, 0, -1, withscores=True),
        "outbox": await redis.zrange(Keys.OUTBOX, 0, -1, withscores=True),
        "active": await redis.smembers(Keys.active(GUILD)),
        "finished": await redis.zrange(Keys.FINISHED, 0, -1, withscores=True),
        "keys": sorted(await redis.keys("*")),
    }


async def test_a_commit_at_its_version_writes_the_record_and_all_its_effects(store, redis):
    assert await store.commit(CHANNEL, challenge("a"), 0, turn_effects(1)) == 1
    assert await redis.hget(Keys.game(CHANNEL), "v") == "1"
    assert Record.from_json(await redis.hget(Keys.game(CHANNEL), "doc")) == challenge("a")
    assert await redis.zrange(Keys.DEADLINES, 0, -1, withscores=True) == [(f"forfeit|{CHANNEL}|g|1", 500.0)]
    assert await redis.zrange(Keys.OUTBOX, 0, -1, withscores=True) == [(f"turn|{CHANNEL}|g|1", 10.0)]
    assert await redis.smembers(Keys.active(GUILD)) == {str(CHANNEL)}
    # the next turn replaces the deadline and settles the announcement, in the same step
    nxt = Effects(
        cancel=(f"forfeit|{CHANNEL}|g|1",),
        schedule=((f"forfeit|{CHANNEL}|g|2", 600.0),),
        settle=(f"turn|{CHANNEL}|g|1",),
    )
    assert await store.commit(CHANNEL, challenge("a"), 1, nxt) == 2
    assert await redis.zrange(Keys.DEADLINES, 0, -1, withscores=True) == [(f"forfeit|{CHANNEL}|g|2", 600.0)]
    assert await redis.zrange(Keys.OUTBOX, 0, -1) == []


@pytest.mark.parametrize("stale", [0, 2, 5])
async def test_a_commit_at_another_version_writes_nothing_at_all(store, redis, stale):
    assert await store.commit(CHANNEL, challenge("a"), 0, turn_effects(1)) == 1
    before = await everything(redis)
    assert await store.commit(CHANNEL, challenge("b"), stale, turn_effects(9)) is None
    assert await everything(redis) == before


async def test_of_two_commits_racing_at_one_version_exactly_one_lands(redis_server, redis):
    from tests.conftest import make_client

    one, two = make_client(redis_server), make_client(redis_server)
    try:
        a, b = GameStore(one), GameStore(two)
        assert await a.commit(CHANNEL, challenge("a"), 0) == 1
        for version in range(1, 21):  # twenty races, each from the version the last one left
            results = await asyncio.gather(
                a.commit(CHANNEL, challenge(f"a{version}"), version),
                b.commit(CHANNEL, challenge(f"b{version}"), version),
            )
            assert sorted(results, key=lambda r: r is None) == [version + 1, None]
            winner = f"a{version}" if results[0] is not None else f"b{version}"
            assert (await a.get(CHANNEL)).record.id == winner
    finally:
        await one.aclose()
        await two.aclose()


async def test_a_delete_frees_the_channel_and_leaves_the_active_set(store, redis):
    assert await store.commit(CHANNEL, challenge("a"), 0, Effects(active=True)) == 1
    assert await store.commit(CHANNEL, None, 1, Effects(active=False), guild_id=GUILD) == 0
    assert await redis.exists(Keys.game(CHANNEL)) == 0
    assert await redis.smembers(Keys.active(GUILD)) == set()
    assert await store.get(CHANNEL) is None


async def test_finish_moves_the_record_indexes_it_and_frees_the_channel(store, redis):
    assert await store.commit(CHANNEL, challenge("g"), 0, Effects(active=True)) == 1
    done = challenge("g").replace(
        status=Status.FINISHED,
        ended=123.0,
        players=(Player(1, "Ann"), Player(2, "Ben")),
        state={},
        result=Result(0, EndReason.RESIGNED, "Ben resigned: Ann wins."),
    )
    assert await store.finish(CHANNEL, done, 2) is False  # a stale finish does nothing
    assert await redis.exists(Keys.finished(CHANNEL, "g")) == 0
    assert await store.finish(CHANNEL, done, 1, Effects(active=False)) is True
    assert await redis.exists(Keys.game(CHANNEL)) == 0
    assert Record.from_json(await redis.get(Keys.finished(CHANNEL, "g"))) == done
    assert await redis.zrange(Keys.FINISHED, 0, -1, withscores=True) == [(f"{CHANNEL}:g", 123.0)]
    assert await redis.smembers(Keys.active(GUILD)) == set()


async def test_effects_on_another_channel_are_refused_before_anything_is_sent(store, redis):
    with pytest.raises(ValueError, match="commit each channel's own"):
        await store.commit(CHANNEL, challenge("a"), 0, Effects(schedule=(("forfeit|8|g|1", 1.0),)))
    assert await redis.keys("*") == []


async def test_a_change_past_its_deadline_is_not_saved(store, redis):
    async def late() -> None:
        fresh_task(time.monotonic() - 0.01)  # the interaction's budget already spent
        await store.commit(CHANNEL, challenge("late"), 0, turn_effects(1))

    with pytest.raises(NotSaved, match="past its deadline"):
        await asyncio.create_task(late())
    assert await redis.keys("*") == []


async def test_a_change_within_its_deadline_is_saved(store, redis):
    async def in_time() -> int | None:
        fresh_task(time.monotonic() + 5)
        return await store.commit(CHANNEL, challenge("soon"), 0)

    assert await asyncio.create_task(in_time()) == 1
    assert (await store.get(CHANNEL)).record.id == "soon"
