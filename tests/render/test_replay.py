"""render.replay's own workings, on sample games: the positions and who moved, a resigned game's last frame, shrinking
to fit the byte budget and refusing past it, one frame for no moves, a damaged record, the start left alone, a plain
function refused. That every game's full replay has one frame per move plus the opening, each the live board, is
tested over every game in tests/contract/test_render.py."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageChops, ImageStat

import engine.hong as hong
import engine.hongkong as hk
from engine import IllegalMove
from engine.result import Ended
from render.common import PLAYER_COLOURS
from render.hongkong import PALETTE as HK_PALETTE
from render.hongkong import RENDERER as HK_RENDERER
from render.hongkong import board_image as hk_image
from render.hongkong import render_board as render_hk
from render.replay import CAPTION_H, ReplayTooLarge, build_gif, encode_gif, positions

NAMES = ("Ann", "Ben")


def full_game(engine, options: dict, seed: int) -> list[str]:
    game = engine.new_game(**options)
    rng = random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return list(game.moves)


@pytest.fixture(scope="module")
def hk_moves():
    return full_game(hk, {"first": 1}, 3)


@pytest.fixture(scope="module")
def hong_moves():
    return full_game(hong, {"board": "castle", "expansion": True, "seed": 5}, 3)


def frames(gif: bytes) -> list[tuple[Image.Image, int]]:
    """Every frame as RGB (composited as a viewer shows it) with its duration in ms."""
    im = Image.open(io.BytesIO(gif))
    assert im.format == "GIF"
    out = []
    for n in range(im.n_frames):
        im.seek(n)
        out.append((im.convert("RGB"), im.info["duration"]))
    return out


def looks_like(frame: Image.Image, png: bytes) -> float:
    """Mean absolute difference (0–255) between a GIF frame (without its caption) and a live board, downscaled."""
    board = Image.open(io.BytesIO(png)).convert("RGB")
    board = board.resize((frame.width, frame.height - CAPTION_H), Image.Resampling.BILINEAR)
    diff = ImageChops.difference(frame.crop((0, 0, frame.width, frame.height - CAPTION_H)), board)
    return sum(ImageStat.Stat(diff).mean) / 3


def test_positions_yield_the_mover_of_each_move(hong_moves):
    game = hong.new_game("castle", expansion=True, seed=5)
    steps = [(move, mover) for _, move, mover in positions(game, hong_moves)]
    assert steps[0] == (None, None)
    assert [m for m, _ in steps[1:]] == hong_moves
    replayed = hong.new_game("castle", expansion=True, seed=5)
    for move, mover in steps[1:]:
        assert replayed.to_move == mover
        replayed.play(move)
    assert game.to_dict() == replayed.to_dict()


def test_the_last_frame_of_a_resigned_game_shows_the_result(hk_moves):
    moves = hk_moves[:10]  # Ben moved first, so after 10 moves it is Ben's turn; Ben resigns
    ended = Ended(0, "resigned")
    replay = build_gif(hk.new_game(first=1), moves, HK_RENDERER, NAMES, ended=ended)
    last = frames(replay.gif)[-1][0]
    game = hk.new_game(first=1)
    *_, (final, _, _) = positions(game, moves)
    assert final.to_move == 1  # the board alone would say "Ben to move", in orange
    assert looks_like(last, render_hk(final, NAMES, ended=ended)) < 6
    assert looks_like(last, render_hk(final, NAMES)) > looks_like(last, render_hk(final, NAMES, ended=ended)) + 0.5
    band = last.getpixel((4, 4))  # the status band: Ann's blue ("Ann wins")
    assert all(abs(a - b) <= 12 for a, b in zip(band, PLAYER_COLOURS[0])), band
    assert replay.frames == len(moves) + 1


def test_too_large_shrinks_then_refuses(hk_moves):
    moves = hk_moves[:12]
    full = build_gif(hk.new_game(first=1), moves, HK_RENDERER, NAMES)
    smaller = build_gif(hk.new_game(first=1), moves, HK_RENDERER, NAMES, max_bytes=len(full.gif) - 1)
    assert smaller.width < full.width and len(smaller.gif) < len(full.gif)
    assert len(frames(smaller.gif)) == 13
    with pytest.raises(ReplayTooLarge):
        build_gif(hk.new_game(first=1), moves, HK_RENDERER, NAMES, max_bytes=2000)


def test_a_game_without_moves_is_one_frame():
    replay = build_gif(hk.new_game(first=0), [], HK_RENDERER, NAMES)
    assert replay.frames == 1
    assert Image.open(io.BytesIO(replay.gif)).n_frames == 1


def test_a_damaged_record_raises_illegal_move():
    with pytest.raises(IllegalMove):
        build_gif(hk.new_game(first=0), ["S@A1", "S@A1"], HK_RENDERER, NAMES)


def test_encode_checks_lengths():
    board = hk_image(hk.new_game(first=0), NAMES)
    with pytest.raises(ValueError):
        encode_gif([(board, None)], ["S@A1"], NAMES, HK_PALETTE)


def test_build_gif_leaves_the_start_position_alone(hk_moves):
    start = hk.new_game(first=1)
    build_gif(start, hk_moves[:6], HK_RENDERER, NAMES)
    assert start.moves == [] and not any(start.stacks)


def test_a_drawing_function_is_no_renderer():
    """The type checker refuses a plain function where a render.contract.Renderer goes; so does build_gif."""
    with pytest.raises(TypeError, match="is no renderer"):
        build_gif(hk.new_game(first=0), [], render_hk, NAMES)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="is no renderer"):
        build_gif(hk.new_game(first=0), [], lambda game, names, ended=None: b"", NAMES)  # type: ignore[arg-type]
