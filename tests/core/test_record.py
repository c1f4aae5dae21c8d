"""The typed, versioned channel record: round trips, validation, and records written by the previous version
(schema 1, captured from that code in ``data/records_schema1.json``) loading and playing on, and schema-2 names
(stored escaped) read back plain."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.games.hong import HONG
from bot.games.hongkong import HONGKONG
from bot.core.record import SCHEMA, Event, Player, Record, RecordError, Status, migrate
from bot.core.session import GameLayer
from bot.storage.keys import Keys
from engine.result import EndReason

OLD = json.loads((Path(__file__).parent / "data" / "records_schema1.json").read_text())
KINDS = {"hongkong": HONGKONG, "hong": HONG}


@pytest.mark.parametrize("name", sorted(OLD))
def test_every_schema1_record_loads_and_round_trips(name):
    raw = json.loads(OLD[name])
    assert "schema" not in raw
    record = Record.from_json(OLD[name])
    assert record.schema == SCHEMA == 3 and json.loads(record.to_json())["schema"] == 3
    assert Record.from_json(record.to_json()) == record
    # the commit's JSON (written without copying the state) is to_dict's, field for field and in order
    assert record.to_json() == json.dumps(record.to_dict(), separators=(",", ":"), ensure_ascii=False)
    assert record.id == raw["id"] and record.kind == raw["kind"] and record.status.value == raw["status"]
    # names were stored escaped ("B\\_en"): they come back plain, and a message escapes them once
    plain = {"Ann": "Ann", "B\\_en": "B_en", "Mod": "Mod", "Computer (hard)": "Computer (hard)"}
    assert [p and (p.id, p.name) for p in record.players] == [p and (p["id"], plain[p["name"]]) for p in raw["players"]]
    assert [p.shown for p in record.players if p] == [p["name"] for p in raw["players"] if p]
    if record.state is not None:
        game = KINDS[record.kind].load(record.state)  # the engine accepts the migrated state
        moves = raw["state"].get("moves", raw["state"].get("turns"))
        assert game.moves == moves and "turns" not in record.state


def test_schema1_details_survive():
    computer = Record.from_json(OLD["hongkong_computer"])
    assert computer.player(1) == Player(99, "Computer (hard)", bot=True, level="hard")
    takeback = Record.from_json(OLD["hongkong_active_takeback"])
    assert takeback.takeback is not None and takeback.takeback.moves == 5 and len(takeback.takeback.nonce) == 4
    resigned = Record.from_json(OLD["hong_resigned"])
    assert resigned.result.reason is EndReason.RESIGNED and resigned.result.winner == 1
    assert resigned.ended_off_board.reason is EndReason.RESIGNED
    aborted = Record.from_json(OLD["hong_aborted"])
    assert aborted.aborted_by == Player(5, "Mod") and aborted.result.winner is None
    finished = Record.from_json(OLD["hongkong_finished"])
    assert finished.finished and finished.ended_off_board is None
    assert Record.from_json(OLD["challenge_open"]).players[1] is None


@pytest.mark.parametrize(
    "name, ch", [("hongkong_active_takeback", 100), ("hong_active_summon", 101), ("hongkong_computer", 102)]
)
async def test_a_schema1_game_in_redis_plays_on(store, name, ch):
    raw = json.loads(OLD[name])
    await store.redis.hset(Keys.game(ch), mapping={"v": 7, "doc": OLD[name]})
    layer = GameLayer(store, KINDS, clock=lambda: raw["turn_started"] + 1, rng=random.Random(1))
    stored, game = await layer.running(ch)
    assert stored.version == 7 and stored.record.schema == 3
    mover = stored.record.player(game.to_move)
    move = game.legal_moves()[0]
    turn = await layer.play(KINDS[raw["kind"]], ch, mover.id, move)
    assert turn.event is Event.MOVE and turn.move == move
    again = await store.get(ch)
    assert again.version == 8 and json.loads((await store.raw(ch))["doc"])["schema"] == 3
    assert again.record.state["moves"][-1] == turn.move


@pytest.mark.parametrize(
    "damage, needle",
    [
        (lambda d: d.pop("status"), "'status' is missing"),
        (lambda d: d.pop("guild_id"), "'guild_id' is missing"),
        (lambda d: d.update(status="paused"), "paused"),
        (lambda d: d.update(players=[{"id": 1, "name": "Ann"}]), "two seats"),
        (lambda d: d.update(players=[{"id": "1", "name": "Ann"}, None]), "id must be a whole number"),
        (lambda d: d.update(expires=None), "expiry"),
        (lambda d: d.update(schema=99), "newer than this bot's"),
        (lambda d: d.update(schema="two"), "unreadable schema"),
    ],
)
def test_a_damaged_record_raises_one_clear_error(damage, needle):
    d = json.loads(OLD["challenge_open"])
    damage(d)
    with pytest.raises(RecordError, match=needle) as info:
        Record.from_json(json.dumps(d))
    assert d.get("id", "") in str(info.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"text"'])
def test_not_a_record_at_all(text):
    with pytest.raises(RecordError):
        Record.from_json(text)


def test_an_active_game_needs_state_and_players():
    d = json.loads(OLD["hongkong_computer"])
    d["state"] = None
    with pytest.raises(RecordError, match="needs its state"):
        Record.from_dict(d)
    d = json.loads(OLD["hongkong_finished"])
    d.pop("result")
    with pytest.raises(RecordError, match="needs its result"):
        Record.from_dict(d)


async def test_store_get_sets_a_damaged_record_aside_and_keeps_it(store):
    await store.redis.hset(Keys.game(5), mapping={"v": 1, "doc": '{"id": "x"}'})
    assert await store.get(5) is None  # the channel is free
    assert await store.raw(5) == {}
    [kept] = await store.redis.zrange(Keys.QUARANTINE, 0, -1)
    assert kept.startswith("hongbot:{ch:5}:quarantine:")
    assert await store.redis.hgetall(kept) == {"v": "1", "doc": '{"id": "x"}'}


def test_migrate_is_pure_and_current_records_pass_through():
    raw = json.loads(OLD["hongkong_finished"])
    migrated = migrate(raw)
    assert "turns" in raw["state"] and "moves" in migrated["state"] and migrated["schema"] == 3
    assert migrate(migrated) == migrated


def test_schema2_names_were_escaped_and_load_plain():
    """Schema 2 stored names as ``safe_name`` left them (markdown and mentions escaped); schema 3 stores them plain
    and :attr:`Player.shown` escapes once."""
    d = json.loads(OLD["hong_aborted"])
    d["schema"] = 2
    d["players"] = [{"id": 1, "name": "a\\_b\\*c\\*\\_d"}, {"id": 2, "name": "@\u200beveryone"}]
    d["aborted_by"] = {"id": 5, "name": "M\\~\\~od\\~\\~"}
    record = Record.from_dict(d)
    assert record.plain_names == ("a_b*c*_d", "@everyone") and record.aborted_by.name == "M~~od~~"
    assert record.names == ("a\\_b\\*c\\*\\_d", "@\u200beveryone")
    assert json.loads(record.to_json())["players"][0]["name"] == "a_b*c*_d"
    assert Record.from_json(record.to_json()) == record  # schema 3 is not unescaped again
    d["players"][0]["name"] = "back\\\\slash"  # an escaped backslash
    assert Record.from_dict(d).player(0).name == "back\\slash"


def test_status_and_event_values_are_what_records_store():
    assert [s.value for s in Status] == ["challenge", "active", "finished"]
    assert [e.value for e in Event] == ["move", "resigned", "timeout", "aborted", "takeback"]
    assert [e.ends_game for e in Event] == [False, True, True, True, False]


def test_to_json_is_to_dict_as_json_with_every_field_set():
    from bot.core.record import Result, Takeback

    record = Record.from_json(OLD["hong_aborted"]).replace(
        takeback=Takeback(by=1, moves=2, expires=5.5, nonce="n", refused=True),
        aborted_by=Player(3, "Mod ✨"),
        result=Result(None, EndReason.ABORTED, "aborted"),
        turn_timer=3600.0,
        status=Status.FINISHED,
        state={"game": "hong", "moves": ["B3H", "C4V"], "nested": {"a": [1, 2.5, None, True]}},
    )
    text = record.to_json()
    assert text == json.dumps(record.to_dict(), separators=(",", ":"), ensure_ascii=False)
    assert Record.from_json(text) == record
