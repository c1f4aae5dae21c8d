"""Post-game analysis (engine/ai/analysis.py) on scripted games: a known blunder is labelled a blunder with the better
move, a won game's winner keeps their chance, the same game and seed give the same analysis, and it round-trips."""

from __future__ import annotations

import pytest

from engine import hongkong
from engine.ai.analysis import BLUNDER, Analysis, Judgement, analyse, can_analyse

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
    judged = report.plies[6]
    assert (judged.ply, judged.mover, judged.move) == (7, 0, "Q@A1 R@C2")
    assert judged.before > 0.9 and judged.after < 0.5
    assert judged.drop >= BLUNDER and judged.label == "blunder"
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
    late = [j for j in report.plies if j.mover == 0 and j.ply >= 11]
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
    j = Judgement(ply=1, mover=0, move="S@A1", best="S@C3", before=before, after=after)
    assert j.label == label
    assert Judgement(ply=1, mover=0, move="S@C3", best="S@C3", before=before, after=after).label is None


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
