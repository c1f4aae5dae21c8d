"""The parts of ``tests/bench/strength.py`` that can be wrong: the Wilson interval, the plain-UCT standard, the
pairing of seeds and sides, and the counting of a match. The strength itself is the benchmark's business."""

from __future__ import annotations

import random

import pytest

import engine.hong as hong
import engine.hongkong as hongkong
from tests.bench.strength import CONFIGS, PlainUCT, percentile, play, report, tasks, wilson

#: A Hong Kong position (the first player, seat 0, to move) in which one of the 11 legal moves, S@A5, ends the
#: game with seat 0 the winner; after each of the others seat 0 still wins 84–90% of uniformly random playouts,
#: so only a search that tells a certain win from a likely one picks S@A5.
ONE_MOVE_WIN = [
    *("Q@B4 S@B5", "Q@D4 R@A3", "Q@A1 R@E3", "Q@B2 R@B2", "Q@D3 S@D5", "Q@E4 R@B1", "Q@C3 R@B5", "Q@E5 R@D1"),
    *("Q@C3 R@E2", "Q@D4 S@E4", "S@C4", "R@C2", "S@C3", "S@D4", "S@D2", "S@D3", "S@D2", "S@E5", "S@A2", "S@C5"),
    *("R@C5", "S@A4", "R@B3", "S@E5", "S@E1", "S@D4", "S@C1", "S@A4"),
]


@pytest.mark.parametrize(
    "wins, games, low, high",
    [
        # worked in the other textbook form, (k + z²/2 ± z √(k(n − k)/n + z²/4)) / (n + z²), z = 1.95996:
        # 10/10: low = 10 / 13.84146 (the root is z²/2); high = 1
        (10, 10, 0.72247, 1.0),
        # 5/10: centre 1/2, half = 1.95996 · √(2.5 + 0.96037) / 13.84146 = 0.26341
        (5, 10, 0.23659, 0.76341),
        # 0/10: the mirror of 10/10
        (0, 10, 0.0, 0.27753),
        # 1/1: low = 1 / (1 + z²) = 1 / 4.84146
        (1, 1, 0.20655, 1.0),
        # 24/26 (the castle figure): centre 25.92073 / 29.84146 = 0.86861, half 3.28346 / 29.84146 = 0.11003
        (24, 26, 0.75858, 0.97864),
    ],
)
def test_wilson_interval_matches_hand_worked_values(wins, games, low, high):
    lo, hi = wilson(wins, games)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_interval_of_no_games_is_everything():
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile_interpolates_between_order_statistics():
    values = [5.0, 1.0, 3.0, 2.0, 4.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == pytest.approx(4.8)
    assert percentile(values, 100) == 5.0


def test_plain_uct_finds_the_one_move_win():
    game = hongkong.from_dict({"game": "hongkong", "first": 0, "moves": ONE_MOVE_WIN})
    assert game.to_move == 0 and len(game.legal_moves()) == 11
    winning = []
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.is_over and after.winner == 0:
            winning.append(move)
    assert winning == ["S@A5"]
    before = list(game.moves)
    for seed in range(4):
        assert PlainUCT(random.Random(seed)).choose(game, iterations=500) == "S@A5"
    assert list(game.moves) == before  # the game searched from is unchanged


def test_plain_uct_is_reproducible_with_an_iteration_budget_and_legal():
    game = CONFIGS["inner"].make(3)
    a = PlainUCT(random.Random(7)).choose(game, iterations=60)
    b = PlainUCT(random.Random(7)).choose(game, iterations=60)
    assert a == b and a in game.legal_moves()
    uct = PlainUCT(random.Random(7))
    uct.choose(game, iterations=60)
    assert uct.iterations == 60


def test_plain_uct_refuses_a_finished_game_and_a_missing_budget():
    game = hongkong.from_dict({"game": "hongkong", "first": 0, "moves": ONE_MOVE_WIN})
    with pytest.raises(ValueError, match="time"):
        PlainUCT(random.Random(0)).choose(game)
    game.play("S@A5")
    with pytest.raises(ValueError, match="over"):
        PlainUCT(random.Random(0)).choose(game, iterations=10)


def test_seeds_pair_the_games_and_swap_the_sides():
    ts = tasks(["hongkong", "inner"], ["easy"], [1.0, 4.0], 4, seed=5, baseline_games=2)
    assert ts == tasks(["hongkong", "inner"], ["easy"], [1.0, 4.0], 4, seed=5, baseline_games=2)
    assert len(ts) == 2 * (2 * 4 + 2)
    assert len({t.seed for t in ts}) == len(ts)  # every game has its own players' seed
    hk = [t for t in ts if t.config == "hongkong" and t.a == "easy" and t.factor == 1.0]
    assert [t.first for t in hk] == [0, 1, 0, 1] and {t.a_seat for t in hk} == {0}
    inner = [t for t in ts if t.config == "inner" and t.a == "easy" and t.factor == 4.0]
    assert [t.a_seat for t in inner] == [0, 1, 0, 1]  # emperor, dragon master, ...
    assert inner[0].setup_seed == inner[1].setup_seed != inner[2].setup_seed == inner[3].setup_seed
    assert tasks(["inner"], ["easy"], [1.0], 2, seed=6)[0].setup_seed != inner[0].setup_seed


def test_a_tiny_match_plays_and_counts():
    ts = tasks(["inner"], ["easy"], [1.0], 2, seed=1)
    results = [play(t) for t in ts]
    for t, r in zip(ts, results):
        assert r["task"] == t and r["winner"] in (0, 1)  # Hong has no draws
        a, b = len(r["times"]["a"]), len(r["times"]["b"])
        assert r["moves"] == a + b <= hong.board_named("inner").space_count  # the game may end sooner
        assert abs(a - b) <= 1  # without the lair the two sides alternate
        assert len(r["playouts"]) == len(r["times"]["b"])
    lines: list[str] = []
    numbers = report(results, out=lines.append)
    wins = [r["winner"] == r["task"].a_seat for r in results]
    assert numbers["rates"][("easy", 1.0, "inner", "emperor")] == (int(wins[0]), 1)
    assert numbers["rates"][("easy", 1.0, "inner", "dragon master")] == (int(wins[1]), 1)
    assert numbers["rates"][("easy", 1.0, "inner", "all")] == (sum(wins), 2)
    assert numbers["rates"][("easy", 1.0, "hong", "all")] == (sum(wins), 2)
    assert numbers["balance"] == {}
    assert any(line.startswith("inner") and "emperor" in line for line in lines)
