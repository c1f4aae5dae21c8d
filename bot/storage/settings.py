"""Per-server settings, kept in Redis: turn timer, reminders, a thread per game.

Stored as a hash (key: :meth:`bot.storage.keys.Keys.settings`); a missing field means the default.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import re
import unicodedata
from dataclasses import dataclass, replace

import pytimeparse2
from babel import Locale, UnknownLocaleError
from babel.numbers import NumberFormatError, format_decimal, parse_decimal
from babel.units import format_unit

from .. import i18n
from ..core.errors import UserError
from ..i18n import _
from .store import guarded, writing
from .keys import Keys
from ..i18n.wording import describe_duration
from .decoding import RedisClient
from .decoding import decoded_hash

MIN_TURN_TIMER = 60  # seconds: 1 minute
MAX_TURN_TIMER = 7 * 24 * 3600  # 7 days
DEFAULT_TURN_TIMER = 24 * 3600
RESIGN_CONFIRMATION = 60  # seconds a "Resign your game?" question can be confirmed


@dataclass(frozen=True)
class GuildSettings:
    """One server's settings.

    Attributes:
        turn_timer: seconds a player has for a turn before forfeiting (60 … 604,800; default 86,400).
        reminders: remind the player to move, once, at about half the time.
        threads: open a public thread for each game (the game lives there).
        language: the language of the server's public posts, a code of :func:`bot.i18n.languages` (``"de"``);
            None (default): the server's preferred locale as Discord reports it, else English.
        web: the web companion (:mod:`bot.web`) in this server, one of :data:`WEB_MODES`: ``"off"`` (default: every
            page of the server answers 404), ``"link"`` (a game's page to whoever has its link; pages ``noindex``),
            ``"public"`` (also the server's leaderboard and live games as a page).
        web_epoch: bumped to revoke every web link of the server at once (:mod:`bot.storage.weblinks`).
    """

    turn_timer: int = DEFAULT_TURN_TIMER
    reminders: bool = True
    threads: bool = False
    language: str | None = None
    web: str = "off"
    web_epoch: int = 0


#: The values of ``/settings web``: off (default), link, public (see :attr:`GuildSettings.web`).
WEB_MODES = ("off", "link", "public")


#: CLDR's duration units and the English word pytimeparse2 reads for each.
_UNITS = {
    "duration-week": "weeks",
    "duration-day": "days",
    "duration-hour": "hours",
    "duration-minute": "minutes",
    "duration-second": "seconds",
}
#: A number and the word after it: ``"1,5 Std."`` → ``("1,5", "std.")``.
_AMOUNT = re.compile(r"([0-9]+(?:[.,][0-9]+)*)\s*([^\s0-9.,、]+\.?)?")


@functools.cache
def _unit_words(code: str) -> tuple[dict[str, str], str | None, Locale | None]:
    """How language ``code`` writes the duration units, from CLDR (Babel's ``format_unit``: every width and plural
    form, ``"Stunden"``, ``"Std."``, ``"時間"``, ``"heure"``; English's too, under the language's own) → the English
    unit; the word joining the last two of a list (``"und"``, ``"和"``), and the locale (its numbers). Lowercase,
    NFKC. An unknown code: English's."""
    try:
        locale = Locale.parse(code)
    except (ValueError, UnknownLocaleError):
        locale = Locale.parse("en")
    words: dict[str, str] = {}
    for source in (locale, Locale.parse("en")):
        for unit, english in _UNITS.items():
            for width in ("long", "short", "narrow"):
                for count in (1, 2, 5, 21, 1.5):  # a count of each plural form (one, few, many, other)
                    written = format_unit(count, unit, length=width, locale=source)
                    number = format_decimal(count, locale=source)
                    word = unicodedata.normalize("NFKC", written.replace(number, "", 1)).strip().lower()
                    if word:
                        words.setdefault(word, english)
    joined = unicodedata.normalize("NFKC", locale.list_patterns.get("standard", {}).get("2", "{0}, {1}"))
    joiner = joined.replace("{0}", "").replace("{1}", "").strip().lower() or None
    return words, joiner, locale


def _in_english_units(text: str, code: str) -> str:
    """``text`` (normalised, lowercase) with the units and numbers of language ``code`` written as the English
    ones pytimeparse2 reads: ``"1 stunde und 30 min."`` → ``"1 hours 30 minutes"``, ``"1.440 minuten"`` →
    ``"1440 minutes"``, ``"1,5 std."`` → ``"1.5 hours"``, ``"2日"`` → ``"2 days"``; ``text`` unchanged if it isn't
    written so (a number without its unit, a word that is no unit, a number the language doesn't write so)."""
    words, joiner, locale = _unit_words(code)
    joined = text
    if joiner:  # a word ("und") only where it stands alone; a sign ("、", "和") anywhere
        joined = re.sub(
            rf"(?<!\w){re.escape(joiner)}(?!\w)" if joiner.isalpha() and joiner.isascii() else re.escape(joiner),
            " ",
            joined,
        )
    parts, end = [], 0
    for match in _AMOUNT.finditer(joined):
        if joined[end : match.start()].strip(" ,、"):
            return text  # something between the amounts: not a duration written this way
        number, word = match.group(1), match.group(2)
        english = words.get(word or "") or words.get((word or "").rstrip("."))
        if english is None:
            return text
        try:
            amount = parse_decimal(number, locale=locale, strict=True)
        except NumberFormatError:
            return text
        parts.append(f"{amount} {english}")
        end = match.end()
    return " ".join(parts) if parts and not joined[end:].strip(" ,、") else text


def parse_duration(text: str) -> int:
    """A duration as people write it → whole seconds: ``"90 minutes"``, ``"1h 30m"``, ``"1h30m"``, ``"12 hours"``,
    ``"2 days"``, ``"1.5h"``, ``"1 hour and 30 minutes"``, ``"a day"``, full-width ``"１２h"`` (read by pytimeparse2,
    a maintained, dependency-free parser of time expressions) — and in the current language, with CLDR's unit
    names: ``"90 Minuten"``, ``"1 Std. 30 Min."``, ``"1,5 heure"``, ``"2日"``, ``"12小时"`` (:func:`_in_english_units`).

    Raises:
        UserError: unreadable, a number without its unit (``"90"``: minutes or seconds?), or outside
            1 minute … 7 days — said in words in the current language (``"'3 weeks' is too long: the turn timer can
            be at most 7 days"``).
    """
    shown = " ".join((text or "").split())
    t = unicodedata.normalize("NFKC", shown).lower()
    t = re.sub(r"^an? ", "1 ", re.sub(r"\band\b", " ", t))  # "a day", "1 hour and 30 minutes"
    least, most = describe_duration(MIN_TURN_TIMER), describe_duration(MAX_TURN_TIMER)
    if re.search(r"[0-9]", t) and not re.search(r"[^\W\d_]", t):  # numbers, no word: "90", "1:30", "+600 and"
        if not re.search(r"[1-9]", t):  # "0": no unit makes it long enough
            raise UserError(
                _(
                    "'{text}' is too short: the turn timer must be at least {least} (it can be between "
                    "{least} and {most}).",
                    text=shown,
                    least=least,
                    most=most,
                )
            )
        number = t.strip() if re.fullmatch(r"[0-9]+(\.[0-9]+)?", t.strip()) else "90"
        # TRANSLATORS: {text} is what was typed (90, 1:30), {number} a number from it or 90; "m" and "h" are units
        # the bot reads (keep them); {least} and {most} are durations ("1 minute", "7 days")
        raise UserError(
            _(
                "'{text}' has no unit: write e.g. {number}m for minutes or {number}h for hours (the turn "
                "timer is between {least} and {most}).",
                text=shown,
                number=number,
                least=least,
                most=most,
            )
        )
    if re.search(r"[0-9]{10,}", t):  # more than 7 days in any unit (and more than the parser reads)
        total: float | None = MAX_TURN_TIMER + 1
    else:
        total = (pytimeparse2.parse(t) or pytimeparse2.parse(_in_english_units(t, i18n.current()))) if t else None
    if total is None:
        # TRANSLATORS: the examples are what the bot reads: English units, and this language's units as CLDR writes
        # them (tests/storage/test_settings.py reads the examples of each catalog)
        raise UserError(
            _(
                "Can't read '{text}' as a duration: write a number and a unit, e.g. 90 minutes, 1h 30m, "
                "12 hours or 2 days.",
                text=shown,
            )
        )
    if total < MIN_TURN_TIMER:
        raise UserError(
            _(
                "'{text}' is too short: the turn timer must be at least {least} (it can be between {least} "
                "and {most}).",
                text=shown,
                least=least,
                most=most,
            )
        )
    if total > MAX_TURN_TIMER:
        raise UserError(
            _(
                "'{text}' is too long: the turn timer can be at most {most} (it can be between {least} and {most}).",
                text=shown,
                least=least,
                most=most,
            )
        )
    return int(round(total))


#: The task of the current interaction and the settings it has read, by server (:func:`read_once`).
_READ: contextvars.ContextVar[tuple[asyncio.Task | None, dict[int, GuildSettings]] | None] = contextvars.ContextVar(
    "settings_read", default=None
)


def read_once() -> None:
    """From now on in the current task (an interaction's handler: :func:`bot.interface.answers.watch`), a server's
    settings are read from Redis once and kept for the rest of the interaction — a move reads them for its turn
    timer and again for the language of its post — unless the task changes them. Tasks started from this one (the
    computer's reply, say, which may come much later) read them afresh."""
    _READ.set((asyncio.current_task(), {}))


def _read() -> dict[int, GuildSettings] | None:
    """What the current interaction has read (:func:`read_once`), or None outside one."""
    read = _READ.get()
    return read[1] if read is not None and read[0] is asyncio.current_task() else None


class SettingsStore:
    """Read and change :class:`GuildSettings` in Redis (once per interaction: :func:`read_once`)."""

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis

    async def get(self, guild_id: int | None) -> GuildSettings:
        """The server's settings (defaults where unset; defaults for ``None``)."""
        if guild_id is None:
            return GuildSettings()
        read = _read()
        if read is not None and guild_id in read:
            return read[guild_id]
        raw = decoded_hash(await self.redis.hgetall(Keys.settings(guild_id)))
        settings = GuildSettings()
        if "turn_timer" in raw:
            settings = replace(settings, turn_timer=int(raw["turn_timer"]))
        if "reminders" in raw:
            settings = replace(settings, reminders=raw["reminders"] == "1")
        if "threads" in raw:
            settings = replace(settings, threads=raw["threads"] == "1")
        if raw.get("web") in WEB_MODES:
            settings = replace(settings, web=raw["web"])
        if raw.get("web_epoch", "").isdigit():
            settings = replace(settings, web_epoch=int(raw["web_epoch"]))
        if raw.get("language") in i18n.languages():  # a language whose catalog was removed: the default again
            settings = replace(settings, language=raw["language"])
        if read is not None:
            read[guild_id] = settings
        return settings

    @staticmethod
    def _forget(guild_id: int) -> None:
        """Read ``guild_id``'s settings from Redis again after a change (see :func:`read_once`)."""
        read = _read()
        if read is not None:
            read.pop(guild_id, None)

    async def language_of(self, guild) -> str:
        """The language of public posts in ``guild`` (a ``discord.Guild``, or None for a DM): the one set with
        ``/settings language``, else the server's preferred locale (see :func:`bot.i18n.server_language`)."""
        if guild is None:
            return i18n.SOURCE
        chosen = (await self.get(guild.id)).language
        return i18n.server_language(chosen, getattr(guild, "preferred_locale", None))

    async def update(self, guild_id: int, **changes) -> GuildSettings:
        """Change some settings (``turn_timer`` seconds, ``reminders``, ``threads``, ``language``: a code of
        :func:`bot.i18n.languages`, or ``"auto"`` for the server's preferred locale; ``web``: one of
        :data:`WEB_MODES`); returns the result.

        Raises:
            ValueError: ``web`` is not one of :data:`WEB_MODES`.
        """
        fields: dict[str, str | int] = {}
        writing()  # (for the one error path: a failure from here on may have changed something)
        self._forget(guild_id)
        for name, value in changes.items():
            if value is None:
                continue
            if name == "language":
                if value == "auto":  # refused when the store lost its data (bot.storage.store.guarded; one server only)
                    await guarded(self.redis, None, ("HDEL", Keys.settings(guild_id), "language"))
                else:
                    fields[name] = str(value)
                continue
            if name == "web":
                if value not in WEB_MODES:
                    raise ValueError(f"web must be one of {WEB_MODES}, not {value!r}")
                fields[name] = value
                continue
            fields[name] = int(value) if name == "turn_timer" else ("1" if value else "0")
        if fields:
            await guarded(
                self.redis, None, ("HSET", Keys.settings(guild_id), *[x for kv in fields.items() for x in kv])
            )
        return await self.get(guild_id)

    async def revoke_web_links(self, guild_id: int) -> GuildSettings:
        """Revoke every web link of the server at once: its :attr:`GuildSettings.web_epoch` goes up by one, so every
        token made before answers 404 (:meth:`bot.storage.weblinks.WebLinks.resolve`) and new links differ. Returns
        the settings after."""
        writing()
        self._forget(guild_id)
        await guarded(self.redis, None, ("HINCRBY", Keys.settings(guild_id), "web_epoch", 1))
        return await self.get(guild_id)
