"""The standings picture (:func:`render.standings.standings_png`) for a post: drawn in a worker thread, with its
words in the current language and an alt text."""

from __future__ import annotations

import asyncio
from functools import partial

from render.standings import Line, standings_png

from ...core.kinds import GameKind
from ...core.tournament.event import Tournament
from ...core.tournament.standings import Row, podium, shown
from ...i18n import _, n_
from ...interface.posts import Picture
from . import _words as words


async def standings_file(t: Tournament, kind: GameKind, rows: list[Row], title: str) -> Picture:
    """The standings as a :class:`Picture` (PNG and alt text)."""
    headings = [_("#"), _("Player"), _("Points"), *words.tie_break_names(t.format)]
    medals = {row.id: place for place, row in podium(rows)}
    lines = []
    for i, row in enumerate(rows):
        place = "" if i and rows[i - 1].place == row.place else str(row.place)
        name = words.player_name(row.id, row.name)
        lines.append(
            Line(
                place,
                name,
                shown(row.points),
                words.tie_break_values(t.format, row),
                row.withdrawn,
                medals.get(row.id, 0),
            )
        )
    data = await asyncio.to_thread(partial(standings_png, title, headings, lines, withdrawn_note=_("(withdrew)")))
    leaders = ", ".join(f"{r.place}. {words.player_name(r.id, r.name)} {shown(r.points)}" for r in rows[:3])
    alt = n_(
        "{title}: a table of {count} player. {leaders}",
        "{title}: a table of {count} players. {leaders}",
        len(rows),
        title=title,
        leaders=leaders,
    )
    return Picture(data, alt)


__all__ = ["standings_file"]
