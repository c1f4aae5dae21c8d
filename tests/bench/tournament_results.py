"""Benchmark what recording a tournament result costs as the event grows (bot/storage/tournaments.py): 10, 216 and
1,080 players by default, on an embedded Redis (a unix socket, as the bot's own).

For each size: a Swiss started and its round-1 boards given games, then every board's result recorded one at a time
— the path a finished game takes (:meth:`Tournaments.locate`, then :meth:`Tournaments.record`: one small read and
one script call) — timed per result (median, p95, max) and by Redis itself (``INFO commandstats``: microseconds per
``EVALSHA``); then a second round's results all at once (``asyncio.gather``: every game ending at the same moment),
counting what was kept and refused, and the round advanced by its step. For comparison, one change of the whole
document (read, change, compare-and-set — what every result cost before, and what a round's posts still cost).

    .venv/bin/python tests/bench/tournament_results.py [--sizes 10,216,1080] [--burn 2]

``--burn N`` runs N processes burning a CPU each (``while True: pass``) beside it. Quote the load average (printed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from redis import asyncio as aioredis  # noqa: E402

from bot.core.tournament.event import Format, Tournament  # noqa: E402
from bot.storage.embedded import start_embedded, stop_embedded  # noqa: E402
from bot.storage.tournaments import Tournaments  # noqa: E402


def started(players: int, channel: int) -> Tournament:
    t = Tournament(f"b{players}", 1, channel, 3, "hongkong", Format.SWISS, 9, created=time.time())
    for i in range(players):
        t = t.join(10**17 + i, f"Player {i}")
    return t.start()


async def give_games(store: Tournaments, t: Tournament) -> list[str]:
    """Every pending board of the current round a thread and a game (as the round step does); their game ids."""
    number, games = t.round, []
    for i, board in enumerate(t.boards[-1]):
        if board.result is None:
            game = f"g{number}x{i}"
            await store.open_board(t.channel_id, t.id, number, i, 10**17 + i)
            await store.start_board(t.channel_id, t.id, number, i, 10**17 + i, game)
            games.append(game)
    return games


async def evalsha_usec(redis) -> tuple[int, float]:
    stats = await redis.info("commandstats")
    found = stats.get("cmdstat_evalsha", {})
    return int(found.get("calls", 0)), float(found.get("usec", 0))


async def size(redis, players: int, channel: int) -> None:
    store = Tournaments(redis, time.time)
    t = started(players, channel)
    await store.create(t)
    games = await give_games(store, t)
    await redis.config_resetstat()
    samples = []
    for n, game in enumerate(games):
        begin = time.perf_counter()
        found = await store.locate([channel], game)
        assert found is not None
        recorded = await store.record(*found, game, "1-0" if n % 2 else "0-1")
        samples.append(time.perf_counter() - begin)
        assert recorded.new
    calls, usec = await evalsha_usec(redis)
    samples.sort()
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    memory = await store.memory((await store.get(channel, t.id)).tournament)
    print(
        f"  {players:5} players, {len(games):4} results one at a time: median {statistics.median(samples) * 1000:.2f} "
        f"ms, p95 {p95 * 1000:.2f} ms, max {samples[-1] * 1000:.2f} ms a result (in Redis: "
        f"{usec / max(calls, 1):.0f} µs a script call); tournament in Redis {memory:,} bytes"
    )
    # round 2: every game ends at the same moment
    t = await store.advance(channel, t.id, 1)
    games = await give_games(store, t)
    begin = time.perf_counter()
    outcomes = await asyncio.gather(*(store.record(channel, t.id, g, "1-0") for g in games))
    took = time.perf_counter() - begin
    kept = sum(o.new for o in outcomes)
    last = sum(o.outcome == "last" for o in outcomes)
    before = (await store.get(channel, t.id)).version
    begin = time.perf_counter()
    t = await store.advance(channel, t.id, 2, schedule=False)
    paired = time.perf_counter() - begin
    print(
        f"        {len(games):4} results at once: {took * 1000:.0f} ms for all, {kept} kept, "
        f"{len(games) - kept} refused, round step made due {last} time(s); the round paired by its step in "
        f"{paired * 1000:.0f} ms (document version {before} -> {(await store.get(channel, t.id)).version})"
    )
    samples = []
    for n in range(10):
        begin = time.perf_counter()
        await store.update(channel, t.id, lambda x, n=n: (x.replace(waited=n + 100), (), None))
        samples.append(time.perf_counter() - begin)
    print(
        f"        for comparison, one change of the whole document (read, change, compare-and-set): median "
        f"{statistics.median(samples) * 1000:.1f} ms"
    )


async def run(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as data:
        server = start_embedded(Path(data))
        try:
            pool = aioredis.BlockingConnectionPool(
                connection_class=aioredis.UnixDomainSocketConnection,
                path=server.socket_file,
                max_connections=50,
                decode_responses=True,
            )
            redis = aioredis.Redis.from_pool(pool)
            for n, players in enumerate(sizes):
                await size(redis, players, 1000 + n)
            await redis.aclose()
        finally:
            stop_embedded(server, save=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,216,1080")
    parser.add_argument("--burn", type=int, default=0, help="processes burning a CPU each beside the benchmark")
    args = parser.parse_args()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burn)]
    try:
        if burners:
            time.sleep(1.0)
        print(f"load average {os.getloadavg()[0]:.2f} at the start; {args.burn} CPU burner(s) beside")
        print("Recording a tournament result (locate its board, one script call), by the event's size")
        asyncio.run(run([int(s) for s in args.sizes.split(",")]))
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


if __name__ == "__main__":
    main()
