"""Memory benchmark (on demand, not part of the tests): the memory a running game costs, and each process's, with
``--games`` (10,000) games running — the real ``python -m bot`` against the local Discord emulator and a standalone
redis-server.

    .venv/bin/python tests/bench/memory.py                  # 10,000 games
    .venv/bin/python tests/bench/memory.py --games 1000 --rate 20

The world: ``--games`` channels over ``--guilds`` servers, two members each; the games (Hong Kong and Hong, half
each) are stored through the game layer before the bot starts, their first boards' announcements dropped (the bot
would post them all at its start). Then the bot starts (it caches the servers, channels and members as discord.py
does) and its start's work is done (it uses under 15% of a core), and each game gets one move (``/<game> place`` at
``--rate`` a second), so the bot meets every game — reads, checks, commits, draws and posts it.

Printed: the resident memory (RSS; USS, the memory no other process shares, in brackets) of the bot process and of
its worker processes (render, computer) just after it started and after a move in every game; the growth per
game; and Redis's ``used_memory`` per game.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
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
from bot.storage.keys import Keys  # noqa: E402
from bot.storage.store import GameStore  # noqa: E402
from tests.bench.load import BOARD, options_of  # noqa: E402
from tests.bot.processes import RedisServer, kill9, start_bot_process  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402

MB = 1024 * 1024


def memory(pid: int) -> dict[str, tuple[float, float]]:
    """RSS and USS (MB) of the bot process and of its workers together."""

    def of(p: psutil.Process) -> tuple[float, float]:
        info = p.memory_full_info()
        return info.rss / MB, info.uss / MB

    bot = psutil.Process(pid)
    workers = [of(c) for c in bot.children(recursive=True)]
    return {
        "bot": of(bot),
        f"workers ({len(workers)})": (sum(w[0] for w in workers), sum(w[1] for w in workers)),
    }


async def settled(pid: int, *, below: float = 0.15, limit: float = 300) -> None:
    """Wait (at most ``limit`` s) until the bot uses less than ``below`` of a core over 2 s."""
    bot = psutil.Process(pid)
    end = time.monotonic() + limit
    while time.monotonic() < end:
        before = sum(bot.cpu_times()[:2])
        await asyncio.sleep(2)
        if sum(bot.cpu_times()[:2]) - before < 2 * below:
            return


def shown(figures: dict[str, tuple[float, float]]) -> str:
    return ", ".join(f"{k} {rss:.0f} MB ({uss:.0f})" for k, (rss, uss) in figures.items())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--guilds", type=int, default=10)
    parser.add_argument("--rate", type=float, default=50, help="moves a second (default 50)")
    parser.add_argument("--bot-env", action="append", default=[], metavar="KEY=VALUE", help="more bot settings")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="memory-"))
    emu = DiscordEmulator(patch_discord=False, heartbeat_interval_ms=30000, spec=False)
    server = RedisServer(workdir / "redis")
    proc = None
    try:
        await emu.start()
        emu.rate_limits.enabled = False  # (the bench's own pace: not Discord's limits)
        posted: set[str] = set()
        store_message = emu._store_message

        def stored(msg) -> None:
            store_message(msg)
            stored_board(msg)

        edit = emu.rest._apply_edit

        def edited(msg, *args, **kwargs):  # (the first follow-up after a deferral edits its "thinking…")
            result = edit(msg, *args, **kwargs)
            stored_board(msg)
            return result

        def stored_board(msg) -> None:
            for attachment in msg.attachments:
                m = BOARD.match(attachment.filename)
                if m:
                    posted.add(m["game"])

        emu._store_message = stored
        emu.rest._apply_edit = edited
        server.start()
        redis = aioredis.Redis.from_pool(
            aioredis.BlockingConnectionPool.from_url(server.url, max_connections=50, decode_responses=True)
        )
        kinds = all_kinds()
        layer = GameLayer(GameStore(redis), kinds, rng=random.Random(1))
        guilds = [emu.create_guild(f"Memory {g}") for g in range(args.guilds)]
        started = time.monotonic()
        games = []  # (channel, kind, engine game, players)
        for i in range(args.games):
            guild = guilds[i % len(guilds)]
            channel = emu.create_channel(guild, f"games-{i}")
            users = [emu.create_user(f"m{i}-{seat}") for seat in (0, 1)]
            for user in users:
                emu.add_member(guild, user)
            games.append((guild, channel, "hongkong" if i % 2 else "hong", users))

        async def store(guild: int, channel: int, name: str, users: list[dict]) -> tuple:
            a, b = (Person(int(u["id"]), u["username"]) for u in users)
            kind = kinds[name]
            doc = await layer.challenge(kind, guild_id=guild, channel_id=channel, challenger=a, opponent=b, options={})
            record, game = await layer.accept(channel, doc.id, b)
            return channel, name, game, users, record

        stored_games = []
        for k in range(0, len(games), 200):
            stored_games += await asyncio.gather(*(store(*g) for g in games[k : k + 200]))
        # the first boards' announcements: the bot would post all of them at its start
        await redis.delete(Keys.OUTBOX, f"{Keys.OUTBOX}:tries", f"{Keys.OUTBOX}:shard")
        redis_games = await redis.info("memory")
        print(f"{args.games} games stored in {time.monotonic() - started:.0f} s over {args.guilds} servers", flush=True)

        env = dict(kv.split("=", 1) for kv in args.bot_env)
        proc = await start_bot_process(emu, 0, workdir / "bot", server.url, env=env)
        await settled(proc.pid)  # the start's own work done: the servers' members cached, every game's timers re-armed
        at_start = memory(proc.pid)
        print(f"started: {shown(at_start)}", flush=True)

        started = time.monotonic()
        for i, (channel, name, game, users, record) in enumerate(stored_games):
            delay = started + i / args.rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            move = random.Random(i).choice(game.legal_moves())
            mover = record.player(game.to_move).id  # (the seats are the record's: who moves first was drawn)
            user = next(u for u in users if int(u["id"]) == mover)
            await emu.slash(user, channel, f"{name} place", **options_of(name, move))
        deadline = time.monotonic() + 120
        while len(posted) < len(stored_games) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        await settled(proc.pid)
        after = memory(proc.pid)
        print(
            f"a move in every game ({len(posted)} boards posted in {time.monotonic() - started:.0f} s): {shown(after)}",
            flush=True,
        )
        per = {k: (after[k][0] - at_start[k][0]) * MB / args.games / 1024 for k in after if k in at_start}
        total = sum(v[0] for v in after.values())
        print(
            f"per running game: bot {per.get('bot', 0):.1f} KB (RSS growth over the moves); every process together "
            f"{total * MB / args.games / 1024:.1f} KB of RSS; Redis {int(redis_games['used_memory']) / args.games / 1024:.1f}"
            f" KB (used_memory {int(redis_games['used_memory']) / MB:.0f} MB)",
            flush=True,
        )
        await redis.aclose()
    finally:
        if proc is not None and proc.returncode is None:
            await kill9(proc)
        if server.proc is not None:
            server.proc.terminate()
            server.proc.wait(10)
        await emu.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
