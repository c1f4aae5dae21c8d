"""The contract tests play every game through Discord with tests/conftest.py's end-to-end fixtures (a local Discord
emulator, a guild world, a running bot on the test's Redis)."""

from __future__ import annotations
