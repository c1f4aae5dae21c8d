"""Message wording shared by every part of the bot: names, mentions, results, links, durations.

Pure of Discord's client (only ``discord.utils``' escaping and ``discord.AllowedMentions``): every function takes
plain values or a :class:`bot.record.Record` and returns text.
"""
from __future__ import annotations

import re

import discord
from discord.utils import escape_markdown, escape_mentions

from .record import Record

#: Posts that must not ping anyone.
NO_MENTIONS = discord.AllowedMentions.none()
#: Posts that ping the players they name (never @everyone or roles).
MENTION_PLAYERS = discord.AllowedMentions(everyone=False, roles=False, users=True)
#: A game id as it appears in button custom ids and commands (the ids we make are 8 of these characters).
GAME_ID = r"[a-z0-9]{1,16}"

_INVISIBLE = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u200b"), None)


def safe_name(name: str) -> str:
    """A display name fit to quote in a message: direction overrides and zero-width marks removed, white space
    folded, at most 32 characters (Discord's limit), markdown and mentions escaped (so a name can't ping anyone
    or restyle the message). Empty → ``"player"``."""
    name = " ".join((name or "").translate(_INVISIBLE).split())[:32] or "player"
    return escape_mentions(escape_markdown(name))


def plain_name(name: str) -> str:
    """Undo :func:`safe_name`'s escapes: ``"a\\_b"`` → ``"a_b"``."""
    return re.sub(r"\\(.)", r"\1", name).replace("\u200b", "")


def plain_names(record: Record) -> tuple[str, str]:
    """Display names of seat 0 and seat 1 without the escapes that make them safe in messages (for images)."""
    a, b = record.names
    return plain_name(a), plain_name(b)


def player_name(record: Record, seat: int, limit: int = 32) -> str:
    """A player's name from a record, shortened to ``limit`` characters and escaped for Discord markdown."""
    name = plain_name(record.player(seat).name)
    if len(name) > limit:
        name = name[: limit - 1] + "…"
    return escape_markdown(name)


def jump_link(guild_id: int, channel_id: int) -> str:
    """A link that opens the channel (or thread) in Discord."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}"


def result_short(record: Record) -> str:
    """"Ann won", "Ann won by resignation", "Ben won on time", "draw", "aborted", from a finished record."""
    result = record.result
    if result is None or result.reason.value == "aborted":
        return "aborted"
    if result.winner is None:
        return "draw"
    how = {"resigned": " by resignation", "timeout": " on time"}.get(result.reason.value, "")
    return f"{player_name(record, result.winner)} won{how}"


def result_for(record: Record, user_id: int) -> str:
    """The result from one player's side: "won", "lost", "draw" or "aborted", with how it ended."""
    result = record.result
    if result is None or result.reason.value == "aborted":
        return "aborted"
    if result.winner is None:
        return "draw"
    how = {"resigned": " (resignation)", "timeout": " (on time)"}.get(result.reason.value, "")
    return ("won" if result.winner == record.seat_of(user_id) else "lost") + how


def describe_duration(seconds: float) -> str:
    """Seconds → ``"2 days 3 hours"``, ``"45 minutes"``, ``"30 seconds"`` (the two largest units)."""
    seconds = max(0, int(round(seconds)))
    parts = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size:
            n, seconds = divmod(seconds, size)
            parts.append(f"{n} {name}{'s' if n != 1 else ''}")
    return " ".join(parts[:2]) or "0 seconds"


__all__ = ["NO_MENTIONS", "MENTION_PLAYERS", "GAME_ID", "safe_name", "plain_name", "plain_names", "player_name",
           "jump_link", "result_short", "result_for", "describe_duration"]
