"""Server settings: durations as players type them, and the stored values."""
from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.settings import GuildSettings, SettingsStore, parse_duration
from bot.words import describe_duration


@pytest.mark.parametrize("text, seconds", [
    ("30m", 1800), ("1h30m", 5400), ("2d", 172800), ("1m", 60), ("7d", 604800), ("1d25h", 176400), (" 12 h ", 43200),
])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text, words", [
    ("90", "give each number a unit"), ("1h30", "give each number a unit"), ("0", "give each number a unit"),
    ("²h", "Can't read"), ("٣h", "Can't read"), ("-1h", "Can't read"), ("1.5h", "Can't read"), ("⏰", "Can't read"),
    ("", "Can't read"), ("30s", "between 1 minute and 7 days"), ("7d1s", "between 1 minute and 7 days"),
    ("999999999999d", "between 1 minute and 7 days"), ("0m", "between 1 minute and 7 days"),
])
def test_bad_durations_say_what_is_wrong(text, words):
    with pytest.raises(UserError, match=words):
        parse_duration(text)


def test_describe_duration():
    assert describe_duration(86400) == "1 day"
    assert describe_duration(90061) == "1 day 1 hour"
    assert describe_duration(59) == "59 seconds"
    assert describe_duration(-5) == "0 seconds"


async def test_settings_store_round_trip(redis):
    store = SettingsStore(redis)
    assert await store.get(1) == GuildSettings()
    changed = await store.update(1, turn_timer=3600, reminders=False)
    assert changed == GuildSettings(turn_timer=3600, reminders=False, threads=False)
    assert await store.get(1) == changed and await store.get(2) == GuildSettings()
