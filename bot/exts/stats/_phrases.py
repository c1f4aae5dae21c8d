"""The stats feature's own wording: Discord timestamps, streaks, rating changes, game labels, leaderboard pages.

Shared wording (names, results, durations) is in :mod:`bot.i18n.wording`; this is only what the stats commands say, in
the current language (:mod:`bot.i18n`).
"""

from __future__ import annotations

import time

import discord

from ...i18n import _, n_
from ...core.kinds import GameKind
from ...i18n.names import escape
from ...storage.ratings import PROVISIONAL_GAMES, Page
from ...core.record import Record
from ...i18n.wording import player_name


def when(ts: float | None, style: str = "d") -> str:
    """A Discord timestamp (shown in each reader's own time zone and language), or "?"."""
    return f"<t:{int(ts)}:{style}>" if ts else "?"


def streak_text(streak: int) -> str:
    """+3 → "3 wins", −1 → "1 loss", 0 → "none"."""
    if streak > 0:
        return n_("{count} win", "{count} wins", streak)
    if streak < 0:
        return n_("{count} loss", "{count} losses", -streak)
    # TRANSLATORS: a streak of no wins and no losses
    return _("none")


def signed(n: int) -> str:
    """A rating change with its sign: "+158", "−158" (a real minus sign), "±0"."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "±0"


def rating_change_line(record: Record, change: dict[int, tuple[int, int]] | None) -> str:
    """ "ratings in this server: Ann 1500 → 1658 (+158) · Ben 1500 → 1342 (−158)", or "" when unrated.

    ``change``: user id → (displayed rating before, after), as :meth:`bot.storage.ratings.Ratings.change` returns it.
    """
    if not change:
        return ""
    parts = []
    for seat in (0, 1):
        found = change.get(record.player(seat).id)
        if found is not None:
            before, after = found
            parts.append(f"{player_name(record, seat)} {before} → {after} ({signed(after - before)})")
    # TRANSLATORS: {changes} is e.g. "Ann 1500 → 1658 (+158) · Ben 1500 → 1342 (−158)"
    return _("ratings in this server: {changes}", changes=" · ".join(parts))


def game_label(record: Record, kinds: dict[str, GameKind]) -> str:
    """One line about a game for autocomplete (≤ 100 characters): id, game, players, date (UTC)."""
    title = kinds[record.kind].title if record.kind in kinds else record.kind
    a, b = (name[:24] for name in record.plain_names)
    day = time.strftime("%Y-%m-%d", time.gmtime(record.ended or 0))
    # TRANSLATORS: also a game's line in the list of games as one types a game id.
    players = _("{game}: {first} vs {second}", game=title, first=a, second=b)
    return f"{record.id} · {players} · {day}"[:100]


def leaderboard_embed(kind: GameKind, scope: str, page: Page) -> discord.Embed:
    """The embed of one leaderboard page (rank, player, rating ± uncertainty or "?", games, W–L–D); ``scope``:
    ``"g"`` the global leaderboard, else this server's."""
    lines = []
    for i, (rank, s) in enumerate(page.entries):
        if s.provisional and page.established and page.start + i == page.established:
            # (provisional players come after every established one, whatever their rating: said once, before the
            # first of them)
            # TRANSLATORS: a leaderboard's line before its first provisional player; {count} is 5.
            lines.append(
                _(
                    "*Provisional — fewer than {count} rated games: ranked after the players with {count} or more, "
                    "whatever their rating.*",
                    count=PROVISIONAL_GAMES,
                )
            )
        name = escape(s.name)
        rating = f"**{s.rating}**" + ("?" if s.provisional else "")
        # TRANSLATORS: one line of a leaderboard: "` 1.` Ann — **1658** ± 120 · 3 games · 3–0–0" ({record}: W–L–D)
        lines.append(
            n_(
                "`{rank}.` {name} — {rating} ± {uncertainty} · {count} game · {record}",
                "`{rank}.` {name} — {rating} ± {uncertainty} · {count} games · {record}",
                s.games,
                rank=f"{rank:>3}",
                name=name,
                rating=rating,
                uncertainty=s.uncertainty,
                record=s.record_text(),
            )
        )
    title = (
        _("{game} — global leaderboard", game=kind.title)
        if scope == "g"
        else _("{game} — this server's leaderboard", game=kind.title)
    )
    embed = discord.Embed(title=title, description="\n".join(lines), colour=discord.Colour.blurple())
    embed.set_footer(
        text=n_(
            "Page {page}/{pages} · {count} player · rating ± uncertainty · W–L–D · ? = provisional "
            "(fewer than 5 rated games)",
            "Page {page}/{pages} · {count} players · rating ± uncertainty · W–L–D · ? = provisional "
            "(fewer than 5 rated games)",
            page.total,
            page=page.page + 1,
            pages=page.pages,
        )
    )
    return embed


__all__ = ["when", "streak_text", "signed", "rating_change_line", "game_label", "leaderboard_embed"]
