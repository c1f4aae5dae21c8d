"""Fixtures of the web companion's tests: a game played through the game layer on the test Redis, a server whose
``/settings web`` allows pages, and the web application on a real local port (aiohttp's test server)."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.core.session import Person
from bot.games.hongkong import HONGKONG
from bot.storage.weblinks import WebLinks
from bot.web.app import Web, make_app
from bot.web.limits import RateLimiter

ANN, BEN = Person(1, "Ann <b>&"), Person(2, "Ben")
GUILD, CH = 9, 500


async def start_game(layer, channel: int = CH, guild: int = GUILD):
    """A Hong Kong game between Ann and Ben in ``channel``: (record, game)."""
    doc = await layer.challenge(
        HONGKONG, guild_id=guild, channel_id=channel, challenger=ANN, opponent=BEN, options={"first": "me"}
    )
    return await layer.accept(channel, doc.id, BEN)


async def link_of(redis, record, mode: str = "link", language: str = "en") -> str:
    """Set the server's ``/settings web`` to ``mode`` and make the game's link (as the bot does when posting)."""
    links = WebLinks(redis)
    await links.settings.update(record.guild_id, web=mode)
    token = await links.game_link(record.guild_id, record.channel_id, record.id, language)
    assert token is not None
    return token


@pytest.fixture
async def web_client(redis):
    """A client of the web application on a local port (a generous rate limit; its own tests set one)."""
    state = Web(
        redis,
        "https://games.example.org",
        limiter=RateLimiter(capacity=10_000, rate=1000),
        poll=0.5,
        global_leaderboard=True,
    )
    client = TestClient(TestServer(make_app(state)))
    await client.start_server()
    yield client
    await client.close()
