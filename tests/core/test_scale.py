"""Cheaper moves (issue 15): a move's Redis work does not grow with the number of games, and a game is loaded from
its stored position once this process has checked it by a replay — against a real Redis."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError, MaxConnectionsError

import engine.hong
import engine.hongkong
from bot.games.hong import HONG
from bot.games.hongkong import HONGKONG
from bot.core.record import Status
from bot.core.session import GameLayer, Person
from bot.storage.store import GameStore
from bot.storage.connection import connect
from engine import IllegalMove, InvalidState

ANN, BEN = Person(1, "Ann"), Person(2, "Ben")
CH = 500


async def start(layer: GameLayer, kind=HONGKONG, channel: int = CH, options: dict | None = None):
    doc = await layer.challenge(
        kind,
        guild_id=9,
        channel_id=channel,
        challenger=ANN,
        opponent=BEN,
        options=options if options is not None else {"first": "me"},
    )
    return await layer.accept(channel, doc.id, BEN)


async def play_random(layer: GameLayer, kind, channel: int, game, rng: random.Random, moves: int | None = None):
    """Random legal moves by whoever is to move; returns the last turn."""
    turn = None
    seats = (await layer.store.get(channel)).record.players
    while not game.is_over and (moves is None or moves > 0):
        turn = await layer.play(kind, channel, seats[game.to_move].id, rng.choice(game.legal_moves()))
        game = turn.game
        moves = None if moves is None else moves - 1
        if turn.finished:
            break
    return turn


async def commands_of(redis, action) -> Counter:
    """The Redis commands ``action`` made (commands inside the commit script included), by name."""

    async def calls() -> Counter:
        stats = await redis.info("commandstats")
        return Counter({name.removeprefix("cmdstat_"): entry["calls"] for name, entry in stats.items()})

    before = await calls()
    await action()
    made = await calls() - before
    made["info"] -= 1  # the second INFO itself
    return +made


async def test_a_moves_redis_work_is_the_same_with_one_game_or_two_hundred(layer, redis):
    _, game = await start(layer)
    await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    alone = await commands_of(redis, lambda: layer.play(HONGKONG, CH, BEN.id, "S@B1"))
    for channel in range(1000, 1200):  # 200 more games, each with its deadlines set
        await start(layer, channel=channel)
        await layer.play(HONGKONG, channel, ANN.id, "S@E5")
    crowded = await commands_of(redis, lambda: layer.play(HONGKONG, CH, ANN.id, "S@A2"))
    assert crowded == alone
    assert not {"scan", "zscan", "sscan", "hscan", "keys"} & set(crowded), crowded
    assert await redis.zcard("hongbot:deadlines") == 2 * 201  # every game's forfeit and reminder, no more


@pytest.fixture
def loads(monkeypatch):
    """Every engine from_dict call as ``(game, replay)``: whether the bot replayed the moves or loaded the position."""
    calls = []
    for module in (engine.hongkong, engine.hong):

        def spy(state, *, replay=True, _real=module.from_dict, _name=module.NAME):
            calls.append((_name, replay))
            return _real(state, replay=replay)

        monkeypatch.setattr(module, "from_dict", spy)
    return calls


async def test_a_game_is_replayed_once_by_a_process_then_loaded_from_its_position(layer, store, clock, loads):
    _, game = await start(layer)
    await play_random(layer, HONGKONG, CH, game, random.Random(1), moves=6)
    assert loads and not any(replay for _, replay in loads)  # started here: known sound
    other = GameLayer(GameStore(store.redis), layer.kinds, clock=clock)  # another process, or this one restarted
    loads.clear()
    stored, game = await other.running(CH)
    await play_random(other, HONGKONG, CH, game, random.Random(2), moves=4)
    assert [replay for _, replay in loads][:1] == [True] and not any(replay for _, replay in loads[1:])


async def test_a_game_damaged_at_rest_is_refused_by_the_first_load(layer, store, clock):
    _, game = await start(layer)
    await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    stored = await store.get(CH)
    # well formed, but the second turn breaks rule 6 (a capture with no building next to it high enough)
    broken = stored.record.replace(state={**stored.record.state, "moves": ["S@A1", "S@A1"]})
    await store.commit(CH, broken, stored.version)
    before = await store.raw(CH)
    other = GameLayer(GameStore(store.redis), layer.kinds, clock=clock)
    with pytest.raises(InvalidState, match=r"damaged: turn 2 \(S@A1\) is illegal"):
        await other.play(HONGKONG, CH, ANN.id, "S@B2")
    assert await store.raw(CH) == before


@pytest.mark.parametrize(
    "kind, state, reason",
    [
        (HONGKONG, lambda s: {**s, "moves": ["R@A1", "S@A1"]}, r"turn 2 \(S@A1\) is illegal: .*has a roof"),
        (HONGKONG, lambda s: {**s, "moves": "S@A1"}, "'moves' must be a list"),
        (HONG, lambda s: {**s, "grid": "H" * 5}, "grid does not fit the board"),
        (HONG, lambda s: {**s, "to_move": 2}, "to_move is malformed"),
    ],
)
async def test_a_broken_position_is_refused_even_by_a_process_that_checked_the_game(layer, store, kind, state, reason):
    doc, game = await start(layer, kind, options={})  # started here: later loads are from the position
    stored = await store.get(CH)
    await store.commit(CH, stored.record.replace(state=state(stored.record.state)), stored.version)
    before = await store.raw(CH)
    with pytest.raises(InvalidState, match=reason):
        await layer.play(kind, CH, doc.player(game.to_move).id, game.legal_moves()[0])
    assert await store.raw(CH) == before


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_game_played_from_positions_is_the_game_its_moves_replay_to(layer, store, seed):
    # Hong with the expansion: dragon actions and summons pending across moves, all loaded from the position
    _, game = await start(layer, HONG, options={"expansion": True})
    turn = await play_random(layer, HONG, CH, game, random.Random(seed))
    assert turn.finished and turn.record.status is Status.FINISHED
    state = turn.record.state
    assert engine.hong.from_dict(state).to_dict() == engine.hong.from_dict(state, replay=False).to_dict() == state


async def test_a_takeback_of_a_game_loaded_from_its_position_undoes_the_turn(layer, store):
    doc, game = await start(layer, HONG, options={"role": "emperor", "expansion": True})
    rng = random.Random(4)
    turn = await play_random(layer, HONG, CH, game, rng, moves=3)
    while turn.game.pending is not None:  # finish the turn in progress (a summoned dragon's action)
        turn = await layer.play(HONG, CH, doc.player(turn.game.to_move).id, turn.game.legal_moves()[0])
    before = turn.record.state
    mover = doc.player(turn.game.to_move)
    turn = await layer.play(HONG, CH, mover.id, rng.choice(turn.game.legal_moves()))
    while turn.game.pending is not None:  # a summoned dragon's action is part of the same turn
        turn = await layer.play(HONG, CH, mover.id, turn.game.legal_moves()[0])
    record, answerer = await layer.request_takeback(CH, mover.id)
    undone = await layer.answer_takeback(
        CH, record.id, record.takeback.moves, doc.player(answerer).id, True, record.takeback.nonce
    )
    assert undone.record.state == before
    with pytest.raises(IllegalMove):  # and the game goes on from there, checked by the rules as ever
        await layer.play(HONG, CH, mover.id, "Z99H")


async def test_a_full_connection_pool_waits_for_a_free_connection(redis_server, tmp_path):
    url = redis_server.get("url") or f"unix://{redis_server['unix_socket_path']}"
    hold = [f"hongbot:test:nothing:{i}" for i in range(12)]  # BLPOP on an empty list holds its connection 0.2 s
    default = aioredis.Redis(connection_pool=aioredis.ConnectionPool.from_url(url, max_connections=3))
    try:
        with pytest.raises(MaxConnectionsError):  # what redis-py's default pool does when it is full
            await asyncio.gather(*(default.blpop(key, timeout=0.2) for key in hold))
    finally:
        await default.aclose()
    handle = await connect(url, tmp_path, allow_unsafe=True, pool_size=3, pool_timeout=5)
    try:
        assert await asyncio.gather(*(handle.client.blpop(key, timeout=0.2) for key in hold)) == [None] * 12
    finally:
        await handle.close()
    handle = await connect(url, tmp_path, allow_unsafe=True, pool_size=1, pool_timeout=0.1)
    try:  # past its timeout a waiting command fails, with redis-py's connection error
        with pytest.raises(ConnectionError, match="No connection available"):
            await asyncio.gather(*(handle.client.blpop(key, timeout=0.5) for key in hold[:2]))
    finally:
        await handle.close()
