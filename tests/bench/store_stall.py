"""Moves made while Redis hangs (benchmark-style, on demand, not part of the tests): a real ``python -m bot`` against
the local Discord emulator and a standalone redis-server; ``--games`` games are started, then the redis-server is
stopped with SIGSTOP for ``--stall`` seconds while one move per game is made at ``--rate`` moves/s; then it is resumed
(SIGCONT) and what the players and Redis see is checked.

    .venv/bin/python tests/bench/store_stall.py [--games 10] [--stall 5] [--rate 10]

Prints, per move, the first response's time after the interaction was sent (and its type: 4 a message, 5 a deferral,
6 a deferred update) and how it ended; then:

- answered within 3 s: initial responses the emulator accepted (Discord's deadline);
- applied and answered: stored, with the board posted;
- refused "not saved": the player was told, and the stored game does not have the move;
- applied without an answer / told "not saved" but stored / lost: must all be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402

from bot.storage.keys import Keys  # noqa: E402
from tests.bot.harness import make_world  # noqa: E402
from tests.bot.processes import RedisServer, start_bot_process  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402

FIRST = "B3"  # the first player's opening placement (a Hong Kong square)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--stall", type=float, default=5.0, help="seconds Redis is stopped")
    parser.add_argument("--rate", type=float, default=10.0, help="moves per second while it is stopped")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="hongbot-stall-"))
    # spec=False: the spec checks cost 1–5 ms an item (tests/bench/spec_cost.py), which the bench would measure
    emu = DiscordEmulator(patch_discord=False, spec=False)
    await emu.start()
    server = RedisServer(workdir / "redis")
    server.start()
    client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
    proc = None
    try:
        world = make_world(emu)
        proc = await start_bot_process(emu, world.guild, workdir / "data", server.url)
        channels = [world.channel] + [emu.create_channel(world.guild, f"games-{i}") for i in range(1, args.games)]
        for channel in channels:
            it = await emu.slash(world.ann, channel, "hongkong challenge", opponent=world.ben, first="me")
            challenge = await it.wait_done(timeout=30)
            click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
            await click.wait_followups(1, timeout=30)
        before = {c: await client.hget(Keys.game(c), "v") for c in channels}
        pid = server.proc.pid
        sent = []
        answered: dict[int, float] = {}  # interaction id -> seconds from its dispatch to its initial response
        outcome_at: dict[int, float] = {}  # … to its board or its "not saved"

        async def first_response(it) -> None:
            try:
                await it.wait_response(timeout=10)
            except Exception:  # noqa: BLE001 - no response in time: counted as such
                return
            answered[it.id] = time.monotonic() - it.dispatched_at
            try:
                await it.wait_done(timeout=30)
                await it.wait_message(lambda m: "not saved" in m.content or bool(m.attachments), timeout=30)
            except Exception:  # noqa: BLE001 - no outcome: counted below
                return
            outcome_at[it.id] = time.monotonic() - it.dispatched_at

        watchers = []
        os.kill(pid, signal.SIGSTOP)
        stopped_at = time.monotonic()
        try:
            for channel in channels:
                it = await emu.slash(world.ann, channel, "hongkong place", square=FIRST)
                sent.append((channel, it))
                watchers.append(asyncio.create_task(first_response(it)))
                await asyncio.sleep(1 / args.rate)
            await asyncio.sleep(max(0.0, stopped_at + args.stall - time.monotonic()))
        finally:
            os.kill(pid, signal.SIGCONT)
        await asyncio.gather(*watchers)
        results = []
        for channel, it in sent:
            try:
                await it.wait_done(timeout=30)
            except Exception as exc:  # noqa: BLE001 - reported below
                results.append((channel, it, f"no answer ({type(exc).__name__})"))
                continue
            results.append((channel, it, None))
        await asyncio.sleep(2.0)  # anything queued in Redis has run; a board from the outbox has had its chance
        counts = dict(in_time=0, applied=0, not_saved=0, silent=0, told_not_saved_but_stored=0, lost=0)
        print(
            f"Redis stopped {args.stall:.1f} s; {len(sent)} moves at {args.rate:g}/s "
            f"(first response: seconds after the interaction was sent)"
        )
        for channel, it, failure in results:
            answered_at = answered.get(it.id)
            stored = await client.hget(Keys.game(channel), "v") != before[channel]
            texts = [m.content for m in it.messages]
            board = any(m.attachments and f"{FIRST}`" in m.content and not m.ephemeral for m in it.messages)
            not_saved = any("was not saved" in t for t in texts)
            if answered_at is not None and answered_at <= emu.response_deadline:
                counts["in_time"] += 1
            if stored and board:
                counts["applied"] += 1
                outcome = "applied, board posted"
            elif stored and not_saved:
                counts["told_not_saved_but_stored"] += 1
                outcome = "STORED but told not saved"
            elif stored:
                counts["silent"] += 1
                outcome = "STORED without an answer"
            elif not_saved:
                counts["not_saved"] += 1
                outcome = "refused: not saved"
            else:
                counts["lost"] += 1
                outcome = f"neither stored nor refused ({failure or texts})"
            kind = it.response_type
            shown = f"{answered_at:.2f} s" if answered_at is not None else "none"
            told = f"{outcome_at[it.id]:.2f} s" if it.id in outcome_at else "never"
            print(f"  channel {channel}: first response {shown} (type {kind}); {outcome} at {told}")
        print(json.dumps(counts))
        print(
            f"answered within 3 s: {counts['in_time']}/{len(sent)}; applied and answered: {counts['applied']}; "
            f"refused not saved: {counts['not_saved']}; applied without an answer: {counts['silent']}; "
            f"told not saved but stored: {counts['told_not_saved_but_stored']}; lost: {counts['lost']}; "
            f"emulator errors: {len(emu.errors)}"
        )
    finally:
        if proc is not None and proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except asyncio.TimeoutError:
                proc.kill()
        await client.aclose()
        server.stop()
        await emu.stop()


if __name__ == "__main__":
    asyncio.run(main())
