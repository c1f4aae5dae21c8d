"""Fixtures shared by the end-to-end tests: a fresh Discord emulator, a guild world, a running bot."""
from __future__ import annotations

import random

import pytest

from tests.emulator import DiscordEmulator

from .harness import make_world, start_bot


@pytest.fixture
async def emu(clock):
    """A local Discord; the bot's own configuration (not the emulator) points discord.py at it. Interaction
    tokens age on the test's clock (Discord: 15 minutes for follow-ups)."""
    emulator = DiscordEmulator(patch_discord=False, clock=clock)
    await emulator.start()
    yield emulator
    await emulator.stop()


@pytest.fixture
async def world(emu):
    return make_world(emu)


@pytest.fixture
async def running(emu, world, redis_server, redis):
    """The bot, started on the test's Redis with a seeded rng (reproducible game ids and Hong seeds)."""
    bot = await start_bot(emu, redis_server, guild=world.guild, rng=random.Random(1))
    yield bot
    await bot.stop()
