"""Post-game analysis (engine/ai/analysis.py) on scripted games: a known blunder is labelled a blunder with the better
move, a won game's winner keeps their chance, the same game and seed give the same analysis, and it round-trips; the
text's numbers are the graph's, and a label always matches the whole percentages printed beside it."""

from __future__ import annotations

import pytest

from engine import hongkong
from engine.ai.analysis import BLUNDER, VERSION, Analysis, Judgement, Verdict, analyse, can_analyse

#: A Hong Kong game, the hard computer (blue, first) against the easy one: blue wins, 15–10 in buildings.
GAME = [
    "Q@A1 S@C2", "Q@B1 S@C3", "Q@E5 S@E4", "Q@B2 S@C1", "Q@C2 S@C3", "Q@D4 S@D1", "Q@C1 S@B1", "Q@D4 S@E4",
    "Q@B2 S@D1", "Q@E5 S@E1", "S@E1", "R@D5", "S@E2", "R@A2", "R@B3", "S@C5", "R@D2", "S@A3", "R@C4", "R@A4",
    "R@D3", "R@B5", "R@E3", "R@B4", "S@A5",
]  # fmt: skip
NODES = 5_000


def state(moves):
    game = hongkong.new_game(0)
    for move in moves:
        game.play(move)
    return game


def test_a_known_blunder_is_labelled_a_blunder_with_the_better_move():
    # Move 7: blue, far ahead (≈98%), should capture with Q@C1 S@B1; roofing C2 instead hands the lead over.
    moves = GAME[:6] + ["Q@A1 R@C2"]
    report = analyse(state(moves).to_dict(), nodes=NODES)
    searched = report.plies[6]
    assert (searched.ply, searched.mover, searched.move) == (7, 0, "Q@A1 R@C2")
    assert searched.before > 0.9 and searched.after < 0.5
    judged = report.verdicts()[6]
    assert judged.points >= BLUNDER * 100 and judged.label == "blunder"
    assert judged.best != judged.move
    assert report.worst(0)[0] == judged
    assert 7 in report.turning_points()


def test_a_won_game_keeps_the_winners_chance_and_labels_none_of_the_winners_moves():
    game = state(GAME)
    assert game.is_over and game.winner == 0
    report = analyse(game.to_dict(), nodes=NODES)
    assert len(report.plies) == len(GAME)
    chances = report.chances()
    assert len(chances) == len(GAME) + 1
    assert chances[-1] == 1.0  # the result itself
    late = [v for v in report.verdicts() if v.mover == 0 and v.ply >= 11]
    assert late and all(j.after >= 0.99 and j.label is None for j in late)
    assert all(chances[p] >= 0.99 for p in range(11, len(chances)))  # the forced win holds to the end


def test_the_same_game_and_seed_give_the_same_analysis_and_it_round_trips():
    moves = GAME[:8]
    first = analyse(state(moves).to_dict(), nodes=NODES, seed=3)
    again = analyse(state(moves).to_dict(), nodes=NODES, seed=3)
    assert first == again
    assert Analysis.from_dict(first.to_dict()) == first
    assert first.seed == 3 and first.nodes == NODES


@pytest.mark.parametrize(
    ("before", "after", "label"),
    [(0.8, 0.71, None), (0.8, 0.7, "inaccuracy"), (0.8, 0.6, "mistake"), (0.8, 0.5, "blunder"), (0.3, 0.9, None)],
)
def test_labels_follow_the_written_thresholds(before, after, label):
    v = Verdict(ply=1, mover=0, move="S@A1", best="S@C3", before=before, after=after)
    assert v.label == label
    assert Verdict(ply=1, mover=0, move="S@C3", best="S@C3", before=before, after=after).label is None


@pytest.mark.parametrize(
    ("before", "after", "label"),
    [(0.544, 0.345, "mistake"), (0.5449, 0.4451, None), (0.835, 0.535, "blunder"), (0.306, 0.204, "inaccuracy")],
)
def test_a_label_matches_the_whole_percentages_printed_beside_it(before, after, label):
    # "54% → 34%" is a drop of 20 points, so a mistake, whatever the decimals the search had
    assert Verdict(ply=1, mover=0, move="S@A1", best="S@C3", before=before, after=after).label == label


def test_every_game_can_be_analysed():
    assert can_analyse("hongkong") and can_analyse("hong")


def test_the_graphs_chances_average_the_two_searches_of_each_position():
    plies = (
        Judgement(ply=1, mover=0, move="a", best="a", before=0.5, after=0.5),
        Judgement(ply=2, mover=1, move="b", best="c", before=0.2, after=0.1),  # seat 1 sees 0.2: seat 0 0.8
        Judgement(ply=3, mover=0, move="d", best="d", before=0.7, after=1.0),
    )
    report = Analysis(kind="hongkong", start=0.5, plies=plies)
    # after move 1: (0.5 + 0.8) / 2; after move 2: (0.9 + 0.7) / 2; after the last: its result
    assert report.chances() == pytest.approx([0.5, 0.65, 0.8, 1.0])
    # the text's numbers are the graph's, from the mover's side: move 2 (seat 1) from 35% to 20%
    shown = report.verdicts()
    assert [x for v in shown for x in (v.before, v.after)] == pytest.approx([0.5, 0.65, 0.35, 0.2, 0.8, 1.0])
    assert [v.points for v in shown] == [0, 15, 0] and shown[1].label == "inaccuracy"
    # a game stopped off the board (a resignation): its last position is searched from the side to move as well
    stopped = Analysis(kind="hongkong", start=0.5, plies=plies[:2], end=0.6)
    assert stopped.chances() == pytest.approx([0.5, 0.65, 0.75])


def test_a_resigned_game_has_its_last_position_searched_by_the_side_to_move():
    report = analyse(state(["S@C2"]).to_dict(), nodes=NODES)
    assert report.end is not None and 0.0 <= report.end <= 1.0
    assert report.chances()[-1] == pytest.approx((report.plies[0].after + report.end) / 2)
    over = analyse(state(GAME).to_dict(), nodes=NODES)
    assert over.end is None


def test_an_analysis_kept_in_an_older_layout_is_not_read_as_this_one():
    data = analyse(state(GAME[:2]).to_dict(), nodes=NODES).to_dict()
    assert data["version"] == VERSION
    del data["version"]
    with pytest.raises(ValueError):
        Analysis.from_dict(data)


def test_the_moves_marked_on_the_graph_are_the_moves_listed():
    game = state(GAME[:6] + ["Q@A1 R@C2"])
    report = analyse(game.to_dict(), nodes=NODES)
    listed = [v.ply for seat in (0, 1) for v in report.worst(seat)]
    assert listed and report.turning_points() == sorted(listed)
