"""Draw a game of Hong as a PNG sized for Discord on a phone.

One public function, :func:`render_board`. The picture, top to bottom:

* two player cards — the emperor (blue) and the dragon master (orange) with their names; the card of the
  player to move is filled with that player's colour and says TO MOVE (at the end the winner's says WINS);
* a status line: the Hong count against the board's threshold as text and as a row of ticks, and what
  happens now (who moves, who summons which dragon, or the result);
* the board: the real outline of its spaces (no-space squares are left out; the garden's pond is water and
  its trees are trees), coordinates on all four edges, each dragon tile as a thick **segment** from edge to
  edge with two **heads** pointing out of the other two edges, stones as grey pebbles. Every Hong is drawn
  in colour — segments and the two heads that cap it — and outlined along its whole length: horizontal
  Hongs in vermillion, vertical ones in bluish green, so crossing Hongs stay apart. The squares the last
  move changed are framed in the highlight colour;
* with the expansion, the lair: seven numbered spaces (Hong sizes 1–7), each with its dragon's action as an
  icon and a word; summoned dragons are shown gone, the sizes a pending summon may choose are framed in the
  summoning player's colour.

Tiles are drawn once per cell size at three times the size and scaled down (anti-aliased), then cached,
so a full board renders in a few tens of milliseconds. Pure: no I/O.
"""
from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.hong import ROLE_NAMES, HongGame
from engine.result import Ended
from render.common import (
    BACKGROUND, HIGHLIGHT, INK, MUTED, PLAYER_COLOURS, PLAYER_DARK, clean_name, fit_text, font, to_png,
)

__all__ = ["render_board", "WIDTH", "HONG_COLOURS"]

#: Image width in pixels (height depends on the board and the expansion).
WIDTH = 1000
#: Colour of a Hong's marking by direction (Okabe–Ito vermillion and bluish green).
HONG_COLOURS = {"H": (213, 94, 0), "V": (0, 158, 115)}

_PAD = 20
_HEADER_H = 128
_STATUS_H = 100
_COORD = 38          # margin for coordinates around the board
_LAIR_H = 212
_BOARD_BOX = WIDTH - 2 * _PAD - 2 * _COORD

_WOOD = (226, 203, 160)
_WOOD_LINE = (190, 163, 118)
_OUTLINE = (92, 70, 44)
_TILE = (252, 248, 238)
_TILE_EDGE = (150, 138, 120)
_DRAGON = (62, 52, 48)
_EYE = (252, 248, 238)
_STONE = (142, 142, 138)
_STONE_DARK = (96, 96, 92)
_STONE_LIGHT = (190, 190, 186)
_WATER = (86, 180, 233)
_WATER_DARK = (40, 120, 180)
_LEAF = (0, 130, 90)
_LEAF_LIGHT = (60, 170, 120)
_TRUNK = (120, 80, 40)
_WHITE = (255, 255, 255)
_SS = 3              # supersampling factor for sprites


# --------------------------------------------------------------------------------------------------
# Text helpers


def _fit(text: str, size: int, max_width: int) -> str:
    """``text`` shortened with an ellipsis to fit ``max_width`` pixels at font ``size``."""
    return fit_text(text, font(size), max_width)


def _fit_size(text: str, size: int, max_width: int) -> int:
    """The largest font size up to ``size`` at which ``text`` fits ``max_width`` pixels."""
    while size > 12 and font(size).getlength(text) > max_width:
        size -= 1
    return size


def _player_name(names: tuple[str, str], player: int, max_width: int | None = None) -> str:
    """Player ``player``'s name as drawn (see :func:`render.common.clean_name`), cut to ``max_width`` pixels
    at the status line's size if given, so the words around it in a sentence stay visible."""
    name = clean_name(names[player] if player < len(names) else "", f"Player {player + 1}")
    return name if max_width is None else _fit(name, 34, max_width)


# --------------------------------------------------------------------------------------------------
# Sprites (drawn at _SS times the size, scaled down, cached)


def _head(d: ImageDraw.ImageDraw, s: float, side: str, colour) -> None:
    """A dragon head on ``side`` (N/S/W/E) of a tile of size ``s``, snout at the edge, pointing out."""
    c = s / 2
    e = s * 0.05                   # snout distance from the edge
    # Shape in "pointing north" coordinates: (dx from centre line, depth from the edge).
    # A snout at the edge, a wider skull, two horns swept back towards the tile's centre.
    shape = [(0, 0), (0.06, 0.02), (0.08, 0.09), (0.15, 0.15), (0.20, 0.31), (0.09, 0.23), (0.0, 0.25),
             (-0.09, 0.23), (-0.20, 0.31), (-0.15, 0.15), (-0.08, 0.09), (-0.06, 0.02)]
    eyes = [(0.075, 0.165), (-0.075, 0.165)]

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
    r = s * 0.028
    for p in eyes:
        x, y = place(*p)
        d.ellipse((x - r, y - r, x + r, y + r), fill=_EYE)


@lru_cache(maxsize=256)
def _tile_sprite(size: int, orient: str, body, head_a, head_b) -> Image.Image:
    """A dragon tile: segment along ``orient`` in colour ``body``; heads on the other two edges
    (N, S for ``H``; W, E for ``V``) in colours ``head_a``, ``head_b``. RGBA, ``size`` square."""
    s = size * _SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    inset = s * 0.035
    d.rounded_rectangle((inset, inset, s - inset, s - inset), radius=s * 0.10, fill=_TILE,
                        outline=_TILE_EDGE, width=max(1, int(s * 0.015)))
    half = s * 0.115
    if orient == "H":
        d.rectangle((0, s / 2 - half, s, s / 2 + half), fill=body)
        _scales(d, s, "H", body)
        _head(d, s, "N", head_a)
        _head(d, s, "S", head_b)
    else:
        d.rectangle((s / 2 - half, 0, s / 2 + half, s), fill=body)
        _scales(d, s, "V", body)
        _head(d, s, "W", head_a)
        _head(d, s, "E", head_b)
    return im.resize((size, size), Image.LANCZOS)


def _scales(d: ImageDraw.ImageDraw, s: float, orient: str, body) -> None:
    """Light chevrons along the segment, so it reads as a dragon's body."""
    light = tuple(min(255, int(v + (255 - v) * 0.35)) for v in body)
    half = s * 0.06
    for k in (0.2, 0.4, 0.6, 0.8):
        if orient == "H":
            x = s * k
            d.line([(x - half * 0.6, s / 2 - half), (x + half * 0.6, s / 2), (x - half * 0.6, s / 2 + half)],
                   fill=light, width=max(1, int(s * 0.018)))
        else:
            y = s * k
            d.line([(s / 2 - half, y - half * 0.6), (s / 2, y + half * 0.6), (s / 2 + half, y - half * 0.6)],
                   fill=light, width=max(1, int(s * 0.018)))


@lru_cache(maxsize=16)
def _stone_sprite(size: int) -> Image.Image:
    s = size * _SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((s * 0.14, s * 0.20, s * 0.88, s * 0.86), fill=_STONE_DARK)
    d.ellipse((s * 0.12, s * 0.15, s * 0.86, s * 0.80), fill=_STONE)
    d.ellipse((s * 0.25, s * 0.24, s * 0.50, s * 0.40), fill=_STONE_LIGHT)
    return im.resize((size, size), Image.LANCZOS)


@lru_cache(maxsize=16)
def _pond_sprite(size: int) -> Image.Image:
    s = size * _SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.ellipse((s * 0.06, s * 0.14, s * 0.94, s * 0.86), fill=_WATER, outline=_WATER_DARK, width=int(s * 0.03))
    for k, w in ((0.38, 0.22), (0.55, 0.28), (0.70, 0.18)):
        x0 = s * (0.5 - w)
        for j in range(2):
            a = x0 + j * s * w
            d.arc((a, s * k - s * 0.05, a + s * w, s * k + s * 0.05), 200, 340, fill=_WHITE, width=int(s * 0.025))
    return im.resize((size, size), Image.LANCZOS)


@lru_cache(maxsize=16)
def _tree_sprite(size: int) -> Image.Image:
    s = size * _SS
    im = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rectangle((s * 0.45, s * 0.55, s * 0.55, s * 0.92), fill=_TRUNK)
    for (cx, cy, r) in ((0.5, 0.30, 0.22), (0.32, 0.48, 0.20), (0.68, 0.48, 0.20), (0.5, 0.55, 0.18)):
        d.ellipse((s * (cx - r), s * (cy - r), s * (cx + r), s * (cy + r)), fill=_LEAF)
    d.ellipse((s * 0.40, s * 0.16, s * 0.56, s * 0.30), fill=_LEAF_LIGHT)
    return im.resize((size, size), Image.LANCZOS)


# --------------------------------------------------------------------------------------------------
# Lair icons (drawn straight at a small size; kept simple and bold)


def _mini_tile(d, x, y, s, orient="H"):
    d.rounded_rectangle((x, y, x + s, y + s), radius=s * 0.15, fill=_TILE, outline=_DRAGON, width=2)
    h = s * 0.13
    if orient == "H":
        d.rectangle((x, y + s / 2 - h, x + s, y + s / 2 + h), fill=_DRAGON)
        d.polygon([(x + s / 2, y + 3), (x + s / 2 - s * 0.16, y + s * 0.28), (x + s / 2 + s * 0.16, y + s * 0.28)],
                  fill=_DRAGON)
        d.polygon([(x + s / 2, y + s - 3), (x + s / 2 - s * 0.16, y + s * 0.72),
                   (x + s / 2 + s * 0.16, y + s * 0.72)], fill=_DRAGON)
    else:
        d.rectangle((x + s / 2 - h, y, x + s / 2 + h, y + s), fill=_DRAGON)
        d.polygon([(x + 3, y + s / 2), (x + s * 0.28, y + s / 2 - s * 0.16), (x + s * 0.28, y + s / 2 + s * 0.16)],
                  fill=_DRAGON)
        d.polygon([(x + s - 3, y + s / 2), (x + s * 0.72, y + s / 2 - s * 0.16),
                   (x + s * 0.72, y + s / 2 + s * 0.16)], fill=_DRAGON)


def _mini_stone(d, x, y, s):
    d.ellipse((x + 2, y + 4, x + s - 2, y + s - 2), fill=_STONE, outline=_STONE_DARK, width=2)


def _arrow(d, x0, y0, x1, y1, colour=INK, width=4, head=9):
    d.line([(x0, y0), (x1, y1)], fill=colour, width=width)
    a = math.atan2(y1 - y0, x1 - x0)
    p1 = (x1 - head * math.cos(a - 0.5), y1 - head * math.sin(a - 0.5))
    p2 = (x1 - head * math.cos(a + 0.5), y1 - head * math.sin(a + 0.5))
    d.polygon([(x1 + 2 * math.cos(a), y1 + 2 * math.sin(a)), p1, p2], fill=colour)


def _icon(d: ImageDraw.ImageDraw, action: str, cx: int, cy: int) -> None:
    """A small picture of ``action`` centred on (cx, cy), about 100 × 44 px."""
    t = 38
    if action == "rotate":
        _mini_tile(d, cx - 48, cy - t // 2, t, "H")
        _arrow(d, cx - 6, cy, cx + 8, cy)
        _mini_tile(d, cx + 12, cy - t // 2, t, "V")
    elif action == "place":
        d.text((cx - 30, cy), "+", font=font(44), fill=INK, anchor="mm")
        _mini_tile(d, cx - 8, cy - t // 2, t, "V")
    elif action == "movestone":
        _mini_stone(d, cx - 50, cy - t // 2, t)
        _arrow(d, cx - 8, cy, cx + 14, cy)
        d.rounded_rectangle((cx + 16, cy - t // 2, cx + 16 + t, cy + t // 2), radius=6, outline=MUTED, width=2)
    elif action == "flip":
        _mini_tile(d, cx - 48, cy - t // 2, t, "H")
        _arrow(d, cx - 6, cy, cx + 8, cy)
        _mini_stone(d, cx + 12, cy - t // 2, t)
    elif action == "move":
        _mini_tile(d, cx - 48, cy - t // 2, t, "V")
        _arrow(d, cx - 6, cy, cx + 8, cy)
        d.rounded_rectangle((cx + 12, cy - t // 2, cx + 12 + t, cy + t // 2), radius=6, outline=MUTED, width=2)
    elif action == "stone":
        d.text((cx - 30, cy), "+", font=font(44), fill=INK, anchor="mm")
        _mini_stone(d, cx - 8, cy - t // 2, t)
    elif action == "swap":
        _mini_tile(d, cx - 50, cy - t // 2, t, "H")
        _arrow(d, cx - 10, cy - 7, cx + 10, cy - 7, width=3, head=7)
        _arrow(d, cx + 10, cy + 7, cx - 10, cy + 7, width=3, head=7)
        _mini_stone(d, cx + 12, cy - t // 2, t)


# --------------------------------------------------------------------------------------------------
# Layout


def _layout(game: HongGame) -> dict[str, int]:
    b = game.board
    cell = min(110, _BOARD_BOX // max(b.width, b.height))
    bw, bh = cell * b.width, cell * b.height
    top = _HEADER_H + _STATUS_H + _COORD
    left = (WIDTH - bw) // 2
    height = top + bh + _COORD + _PAD // 2
    lair_top = height + 8
    if game.expansion:
        height += _LAIR_H + 8
    return {"cell": cell, "left": left, "top": top, "bw": bw, "bh": bh, "height": height, "lair_top": lair_top}


# --------------------------------------------------------------------------------------------------
# Drawing


def render_board(game: HongGame, names: tuple[str, str], *, ended: Ended | None = None) -> bytes:
    """Draw ``game`` as a PNG and return its bytes.

    Args:
        game: any :class:`engine.hong.HongGame` (in progress, with a pending summon, or over).
        names: display names, ``names[0]`` the emperor's (player 0), ``names[1]`` the dragon master's.
            Characters the built-in font cannot draw are dropped; long names are shortened with "…".
        ended: how the game ended if it ended off the board (resigned, out of time, aborted): the winner's
            card says WINS and the status line gives the reason instead of whose turn it was. Ignored
            once the engine has an outcome (a game played to its end).

    Returns:
        PNG bytes (256-colour palette), :data:`WIDTH` = 1000 px wide and, for the built-in boards,
        1196 px tall (castle, garden) or 1084 px (inner; its cells are capped at 110 px), 220 px more with
        the expansion's lair. Typically 25–85 kB; rendering takes about 20–45 ms.
    """
    L = _layout(game)
    im = Image.new("RGB", (WIDTH, L["height"]), BACKGROUND)
    d = ImageDraw.Draw(im)
    hongs = game.hongs()
    if game.is_over:
        ended = None
    _draw_header(d, game, names, ended)
    _draw_status(d, game, names, len(hongs), ended)
    _draw_board(im, d, game, L, hongs)
    if game.expansion:
        _draw_lair(d, game, L)
    # A 256-colour palette (the picture has few colours beyond anti-aliasing) encodes ~3x faster and
    # makes the PNG ~3x smaller than RGB.
    return to_png(im.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE))


def _draw_header(d: ImageDraw.ImageDraw, game: HongGame, names: tuple[str, str], ended: Ended | None) -> None:
    card_w = (WIDTH - 3 * _PAD) // 2
    over = game.is_over or ended is not None
    winner = ended.winner if ended is not None else game.winner
    for p in (0, 1):
        x0 = _PAD + p * (card_w + _PAD)
        y0, y1 = _PAD, _HEADER_H - 6
        active = (winner == p) if over else (game.to_move == p)
        colour, dark = PLAYER_COLOURS[p], PLAYER_DARK[p]
        if active:
            d.rounded_rectangle((x0, y0, x0 + card_w, y1), radius=16, fill=colour, outline=dark, width=5)
            fg, sub = _WHITE, _WHITE
        else:
            d.rounded_rectangle((x0, y0, x0 + card_w, y1), radius=16, fill=_WHITE, outline=colour, width=3)
            fg, sub = INK, dark
        role = ROLE_NAMES[p].upper()
        tag = ("WINS" if over else "TO MOVE") if active else ""
        d.text((x0 + 18, y0 + 10), role, font=font(28), fill=sub)
        if tag:
            tw = font(26).getlength(tag) + 24
            d.rounded_rectangle((x0 + card_w - tw - 12, y0 + 10, x0 + card_w - 12, y0 + 44), radius=10,
                                fill=_WHITE)
            d.text((x0 + card_w - 12 - tw / 2, y0 + 27), tag, font=font(26), fill=dark, anchor="mm")
        name = _fit(_player_name(names, p), 40, card_w - 36)
        d.text((x0 + 18, y0 + 48), name, font=font(40), fill=fg)


def _draw_status(d: ImageDraw.ImageDraw, game: HongGame, names: tuple[str, str], count: int,
                 ended: Ended | None) -> None:
    y = _HEADER_H + 6
    t = game.threshold
    dm = PLAYER_DARK[1]
    label = f"Hongs {count} / {t}"
    d.text((_PAD, y), label, font=font(40), fill=INK)
    # Ticks: one per Hong needed; filled ones show how far the dragon master is.
    x = _PAD + int(font(40).getlength(label)) + 22
    room = WIDTH - _PAD - x
    step = min(30, room // max(t, 1))
    for i in range(t):
        box = (x + i * step, y + 10, x + i * step + step - 6, y + 36)
        if i < count:
            d.rounded_rectangle(box, radius=4, fill=PLAYER_COLOURS[1], outline=dm, width=2)
        else:
            d.rounded_rectangle(box, radius=4, fill=_WHITE, outline=MUTED, width=2)
    if count > t:
        d.text((x + t * step + 2, y + 23), f"+{count - t}", font=font(28), fill=dm, anchor="lm")
    # What happens now.
    y2 = y + 52
    if game.is_over:
        o = game.outcome
        text, colour = f"{o.describe()} - {_player_name(names, o.winner, 300)}", PLAYER_DARK[o.winner]
    elif ended is not None and ended.winner is None:
        text, colour = "Aborted: no result", MUTED
    elif ended is not None:
        shown = (_player_name(names, 0, 270), _player_name(names, 1, 270))
        w = ended.winner
        text, colour = f"{ended.why(shown)} - {shown[w]} wins", PLAYER_DARK[w]
    elif game.pending is not None:
        p = game.pending
        opts = " / ".join(f"{s} {a}" for s, a in sorted(p.options.items()))
        who = _fit(_player_name(names, p.player), 34, 330)
        text = f"{who} summons a dragon: {opts}"
        colour = PLAYER_DARK[p.player]
    else:
        p = game.to_move
        text = f"{_player_name(names, p, 360)} ({ROLE_NAMES[p]}) to move"
        if game.moves:
            text += f"   -   last: {game.moves[-1]}"
        colour = PLAYER_DARK[p]
    d.text((_PAD, y2), _fit(text, 34, WIDTH - 2 * _PAD), font=font(34), fill=colour)


def _draw_board(im: Image.Image, d: ImageDraw.ImageDraw, game: HongGame, L: dict[str, int], hongs) -> None:
    b = game.board
    s, left, top = L["cell"], L["left"], L["top"]
    rows = game.rows()

    def xy(c: int, r: int) -> tuple[int, int]:
        return left + c * s, top + r * s

    def is_space(c: int, r: int) -> bool:
        return 0 <= c < b.width and 0 <= r < b.height and rows[r][c] != "#"

    # Spaces as wood, with a thin grid.
    for r in range(b.height):
        for c in range(b.width):
            if rows[r][c] != "#":
                x, y = xy(c, r)
                d.rectangle((x, y, x + s, y + s), fill=_WOOD, outline=_WOOD_LINE, width=1)
    # The outline: every edge between a space and a non-space (or the grid's edge).
    ow = 4
    for r in range(b.height):
        for c in range(b.width):
            if not is_space(c, r):
                continue
            x, y = xy(c, r)
            if not is_space(c, r - 1):
                d.line((x - ow // 2, y, x + s + ow // 2, y), fill=_OUTLINE, width=ow)
            if not is_space(c, r + 1):
                d.line((x - ow // 2, y + s, x + s + ow // 2, y + s), fill=_OUTLINE, width=ow)
            if not is_space(c - 1, r):
                d.line((x, y - ow // 2, x, y + s + ow // 2), fill=_OUTLINE, width=ow)
            if not is_space(c + 1, r):
                d.line((x + s, y - ow // 2, x + s, y + s + ow // 2), fill=_OUTLINE, width=ow)
    # Pond and trees.
    for sq, kind in b.features.items():
        c, r = ord(sq[0]) - 65, int(sq[1:]) - 1
        x, y = xy(c, r)
        sprite = _pond_sprite(s) if kind == "pond" else _tree_sprite(s)
        im.paste(sprite, (x, y), sprite)
    # Coordinates on all four edges.
    f = font(max(22, min(30, s // 3)))
    for c in range(b.width):
        x = left + c * s + s // 2
        letter = chr(65 + c)
        d.text((x, top - _COORD // 2 - 2), letter, font=f, fill=MUTED, anchor="mm")
        d.text((x, top + L["bh"] + _COORD // 2 + 2), letter, font=f, fill=MUTED, anchor="mm")
    for r in range(b.height):
        y = top + r * s + s // 2
        d.text((left - _COORD // 2 - 2, y), str(r + 1), font=f, fill=MUTED, anchor="mm")
        d.text((left + L["bw"] + _COORD // 2 + 2, y), str(r + 1), font=f, fill=MUTED, anchor="mm")

    # Which parts of which tiles belong to a Hong: body colour, and the colour of each head.
    body: dict[str, tuple] = {}
    heads: dict[tuple[str, int], tuple] = {}   # (square, 0 for N/W head, 1 for S/E head) -> colour
    for h in hongs:
        col = HONG_COLOURS[h.direction]
        for sq in h.cells:
            body[sq] = col
        # The west/north cap's head facing the Hong is its E/S head (index 1), the east/south cap's is 0.
        heads[(h.heads[0], 1)] = col
        heads[(h.heads[1], 0)] = col

    stone = _stone_sprite(s)
    for r in range(b.height):
        for c in range(b.width):
            ch = rows[r][c]
            if ch in ".#":
                continue
            x, y = xy(c, r)
            if ch == "S":
                im.paste(stone, (x, y), stone)
                continue
            sq = f"{chr(65 + c)}{r + 1}"
            sprite = _tile_sprite(s, ch, body.get(sq, _DRAGON), heads.get((sq, 0), _DRAGON),
                                  heads.get((sq, 1), _DRAGON))
            im.paste(sprite, (x, y), sprite)

    # Outline each Hong along its whole length, heads included.
    for h in hongs:
        col = HONG_COLOURS[h.direction]
        (c0, r0), (c1, r1) = _cr(h.heads[0]), _cr(h.heads[1])
        x0, y0 = xy(c0, r0)
        x1, y1 = xy(c1, r1)
        # From the middle of one cap to the middle of the other, just past centre, so that two Hongs
        # sharing a head get two separate outlines with a small gap between them.
        if h.direction == "H":
            box = (x0 + s * 0.54, y0 + s * 0.26, x1 + s * 0.46, y1 + s * 0.74)
        else:
            box = (x0 + s * 0.26, y0 + s * 0.54, x1 + s * 0.74, y1 + s * 0.46)
        d.rounded_rectangle(box, radius=int(s * 0.22), outline=col, width=max(3, s // 22))

    # The squares the last move changed.
    for sq in game.last_changed:
        c, r = _cr(sq)
        x, y = xy(c, r)
        d.rounded_rectangle((x - 2, y - 2, x + s + 2, y + s + 2), radius=8, outline=HIGHLIGHT, width=6)


def _cr(square: str) -> tuple[int, int]:
    return ord(square[0]) - 65, int(square[1:]) - 1


def _draw_lair(d: ImageDraw.ImageDraw, game: HongGame, L: dict[str, int]) -> None:
    """Seven lair spaces in two rows (sizes 1–4, then 5–7 and a legend): number, icon, action word."""
    top = L["lair_top"]
    gap = 12
    box_w = (WIDTH - 2 * _PAD - 3 * gap) // 4
    box_h = (_LAIR_H - gap - 8) // 2
    pending = game.pending.options if game.pending is not None else {}
    for size in range(1, 9):
        i = size - 1
        x0 = _PAD + (i % 4) * (box_w + gap)
        y0 = top + (i // 4) * (box_h + gap)
        x1, y1 = x0 + box_w, y0 + box_h
        if size == 8:
            for k, line in enumerate(("THE LAIR:", "a new Hong of", "size N summons", "dragon N")):
                d.text((x0 + 8, y0 + 2 + k * 22), line, font=font(21), fill=MUTED)
            continue
        action = game.lair_setup.get(size, "")
        waiting = size in game.lair
        if size in pending:
            colour = PLAYER_COLOURS[game.pending.player]
            d.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=14, fill=colour)
            d.rounded_rectangle((x0 + 5, y0 + 5, x1 - 5, y1 - 5), radius=10, fill=_WHITE)
        elif waiting:
            d.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=_WOOD, outline=_OUTLINE, width=3)
        else:
            d.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=BACKGROUND, outline=_WOOD_LINE, width=2)
        cy = (y0 + y1) // 2
        d.text((x0 + 30, cy), str(size), font=font(46), fill=INK if waiting else _WOOD_LINE, anchor="mm")
        cx = (x0 + 56 + x1) // 2
        word = font(_fit_size(action, 28, x1 - x0 - 66))
        if waiting:
            _icon(d, action, cx, y0 + 30)
            d.text((cx, y1 - 20), action, font=word, fill=INK, anchor="mm")
        else:
            d.text((cx, y0 + 30), "summoned", font=font(24), fill=_WOOD_LINE, anchor="mm")
            d.text((cx, y1 - 20), action, font=word, fill=_WOOD_LINE, anchor="mm")
            half = word.getlength(action) / 2
            d.line((cx - half, y1 - 20, cx + half, y1 - 20), fill=_WOOD_LINE, width=2)
