"""Benchmark render.hong: median render time and PNG size per board at start, mid-game and end.

Run on demand (not part of the tests):

    python tests/bench/render_hong.py [--repeat 30]

Positions are reproducible: seed 1, random legal moves from random.Random(board name). The first render
of each position warms the sprite cache and is not counted. CPU time is shown next to wall time: on a
shared machine the wall time can be inflated by other work.
"""
from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from PIL import Image  # noqa: E402

from engine.hong import new_game  # noqa: E402
from render.hong import render_board  # noqa: E402

NAMES = ("Emperor Player", "Dragon Master Player")


def positions(board: str, expansion: bool):
    rng = random.Random(board)
    g = new_game(board, seed=1, expansion=expansion)
    yield "start", g.copy()
    half = g.board.space_count // 2
    while len(g.empty_squares()) > half:
        g.play(rng.choice(g.legal_moves()))
    yield "mid", g.copy()
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    yield "end", g.copy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30, help="renders per position (default 30)")
    args = ap.parse_args()
    print(f"{'board':8} {'lair':5} {'stage':6} {'median ms':>10} {'cpu ms':>8} {'max ms':>8} {'PNG kB':>8}  size")
    for expansion in (False, True):
        for board in ("castle", "garden", "inner"):
            for stage, game in positions(board, expansion):
                png = render_board(game, NAMES)  # warm-up
                times, cpu = [], []
                for _ in range(args.repeat):
                    t, c = time.perf_counter(), time.process_time()
                    png = render_board(game, NAMES)
                    times.append((time.perf_counter() - t) * 1000)
                    cpu.append((time.process_time() - c) * 1000)
                w, h = Image.open(io.BytesIO(png)).size
                print(f"{board:8} {'on' if expansion else 'off':5} {stage:6} {statistics.median(times):10.1f} "
                      f"{statistics.median(cpu):8.1f} "
                      f"{max(times):8.1f} {len(png) / 1024:8.1f}  {w}x{h}")


if __name__ == "__main__":
    main()
