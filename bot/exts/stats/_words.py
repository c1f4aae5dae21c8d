"""The stats feature's own wording: Discord timestamps, streaks, rating changes, game labels, leaderboard pages.

Shared wording (names, results, durations) is in :mod:`bot.words`; this is only what the stats commands say.
"""
from __future__ import annotations

import time

import discord

from ...kinds import GameKind
from ...names import escape
from ...ratings import Page
from ...record import Record
from ...words import player_name, plural


def when(ts: float | None, style: str = "d") -> str:
    """A Discord timestamp (shown in each reader's own time zone and language), or "?"."""
    return f"<t:{int(ts)}:{style}>" if ts else "?"


def streak_text(streak: int) -> str:
    """+3 → "3 wins", −1 → "1 loss", 0 → "none"."""
    if streak > 0:
        return plural(streak, "win")
    if streak < 0:
        return plural(-streak, "loss", "losses")
    return "none"


def signed(n: int) -> str:
    """A rating change with its sign: "+158", "−158" (a real minus sign), "±0"."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "±0"


def rating_change_line(record: Record, change: dict[int, tuple[int, int]] | None) -> str:
    """"ratings in this server: Ann 1500 → 1658 (+158) · Ben 1500 → 1342 (−158)", or "" when unrated.

    ``change``: user id → (displayed rating before, after), as :meth:`bot.ratings.Ratings.change` returns it.
    """
    if not change:
        return ""
    parts = []
    for seat, player in enumerate(record.players):
        before, after = change.get(player.id, (None, None))
        if before is not None:
            parts.append(f"{player_name(record, seat)} {before} → {after} ({signed(after - before)})")
    return "ratings in this server: " + " · ".join(parts)


def game_label(record: Record, kinds: dict[str, GameKind]) -> str:
    """One line about a game for autocomplete (≤ 100 characters): id, game, players, date (UTC)."""
    title = kinds[record.kind].title if record.kind in kinds else record.kind
    a, b = (name[:24] for name in record.plain_names)
    day = time.strftime("%Y-%m-%d", time.gmtime(record.ended or 0))
    return f"{record.id} · {title}: {a} vs {b} · {day}"[:100]


def leaderboard_embed(kind: GameKind, scope_label: str, page: Page) -> discord.Embed:
    """The embed of one leaderboard page (rank, player, rating ± uncertainty or "?", games, W–L–D)."""
    lines = []
    for rank, s in page.entries:
        name = escape(s.name)
        rating = f"**{s.rating}**" + ("?" if s.provisional else "")
        lines.append(f"`{rank:>3}.` {name} — {rating} ± {s.uncertainty} · {plural(s.games, 'game')}"
                     f" · {s.record_text()}")
    embed = discord.Embed(title=f"{kind.title} — {scope_label} leaderboard", description="\n".join(lines),
                          colour=discord.Colour.blurple())
    embed.set_footer(text=f"Page {page.page + 1}/{page.pages} · {plural(page.total, 'player')}"
                          f" · rating ± uncertainty · W–L–D · ? = provisional (fewer than 5 rated games)")
    return embed


__all__ = ["when", "streak_text", "signed", "rating_change_line", "game_label", "leaderboard_embed"]
