"""Draw a game of Hong as a PNG sized for Discord on a phone.

The renderer :data:`RENDERER` (a :class:`render.contract.Renderer`: :func:`board_image`, its PNG :func:`render_board`
and :data:`PALETTE`). The picture, top to bottom:

* two player cards — the emperor (blue) and the dragon master (orange) with their names; the card of the
  player to move is filled with that player's colour and says TO MOVE (at the end the winner's says WINS);
* a status line: the Hong count against the board's threshold as text and as a row of ticks, and what
  happens now (who moves, who summons which dragon, or the result; on two lines where one would cut its words);
* the board: the real outline of its spaces (no-space squares are left out; the garden's pond is water and
  its trees are trees), coordinates on all four edges, each dragon tile as a thick **segment** from edge to
  edge with two big **heads** pointing out of the other two edges, stones as grey pebbles. Every Hong is drawn
  in colour — its segments and the two heads that cap it — inside an outline of its own, with a badge giving its
  size (a third of a cell high): horizontal Hongs in vermillion, vertical ones in bluish green. An outline ends in the middle of the cap
  tile, so two Hongs sharing a cap stay apart by the width of that tile's segment. The squares the last move
  changed are framed in the highlight colour;
* a legend in two rows: what H and V look like; the two Hong colours and what a badge's number means;
* with the expansion, the lair: a line saying what it is, then seven numbered spaces (Hong sizes 1–7) in two rows,
  each with its dragon's action as an icon and a word; summoned dragons are marked SUMMONED, the sizes a pending
  summon may choose are framed in the summoning player's colour.

Every word is in the language of the ``translations`` given (see :mod:`render.labels`; English by default): a
longer sentence shrinks or has its names cut, a label its size, so nothing is clipped — but nothing shrinks under
:data:`render.common.MIN_TEXT` (25 px: 10 px where a phone shows the board 400 px wide; tests/bench/legibility.py). Squares, numbers, notation and
the dragons' actions (``rotate``: what a player types in ``D2 rotate C4``) are the same in every language.

Speed: the board's spaces, outline, coordinates and legend are drawn once per board and language; tiles (drawn at three times
the size and scaled down, anti-aliased), stones and lair spaces are cached; text comes from the label cache; the
image is a palette image (:data:`PALETTE`) encoded with a fast zlib level. Pure: no I/O.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Sequence

from PIL import Image, ImageDraw

from engine.hong import ROLE_NAMES, Board, Hong, HongGame
from engine.result import Ended, EndReason
from render.common import (
    BACKGROUND,
    BASE_BLENDS,
    BASE_COLOURS,
    HIGHLIGHT,
    INK,
    MIN_TEXT,
    MUTED,
    PLAYER_COLOURS,
    PLAYER_DARK,
    WHITE,
    Canvas,
    Palette,
)
from render.contract import BoardRenderer, Renderer
from render.text import Style, fit_line, fit_parts_lines, fit_text, text_width
from render.labels import Translations, Words, parts, player_names, words

__all__ = ["render_board", "board_image", "WIDTH", "HONG_COLOURS", "PALETTE"]

Colour = tuple[int, int, int]

#: Image width in pixels (height depends on the board and the expansion).
WIDTH = 1000
#: Colour of a Hong's marking by direction (Okabe–Ito vermillion and bluish green).
HONG_COLOURS: dict[str, Colour] = {"H": (213, 94, 0), "V": (0, 158, 115)}

_PAD = 20
_HEADER_H = 128
_STATUS_H = 136  # the count, and the status line: one line, or two where one would cut its words
_COORD = 38  # margin for coordinates around the board
_LEGEND_H = 96  # two rows: the tiles, then the Hongs and what a badge's number means
_LAIR_H = 250  # the lair's note on a line of its own, then two rows of spaces
_LAIR_NOTE_H = 38
_BOARD_BOX = WIDTH - 2 * _PAD - 2 * _COORD

_WOOD: Colour = (226, 203, 160)
_WOOD_LINE: Colour = (190, 163, 118)
_OUTLINE: Colour = (92, 70, 44)
_TILE: Colour = (252, 248, 238)
_TILE_EDGE: Colour = (150, 138, 120)
_DRAGON: Colour = (62, 52, 48)
_STONE: Colour = (142, 142, 138)
_STONE_DARK: Colour = (96, 96, 92)
_STONE_LIGHT: Colour = (190, 190, 186)
_WATER: Colour = (86, 180, 233)
_WATER_DARK: Colour = (40, 120, 180)
_LEAF: Colour = (0, 130, 90)
_LEAF_LIGHT: Colour = (60, 170, 120)
_TRUNK: Colour = (120, 80, 40)
_SUMMONED: Colour = (234, 228, 216)  # a lair space whose dragon has left
_SS = 3  # supersampling factor for sprites
_PNG_LEVEL = 3  # a full board of tiles is 90–100 KB at zlib level 2; level 3 keeps it under 100 KB

#: The fixed palette of every Hong image.
PALETTE = Palette(
    colours=(
        *BASE_COLOURS,
        *HONG_COLOURS.values(),
        _WOOD,
        _WOOD_LINE,
        _OUTLINE,
        _TILE,
        _TILE_EDGE,
        _DRAGON,
        _STONE,
        _STONE_DARK,
        _STONE_LIGHT,
        _WATER,
        _WATER_DARK,
        _LEAF,
        _LEAF_LIGHT,
        _TRUNK,
        _SUMMONED,
    ),
    blends=(
        *BASE_BLENDS,
        (_DRAGON, _TILE),
        (HONG_COLOURS["H"], _TILE),
        (HONG_COLOURS["V"], _TILE),
        (_TILE, _WOOD),
        (_TILE_EDGE, _WOOD),
        (_DRAGON, _WOOD),
        (HONG_COLOURS["H"], _WOOD),
        (HONG_COLOURS["V"], _WOOD),
        (_STONE_DARK, _WOOD),
        (_STONE, _STONE_DARK),
        (_STONE_LIGHT, _STONE),
        (_WATER_DARK, _WOOD),
        (WHITE, _WATER),
        (_LEAF, _WOOD),
        (_LEAF_LIGHT, _LEAF),
        (_TRUNK, _WOOD),
        (WHITE, PLAYER_COLOURS[0]),
        (WHITE, PLAYER_COLOURS[1]),
        (PLAYER_DARK[0], WHITE),
        (PLAYER_DARK[1], WHITE),
        (PLAYER_DARK[0], BACKGROUND),
        (PLAYER_DARK[1], BACKGROUND),
        (INK, _WOOD),
        (INK, _SUMMONED),
        (MUTED, _SUMMONED),
        (HONG_COLOURS["H"], WHITE),
        (HONG_COLOURS["V"], WHITE),
        (_WOOD_LINE, _WOOD),
    ),
)

_ROLE = Style(28)
_ROLE_STYLES = (_ROLE, Style(26), Style(MIN_TEXT))
_TAG = Style(26, bold=True)
_CARD_NAME = Style(40)
_COUNT = Style(40)
_PLUS = Style(28)
_STATUS_STYLES = (Style(34), Style(30), Style(27))
_STATUS_SMALLER = (Style(MIN_TEXT),)  # where a language's words don't fit in the smallest of _STATUS_STYLES
_NAME_MAX = 270  # a name in the status line is cut to this width (px), so the sentence around it stays whole
_LEGEND_BADGE = Style(MIN_TEXT, bold=True)
_LAIR_NUMBER = Style(46, bold=True)
_LAIR_WORD = Style(27)
_LAIR_NOTE = Style(26)
_SUMMONED_TAG = Style(26, bold=True)
# Smaller sizes a label may shrink to where a language's words are longer than English (largest first).
_COUNT_STYLES = (_COUNT, Style(34), Style(28))
_TAG_STYLES = (_TAG, Style(MIN_TEXT, bold=True))
_LAIR_NOTE_STYLES = (_LAIR_NOTE, Style(MIN_TEXT))
_SUMMONED_STYLES = (_SUMMONED_TAG, Style(MIN_TEXT, bold=True))
#: Room for the Hong count's label (px): the rest of the line is for its ticks.
_COUNT_MAX = WIDTH // 2 - _PAD


# --------------------------------------------------------------------------------------------------
# Sprites (drawn at _SS times the size, scaled down, laid on wood, quantised, cached)


def _head(d: ImageDraw.ImageDraw, s: float, side: str, colour: Colour) -> None:
    """A dragon head on ``side`` (N/S/W/E) of a tile of size ``s``, snout at the edge, pointing out."""
    c = s / 2
    e = s * 0.035  # snout distance from the edge
    # Shape in "pointing north" coordinates: (dx from centre line, depth from the edge).
    # A broad snout at the edge, a wide skull, two horns swept back towards the tile's centre.
    shape = [
        (0, 0),
        (0.08, 0.01),
        (0.12, 0.10),
        (0.19, 0.16),
        (0.27, 0.34),
        (0.12, 0.26),
        (0.0, 0.29),
        (-0.12, 0.26),
        (-0.27, 0.34),
        (-0.19, 0.16),
        (-0.12, 0.10),
        (-0.08, 0.01),
    ]
    eyes = [(0.095, 0.175), (-0.095, 0.175)]

    def place(dx: float, depth: float) -> tuple[float, float]:
        dx, depth = dx * s, e + depth * s
        if side == "N":
            return c + dx, depth
        if side == "S":
            return c - dx, s - depth
        if side == "W":
            return depth, c - dx
        return s - depth, c + dx

    d.polygon([place(*p) for p in shape], fill=colour)
    r = s * 0.042
    for p in eyes:
        x, y = place(*p)
        d.ellipse((x - r, y - r, x + r, y + r), fill=_TILE)


def _sprite(size: int, draw: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """Run ``draw(ImageDraw, s)`` on a transparent square of ``size * _SS`` pixels; return it scaled down to
    ``size`` (RGBA, anti-aliased)."""
    s = size * _SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw(ImageDraw.Draw(im), s)
    return im.resize((size, size), Image.Resampling.BOX)  # area average: anti-aliased, and compresses well


def _on(sprite: Image.Image, ground: Image.Image) -> Image.Image:
    """``sprite`` (RGBA) laid on ``ground`` (any mode) and quantised to :data:`PALETTE`."""
    out = ground.convert("RGB")
    out.paste(sprite, (0, 0), sprite)
    return PALETTE.quantize(out)


def _on_wood(sprite: Image.Image) -> tuple[Image.Image, Image.Image]:
    """``sprite`` laid on wood, with the mask of the pixels it covers (for pasting over grid lines and edges)."""
    return _on(sprite, Image.new("RGB", sprite.size, _WOOD)), sprite.getchannel("A").point([0] + [255] * 255)


@lru_cache(maxsize=256)
def _tile_sprite(size: int, orient: str, body: Colour, head_a: Colour, head_b: Colour) -> Image.Image:
    """A dragon tile (RGBA, ``size`` square): segment along ``orient`` in colour ``body``; heads on the other two
    edges (N, S for ``H``; W, E for ``V``) in colours ``head_a``, ``head_b``."""

    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        inset = s * 0.035
        d.rounded_rectangle(
            (inset, inset, s - inset, s - inset),
            radius=s * 0.10,
            fill=_TILE,
            outline=_TILE_EDGE,
            width=max(1, int(s * 0.015)),
        )
        half = s * 0.13
        if orient == "H":
            d.rectangle((0, s / 2 - half, s, s / 2 + half), fill=body)
            _head(d, s, "N", head_a)
            _head(d, s, "S", head_b)
        else:
            d.rectangle((s / 2 - half, 0, s / 2 + half, s), fill=body)
            _head(d, s, "W", head_a)
            _head(d, s, "E", head_b)

    return _sprite(size, draw)


@lru_cache(maxsize=16)
def _grounds(board: Board, expansion: bool) -> tuple[dict[tuple[int, int], int], tuple[Image.Image, ...]]:
    """What each space of ``board`` shows under a tile (wood, grid lines, the outline on edge spaces): a space
    ``(col, row)`` → the index of its ground among the distinct ones, and those grounds."""
    L = _layout(board, expansion)
    s, background = L["cell"], _background(board, expansion, words())  # (no words on a space)
    index: dict[tuple[int, int], int] = {}
    seen: dict[bytes, int] = {}
    grounds: list[Image.Image] = []
    for i, ch in enumerate(board.template):
        if ch != ".":
            continue
        col, row = i % board.width, i // board.width
        x, y = L["left"] + col * s, L["top"] + row * s
        ground = background.crop((x, y, x + s, y + s))
        index[(col, row)] = seen.setdefault(ground.tobytes(), len(grounds))
        if index[(col, row)] == len(grounds):
            grounds.append(ground)
    return index, tuple(grounds)


@lru_cache(maxsize=512)  # about 6 MB at most
def _tile_on_ground(
    board: Board, expansion: bool, ground: int, orient: str, body: Colour, head_a: Colour, head_b: Colour
) -> Image.Image:
    """A tile laid on ground number ``ground`` of ``board`` (see :func:`_grounds`): opaque, so it is pasted without
    a mask (five times as fast as a masked paste; a full board has 60–80 tiles)."""
    size = _layout(board, expansion)["cell"]
    return _on(_tile_sprite(size, orient, body, head_a, head_b), _grounds(board, expansion)[1][ground])


@lru_cache(maxsize=16)
def _stone_sprite(size: int) -> tuple[Image.Image, Image.Image]:
    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        d.ellipse((s * 0.14, s * 0.20, s * 0.88, s * 0.86), fill=_STONE_DARK)
        d.ellipse((s * 0.12, s * 0.15, s * 0.86, s * 0.80), fill=_STONE)
        d.ellipse((s * 0.25, s * 0.24, s * 0.50, s * 0.40), fill=_STONE_LIGHT)

    return _on_wood(_sprite(size, draw))


@lru_cache(maxsize=16)
def _pond_sprite(size: int) -> tuple[Image.Image, Image.Image]:
    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        d.ellipse((s * 0.06, s * 0.14, s * 0.94, s * 0.86), fill=_WATER, outline=_WATER_DARK, width=int(s * 0.03))
        for k, w in ((0.38, 0.22), (0.55, 0.28), (0.70, 0.18)):
            x0 = s * (0.5 - w)
            for j in range(2):
                a = x0 + j * s * w
                d.arc((a, s * k - s * 0.05, a + s * w, s * k + s * 0.05), 200, 340, fill=WHITE, width=int(s * 0.025))

    return _on_wood(_sprite(size, draw))


@lru_cache(maxsize=16)
def _tree_sprite(size: int) -> tuple[Image.Image, Image.Image]:
    def draw(d: ImageDraw.ImageDraw, s: int) -> None:
        d.rectangle((s * 0.45, s * 0.55, s * 0.55, s * 0.92), fill=_TRUNK)
        for cx, cy, r in ((0.5, 0.30, 0.22), (0.32, 0.48, 0.20), (0.68, 0.48, 0.20), (0.5, 0.55, 0.18)):
            d.ellipse((s * (cx - r), s * (cy - r), s * (cx + r), s * (cy + r)), fill=_LEAF)
        d.ellipse((s * 0.40, s * 0.16, s * 0.56, s * 0.30), fill=_LEAF_LIGHT)

    return _on_wood(_sprite(size, draw))


# --------------------------------------------------------------------------------------------------
# Small pictures: the legend's tiles and the lair's icons (drawn straight at their size; bold and simple)


def _mini_tile(c: Canvas, x: float, y: float, s: float, orient: str = "H", ink: Colour = _DRAGON) -> None:
    """A tile ``s`` px square at (x, y): the segment along ``orient`` and a head as a wedge on each other edge."""
    c.rounded_rectangle((x, y, x + s, y + s), radius=s * 0.15, fill=_TILE, outline=ink, width=2)
    h, w, depth = s * 0.14, s * 0.2, s * 0.3
    if orient == "H":
        c.rectangle((x, y + s / 2 - h, x + s, y + s / 2 + h), fill=ink)
        c.polygon([(x + s / 2, y + 2), (x + s / 2 - w, y + depth), (x + s / 2 + w, y + depth)], fill=ink)
        c.polygon([(x + s / 2, y + s - 2), (x + s / 2 - w, y + s - depth), (x + s / 2 + w, y + s - depth)], fill=ink)
    else:
        c.rectangle((x + s / 2 - h, y, x + s / 2 + h, y + s), fill=ink)
        c.polygon([(x + 2, y + s / 2), (x + depth, y + s / 2 - w), (x + depth, y + s / 2 + w)], fill=ink)
        c.polygon([(x + s - 2, y + s / 2), (x + s - depth, y + s / 2 - w), (x + s - depth, y + s / 2 + w)], fill=ink)


def _mini_stone(c: Canvas, x: float, y: float, s: float) -> None:
    c.ellipse((x + 2, y + 4, x + s - 2, y + s - 2), fill=_STONE, outline=_STONE_DARK, width=3)


def _arrow(c: Canvas, x0: float, y0: float, x1: float, y1: float, width: int = 6, head: int = 13) -> None:
    c.line([(x0, y0), (x1, y1)], fill=INK, width=width)
    a = math.atan2(y1 - y0, x1 - x0)
    p1 = (x1 - head * math.cos(a - 0.55), y1 - head * math.sin(a - 0.55))
    p2 = (x1 - head * math.cos(a + 0.55), y1 - head * math.sin(a + 0.55))
    c.polygon([(x1 + 3 * math.cos(a), y1 + 3 * math.sin(a)), p1, p2], fill=INK)


def _plus(c: Canvas, cx: float, cy: float, r: float = 14) -> None:
    c.rectangle((cx - r, cy - 3, cx + r, cy + 3), fill=INK)
    c.rectangle((cx - 3, cy - r, cx + 3, cy + r), fill=INK)


def _empty_space(c: Canvas, x: float, y: float, s: float) -> None:
    c.rounded_rectangle((x, y, x + s, y + s), radius=6, fill=_WOOD, outline=_OUTLINE, width=2)


def _icon(c: Canvas, action: str, cx: float, cy: float) -> None:
    """A picture of ``action`` centred on (cx, cy), about 140 × 46 px: what is taken, an arrow, what results."""
    t = 46
    top = cy - t / 2
    if action == "rotate":
        _mini_tile(c, cx - 70, top, t, "H")
        _arrow(c, cx - 18, cy, cx + 16, cy)
        _mini_tile(c, cx + 24, top, t, "V")
    elif action == "place":
        _plus(c, cx - 40, cy)
        _mini_tile(c, cx - 10, top, t, "V")
    elif action == "movestone":
        _mini_stone(c, cx - 70, top, t)
        _arrow(c, cx - 18, cy, cx + 16, cy)
        _empty_space(c, cx + 24, top, t)
    elif action == "flip":
        _mini_tile(c, cx - 70, top, t, "H")
        _arrow(c, cx - 18, cy, cx + 16, cy)
        _mini_stone(c, cx + 24, top, t)
    elif action == "move":
        _mini_tile(c, cx - 70, top, t, "V")
        _arrow(c, cx - 18, cy, cx + 16, cy)
        _empty_space(c, cx + 24, top, t)
    elif action == "stone":
        _plus(c, cx - 40, cy)
        _mini_stone(c, cx - 10, top, t)
    elif action == "swap":
        _mini_tile(c, cx - 70, top, t, "H")
        _arrow(c, cx - 18, cy - 9, cx + 16, cy - 9, width=5, head=11)
        _arrow(c, cx + 16, cy + 9, cx - 18, cy + 9, width=5, head=11)
        _mini_stone(c, cx + 24, top, t)


# --------------------------------------------------------------------------------------------------
# Layout


def _layout(board: Board, expansion: bool) -> dict[str, int]:
    cell = min(110, _BOARD_BOX // max(board.width, board.height))
    bw, bh = cell * board.width, cell * board.height
    top = _HEADER_H + _STATUS_H + _COORD
    left = (WIDTH - bw) // 2
    legend_top = top + bh + _COORD + _PAD // 2
    height = legend_top + _LEGEND_H
    lair_top = height + 8
    if expansion:
        height += _LAIR_H + 8
    return {
        "cell": cell,
        "left": left,
        "top": top,
        "bw": bw,
        "bh": bh,
        "height": height,
        "lair_top": lair_top,
        "legend_top": legend_top,
    }


def _cr(square: str) -> tuple[int, int]:
    return ord(square[0]) - 65, int(square[1:]) - 1


@lru_cache(maxsize=32)
def _background(board: Board, expansion: bool, w: Words) -> Image.Image:
    """What never changes on ``board``: the spaces as wood, their outline, pond and trees, the coordinates on all four
    edges and the legend (in ``w``'s language)."""
    L = _layout(board, expansion)
    image = PALETTE.new((WIDTH, L["height"]), BACKGROUND)
    c = Canvas(image, PALETTE)
    s, left, top = L["cell"], L["left"], L["top"]
    template = board.template

    def is_space(col: int, row: int) -> bool:
        return 0 <= col < board.width and 0 <= row < board.height and template[row * board.width + col] != "#"

    for r in range(board.height):
        for col in range(board.width):
            if is_space(col, r):
                x, y = left + col * s, top + r * s
                c.rectangle((x, y, x + s, y + s), fill=_WOOD, outline=_WOOD_LINE, width=1)
    ow = 4  # the outline: every edge between a space and a non-space (or the grid's edge)
    for r in range(board.height):
        for col in range(board.width):
            if not is_space(col, r):
                continue
            x, y = left + col * s, top + r * s
            if not is_space(col, r - 1):
                c.line([(x - ow // 2, y), (x + s + ow // 2, y)], fill=_OUTLINE, width=ow)
            if not is_space(col, r + 1):
                c.line([(x - ow // 2, y + s), (x + s + ow // 2, y + s)], fill=_OUTLINE, width=ow)
            if not is_space(col - 1, r):
                c.line([(x, y - ow // 2), (x, y + s + ow // 2)], fill=_OUTLINE, width=ow)
            if not is_space(col + 1, r):
                c.line([(x + s, y - ow // 2), (x + s, y + s + ow // 2)], fill=_OUTLINE, width=ow)
    for sq, kind in board.features.items():
        col, r = _cr(sq)
        sprite, mask = _pond_sprite(s) if kind == "pond" else _tree_sprite(s)
        c.paste(sprite, (left + col * s, top + r * s), mask)
    f = Style(max(MIN_TEXT, min(30, s // 3)))
    for col in range(board.width):
        x = left + col * s + s // 2
        c.text((x, top - _COORD // 2 - 2), chr(65 + col), f, MUTED, BACKGROUND, "mm")
        c.text((x, top + L["bh"] + _COORD // 2 + 2), chr(65 + col), f, MUTED, BACKGROUND, "mm")
    for r in range(board.height):
        y = top + r * s + s // 2
        c.text((left - _COORD // 2 - 2, y), str(r + 1), f, MUTED, BACKGROUND, "mm")
        c.text((left + L["bw"] + _COORD // 2 + 2, y), str(r + 1), f, MUTED, BACKGROUND, "mm")
    _draw_legend(c, L["legend_top"], w)
    return image


def _draw_legend(c: Canvas, top: int, w: Words) -> None:
    """Two rows under the board: the two orientations of a tile; the outline colours of the two kinds of Hong, and
    what the badge's number means — each in the largest size at which the row fits (see
    :meth:`render.common.Canvas.legend`)."""
    t = 40
    rows = (top + 22, top + _LEGEND_H - 26)

    def tile(orient: str) -> Callable[[float], None]:
        return lambda x: _mini_tile(c, x, rows[0] - t / 2, t, orient)

    def badge(direction: str) -> Callable[[float], None]:
        def draw(x: float) -> None:
            y = rows[1]
            colour = HONG_COLOURS[direction]
            c.rounded_rectangle((x, y - 19, x + 72, y + 19), radius=14, outline=colour, width=5)
            c.ellipse((x + 19, y - 17, x + 53, y + 17), fill=WHITE, outline=colour, width=3)
            c.text((x + 36, y + 1), "2", _LEGEND_BADGE, colour, WHITE, "mm")

        return draw

    # TRANSLATORS: the legend under a Hong board. H and V are the notation's letters for a tile's orientation
    # (B3H, B3V): keep them. "across": the dragon's body runs left–right; "up–down": top to bottom.
    tiles = [
        (t + 10, tile("H"), w.pgettext("image", "H: across"), 40),
        (t + 10, tile("V"), w.pgettext("image", "V: up–down"), 40),
    ]
    # TRANSLATORS: the legend under a Hong board: the outline colour of a horizontal (H) and a vertical (V) Hong.
    hongs = [(82, badge("H"), w.pgettext("image", "H Hong"), 40), (82, badge("V"), w.pgettext("image", "V Hong"), 40)]
    c.legend(rows[0], _PAD, WIDTH - _PAD, tiles, "", INK, MUTED, BACKGROUND)
    # TRANSLATORS: the legend under a Hong board: the number in a Hong's badge is its size.
    c.legend(rows[1], _PAD, WIDTH - _PAD, hongs, w.pgettext("image", "number: its size"), INK, MUTED, BACKGROUND)


# --------------------------------------------------------------------------------------------------
# Drawing


def board_image(
    game: HongGame,
    names: tuple[str, str],
    *,
    ended: Ended | None = None,
    translations: Translations | None = None,
    marks: Sequence[str] = (),
) -> Image.Image:
    """The board of :func:`render_board` as a palette image (:data:`PALETTE`), before PNG encoding; ``marks``: spaces
    to ring (``"C2"``, a rules page's caption names them; one off the board is left out).

    The replay draws its frames with this, so a replay frame is the live board of that position.
    """
    w = words(translations)
    L = _layout(game.board, game.expansion)
    image = _background(game.board, game.expansion, w).copy()
    c = Canvas(image, PALETTE)
    hongs = game.hongs()
    if game.is_over:
        ended = None
    shown = player_names(names, w)
    _draw_header(c, game, shown, ended, w)
    _draw_status(c, game, shown, len(hongs), ended, w)
    _draw_board(c, game, L, hongs)
    s = L["cell"]
    for square in marks:
        col, row = _cr(square) if len(square) >= 2 and square[1:].isdigit() else (-1, -1)
        if 0 <= col < game.board.width and 0 <= row < game.board.height:
            x, y = L["left"] + col * s, L["top"] + row * s
            c.corners((x + 2, y + 2, x + s - 3, y + s - 3), INK, width=6)
    if game.expansion:
        _draw_lair(c, game, L, w)
    return image


def render_board(
    game: HongGame, names: tuple[str, str], *, ended: Ended | None = None, translations: Translations | None = None
) -> bytes:
    """Draw ``game`` as a PNG and return its bytes.

    Args:
        game: any :class:`engine.hong.HongGame` (in progress, with a pending summon, decided early, or over).
        names: display names, ``names[0]`` the emperor's (player 0), ``names[1]`` the dragon master's. Every
            script and emoji is drawn (see :mod:`render.text`); long names are shortened with "…".
        ended: how the game ended if it ended off the board (resigned, out of time, aborted): the winner's
            card says WINS and the status line gives the reason instead of whose turn it was. Ignored
            once the engine has an outcome (a game played to its end).
        translations: the language of every word drawn: a :class:`gettext.NullTranslations`-like catalog (the
            bot passes ``bot.i18n.translations(code)``); None for English.

    Returns:
        PNG bytes (palette), :data:`WIDTH` = 1000 px wide and, for the built-in boards, 1328 px tall (castle,
        garden) or 1216 px (inner; its cells are capped at 110 px), 258 px more with the expansion's lair.
        Typically 30–96 KB, drawn and encoded in 3–7 ms.
    """
    return RENDERER.png(game, names, ended=ended, translations=translations)


#: Hong's renderer (see :mod:`render.contract`): the bot's boards and the replays' frames.
RENDERER: Renderer[HongGame] = BoardRenderer(board_image, PALETTE, _PNG_LEVEL)


def _draw_header(c: Canvas, game: HongGame, names: tuple[str, str], ended: Ended | None, w: Words) -> None:
    card_w = (WIDTH - 3 * _PAD) // 2
    over = game.is_over or ended is not None
    winner = ended.winner if ended is not None else game.winner
    for p in (0, 1):
        x0 = _PAD + p * (card_w + _PAD)
        y0, y1 = _PAD, _HEADER_H - 6
        active = (winner == p) if over else (game.to_move == p)
        colour, dark = PLAYER_COLOURS[p], PLAYER_DARK[p]
        c.paste(_card(p, active, card_w, y1 - y0), (x0, y0))
        if active:
            fg, sub, ground = WHITE, WHITE, colour
        else:
            fg, sub, ground = INK, dark, WHITE
        # The role on the left, the tag (TO MOVE, WINS) on the right: the tag shrinks to at most half the card,
        # the role is cut to the room left.
        tw = 0.0
        if active:
            # TRANSLATORS: the tag on the card of the player who moves now / who won (capitals where the script
            # has them).
            tag = w.pgettext("image", "WINS") if over else w.pgettext("image", "TO MOVE")
            style, tag = fit_line(tag, _TAG_STYLES, card_w / 2 - 48)
            tw = text_width(tag, style) + 24
            c.rounded_rectangle((x0 + card_w - tw - 12, y0 + 10, x0 + card_w - 12, y0 + 44), radius=10, fill=WHITE)
            c.text((x0 + card_w - 12 - tw / 2, y0 + 27), tag, style, dark, WHITE, "mm")
        role_style, role = fit_line(w.gettext(ROLE_NAMES[p]).upper(), _ROLE_STYLES, card_w - 18 - tw - 12 - 12)
        c.text((x0 + 18, y0 + 10 + _ROLE.size - role_style.size), role, role_style, sub, ground)
        c.text((x0 + 18, y0 + 48), fit_text(names[p], _CARD_NAME, card_w - 36), _CARD_NAME, fg, ground)


@lru_cache(maxsize=8)
def _card(player: int, active: bool, width: int, height: int) -> Image.Image:
    """A player card's frame on the background, ``width`` × ``height`` px inside its outline: filled with the
    player's colour when ``active`` (to move, or the winner), else white in an outline of that colour. Drawn once."""
    image = PALETTE.new((width + 1, height + 1), BACKGROUND)
    c = Canvas(image, PALETTE)
    colour, dark = PLAYER_COLOURS[player], PLAYER_DARK[player]
    if active:
        c.rounded_rectangle((0, 0, width, height), radius=16, fill=colour, outline=dark, width=5)
    else:
        c.rounded_rectangle((0, 0, width, height), radius=16, fill=WHITE, outline=colour, width=3)
    return image


def _status(game: HongGame, names: tuple[str, str], ended: Ended | None, w: Words) -> tuple[str, Colour]:
    """The second status line (names as :meth:`render.labels.Words.name` fields) and its colour."""
    if game.is_over:
        o = game.outcome
        assert o is not None
        name, role = w.name(names[o.winner]), w.gettext(ROLE_NAMES[o.winner])
        hongs = w.ngettext("{count} Hong", "{count} Hongs", o.hongs)
        if o.spaces_left:
            # TRANSLATORS: the result line of a Hong board decided early: {role} is emperor or dragon master,
            # {hongs} e.g. "15 Hongs", {threshold} the number needed, {spaces} e.g. "8 spaces".
            return w.gettext(
                "{name} ({role}) wins: {hongs}, {threshold} needed, decided with {spaces} left",
                name=name,
                role=role,
                hongs=hongs,
                threshold=o.threshold,
                spaces=w.ngettext("{count} space", "{count} spaces", o.spaces_left),
            ), PLAYER_DARK[o.winner]
        # TRANSLATORS: the result line of a Hong board: {role} is emperor or dragon master, {hongs} e.g. "16 Hongs",
        # {threshold} the number needed.
        return (
            w.gettext(
                "{name} ({role}) wins: {hongs}, {threshold} needed",
                name=name,
                role=role,
                hongs=hongs,
                threshold=o.threshold,
            ),
            PLAYER_DARK[o.winner],
        )
    if ended is not None and ended.winner is None:
        return w.gettext("Aborted: no result"), MUTED
    if ended is not None and ended.winner is not None:
        seat = ended.winner
        winner, loser = w.name(names[seat]), w.name(names[1 - seat])
        if ended.reason is EndReason.RESIGNED:
            sentence = w.gettext("{loser} resigned - {winner} wins", loser=loser, winner=winner)
        else:
            sentence = w.gettext("{loser} ran out of time - {winner} wins", loser=loser, winner=winner)
        return sentence, PLAYER_DARK[seat]
    if game.pending is not None:
        summon = game.pending
        # TRANSLATORS: {options} are the lair's sizes and dragons' actions in notation, e.g. "2 rotate / 3 place".
        return (
            w.gettext(
                "{name} summons a dragon: {options}",
                name=w.name(names[summon.player]),
                options=" / ".join(f"{s} {a}" for s, a in sorted(summon.options.items())),
            ),
            PLAYER_DARK[summon.player],
        )
    p = game.to_move
    name, role = w.name(names[p]), w.gettext(ROLE_NAMES[p])
    if names[p].casefold() == role.casefold():  # a player named by their role (a rules page's board): said once
        if game.moves:
            # TRANSLATORS: the status line of a Hong board whose players are named by their roles: whose turn it is
            # ("Emperor") and the last move in notation (B3H).
            return w.gettext("{name} to move   -   last: {move}", name=name, move=game.moves[-1]), PLAYER_DARK[p]
        return w.gettext("{name} to move", name=name), PLAYER_DARK[p]
    if game.moves:
        # TRANSLATORS: the status line of a Hong board: whose turn it is ({role}: emperor or dragon master) and
        # the last move in notation (B3H).
        return (
            w.gettext("{name} ({role}) to move   -   last: {move}", name=name, role=role, move=game.moves[-1]),
            PLAYER_DARK[p],
        )
    return w.gettext("{name} ({role}) to move", name=name, role=role), PLAYER_DARK[p]


def _draw_status(c: Canvas, game: HongGame, names: tuple[str, str], count: int, ended: Ended | None, w: Words) -> None:
    y = _HEADER_H + 6
    t = game.threshold
    dm = PLAYER_DARK[1]
    # TRANSLATORS: the Hong count of a Hong board against the number the dragon master needs, e.g. "Hongs 3 / 15".
    style, label = fit_line(
        w.gettext("Hongs {count} / {threshold}", count=count, threshold=t), _COUNT_STYLES, _COUNT_MAX
    )
    x = _PAD + round(c.text((_PAD, y + _COUNT.size - style.size), label, style, INK, BACKGROUND)) + 22
    # Ticks: one per Hong needed; filled ones show how far the dragon master is.
    step = min(30, (WIDTH - _PAD - x) // max(t, 1))
    if t > 0:
        c.paste(_ticks(min(count, t), t, step), (x, y + 12))
    if count > t:
        c.text((x + t * step + 2, y + 25), f"+{count - t}", _PLUS, dm, BACKGROUND, "lm")
    sentence, colour = _status(game, names, ended, w)
    style, lines = fit_parts_lines(
        parts(sentence), _STATUS_STYLES, WIDTH - 2 * _PAD, name_max=_NAME_MAX, smaller=_STATUS_SMALLER
    )
    first = y + (74 if len(lines) == 1 else 70)
    for k, texts in enumerate(lines):
        c.text_line((_PAD, first + k * (style.size + 6)), texts, style, colour, BACKGROUND, "lm")


@lru_cache(maxsize=256)
def _ticks(filled: int, ticks: int, step: int) -> Image.Image:
    """The status line's ticks on the background, ``filled`` of ``ticks`` filled, ``step`` px apart: drawn once
    (rounded corners cost more than the rest of the line) and pasted with their top-left corner at the first
    tick's."""
    image = PALETTE.new((ticks * step - 5, 27), BACKGROUND)
    c = Canvas(image, PALETTE)
    for i in range(ticks):
        box = (i * step, 0, i * step + step - 6, 26)
        if i < filled:
            c.rounded_rectangle(box, radius=4, fill=PLAYER_COLOURS[1], outline=PLAYER_DARK[1], width=2)
        else:
            c.rounded_rectangle(box, radius=4, fill=WHITE, outline=MUTED, width=2)
    return image


def _draw_board(c: Canvas, game: HongGame, L: dict[str, int], hongs: Sequence[Hong]) -> None:
    b = game.board
    s, left, top = L["cell"], L["left"], L["top"]
    rows = game.rows()

    def xy(col: int, row: int) -> tuple[int, int]:
        return left + col * s, top + row * s

    # Which parts of which tiles belong to a Hong: body colour, and the colour of each head.
    body: dict[str, Colour] = {}
    heads: dict[tuple[str, int], Colour] = {}  # (square, 0 for N/W head, 1 for S/E head) -> colour
    for h in hongs:
        hong_colour = HONG_COLOURS[h.direction]
        for sq in h.cells:
            body[sq] = hong_colour
        # The west/north cap's head facing the Hong is its E/S head (index 1), the east/south cap's is 0.
        heads[(h.heads[0], 1)] = hong_colour
        heads[(h.heads[1], 0)] = hong_colour

    stone, stone_mask = _stone_sprite(s)
    grounds = _grounds(b, game.expansion)[0]
    for r in range(b.height):
        for col in range(b.width):
            ch = rows[r][col]
            if ch in ".#":
                continue
            if ch == "S":
                c.paste(stone, xy(col, r), stone_mask)
                continue
            sq = f"{chr(65 + col)}{r + 1}"
            c.paste(
                _tile_on_ground(
                    b,
                    game.expansion,
                    grounds[(col, r)],
                    ch,
                    body.get(sq, _DRAGON),
                    heads.get((sq, 0), _DRAGON),
                    heads.get((sq, 1), _DRAGON),
                ),
                xy(col, r),
            )

    # The squares the last move changed (under the Hongs' outlines and badges, which matter more).
    for sq in game.last_changed:
        x, y = xy(*_cr(sq))
        c.rounded_rectangle((x - 2, y - 2, x + s + 2, y + s + 2), radius=8, outline=HIGHLIGHT, width=6)

    # Each Hong inside its own outline, from the middle of one cap to the middle of the other: two Hongs sharing
    # a cap end on either side of that tile's segment.
    width = max(4, s // 20)
    for h in sorted(hongs, key=lambda h: h.direction):
        colour = HONG_COLOURS[h.direction]
        x0, y0 = xy(*_cr(h.heads[0]))
        x1, y1 = xy(*_cr(h.heads[1]))
        if h.direction == "H":
            box = (x0 + s * 0.57, y0 + s * 0.20, x1 + s * 0.43, y1 + s * 0.80)
        else:
            box = (x0 + s * 0.20, y0 + s * 0.57, x1 + s * 0.80, y1 + s * 0.43)
        c.rounded_rectangle(box, radius=int(s * 0.22), outline=colour, width=width)
    # A badge with its size in the middle of each Hong's segments.
    radius = s * 0.28  # inside the Hong's outline (0.30 of a cell either side of its middle)
    badge = Style(max(MIN_TEXT, round(s * 0.38)), bold=True)
    for h in hongs:
        colour = HONG_COLOURS[h.direction]
        (ca, ra), (cb, rb) = _cr(h.cells[0]), _cr(h.cells[-1])
        cx, cy = left + (ca + cb + 1) * s / 2, top + (ra + rb + 1) * s / 2
        c.ellipse(
            (cx - radius, cy - radius, cx + radius, cy + radius), fill=WHITE, outline=colour, width=max(3, s // 28)
        )
        c.text((cx, cy + 1), str(h.size), badge, colour, WHITE, "mm")


def _word_style(word: str, room: float) -> Style:
    """The lair's word style, smaller if ``word`` would not fit ``room`` pixels."""
    return Style(
        min(_LAIR_WORD.size, max(MIN_TEXT, int(_LAIR_WORD.size * room / max(1.0, text_width(word, _LAIR_WORD)))))
    )


@lru_cache(maxsize=256)
def _lair_space(size: int, action: str, state: str, box_w: int, box_h: int, w: Words) -> Image.Image:
    """One lair space with a 4 px margin: ``state`` ``"waiting"``, ``"summoned"`` or ``"0"``/``"1"`` (the player who
    may summon this dragon now). ``action`` is notation (``rotate``), the same in every language."""
    m = 4
    image = PALETTE.new((box_w + 2 * m, box_h + 2 * m), BACKGROUND)
    c = Canvas(image, PALETTE)
    x0, y0, x1, y1 = m, m, m + box_w, m + box_h
    cx = (x0 + 56 + x1) // 2
    room = x1 - x0 - 66
    if state == "summoned":  # the tag across the top, the number and the struck-out action under it
        c.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=_SUMMONED, outline=MUTED, width=2)
        c.text((x0 + 30, y1 - 30), str(size), _LAIR_NUMBER, MUTED, _SUMMONED, "mm")
        # TRANSLATORS: on a lair space of a Hong board whose Great Dragon has been summoned (capitals where the
        # script has them).
        style, tag = fit_line(w.pgettext("image", "SUMMONED"), _SUMMONED_STYLES, x1 - x0 - 16)
        c.text(((x0 + x1) // 2, y0 + 24), tag, style, INK, _SUMMONED, "mm")
        half = c.text((cx, y1 - 22), action, _word_style(action, room), MUTED, _SUMMONED, "mm") / 2
        c.line([(cx - half, y1 - 21), (cx + half, y1 - 21)], fill=INK, width=3)
        return image
    if state == "waiting":
        c.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=_WOOD, outline=_OUTLINE, width=3)
        ground = _WOOD
    else:
        c.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=14, fill=PLAYER_COLOURS[int(state)])
        c.rounded_rectangle((x0 + 5, y0 + 5, x1 - 5, y1 - 5), radius=10, fill=WHITE)
        ground = WHITE
    c.text((x0 + 30, (y0 + y1) // 2), str(size), _LAIR_NUMBER, INK, ground, "mm")
    _icon(c, action, cx, y0 + 33)
    c.text((cx, y1 - 17), action, _word_style(action, room), INK, ground, "mm")
    return image


def _draw_lair(c: Canvas, game: HongGame, L: dict[str, int], w: Words) -> None:
    """A note saying what the lair is, then seven lair spaces in two rows (sizes 1–4, then 5–7 centred): number,
    icon, action word."""
    _draw_lair_note(c, L["lair_top"], w)
    top = L["lair_top"] + _LAIR_NOTE_H
    gap = 12
    box_w = (WIDTH - 2 * _PAD - 3 * gap) // 4
    box_h = (_LAIR_H - _LAIR_NOTE_H - gap - 8) // 2
    pending = game.pending.options if game.pending is not None else {}
    for size in range(1, 8):
        i = size - 1
        x0 = _PAD + (i % 4) * (box_w + gap) + (i // 4) * (box_w + gap) // 2
        y0 = top + (i // 4) * (box_h + gap)
        if size in pending:
            state = str(game.pending.player)  # type: ignore[union-attr]
        else:
            state = "waiting" if size in game.lair else "summoned"
        c.paste(_lair_space(size, game.lair_setup.get(size, ""), state, box_w, box_h, w), (x0 - 4, y0 - 4))


def _draw_lair_note(c: Canvas, top: int, w: Words) -> None:
    """What the lair is, on one line above its spaces (its line breaks made spaces; a smaller size, then cut with
    "…", if it is too long)."""
    # TRANSLATORS: the note in the lair of a Hong board; the line breaks (\n) are where English breaks its lines
    # (the text is wrapped again to fit). N stands for a number 1-7.
    note = " ".join(w.pgettext("image", "THE LAIR:\na new Hong of\nsize N summons\ndragon N").split())
    style, line = fit_line(note, _LAIR_NOTE_STYLES, WIDTH - 2 * _PAD)
    c.text((_PAD, top + _LAIR_NOTE_H // 2 - 2), line, style, MUTED, BACKGROUND, "lm")
