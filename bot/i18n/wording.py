"""Message wording shared by every part of the bot: names, mentions, results, links, durations, and the engines'
messages in the current language (:func:`translate`).

Pure of Discord: every function takes plain values, a user's names
or a :class:`bot.core.record.Record` and returns text, in the current language (:mod:`bot.i18n`). Names are stored
plain and escaped once here, on the way into a message (:mod:`bot.i18n.names`).
"""

from __future__ import annotations


from babel.lists import format_list
from babel.units import format_unit

from engine import IllegalMove, Term

from .. import i18n
from . import names
from . import _, n_
from ..core.record import Record

#: A game id as it appears in button custom ids and commands (the ids we make are 8 of these characters).
GAME_ID = r"[a-z0-9]{1,16}"


def user_name(user) -> str:
    """The name a Discord user or member goes by here, plain (as stored; see :func:`bot.i18n.names.best`): the server
    nickname or display name, else the username, cleaned of invisible characters; "Player" if nothing is left."""
    return names.best(getattr(user, "display_name", None), getattr(user, "global_name", None), user.name)


def shown_user(user) -> str:
    """:func:`user_name` escaped once, for a message."""
    return names.escape(user_name(user))


def plain_names(record: Record) -> tuple[str, str]:
    """Display names of seat 0 and seat 1 as stored, plain (for images)."""
    return record.plain_names


def player_name(record: Record, seat: int, limit: int = 32) -> str:
    """A player's name for a message: shortened to ``limit`` characters (an ellipsis marks the cut), then escaped
    once for Discord markdown."""
    name = record.player(seat).plain
    if len(name) > limit:
        name = name[: limit - 1] + "…"
    return names.escape(name)


def jump_link(guild_id: int, channel_id: int) -> str:
    """A link that opens the channel (or thread) in Discord."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}"


def when(at: float) -> str:
    """A moment as a Discord timestamp shown relative to now in each reader's language and kept up to date by
    their app (``<t:1700000000:R>``: "in 10 minutes", "vor 2 Stunden"): every expiry the bot states is one, so an
    old message never says "10 minutes" when it means "expired". Write it where "in 10 minutes" reads right."""
    return f"<t:{int(at)}:R>"


def translate(message: object) -> str:
    """An engine's message (a :class:`engine.Term`, or the :class:`engine.IllegalMove` carrying one) in the
    current language: its template through the catalog (the plural form for its count), each field that is
    itself a ``Term`` translated the same way, then the fields filled in. Anything else is ``str(message)`` (a
    square, a move, a number, or a message the bot already built in the current language)."""
    if isinstance(message, IllegalMove):
        message = message.message
    if not isinstance(message, Term):
        return str(message)
    params = {name: translate(value) if isinstance(value, Term) else value for name, value in message.params.items()}
    if message.plural is not None:
        return n_(message.template, message.plural, message.number if message.number is not None else 1, **params)
    return _(message.template, **params)


def result_short(record: Record) -> str:
    """ "Ann won", "Ann won by resignation", "Ben won on time", "draw", "aborted", from a finished record."""
    result = record.result
    if result is None or result.reason.value == "aborted":
        return _("aborted")
    if result.winner is None:
        return _("draw")
    name = player_name(record, result.winner)
    if result.reason.value == "resigned":
        return _("{name} won by resignation", name=name)
    if result.reason.value == "timeout":
        return _("{name} won on time", name=name)
    return _("{name} won", name=name)


def result_for(record: Record, user_id: int) -> str:
    """The result from one player's side: "won", "lost", "draw" or "aborted", with how it ended."""
    result = record.result
    if result is None or result.reason.value == "aborted":
        return _("aborted")
    if result.winner is None:
        return _("draw")
    won = result.winner == record.seat_of(user_id)
    if result.reason.value == "resigned":
        return _("won (resignation)") if won else _("lost (resignation)")
    if result.reason.value == "timeout":
        return _("won (on time)") if won else _("lost (on time)")
    return _("won") if won else _("lost")


#: The units of :func:`describe_duration`, largest first: CLDR's unit name and its length in seconds.
_UNITS = (("duration-day", 86400), ("duration-hour", 3600), ("duration-minute", 60), ("duration-second", 1))


def describe_duration(seconds: float) -> str:
    """Seconds → ``"2 days 3 hours"``, ``"45 minutes"``, ``"0 seconds"`` (the two largest units), in the current
    language: each unit's words and the way two are joined come from CLDR through Babel (German ``"2 Tage,
    3 Stunden"``, Japanese ``"2 日 3 時間"``). English joins them with a space (CLDR's narrow unit list)."""
    seconds = max(0, int(round(seconds)))
    locale = i18n.current()
    parts = []
    for unit, size in _UNITS:
        if seconds >= size:
            n, seconds = divmod(seconds, size)
            parts.append(format_unit(n, unit, length="long", locale=locale))
    if not parts:
        return format_unit(0, "duration-second", length="long", locale=locale)
    try:
        return format_list(parts[:2], style="unit-narrow" if locale == i18n.SOURCE else "unit", locale=locale)
    except KeyError:  # Babel 2.19 with a locale whose data hold only part of the style (Spanish "unit": no "2")
        return format_list(parts[:2], style="standard", locale=locale)


__all__ = [
    "GAME_ID",
    "user_name",
    "shown_user",
    "plain_names",
    "player_name",
    "jump_link",
    "when",
    "translate",
    "result_short",
    "result_for",
    "describe_duration",
]
