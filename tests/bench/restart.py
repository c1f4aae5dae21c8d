"""Benchmark a restart with many stored games: the real bot through the local Discord emulator, embedded Redis.

Run on demand (not part of the tests)::

    python tests/bench/restart.py [--games 1000]

Stores ``--games`` running games (Hong Kong and Hong, a few moves each) through the game layer, then starts the
bot three times and prints, for each start, the seconds until it is ready and how many times it called Discord's
sync route: the first start (the commands were never synced), a restart (unchanged commands: no sync), and a
restart after the stored hash of the commands is deleted (a sync forced, as every start did before). The emulator
answers a sync in milliseconds; Discord takes longer and rate-limits it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.core.session import GameLayer, Person  # noqa: E402
from bot.storage.embedded import start_embedded  # noqa: E402
from tests.bot.harness import make_world, start_bot  # noqa: E402
from tests.emulator import DiscordEmulator  # noqa: E402


async def store_games(layer: GameLayer, guild: int, count: int) -> None:
    rng = random.Random(1)
    a, b = Person(1, "Ann"), Person(2, "Ben")
    for i in range(count):
        kind = layer.kinds["hongkong" if i % 2 else "hong"]
        channel = 10_000 + i
        doc = await layer.challenge(kind, guild_id=guild, channel_id=channel, challenger=a, opponent=b, options={})
        doc, game = await layer.accept(channel, doc.id, b)
        for _ in range(rng.randrange(2, 12)):
            if game.is_over or game.pending is not None:
                break
            turn = await layer.play(kind, channel, doc.player(game.to_move).id, rng.choice(game.legal_moves()))
            game = turn.game


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = start_embedded(Path(data))
        redis_server = {"unix_socket_path": server.socket_file}
        # spec=False: the spec checks cost 1–5 ms an item (tests/bench/spec_cost.py), which the bench would measure
        emu = DiscordEmulator(patch_discord=False, spec=False)
        await emu.start()
        try:
            world = make_world(emu)
            bot = await start_bot(emu, redis_server, guild=world.guild)
            start = time.perf_counter()
            await store_games(bot.bot.layer, world.guild, args.games)
            print(f"stored {args.games} running games in {time.perf_counter() - start:.1f} s")
            await bot.stop()
            for label, forget in (("restart, commands unchanged", False), ("restart, sync forced", True)):
                if forget:
                    redis = bot.handle.client.__class__(unix_socket_path=server.socket_file, decode_responses=True)
                    await redis.delete(*[key async for key in redis.scan_iter(match="hongbot:commands:*")])
                    await redis.aclose()
                syncs, start = emu.sync_count, time.perf_counter()
                bot = await start_bot(emu, redis_server, guild=world.guild)
                print(
                    f"{label:30} ready in {time.perf_counter() - start:.2f} s, sync route called "
                    f"{emu.sync_count - syncs}×"
                )
                await bot.stop()
        finally:
            await emu.stop()
            server._cleanup()


if __name__ == "__main__":
    asyncio.run(main())
