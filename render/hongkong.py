"""Hong Kong board image: one game position → PNG bytes, for posting in a Discord channel after each turn.

Layout (940 × 1296 px, read on a phone scaled to about 45 %):

* a **status band** in the colour of the player to move ("Ann to move"), or of the winner once the
  game is over ("Ann wins 13-12", with how it ended);
* one **row per player**: colour swatch, name, colour name, pieces left (standard blocks, quick blocks,
  roofs, each with its icon) and controlled buildings; the row of the player to move is tinted and marked;
* the **5 × 5 board**, columns A–E left to right, rows 1–5 top to bottom. Each building is drawn as a
  top face in its controller's colour with the number of blocks on it; below the face, one slab per
  piece sticks out to the lower right in the placing player's colour, so taller buildings look taller.
  A roof turns the face into a four-sided pyramid roof with a black outline. A **stack view** along the
  left of the plot shows all five slots bottom-up: a square per block (a white dot on quick blocks), a
  triangle for the roof, empty slots in outline;
* the plots of the last turn framed in :data:`render.common.HIGHLIGHT`; the centre plot C3 marked with a
  small diamond; a footer with the last turn in notation and a legend.

Only Pillow's built-in font is used (ASCII plus "…"), so the same position gives the same bytes on
every machine. Text that would not fit is cut with "…".
"""
from __future__ import annotations

from PIL import Image, ImageDraw

from engine.hongkong import CENTRE, COLUMNS, MAX_PIECES, QUICK, ROOF, SIZE, STANDARD, HongKongGame, square_name
from engine.result import Ended
from render.common import (
    BACKGROUND,
    HIGHLIGHT,
    INK,
    MUTED,
    PLAYER_COLOUR_NAMES,
    PLAYER_COLOURS,
    PLAYER_DARK,
    clean_name,
    fit_text,
    font,
    to_png,
)

Colour = tuple[int, int, int]
Box = tuple[int, int, int, int]

WHITE: Colour = (255, 255, 255)
GROUND: Colour = (231, 222, 203)  # an empty plot
GROUND_CENTRE: Colour = (222, 211, 188)  # the centre plot, a shade darker
GRID: Colour = (186, 172, 148)
SLOT: Colour = (205, 193, 170)  # outline of an empty stack slot

#: Image size in pixels.
WIDTH = 940
#: Side of one plot in pixels.
CELL = 172
#: Left and top edges of plot A1 in pixels.
BOARD_LEFT = 52
BOARD_TOP = 330

# Vertical layout of the header and footer (pixels).
_BAND = (0, 84)
_ROWS = ((96, 172), (180, 256))
_LABEL_ROW = 290  # centre line of the column letters
_FOOTER_TOP = BOARD_TOP + SIZE * CELL + 14
HEIGHT = _FOOTER_TOP + 92

# Inside a plot (offsets from its top-left corner, pixels).
_TOWER_X = (12, 40)  # stack view column
_SLOT_H, _SLOT_GAP, _TOWER_BOTTOM = 27, 4, 161
_FACE = (50, 24, 146, 120)  # top face of a building
_SLAB = 6  # how far each piece below the top sticks out, down and right


def _mix(a: Colour, b: Colour, t: float) -> Colour:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def _on(colour: Colour) -> Colour:
    """Text colour readable on a ``colour`` background (white on blue, ink on orange)."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else WHITE


def plot_box(plot: int) -> Box:
    """Pixel box ``(left, top, right, bottom)`` of ``plot`` (0–24, ``row * 5 + column``), right/bottom exclusive."""
    x = BOARD_LEFT + (plot % SIZE) * CELL
    y = BOARD_TOP + (plot // SIZE) * CELL
    return x, y, x + CELL, y + CELL


def slot_box(plot: int, index: int) -> Box:
    """Pixel box ``(left, top, right, bottom)``, inclusive, of slot ``index`` (0 = bottom … 4) in the stack
    view of ``plot``. A block fills it in its player's colour (a quick block with a white dot in the
    middle), a roof is a triangle standing in it, an empty slot is an outline."""
    x, y, _, _ = plot_box(plot)
    bottom = y + _TOWER_BOTTOM - index * (_SLOT_H + _SLOT_GAP)
    return x + _TOWER_X[0], bottom - _SLOT_H, x + _TOWER_X[1], bottom


def face_box(plot: int) -> Box:
    """Pixel box ``(left, top, right, bottom)`` of the top face of the building on ``plot``, inclusive.

    Without a roof the face is plain controller colour except for the number in its middle and a
    3 px outline; the slabs of lower pieces stick out below and to the right of it.
    """
    x, y, _, _ = plot_box(plot)
    return x + _FACE[0], y + _FACE[1], x + _FACE[2], y + _FACE[3]


# --- pieces ---------------------------------------------------------------------------------------


def _draw_piece(draw: ImageDraw.ImageDraw, kind: str, player: int, box: Box) -> None:
    """One piece as in the stack view: a square block, a block with a white dot, or a roof triangle."""
    x0, y0, x1, y1 = box
    fill, edge = PLAYER_COLOURS[player], PLAYER_DARK[player]
    if kind == ROOF:
        draw.polygon([(x0 - 2, y1), ((x0 + x1) / 2, y0 - 2), (x1 + 2, y1)], fill=fill, outline=INK, width=3)
        return
    draw.rectangle(box, fill=fill, outline=edge, width=2)
    if kind == QUICK:
        r = max(3, round((x1 - x0) * 0.3))
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE, outline=edge, width=2)


def _draw_tower(draw: ImageDraw.ImageDraw, stack: list[tuple[int, str]], plot: int) -> None:
    """The stack view of one building: five slots bottom-up along the left of the plot."""
    for i in range(MAX_PIECES):
        box = slot_box(plot, i)
        if i < len(stack):
            _draw_piece(draw, stack[i][1], stack[i][0], box)
        else:
            draw.rectangle(box, outline=SLOT, width=2)


def _draw_building(draw: ImageDraw.ImageDraw, game: HongKongGame, plot: int) -> None:
    stack = game.stacks[plot]
    _draw_tower(draw, stack, plot)

    fx0, fy0, fx1, fy1 = face_box(plot)
    # Slabs of the pieces below the top one, bottom piece furthest out.
    for depth in range(len(stack) - 1, 0, -1):
        player = stack[len(stack) - 1 - depth][0]
        d = depth * _SLAB
        draw.rectangle((fx0 + d, fy0 + d, fx1 + d, fy1 + d), fill=_mix(PLAYER_COLOURS[player], INK, 0.3), outline=INK, width=1)

    owner = stack[-1][0]
    colour, dark = PLAYER_COLOURS[owner], PLAYER_DARK[owner]
    cx, cy = (fx0 + fx1) / 2, (fy0 + fy1) / 2
    if game.roofed(plot):
        # A pyramid roof seen from above: four slopes lit from the top left, ridges and a heavy outline.
        corners = [(fx0, fy0), (fx1, fy0), (fx1, fy1), (fx0, fy1)]
        shades = [_mix(colour, WHITE, 0.45), _mix(colour, INK, 0.25), _mix(colour, INK, 0.45), _mix(colour, WHITE, 0.15)]
        for i, shade in enumerate(shades):
            draw.polygon([corners[i], corners[(i + 1) % 4], (cx, cy)], fill=shade)
        for corner in corners:
            draw.line([corner, (cx, cy)], fill=INK, width=3)
        draw.rectangle((fx0, fy0, fx1, fy1), outline=INK, width=5)
    else:
        draw.rectangle((fx0, fy0, fx1, fy1), fill=colour, outline=dark, width=3)

    blocks = game.blocks(plot)
    if blocks:
        draw.text((cx, cy), str(blocks), font=font(60), anchor="mm", fill=WHITE, stroke_width=4, stroke_fill=INK)


def _draw_diamond(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, colour: Colour) -> None:
    draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=colour)


# --- board ----------------------------------------------------------------------------------------


def _draw_board(draw: ImageDraw.ImageDraw, game: HongKongGame) -> None:
    labels = font(34)
    for i in range(SIZE):
        draw.text((BOARD_LEFT + i * CELL + CELL / 2, _LABEL_ROW), COLUMNS[i], font=labels, anchor="mm", fill=INK)
        draw.text((BOARD_LEFT / 2, BOARD_TOP + i * CELL + CELL / 2), str(i + 1), font=labels, anchor="mm", fill=INK)

    names = font(30)
    for plot in range(SIZE * SIZE):
        x0, y0, x1, y1 = plot_box(plot)
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=GROUND_CENTRE if plot == CENTRE else GROUND, outline=GRID, width=2)
        if game.stacks[plot]:
            _draw_building(draw, game, plot)
        else:
            draw.text(((x0 + x1) / 2, (y0 + y1) / 2), square_name(plot), font=names, anchor="mm", fill=GRID)
        if plot == CENTRE:
            _draw_diamond(draw, x1 - 16, y0 + 16, 9, MUTED)

    for plot in game.last_turn_plots:
        x0, y0, x1, y1 = plot_box(plot)
        draw.rectangle((x0 + 1, y0 + 1, x1 - 2, y1 - 2), outline=HIGHLIGHT, width=7)


# --- header and footer ----------------------------------------------------------------------------


def _status(game: HongKongGame, ended: Ended | None = None) -> tuple[Colour, int | None, str, str, str]:
    """Band colour, the player named (None for a draw), text before and after the name, and the
    small text for the right of the band."""
    outcome = game.outcome
    if outcome is None and ended is not None:  # resigned, out of time or aborted
        if ended.winner is None:
            return MUTED, None, "No result", "", ended.short
        return PLAYER_COLOURS[ended.winner], ended.winner, "", " wins", ended.short
    if outcome is None:
        return PLAYER_COLOURS[game.to_move], game.to_move, "", " to move", f"turn {len(game.moves) + 1}"
    ended_by = "board full" if outcome.termination == "board full" else "all pieces used"
    won = outcome.winner
    if won is None:
        a, b = outcome.buildings
        return MUTED, None, f"Draw {a}-{b}", "", ended_by
    score = f"{outcome.buildings[won]}-{outcome.buildings[1 - won]}"
    if outcome.centre_decided:
        return PLAYER_COLOURS[won], won, f"{score}: ", " wins on the centre C3", ended_by
    return PLAYER_COLOURS[won], won, "", f" wins {score}", ended_by


def headline(game: HongKongGame, names: tuple[str, str], ended: Ended | None = None) -> str:
    """The status line of the image, with names in full: whose turn it is, or the result.

    ``"Ann to move"``; once the game is over ``"Ann wins 13-12"``, ``"Draw 12-12"`` or
    ``"12-12: Ben wins on the centre C3"`` (scores are controlled buildings, the winner's first;
    rules: "Result"); for a game that ended off the board (``ended``) ``"Ben wins"`` or ``"No result"``.
    Names are used as given (see :func:`render.common.clean_name` for drawing).
    """
    _, who, before, after, _ = _status(game, ended)
    return before + (names[who] if who is not None else "") + after


def _draw_status(draw: ImageDraw.ImageDraw, game: HongKongGame, names: tuple[str, str],
                 ended: Ended | None) -> None:
    band, who, before, after, right = _status(game, ended)
    playing = game.outcome is None and ended is None
    ink = _on(band)
    top, bottom = _BAND
    mid = (top + bottom) / 2
    draw.rectangle((0, top, WIDTH - 1, bottom - 1), fill=band)

    small = font(26)
    if playing:
        draw.text((WIDTH - 22, mid), right, font=small, anchor="rm", fill=ink)
        right_w = small.getlength(right)
    else:
        draw.text((WIDTH - 22, mid - 15), "game over", font=small, anchor="rm", fill=ink)
        draw.text((WIDTH - 22, mid + 15), right, font=small, anchor="rm", fill=ink)
        right_w = max(small.getlength("game over"), small.getlength(right))

    x = 22
    if playing:  # an arrow in front of "Ann to move"
        draw.polygon([(x, mid - 17), (x + 26, mid), (x, mid + 17)], fill=ink)
        x += 40
    # Shrink the text before cutting the name; only the name is ever cut.
    name = names[who] if who is not None else ""
    for size in (44, 38, 32):
        big = font(size)
        room = WIDTH - 22 - right_w - 26 - x - big.getlength(before + after)
        if big.getlength(name) <= room:
            break
    text = before + fit_text(name, big, room) + after
    draw.text((x, mid), text, font=big, anchor="lm", fill=ink, stroke_width=1, stroke_fill=ink)


def _draw_player(draw: ImageDraw.ImageDraw, game: HongKongGame, player: int, name: str,
                 ended: Ended | None) -> None:
    top, bottom = _ROWS[player]
    mid = (top + bottom) / 2
    colour, dark = PLAYER_COLOURS[player], PLAYER_DARK[player]
    outcome = game.outcome
    if outcome is not None:
        marked = outcome.winner == player
    elif ended is not None:
        marked = ended.winner == player
    else:
        marked = game.to_move == player
    if marked:
        draw.rectangle((0, top, WIDTH - 1, bottom - 1), fill=_mix(colour, WHITE, 0.78))
        draw.rectangle((0, top, 9, bottom - 1), fill=colour)

    draw.rectangle((22, mid - 24, 70, mid + 24), fill=colour, outline=dark, width=3)

    # Right-hand block: pieces left (icon + count) and controlled buildings.
    counts = font(34)
    x = 430
    for kind in (STANDARD, QUICK, ROOF):
        _draw_piece(draw, kind, player, (x, int(mid) - 13, x + 26, int(mid) + 13))
        draw.text((x + 36, mid), str(game.remaining[player][kind]), font=counts, anchor="lm", fill=INK)
        x += 92
    built = game.buildings()[player]
    draw.text((WIDTH - 22, mid), f"{built} building" + ("" if built == 1 else "s"), font=counts, anchor="rm", fill=INK, stroke_width=1, stroke_fill=INK)

    # Name, and the colour's name under it.
    draw.text((86, mid - 11), fit_text(name, font(34), 430 - 16 - 86), font=font(34), anchor="lm", fill=INK)
    draw.text((86, mid + 22), PLAYER_COLOUR_NAMES[player], font=font(22), anchor="lm", fill=dark)


def _draw_footer(draw: ImageDraw.ImageDraw, game: HongKongGame, names: tuple[str, str]) -> None:
    text_font = font(28)
    y = _FOOTER_TOP + 22
    if game.moves:
        mover = (game.first + len(game.moves) - 1) % 2
        draw.rectangle((22, y - 12, 46, y + 12), outline=HIGHLIGHT, width=5)
        turn = game.moves[-1]
        prefix = "Last turn: "
        room = WIDTH - 22 - 58 - text_font.getlength(prefix + "  " + turn)
        draw.text((58, y), f"{prefix}{fit_text(names[mover], text_font, room)}  {turn}", font=text_font, anchor="lm", fill=INK)
    elif not game.is_over:
        first = names[game.first]
        suffix = " moves first; nothing may go on C3 this turn."
        room = WIDTH - 44 - text_font.getlength(suffix)
        draw.text((22, y), fit_text(first, text_font, room) + suffix, font=text_font, anchor="lm", fill=INK)

    # Legend: the icons of the stack view.
    y += 46
    legend = font(24)
    x = 22
    for kind, label in ((STANDARD, "block"), (QUICK, "quick block"), (ROOF, "roof")):
        _draw_piece(draw, kind, 0, (x, y - 11, x + 22, y + 11))
        draw.text((x + 32, y), label, font=legend, anchor="lm", fill=MUTED)
        x += 32 + int(legend.getlength(label)) + 28
    _draw_diamond(draw, x + 8, y, 9, MUTED)
    draw.text((x + 26, y), "centre C3", font=legend, anchor="lm", fill=MUTED)
    draw.text((WIDTH - 22, y), "number = blocks high", font=legend, anchor="rm", fill=MUTED)


# --- entry point ----------------------------------------------------------------------------------


def render_board(game: HongKongGame, names: tuple[str, str], *, ended: Ended | None = None) -> bytes:
    """Draw the current position of ``game`` as a PNG image (:data:`WIDTH` × :data:`HEIGHT` pixels, RGB).

    Args:
        game: the game to draw; it is only read.
        names: display names of player 0 and player 1. Any text is accepted: accents are folded,
            control characters dropped, long names cut with "…", characters the built-in font lacks
            (emoji, CJK) drawn as boxes; an empty name becomes "Player 1" / "Player 2".
        ended: how the game ended if it ended off the board (resigned, out of time, aborted); the status
            band then shows that result instead of whose turn it was. Ignored once the engine has an
            outcome (a game played to its end).

    Returns:
        PNG bytes, typically 60–95 KB. Pure and deterministic: the same position and names give the
        same bytes. Safe to call from worker threads (no shared mutable state).
    """
    shown = (clean_name(names[0], "Player 1"), clean_name(names[1], "Player 2"))
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _draw_status(draw, game, shown, ended)
    for player in (0, 1):
        _draw_player(draw, game, player, shown[player], ended)
    _draw_board(draw, game)
    _draw_footer(draw, game, shown)
    return to_png(image)
