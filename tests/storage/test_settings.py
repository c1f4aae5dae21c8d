"""Server settings: durations as players type them, and the stored values."""

from __future__ import annotations

import pytest

from bot.core.errors import UserError
from bot.storage.settings import GuildSettings, SettingsStore, parse_duration
from bot.i18n.wording import describe_duration


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("30m", 1800),
        ("1h30m", 5400),
        ("2d", 172800),
        ("1m", 60),
        ("7d", 604800),
        ("1d25h", 176400),
        (" 12 h ", 43200),
        ("90 minutes", 5400),
        ("1h 30m", 5400),
        ("2 days", 172800),
        ("1 hour and 30 minutes", 5400),
        ("a day", 86400),
        ("1.5h", 5400),
        ("１２h", 43200),
        ("٣h", 10800),
        ("1 week", 604800),
        ("90 Seconds", 90),
        ("an hour", 3600),
        ("²h", 7200),  # NFKC: ² is 2
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "90",
            "'90' has no unit: write e.g. 90m for minutes or 90h for hours (the turn timer is between 1 minute and "
            "7 days).",
        ),
        ("0", "'0' is too short: the turn timer must be at least 1 minute"),
        ("00.0", "at least 1 minute"),
        ("1.2.3", "has no unit"),
        (
            "1h30",
            "Can't read '1h30' as a duration: write a number and a unit, e.g. 90 minutes, 1h 30m, 12 hours or 2 days.",
        ),
        ("⏰", "Can't read"),
        ("", "Can't read"),
        ("1 fortnight", "Can't read"),
        (
            "3 weeks",
            "'3 weeks' is too long: the turn timer can be at most 7 days (it can be between 1 minute and 7 days).",
        ),
        ("7d1s", "is too long: the turn timer can be at most 7 days"),
        ("1y", "at most 7 days"),
        ("999999999999d", "at most 7 days"),
        (
            "30s",
            "'30s' is too short: the turn timer must be at least 1 minute (it can be between 1 minute and 7 days).",
        ),
        ("0m", "at least 1 minute"),
        ("-1h", "at least 1 minute"),
    ],
)
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


async def test_an_interaction_reads_a_servers_settings_once_until_it_changes_them(redis):
    import asyncio

    from bot.storage.keys import Keys
    from bot.storage.settings import read_once

    store = SettingsStore(redis)
    await store.update(1, turn_timer=3600)

    async def interaction() -> list[GuildSettings]:
        read_once()
        first = await store.get(1)
        await redis.hset(Keys.settings(1), "turn_timer", "7200")  # changed by another process meanwhile
        kept = await store.get(1)  # (the same interaction: its first read)
        changed = await store.update(1, reminders=False)  # its own change: read again, the other's seen too
        await redis.hset(Keys.settings(1), "turn_timer", "600")
        spawned = await asyncio.create_task(store.get(1))  # a task it starts reads afresh
        assert spawned.turn_timer == 600
        return [first, kept, changed, await store.get(1)]

    first, kept, changed, after = await asyncio.create_task(interaction())
    assert first.turn_timer == kept.turn_timer == 3600
    assert changed == after == GuildSettings(turn_timer=7200, reminders=False, threads=False)
    assert (await store.get(1)).turn_timer == 600  # outside an interaction: always read


#: Durations as each language writes them (CLDR's unit names, every width; the language's "and" and decimal
#: symbol), and which of them the language's catalog gives players as examples.
IN_LANGUAGES = {
    "de": {
        "90 Minuten": 5400,
        "1 Std. 30 Min.": 5400,
        "12 Stunden": 43200,
        "2 Tage": 172800,
        "1 Stunde und 30 Minuten": 5400,
        "1,5 Std.": 5400,
        "1 Tag": 86400,
        "1 Woche": 604800,
        "90 minutes": 5400,
    },
    "es": {"90 minutos": 5400, "1 h 30 min": 5400, "12 horas": 43200, "2 días": 172800, "1 hora y 30 minutos": 5400},
    "fr": {
        "90 minutes": 5400,
        "1 h 30 min": 5400,
        "12 heures": 43200,
        "2 jours": 172800,
        "1,5 h": 5400,
        "1 heure et 30 minutes": 5400,
        "2 j": 172800,
    },
    "pt_BR": {"90 minutos": 5400, "1 h 30 min": 5400, "12 horas": 43200, "2 dias": 172800, "1 hora e 30 minutos": 5400},
    "zh_CN": {"90分钟": 5400, "1小时30分钟": 5400, "12小时": 43200, "2天": 172800, "12 小时": 43200},
    "ja": {"90分": 5400, "1時間30分": 5400, "12時間": 43200, "2日": 172800, "90 分": 5400},
}


@pytest.mark.parametrize("code", sorted(IN_LANGUAGES))
def test_durations_in_the_players_language(code):
    """A player types the turn timer in their own language, as the catalog's examples show it."""
    from bot import i18n

    with i18n.language(code):
        assert {text: parse_duration(text) for text in IN_LANGUAGES[code]} == IN_LANGUAGES[code]
        example = i18n._(
            "Can't read '{text}' as a duration: write a number and a unit, e.g. 90 minutes, 1h 30m, "
            "12 hours or 2 days.",
            text="x",
        )
        help_ = i18n._("Time for a turn, 1 minute to 7 days, e.g. 90 minutes, 1h 30m, 2 days (default 24 hours)")
    shown = [text for text in IN_LANGUAGES[code] if text in example]
    assert len(shown) >= 4, (code, example)  # the refusal's examples are all readable in the language
    assert sum(text in help_ for text in IN_LANGUAGES[code]) >= 3, (code, help_)
    with i18n.language("en"):  # another language's units are not read in English
        with pytest.raises(UserError):
            parse_duration(
                {"de": "2 Tage", "es": "2 días", "fr": "2 jours", "pt_BR": "2 dias", "zh_CN": "2天", "ja": "2日"}[code]
            )


@pytest.mark.parametrize(
    "code, text, seconds",
    [
        ("de", "1.440 Minuten", 86400),
        ("es", "1.440 minutos", 86400),
        ("pt_BR", "1.440 minutos", 86400),
        ("de", "10.080 Minuten", 604800),
        ("es", "1.000 minutos", 60000),
        ("de", "1,5 hours", 5400),
        ("zh_CN", "1 min.", 60),
        ("ja", "1 min.", 60),
        ("de", "1 m.", 60),
        ("de", "1 Std. und 30 min", 5400),
    ],
)
def test_numbers_and_english_units_in_every_language(code, text, seconds):
    """A number as the language groups it (1.440 is 1440 in German, not 1.44) and English units in any language
    (found by a fresh tester: 1.440 Minuten was saved as 86 seconds)."""
    from bot import i18n

    with i18n.language(code):
        assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "code, text, words",
    [
        ("en", "600 and", "has no unit: write e.g. 600m"),
        ("en", "and 600", "has no unit"),
        ("en", "+600", "has no unit"),
        ("de", "600 und", "lesbare Dauer"),
        ("fr", "600 et", "comme une durée"),
        ("pt_BR", "600 e", "como duração"),
        ("zh_CN", "600和", "识别为时长"),
        ("ja", "600、", "単位がありません"),
        ("en", "1:30", "'1:30' has no unit"),
        ("en", "10:00", "has no unit: write e.g. 90m"),
        ("de", "1,440.5 Minuten", "lesbare Dauer"),
        ("en", "600", "e.g. 600m"),
    ],
)
def test_a_number_without_its_unit_is_refused_in_every_language(code, text, words):
    """A number is never read as seconds for want of a unit: "600 and" or "10:00" (minutes:seconds? hours?) are
    refused like "600" (found by a fresh tester: they were saved as 600 seconds)."""
    from bot import i18n

    with i18n.language(code), pytest.raises(UserError) as refused:
        parse_duration(text)
    assert words in str(refused.value)
