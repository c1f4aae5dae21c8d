"""Benchmark the Hong Kong board renderer: median and 95th-percentile render time, CPU time and PNG size, per stage,
against the chess anchor (python-chess SVG → cairosvg PNG) measured in the same process.

Run on demand (not part of the tests)::

    python tests/bench/render_hongkong.py [--runs 50] [--save /tmp]

Stages: an opening (3 turns), a busy mid-game (roofs, 5-piece buildings, quick blocks; seeded random legal turns
that favour building up), the finished game, the mid-game resigned, timed out and aborted, and a first render in a
fresh interpreter (fonts opened) with Latin names and with Chinese, Arabic and emoji names, and whole games drawn
position by position as the bot draws them (caches cold for each new building and line of text). ``--save DIR`` also
writes each stage's PNG there, to look at. With ``chess`` and ``cairosvg`` installed the anchor is timed before and
after, and the slowest median is printed as a fraction of it (target ≤ 0.1×).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from render_anchor import anchor_ms, as_played, first_render, print_ratio  # noqa: E402

from engine.hongkong import HongKongGame, new_game, parse_square  # noqa: E402
from engine.result import Ended  # noqa: E402
from render.hongkong import render_board  # noqa: E402

NAMES = ("Ann", "Benedict the Builder")
WORLD_NAMES = ("李小龙", "محمد 🐉")


def builder_turn(game: HongKongGame, rng: random.Random) -> str:
    """A random legal turn, weighted towards building on existing buildings, roofs and quick blocks."""
    weighted = []
    for move in game.legal_moves():
        weight = 1.0 if " " not in move else 0.03  # double moves outnumber single ones about 20 to 1
        for placement in move.split():
            plot = parse_square(placement[2:])
            weight *= 1 + 3 * len(game.stacks[plot])
            if placement[0] == "R":
                weight *= 0.2 + 0.4 * len(game.stacks[plot])
        weighted.append((move, weight))
    moves, weights = zip(*weighted)
    return rng.choices(moves, weights)[0]


def opening() -> HongKongGame:
    game = new_game(first=0)
    for turn in ("S@B2", "S@C3", "Q@B2 S@B3"):
        game.play(turn)
    return game


def mid_game(seed: int = 7, turns: int = 26) -> HongKongGame:
    rng = random.Random(seed)
    game = new_game(first=0)
    while len(game.moves) < turns and not game.is_over:
        game.play(builder_turn(game, rng))
    return game


def final(seed: int = 7) -> HongKongGame:
    rng = random.Random(seed)
    game = new_game(first=0)
    while not game.is_over:
        game.play(builder_turn(game, rng))
    return game


def measure(game: HongKongGame, runs: int, ended: Ended | None = None) -> tuple[float, float, float, int]:
    """Median and 95th-percentile wall time in ms, median CPU time in ms, and PNG size in bytes.

    CPU time is what one render costs; wall time also counts waiting for a core on a busy machine.
    """
    render_board(game, NAMES, ended=ended)  # warm the caches of this position's pieces and text
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        png = render_board(game, NAMES, ended=ended)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    wall.sort()
    return statistics.median(wall), wall[min(len(wall) - 1, int(0.95 * len(wall)))], statistics.median(cpu), len(png)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--save", type=Path, help="directory to write hk_<stage>.png into")
    args = parser.parse_args()
    setup = "from engine.hongkong import new_game\ngame = new_game(first=0)\ngame.play('S@B2')"
    for names in (NAMES, WORLD_NAMES):
        print(f"first render in a fresh interpreter, names {names}: {first_render('hongkong', setup, names):.0f} ms")
    before = anchor_ms()
    stages = [
        ("opening", opening(), None),
        ("mid", mid_game(), None),
        ("final", final(), None),
        ("resigned", mid_game(), Ended(1, "resigned")),
        ("timeout", mid_game(), Ended(0, "timeout")),
        ("aborted", mid_game(), Ended(None, "aborted")),
    ]
    medians = {}
    for label, game, ended in stages:
        median, p95, cpu, size = measure(game, args.runs, ended)
        medians[label] = median
        print(
            f"{label:8} turns={len(game.moves):2}  median {median:5.1f} ms  p95 {p95:5.1f} ms  "
            f"cpu median {cpu:5.1f} ms  png {size / 1000:5.1f} KB"
        )
        if args.save:
            (args.save / f"hk_{label}.png").write_bytes(render_board(game, NAMES, ended=ended))
    print_ratio(medians, before, anchor_ms())
    print(as_played(lambda seed: new_game(first=seed % 2), render_board))


if __name__ == "__main__":
    main()
