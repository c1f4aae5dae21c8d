"""engine.movetext: the text record of a finished game reads back and replays through the engine to the same
final position, for both games; names with awkward characters survive; bad text is refused."""

from __future__ import annotations

import random

import pytest

import engine.hong as hong
import engine.hongkong as hk
from engine.movetext import iso, parse_record, record_text
from engine.result import EndReason


def finished_doc(engine, options: dict, seed: int, names=("Ann", "Ben")) -> tuple[dict, list[int]]:
    game = engine.new_game(**options)
    rng = random.Random(seed)
    movers = []
    while not game.is_over:
        movers.append(game.to_move)
        game.play(rng.choice(game.legal_moves()))
    doc = {
        "id": "k3x9q2ab",
        "kind": "x",
        "status": "finished",
        "guild_id": 9,
        "channel_id": 500,
        "players": [{"id": 1, "name": names[0]}, {"id": 2, "name": names[1]}],
        "options": options,
        "state": game.to_dict(),
        "started": 1_700_000_000.0,
        "ended": 1_700_001_000.0,
        "result": {"winner": game.winner, "reason": "finished", "text": "Someone wins."},
    }
    return doc, movers


@pytest.mark.parametrize(
    "engine, options",
    [
        (hk, {"first": 1}),
        (hong, {"board": "garden", "expansion": True, "seed": 12345}),
        (hong, {"board": "inner", "expansion": False, "seed": 7}),
    ],
)
def test_record_replays_to_the_same_final_position(engine, options):
    doc, movers = finished_doc(engine, options, 4)
    text = record_text(doc, title="T", roles=("r0", "r1"), options_text="words", movers=movers)
    parsed = parse_record(text)
    assert parsed.setup == options
    game = engine.new_game(**parsed.setup)
    for move in parsed.moves:
        game.play(move)
    assert game.to_dict() == doc["state"]
    assert game.is_over and game.winner == doc["result"]["winner"]
    assert parsed.tags["Id"] == "k3x9q2ab" and parsed.termination is EndReason.FINISHED
    assert parsed.tags["Moves"] == str(len(parsed.moves))


def test_header_and_move_lines():
    doc, movers = finished_doc(hk, {"first": 1}, 4)
    text = record_text(
        doc, title="Hong Kong", roles=("blue", "orange"), options_text="orange moves first", movers=movers
    )
    lines = text.splitlines()
    assert lines[0] == '[Game "Hong Kong"]'
    assert '[Seat0 "Ann (blue)"]' in lines and '[Seat1 "Ben (orange)"]' in lines and '[First "Ben (orange)"]' in lines
    assert f'[Started "{iso(1_700_000_000.0)}"]' in lines and iso(1_700_000_000.0) == "2023-11-14T22:13:20Z"
    first_move = lines.index("") + 1
    assert lines[first_move] == f"1. Ben (orange): {doc['state']['moves'][0]}"  # orange (seat 1) moved first
    assert lines[first_move + 1].startswith("2. Ann (blue): ")
    assert len(lines) - first_move == len(doc["state"]["moves"])


def test_awkward_names_survive():
    names = ('Dr. "Q": the 1st', "Zoë \\ 🐉")
    doc, movers = finished_doc(hk, {"first": 0}, 5, names=names)
    text = record_text(doc, title="Hong Kong", roles=("blue", "orange"), options_text="x", movers=movers)
    parsed = parse_record(text)
    assert parsed.tags["Seat0"] == f"{names[0]} (blue)" and parsed.tags["Seat1"] == f"{names[1]} (orange)"
    assert parsed.moves == doc["state"]["moves"]


def test_bad_records_are_refused():
    with pytest.raises(ValueError, match="Setup"):
        parse_record('[Game "x"]\n\n1. Ann: S@A1\n')
    with pytest.raises(ValueError, match="expected"):
        parse_record('[Setup "{}"]\n\n2. Ann: S@A1\n')
    with pytest.raises(ValueError, match="neither"):
        parse_record('[Setup "{}"]\nnonsense\n')
    doc, movers = finished_doc(hk, {"first": 0}, 5)
    with pytest.raises(ValueError):
        record_text(doc, title="x", roles=("a", "b"), options_text="", movers=movers[:-1])


def test_termination_is_an_end_reason():
    doc, movers = finished_doc(hk, {"first": 0}, 6)
    doc["result"] = {"winner": 1, "reason": "resigned", "text": "Ann resigned."}
    parsed = parse_record(record_text(doc, title="x", roles=("a", "b"), options_text="", movers=movers))
    assert parsed.termination is EndReason.RESIGNED and parsed.tags["Termination"] == "resigned"
    doc["result"] = None
    assert (
        parse_record(record_text(doc, title="x", roles=("a", "b"), options_text="", movers=movers)).termination is None
    )
    doc["result"] = {"winner": 1, "reason": "bored", "text": ""}
    with pytest.raises(ValueError, match="bored"):
        record_text(doc, title="x", roles=("a", "b"), options_text="", movers=movers)


@pytest.mark.parametrize(
    ("options", "written"),
    [
        ({"first": 0}, "first=0"),
        ({"board": "castle", "expansion": True, "seed": 577090037}, "board=castle expansion=true seed=577090037"),
        ({"stones": ["A3", "A4"], "lair": {"1": "rotate"}}, 'lair={"1":"rotate"} stones=["A3","A4"]'),
        ({"name": "two words", "number": "12", "none": None}, 'name="two words" none=null number="12"'),
    ],
)
def test_the_setup_reads_plainly_without_escaped_json_and_reads_back(options, written):
    doc, movers = finished_doc(hk, {"first": 0}, 1)
    text = record_text({**doc, "options": options}, title="T", roles=("r0", "r1"), options_text="", movers=movers)
    assert f'[Setup "{written}"]' in text or '"' in written  # (a quote inside is escaped, as in every tag)
    assert parse_record(text).setup == options
    if '"' not in written:
        assert "\\" not in text.split("[Setup ")[1].split("\n")[0]


def test_a_record_written_before_with_a_json_setup_still_reads():
    old = '[Setup "{\\"first\\": 0}"]\n\n1. Ann (blue): S@B2\n'
    assert parse_record(old).setup == {"first": 0}
    with pytest.raises(ValueError, match="Setup"):
        parse_record('[Setup "first"]\n')
