"""A tournament's standings as a picture: a table of places, names, points and tie-breaks, the podium's rows marked.

Pure Pillow (no bot import): the caller gives the words (title, column headings) in its language and the rows as
text; names in any script are drawn by :mod:`render.text` (cut with "…" to their column).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .common import MIN_TEXT, Canvas, Palette, to_png
from .text import Style, fit_text, text_width

BACKGROUND = (250, 247, 240)
INK = (40, 36, 32)
MUTED = (120, 112, 104)
RULE = (214, 206, 194)
HEAD = (60, 72, 96)
ON_HEAD = (255, 255, 255)
#: Gold, silver and bronze: the first three places' bands.
PODIUM = ((246, 222, 140), (222, 224, 230), (232, 200, 168))
PALETTE = Palette(
    (BACKGROUND, INK, MUTED, RULE, HEAD, ON_HEAD, *PODIUM),
    blends=[(INK, BACKGROUND), (MUTED, BACKGROUND), (ON_HEAD, HEAD), *((INK, p) for p in PODIUM), (MUTED, RULE)],
)
WIDTH = 900
ROW = 44
TITLE = Style(34, bold=True)
HEADING = Style(MIN_TEXT, bold=True)
CELL = Style(28)
NOTE = Style(MIN_TEXT)
#: The narrowest a number column is (px).
NUMBERS = 110
#: At most this many rows are drawn (the rest: the text answer has them).
MAX_ROWS = 32


@dataclass(frozen=True)
class Line:
    """One row: its ``place`` ("1", "" for a shared place after its first row), ``name``, ``points``, the tie-break
    values in column order, whether the player withdrew (drawn muted), and ``medal`` (1–3: the podium band; 0 none;
    None: banded by ``place``)."""

    place: str
    name: str
    points: str
    tie_breaks: tuple[str, ...]
    withdrawn: bool = False
    medal: int | None = None


def standings_png(
    title: str, headings: Sequence[str], lines: Sequence[Line], *, podium: bool = True, withdrawn_note: str = ""
) -> bytes:
    """The standings table as PNG bytes, :data:`WIDTH` px wide. ``headings``: place, name, points, then one per
    tie-break (as many as each line's ``tie_breaks``); each number column is as wide as its heading needs (at least
    :data:`NUMBERS`), the name column takes the rest. ``podium``: the first three places banded gold, silver and
    bronze. A withdrawn player's row is muted and says ``withdrawn_note`` ("withdrew", in the caller's language)
    after the name, never cut. At most :data:`MAX_ROWS` lines are drawn."""
    shown = list(lines)[:MAX_ROWS]
    height = 70 + ROW * (len(shown) + 1) + 16
    canvas = Canvas(PALETTE.new((WIDTH, height), BACKGROUND), PALETTE)
    canvas.text((24, 20), fit_text(title, TITLE, WIDTH - 48), TITLE, INK, BACKGROUND)
    right = WIDTH - 24
    widths = column_widths(headings)
    edges = [right - sum(widths[i + 1 :]) for i in range(len(widths))]  # right edges: points, then each tie-break
    points_right, columns = edges[0], edges[1:]
    name_left, name_right = 96, points_right - widths[0] + 20
    top = 70
    canvas.rectangle((0, top, WIDTH, top + ROW), fill=HEAD)
    middle = top + ROW / 2
    canvas.text((72, middle), fit_text(headings[0], HEADING, 60), HEADING, ON_HEAD, HEAD, anchor="rm")
    canvas.text(
        (name_left, middle), fit_text(headings[1], HEADING, name_right - name_left), HEADING, ON_HEAD, HEAD, "lm"
    )
    for x, width, heading in zip(edges, widths, headings[2:]):
        canvas.text((x, middle), fit_text(heading, HEADING, width - 8), HEADING, ON_HEAD, HEAD, "rm")
    for i, line in enumerate(shown):
        y = top + ROW * (i + 1)
        band = PODIUM[int(line.place) - 1] if podium and line.place.isdigit() and int(line.place) <= 3 else BACKGROUND
        if podium and not line.place and i > 0:
            band = _band_above(canvas, y)
        if line.medal is not None:
            band = PODIUM[line.medal - 1] if podium and 1 <= line.medal <= 3 else BACKGROUND
        if band != BACKGROUND:
            canvas.rectangle((0, y, WIDTH, y + ROW), fill=band)
        canvas.line([(0, y + ROW - 1), (WIDTH, y + ROW - 1)], fill=RULE)
        ink = MUTED if line.withdrawn else INK
        middle = y + ROW / 2
        canvas.text((72, middle), line.place, CELL, ink, band, anchor="rm")
        name_end: float = name_right
        if line.withdrawn and withdrawn_note:
            note = fit_text(withdrawn_note, NOTE, (name_right - name_left) / 2)
            canvas.text((name_right, middle), note, NOTE, ink, band, "rm")
            name_end = name_right - text_width(note, NOTE) - 12
        canvas.text((name_left, middle), fit_text(line.name, CELL, name_end - name_left), CELL, ink, band, "lm")
        canvas.text((points_right, middle), line.points, Style(28, bold=True), ink, band, anchor="rm")
        for x, value in zip(columns, line.tie_breaks):
            canvas.text((x, middle), value, CELL, ink, band, anchor="rm")
    return to_png(canvas.image)


def column_widths(headings: Sequence[str]) -> list[int]:
    """The number columns' widths in px (points, then each tie-break: ``headings[2:]``), each as wide as its heading
    needs and at least :data:`NUMBERS`, together within 60% of the table (the widest give way first)."""
    widths = [max(NUMBERS, round(text_width(heading, HEADING)) + 16) for heading in headings[2:]]
    while sum(widths) > WIDTH * 0.6 and max(widths) > NUMBERS:
        widths[widths.index(max(widths))] -= 4
    return widths


def _band_above(canvas: Canvas, y: int) -> tuple[int, int, int]:
    """The band colour of the row above ``y`` (a shared place continues its band)."""
    index = canvas.image.getpixel((2, y - 2))
    colour = PALETTE.colours[int(index)] if isinstance(index, int) else BACKGROUND
    return colour if colour in PODIUM else BACKGROUND


__all__ = ["Line", "standings_png", "column_widths", "WIDTH", "MAX_ROWS"]
