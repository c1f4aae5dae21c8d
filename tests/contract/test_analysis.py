"""Every game's post-game analysis (engine/ai/analysis.py, through the game's optional ``assess``): a finished game of
every challenge judged move by move — one judgement per move, each move's mover and the move as played, the better
move a legal one, chances in 0–1 ending on the result, the same analysis again for the same seed, and the graph of it
drawn by the game's palette. Budgets are tiny: the labels' quality is tests/engine/test_analysis.py's business."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine.ai.analysis import Analysis, analyse, can_analyse
from render.analysis import graph_png
from tests.contract.games import SETUPS, finished, ids, kind

TINY = 300  # node budget per position


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_a_finished_game_is_judged_move_by_move(setup):
    game = finished(setup, 1)
    if not can_analyse(setup.name):
        pytest.skip(f"{setup.name}'s computer does not assess positions")
    report = analyse(game.to_dict(), nodes=TINY, seed=1)
    assert report.kind == setup.name and len(report.plies) == len(game.moves)
    replay = game.copy()
    replay.truncate(0)
    for j, move in zip(report.plies, game.moves):
        assert (j.move, j.mover) == (move, replay.to_move)
        assert j.best in replay.legal_moves()
        assert 0.0 <= j.before <= 1.0 and 0.0 <= j.after <= 1.0
        replay.play(move)
    chances = report.chances()
    assert len(chances) == len(game.moves) + 1 and all(0.0 <= c <= 1.0 for c in chances)
    assert chances[-1] == (0.5 if game.winner is None else (1.0 if game.winner == 0 else 0.0))
    assert analyse(game.to_dict(), nodes=TINY, seed=1) == report
    assert Analysis.from_dict(report.to_dict()) == report
    png = graph_png(chances, ("Ann", "Ben"), kind(setup.name).render.palette, marks=report.turning_points())
    assert Image.open(io.BytesIO(png)).format == "PNG"
