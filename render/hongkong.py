"""Hong Kong board image: one game position → PNG bytes, for posting in a Discord channel after each turn.

Layout (940 × 1308 px, read on a phone scaled to about 45 %: no text under 24 px, 10 px at 400 px wide):

* a **status band** in the colour of the player to move ("Ann to move"), or of the winner once the
  game is over ("Ann wins 13–12", with how it ended);
* one **row per player**: colour swatch, name, colour name, pieces left (standard blocks, quick blocks,
  roofs, each with its icon) and controlled buildings; the row of the player to move is tinted and marked;
* the **5 × 5 board**, columns A–E left to right, rows 1–5 top to bottom. Each building is drawn as a
  top face in its controller's colour with the number of blocks on it; below the face, one slab per
  piece sticks out to the lower right in the placing player's colour, so taller buildings look taller.
  A roof turns the face into a four-sided pyramid roof with a black outline. A **stack view** along the
  left of the plot shows all five slots bottom-up: a solid square per standard block, a hollow one (white
  inside a frame of the player's colour) per quick block, a triangle for the roof, empty slots in outline;
* the plots of the last turn framed in :data:`render.common.HIGHLIGHT`; the centre plot C3 on darker ground
  with a corner flag; a footer with the last turn in notation and a legend.

The renderer is :data:`RENDERER` (a :class:`render.contract.Renderer`: :func:`board_image`, its PNG
:func:`render_board` and :data:`PALETTE`).

Names are drawn in their own script (see :mod:`render.text`); text that would not fit is cut with "…". Every word
is in the language of the ``translations`` given (see :mod:`render.labels`; English by default): a longer sentence
shrinks or has its name cut, a label its size, so nothing is clipped.

Speed: the parts that never change (ground, grid, coordinates, legend) are drawn once per language; each building is drawn
once per stack of pieces and cached; text comes from the label cache; the image is a palette image encoded
with a fast zlib level (see :mod:`render.common`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

from PIL import Image

from engine.hongkong import (
    CENTRE,
    COLUMNS,
    MAX_PIECES,
    QUICK,
    ROOF,
    SIZE,
    STANDARD,
    HongKongGame,
    parse_square,
    square_name,
)
from engine.result import Ended
from render.common import (
    BACKGROUND,
    BASE_BLENDS,
    BASE_COLOURS,
    HIGHLIGHT,
    INK,
    MUTED,
    PLAYER_COLOUR_NAMES,
    PLAYER_COLOURS,
    PLAYER_DARK,
    WHITE,
    Canvas,
    Palette,
    mix,
    on,
)
from render.contract import BoardRenderer, Renderer
from render.text import Style, fit_line, fit_parts, fit_text
from render.labels import Translations, Words, parts, plain, player_names, words

Colour = tuple[int, int, int]
Box = tuple[int, int, int, int]
Stack = tuple[tuple[int, str], ...]

GROUND: Colour = (231, 222, 203)  # an empty plot
GROUND_CENTRE: Colour = (218, 206, 180)  # the centre plot, a shade darker
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
HEIGHT = _FOOTER_TOP + 104  # the last turn, then the legend (its words on two lines where one is too long)

# Inside a plot (offsets from its top-left corner, pixels).
_TOWER_X = (10, 44)  # stack view column
_SLOT_H, _SLOT_GAP, _TOWER_BOTTOM = 27, 4, 161
_FACE = (52, 24, 146, 118)  # top face of a building
_SLAB = 6  # how far each piece below the top sticks out, down and right
_CENTRE_FLAG = 40  # legs of the triangle in the centre plot's top-right corner

_ROW_TINT = tuple(mix(c, WHITE, 0.78) for c in PLAYER_COLOURS)
_SLAB_COLOURS = tuple(mix(c, INK, 0.3) for c in PLAYER_COLOURS)
_ROOF_SHADES = tuple(
    (mix(c, WHITE, 0.45), mix(c, INK, 0.25), mix(c, INK, 0.45), mix(c, WHITE, 0.15)) for c in PLAYER_COLOURS
)

#: The fixed palette of every Hong Kong image.
PALETTE = Palette(
    colours=(
        *BASE_COLOURS,
        GROUND,
        GROUND_CENTRE,
        GRID,
        SLOT,
        *_ROW_TINT,
        *_SLAB_COLOURS,
        *[shade for shades in _ROOF_SHADES for shade in shades],
    ),
    blends=(
        *BASE_BLENDS,
        (WHITE, INK),
        (WHITE, PLAYER_COLOURS[0]),
        (INK, PLAYER_COLOURS[1]),
        (WHITE, MUTED),
        (INK, _ROW_TINT[0]),
        (INK, _ROW_TINT[1]),
        (PLAYER_DARK[0], _ROW_TINT[0]),
        (PLAYER_DARK[1], _ROW_TINT[1]),
        (PLAYER_DARK[0], BACKGROUND),
        (PLAYER_DARK[1], BACKGROUND),
        (GRID, GROUND),
        (GRID, GROUND_CENTRE),
        (INK, PLAYER_COLOURS[0]),
        (INK, PLAYER_COLOURS[1]),
    ),
)

# Text styles.
_NUMBER = Style(64, bold=True, stroke=4, stroke_colour=INK)
_LABEL = Style(34)
_PLOT_NAME = Style(30)
_SMALL = Style(26)
_COUNT = Style(34)
_BUILT = Style(34, bold=True)
_NAME = Style(34)
_COLOUR_NAME = Style(24)
_FOOTER = Style(28)
_BAND_STYLES = (Style(44, bold=True), Style(38, bold=True), Style(32, bold=True))
_BAND_SMALLER = (Style(28, bold=True), Style(24, bold=True))  # where a language's words don't fit in _BAND_STYLES
# Smaller sizes a label may shrink to where a language's words are longer than English (largest first).
# None under 24 px: 10 px where a phone shows the board 400 px wide (tests/bench/legibility.py).
_SMALL_STYLES = (_SMALL, Style(24))
_BUILT_STYLES = (_BUILT, Style(30, bold=True), Style(26, bold=True), Style(24, bold=True))
_COLOUR_NAME_STYLES = (_COLOUR_NAME,)
_FOOTER_STYLES = (_FOOTER, Style(26), Style(24))
_LEGEND_STYLES = (Style(26), Style(24))
#: A name in the footer is cut to at least this width (px) before its sentence shrinks.
_FOOTER_NAME_MIN = 160
#: The widest the status band's small text on the right may be (px).
_RIGHT_MAX = WIDTH // 3
#: Where the buildings' count in a player's row may start (px): past the roofs' count (two digits) and a gap.
_BUILT_LEFT = 430 + 2 * 92 + 36 + 40 + 16


def plot_box(plot: int) -> Box:
    """Pixel box ``(left, top, right, bottom)`` of ``plot`` (0–24, ``row * 5 + column``), right/bottom exclusive."""
    x = BOARD_LEFT + (plot % SIZE) * CELL
    y = BOARD_TOP + (plot // SIZE) * CELL
    return x, y, x + CELL, y + CELL


def _slot(index: int, x: int = 0, y: int = 0) -> Box:
    bottom = y + _TOWER_BOTTOM - index * (_SLOT_H + _SLOT_GAP)
    return x + _TOWER_X[0], bottom - _SLOT_H, x + _TOWER_X[1], bottom


def slot_box(plot: int, index: int) -> Box:
    """Pixel box ``(left, top, right, bottom)``, inclusive, of slot ``index`` (0 = bottom … 4) in the stack
    view of ``plot``. A standard block fills it in its player's colour, a quick block is white inside a frame
    of that colour, a roof is a triangle standing in it, an empty slot is an outline."""
    return _slot(index, *plot_box(plot)[:2])


def face_box(plot: int) -> Box:
    """Pixel box ``(left, top, right, bottom)`` of the top face of the building on ``plot``, inclusive.

    Without a roof the face is plain controller colour except for the number in its middle and a
    3 px outline; the slabs of lower pieces stick out below and to the right of it.
    """
    x, y, _, _ = plot_box(plot)
    return x + _FACE[0], y + _FACE[1], x + _FACE[2], y + _FACE[3]


# --- pieces ---------------------------------------------------------------------------------------


def _draw_piece(c: Canvas, kind: str, player: int, box: tuple[float, float, float, float]) -> None:
    """One piece as in the stack view: a solid square block, a hollow quick block, or a roof triangle."""
    x0, y0, x1, y1 = box
    fill, edge = PLAYER_COLOURS[player], PLAYER_DARK[player]
    if kind == ROOF:
        c.polygon([(x0 - 2, y1), ((x0 + x1) / 2, y0 - 2), (x1 + 2, y1)], fill=fill, outline=INK, width=3)
        return
    c.rectangle(box, fill=fill, outline=edge, width=2)
    if kind == QUICK:
        inset = max(5, round(min(x1 - x0, y1 - y0) * 0.26))
        c.rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=WHITE)


def _draw_centre_flag(c: Canvas, x1: int, y0: int) -> None:
    """The centre plot's mark: a triangle filling its top-right corner (``x1`` exclusive right edge)."""
    c.polygon([(x1 - 2 - _CENTRE_FLAG, y0 + 1), (x1 - 2, y0 + 1), (x1 - 2, y0 + 1 + _CENTRE_FLAG)], fill=MUTED)


@lru_cache(maxsize=512)  # about 15 MB at most
def _plot_image(stack: Stack, centre: bool) -> Image.Image:
    """One plot with its building, CELL × CELL: ground, stack view, slabs, face or roof, the number of blocks."""
    image = PALETTE.new((CELL, CELL), GROUND_CENTRE if centre else GROUND)
    c = Canvas(image, PALETTE)
    c.rectangle((0, 0, CELL - 1, CELL - 1), outline=GRID, width=2)
    for i in range(MAX_PIECES):
        if i < len(stack):
            _draw_piece(c, stack[i][1], stack[i][0], _slot(i))
        else:
            c.rectangle(_slot(i), outline=SLOT, width=2)
    fx0, fy0, fx1, fy1 = _FACE
    # Slabs of the pieces below the top one, bottom piece furthest out.
    for depth in range(len(stack) - 1, 0, -1):
        player = stack[len(stack) - 1 - depth][0]
        d = depth * _SLAB
        c.rectangle((fx0 + d, fy0 + d, fx1 + d, fy1 + d), fill=_SLAB_COLOURS[player], outline=INK, width=1)
    owner = stack[-1][0]
    colour = PLAYER_COLOURS[owner]
    cx, cy = (fx0 + fx1) / 2, (fy0 + fy1) / 2
    if stack[-1][1] == ROOF:
        # A pyramid roof seen from above: four slopes lit from the top left, ridges and a heavy outline.
        corners = [(fx0, fy0), (fx1, fy0), (fx1, fy1), (fx0, fy1)]
        for i, shade in enumerate(_ROOF_SHADES[owner]):
            c.polygon([corners[i], corners[(i + 1) % 4], (cx, cy)], fill=shade)
        for corner in corners:
            c.line([corner, (cx, cy)], fill=INK, width=3)
        c.rectangle((fx0, fy0, fx1, fy1), outline=INK, width=5)
        ground = _ROOF_SHADES[owner][1]
    else:
        c.rectangle((fx0, fy0, fx1, fy1), fill=colour, outline=PLAYER_DARK[owner], width=3)
        ground = colour
    blocks = sum(1 for _, kind in stack if kind != ROOF)
    if blocks:
        c.text((cx, cy + 2), str(blocks), _NUMBER, WHITE, ground, anchor="mm")
    if centre:
        _draw_centre_flag(c, CELL, 0)
    return image


# --- the parts that never change ------------------------------------------------------------------


@lru_cache(maxsize=8)  # one a language (1.2 MB each)
def _background(w: Words) -> Image.Image:
    """Ground, grid, coordinates, empty plots with their names, the centre's mark and the legend (in ``w``'s
    language)."""
    image = PALETTE.new((WIDTH, HEIGHT), BACKGROUND)
    c = Canvas(image, PALETTE)
    for i in range(SIZE):
        c.text((BOARD_LEFT + i * CELL + CELL / 2, _LABEL_ROW), COLUMNS[i], _LABEL, INK, BACKGROUND, "mm")
        c.text((BOARD_LEFT / 2, BOARD_TOP + i * CELL + CELL / 2), str(i + 1), _LABEL, INK, BACKGROUND, "mm")
    for plot in range(SIZE * SIZE):
        x0, y0, x1, y1 = plot_box(plot)
        ground = GROUND_CENTRE if plot == CENTRE else GROUND
        c.rectangle((x0, y0, x1 - 1, y1 - 1), fill=ground, outline=GRID, width=2)
        c.text(((x0 + x1) / 2, (y0 + y1) / 2), square_name(plot), _PLOT_NAME, GRID, ground, "mm")
        if plot == CENTRE:
            _draw_centre_flag(c, x1, y0)
    _draw_legend(c, w)
    return image


def _draw_legend(c: Canvas, w: Words) -> None:
    """The icons of the stack view and the centre's mark, each with its word, and what a building's number means
    (right-aligned; see :meth:`render.common.Canvas.legend` for how longer words fit)."""
    y = _FOOTER_TOP + 74

    def piece(kind: str) -> Callable[[float], None]:
        return lambda x: _draw_piece(c, kind, 0, (x, y - 12, x + 26, y + 12))

    def flag(x: float) -> None:
        c.polygon([(x, y - 12), (x + 24, y - 12), (x + 24, y + 12)], fill=MUTED)

    items = [
        (36, piece(STANDARD), w.pgettext("image", "block"), 18),
        (36, piece(QUICK), w.pgettext("image", "quick block"), 18),
        (36, piece(ROOF), w.pgettext("image", "roof"), 18),
        (34, flag, w.pgettext("image", "centre C3"), 18),
    ]
    # TRANSLATORS: the legend under a Hong Kong board: the big number on a building is how many blocks high it is.
    c.legend(
        y,
        22,
        WIDTH - 22,
        items,
        w.pgettext("image", "number = blocks high"),
        MUTED,
        MUTED,
        BACKGROUND,
        (_LEGEND_STYLES, _LEGEND_STYLES),
    )


# --- header and footer ----------------------------------------------------------------------------


def _status(
    game: HongKongGame, names: tuple[str, str], w: Words, ended: Ended | None = None
) -> tuple[Colour, str, str]:
    """Band colour, the status sentence (names as :meth:`render.labels.Words.name` fields) and the small text for
    the right of the band, in ``w``'s language."""
    outcome = game.outcome
    if outcome is None and ended is not None:  # resigned, out of time or aborted
        if ended.winner is None:
            return MUTED, w.gettext("No result"), w.term(ended.short)
        winner = w.name(names[ended.winner])
        return PLAYER_COLOURS[ended.winner], w.gettext("{name} wins", name=winner), w.term(ended.short)
    if outcome is None:
        # TRANSLATORS: the status line of a Hong Kong board: whose turn it is.
        return (
            PLAYER_COLOURS[game.to_move],
            w.gettext("{name} to move", name=w.name(names[game.to_move])),
            w.pgettext("image", "turn {number}", number=len(game.moves) + 1),
        )
    # "pieces used": every standard block and roof is placed; quick blocks may be left over
    if outcome.termination == "board full":
        ended_by = w.term(outcome.termination)
    else:
        ended_by = w.pgettext("image", "blocks & roofs used")
    won = outcome.winner
    if won is None:
        score = "{}–{}".format(*outcome.buildings)
        # TRANSLATORS: {score} is the buildings each player controls, e.g. 12–12.
        return MUTED, w.gettext("Draw {score}, centre C3 empty", score=score), ended_by
    score = f"{outcome.buildings[won]}–{outcome.buildings[1 - won]}"
    name = w.name(names[won])
    if outcome.centre_decided:
        # TRANSLATORS: {score} is the buildings each player controls, the winner's first, e.g. 12–12.
        sentence = w.gettext("{score}: {name} wins on the centre C3", score=score, name=name)
    else:
        # TRANSLATORS: {score} is the buildings each player controls, the winner's first, e.g. 13–12.
        sentence = w.gettext("{name} wins {score}", name=name, score=score)
    return PLAYER_COLOURS[won], sentence, ended_by


def headline(
    game: HongKongGame, names: tuple[str, str], ended: Ended | None = None, *, translations: Translations | None = None
) -> str:
    """The status line of the image, with names in full: whose turn it is, or the result.

    ``"Ann to move"``; once the game is over ``"Ann wins 13–12"``, ``"Draw 12–12, centre C3 empty"`` or
    ``"12–12: Ben wins on the centre C3"`` (scores are controlled buildings, the winner's first;
    rules: "Result"); for a game that ended off the board (``ended``) ``"Ben wins"`` or ``"No result"``.
    Names are used as given (see :func:`render.text.clean_name` for drawing). In the language of
    ``translations`` (see :func:`render_board`).
    """
    return plain(_status(game, names, words(translations), ended)[1])


def _draw_status(c: Canvas, game: HongKongGame, names: tuple[str, str], ended: Ended | None, w: Words) -> None:
    band, sentence, right = _status(game, names, w, ended)
    playing = game.outcome is None and ended is None
    ink = on(band)
    top, bottom = _BAND
    mid = (top + bottom) / 2
    c.rectangle((0, top, WIDTH - 1, bottom - 1), fill=band)

    # The small text on the right takes at most a third of the band: shrunk, or cut, to fit.
    if playing:
        style, right = fit_line(right, _SMALL_STYLES, _RIGHT_MAX)
        right_w = c.text((WIDTH - 22, mid), right, style, ink, band, "rm")
    else:
        over = w.pgettext("image", "game over")
        style = min(
            fit_line(over, _SMALL_STYLES, _RIGHT_MAX)[0],
            fit_line(right, _SMALL_STYLES, _RIGHT_MAX)[0],
            key=lambda s: s.size,
        )  # both lines in the smaller size of the two
        right_w = max(
            c.text((WIDTH - 22, mid - 15), fit_text(over, style, _RIGHT_MAX), style, ink, band, "rm"),
            c.text((WIDTH - 22, mid + 15), fit_text(right, style, _RIGHT_MAX), style, ink, band, "rm"),
        )

    x = 22
    if playing:  # an arrow in front of "Ann to move"
        c.polygon([(x, mid - 17), (x + 26, mid), (x, mid + 17)], fill=ink)
        x += 40
    # Shrink the text before cutting the name; only the name is ever cut.
    style, texts = fit_parts(parts(sentence), _BAND_STYLES, WIDTH - 48 - right_w - x, smaller=_BAND_SMALLER)
    c.text_line((x, mid), texts, style, ink, band, "lm")


def _draw_player(c: Canvas, game: HongKongGame, player: int, name: str, ended: Ended | None, w: Words) -> None:
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
    ground = BACKGROUND
    if marked:
        ground = _ROW_TINT[player]
        c.rectangle((0, top, WIDTH - 1, bottom - 1), fill=ground)
        c.rectangle((0, top, 9, bottom - 1), fill=colour)

    c.rectangle((22, mid - 24, 70, mid + 24), fill=colour, outline=dark, width=3)

    # Right-hand block: pieces left (icon + count) and controlled buildings.
    x = 430
    for kind in (STANDARD, QUICK, ROOF):
        _draw_piece(c, kind, player, (x, int(mid) - 13, x + 26, int(mid) + 13))
        c.text((x + 36, mid), str(game.remaining[player][kind]), _COUNT, INK, ground, "lm")
        x += 92
    built = game.buildings()[player]
    # TRANSLATORS: the buildings a player controls, on the right of the player's row of a Hong Kong board.
    style, text = fit_line(
        w.ngettext("{count} building", "{count} buildings", built), _BUILT_STYLES, WIDTH - 22 - _BUILT_LEFT
    )
    c.text((WIDTH - 22, mid), text, style, INK, ground, "rm")

    # Name, and the colour's name under it (unless the player is named by it: a rules page's board, "Blue").
    shown_colour = w.gettext(PLAYER_COLOUR_NAMES[player])
    if name.casefold() == shown_colour.casefold():
        c.text((86, mid), fit_text(name, _NAME, 430 - 16 - 86), _NAME, INK, ground, "lm")
        return
    c.text((86, mid - 15), fit_text(name, _NAME, 430 - 16 - 86), _NAME, INK, ground, "lm")
    style, colour_name = fit_line(shown_colour, _COLOUR_NAME_STYLES, 430 - 16 - 86)
    c.text((86, mid + 22), colour_name, style, dark, ground, "lm")


def _draw_footer(c: Canvas, game: HongKongGame, names: tuple[str, str], w: Words) -> None:
    """The last turn in notation beside a highlight swatch, or before the first turn who begins (and that the
    centre is closed): the name is cut first, the sentence shrinks only if it leaves a name too little room."""
    y = _FOOTER_TOP + 22
    if game.moves:
        mover = (game.first + len(game.moves) - 1) % 2
        c.rectangle((22, y - 12, 46, y + 12), outline=HIGHLIGHT, width=5)
        # TRANSLATORS: the footer of a Hong Kong board: who played the last turn, and the turn in notation (S@B2).
        sentence = w.gettext("Last turn: {name}  {turn}", name=w.name(names[mover]), turn=game.moves[-1])
        x = 58
    elif not game.is_over:
        sentence = w.gettext("{name} moves first; nothing may go on C3 this turn.", name=w.name(names[game.first]))
        x = 22
    else:
        return
    style, texts = fit_parts(parts(sentence), _FOOTER_STYLES, WIDTH - 22 - x, name_min=_FOOTER_NAME_MIN)
    c.text_line((x, y), texts, style, INK, BACKGROUND, "lm")


# --- entry points ---------------------------------------------------------------------------------


def board_image(
    game: HongKongGame,
    names: tuple[str, str],
    *,
    ended: Ended | None = None,
    translations: Translations | None = None,
    marks: Sequence[str] = (),
) -> Image.Image:
    """The board of :func:`render_board` as a palette image (:data:`PALETTE`), before PNG encoding; ``marks``: plots
    to ring (``"C2"``, a rules page's caption names them).

    The replay draws its frames with this, so a replay frame is the live board of that position.
    """
    w = words(translations)
    shown = player_names(names, w)
    image = _background(w).copy()
    c = Canvas(image, PALETTE)
    _draw_status(c, game, shown, ended, w)
    for player in (0, 1):
        _draw_player(c, game, player, shown[player], ended, w)
    for plot, stack in enumerate(game.stacks):
        if stack:
            c.paste(_plot_image(tuple(stack), plot == CENTRE), plot_box(plot)[:2])
    for plot in game.last_turn_plots:
        x0, y0, x1, y1 = plot_box(plot)
        c.rectangle((x0 + 1, y0 + 1, x1 - 2, y1 - 2), outline=HIGHLIGHT, width=7)
    for square in marks:
        try:
            x0, y0, x1, y1 = plot_box(parse_square(square))
        except ValueError:
            continue
        c.corners((x0 + 8, y0 + 8, x1 - 9, y1 - 9), INK, width=7)
    _draw_footer(c, game, shown, w)
    return image


def render_board(
    game: HongKongGame, names: tuple[str, str], *, ended: Ended | None = None, translations: Translations | None = None
) -> bytes:
    """Draw the current position of ``game`` as a PNG image (:data:`WIDTH` × :data:`HEIGHT` pixels, palette).

    Args:
        game: the game to draw; it is only read.
        names: display names of player 0 and player 1. Any text is accepted: every script and emoji is drawn
            with the font fallback chain (see :mod:`render.text`), control characters are dropped, long names
            are cut with "…"; a name with nothing drawable becomes "Player 1" / "Player 2".
        ended: how the game ended if it ended off the board (resigned, out of time, aborted); the status
            band then shows that result instead of whose turn it was. Ignored once the engine has an
            outcome (a game played to its end).
        translations: the language of every word drawn: a :class:`gettext.NullTranslations`-like catalog (the
            bot passes ``bot.i18n.translations(code)``); None for English. Squares (A1–E5), numbers and turns in
            notation are the same in every language.

    Returns:
        PNG bytes, typically 30–55 KB, drawn and encoded in about 3 ms. Pure and deterministic: the same
        position, names and language give the same bytes. Safe to call from worker threads.
    """
    return RENDERER.png(game, names, ended=ended, translations=translations)


#: Hong Kong's renderer (see :mod:`render.contract`): the bot's boards and the replays' frames.
RENDERER: Renderer[HongKongGame] = BoardRenderer(board_image, PALETTE)
