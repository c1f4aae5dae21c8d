"""The computer opponent's process pool (bot.interface.computer_pool.Thinker): real worker processes, no mocks."""

from __future__ import annotations

import os
import signal

import pytest

import engine.hong as hong
import engine.hongkong as hongkong
from bot.interface.computer_pool import Thinker

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def thinker():
    t = Thinker()
    yield t
    t.close()


async def test_a_move_from_the_worker_is_legal_for_both_games(thinker):
    game = hongkong.new_game(first=1)
    move = await thinker.choose("hongkong", game.to_dict(), "easy", 7)
    assert move in game.legal_moves()
    board = hong.new_game("inner", seed=3, expansion=True)
    move = await thinker.choose("hong", board.to_dict(), "medium", 7)
    assert move in board.legal_moves()


async def test_the_same_seed_gives_the_same_move_across_processes(thinker):
    game = hongkong.new_game(first=0)
    for turn in ("S@B2", "S@D4", "R@C2"):
        game.play(turn)
    first = await thinker.choose("hongkong", game.to_dict(), "medium", 11)
    thinker.close()  # a new worker process
    assert await thinker.choose("hongkong", game.to_dict(), "medium", 11) == first


async def test_a_killed_worker_is_replaced_and_the_move_still_comes(thinker):
    await thinker.warm_up()
    pool = thinker._pool
    (pid,) = list(pool._processes)
    os.kill(pid, signal.SIGKILL)
    game = hongkong.new_game(first=0)
    move = await thinker.choose("hongkong", game.to_dict(), "easy", 1)
    assert move in game.legal_moves()
    assert thinker._pool is not pool  # a fresh pool
    assert pid not in thinker._pool._processes


async def test_a_bad_level_is_a_value_error_not_a_broken_pool(thinker):
    with pytest.raises(ValueError):
        await thinker.choose("hongkong", hongkong.new_game().to_dict(), "grandmaster", 1)
    game = hongkong.new_game()
    assert await thinker.choose("hongkong", game.to_dict(), "easy", 1) in game.legal_moves()


async def test_a_reply_whose_time_is_spent_still_comes_and_is_legal(thinker):
    """The reply's deadline is set when it is asked for (``until``, wall time): one that waited for a busy worker has
    less time left, none at all here, and still gets a legal move (the search's first depth, cut short if it must)."""
    import time

    game = hong.new_game("castle", seed=5, expansion=True)
    move = await thinker.choose("hong", game.to_dict(), "hard", 3, until=time.time() - 60)
    assert move in game.legal_moves()


def test_the_time_left_is_the_deadline_within_the_levels_own_cap(monkeypatch):
    from bot.interface import computer_pool
    from engine.ai import SETTINGS

    monkeypatch.setattr(computer_pool.time, "time", lambda: 1000.0)  # (a clock that stands still)
    time_left = computer_pool.time_left
    assert time_left(None, "hongkong", "hard", SETTINGS) is None
    assert time_left(995.0, "hongkong", "hard", SETTINGS) == 0.0
    assert time_left(4600.0, "hongkong", "hard", SETTINGS) == SETTINGS["hongkong"]["hard"]["seconds"]
    assert time_left(1001.25, "hong", "hard", SETTINGS) == 1.25
