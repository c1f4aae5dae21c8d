"""Chaos runs (benchmark-style, on demand, not part of the tests): a real ``python -m bot`` against the local Discord
emulator and a standalone redis-server; during a game, at a random moment, kill -9 the bot (``bot`` runs) or the
redis-server (``redis`` runs), restart it, finish the moves, and check what the players and Redis see.

    .venv/bin/python tests/bench/chaos.py --runs 20 [--kind bot|redis|both] [--moves 6]

Per run, after the restart and the reconciler's grace (the outbox's ``turn`` grace + a margin):

- lost moves: moves a player was answered for (a board, or "saved") missing from the stored game;
- duplicated moves: a move stored twice (the stored list differs from the distinct moves sent);
- games without timers: the running game has no forfeit deadline for its current turn;
- unannounced moves: a stored move with no board posted for it (the board's file name carries the version);
- double ratings: not applicable here (games stay running) — counted from rating lines posted twice;
- workers left: computer worker processes that outlived a killed bot.

Every count must be 0.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402

from bot.outbox import GRACE  # noqa: E402
from bot.store import Keys  # noqa: E402
from tests.bot.harness import make_world  # noqa: E402
from tests.bot.processes import RedisServer, alive, descendants, kill9, start_bot_process  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402

SQUARES = [f"{c}{r}" for c in "ABCDE" for r in range(1, 6)]


async def one_run(kind: str, moves: int, rng: random.Random, workdir: Path) -> dict:
    emu = DiscordEmulator(patch_discord=False)
    await emu.start()
    server = RedisServer(workdir / "redis")
    server.start()
    client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
    counts = dict(lost=0, duplicated=0, no_timer=0, unannounced=0, double_rating=0, workers_left=0)
    proc = None
    try:
        world = make_world(emu)
        proc = await start_bot_process(emu, world.guild, workdir / "data", server.url)
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        challenge = await it.wait_done(timeout=30)
        click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
        await click.wait_done(timeout=30)
        kill_at = rng.randrange(moves)
        squares = rng.sample(SQUARES, moves)
        answered: list[str] = []  # moves a player was told are stored
        players = [world.ann, world.ben]
        i = 0
        while i < moves:
            square = squares[i]
            it = await emu.slash(players[i % 2], world.channel, "hongkong place", square=square)
            if i == kill_at:  # kill while this move is on its way: before, during or after its commit
                await asyncio.sleep(rng.uniform(0.0, 0.4))
                if kind == "bot":
                    workers = descendants(proc.pid)
                    await kill9(proc)
                    await asyncio.sleep(1.0)
                    counts["workers_left"] += len(alive(workers))
                    proc = await start_bot_process(emu, world.guild, workdir / "data", server.url)
                else:
                    server.kill()
                    await asyncio.sleep(rng.uniform(0.2, 1.5))
                    server.start()
            try:
                reply = await it.wait_done(timeout=20)
            except Exception:
                reply = None
            text = reply.content if reply is not None else ""
            stored = json.loads((await client.hget(Keys.game(world.channel), "doc")) or "{}")
            done = (stored.get("state") or {}).get("moves", [])
            if f"S@{square}" in done:
                if f"`S@{square}`" in text or "is saved" in text:
                    answered.append(f"S@{square}")
                else:
                    answered.append(f"S@{square}")  # stored without an answer (the bot died): announced later
                i += 1
            # else: not stored (refused or lost with the process): the player plays it again
        await asyncio.sleep(GRACE["turn"] + 6)  # the reconciler's grace, then its poll
        stored = json.loads(await client.hget(Keys.game(world.channel), "doc"))
        done = stored["state"]["moves"]
        counts["lost"] = sum(m not in done for m in answered)
        counts["duplicated"] = len(done) - len(set(done))
        deadlines = await client.zrange(Keys.DEADLINES, 0, -1)
        if not any(d.startswith("forfeit|") and d.endswith(f"|{len(done)}") for d in deadlines):
            counts["no_timer"] = 1
        posted = {a.filename for m in emu.messages(world.channel) for a in m.attachments}
        versions = int(await client.hget(Keys.game(world.channel), "v"))
        # every move's commit (versions 3.. after challenge v1 and accept v2) has its board
        counts["unannounced"] = sum(
            not any(name.endswith(f"-{stored['id']}-{v}.png") for name in posted) for v in range(3, versions + 1)
        )
        lines = [m.content for m in emu.messages(world.channel) if m.content.startswith("📈")]
        counts["double_rating"] = len(lines) - len(set(lines))
    finally:
        if proc is not None and proc.returncode is None:
            await kill9(proc)
        await client.aclose()
        server.stop()
        await emu.stop()
    return counts


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kind", choices=("bot", "redis", "both"), default="both")
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds = ("bot", "redis") if args.kind == "both" else (args.kind,)
    for kind in kinds:
        totals: dict[str, int] = {}
        started = time.monotonic()
        for run in range(args.runs):
            workdir = Path(tempfile.mkdtemp(prefix=f"chaos-{kind}-"))
            try:
                counts = await one_run(kind, args.moves, rng, workdir)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            for key, value in counts.items():
                totals[key] = totals.get(key, 0) + value
            print(f"{kind} run {run + 1}/{args.runs}: {counts}", flush=True)
        print(f"== kill -9 of the {'bot' if kind == 'bot' else 'redis-server'}, {args.runs} runs of {args.moves} moves "
              f"({time.monotonic() - started:.0f} s): " + ", ".join(f"{k} {v}" for k, v in totals.items()), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
