"""The end-to-end fixtures of tests/bot (a local Discord emulator, a guild world, a running bot on the test's Redis),
for the contract tests that play every game through Discord."""
from __future__ import annotations

from tests.bot.conftest import emu, running, world

__all__ = ["emu", "running", "world"]
