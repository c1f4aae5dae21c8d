"""Game records against a real Redis: games played through the game layer to their end are indexed, found by id,
listed newest first, rated exactly once (also when two processes record the same game at once), and a failure
or a crash is made good by the sweep. The text record replays through the engine to the same final position."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.games.hong import HONG
from bot.games.hongkong import HONGKONG
from bot.storage.ratings import GLOBAL, Ratings, guild_scope
from bot.storage.finished_games import DONE, GAME_INDEX, Records
from bot.core.record import Record, Status
from bot.core.session import Person
from bot.exts.stats import Stats, game_label, rating_change_line
from bot.storage.store import GameStore
from bot.storage.keys import Keys
from bot.i18n.wording import result_for, result_short
from engine.result import EndReason
from engine.movetext import parse_record

ANN, BEN, CLEO = Person(1, "Ann"), Person(2, "Ben"), Person(3, "Cleo")
GUILD = 9
KINDS = {"hongkong": HONGKONG, "hong": HONG}


@pytest.fixture
def records(store, clock):
    return Records(store, Ratings(store.redis), clock=clock)


async def play_out(
    layer,
    clock,
    kind,
    channel: int,
    a: Person,
    b: Person,
    options: dict,
    *,
    seed: int = 1,
    resign_after: int | None = None,
) -> Record:
    """Challenge, accept and play random legal moves to the end (or resign); returns the finished record."""
    doc = await layer.challenge(kind, guild_id=GUILD, channel_id=channel, challenger=a, opponent=b, options=options)
    doc, game = await layer.accept(channel, doc.id, b)
    rng = random.Random(seed)
    ids = {p.id: Person(p.id, p.name) for p in doc.players}
    seats = [doc.player(0).id, doc.player(1).id]
    moves = 0
    while True:
        clock.t += 10
        if resign_after is not None and moves == resign_after:
            turn = await layer.resign(kind, channel, seats[game.to_move])
            return turn.record
        turn = await layer.play(kind, channel, ids[seats[game.to_move]].id, rng.choice(game.legal_moves()))
        game, moves = turn.game, moves + 1
        if turn.finished:
            return turn.record


async def test_a_finished_game_is_indexed_found_and_rated(layer, clock, records, store):
    doc = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"})
    assert doc.status is Status.FINISHED and doc.result.reason is EndReason.FINISHED
    assert await records.on_finished(doc) is True
    found = await records.find(doc.id)
    assert found == doc == await store.finished(500, doc.id)
    assert await store.redis.hget(GAME_INDEX, doc.id) == "500"
    assert await store.redis.sismember(DONE, f"500:{doc.id}")
    assert [d.id for d in await records.recent(GUILD)] == [doc.id]
    assert [d.id for d in await records.recent(GUILD, ANN.id)] == [doc.id]
    assert await records.recent(GUILD, CLEO.id) == []
    ratings = records.ratings
    winner = doc.result.winner
    if winner is not None:
        won = doc.player(winner).id
        assert (await ratings.standing("hongkong", guild_scope(GUILD), won)).wins == 1
        assert (await ratings.standing("hongkong", GLOBAL, won)).rating == 1658
    assert await records.find("zzzzzzzz") is None


async def test_history_is_newest_first_and_per_player(layer, clock, records):
    first = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=2)
    second = await play_out(layer, clock, HONG, 501, BEN, CLEO, {"role": "emperor"}, resign_after=3)
    third = await play_out(layer, clock, HONGKONG, 500, CLEO, ANN, {"first": "them"}, resign_after=0)
    for doc in (first, second, third):
        await records.on_finished(doc)
    assert [d.id for d in await records.recent(GUILD)] == [third.id, second.id, first.id]
    assert [d.id for d in await records.recent(GUILD, limit=2)] == [third.id, second.id]
    assert [d.id for d in await records.recent(GUILD, ANN.id)] == [third.id, first.id]
    assert [d.id for d in await records.recent(GUILD, BEN.id, kind="hong")] == [second.id]
    assert await records.count(GUILD) == 3 and await records.count(GUILD, CLEO.id) == 2
    assert await records.recent(GUILD + 1) == []
    # words about them
    assert result_short(first) == "Ben won by resignation"  # Ann (seat 0, to move) resigned after 2 moves
    assert result_for(first, ANN.id) == "lost (resignation)" and result_for(first, BEN.id) == "won (resignation)"
    label = game_label(first, KINDS)
    assert label.startswith(f"{first.id} · Hong Kong: Ann vs Ben · ") and len(label) <= 100
    from bot import i18n

    with i18n.language("de"):  # autocomplete runs in the caller's language
        assert game_label(first, KINDS).startswith(f"{first.id} · Hong Kong: Ann gegen Ben · ")


async def test_an_aborted_game_is_recorded_but_unrated(layer, clock, records):
    doc = await layer.challenge(HONGKONG, guild_id=GUILD, channel_id=500, challenger=ANN, opponent=BEN, options={})
    doc, game = await layer.accept(500, doc.id, BEN)
    turn = await layer.abort(500, CLEO)
    assert turn.record.result.reason is EndReason.ABORTED
    assert await records.on_finished(turn.record)
    assert await records.find(doc.id) is not None
    assert await records.ratings.standing("hongkong", GLOBAL, ANN.id) is None
    assert result_short(turn.record) == "aborted" and result_for(turn.record, ANN.id) == "aborted"
    assert rating_change_line(turn.record, None) == ""


async def test_recording_twice_and_from_two_processes_rates_once(layer, clock, store, new_handle):
    doc = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=4)
    processes = []
    for _ in range(2):
        client = new_handle().client
        processes.append(Records(GameStore(client), Ratings(client), clock=clock))
    results = await asyncio.gather(*[processes[n % 2].on_finished(doc) for n in range(10)])
    assert all(results)
    ratings = Ratings(store.redis)
    for scope in (guild_scope(GUILD), GLOBAL):
        assert (await ratings.standing("hongkong", scope, ANN.id)).games == 1
        assert (await ratings.standing("hongkong", scope, BEN.id)).games == 1
    loser = doc.player(1 - doc.result.winner).id
    assert (await ratings.standing("hongkong", GLOBAL, loser)).rating == 1342


async def test_a_failed_rating_keeps_the_result_and_the_sweep_rates_it_once(layer, clock, records, store, monkeypatch):
    doc = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=1)
    ratings = records.ratings
    real_apply = ratings.apply

    async def broken(d):
        raise ConnectionError("Redis went away")

    monkeypatch.setattr(ratings, "apply", broken)
    assert await records.on_finished(doc) is False  # logged, not raised
    assert await store.finished(500, doc.id) == doc  # the result is stored regardless
    assert await ratings.standing("hongkong", GLOBAL, ANN.id) is None
    assert not await store.redis.sismember(DONE, f"500:{doc.id}")
    monkeypatch.setattr(ratings, "apply", real_apply)
    assert await records.sweep() == 1
    assert await records.sweep() == 0
    assert (await ratings.standing("hongkong", GLOBAL, ANN.id)).games == 1
    # the catch-up after the next finished game would have done it too; it does not rate twice
    later = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=1)
    assert await records.on_finished(later)
    assert (await ratings.standing("hongkong", GLOBAL, ANN.id)).games == 2


async def test_start_up_sweep_finds_games_ended_just_before_a_crash(layer, clock, records, store):
    """The finished record is written atomically, but the process died before any index: SCAN finds it."""
    older = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=1)
    newer = await play_out(layer, clock, HONGKONG, 501, ANN, BEN, {"first": "me"}, resign_after=2)
    await store.redis.delete(Keys.FINISHED)  # as if the zadd after the Lua script never ran
    assert await records.sweep() == 0  # nothing listed …
    assert await records.sweep(scan=True) == 2  # … but the records are there
    assert [d.id for d in await records.recent(GUILD)] == [newer.id, older.id]
    ann = await records.ratings.standing("hongkong", GLOBAL, ANN.id)
    assert ann.games == 2
    assert ann.last == newer.ended  # rated in the order played


async def test_catch_up_only_looks_back_a_day(layer, clock, records, store):
    old = await play_out(layer, clock, HONGKONG, 500, ANN, BEN, {"first": "me"}, resign_after=1)
    clock.t += 3 * 24 * 3600
    assert await records.sweep(since=clock.t - 24 * 3600) == 0
    assert await records.sweep() == 1
    assert await records.find(old.id) is not None


@pytest.mark.parametrize(
    "kind, options, seed", [(HONGKONG, {"first": "them"}, 2), (HONG, {"role": "dragon_master", "expansion": True}, 3)]
)
async def test_text_record_replays_through_the_engine_to_the_final_position(layer, clock, records, kind, options, seed):
    doc = await play_out(layer, clock, kind, 500, ANN, BEN, options, seed=seed)
    await records.on_finished(doc)
    stats = Stats(None, records, records.ratings, KINDS)
    text = stats.record_text(doc)
    parsed = parse_record(text)
    assert parsed.tags["Game"] == kind.title and parsed.tags["Id"] == doc.id
    assert parsed.tags["Result"] == doc.result.text
    assert parsed.tags["Options"] == (kind.describe_options(doc.options) or "none")
    first = kind.new_game(doc.options).to_move
    assert parsed.tags["First"] == f"{doc.player(first).name} ({kind.roles[first]})"
    game = kind.engine.new_game(**parsed.setup)
    for move in parsed.moves:
        game.play(move)
    assert game.to_dict() == kind.load(doc.state).to_dict()
    assert game.is_over and game.winner == doc.result.winner
    assert len(parsed.moves) == len(kind.load(doc.state).moves)
