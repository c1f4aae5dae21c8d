"""Analysis benchmark (on demand, not part of the tests; issue 26): what post-game analysis costs.

    .venv/bin/python tests/bench/analysis.py                      # both parts
    .venv/bin/python tests/bench/analysis.py --part time          # analysis time only (in this process)
    .venv/bin/python tests/bench/analysis.py --part load --rate 20 --duration 60 --analyses 5

Part 1, ``time``: for each kind of game (Hong Kong; Hong on the castle, the castle with the lair, the garden, the inner
board) the longest of ``--games`` games the computer plays against itself (medium level, seeded), analysed here by
:func:`engine.ai.analysis.analyse` with its default budget: plies, seconds, seconds per position. Target: ≤ 30 s
for a full castle game with the lair on the reference 2-core host, in the background. Run this under ``nice`` as the
bot's analysis worker runs (``bot.exts.coach.ANALYSIS_NICE``): the numbers are then what a busy host leaves it.

Part 2, ``load``: a real bot process against the emulator and a standalone redis-server, driven by
``tests/bench/load.py``'s :class:`Load` (its games between people, its tracking of first responses, its report): one
window of ``--rate`` moves/s without analyses (the baseline), then one with ``--analyses`` ``/analyse`` commands sent
at its start, each of a finished castle-with-lair game (the longest kind) stored beforehand. Printed per window: the
people's first response (p50/p95/p99) as load.py prints it, and for the second the analyses' times from command to
result. Target: people's first response p99 ≤ 0.5 s while the analyses run.

Measured 2026-12-04 on the 2-core host while two other benchmarks shared it (load average 4–6), under ``nice -n 10``:
analysis time Hong Kong 26 plies 5.6–10.5 s (0.2–0.4 s a position), Hong castle 63 plies 3.0–4.9 s, castle with
the lair 69 plies 5.6–6.0 s (target ≤ 30 s), garden 63 plies 3.3–4.3 s, inner 46 plies 2.1–2.5 s. At 20 moves/s:
first response p99 178 ms without analyses, 274 ms while 5 analyses ran (target ≤ 0.5 s; board posted p99 368 →
636 ms), 0 failed; the 5 analyses, queued for one worker, answered in 31 s (median) to 53 s (the fifth).
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

from engine import hong, hongkong  # noqa: E402
from engine.ai import choose_move  # noqa: E402
from engine.ai.analysis import analyse  # noqa: E402
from engine.contract import Game  # noqa: E402

#: The kinds of game timed: name → a new game for a seed.
KINDS = {
    "hongkong": lambda seed: hongkong.new_game(seed % 2),
    "hong castle": lambda seed: hong.new_game("castle", seed=seed),
    "hong castle + lair": lambda seed: hong.new_game("castle", expansion=True, seed=seed),
    "hong garden": lambda seed: hong.new_game("garden", seed=seed),
    "hong inner": lambda seed: hong.new_game("inner", seed=seed),
}


def self_play(game: Game, seed: int, level: str = "medium") -> Game:
    """``game`` played to its end by the computer against itself."""
    while not game.is_over:
        game.play(choose_move(game, level, seed=seed))
    return game


def longest(kind: str, games: int) -> Game:
    """The longest of ``games`` seeded self-play games of ``kind``."""
    return max((self_play(KINDS[kind](seed), seed) for seed in range(1, games + 1)), key=lambda g: len(g.moves))


def time_part(games: int) -> None:
    print(f"== analysis time: the longest of {games} self-play games of each kind, default budget", flush=True)
    for kind in KINDS:
        game = longest(kind, games)
        started = time.perf_counter()
        report = analyse(game.to_dict())
        took = time.perf_counter() - started
        labels = sum(v.label is not None for v in report.verdicts())
        print(
            f"  {kind:20s} {len(game.moves):3d} plies  {took:6.1f} s  {took / max(1, len(game.moves)) * 1000:5.0f} ms "
            f"a position  ({labels} moves labelled)",
            flush=True,
        )


async def load_part(args: argparse.Namespace) -> None:
    from bot.core.record import Player, Record, Result, Status
    from bot.storage.keys import Keys
    from engine.result import EndReason
    from tests.bench.load import Load, percentiles

    lair = longest("hong castle + lair", args.games)
    load_args = argparse.Namespace(
        rates=str(args.rate),
        duration=args.duration,
        channels=max(10, int(3 * args.rate)),
        guilds=10,
        hong_share=0.5,
        computer_games=0,
        level="hard",
        processes=1,
        shards=0,
        cluster=False,
        redis_url="",
        bot_env=[],
        no_rate_limits=False,
        rtt=(50.0, 150.0),
        timeout=20.0,
        drain=20.0,
        setup_concurrency=10,
        seed=1,
        keep=args.keep,
    )
    workdir = Path(tempfile.mkdtemp(prefix="analysis-load-"))
    load = Load(load_args, workdir)
    try:
        await load.start()
        load.ready = asyncio.Queue()
        for ch in load.channels:
            load.ready.put_nowait(ch)
        channel = load.channels[0]
        guild = int(load.emu._channels[channel.id]["guild_id"])
        user = channel.players[0]
        ids = [f"bench{i:03d}" for i in range(args.analyses)]
        for gid in ids:  # finished castle-with-lair games of this server, recorded as the bot records them
            record = Record(
                id=gid,
                kind="hong",
                status=Status.FINISHED,
                guild_id=guild,
                channel_id=channel.id,
                challenger=int(user["id"]),
                opponent=int(channel.players[1]["id"]),
                players=(Player(int(user["id"]), "p0"), Player(int(channel.players[1]["id"]), "p1")),
                state=lair.to_dict(),
                ended=time.time(),
                result=Result(lair.winner, EndReason.FINISHED, ""),
            )
            await load.redis.set(Keys.finished(channel.id, gid), record.to_json())
            await load.redis.hset(Keys.GAME_INDEX, gid, str(channel.id))

        print(f"\n### baseline: {args.rate:g} moves/s, no analysis", flush=True)
        await load.run_rate(args.rate)

        print(
            f"\n### {args.rate:g} moves/s while {args.analyses} analyses of a {len(lair.moves)}-ply castle game with "
            "the lair run",
            flush=True,
        )
        done: list[float] = []

        async def one(gid: str) -> None:
            started = time.monotonic()
            it = await load.emu.slash(user, channel.id, "analyse", game=gid)
            await it.wait_message(lambda m: "Labels:" in m.content and bool(m.attachments), timeout=args.duration * 5)
            done.append(time.monotonic() - started)

        tasks = [asyncio.create_task(one(gid)) for gid in ids]
        await load.run_rate(args.rate)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        print(f"  analyses: {len(done)} done, {len(failed)} failed; command to result {percentiles(done)}", flush=True)
        for r in failed[:2]:
            print(f"    {type(r).__name__}: {str(r)[:600]}")
    finally:
        await load.stop()
        if args.keep:
            print(f"work directory (bot logs): {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("time", "load", "both"), default="both")
    parser.add_argument("--games", type=int, default=3, help="self-play games per kind; the longest is analysed")
    parser.add_argument("--rate", type=float, default=20, help="people's moves per second (default 20)")
    parser.add_argument("--duration", type=float, default=60, help="seconds per window (default 60)")
    parser.add_argument("--analyses", type=int, default=5, help="analyses sent at the second window's start")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (bot logs)")
    args = parser.parse_args()
    random.seed(1)
    if args.part in ("time", "both"):
        time_part(args.games)
    if args.part in ("load", "both"):
        asyncio.run(load_part(args))


if __name__ == "__main__":
    main()
