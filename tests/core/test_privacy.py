"""A person's data against a real Redis: export finds it all, forgetting leaves nothing of theirs in any key or value
(every key of the store scanned) while the other players keep their games, histories and ratings and a forgotten
record still loads and replays; the retention sweep deletes old finished records and their index entries, ratings
kept."""

from __future__ import annotations

import json
import re

import pytest

from bot.core.forgetting import forget
from bot.core.record import FORMER_ID, FORMER_NAME, Record
from bot.core.session import Person
from bot.games import all_kinds
from bot.i18n import language
from bot.interface.board_pool import build_replay
from bot.storage.finished_games import DONE, GAME_INDEX, Records
from bot.storage.analyses import Analyses
from bot.storage.keys import Keys
from bot.storage.privacy import Privacy
from bot.storage.ratings import GLOBAL, Ratings, guild_scope

from tests.core.test_records import GUILD, play_out

# Discord-sized ids and names that occur nowhere else, so a scan for them can't be fooled by chance
ANN, BEN, CLEO = (
    Person(180_000_000_000_000_001, "Annelise Quorn"),
    Person(180_000_000_000_000_002, "Benedikt"),
    Person(180_000_000_000_000_003, "Cleo"),
)
KINDS = all_kinds()


@pytest.fixture
def privacy(store, clock):
    return Privacy(Records(store, Ratings(store.redis), clock=clock))


async def everything(redis) -> list[str]:
    """Every key of the store and every value in it, as text."""
    found = []
    async for key in redis.scan_iter(count=1000):
        found.append(key)
        kind = await redis.type(key)
        if kind == "string":
            found.append(await redis.get(key))
        elif kind == "hash":
            found += [f"{k}={v}" for k, v in (await redis.hgetall(key)).items()]
        elif kind == "set":
            found += list(await redis.smembers(key))
        elif kind == "zset":
            found += list(await redis.zrange(key, 0, -1))
        elif kind == "list":
            found += list(await redis.lrange(key, 0, -1))
        else:
            raise AssertionError(f"{key} is a {kind}: read it here too")
    return found


async def three_games(layer, clock, privacy):
    """Ann–Ben Hong Kong played out, Ben–Ann Hong resigned, Ben–Cleo Hong Kong resigned; all recorded and rated."""
    games = [
        await play_out(layer, clock, KINDS["hongkong"], 500, ANN, BEN, {"first": "me"}),
        await play_out(layer, clock, KINDS["hong"], 501, BEN, ANN, {"role": "emperor"}, resign_after=3),
        await play_out(layer, clock, KINDS["hongkong"], 502, BEN, CLEO, {"first": "me"}, resign_after=2),
    ]
    for record in games:
        assert await privacy.records.on_finished(record)
    return games


async def test_export_holds_their_games_and_ratings(layer, clock, privacy):
    games = await three_games(layer, clock, privacy)
    data = await privacy.export(ANN.id)
    json.dumps(data)  # a file's worth of JSON
    assert data["user_id"] == str(ANN.id)
    assert [g["id"] for g in data["games"]] == [games[0].id, games[1].id]
    for exported, record in zip(data["games"], games):  # what a person reads: no engine state, times as dates
        assert exported["moves"] == record.game_state["moves"] and exported["result"] == record.result.text
        assert exported["players"][0]["you"] == (record.players[0].id == ANN.id)
        assert {p["name"] for p in exported["players"]} == {p.name for p in record.players}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", exported["ended"])
        assert "state" not in exported and exported["server"] == str(GUILD)
    boards = {(r["game"], r["leaderboard"]) for r in data["ratings"]}
    server = f"server {guild_scope(GUILD).removeprefix('g')}"
    assert boards == {(kind, board) for kind in ("hongkong", "hong") for board in (server, GLOBAL)}
    assert all(r["games"] == 1 and r["name"] == ANN.name and r["provisional"] for r in data["ratings"])
    assert not any(key in r for r in data["ratings"] for key in ("mu", "sigma", "last"))
    assert await privacy.export(CLEO.id + 7) == {
        "user_id": str(CLEO.id + 7),
        "games": [],
        "ratings": [],
        "tournaments": [],
    }


async def test_forgetting_leaves_nothing_of_them_and_the_games_whole(layer, clock, privacy, store):
    games = await three_games(layer, clock, privacy)
    redis = store.redis
    await store.vote_rematch(500, games[0].id, ANN.id)
    await redis.hset(Keys.quarantine(503, 1.5), mapping={"v": "3", "doc": f'{{"players":[{{"id":{ANN.id}}}]}}'})
    await redis.zadd(Keys.quarantine_index(0), {Keys.quarantine(503, 1.5): 1.5})
    ratings = Ratings(redis)
    ben_before = {
        (k, s): await ratings.standing(k, s, BEN.id) for k in ("hong", "hongkong") for s in (guild_scope(GUILD), GLOBAL)
    }

    erased = await privacy.forget(ANN.id, lambda r: forget(KINDS[r.kind], r, ANN.id))

    assert (erased.records, erased.boards, erased.histories, erased.votes, erased.quarantined) == (2, 4, 1, 1, 1)
    text = "\n".join(await everything(redis))
    assert str(ANN.id) not in text and ANN.name not in text
    # the other players keep everything
    for (kind, scope), before in ben_before.items():
        assert await ratings.standing(kind, scope, BEN.id) == before
        assert (await ratings.rank(kind, scope, BEN.id))[1] == (2 if kind == "hongkong" else 1)
    assert {r.id for r in await privacy.records.recent(GUILD, BEN.id)} == {g.id for g in games}
    for game in games[:2]:  # each game stays rated once, Ben's side of it kept
        for scope in (guild_scope(GUILD), GLOBAL):
            assert list(await ratings.change(game.kind, scope, game.id)) == [BEN.id]
    # a forgotten record loads, names "a former player", and replays
    for game in games[:2]:
        record = await privacy.records.find(game.id)
        seat = game.seat_of(ANN.id)
        assert record.player(seat).id == FORMER_ID and record.player(seat).name == FORMER_NAME
        assert record.player(1 - seat) == game.player(1 - seat) and record.state == game.state
        assert Record.from_json(record.to_json()) == record and record.challenger in (FORMER_ID, BEN.id)
        assert ANN.name not in record.result.text
        kind = KINDS[record.kind]
        replay = build_replay(
            kind,
            kind.new_game(record.options),
            list(kind.load(record.game_state).moves),
            record.plain_names,
            final_text="x",
        )
        assert replay.gif[:6] == b"GIF89a"
    resigned = await privacy.records.find(games[1].id)
    loser = "a former player" if games[1].result.winner == 0 else "Benedikt"
    winner = "Benedikt" if loser == "a former player" else "a former player"
    assert resigned.result.text == f"{loser} resigned: {winner} wins."
    with language("de"):
        assert (await privacy.records.find(games[0].id)).plain_names[
            games[0].seat_of(ANN.id)
        ] == "ein ehemaliger Spieler"
    # forgetting again changes nothing; the game of someone else is untouched
    assert (await privacy.forget(ANN.id, lambda r: forget(KINDS[r.kind], r, ANN.id))).records == 0
    assert await privacy.records.find(games[2].id) == games[2]


async def test_a_finished_game_not_yet_rated_is_rated_before_they_are_forgotten(layer, clock, privacy, store):
    record = await play_out(layer, clock, KINDS["hongkong"], 500, ANN, BEN, {"first": "me"}, resign_after=1)
    await privacy.forget(ANN.id, lambda r: forget(KINDS[r.kind], r, ANN.id))
    ratings = Ratings(store.redis)
    assert (await ratings.standing("hongkong", GLOBAL, BEN.id)).games == 1  # Ben's win counts
    assert await ratings.standing("hongkong", GLOBAL, ANN.id) is None
    assert await ratings.standing("hongkong", GLOBAL, FORMER_ID) is None
    assert await privacy.records.sweep(scan=True) == 0
    assert (await privacy.records.find(record.id)).player(0).id == FORMER_ID


async def test_in_play_finds_their_challenges_and_games(layer, clock, privacy):
    assert await privacy.in_play(ANN.id) == []
    doc = await layer.challenge(KINDS["hong"], guild_id=GUILD, channel_id=600, challenger=BEN, opponent=ANN, options={})
    assert [r.id for r in await privacy.in_play(ANN.id)] == [doc.id]
    await layer.accept(600, doc.id, ANN)
    assert [r.channel_id for r in await privacy.in_play(ANN.id)] == [600]
    assert await privacy.in_play(CLEO.id) == []


async def test_retention_deletes_old_records_and_their_index_entries_ratings_kept(layer, clock, privacy, store):
    old = await play_out(layer, clock, KINDS["hongkong"], 500, ANN, BEN, {"first": "me"}, resign_after=1)
    await privacy.records.on_finished(old)
    clock.advance(10 * 86400)
    new = await play_out(layer, clock, KINDS["hongkong"], 500, ANN, BEN, {"first": "me"}, resign_after=2)
    await privacy.records.on_finished(new)
    ratings, redis = Ratings(store.redis), store.redis
    before = await ratings.standing("hongkong", GLOBAL, ANN.id)
    kept = Analyses(redis)  # an analysis and a hint count of the old game go with it
    await kept.put(old.id, {"kind": "hongkong", "plies": []})
    await kept.add_hint(old.id, 0)

    assert await privacy.sweep_retention(clock() - 5 * 86400) == 1
    assert await privacy.records.find(old.id) is None and await store.finished(500, old.id) is None
    assert await redis.hget(GAME_INDEX, old.id) is None and not await redis.sismember(DONE, f"500:{old.id}")
    assert [r.id for r in await privacy.records.recent(GUILD)] == [new.id]
    assert [r.id for r in await privacy.records.recent(GUILD, ANN.id)] == [new.id]
    assert [r.id for r in await privacy.records.recent(GUILD, BEN.id)] == [new.id]
    assert await ratings.change("hongkong", GLOBAL, old.id) is None
    assert await ratings.standing("hongkong", GLOBAL, ANN.id) == before and before.games == 2  # ratings kept
    await redis.delete(Keys.OUTBOX, Keys.tries(Keys.OUTBOX), Keys.shards(Keys.OUTBOX))  # (announced by a bot)
    assert old.id not in "\n".join(await everything(redis))
    assert await privacy.sweep_retention(clock() - 5 * 86400) == 0
    assert await privacy.records.find(new.id) == new
    assert await privacy.claim_retention(60) and not await privacy.claim_retention(60)  # one process an hour
