"""Benchmark render.replay: time and size of a full-length replay GIF, per game and board.

Run on demand (not part of the tests):

    python tests/bench/replay.py [--playouts 40]

For each setting the longest of ``--playouts`` seeded random games is replayed (the longest game is the worst
case for both time and size). Reported: moves, frames, wall and CPU seconds for the whole build (engine replay
+ one live board drawn per position + scaling + GIF encoding, as the bot runs it in its worker thread), of which
drawing the boards, the GIF size, and the frame size. Target: the longest game's GIF in at most 2 s. On a shared
machine wall time can be inflated by other work; CPU time is not.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import engine.hong as hong  # noqa: E402
import engine.hongkong as hk  # noqa: E402
from render.hong import render_board as render_hong  # noqa: E402
from render.hongkong import render_board as render_hk  # noqa: E402
from render.replay import DISCORD_LIMIT, build_gif, positions  # noqa: E402

NAMES = ("Emperor Player", "Dragon Master Player")
SETTINGS = [
    ("Hong Kong", hk, render_hk, {"first": 0}),
    ("Hong castle", hong, render_hong, {"board": "castle", "expansion": False, "seed": 1}),
    ("Hong castle + lair", hong, render_hong, {"board": "castle", "expansion": True, "seed": 1}),
    ("Hong garden + lair", hong, render_hong, {"board": "garden", "expansion": True, "seed": 2}),
    ("Hong inner + lair", hong, render_hong, {"board": "inner", "expansion": True, "seed": 3}),
]


def longest_game(engine, options: dict, playouts: int) -> list[str]:
    best: list[str] = []
    for seed in range(playouts):
        game = engine.new_game(**options)
        rng = random.Random(seed)
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        if len(game.moves) > len(best):
            best = list(game.moves)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--playouts", type=int, default=40, help="random games per setting; the longest is replayed")
    args = ap.parse_args()
    print(
        f"{'game':20} {'moves':>5} {'frames':>6} {'wall s':>7} {'cpu s':>6} {'draw s':>7} {'GIF MB':>7} {'limit %':>7}  frame"
    )
    slowest = 0.0
    for title, engine, render, options in SETTINGS:
        moves = longest_game(engine, options, args.playouts)
        t, c = time.perf_counter(), time.process_time()
        replay = build_gif(engine.new_game(**options), moves, render, NAMES, final_text="Emperor Player wins")
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        t = time.perf_counter()
        for game, _, _ in positions(engine.new_game(**options), moves):
            render.image(game, NAMES)
        drawing = time.perf_counter() - t
        slowest = max(slowest, wall)
        print(
            f"{title:20} {len(moves):5} {replay.frames:6} {wall:7.2f} {cpu:6.2f} {drawing:7.2f} "
            f"{len(replay.gif) / 2**20:7.2f} {100 * len(replay.gif) / DISCORD_LIMIT:6.1f}%  {replay.width}x{replay.height}"
        )
    print(f"slowest build {slowest:.2f} s ({'meets' if slowest <= 2 else 'misses'} the ≤ 2 s target)")


if __name__ == "__main__":
    main()
