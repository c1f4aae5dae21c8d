"""The win-chance graph of a game's analysis (:mod:`engine.ai.analysis`): one image, both players' colours.

The first player's chance to win is drawn move by move as a line across the middle (50%): where it is above, the
area between them is filled in the first player's colour (they lead), below in the second player's. The game's
turning points (the plies given as ``marks``) are ringed and labelled (``mark_labels``: their turn numbers). Words (title, legend, axes)
are in the language of ``translations`` (:mod:`render.labels`) and no smaller than :data:`render.common.MIN_TEXT`
on the 1000 px image, so at least 10 px where a phone shows it 400 px wide (tests/bench/legibility.py's rule).
Pure: data in, a palette image or PNG bytes out.
"""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from render.common import (
    BACKGROUND,
    HIGHLIGHT,
    INK,
    MIN_TEXT,
    MUTED,
    PLAYER_COLOURS,
    PLAYER_DARK,
    TRACK,
    Canvas,
    Palette,
    to_png,
)
from render.labels import Translations, player_names, words
from render.text import Style, fit_text

__all__ = ["WIDTH", "HEIGHT", "graph_image", "graph_png"]

#: The image's size in px.
WIDTH, HEIGHT = 1000, 520
_TITLE = Style(34, bold=True)
_TEXT = Style(MIN_TEXT + 3)
_SMALL = Style(MIN_TEXT)
_LEFT, _RIGHT, _TOP, _BOTTOM = 90, 30, 120, 70


def graph_image(
    chances: Sequence[float],
    names: tuple[str, str],
    palette: Palette,
    *,
    marks: Sequence[int] = (),
    mark_labels: Sequence[str] | None = None,
    translations: Translations | None = None,
) -> Image.Image:
    """The graph as a palette image (:data:`WIDTH` × :data:`HEIGHT`) in ``palette``.

    Args:
        chances: the first player's (seat 0's) chance to win at the start and after each move, each 0–1
            (:meth:`engine.ai.analysis.Analysis.chances`); at least one value.
        names: the players' display names (seat 0, seat 1), any text.
        palette: the game renderer's palette (:attr:`render.contract.Renderer.palette`): it holds both players'
            colours and the base colours every palette has.
        marks: plies (from 1) to mark as turning points.
        mark_labels: the text beside each mark (the game's turn numbers, say); None: the ply itself.
        translations: the language of the words (None: English).

    Raises:
        ValueError: ``chances`` is empty.
    """
    if not chances:
        raise ValueError("a graph needs at least one chance")
    w = words(translations)
    first, second = player_names(names, w)
    image = palette.new((WIDTH, HEIGHT), BACKGROUND)
    c = Canvas(image, palette)
    # title and legend
    c.text(
        (_LEFT, 16),
        fit_text(w.gettext("Chance to win, move by move"), _TITLE, WIDTH - _LEFT - _RIGHT),
        _TITLE,
        INK,
        BACKGROUND,
    )
    x = float(_LEFT)
    half = (WIDTH - _LEFT - _RIGHT) / 2
    for seat, name in enumerate((first, second)):
        c.rectangle((x, 72, x + 26, 98), fill=PLAYER_COLOURS[seat], outline=PLAYER_DARK[seat], width=2)
        label = fit_text(w.gettext("{name} ahead", name=name), _TEXT, half - 50)
        c.text((x + 36, 85), label, _TEXT, INK, BACKGROUND, "lm")
        x += half
    # the plot area
    left, right, top, bottom = _LEFT, WIDTH - _RIGHT, _TOP, HEIGHT - _BOTTOM
    c.rectangle((left, top, right, bottom), fill=TRACK)
    mid = (top + bottom) / 2
    n = len(chances) - 1
    step = (right - left) / max(1, n)

    def at(i: int) -> tuple[float, float]:
        p = min(1.0, max(0.0, float(chances[i])))
        return left + i * step, bottom - p * (bottom - top)

    points = [at(i) for i in range(len(chances))]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        _fill_between(c, x0, y0, x1, y1, mid)
    c.line([(left, mid), (right, mid)], fill=MUTED, width=2)
    if len(points) > 1:
        c.line(points, fill=INK, width=4)
    # axes
    for p, text in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%")):
        c.text((left - 10, bottom - p * (bottom - top)), text, _SMALL, INK, BACKGROUND, "rm")
    for i in _ticks(n):
        c.text((left + i * step, bottom + 10), str(i), _SMALL, INK, BACKGROUND, "ma")
    c.text((right, HEIGHT - 6), w.pgettext("image", "moves played"), _SMALL, MUTED, BACKGROUND, "rd")
    # turning points
    for k, ply in enumerate(marks):
        if 1 <= ply <= n:
            x1, y1 = points[ply]
            c.ellipse((x1 - 13, y1 - 13, x1 + 13, y1 + 13), outline=HIGHLIGHT, width=5)
            above = y1 > top + 50
            label_y = y1 - 18 if above else y1 + 18
            label_x = min(right - 20, max(left + 20, x1))
            text = mark_labels[k] if mark_labels is not None and k < len(mark_labels) else str(ply)
            c.text((label_x, label_y), text, _SMALL, INK, TRACK, "md" if above else "ma")
    return image


def _fill_between(c: Canvas, x0: float, y0: float, x1: float, y1: float, mid: float) -> None:
    """Fill between the segment (x0, y0)–(x1, y1) and the middle line: the first player's colour above it, the
    second's below; a segment crossing the middle is split where it crosses."""
    if (y0 - mid) * (y1 - mid) < 0:
        xm = x0 + (x1 - x0) * (mid - y0) / (y1 - y0)
        _fill_between(c, x0, y0, xm, mid, mid)
        _fill_between(c, xm, mid, x1, y1, mid)
        return
    if y0 == mid and y1 == mid:
        return
    seat = 0 if min(y0, y1) < mid else 1
    c.polygon([(x0, mid), (x0, y0), (x1, y1), (x1, mid)], fill=PLAYER_COLOURS[seat])


def _ticks(n: int) -> list[int]:
    """Move numbers to write under the axis: 0, the last, and round steps between (at most about 10)."""
    if n <= 0:
        return [0]
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500) if n / s <= 10)
    ticks = list(range(0, n + 1, step))
    if n - ticks[-1] < step / 2 and ticks[-1] != n and len(ticks) > 1:
        ticks.pop()
    if ticks[-1] != n:
        ticks.append(n)
    return ticks


def graph_png(
    chances: Sequence[float],
    names: tuple[str, str],
    palette: Palette,
    *,
    marks: Sequence[int] = (),
    mark_labels: Sequence[str] | None = None,
    translations: Translations | None = None,
) -> bytes:
    """:func:`graph_image` as PNG bytes (8-bit palette)."""
    return to_png(graph_image(chances, names, palette, marks=marks, mark_labels=mark_labels, translations=translations))
