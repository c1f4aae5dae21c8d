"""Kept analyses and hint counts (bot/storage/analyses.py) on a real Redis: stored with their expiry, read back,
unreadable ones treated as missing; hints counted per seat."""

from __future__ import annotations

from bot.storage.analyses import ANALYSIS_TTL, HINTS_TTL, Analyses
from bot.storage.keys import Keys


async def test_an_analysis_is_kept_with_its_expiry_and_read_back(redis):
    kept = Analyses(redis)
    assert await kept.get("k3x9q2ab") is None
    data = {"kind": "hongkong", "start": 0.5, "nodes": 10, "seed": 0, "plies": [{"ply": 1, "move": "S@B2"}]}
    await kept.put("k3x9q2ab", data)
    assert await kept.get("k3x9q2ab") == data
    assert ANALYSIS_TTL - 5 <= await redis.ttl(Keys.analysis("k3x9q2ab")) <= ANALYSIS_TTL


async def test_an_unreadable_analysis_is_missing(redis):
    await redis.set(Keys.analysis("broken01"), "{not json")
    await redis.set(Keys.analysis("broken02"), "[1, 2]")
    kept = Analyses(redis)
    assert await kept.get("broken01") is None and await kept.get("broken02") is None


async def test_hints_are_counted_per_seat(redis):
    kept = Analyses(redis)
    assert await kept.hints("k3x9q2ab") == {}
    assert [await kept.add_hint("k3x9q2ab", 1) for _ in range(3)] == [1, 2, 3]
    assert await kept.add_hint("k3x9q2ab", 0) == 1
    assert await kept.hints("k3x9q2ab") == {0: 1, 1: 3}
    assert HINTS_TTL - 5 <= await redis.ttl(Keys.hints("k3x9q2ab")) <= HINTS_TTL
