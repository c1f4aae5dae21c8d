"""Benchmark the tournament core: Swiss pairing time (bot/core/tournament/pairing.py) for 200 and 1,000 players over
a whole event (random results, a few withdrawals and late joiners each round), and the Redis memory of one stored
tournament (``MEMORY USAGE`` of its document and parts, after its last round) for a few field sizes.

Target: pairing a round of 1,000 players in at most 1 s on the project's machine (2 cores).

    .venv/bin/python tests/bench/pairing.py [--rounds 9] [--sizes 200,1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from redis import asyncio as aioredis  # noqa: E402

from bot.core.tournament.event import Format, Phase, Tournament  # noqa: E402
from bot.storage.embedded import start_embedded, stop_embedded  # noqa: E402
from bot.storage.tournaments import Tournaments  # noqa: E402


def play_round(t: Tournament, rng: random.Random) -> Tournament:
    """Every pending board of the current round gets a game id and a random result."""
    r = len(t.boards) - 1
    for i, board in enumerate(t.boards[r]):
        if board.result is None:
            t = t.with_board(r, i, game=f"g{r}x{i}", channel=10**17 + r * 10**5 + i)
            t = t.record_result(f"g{r}x{i}", rng.choice((0, 1, 1, 0, None)))
    return t


def event(fmt: Format, players: int, rounds: int, rng: random.Random, timings: list[float] | None = None) -> Tournament:
    """A whole tournament of ``players`` played to its end; each pairing's time appended to ``timings``."""
    t = Tournament(
        f"b{rng.randrange(10**6)}", 1, 2, 3, "hongkong", fmt, rounds, options={"first": "me"}, created=time.time()
    )
    for i in range(players):
        t = t.join(10**17 + i, f"Player {i}")
    start = time.perf_counter()
    t = t.start({e.id: rng.random() for e in t.entrants})
    if timings is not None:
        timings.append(time.perf_counter() - start)
    while t.phase is Phase.RUNNING:
        t = play_round(t, rng)
        if fmt is Format.SWISS and t.round < t.rounds:
            for _ in range(max(1, players // 100)):  # withdrawals and late joiners
                active = [e for e in t.entrants if e.withdrawn is None]
                t = t.withdraw(rng.choice(active).id)
                t = t.join(10**18 + rng.randrange(10**9), "Late")
        start = time.perf_counter()
        t = t.next_round()
        if timings is not None and t.phase is Phase.RUNNING:
            timings.append(time.perf_counter() - start)
    return t


async def memory(tournaments: list[Tournament]) -> list[tuple[Tournament, int, int]]:
    with tempfile.TemporaryDirectory() as data:
        server = start_embedded(Path(data))
        try:
            redis = aioredis.Redis(unix_socket_path=server.socket_file, decode_responses=True)
            store = Tournaments(redis, time.time)
            out = []
            for n, t in enumerate(tournaments):
                t = t.replace(channel_id=1000 + n)  # its own channel: the game index is this tournament's alone
                await store.create(t)
                index = await redis.memory_usage(store.keys.tournament_games(t.channel_id)) or 0
                out.append((t, await store.memory(t), index))
            # (what recording a result costs by the event's size: tests/bench/tournament_results.py)
            await redis.aclose()
            return out
        finally:
            stop_embedded(server, save=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--sizes", default="64,200,1000")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("Swiss pairing time per round (seconds)")
    for players in (int(s) for s in args.sizes.split(",")):
        timings: list[float] = []
        event(Format.SWISS, players, args.rounds, rng, timings)
        print(
            f"  {players:5} players, {len(timings)} rounds: first {timings[0]:.3f}, median "
            f"{statistics.median(timings):.3f}, max {max(timings):.3f}, all " + " ".join(f"{x:.3f}" for x in timings)
        )
    print("Redis memory of one finished tournament (MEMORY USAGE of its document and parts, and of its game index)")
    cases = [
        event(Format.SWISS, 8, 3, rng),
        event(Format.SWISS, 64, 6, rng),
        event(Format.ROUND_ROBIN, 10, 0, rng),
        event(Format.SWISS, 200, args.rounds, rng),
        event(Format.SWISS, 1000, args.rounds, rng),
    ]
    for t, used, index in asyncio.run(memory(cases)):
        boards = sum(len(r) for r in t.boards)
        print(
            f"  {t.format.value:11} {len(t.entrants):5} players, {t.round:2} rounds, {boards:5} boards: document "
            f"{used:9,} bytes ({used / max(boards, 1):.0f} a board), game index {index:9,} bytes"
        )


if __name__ == "__main__":
    main()
