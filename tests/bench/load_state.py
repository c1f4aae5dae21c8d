"""Benchmark restoring a stored game: ``from_dict`` with the full replay against the snapshot load.

Run on demand (not part of the tests)::

    python tests/bench/load_state.py [--games 20] [--seconds 0.5]

For full-length games (random legal turns, seeded) of Hong Kong and of Hong (castle, with and without the
expansion) it prints the median CPU time of ``from_dict(state)`` (every move replayed and checked) and of
``from_dict(state, replay=False)`` (the stored position loaded as it is: what the bot does on every interaction
once a game has been checked), and the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import hong, hongkong  # noqa: E402
from tests.bench.hongkong_movegen import per_call  # noqa: E402


def full_game(module, play_seed: int, **options) -> dict:
    rng = random.Random(play_seed)
    game = module.new_game(**options)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game.to_dict()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=0.5, help="timing per game and way of loading")
    args = parser.parse_args()
    cases = [
        ("Hong Kong", hongkong, [full_game(hongkong, s, first=s % 2) for s in range(args.games)]),
        ("Hong (castle)", hong, [full_game(hong, s, board="castle", seed=s) for s in range(args.games)]),
        (
            "Hong (castle + lair)",
            hong,
            [full_game(hong, s, board="castle", expansion=True, seed=s) for s in range(args.games)],
        ),
    ]
    for name, module, states in cases:
        replay = [per_call(lambda d=d: module.from_dict(d), args.seconds / 4) for d in states]
        moves = statistics.median(len(d["moves"]) for d in states)
        r = statistics.median(replay)
        line = f"{name:22} {len(states)} full games, median {moves:.0f} moves: from_dict {1e3 * r:.3f} ms"
        try:
            snapshot = [per_call(lambda d=d: module.from_dict(d, replay=False), args.seconds / 4) for d in states]
        except TypeError:  # an engine without the snapshot load (to measure an older version)
            print(f"{line}, replay=False n/a")
            continue
        s = statistics.median(snapshot)
        print(f"{line}, replay=False {1e3 * s:.3f} ms ({r / s:.1f}× faster)")


if __name__ == "__main__":
    main()
