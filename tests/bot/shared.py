"""A module whose end-to-end tests each play in their own channel, with their own people, and only read what they
made, shares one emulator and one bot (tests/conftest.py's ``shared_bot``) instead of starting both per test::

    from tests.bot.shared import emu, redis, running, world  # noqa: F401  (one emulator and bot for the module)

    @pytest.mark.asyncio(loop_scope="module")
    async def test_…(emu, world, running, redis): …

The four fixtures stand in for tests/conftest.py's: ``emu`` is the module's emulator with ``emu.errors`` emptied for
the test (each test sees only what went wrong during it), ``world`` new channels and people in its one guild,
``running`` its bot, ``redis`` a client on the bot's database — not flushed per test, which would pull the data from
under the running bot. The tests run in the module's event loop (``loop_scope="module"``), the bot's.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio


@pytest.fixture
def emu(shared_bot):
    shared_bot.emu.errors.clear()
    return shared_bot.emu


@pytest_asyncio.fixture(loop_scope="module")
async def world(shared_bot):
    """New channels and people, announced to the bot in the module's loop; ready once the bot has seen the
    channels (members come with each interaction, as from Discord)."""
    made = shared_bot.new_world()
    bot = shared_bot.running.bot
    for _ in range(250):  # 5 s
        guild = bot.get_guild(made.guild)
        if guild and all(guild.get_channel(c) for c in (made.channel, made.other_channel)):
            break
        await asyncio.sleep(0.02)
    return made


@pytest.fixture
def running(shared_bot):
    return shared_bot.running


@pytest.fixture
def redis(shared_bot):
    return shared_bot.redis
