"""Benchmark render.hong: median render time and PNG size per board and stage, against the chess anchor
(python-chess SVG → cairosvg PNG) measured in the same process.

Run on demand (not part of the tests):

    python tests/bench/render_hong.py [--repeat 30] [--save DIR]

Positions are reproducible: seed 1, random legal moves from random.Random(board name). Stages: start, mid-game,
end (board full), and for the base game "decided early" (the dragon master reached the threshold with spaces left;
a greedy dragon master finds one), for the expansion a pending summon; the castle's mid-game also resigned, timed out
and aborted. The first render of each position warms the caches and is not counted; the last lines draw whole
castle games position by position as the bot does (caches cold for each new tile and line of text). CPU time is shown next to wall
time: on a shared machine the wall time can be inflated by other work. With ``chess`` and ``cairosvg`` installed the
anchor is timed before and after, and the slowest median is printed as a fraction of it (target ≤ 0.1×).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from PIL import Image  # noqa: E402
from render_anchor import anchor_ms, as_played, first_render, print_ratio  # noqa: E402

from engine.hong import new_game  # noqa: E402
from engine.result import Ended  # noqa: E402
from render.hong import render_board  # noqa: E402

NAMES = ("Emperor Player", "Dragon Master Player")
WORLD_NAMES = ("李小龙", "محمد 🐉")


def positions(board: str, expansion: bool):
    """(stage, game, ended) for one board: start, mid, a pending summon or a game decided early, end."""
    rng = random.Random(board)
    g = new_game(board, seed=1, expansion=expansion)
    yield "start", g.copy(), None
    half = g.board.space_count // 2
    while len(g.empty_squares()) > half:
        g.play(rng.choice(g.legal_moves()))
    yield "mid", g.copy(), None
    if board == "castle":
        for ended in (Ended(1, "resigned"), Ended(0, "timeout"), Ended(None, "aborted")):
            yield ended.reason.value, g.copy(), ended
    if expansion:
        summon = g.copy()
        while summon.pending is None and not summon.is_over:
            summon.play(rng.choice(summon.legal_moves()))
        if summon.pending is not None:
            yield "summon", summon, None
    else:
        yield "early", decided_early(board), None
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    yield "end", g.copy(), None


def decided_early(board: str):
    """A base game the dragon master won with spaces left: he plays a move that makes a Hong when he can."""
    for seed in range(200):
        rng = random.Random(seed)
        g = new_game(board, seed=seed)
        while not g.is_over:
            moves = g.legal_moves()
            if g.to_move == 1:
                count = g.hong_count()
                better = [m for m in rng.sample(moves, min(len(moves), 40)) if _after(g, m) > count]
                moves = better or moves
            g.play(rng.choice(moves))
        if g.outcome.spaces_left:
            return g
    raise RuntimeError(f"no game on {board} was decided early")


def _after(g, move: str) -> int:
    g.play(move)
    count = g.hong_count()
    g.pop()
    return count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30, help="renders per position (default 30)")
    ap.add_argument("--save", type=Path, help="directory to write hong_<board>_<stage>.png into")
    args = ap.parse_args()
    setup = "from engine.hong import new_game\ngame = new_game('castle', seed=1)\ngame.play('E5H')"
    for names in (NAMES, WORLD_NAMES):
        print(f"first render in a fresh interpreter, names {names}: {first_render('hong', setup, names):.0f} ms")
    before = anchor_ms()
    medians = {}
    print(f"{'board':8} {'lair':5} {'stage':8} {'median ms':>10} {'cpu ms':>8} {'max ms':>8} {'PNG KB':>8}  size")
    for expansion in (False, True):
        for board in ("castle", "garden", "inner"):
            for stage, game, ended in positions(board, expansion):
                png = render_board(game, NAMES, ended=ended)  # warm-up
                times, cpu = [], []
                for _ in range(args.repeat):
                    t, c = time.perf_counter(), time.process_time()
                    png = render_board(game, NAMES, ended=ended)
                    times.append((time.perf_counter() - t) * 1000)
                    cpu.append((time.process_time() - c) * 1000)
                w, h = Image.open(io.BytesIO(png)).size
                medians[f"{board} {'lair' if expansion else 'base'} {stage}"] = statistics.median(times)
                print(
                    f"{board:8} {'on' if expansion else 'off':5} {stage:8} {statistics.median(times):10.1f} "
                    f"{statistics.median(cpu):8.1f} {max(times):8.1f} {len(png) / 1000:8.1f}  {w}x{h}"
                )
                if args.save:
                    (args.save / f"hong_{board}_{'lair' if expansion else 'base'}_{stage}.png").write_bytes(png)
    print_ratio(medians, before, anchor_ms())
    for lair in (False, True):
        print(
            f"castle, lair {'on' if lair else 'off'}:",
            as_played(lambda seed: new_game("castle", seed=seed, expansion=lair), render_board),
        )


if __name__ == "__main__":
    main()
