"""Per-server settings, kept in Redis: turn timer, reminders, a thread per game.

Stored as a hash (key: :meth:`bot.store.Keys.settings`); a missing field means the default.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import redis.asyncio as aioredis

from .errors import UserError
from .store import Keys
from .words import describe_duration

MIN_TURN_TIMER = 60  # seconds: 1 minute
MAX_TURN_TIMER = 7 * 24 * 3600  # 7 days
DEFAULT_TURN_TIMER = 24 * 3600


@dataclass(frozen=True)
class GuildSettings:
    """One server's settings.

    Attributes:
        turn_timer: seconds a player has for a turn before forfeiting (60 … 604,800; default 86,400).
        reminders: remind the player to move, once, at about half the time.
        threads: open a public thread for each game (the game lives there).
    """

    turn_timer: int = DEFAULT_TURN_TIMER
    reminders: bool = True
    threads: bool = False


def parse_duration(text: str) -> int:
    """``"90s"``, ``"30m"``, ``"12h"``, ``"2d"``, ``"1h30m"`` or plain seconds → seconds.

    Raises:
        UserError: unreadable, or outside 1 minute … 7 days.
    """
    t = (text or "").strip().lower().replace(" ", "")
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    total, number, ok = 0, "", bool(t)
    for ch in t:
        if ch in "0123456789":
            number += ch
        elif ch in units and number:
            total += int(number) * units[ch]
            number = ""
        else:
            ok = False
            break
    if not ok or number:  # junk, or a number without its unit ("90", "1h30")
        raise UserError(f"Can't read '{text}' as a duration: give each number a unit (s, m, h, d), "
                        "e.g. 30m, 12h, 2d or 1h30m.")
    if not MIN_TURN_TIMER <= total <= MAX_TURN_TIMER:
        raise UserError(f"The turn timer must be between 1 minute and 7 days; {describe_duration(total)} is not.")
    return total


class SettingsStore:
    """Read and change :class:`GuildSettings` in Redis."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis

    async def get(self, guild_id: int | None) -> GuildSettings:
        """The server's settings (defaults where unset; defaults for ``None``)."""
        if guild_id is None:
            return GuildSettings()
        raw = await self.redis.hgetall(Keys.settings(guild_id))
        settings = GuildSettings()
        if "turn_timer" in raw:
            settings = replace(settings, turn_timer=int(raw["turn_timer"]))
        if "reminders" in raw:
            settings = replace(settings, reminders=raw["reminders"] == "1")
        if "threads" in raw:
            settings = replace(settings, threads=raw["threads"] == "1")
        return settings

    async def update(self, guild_id: int, **changes) -> GuildSettings:
        """Change some settings (``turn_timer`` seconds, ``reminders``, ``threads``); returns the result."""
        fields = {}
        for name, value in changes.items():
            if value is None:
                continue
            fields[name] = int(value) if name == "turn_timer" else ("1" if value else "0")
        if fields:
            await self.redis.hset(Keys.settings(guild_id), mapping=fields)
        return await self.get(guild_id)
