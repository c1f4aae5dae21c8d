"""Benchmark the computer's reply time as a player waits for it: from the bot asking its worker pool for a move
(:meth:`bot.interface.computer_pool.Thinker.choose`, as the play feature does) to the move coming back, at a level,
on a busy host.

Run on demand (not part of the tests):

    .venv/bin/python tests/bench/computer_time.py [--level hard] [--game hongkong|hong|both] [--burners 2]
                                                  [--games 1] [--moves 12] [--workers 1]

It starts ``--burners`` CPU burners (busy loops at the bot's own priority, standing for the rest of a shared host:
other bots, a build, a neighbour's tests), then plays ``--games`` games at once against the computer through one
pool of ``--workers`` worker processes (the bot's default on 2 cores is one), the person answering each reply at
once with a random legal move. Every reply is timed in wall time from the request to the answer, the wait for a
free worker included; it prints each game kind's count, median, 90th percentile and worst reply, the share within
README's promise (:data:`PROMISE` seconds), and the load average before and after (``os.getloadavg``).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from bot.interface.computer_pool import Thinker  # noqa: E402
from engine import registry  # noqa: E402

#: README's promise: the computer answers each turn "within a couple of seconds".
PROMISE = 2.5
SETUPS = {"hongkong": {"first": 1}, "hong": {"board": "castle", "expansion": True}}


def burn() -> None:
    """A CPU burner: a busy loop until killed."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


async def one_game(thinker: Thinker, kind: str, level: str, moves: int, seed: int, times: list[float]) -> None:
    """A game of ``kind`` where the computer (seat 0, moving first) answers a random player; each of its replies
    timed into ``times``."""
    rng = random.Random(seed)
    game = registry.find(kind).new_game(**{**SETUPS[kind], **({"seed": seed} if kind == "hong" else {})})
    while not game.is_over:
        if game.to_move == 0:
            started = time.monotonic()
            move = await thinker.choose(kind, game.to_dict(), level, seed + len(game.moves))
            times.append(time.monotonic() - started)
            game.play(move)
            if len(times) >= moves:
                return
        else:
            game.play(rng.choice(game.legal_moves()))


def summary(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    within = sum(t <= PROMISE for t in times) / len(times)
    return (
        f"  {label:9s} {len(times):3d} replies  median {statistics.median(times):5.2f} s  p90 {p90:5.2f} s  "
        f"worst {max(times):5.2f} s  within {PROMISE:g} s: {within:6.1%}"
    )


async def main(args: argparse.Namespace) -> None:
    kinds = ["hongkong", "hong"] if args.game == "both" else [args.game]
    thinker = Thinker(args.workers)
    await thinker.warm_up()
    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(args.burners)]
    for b in burners:
        b.start()
    time.sleep(3)  # let the load settle
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)", flush=True)
    print(
        f"== {args.level}, {args.games} game(s) at once per kind, {args.workers} worker(s), {args.burners} burner(s)",
        flush=True,
    )
    try:
        for kind in kinds:
            per_game: list[list[float]] = [[] for _ in range(args.games)]
            await asyncio.gather(
                *(one_game(thinker, kind, args.level, args.moves, 100 + g, per_game[g]) for g in range(args.games))
            )
            print(summary(kind, [t for times in per_game for t in times]), flush=True)
    finally:
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        for b in burners:
            b.kill()
        thinker.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--game", default="both", choices=("hongkong", "hong", "both"))
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--workers", type=int, default=1)
    asyncio.run(main(parser.parse_args()))
