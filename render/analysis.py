"""The win-chance graph of a game's analysis (:mod:`engine.ai.analysis`): one image, both players' colours.

The first player's chance to win is drawn move by move as a line across the middle (50%): where it is above, the
area between them is filled in the first player's colour (they lead), below in the second player's. Both axes are
labelled: the first player's chance to win up the left, the moves played along the bottom. The moves an analysis
lists (the plies given as ``marks``) are ringed on the line, and each ring is tied by a thin line to its number
(``mark_labels``: the same move numbers the text uses) in a row under the plot, where no line or area can cover it
(numbers too close together are spread apart). A game that stopped off the board (``ending``: a resignation, a loss on
time) ends with a dashed drop from its last position to its result, with words saying what happened. Words (title,
legend, axes) are in the language of ``translations`` (:mod:`render.labels`) and no smaller than
:data:`render.common.MIN_TEXT` on the 1000 px image, so at least 10 px where a phone shows it 400 px wide
(tests/bench/legibility.py's rule). Pure: data in, a palette image or PNG bytes out.
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
from render.labels import Translations, parts, player_names, words
from render.text import Style, fit_parts, fit_text, render_label, text_width

__all__ = ["WIDTH", "HEIGHT", "graph_image", "graph_png", "spread"]

#: The image's size in px.
WIDTH, HEIGHT = 1000, 580
_TITLE = Style(34, bold=True)
_TEXT = Style(MIN_TEXT + 3)
_SMALL = Style(MIN_TEXT)
_LEFT, _RIGHT, _TOP, _BOTTOM = 118, 34, 125, 150
#: A mark's number: its box's height and the room its text leaves on each side (px).
_PILL_H, _PILL_PAD = 34, 8


def graph_image(
    chances: Sequence[float],
    names: tuple[str, str],
    palette: Palette,
    *,
    marks: Sequence[int] = (),
    mark_labels: Sequence[str] | None = None,
    ending: tuple[float, str] | None = None,
    translations: Translations | None = None,
) -> Image.Image:
    """The graph as a palette image (:data:`WIDTH` × :data:`HEIGHT`) in ``palette``.

    Args:
        chances: the first player's (seat 0's) chance to win at the start and after each move, each 0–1
            (:meth:`engine.ai.analysis.Analysis.chances`); at least one value.
        names: the players' display names (seat 0, seat 1), any text.
        palette: the game renderer's palette (:attr:`render.contract.Renderer.palette`): it holds both players'
            colours and the base colours every palette has.
        marks: plies (from 1) to ring: the moves the analysis lists.
        mark_labels: the number written for each mark (the move numbers the text uses); None: the ply itself.
        ending: for a game that stopped off the board, seat 0's result (1 won, 0 lost, 0.5 drawn) and the words
            saying how ("Ben resigned"); None for a game over on the board (its last chance is its result).
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

    def y_of(p: float) -> float:
        return bottom - min(1.0, max(0.0, float(p))) * (bottom - top)

    points = [(left + i * step, y_of(chances[i])) for i in range(len(chances))]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        _fill_between(c, x0, y0, x1, y1, mid)
    c.line([(left, mid), (right, mid)], fill=MUTED, width=2)
    if len(points) > 1:
        c.line(points, fill=INK, width=4)
    if ending is not None:
        _ending(c, points[-1], y_of(ending[0]), ending[1], (left, top, right, bottom))
    # the axes: the first player's chance up the left, the moves along the bottom
    for p, text in ((1.0, "100%"), (0.5, "50%"), (0.0, "0%")):
        c.text((left - 10, y_of(p)), text, _SMALL, INK, BACKGROUND, "rm")
    # TRANSLATORS: the graph's vertical axis: whose chance to win it shows ({name}: the first player).
    axis = w.gettext("{name}: chance to win", name=w.name(first))
    _style, texts = fit_parts(parts(axis), [_SMALL], bottom - top, name_min=60)  # (the name cut, not the words)
    _upright(c, (22, (top + bottom) / 2), "".join(texts))
    ticks_y = bottom + 14 + _PILL_H + 8
    for i in _ticks(n):
        c.text((left + i * step, ticks_y), str(i), _SMALL, INK, BACKGROUND, "ma")
    c.text(((left + right) / 2, HEIGHT - 8), w.pgettext("image", "moves played"), _SMALL, INK, BACKGROUND, "md")
    # the listed moves: ringed on the line, numbered in a row under the plot, a thin line between
    shown = [
        (ply, mark_labels[k] if mark_labels is not None and k < len(mark_labels) else str(ply))
        for k, ply in enumerate(marks)
        if 1 <= ply <= n
    ]
    widths = [text_width(text, _SMALL) + 2 * _PILL_PAD for _ply, text in shown]
    centres = spread([points[ply][0] for ply, _text in shown], widths, left, right)
    pill_top = bottom + 14
    for (ply, text), width, centre in zip(shown, widths, centres):
        x1, y1 = points[ply]
        c.line([(x1, y1 + 13), (x1, bottom), (centre, pill_top)], fill=HIGHLIGHT, width=2)
        c.ellipse((x1 - 13, y1 - 13, x1 + 13, y1 + 13), outline=HIGHLIGHT, width=5)
        c.rounded_rectangle(
            (centre - width / 2, pill_top, centre + width / 2, pill_top + _PILL_H),
            8,
            fill=BACKGROUND,
            outline=HIGHLIGHT,
            width=3,
        )
        c.text((centre, pill_top + _PILL_H / 2), text, _SMALL, INK, BACKGROUND, "mm")
    return image


def spread(centres: Sequence[float], widths: Sequence[float], low: float, high: float, gap: float = 4) -> list[float]:
    """Centres for boxes of ``widths`` wanted at ``centres`` (in increasing order) on one row between ``low`` and
    ``high``, moved as little as needed so that none overlaps the next (``gap`` px between) and all stay within the
    row: a box that would overlap its left neighbour goes right of it, then the row is pushed back from the right
    edge. Returns the centres in the same order."""
    out: list[float] = []
    for centre, width in zip(centres, widths):
        lowest = low + width / 2 if not out else out[-1] + (widths[len(out) - 1] + width) / 2 + gap
        out.append(max(centre, lowest))
    for i in range(len(out) - 1, -1, -1):
        highest = high - widths[i] / 2 if i == len(out) - 1 else out[i + 1] - (widths[i] + widths[i + 1]) / 2 - gap
        out[i] = min(out[i], highest)
    return out


def _ending(c: Canvas, last: tuple[float, float], result_y: float, text: str, plot: tuple[float, ...]) -> None:
    """A game stopped off the board: a dashed drop from its last position (``last``) to its result (``result_y``),
    a dot there, and ``text`` beside it, on a box of the background so that it reads over any area."""
    left, top, right, bottom = plot
    x, y = last
    direction = 1 if result_y >= y else -1
    yy = y
    while (result_y - yy) * direction > 0:
        end = yy + 10 * direction
        c.line([(x, yy), (x, min(end, result_y) if direction > 0 else max(end, result_y))], fill=INK, width=4)
        yy = end + 6 * direction
    c.ellipse((x - 9, result_y - 9, x + 9, result_y + 9), fill=INK)
    words = fit_text(text, _SMALL, (right - left) / 2)
    width = text_width(words, _SMALL) + 2 * _PILL_PAD
    box_y = min(max(result_y - _PILL_H / 2, top + 4), bottom - 4 - _PILL_H)
    box_x = x - 20 - width
    c.rounded_rectangle((box_x, box_y, box_x + width, box_y + _PILL_H), 8, fill=BACKGROUND, outline=INK, width=2)
    c.text((box_x + width / 2, box_y + _PILL_H / 2), words, _SMALL, INK, BACKGROUND, "mm")


def _upright(c: Canvas, centre: tuple[float, float], text: str) -> None:
    """``text`` drawn upwards (turned 90° anticlockwise), centred on ``centre``: an axis's label."""
    label = render_label(text, _SMALL, INK, BACKGROUND, c.palette, "mm")
    turned, mask = label.image.rotate(90, expand=True), label.mask.rotate(90, expand=True)
    c.paste(turned, (round(centre[0] - turned.width / 2), round(centre[1] - turned.height / 2)), mask)


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
    ending: tuple[float, str] | None = None,
    translations: Translations | None = None,
) -> bytes:
    """:func:`graph_image` as PNG bytes (8-bit palette)."""
    return to_png(
        graph_image(
            chances, names, palette, marks=marks, mark_labels=mark_labels, ending=ending, translations=translations
        )
    )
