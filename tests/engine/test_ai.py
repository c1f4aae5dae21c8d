"""Tests for each game's computer opponent beyond the contract: its fast internal model follows the engine, its
evaluation is exact, ties are broken by the seed, a Hong summon is answered, and it sees an obvious win. What every
game's opponent must do (legal moves only, reproducible, side-effect free, settings per level, the wall-clock cap,
a spawned process) is tested over every game in tests/contract/test_ai.py. Budgets are tiny; strength is measured by
``tests/bench/ai_match.py``, not here."""

from __future__ import annotations

import random

import pytest

from engine import hong, hongkong
from engine.ai import LEVELS, choose_move
from engine.ai import hong as hong_ai
from engine.ai import hongkong as hongkong_ai


def state(game) -> tuple:
    """Everything observable about a game, to check that choosing a move changes nothing."""
    d = game.to_dict()
    if isinstance(game, hongkong.HongKongGame):
        return d, [list(s) for s in game.stacks], [dict(r) for r in game.remaining], game.to_move
    return d, game.rows(), dict(game.lair), game.pending, game.to_move


def test_hongkong_model_generates_exactly_the_legal_turns():
    rng = random.Random(11)
    for seed in range(8):
        game = hongkong.new_game(seed % 2)
        while not game.is_over:
            model = hongkong_ai.Model(game, hongkong_ai.Weights())
            turns = set()
            for m in model.all_moves():
                model.play(m)
                if model.mid:
                    turns.update(hongkong_ai.turn_text([m, f]) for f in model.all_moves())
                else:
                    turns.add(hongkong_ai.turn_text([m]))
                model.undo()
            assert turns == set(game.legal_moves())
            game.play(rng.choice(game.legal_moves()))
            model = hongkong_ai.Model(game, hongkong_ai.Weights())
            assert model.terminal() == game.is_over


@pytest.mark.parametrize("board", ["castle", "garden", "inner"])
def test_hong_model_follows_the_engine_with_the_lair(board):
    rng = random.Random(12)
    game = hong.new_game(board, expansion=True, seed=12)
    model = hong_ai.Model(game, hong_ai.Weights())
    while not game.is_over:
        assert sorted(model.notation(m) for m in model.all_moves()) == sorted(game.legal_moves())
        assert model.mover == game.to_move
        move = rng.choice(model.all_moves())
        model.play(move)
        game.play(model.notation(move))
        assert "".join(model.grid) == "".join(game.rows())
    assert model.terminal() and model.hong_count() == game.hong_count()


def test_line_statistics_are_exact():
    """Mean and variance of a line's Hongs under a random completion, against enumeration."""
    import itertools

    rng = random.Random(13)
    for _ in range(60):
        line = "".join(rng.choice("01.#") for _ in range(rng.randint(1, 9)))
        holes = [i for i, ch in enumerate(line) if ch == "."]
        counts = []
        for bits in itertools.product("01", repeat=len(holes)):
            filled = list(line)
            for i, b in zip(holes, bits):
                filled[i] = b
            counts.append(len(hong_ai.line_spans("".join(filled))))
        mean = sum(counts) / len(counts)
        var = sum(c * c for c in counts) / len(counts) - mean * mean
        got = hong_ai.line_stats(line)
        assert got == pytest.approx((mean, var), abs=1e-9), line


# --- ties -----------------------------------------------------------------------------------------


def test_the_seed_breaks_ties():
    # On an empty board many openings are equally good: different seeds pick different ones.
    game = hongkong.new_game(0)
    assert len({choose_move(game, "easy", seed=s) for s in range(12)}) > 1
    game = hong.new_game("inner", seed=1)
    assert len({choose_move(game, "easy", seed=s) for s in range(12)}) > 1


# --- the expansion: a pending summon ---------------------------------------------------------------


def _pending_summon(seed: int):
    rng = random.Random(seed)
    game = hong.new_game("inner", expansion=True, seed=seed)
    while game.pending is None:
        game.play(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("level", LEVELS)
def test_a_pending_summon_is_answered_with_a_dragon_action(level):
    for seed in range(3):
        game = _pending_summon(seed)
        before = state(game)
        move = choose_move(game, level, seed=seed, budget=300)
        assert move.startswith("D") and move in game.legal_moves()
        assert state(game) == before
        game.play(move)


# --- obvious wins --------------------------------------------------------------------------------

#: Hong Kong, found by seeded random stacking: player 1 has one standard block left and player 0 none,
#: so this is the game's last turn; player 0 leads by one building and holds the centre, so the only
#: winning turn is the capture S@D1 (D1 is player 0's, next to player 1's tall C1); any other loses.
HK_LAST_TURN = {
    "game": "hongkong",
    "first": 0,
    "moves": [
        "Q@B1 S@A5",
        "Q@E1 S@E1",
        "R@B1",
        "Q@E1 S@E1",
        "R@A5",
        "S@E1",
        "Q@B3 S@C1",
        "Q@E4 S@C4",
        "Q@B3 R@B3",
        "Q@E4 S@C4",
        "Q@B4 R@D2",
        "Q@E4 S@A4",
        "S@C1",
        "S@E4",
        "Q@C1 S@B4",
        "R@E3",
        "S@B4",
        "S@C4",
        "S@B4",
        "S@C4",
        "R@C1",
        "S@D4",
        "S@C3",
        "R@C4",
        "S@B4",
        "R@A4",
        "S@C3",
        "R@E4",
        "S@C3",
        "R@D4",
        "S@C3",
        "S@D5",
        "S@C3",
        "S@D5",
        "S@D3",
        "S@D5",
        "S@D3",
        "S@D5",
        "S@D3",
        "S@D5",
        "S@D3",
        "S@B5",
        "S@D3",
        "S@B5",
        "S@A1",
        "S@C2",
        "S@D1",
        "S@C2",
        "S@A1",
    ],
}


def test_hongkong_position_has_one_winning_turn():
    game = hongkong.from_dict(HK_LAST_TURN)
    winners = {}
    for turn in game.legal_moves():
        trial = game.copy()
        trial.play(turn)
        assert trial.is_over
        winners[turn] = trial.winner
    assert [t for t, w in winners.items() if w == game.to_move] == ["S@D1"]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_hongkong_computer_captures_to_win_on_the_last_turn(level):
    game = hongkong.from_dict(HK_LAST_TURN)
    for seed in range(3):
        assert choose_move(game, level, seed=seed) == "S@D1"


#: Hong on the inner board (seed 46): three spaces left, the dragon master to move with 10 Hongs of the
#: 11 needed; B3H completes the eleventh, and it is the only placement after which he cannot lose.
HONG_SEED = 46
HONG_MOVES = [
    "G1V",
    "B5V",
    "D1V",
    "B7V",
    "C7V",
    "E3V",
    "F6H",
    "G2V",
    "G7H",
    "D7H",
    "F1H",
    "B1V",
    "D2H",
    "D5H",
    "C2H",
    "E6V",
    "A1V",
    "A3H",
    "E5V",
    "A4H",
    "F5V",
    "C4V",
    "E7V",
    "E2V",
    "A5V",
    "B6H",
    "G4V",
    "C3V",
    "G6H",
    "D6V",
    "F2H",
    "D4H",
    "C6V",
    "A7H",
    "C5V",
    "A6V",
    "B2V",
    "F4V",
    "F3V",
    "D3V",
    "G5H",
    "B4V",
    "G3H",
]


def _hong_position():
    game = hong.new_game("inner", seed=HONG_SEED)
    for move in HONG_MOVES:
        game.play(move)
    return game


def _winner_with_best_play(game) -> int:
    if game.is_over:
        return game.winner
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        if _winner_with_best_play(trial) == game.to_move:
            return game.to_move
    return 1 - game.to_move


def test_hong_position_has_one_winning_placement():
    game = _hong_position()
    assert game.to_move == hong.DRAGON_MASTER and game.hong_count() == game.threshold - 1
    wins = []
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        if _winner_with_best_play(trial) == hong.DRAGON_MASTER:
            wins.append(move)
    assert wins == ["B3H"]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_hong_computer_completes_the_winning_hong(level):
    game = _hong_position()
    for seed in range(3):
        assert choose_move(game, level, seed=seed) == "B3H"


#: Hong on the inner board (seed 11): four spaces left, the emperor to move; E4H is the only placement
#: after which the dragon master cannot reach the threshold, whatever he does.
HONG_BLOCK_SEED = 11
HONG_BLOCK_MOVES = [
    "C5V",
    "E6V",
    "E5V",
    "D5V",
    "D6V",
    "D7V",
    "F2H",
    "E2V",
    "A7V",
    "F6H",
    "G2V",
    "G1H",
    "G6V",
    "C4H",
    "D2H",
    "C1V",
    "D4H",
    "C7V",
    "B6H",
    "F5H",
    "B1H",
    "G5H",
    "F3V",
    "B4H",
    "F7V",
    "E7V",
    "B2H",
    "A1H",
    "B7V",
    "F1H",
    "E1V",
    "D1V",
    "B3H",
    "C3V",
    "G4V",
    "A2H",
    "F4H",
    "A4H",
    "G7H",
    "G3V",
    "A3V",
    "C6H",
]


def _hong_block_position():
    game = hong.new_game("inner", seed=HONG_BLOCK_SEED)
    for move in HONG_BLOCK_MOVES:
        game.play(move)
    return game


def test_hong_block_position_has_one_saving_placement():
    game = _hong_block_position()
    assert game.to_move == hong.EMPEROR
    saving = []
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        if _winner_with_best_play(trial) == hong.EMPEROR:
            saving.append(move)
    assert saving == ["E4H"]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_hong_emperor_finds_the_only_saving_placement(level):
    game = _hong_block_position()
    for seed in range(3):
        assert choose_move(game, level, seed=seed) == "E4H"


def test_a_search_past_its_deadline_cuts_even_its_first_depth():
    """The first depth is completed whatever the node budget, but not past the deadline (plus a short grace): a
    starved worker still answers in time, with the best root move searched so far (here, the first in the order)."""
    import time

    from engine.ai.search import FIRST_DEPTH_GRACE, iterative_deepening

    game = hongkong.new_game(0)
    for move in ("S@B2", "S@D4", "Q@C2 S@C3"):
        game.play(move)

    def search(deadline):
        model = hongkong_ai.Model(game, hongkong_ai.Weights())
        roots = [m for _key, m, _q in sorted(model.keyed_moves(), key=lambda t: -t[0])]
        return roots, iterative_deepening(model, roots, 10**9, 2, deadline=deadline)

    roots, (best, _value, _line, done) = search(time.perf_counter() - 10 * FIRST_DEPTH_GRACE)
    assert done == 0 and best == roots[0]
    _roots, (_best, _value, _line, done) = search(None)
    assert done == 2
