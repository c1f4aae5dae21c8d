"""Server settings: durations as players type them, and the stored values."""
from __future__ import annotations

import pytest

from bot.errors import UserError
from bot.settings import GuildSettings, SettingsStore, parse_duration
from bot.words import describe_duration


@pytest.mark.parametrize("text, seconds", [
    ("30m", 1800), ("1h30m", 5400), ("2d", 172800), ("1m", 60), ("7d", 604800), ("1d25h", 176400), (" 12 h ", 43200),
    ("90 minutes", 5400), ("1h 30m", 5400), ("2 days", 172800), ("1 hour and 30 minutes", 5400), ("a day", 86400),
    ("1.5h", 5400), ("１２h", 43200), ("٣h", 10800), ("1 week", 604800), ("90 Seconds", 90), ("an hour", 3600), ("²h", 7200),  # NFKC: ² is 2
])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text, words", [
    ("90", "'90' has no unit: write e.g. 90m for minutes or 90h for hours (the turn timer is between 1 minute and "
           "7 days)."),
    ("0", "'0' has no unit"),
    ("1h30", "Can't read '1h30' as a duration: write a number and a unit, e.g. 90 minutes, 1h 30m, 12 hours or 2 days."),
    ("⏰", "Can't read"), ("", "Can't read"), ("1 fortnight", "Can't read"),
    ("3 weeks", "'3 weeks' is too long: the turn timer can be at most 7 days (it can be between 1 minute and 7 days)."),
    ("7d1s", "is too long: the turn timer can be at most 7 days"), ("1y", "at most 7 days"),
    ("999999999999d", "at most 7 days"),
    ("30s", "'30s' is too short: the turn timer must be at least 1 minute (it can be between 1 minute and 7 days)."),
    ("0m", "at least 1 minute"), ("-1h", "at least 1 minute"),
])
def test_bad_durations_say_what_is_wrong(text, words):
    with pytest.raises(UserError) as refused:
        parse_duration(text)
    assert words in str(refused.value)


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
