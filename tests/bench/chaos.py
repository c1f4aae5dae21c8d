"""Chaos bench (on demand, not part of the tests): a real ``python -m bot`` against the local Discord emulator and a
standalone redis-server, several games in several channels played at ``--rate`` moves per second (10 by default),
and one fault at a time injected in the middle; prints, per fault, what the players and Redis saw — PASS/FAIL per
count, a summary table, and exits 1 if any count missed its target.

    .venv/bin/python tests/bench/chaos.py --fault all --quick          # every fault briefly (~13 min)
    .venv/bin/python tests/bench/chaos.py --fault redis-stall-5 --quick
    .venv/bin/python tests/bench/chaos.py --fault all                  # longer phases, the 120 s stall too
    .venv/bin/python tests/bench/chaos.py --fault kill-bot --runs 20   # a fault again and again
    .venv/bin/python tests/bench/chaos.py --fault 5xx-after --quick --examples 3 --routes   # and why

The faults (``--fault``, repeatable or comma-separated; ``all`` for every one):

- ``redis-stall-5``, ``redis-stall-30``, ``redis-stall-120``: redis-server stopped with SIGSTOP for 5/30/120 s, then
  SIGCONT (a hung Redis: connections stay open, nothing is answered). The 120 s stall runs only without ``--quick``.
- ``redis-flushall``: FLUSHALL (the data is gone, the server is the same). ``redis-empty-restart``: redis-server
  killed, its files deleted and a new, empty one started on the same socket. For these two, the moves stored before
  the fault are judged against a snapshot read in the same MULTI as the FLUSHALL (or just before the kill): a move
  the fault itself erased is not "lost"; a move answered as stored after the fault and missing is.
- ``429-route``: the per-route buckets of channel posts, follow-ups and callbacks tightened to 2 requests per
  ``--limit-window`` (5) s, and each channel's post bucket spent every window by another process sharing the bot's
  token, so the bot's own posts (the computer's replies) meet route 429s; ``429-global``: the global limit lowered
  from 50 to 2 requests/s so its bot-token requests meet global 429s (both for ``--fault-seconds``; Discord's
  limits are on all along otherwise). Needs the emulator's rate limits (branch emu-limits).
- ``5xx-before``, ``5xx-after``: ``--fault-share`` (30%) of channel posts (``POST /channels/<id>/messages``),
  follow-ups (``POST /webhooks/<app>/<token>``, ``PATCH …/messages/@original``) and interaction callbacks
  (``POST /interactions/<id>/<token>/callback``) answered ``--status`` (502): ``before`` without doing the effect,
  ``after`` once the effect is done (the message IS created; the callback IS registered). Needs emu-limits' faults.
- ``latency``: every REST route, interaction callbacks included, answers 2–5 s late (drawn per request): the
  latency is added *to the reply*; the request takes effect when it arrives, as Discord registers a callback when
  it arrives — so a callback sent at once counts as in time, while the bot waits 2–5 s for every answer.
  ``latency-before``: the same delay added *before the emulator handles the request* (the request arrives 2–5 s
  late): a callback arriving past the 3 s deadline is refused with 10062 whatever the bot does, so there "answered
  within 3 s" is printed as information, not judged; every other count keeps its target (a move whose
  acknowledgement was refused must not be applied in silence). Both need emu-limits' faults.
- ``heartbeat-loss``: the gateway connection becomes a zombie (``emu.stop_heartbeat_acks()``: no heartbeat ACK,
  and the events held back for a RESUME, as a link dead on the way to the bot) for 15 s (``--quick``) or 75 s
  (longer than the bot's ``heartbeat_timeout``, 60 s by default: try ``--bot-env HONGBOT_HEARTBEAT_TIMEOUT=45``),
  then ACKs and sends what it held. The gateway's heartbeat interval is Discord's 41.25 s (``--heartbeat-ms``).
  The interactions held back reach the bot late whatever it does, so "answered within 3 s" is printed, not judged
  (a bot that notices sooner loses fewer: compare runs); a move it gets too late must still not be applied in
  silence. Needs branch emu-gateway.
- ``gateway-1006``: the gateway connection cut without a close frame (abnormal closure, 1006), 3 times 5 s apart;
  ``gateway-op7``: op 7 RECONNECT, 3 times; ``gateway-op9``: op 9 INVALID_SESSION (not resumable), 3 times.
- ``guild-outage``: one of the servers unavailable (GUILD_DELETE ``unavailable: true``, REST on it answering 503)
  for ``--fault-seconds``, then GUILD_CREATE. Needs branch emu-gateway.
- ``kill-bot``: kill -9 of the bot process, restarted 1 s later (its worker processes must die with it); the
  interaction in flight dies with the process, so "answered within 3 s" is printed, not judged;
  ``kill-redis``: kill -9 of redis-server, restarted on the same files 0.2–1.5 s later (append-only, fsync every s).

A run: a fresh emulator, redis-server and bot; ``--channels`` games (Hong Kong and Hong) between two people over
``--guilds`` servers, and ``--computer-games`` games against the computer at ``--level`` in the first server (the
computer's replies are the bot's own channel posts: bot-token requests, which the global limit counts); moves sent
open-loop at ``--rate`` (each to a channel whose previous move is settled: answered, refused, or unanswered past 3 s
— a player presses again then, checking the store for 2 s at most) for ``--before`` s, during the fault, and
``--after`` s after it; then every move still in flight gets up to ``--timeout`` s and the boards ``--drain`` s (the
reconciler's grace included). ``--quick``: 3 s before, 10 s after, 10 s of the timed faults (else 5, 30, 30).
Every phase and loop is bounded in count and time; a run that overruns its budget is stopped and FAILs.

Printed per fault (target in brackets):

- answered within 3 s [100%]: the interactions sent (moves, challenges, accepts) that got an accepted initial
  response — the emulator refuses one that arrives past its ``response_deadline`` (3 s after it dispatched the
  INTERACTION_CREATE), so accepted means in time. Interactions the emulator could not dispatch at all (no bot
  connected within its 5 s grace, e.g. while a killed bot restarts) are printed apart, not counted;
- moves applied without an answer [0]: moves stored in Redis whose player was never told so in the interaction
  (no "played `<move>`" or "your move `<move>` is saved" in any of its messages, e.g. "The application did not
  respond", an apology or a refusal instead). A move refused during a stall and sent again later at the same ply
  (the driver draws moves at random; in a long stall it may draw the same one) is the stored move of the
  interaction told so, not of the refused one (compare-and-set stores one move per ply);
- moves lost [0]: moves the player was told were stored that the stored game does not have;
- boards doubled [0]: board images (``<game>-<game id>-<version>.png``) posted more than once (each extra copy);
- stored moves without a board [0]: stored moves no board shows (no board of that game's version or a later one —
  a later board shows the move too) once the drain is over;
- invalid requests per 10 minutes [0; in the 429 faults < 100, 1% of Discord's 10,000 limit]: the 401/403/429
  answers the emulator counted (``emu.invalid_requests(600)``; the run is shorter than 10 minutes); 404s apart;
- the Redis-emptied faults also: moves answered "There is no game running in this channel" after the loss [0] (the
  bot should notice and apologise instead), and game records written after the loss [0] (new games the bot stored in
  the empty Redis: it should write nothing until the operator decides);
- ``kill-bot`` also: worker processes that outlived the killed bot [0].

Also printed, without a target: first-response latency percentiles (of the interactions answered), moves sent and
answered as stored, moves not sent (no channel free), interactions not dispatched, the 429s met by route and scope,
running games without a turn timer, how often the fault hit; ``--routes``: the REST requests by route;
``--examples N``: what the player saw (the interaction's state) for N moves of each failing kind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402
from redis.exceptions import RedisError  # noqa: E402

from bot.games import all_kinds  # noqa: E402
from bot.storage.outbox import GRACE  # noqa: E402
from bot.core.record import Record, Status  # noqa: E402
from bot.storage.store import GameStore  # noqa: E402
from bot.storage.keys import Keys  # noqa: E402
from tests.bench.load import BOARD, describe_429, options_of  # noqa: E402
from tests.bot.processes import RedisServer, alive, descendants, kill9, start_bot_process  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402

KINDS = all_kinds()
DEADLINE = 3.0  # Discord's first-response deadline
NO_GAME = "There is no game running in this channel"  # what a move meets where no game is stored
log = logging.getLogger("chaos")


class Skip(Exception):
    """The fault needs an emulator feature this checkout does not have (say which branch brings it)."""


# --- the faults ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """One fault kind: ``inject(run)`` does it (returns once it is over); ``invalid_target``: the most invalid
    requests per 10 minutes that still PASS."""

    name: str
    inject: Callable[["Run"], Awaitable[None]]
    quick: bool = True  # run with --quick
    invalid_target: int = 0
    loses_data: bool = False  # Redis emptied: also judge how the bot treats the loss
    deadline_reachable: bool = True  # False: "answered within 3 s" is printed, not judged (no bot could meet it)


async def redis_stall(run: "Run", seconds: float) -> None:
    """SIGSTOP redis-server for ``seconds``, then SIGCONT (always, even if cancelled)."""
    pid = run.server.proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


async def redis_flushall(run: "Run") -> None:
    """Snapshot every game and FLUSHALL in one MULTI: the moves the fault erased are judged against the snapshot."""
    async with run.redis.pipeline(transaction=True) as pipe:
        names = run.snapshot_commands(pipe)
        pipe.flushall()
        results = await pipe.execute()
    run.keep_snapshot(names, results[:-1])
    await asyncio.sleep(run.args.after_fault_pause)


async def redis_empty_restart(run: "Run") -> None:
    """Snapshot every game, kill -9 redis-server, delete its files, start a new empty one on the same socket."""
    async with run.redis.pipeline(transaction=True) as pipe:
        names = run.snapshot_commands(pipe)
        results = await pipe.execute()
    run.server.kill()
    run.keep_snapshot(names, results)
    for path in run.server.dir.iterdir():
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        elif path != run.server.socket:
            path.unlink(missing_ok=True)
    await asyncio.sleep(0.5)
    run.server.start()
    await asyncio.sleep(run.args.after_fault_pause)


def rate_limits(run: "Run"):
    limits = getattr(run.emu, "rate_limits", None)
    if limits is None:
        raise Skip("the emulator has no rate limits here (merge branch emu-limits)")
    return limits


#: The routes whose buckets 429-route tightens (rate-limit templates): channel posts, follow-ups, callbacks.
LIMITED_ROUTES = (
    ("POST", "/channels/{id}/messages"),
    ("POST", "/webhooks/{id}/{token}"),
    ("PATCH", "/webhooks/{id}/{token}/messages/@original"),
    ("POST", "/interactions/{id}/{token}/callback"),
)


async def tight_route_limits(run: "Run") -> None:
    """Per-route buckets of posts, follow-ups and callbacks tightened to 2 requests per ``--limit-window`` s (per
    channel, per interaction webhook) for ``--fault-seconds``, and the channels' post buckets spent by another process
    sharing the bot's token (as a second shard process or an operator's script would): each window it takes the
    bucket's 2 requests at a moment of its own, so the bot's posts meet 429s its discord.py could not foresee (alone,
    discord.py reads ``X-RateLimit-Remaining`` and waits before a spent bucket; this bot posts too rarely per channel
    to spend one). The other process's own refusals are not counted. Discord's own limits again after."""
    limits = rate_limits(run)
    before = {key: limits.limits.get(key) for key in LIMITED_ROUTES}
    for method, template in LIMITED_ROUTES:
        limits.set_limit(method, template, 2, run.args.limit_window)

    async def other_process(channel_id: int) -> None:
        await asyncio.sleep(run.rng.uniform(0, run.args.limit_window))
        while True:
            for _ in range(2):
                refusal, _headers, _scope = limits.check("POST", f"/channels/{channel_id}/messages", True)
                if refusal is not None:
                    limits.ratelimited.pop()  # the other process's 429, not the bot's
            await asyncio.sleep(run.args.limit_window)

    others = [asyncio.create_task(other_process(ch.id)) for ch in run.channels]
    try:
        await asyncio.sleep(run.args.fault_seconds)
    finally:
        for task in others:
            task.cancel()
        for key, limit in before.items():
            if limit is None:
                limits.limits.pop(key, None)
            else:
                limits.limits[key] = limit


async def tight_global_limit(run: "Run") -> None:
    """The global limit (bot-token requests; callbacks and interaction webhooks exempt) lowered from 50 to 2 requests
    per second for ``--fault-seconds``."""
    limits = rate_limits(run)
    before = limits.global_limit
    limits.global_limit = 2
    try:
        await asyncio.sleep(run.args.fault_seconds)
    finally:
        limits.global_limit = before


#: The routes of the 5xx faults: channel posts, follow-ups (and the deferral's answer), interaction callbacks.
POST_ROUTES = (
    ("POST", r"/channels/\d+/messages"),
    ("POST", r"/webhooks/\d+/[^/]+"),
    ("PATCH", r"/webhooks/\d+/[^/]+/messages/@original"),
    ("POST", r"/interactions/\d+/[^/]+/callback"),
)


def faults_of(run: "Run"):
    faults = getattr(run.emu, "faults", None)
    if faults is None:
        raise Skip("the emulator has no REST faults here (merge branch emu-limits)")
    return faults


async def server_errors(run: "Run", when: str) -> None:
    """``--fault-share`` of posts, follow-ups and callbacks answered ``--status`` before or after their effect."""
    faults = faults_of(run)
    added = [
        faults.add(method, path, status=run.args.status, when=when, probability=run.args.fault_share)
        for method, path in POST_ROUTES
    ]
    try:
        await asyncio.sleep(run.args.fault_seconds)
    finally:
        run.fault_hits = sum(f.hits for f in added)
        for f in added:
            f.remove()


async def latency(run: "Run", when: str) -> None:
    """Every REST request (callbacks included) delayed 2–5 s (drawn per request): ``when='after'`` delays the reply
    (the request takes effect when it arrives), ``'before'`` its handling (it takes effect 2–5 s late)."""
    faults = faults_of(run)
    added = faults.add(None, r".*", status=None, when=when, delay=(2.0, 5.0))
    try:
        await asyncio.sleep(run.args.fault_seconds)
    finally:
        run.fault_hits = added.hits
        added.remove()


async def heartbeat_loss(run: "Run") -> None:
    """No heartbeat ACK (a zombie connection) for 15 s (--quick) or 75 s, then ACKs again."""
    if not hasattr(run.emu, "stop_heartbeat_acks"):
        raise Skip("the emulator can't withhold heartbeat ACKs here (merge branch emu-gateway)")
    run.emu.stop_heartbeat_acks()
    try:
        await asyncio.sleep(15 if run.args.quick else 75)
    finally:
        await run.emu.resume_heartbeat_acks()


async def gateway_events(run: "Run", what: str) -> None:
    """The gateway event ``what`` three times, 5 s apart (each only while the bot is connected)."""
    emu = run.emu
    act = {"1006": lambda: emu.drop_connection(1006), "op7": emu.request_reconnect, "op9": emu.invalidate_session}[what]
    for i in range(3):
        for _ in range(100):  # up to 10 s for the bot to be connected again
            if emu.connected:
                break
            await asyncio.sleep(0.1)
        try:
            await act()
            run.fault_hits = (run.fault_hits or 0) + 1
        except Exception as exc:  # noqa: BLE001 — no live connection just then: said, and the next one tried
            print(f"   gateway {what} #{i + 1} not done: {exc!r}"[:300], flush=True)
        await asyncio.sleep(5)


async def guild_outage(run: "Run") -> None:
    """The first server unavailable (GUILD_DELETE ``unavailable``, its REST answering 503) for ``--fault-seconds``,
    then available again (GUILD_CREATE). Its players can't send interactions meanwhile (counted as not dispatched)."""
    if not hasattr(run.emu, "guild_outage"):
        raise Skip("the emulator has no guild outages here (merge branch emu-gateway)")
    guild = run.channels[0].guild
    await run.emu.guild_outage(guild)
    try:
        await asyncio.sleep(run.args.fault_seconds)
    finally:
        await run.emu.end_guild_outage(guild)


async def kill_bot(run: "Run") -> None:
    """kill -9 the bot process (and count its workers still alive 1 s later), then start it again."""
    workers = descendants(run.proc.pid)
    await kill9(run.proc)
    await asyncio.sleep(1.0)
    left = alive(workers)
    run.extra["workers left"] = len(left)
    for pid in left:  # don't leave them to the next run
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    run.proc = await start_bot_process(run.emu, 0, run.workdir / "bot", run.server.url, env=run.bot_env(), sync=False)


async def kill_redis(run: "Run") -> None:
    """kill -9 redis-server and start it again on the same files 0.2–1.5 s later."""
    run.server.kill()
    await asyncio.sleep(run.rng.uniform(0.2, 1.5))
    run.server.start()
    await asyncio.sleep(run.args.after_fault_pause)


FAULTS = {
    f.name: f
    for f in (
        Fault("redis-stall-5", lambda run: redis_stall(run, 5)),
        Fault("redis-stall-30", lambda run: redis_stall(run, 30)),
        Fault("redis-stall-120", lambda run: redis_stall(run, 120), quick=False),
        Fault("redis-flushall", redis_flushall, loses_data=True),
        Fault("redis-empty-restart", redis_empty_restart, loses_data=True),
        Fault("429-route", tight_route_limits, invalid_target=100),
        Fault("429-global", tight_global_limit, invalid_target=100),
        Fault("5xx-before", lambda run: server_errors(run, "before")),
        Fault("5xx-after", lambda run: server_errors(run, "after")),
        Fault("latency", lambda run: latency(run, "after")),
        Fault("latency-before", lambda run: latency(run, "before"), deadline_reachable=False),
        Fault("heartbeat-loss", heartbeat_loss, deadline_reachable=False),
        Fault("gateway-1006", lambda run: gateway_events(run, "1006")),
        Fault("gateway-op7", lambda run: gateway_events(run, "op7")),
        Fault("gateway-op9", lambda run: gateway_events(run, "op9")),
        Fault("guild-outage", guild_outage),
        Fault("kill-bot", kill_bot, deadline_reachable=False),
        Fault("kill-redis", kill_redis),
    )
}


# --- the players ----------------------------------------------------------------------------------------------------


@dataclass
class Sent:
    """A move sent: its interaction, the game and the ply it was meant for, the move in the engine's notation."""

    it: object
    game: str
    ply: int
    move: str
    at: float  # monotonic, when sent


def told_stored(it, move: str) -> bool:
    """Whether any message of the interaction (every version of it) told the player ``move`` was stored."""
    for message in it.messages:
        for text in [message.content, *(h.get("content", "") for h in message.history)]:
            if f"`{move}`" in text and ("played" in text or "is saved" in text):
                return True
    return False


class Channel:
    """A channel with its game as the driver knows it (an engine game mirrored from the answers and Redis)."""

    def __init__(
        self, run: "Run", channel_id: int, guild: int, kind: str, players: list[dict], computer: bool = False
    ) -> None:
        self.run, self.id, self.guild, self.kind, self.players = run, channel_id, guild, kind, players
        self.computer = computer  # a game against the computer (its replies are the bot's own channel posts)
        self.game = None
        self.game_id = ""

    async def new_game(self) -> bool:
        """Challenge and accept (at most 3 tries, each bounded); True once a game runs here."""
        run, emu = self.run, self.run.emu
        for _ in range(3):
            if not run.sending:
                return False
            options = {"first": "me"} if self.kind == "hongkong" else {"role": "emperor"}
            try:
                if self.computer:
                    options.update(level=run.args.level)
                it = await emu.slash(
                    self.players[0],
                    self.id,
                    f"{self.kind} challenge",
                    opponent=emu.bot_user if self.computer else self.players[1],
                    **options,
                )
                run.interactions.append(it)
                challenge = await run.final(it)
                if not self.computer and challenge is not None and challenge.buttons():
                    click = await emu.click(self.players[1], challenge, challenge.button("Accept")["custom_id"])
                    run.interactions.append(click)
                    await run.final(click)
            except Exception as exc:  # noqa: BLE001 — no bot connected, or a challenge that never came
                run.not_dispatched += "connected bot" in str(exc)
            if await self.resync() and self.game is not None:
                return True
            await asyncio.sleep(1)
        return False

    async def resync(self) -> bool:
        """Read the channel's game from Redis; True if one runs or ended here. A Redis that doesn't answer within
        2 s (twice) leaves the mirror as it was: the player presses again, as a player would, rather than waiting
        for the store (which would keep the channel quiet for the whole of a stall)."""
        for _ in range(2):
            try:
                stored = await asyncio.wait_for(self.run.store.get(self.id), 2)
                break
            except (RedisError, OSError, asyncio.TimeoutError):
                await asyncio.sleep(0.2)
        else:
            return self.game is not None
        if stored is None or stored.record.status is Status.CHALLENGE:
            self.game = None
            return False
        record = stored.record
        self.game_id = record.id
        self.run.games[record.id] = self.id
        # the version before the first move (2 after a challenge and an accept; 1 against the computer)
        self.run.base.setdefault(record.id, stored.version - len(record.state.get("moves", [])))
        self.game = KINDS[self.kind].load(record.state, replay=False) if record.status is Status.ACTIVE else None
        return True

    async def turn(self) -> None:
        """One move by whoever is to move (a new game first if there is none); the channel is free again after."""
        run = self.run
        try:
            if self.game is None or self.game.is_over:
                if not await self.new_game():
                    return
            game = self.game
            if self.computer and game.to_move != 0:  # the computer's turn: wait for its reply (bounded)
                for _ in range(int(run.args.timeout / 0.5)):
                    await asyncio.sleep(0.5)
                    await self.resync()
                    if self.game is None or self.game.to_move == 0 or not run.sending:
                        break
                return
            move = run.rng.choice(game.legal_moves())
            after = game.copy()
            after.play(move)
            try:
                it = await run.emu.slash(
                    self.players[game.to_move], self.id, f"{self.kind} place", **options_of(self.kind, move)
                )
            except Exception as exc:  # noqa: BLE001 — no bot connected within the emulator's grace
                run.not_dispatched += 1
                log.debug("not dispatched: %r", exc)
                return
            run.interactions.append(it)
            sent = Sent(it, self.game_id, len(game.moves), after.moves[-1], time.monotonic())
            run.sent.append(sent)
            await run.final(it)
            if told_stored(it, sent.move):
                self.game = after
            else:
                await self.resync()
        finally:
            if run.sending:
                run.free.put_nowait(self)


# --- one run ----------------------------------------------------------------------------------------------------------


class Run:
    """One fault's run: the world, the bot, the load, the fault, the counts."""

    def __init__(self, args: argparse.Namespace, fault: Fault, workdir: Path, rng: random.Random) -> None:
        self.args, self.fault, self.workdir, self.rng = args, fault, workdir, rng
        # spec=False: the spec checks cost 1–5 ms an item (tests/bench/spec_cost.py), which the bench would measure
        self.emu = DiscordEmulator(patch_discord=False, heartbeat_interval_ms=args.heartbeat_ms, spec=False)
        self.server = RedisServer(workdir / "redis")
        self.proc = None
        self.interactions: list = []
        self.sent: list[Sent] = []
        self.games: dict[str, int] = {}  # game id → channel id
        self.base: dict[str, int] = {}  # game id → its version before the first move
        self.snapshots: list[dict[str, list[str]]] = []  # game id → stored moves, read at a data-losing fault
        self.not_dispatched = 0
        self.not_sent = 0
        self.fault_hits = None
        self.extra: dict[str, int] = {}
        self.sending = True
        self.first: dict[int, float] = {}  # interaction id → when its initial response was accepted

    async def start(self) -> None:
        await self.emu.start()
        self.watch_first_responses()
        self.count_requests()
        self.server.start()
        self.redis = aioredis.Redis(
            unix_socket_path=str(self.server.socket), decode_responses=True, socket_timeout=5, socket_connect_timeout=5
        )
        self.store = GameStore(self.redis)
        guilds = [self.emu.create_guild(f"Chaos {g}") for g in range(self.args.guilds)]
        self.channels: list[Channel] = []
        for i in range(self.args.channels):
            guild = guilds[i % len(guilds)]
            channel = self.emu.create_channel(guild, f"games-{i}")
            players = [self.emu.create_user(f"p{i}-{seat}") for seat in (0, 1)]
            for p in players:
                self.emu.add_member(guild, p)
            kind = "hong" if i % 2 else "hongkong"
            self.channels.append(Channel(self, channel, guild, kind, players))
        for i in range(self.args.computer_games):  # in the first server: the bot's own posts all in one place
            channel = self.emu.create_channel(guilds[0], f"computer-{i}")
            player = self.emu.create_user(f"c{i}")
            self.emu.add_member(guilds[0], player)
            self.channels.append(
                Channel(self, channel, guilds[0], "hongkong" if i % 2 else "hong", [player], computer=True)
            )
        self.proc = await start_bot_process(self.emu, 0, self.workdir / "bot", self.server.url, env=self.bot_env())
        gate = asyncio.Semaphore(4)

        async def setup(ch: Channel) -> None:
            async with gate:
                await ch.new_game()

        await asyncio.gather(*(setup(ch) for ch in self.channels))
        self.free: asyncio.Queue[Channel] = asyncio.Queue()
        for ch in self.channels:
            self.free.put_nowait(ch)

    def bot_env(self) -> dict[str, str]:
        """The ``--bot-env`` settings."""
        return dict(kv.split("=", 1) for kv in self.args.bot_env)

    def count_requests(self) -> None:
        """Count the REST requests by route template (what the rate limiter sees), to print beside the 429s."""
        self.routes: Counter[str] = Counter()
        limits = getattr(self.emu, "rate_limits", None)
        if limits is None:
            return
        from tests.emulator.ratelimits import route_of

        check = limits.check

        def counted(method: str, path: str, authorized: bool):
            route = route_of(method, path, 0)
            self.routes[f"{route.method} {route.template}"] += 1
            return check(method, path, authorized)

        limits.check = counted

    def watch_first_responses(self) -> None:
        """Note when each interaction's initial response is accepted (the emulator calls ``_notify`` after it)."""
        notify = self.emu._notify
        pending = self.interactions

        def notified() -> None:
            now = time.monotonic()
            for it in pending[-200:]:
                if it.responses and it.id not in self.first:
                    self.first[it.id] = now
            notify()

        self.emu._notify = notified

    async def stop(self) -> None:
        self.sending = False
        if self.proc is not None and self.proc.returncode is None:
            await kill9(self.proc)
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        if self.server.proc is not None and self.server.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.server.proc.pid, signal.SIGCONT)
        self.server.stop()
        await self.emu.stop()

    async def final(self, it):
        """The interaction's final message once it has one (None: no answer in time, or none within --timeout)."""
        deadline = time.monotonic() + self.args.timeout
        while time.monotonic() < deadline:
            if it.completed and it.last_message is not None and not it.last_message.loading:
                return it.last_message
            if not it.responses and it.dispatched_at is not None and time.monotonic() > it.dispatched_at + DEADLINE + 1:
                return None
            await asyncio.sleep(0.05)
        return None

    # --- a data-losing fault's snapshot ---

    def snapshot_commands(self, pipe) -> list[tuple[str, int, str]]:
        """Queue the reads of every game the driver knows (its channel's record, and its finished record)."""
        names = []
        for game, channel in self.games.items():
            pipe.hgetall(Keys.game(channel))
            names.append(("current", channel, game))
            pipe.get(Keys.finished(channel, game))
            names.append(("finished", channel, game))
        return names

    def keep_snapshot(self, names, results) -> None:
        snapshot: dict[str, list[str]] = {}
        for (where, _channel, game), value in zip(names, results):
            text = value.get("doc") if where == "current" and value else value if where == "finished" else None
            if not text:
                continue
            with contextlib.suppress(Exception):
                record = Record.from_json(text)
                if record.id == game:
                    snapshot[game] = list(record.state.get("moves", []))
        self.snapshots.append(snapshot)

    async def stored_moves(self) -> dict[str, list[str]]:
        """Every known game's stored moves now (its channel's record, or its finished record)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            names = self.snapshot_commands(pipe)
            results = await pipe.execute()
        before = len(self.snapshots)
        self.keep_snapshot(names, results)
        return self.snapshots.pop(before)

    # --- the load ---

    async def drive(self, seconds: float) -> None:
        """Send moves open-loop at ``--rate`` for ``seconds`` (bounded by count: rate × seconds)."""
        loop = asyncio.get_running_loop()
        t0, rate = loop.time(), self.args.rate
        for i in range(int(rate * seconds)):
            delay = t0 + i / rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                channel = self.free.get_nowait()
            except asyncio.QueueEmpty:
                self.not_sent += 1
                continue
            self.tasks.append(asyncio.create_task(channel.turn()))
        await asyncio.sleep(max(0.0, t0 + seconds - loop.time()))

    async def play(self) -> None:
        """Before, during and after the fault; then the moves in flight and the drain."""
        args = self.args
        self.tasks: list[asyncio.Task] = []
        await self.drive(args.before)
        self.fault_started = time.monotonic()
        fault = asyncio.create_task(self.fault.inject(self))
        while not fault.done():
            await self.drive(1.0)
        self.fault_ended = time.monotonic()
        fault.result()  # a Skip or an error in the fault itself ends the run here
        await self.drive(args.after)
        self.sending = False
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=args.timeout + 30)
        end = time.monotonic() + args.drain
        while time.monotonic() < end:  # until every stored move has its board (or the drain is over)
            with contextlib.suppress(RedisError, OSError):
                if not sum(self.unannounced(await self.stored_moves()).values()):
                    break
            await asyncio.sleep(1)

    # --- the counts ---

    def boards(self) -> tuple[dict[str, int], int]:
        """Each game's highest board version posted, and the extra copies of boards posted more than once."""
        copies: Counter[str] = Counter()
        for ch in self.channels:
            for message in self.emu.messages(ch.id):
                for attachment in message.attachments:
                    if BOARD.match(attachment.filename):
                        copies[attachment.filename] += 1
        highest: dict[str, int] = {}
        for name in copies:
            m = BOARD.match(name)
            highest[m["game"]] = max(highest.get(m["game"], -1), int(m["version"]))
        return highest, sum(n - 1 for n in copies.values())

    def unannounced(self, stored: dict[str, list[str]]) -> dict[str, int]:
        """Per game, stored moves no board shows: each move is a commit, so move n is version base + n (base: 2
        after a challenge and an accept, 1 against the computer), and a board of version v shows moves 1 … v − base."""
        highest, _ = self.boards()
        return {
            game: max(0, len(moves) - max(0, highest.get(game, -1) - self.base.get(game, 2)))
            for game, moves in stored.items()
        }

    async def counts(self) -> dict:
        stored = await self.stored_moves()
        snapshots = [*self.snapshots, stored]
        latest = {**{g: m for s in self.snapshots for g, m in s.items()}, **stored}  # a vanished game: its snapshot

        def applied(s: Sent) -> bool:
            return any(len(snap.get(s.game, [])) > s.ply and snap[s.game][s.ply] == s.move for snap in snapshots)

        told = [told_stored(s.it, s.move) for s in self.sent]
        # A move refused ("not saved") and later sent again at the same ply and stored is the later one's: the same
        # move is counted unanswered only if no interaction that sent it there was told it was stored.
        answered_somewhere = {(s.game, s.ply, s.move) for s, t in zip(self.sent, told) if t}

        def unanswered(s: Sent, t: bool) -> bool:
            return applied(s) and not t and (s.game, s.ply, s.move) not in answered_somewhere

        if self.args.examples:  # what the player saw, for a few moves of each failing kind
            for label, bad in (("applied without an answer", unanswered), ("lost", lambda s, t: t and not applied(s))):
                for s in [s for s, t in zip(self.sent, told) if bad(s, t)][: self.args.examples]:
                    print(
                        f"   {label}: {s.move} (game {s.game}, ply {s.ply})\n     "
                        + s.it.state().replace("\n", "\n     "),
                        flush=True,
                    )
        answered = sum(bool(it.responses) for it in self.interactions)
        first = sorted(self.first[it.id] - it.dispatched_at for it in self.interactions if it.id in self.first)
        _, doubled = self.boards()
        now = time.time()
        if hasattr(self.emu, "invalid_requests"):  # the emulator's own count (branch emu-limits)
            invalid, not_found = self.emu.invalid_requests(600), self.emu.not_found_requests(600)
        else:  # before emu-limits: the refusals the emulator recorded
            invalid = sum(e.status in (401, 403, 429) and now - e.at <= 600 for e in self.emu.errors)
            not_found = sum(e.status == 404 and now - e.at <= 600 for e in self.emu.errors)
        ratelimited = getattr(self.emu, "ratelimited", [])
        scopes = Counter(describe_429(r) for r in ratelimited)
        try:
            deadlines = await self.redis.zrange(Keys.DEADLINES, 0, -1)
            running = [ch for ch in self.channels if ch.game is not None and not ch.game.is_over]
            no_timer = 0
            for ch in running:
                moves = stored.get(ch.game_id)
                if moves is not None and f"forfeit|{ch.id}|{ch.game_id}|{len(moves)}" not in deadlines:
                    no_timer += 1
        except RedisError:
            no_timer = -1
        extra = dict(self.extra)
        if self.fault.loses_data:  # after the loss: no "no game here" as if nothing happened, nothing written on
            after = [s for s in self.sent if s.at >= self.fault_started]
            extra["moves told no game here after the loss"] = sum(
                any(NO_GAME in m.content for m in s.it.messages) for s in after
            )
            known = {g for snap in self.snapshots for g in snap}
            records = [k async for k in self.redis.scan_iter(match=Keys.GAME_PATTERN, count=500)]
            docs = [await self.redis.hget(k, "doc") for k in records]
            extra["game records written after the loss"] = sum(
                bool(doc) and Record.from_json(doc).id not in known for doc in docs
            )
        return dict(
            interactions=len(self.interactions),
            answered=answered,
            first=first,
            moves=len(self.sent),
            told=sum(told),
            applied_unanswered=sum(unanswered(s, t) for s, t in zip(self.sent, told)),
            lost=sum(t and not applied(s) for s, t in zip(self.sent, told)),
            doubled=doubled,
            unannounced=sum(self.unannounced(latest).values()),
            invalid=invalid,
            not_found=not_found,
            ratelimited=len(ratelimited),
            scopes=dict(scopes),
            no_timer=no_timer,
            not_dispatched=self.not_dispatched,
            not_sent=self.not_sent,
            fault_hits=self.fault_hits,
            routes=self.routes,
            **extra,
        )


def percentiles(values: list[float]) -> str:
    if not values:
        return "—"

    def at(p: float) -> float:
        return values[min(len(values) - 1, math.ceil(p * len(values)) - 1)] * 1000

    return f"p50 {at(0.5):.0f}  p99 {at(0.99):.0f}  max {values[-1] * 1000:.0f} ms"


#: The summary table's names for the counts only some faults have.
SHORT = {
    "moves told no game here after the loss": "'no game' answers",
    "game records written after the loss": "written after loss",
    "worker processes left": "workers left",
}


def judge(fault: Fault, c: dict) -> list[tuple[str, str, bool]]:
    """The lines with a target: (what, value, met), met None for a line printed but not judged."""
    share = c["answered"] / c["interactions"] if c["interactions"] else 0.0
    lines = [
        (
            "answered within 3 s",
            f"{c['answered']}/{c['interactions']} ({share:.0%})",
            (c["interactions"] > 0 and c["answered"] == c["interactions"]) if fault.deadline_reachable else None,
        ),
        ("moves applied without an answer", str(c["applied_unanswered"]), c["applied_unanswered"] == 0),
        ("moves lost", str(c["lost"]), c["lost"] == 0),
        ("boards doubled", str(c["doubled"]), c["doubled"] == 0),
        ("stored moves without a board", str(c["unannounced"]), c["unannounced"] == 0),
        (
            "invalid requests per 10 minutes",
            f"{c['invalid']} (404s apart: {c['not_found']})",
            c["invalid"] <= fault.invalid_target,
        ),
    ]
    for what in ("moves told no game here after the loss", "game records written after the loss"):
        if what in c:
            lines.append((what, str(c[what]), c[what] == 0))
    if "workers left" in c:
        lines.append(("worker processes left", str(c["workers left"]), c["workers left"] == 0))
    return lines


async def one(args: argparse.Namespace, fault: Fault, rng: random.Random) -> tuple[str, list | None]:
    """Run ``fault`` once; returns ("PASS"/"FAIL"/"SKIP: why", judged lines)."""
    workdir = Path(tempfile.mkdtemp(prefix=f"chaos-{fault.name}-"))
    run = Run(args, fault, workdir, rng)
    started = time.monotonic()
    keep = args.keep
    budget = (
        180
        + args.before
        + args.after
        + args.timeout * 2
        + args.drain
        + 30
        + {"redis-stall-30": 30, "redis-stall-120": 120, "heartbeat-loss": 75}.get(fault.name, args.fault_seconds)
    )
    try:
        await asyncio.wait_for(run.start(), 180)
        await asyncio.wait_for(run.play(), budget - 180)
        c = await asyncio.wait_for(run.counts(), 60)
    except Skip as why:
        print(f"-- {fault.name}: SKIP ({why})", flush=True)
        return f"SKIP: {why}", None
    except Exception as exc:  # noqa: BLE001 — an overrun or a broken run is a FAIL, with what happened
        print(f"-- {fault.name}: FAIL (the run broke: {exc!r}; bot log {workdir / 'bot' / 'bot.log'})", flush=True)
        keep = True
        return "FAIL", None
    finally:
        await run.stop()
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    lines = judge(fault, c)
    print(
        f"\n== {fault.name} ({time.monotonic() - started:.0f} s; {c['moves']} moves sent, {c['told']} answered as "
        f"stored; {c['not_sent']} not sent: no channel free; {c['not_dispatched']} not dispatched: no bot "
        f"connected or its server unavailable)",
        flush=True,
    )
    for what, value, met in lines:
        print(
            f"  {'info' if met is None else 'PASS' if met else 'FAIL'}  {what}: {value}"
            + (" (no bot can meet it under this fault: not judged)" if met is None else "")
        )
    print(
        f"        first response {percentiles(c['first'])}; 429s met {c['ratelimited']} {c['scopes'] or ''}; "
        f"running games without a turn timer {c['no_timer']}"
        + (f"; fault hits {c['fault_hits']}" if c["fault_hits"] is not None else ""),
        flush=True,
    )
    if args.routes:
        print("        REST requests by route: " + ", ".join(f"{k} {v}" for k, v in c["routes"].most_common(8)))
    return ("PASS" if all(met is not False for *_, met in lines) else "FAIL"), lines


async def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        help=f"one of {', '.join(FAULTS)} or all (repeatable, or comma-separated)",
    )
    parser.add_argument("--quick", action="store_true", help="short phases; the 120 s stall left out")
    parser.add_argument("--runs", type=int, default=1, help="runs of each fault (default 1)")
    parser.add_argument("--rate", type=float, default=10, help="moves per second (default 10)")
    parser.add_argument("--channels", type=int, default=12, help="games at once (default 12)")
    parser.add_argument(
        "--computer-games",
        type=int,
        default=3,
        help="games against the computer beside them (default 3): the bot's own channel posts",
    )
    parser.add_argument("--level", default="easy", choices=("easy", "medium", "hard"), help="the computer's level")
    parser.add_argument("--guilds", type=int, default=3, help="servers the channels are spread over (default 3)")
    parser.add_argument("--before", type=float, default=None, help="seconds of play before the fault (5; quick 3)")
    parser.add_argument("--after", type=float, default=None, help="seconds of play after it (30; quick 10)")
    parser.add_argument(
        "--fault-seconds", type=float, default=None, help="how long the 429/5xx/latency faults last (30; quick 10)"
    )
    parser.add_argument("--fault-share", type=float, default=0.3, help="share of requests a 5xx fault hits (0.3)")
    parser.add_argument("--status", type=int, default=502, help="the 5xx faults' status (default 502)")
    parser.add_argument("--limit-window", type=float, default=5.0, help="429-route: the tightened bucket's window (s)")
    parser.add_argument("--timeout", type=float, default=20, help="seconds to wait for one answer (default 20)")
    parser.add_argument(
        "--drain",
        type=float,
        default=GRACE["turn"] + 10,
        help=f"seconds to wait for boards at the end (default {GRACE['turn'] + 10:g})",
    )
    parser.add_argument(
        "--heartbeat-ms",
        type=int,
        default=41250,
        help="the gateway's heartbeat interval in ms (default 41250, Discord's)",
    )
    parser.add_argument(
        "--bot-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="more bot settings, e.g. HONGBOT_HEARTBEAT_TIMEOUT=20 (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the work directories (bot logs)")
    parser.add_argument(
        "--examples",
        type=int,
        default=0,
        metavar="N",
        help="print what the player saw for N moves of each failing kind (default 0)",
    )
    parser.add_argument("--routes", action="store_true", help="print the REST requests by route after each fault")
    args = parser.parse_args()
    args.before = args.before if args.before is not None else (3 if args.quick else 5)
    args.after = args.after if args.after is not None else (10 if args.quick else 30)
    args.fault_seconds = args.fault_seconds if args.fault_seconds is not None else (10 if args.quick else 30)
    args.after_fault_pause = 1.0
    names = [n.strip() for spec in (args.fault or ["all"]) for n in spec.split(",") if n.strip()]
    if "all" in names:
        names = [n for n, f in FAULTS.items() if f.quick or not args.quick]
    unknown = [n for n in names if n not in FAULTS]
    if unknown:
        parser.error(f"unknown fault(s) {', '.join(unknown)}; choose from {', '.join(FAULTS)} or all")
    if args.quick:
        names = [n for n in names if FAULTS[n].quick] or names
    logging.getLogger("tests.emulator").setLevel(logging.ERROR)  # refusals are counted, not logged one by one
    rng = random.Random(args.seed)
    results: list[tuple[str, int, str, list | None]] = []
    for name in names:
        for r in range(args.runs):
            verdict, lines = await one(args, FAULTS[name], rng)
            results.append((name, r + 1, verdict, lines))
    print(
        "\n== summary (targets: 100% answered within 3 s; every other count 0; invalid requests < 100 in the 429 "
        "faults)"
    )
    header = [
        "fault",
        "answered ≤3 s",
        "applied unanswered",
        "lost",
        "doubled",
        "no board",
        "invalid/10 min",
        "other",
        "",
    ]
    rows = [header]
    for name, r, verdict, lines in results:
        label = name + (f" #{r}" if args.runs > 1 else "")
        if lines is None:
            rows.append([label, *["—"] * 7, verdict])
        else:
            other = (
                ", ".join(f"{SHORT.get(what, what)} {value}" for what, value, met in lines[6:] if met is False) or "—"
            )
            rows.append([label, *[value.split(" (404")[0] for _, value, _ in lines[:6]], other, verdict])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 1 if any(verdict == "FAIL" for _, _, verdict, _ in results) else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
