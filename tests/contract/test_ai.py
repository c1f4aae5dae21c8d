"""Every game's computer opponent (engine/ai/<NAME>.py, an engine.contract.Opponent) through engine.ai: settings for
every level, only legal moves, the game left as it was, the same move for the same seed (in this process or a spawned
one), no move once over, and the wall-clock cap. Budgets are tiny: strength is the benchmarks' business
(``tests/bench/ai_match.py``), and each game's own tests (tests/engine/test_ai.py) check its model."""

from __future__ import annotations

import itertools
import multiprocessing
import pickle
import random
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

import engine.ai
from engine import IllegalMove, registry
from engine.ai import LEVELS, SETTINGS, choose_move, choose_move_from_dict
from tests.contract.games import DEFAULTS, GAMES, SETUPS, finished, fresh, ids, midgame, play_on

TINY = 40  # node budget for the many-moves tests


def snapshot(game) -> tuple:
    return game.to_dict(), game.to_move, game.pending, list(game.legal_moves())


@pytest.mark.parametrize("name", GAMES)
def test_every_level_has_its_settings(name):
    assert LEVELS == ("easy", "medium", "hard")
    assert set(SETTINGS[name]) == set(LEVELS)
    for settings in SETTINGS[name].values():
        assert set(settings) == {"nodes", "depth", "naive", "seconds"}
        assert settings["nodes"] >= 0 and settings["depth"] >= 1 and settings["seconds"] > 0
    assert callable(engine.ai._model(registry.find(name)).choose)


def play_out(game, levels: tuple[str, str], seed: int) -> None:
    """The computer plays ``game`` to its end, seat 0 at ``levels[0]``, seat 1 at ``levels[1]``: every move one of
    ``legal_moves()``, the game untouched until it is played."""
    while not game.is_over:
        before = snapshot(game)
        move = choose_move(game, levels[game.to_move], seed=seed, budget=TINY)
        assert move in game.legal_moves(), (move, game.moves)
        assert snapshot(game) == before
        game.play(move)


#: Every pair of different levels, both ways round, and two equal ones.
PAIRS = [pair for pair in itertools.permutations(LEVELS, 2)] + [("medium", "medium")]


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("levels", PAIRS, ids=["-".join(pair) for pair in PAIRS])
def test_the_computer_plays_only_legal_moves_and_changes_nothing(setup, levels):
    for seed in range(2):
        play_out(fresh(setup, seed), levels, seed)


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
def test_the_computer_plays_legal_moves_after_random_openings(setup):
    for seed in range(6):
        rng = random.Random(seed)
        game = play_on(fresh(setup, seed), rng, rng.randrange(4, 30))
        if not game.is_over:
            play_out(game, (LEVELS[seed % 3], LEVELS[(seed + 1) % 3]), seed)


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_move(setup, level):
    game = midgame(setup, 21)
    before = snapshot(game)
    first = choose_move(game, level, seed=99, budget=400)
    assert [choose_move(game, level, seed=99, budget=400) for _ in range(2)] == [first, first]
    assert choose_move(midgame(setup, 21), level, seed=99, budget=400) == first  # a fresh but equal game too
    assert choose_move_from_dict(setup.name, game.to_dict(), level, 99, budget=400) == first
    assert choose_move(pickle.loads(pickle.dumps(game)), level, seed=99, budget=400) == first
    assert snapshot(game) == before


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
def test_a_finished_game_has_no_move(setup):
    game = finished(setup, 3)
    for level in LEVELS:
        with pytest.raises(IllegalMove, match="over"):
            choose_move(game, level, budget=TINY)


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_the_wall_clock_cap_stops_a_huge_budget(setup):
    game = midgame(setup, 4)
    started = time.perf_counter()
    move = choose_move(game, "hard", seed=1, budget=10**9, seconds=0.2)
    assert time.perf_counter() - started < 2.0
    assert move in game.legal_moves()


def test_unknown_level_and_game_are_refused():
    game = fresh(DEFAULTS[0])
    with pytest.raises(ValueError, match="level"):
        choose_move(game, "grandmaster")
    with pytest.raises(ValueError, match=f"unknown game 'chess': the games are {', '.join(GAMES)}$"):
        choose_move_from_dict("chess", {}, "easy")
    with pytest.raises(TypeError):
        choose_move("not a game", "easy")  # type: ignore[arg-type]


def test_choose_move_pickles_and_runs_in_a_spawned_process():
    """The bot's computer runs in worker processes: the functions pickle by reference, and a spawned process
    (nothing inherited) chooses the same moves from the games' saved states."""
    assert pickle.loads(pickle.dumps(choose_move)) is choose_move
    assert pickle.loads(pickle.dumps(choose_move_from_dict)) is choose_move_from_dict
    games = {setup.name: midgame(setup, 5) for setup in DEFAULTS}
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        far = {
            name: pool.submit(choose_move_from_dict, name, game.to_dict(), level, 7, budget=TINY)
            for (name, game), level in zip(games.items(), LEVELS * len(GAMES))
        }
        moves = {name: future.result(timeout=60) for name, future in far.items()}
    for (name, game), level in zip(games.items(), LEVELS * len(GAMES)):
        assert moves[name] == choose_move(game, level, 7, budget=TINY) and moves[name] in game.legal_moves()
