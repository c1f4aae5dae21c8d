"""Message wording shared by every part of the bot: names, mentions, results, links, durations.

Pure of Discord's client (only ``discord.AllowedMentions``): every function takes plain values, a user's names
or a :class:`bot.record.Record` and returns text. Names are stored plain and escaped once here, on the way into a
message (:mod:`bot.names`).
"""
from __future__ import annotations

import discord

from . import names
from .record import Record

#: Posts that must not ping anyone.
NO_MENTIONS = discord.AllowedMentions.none()
#: Posts that ping the players they name (never @everyone or roles).
MENTION_PLAYERS = discord.AllowedMentions(everyone=False, roles=False, users=True)
#: A game id as it appears in button custom ids and commands (the ids we make are 8 of these characters).
GAME_ID = r"[a-z0-9]{1,16}"


def user_name(user) -> str:
    """The name a Discord user or member goes by here, plain (as stored; see :func:`bot.names.best`): the server
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
    name = record.player(seat).name
    if len(name) > limit:
        name = name[: limit - 1] + "…"
    return names.escape(name)


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


def plural(n: int, noun: str, many: str | None = None) -> str:
    """A count and its noun, agreeing: ``plural(1, "space")`` → ``"1 space"``, ``plural(8, "space")`` →
    ``"8 spaces"``, ``plural(2, "loss", "losses")`` → ``"2 losses"``. Every count the bot says goes through it."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def describe_duration(seconds: float) -> str:
    """Seconds → ``"2 days 3 hours"``, ``"45 minutes"``, ``"30 seconds"`` (the two largest units)."""
    seconds = max(0, int(round(seconds)))
    parts = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size:
            n, seconds = divmod(seconds, size)
            parts.append(plural(n, name))
    return " ".join(parts[:2]) or "0 seconds"


__all__ = ["NO_MENTIONS", "MENTION_PLAYERS", "GAME_ID", "user_name", "shown_user", "plain_names", "player_name",
           "jump_link", "result_short", "result_for", "plural", "describe_duration"]
