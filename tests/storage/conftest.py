"""Fixtures of the storage tests: a second client ("another process") on the test's Redis, and a test clock that
starts at Redis's own time."""

from __future__ import annotations

import pytest

from tests.conftest import Clock, make_client

from .contents import redis_time


@pytest.fixture
async def other(redis_server, redis):
    """A second client on the same server and database as ``redis``: what another bot process would hold."""
    client = make_client(redis_server)
    yield client
    await client.aclose()


@pytest.fixture
async def redis_clock(redis) -> Clock:
    """A :class:`tests.conftest.Clock` set to Redis's ``TIME`` now, moved only by the test."""
    return Clock(await redis_time(redis))
