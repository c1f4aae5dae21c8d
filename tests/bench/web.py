"""Benchmark the web companion's live pages: Server-Sent Events viewers, and what they cost the bot.

Run on demand (not part of the tests)::

    python tests/bench/web.py [--viewers 1000,10000] [--moves 10] [--clients 2]

On a standalone redis-server (a unix socket, as the embedded one), web processes serve the pages (as ``python -m
bot.web`` does, with the per-address and per-process limits lifted: every viewer comes from 127.0.0.1) and ``--clients`` processes
hold the viewers: plain SSE connections to ``/g/<token>/events``, each noting when it received each event id. This
process plays the moves through :class:`bot.core.session.GameLayer` (the bot's own path: read, play, the Lua commit
that publishes the version) and times each ``play``.

Phases, for each viewer count: all the viewers on one game; the viewers spread over 100 games; and (at the largest
count) one game served by two web processes on the same Redis. Printed per phase: the web processes' memory per
viewer (RSS after the viewers connected, minus before, divided by the viewers), the time from a commit to each
viewer's event (p50, p99) and to the last viewer's (median over the moves, max), events missed, and the bot's time
per move (``play``, p50 and mean) beside the same with no viewer at all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402

from bot.core.session import GameLayer, Person  # noqa: E402
from bot.games import all_kinds  # noqa: E402
from bot.storage.settings import SettingsStore  # noqa: E402
from bot.storage.store import GameStore  # noqa: E402
from bot.storage.weblinks import WebLinks  # noqa: E402
from tests.bot.cluster import free_port  # noqa: E402
from tests.bot.processes import RedisServer  # noqa: E402

ANN, BEN = Person(1, "Ann"), Person(2, "Ben")
GUILD = 7 << 22


def more_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --- the web process (``--serve``) ----------------------------------------------------------------


async def serve(port: int, url: str) -> None:
    from bot.web.app import Web, serve as serve_web
    from bot.web.limits import RateLimiter, StreamCounter
    from bot.web.sockets import Gate

    more_files()
    pool = aioredis.BlockingConnectionPool.from_url(url, decode_responses=True, max_connections=50, timeout=60)
    client = aioredis.Redis(connection_pool=pool)  # (as bot.storage.connection.connect: a command waits for one)
    runner = await serve_web(
        Web(
            client,
            f"http://127.0.0.1:{port}",
            # every viewer here comes from 127.0.0.1: the per-client limits are lifted (what is measured is the feed)
            limiter=RateLimiter(capacity=1e12, rate=1e12),
            streams=StreamCounter(limit=10**9, total=10**9),
        ),
        port,
        "127.0.0.1",
        gate=Gate(per_address=10**9, total=10**9),  # (the open-file limit still applies)
    )
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench closes our stdin
    await runner.cleanup()


# --- a client process holding viewers (``--client``) ----------------------------------------------


async def viewer(port: int, token: str, got: list, opened: asyncio.Event, counter: list) -> None:
    for attempt in range(20):  # a loaded host may refuse a connection (a full listen backlog): try again
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
            break
        except OSError:
            await asyncio.sleep(0.1 * (attempt + 1))
    else:
        counter[2] += 1  # gave up: counted as failed
        counter[1] -= 1
        if counter[0] >= counter[1]:
            opened.set()
        return
    writer.write(f"GET /g/{token}/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    counter[0] += 1
    if counter[0] >= counter[1]:
        opened.set()
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                got.append((token, int(line[4:]), time.time()))
    except OSError:
        return
    finally:
        writer.close()


async def client(spec: str) -> None:
    """``spec``: a JSON file of ``[[port, token], ...]``, one a viewer. Prints ``ready`` once every viewer is connected and
    its first event arrived, then, when stdin closes, every event received as JSON."""
    more_files()
    viewers = json.loads(Path(spec).read_text())
    os.unlink(spec)
    got: list = []
    opened, counter = asyncio.Event(), [0, len(viewers), 0]  # connected, to connect, failed
    tasks = []
    for start in range(0, len(viewers), 500):
        tasks += [
            asyncio.create_task(viewer(port, token, got, opened, counter))
            for port, token in viewers[start : start + 500]
        ]
        await asyncio.sleep(0.05)
    await opened.wait()
    deadline = time.monotonic() + 120
    while len(got) < counter[0] and time.monotonic() < deadline:  # every viewer's first event (the state now)
        await asyncio.sleep(0.05)
    if counter[2]:
        print(f"{counter[2]} viewers could not connect", file=sys.stderr, flush=True)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for task in tasks:
        task.cancel()
    print(json.dumps(got), flush=True)


# --- the bench ------------------------------------------------------------------------------------


async def started(args: list[str]) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**30,
    )
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 600)
    assert line.strip() == b"ready", line
    return process


async def finished(process: asyncio.subprocess.Process) -> bytes:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    out = await process.stdout.read()
    await process.wait()
    return out


class Games:
    """Games between Ann and Ben in channels 60,000…, each with its web link (the server's web: link)."""

    def __init__(self, client) -> None:
        self.layer = GameLayer(GameStore(client), all_kinds(), rng=random.Random(1))
        self.links = WebLinks(client)
        self.kind = self.layer.kinds["hongkong"]
        self.rng = random.Random(2)
        self.games: dict[int, tuple] = {}
        self.tokens: dict[int, str] = {}
        self.channel = 60_000

    async def new(self, count: int) -> list[int]:
        channels = []
        for _ in range(count):
            self.channel += 1
            record = await self.layer.challenge(
                self.kind, guild_id=GUILD, channel_id=self.channel, challenger=ANN, opponent=BEN, options={}
            )
            record, game = await self.layer.accept(self.channel, record.id, BEN)
            self.games[self.channel] = game
            token = await self.links.game_link(GUILD, self.channel, record.id, "en")
            assert token is not None
            self.tokens[self.channel] = token
            channels.append(self.channel)
        return channels

    async def move(self, channel: int) -> tuple[float, float, int]:
        """Play a move in ``channel``: (time before, seconds the bot's play took, the new version)."""
        game = self.games[channel]
        move = self.rng.choice(game.legal_moves())
        before = time.time()
        started_at = time.perf_counter()
        turn = await self.layer.play(self.kind, channel, (ANN, BEN)[game.to_move].id, move)
        took = time.perf_counter() - started_at
        self.games[channel] = turn.game
        stored = await self.layer.store.raw(channel)
        return before, took, int(stored["v"])


async def commit_cost(redis) -> float:
    """Microseconds Redis spent per commit script (``EVALSHA``) since the last ``CONFIG RESETSTAT``: what a move costs
    Redis itself, PUBLISH to the web processes included (independent of the CPU the viewers take on this host)."""
    stats = await redis.info("commandstats")
    return float(stats.get("cmdstat_evalsha", {}).get("usec_per_call", float("nan")))


def quantile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100)[q - 1]


async def phase(
    name: str, games: Games, ports: list[int], channels: list[int], viewers: int, moves: list[int], clients: int
) -> dict:
    """Connect ``viewers`` spread over ``channels`` and over the web processes at ``ports``, play ``moves`` (a
    channel each), and report."""
    web_pids = [p for p in psutil.process_iter(["cmdline"]) if "--serve" in (p.info["cmdline"] or [])]
    rss_before = sum(p.memory_info().rss for p in web_pids)
    specs = [
        [ports[i % len(ports)], games.tokens[channels[i % len(channels)]]] for i in range(viewers)
    ]  # viewer i: game i mod games, web process i mod processes
    started_at = time.perf_counter()
    files = []
    for c in range(clients):  # (the viewers' list in a file: 10,000 of them are past a command line's length)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(specs[c::clients], f)
            files.append(f.name)
    holders = await asyncio.gather(*(started(["--client", name]) for name in files))
    connect = time.perf_counter() - started_at
    await asyncio.sleep(1.0)
    rss_after = sum(p.memory_info().rss for p in web_pids)
    commits: dict[tuple[str, int], float] = {}
    plays = []
    await games.layer.store.redis.config_resetstat()
    for channel in moves:
        before, took, version = await games.move(channel)
        commits[(games.tokens[channel], version)] = before
        plays.append(took)
        await asyncio.sleep(0.5 if len(moves) <= 20 else 0.05)
    script_us = await commit_cost(games.layer.store.redis)
    await asyncio.sleep(2.0)
    got = []
    for holder in holders:
        got += json.loads(await finished(holder))
    per_viewer, last, missed = [], [], 0
    watchers: dict[str, int] = {}
    for _port, token in specs:
        watchers[token] = watchers.get(token, 0) + 1
    for key, at in commits.items():
        arrivals = [t for token, version, t in got if (token, version) == key]
        missed += watchers[key[0]] - len(arrivals)
        per_viewer += [t - at for t in arrivals]
        if arrivals:
            last.append(max(arrivals) - at)
    result = {
        "phase": name,
        "viewers": viewers,
        "connect_s": connect,
        "kb_per_viewer": (rss_after - rss_before) / viewers / 1024,
        "p50_ms": quantile(per_viewer, 50) * 1000,
        "p99_ms": quantile(per_viewer, 99) * 1000,
        "last_median_ms": statistics.median(last) * 1000 if last else float("nan"),
        "last_max_ms": max(last) * 1000 if last else float("nan"),
        "missed": missed,
        "play_p50_ms": quantile(plays, 50) * 1000,
        "play_mean_ms": statistics.mean(plays) * 1000,
        "commit_us": script_us,
    }
    print(
        f"{name:<34} {viewers:>6} viewers  {result['kb_per_viewer']:6.1f} KB/viewer  commit→viewer p50 "
        f"{result['p50_ms']:7.1f} p99 {result['p99_ms']:7.1f} ms  last viewer median {result['last_median_ms']:7.1f} "
        f"max {result['last_max_ms']:7.1f} ms  missed {missed}  bot play p50 {result['play_p50_ms']:.2f} mean "
        f"{result['play_mean_ms']:.2f} ms, its commit in Redis {script_us:.0f} µs  (connected in {connect:.1f} s)",
        flush=True,
    )
    return result


async def bench(counts: list[int], moves: int, clients: int) -> None:
    more_files()
    with tempfile.TemporaryDirectory() as tmp:
        server = RedisServer(Path(tmp) / "redis")
        server.start()
        webs: list[asyncio.subprocess.Process] = []
        try:
            client = aioredis.from_url(server.url, decode_responses=True)
            await SettingsStore(client).update(GUILD, web="link")
            games = Games(client)
            # the bot's cost of a move with nobody watching
            base = await games.new(20)
            await client.config_resetstat()
            plays = [(await games.move(c))[1] for c in base * 5]
            print(
                f"{'no viewer':<34} {0:>6} viewers  bot play p50 {quantile(plays, 50) * 1000:.2f} mean "
                f"{statistics.mean(plays) * 1000:.2f} ms, its commit in Redis {await commit_cost(client):.0f} µs",
                flush=True,
            )
            ports = [free_port(), free_port()]
            webs.append(await started(["--serve", str(ports[0]), server.url]))
            await client.config_resetstat()
            plays = [(await games.move(c))[1] for c in base * 5]
            print(
                f"{'no viewer, a web process up':<34} {0:>6} viewers  bot play p50 {quantile(plays, 50) * 1000:.2f} mean "
                f"{statistics.mean(plays) * 1000:.2f} ms, its commit in Redis {await commit_cost(client):.0f} µs",
                flush=True,
            )
            for count in counts:
                one = await games.new(1)
                await phase("one game, one web process", games, ports[:1], one, count, one * moves, clients)
                spread = await games.new(100)
                await phase("100 games, one web process", games, ports[:1], spread, count, spread, clients)
            webs.append(await started(["--serve", str(ports[1]), server.url]))
            one = await games.new(1)
            await phase("one game, two web processes", games, ports, one, max(counts), one * moves, clients)
            await client.aclose()
        finally:
            for web in webs:
                await finished(web)
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", default="1000,10000", help="viewer counts, comma-separated")
    parser.add_argument("--moves", type=int, default=10, help="moves played on the one-game phases")
    parser.add_argument("--clients", type=int, default=2, help="processes holding the viewers")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "REDIS_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--client", metavar="SPEC", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(int(args.serve[0]), args.serve[1]))
    elif args.client:
        asyncio.run(client(args.client))
    else:
        asyncio.run(bench([int(n) for n in args.viewers.split(",")], args.moves, args.clients))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
