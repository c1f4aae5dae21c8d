"""Each commit publishes the record's new version for the web companion's watchers (lua/commit.lua), heard by a
:class:`bot.storage.live.LiveFeed`; and game ids come from :mod:`secrets` unless a test seeds them."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.core.session import ID_ALPHABET, GameLayer, Person
from bot.games import all_kinds
from bot.games.hongkong import HONGKONG
from bot.storage.live import LiveFeed, parse
from bot.storage.store import GameStore

ANN, BEN = Person(1, "Ann"), Person(2, "Ben")


async def heard_messages(redis, channel: int, action) -> list[str]:
    heard: list[tuple[int, str]] = []
    feed = LiveFeed(redis, lambda c, m: heard.append((c, m)))
    await feed.watch(channel)
    feed.start()
    for _ in range(100):  # connected: the reconnection's "" for the watched channel
        if heard:
            break
        await asyncio.sleep(0.02)
    await action()
    await asyncio.sleep(0.3)
    await feed.close()
    return [m for c, m in heard if c == channel and m]


async def test_each_commit_publishes_its_version_and_the_end(layer):
    record = await layer.challenge(HONGKONG, guild_id=9, channel_id=70, challenger=ANN, opponent=BEN, options={})

    async def play():
        await layer.accept(70, record.id, BEN)
        await layer.play(HONGKONG, 70, ANN.id, "Q@B2 S@B3")
        await layer.resign(HONGKONG, 70, BEN.id)

    messages = await heard_messages(layer.store.redis, 70, play)
    assert messages == ["2", "3", "end:4"]
    assert [parse(m) for m in messages] == [(2, False), (3, False), (4, True)]


async def test_other_channels_are_not_heard_and_nothing_is_published_when_asked(layer):
    record = await layer.challenge(HONGKONG, guild_id=9, channel_id=71, challenger=ANN, opponent=BEN, options={})

    async def elsewhere():
        await layer.accept(71, record.id, BEN)

    assert await heard_messages(layer.store.redis, 72, elsewhere) == []
    layer.store.publish = ""
    await layer.play(HONGKONG, 71, ANN.id, "Q@B2 S@B3")  # a store that publishes nothing still commits
    assert (await layer.store.get(71)).version == 3


def test_parse_refuses_what_the_script_never_writes():
    with pytest.raises(ValueError):
        parse("garbage")


async def test_game_ids_come_from_secrets_unless_seeded(redis, clock):
    ids = set()
    for channel in range(80, 100):
        layer = GameLayer(GameStore(redis), all_kinds(), clock=clock)
        record = await layer.challenge(
            HONGKONG, guild_id=9, channel_id=channel, challenger=ANN, opponent=BEN, options={}
        )
        ids.add(record.id)
        assert len(record.id) == 8 and set(record.id) <= set(ID_ALPHABET)
    assert len(ids) == 20
    seeded = [GameLayer(GameStore(redis), all_kinds(), rng=random.Random(5))._new_id() for _ in range(2)]
    assert seeded[0] == seeded[1]  # a seeded test still gets the same ids every run
    unseeded = GameLayer(GameStore(redis), all_kinds())
    assert unseeded._ids is not unseeded.rng and type(unseeded._ids).__name__ == "SystemRandom"
