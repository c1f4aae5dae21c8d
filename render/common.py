"""Drawing helpers shared by the game renderers: colours, the fixed palette, a palette canvas, PNG encoding.

Colours are from the Okabe–Ito palette, chosen so the two players stay distinct for the common forms of colour
blindness (blue vs orange, never red vs green).

Every board is drawn straight into a palette ("P") image with a fixed palette per game (:class:`Palette`): shapes
by palette index, text and anti-aliased sprites pasted from caches where they were quantised once. So a board is
never quantised as a whole, encodes as a small PNG with a fast zlib level, and replay frames share one palette.
A board's PNG is deflated in bands kept across boards (:func:`to_png`): what did not change since a game's last
board, or between a board and a preview of the next, is not deflated again.
"""

from __future__ import annotations

import struct
import threading
import types
import zlib
from collections import OrderedDict
from typing import Callable, Iterable, Sequence, cast

try:  # zlib-ng deflates palette images two to three times as fast as zlib, to the same format
    from zlib_ng import zlib_ng as _zlib_ng

    _zlib: types.ModuleType = _zlib_ng
except ImportError:  # pragma: no cover - zlib-ng is a dependency; this keeps a broken install drawing
    _zlib = zlib

from PIL import Image, ImageDraw

from engine import N_
from render.text import Style, fit_text, render_label, text_width, two_lines

Colour = tuple[int, int, int]
Box = tuple[float, float, float, float]

#: Player colours, index = player number. Blue and orange (Okabe–Ito).
PLAYER_COLOURS: tuple[Colour, Colour] = ((0, 114, 178), (230, 159, 0))
#: Darker outlines of the player colours, for edges and text on light ground.
PLAYER_DARK: tuple[Colour, Colour] = ((0, 66, 110), (150, 95, 0))
#: Names of the player colours as shown to players (English, marked for the catalogs: translate where shown).
PLAYER_COLOUR_NAMES: tuple[str, str] = (N_("blue"), N_("orange"))

BACKGROUND: Colour = (246, 241, 231)
INK: Colour = (33, 33, 33)
MUTED: Colour = (120, 112, 100)
HIGHLIGHT: Colour = (204, 121, 167)  # Okabe–Ito reddish purple: last move
WHITE: Colour = (255, 255, 255)
#: The empty part of a replay's progress bar.
TRACK: Colour = (225, 216, 198)

#: Colours every palette has (the replay caption is drawn with them on any game's frames).
BASE_COLOURS: tuple[Colour, ...] = (BACKGROUND, INK, MUTED, HIGHLIGHT, WHITE, TRACK, *PLAYER_COLOURS, *PLAYER_DARK)
#: Text colour on background pairs every palette blends (anti-aliased text, the replay caption).
BASE_BLENDS: tuple[tuple[Colour, Colour], ...] = ((INK, BACKGROUND), (MUTED, BACKGROUND), (INK, WHITE))

#: The smallest text a board draws (px on a board 1000 px wide): 10 px where a phone shows the board 400 px wide
#: at 1×, the least a caption is read at (tests/bench/legibility.py measures every board; a board narrower than
#: 1000 px may go as low as it keeps 10 px at 400, e.g. 24 px on Hong Kong's 940).
MIN_TEXT = 25
#: The sizes a legend's words are set in, largest first: on one line, then (if the line is still too long) on two.
LEGEND_STYLES = (Style(26), Style(MIN_TEXT))
LEGEND_TWO_LINES = (Style(26), Style(MIN_TEXT))

#: Default zlib level of the PNGs. With zlib-ng, level 2 deflates a Hong Kong board (1.2 Mpx) in about 1 ms to
#: 30–55 KB; level 1 is a third faster but 50 % larger (62 KB for 42), each level up costs about 0.7 ms for 4 % less.
#: Pillow's encoder (system zlib) took 4–5 ms at level 2. Bands already deflated are kept (:func:`to_png`).
PNG_LEVEL = 2


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def on(colour: Colour) -> Colour:
    """Text colour readable on a ``colour`` background (white on blue, ink on orange)."""
    r, g, b = colour
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else WHITE


class Palette:
    """A fixed palette of at most 255 colours (one index stays free for a GIF's transparency).

    ``colours`` are kept exactly: a pixel of one of them, quantised, keeps that colour. ``blends`` add ``steps``
    colours between each pair (anti-aliased edges of text and sprites); a blend colour that Pillow's quantiser
    would pick instead of an exact colour is left out.

    Raises:
        ValueError: more than 255 colours, or two exact colours so close that the quantiser confuses them.
    """

    def __init__(self, colours: Iterable[Colour], blends: Iterable[tuple[Colour, Colour]] = (), steps: int = 4):
        exact: list[Colour] = list(dict.fromkeys(cast(Colour, tuple(c)) for c in colours))  # a list given: a tuple
        extra: list[Colour] = []
        for a, b in blends:
            for k in range(1, steps + 1):
                c = mix(a, b, k / (steps + 1))
                if c not in exact and c not in extra:
                    extra.append(c)
        if len(exact) + len(extra) > 255:
            raise ValueError(f"{len(exact) + len(extra)} colours; a palette holds at most 255")
        strip = Image.new("RGB", (len(exact), 1))
        strip.putdata(exact)
        while True:
            entries = exact + extra
            image = Image.new("P", (1, 1))
            image.putpalette([v for c in entries for v in c])
            got = strip.quantize(palette=image, dither=Image.Dither.NONE).tobytes()
            stolen = {entries[j] for i, j in enumerate(got) if j != i}
            if not stolen:
                break
            if not stolen.isdisjoint(exact):
                raise ValueError(f"exact colours too close to keep apart: {sorted(stolen & set(exact))}")
            extra = [c for c in extra if c not in stolen]
        self.colours: tuple[Colour, ...] = tuple(entries)
        self.image = image
        self._index = {c: i for i, c in enumerate(entries)}

    def __getitem__(self, colour: Colour) -> int:
        """The palette index of ``colour`` (one of the exact colours or a blend).

        Raises:
            KeyError: ``colour`` is not in the palette.
        """
        return self._index[colour]

    def new(self, size: tuple[int, int], colour: Colour) -> Image.Image:
        """A palette image of ``size`` filled with ``colour``."""
        image = Image.new("P", size, self[colour])
        image.putpalette(self.image.getpalette())  # type: ignore[arg-type]
        return image

    def quantize(self, image: Image.Image) -> Image.Image:
        """``image`` (RGB) mapped to this palette, without dithering."""
        return image.convert("RGB").quantize(palette=self.image, dither=Image.Dither.NONE)


class Canvas:
    """A palette image to draw on with colours rather than palette indices, and cached text.

    Shapes are Pillow's (not anti-aliased, so nothing is lost by drawing them in palette mode); text is pasted
    from :func:`render.text.render_label`'s cache, rendered over the colour it is said to stand on.
    """

    def __init__(self, image: Image.Image, palette: Palette):
        self.image, self.palette = image, palette
        self.draw = ImageDraw.Draw(image)

    def _ink(self, colour: Colour | None) -> int | None:
        return None if colour is None else self.palette[colour]

    def rectangle(self, box: Box, fill: Colour | None = None, outline: Colour | None = None, width: int = 1) -> None:
        self.draw.rectangle(box, fill=self._ink(fill), outline=self._ink(outline), width=width)

    def rounded_rectangle(
        self, box: Box, radius: float, fill: Colour | None = None, outline: Colour | None = None, width: int = 1
    ) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=self._ink(fill), outline=self._ink(outline), width=width)

    def polygon(
        self,
        points: Sequence[tuple[float, float]],
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: int = 1,
    ) -> None:
        self.draw.polygon(list(points), fill=self._ink(fill), outline=self._ink(outline), width=width)

    def ellipse(self, box: Box, fill: Colour | None = None, outline: Colour | None = None, width: int = 1) -> None:
        self.draw.ellipse(box, fill=self._ink(fill), outline=self._ink(outline), width=width)

    def line(self, points: Sequence[tuple[float, float]], fill: Colour, width: int = 1) -> None:
        self.draw.line(list(points), fill=self._ink(fill), width=width)

    def corners(self, box: Box, colour: Colour, width: int = 6) -> None:
        """Four L-shaped brackets at the corners of ``box``, a third of its side each: a square marked without
        covering what is drawn on it (a rules page's board marks the squares its caption names)."""
        x0, y0, x1, y1 = box
        arm = min(x1 - x0, y1 - y0) / 3
        for x, dx in ((x0, 1), (x1, -1)):
            for y, dy in ((y0, 1), (y1, -1)):
                self.line([(x + dx * arm, y), (x, y), (x, y + dy * arm)], fill=colour, width=width)

    def paste(self, image: Image.Image, xy: tuple[int, int], mask: Image.Image | None = None) -> None:
        """Paste a palette image drawn with this canvas's palette (``mask``: where it covers), clipped to the
        canvas — as ``Image.paste``, straight into the image's core: a board pastes some thirty pieces and text
        labels, and ``Image.paste``'s checks of its arguments cost more than the pasting."""
        x, y = xy
        width, height = image.size
        box = (x, y, x + width, y + height)
        if mask is None:
            self.image.im.paste(image.im, box)
        else:
            self.image.im.paste(image.im, box, mask.im)

    def text(
        self, xy: tuple[float, float], text: str, style: Style, fill: Colour, bg: Colour, anchor: str = "la"
    ) -> float:
        """Draw ``text`` with its ``anchor`` (Pillow's: ``l``/``m``/``r`` then ``a``/``m``/``s``/``d``) at ``xy``,
        standing on colour ``bg``; returns its width in pixels."""
        label = render_label(text, style, fill, bg, self.palette, anchor)
        self.paste(label.image, (round(xy[0]) + label.dx, round(xy[1]) + label.dy), label.mask)
        return label.width

    def legend(
        self,
        y: float,
        left: float,
        right: float,
        items: Sequence[tuple[float, Callable[[float], None], str, float]],
        note: str,
        fill: Colour,
        note_fill: Colour,
        bg: Colour,
        styles: tuple[Sequence[Style], Sequence[Style]] = (LEGEND_STYLES, LEGEND_TWO_LINES),
    ) -> None:
        """A legend across ``left``–``right`` px, centred on ``y``: each item's icon then its word, and a ``note``
        right-aligned at the end, e.g. "number = blocks high" (none if ``""``).

        ``items`` are ``(advance, draw, text, gap)``: ``draw(x)`` draws the icon at ``x``, its word starts
        ``advance`` px further and the next item ``gap`` px after the word (the last gap is the least room left
        before the note). The words take the largest of ``styles[0]`` (:data:`LEGEND_STYLES`) at which the line
        fits; if none does (a language's longer words), each word is set on two lines (:func:`render.text.two_lines`)
        in the largest of ``styles[1]`` (:data:`LEGEND_TWO_LINES`) that fits; if even that is too wide, the note is
        cut with "…".
        """

        def lines(text: str, style: Style, split: bool) -> list[str]:
            return two_lines(text, style) if split else [text]

        def wide(text: str, style: Style, split: bool) -> float:
            return max(round(text_width(line, style)) for line in lines(text, style, split))

        for split, sizes in zip((False, True), styles):
            for style in sizes:
                used = sum(advance + wide(text, style, split) + gap for advance, _, text, gap in items)
                if left + used + wide(note, style, split) <= right:
                    break
            else:
                continue
            break
        step = style.size + 2

        def put(x: float, text: str, colour: Colour, anchor: str) -> float:
            rows = lines(text, style, split)
            for k, line in enumerate(rows):
                self.text((x, y + (k - (len(rows) - 1) / 2) * step), line, style, colour, bg, anchor)
            return wide(text, style, split)

        x = left
        for advance, draw, text, gap in items:
            draw(x)
            x += advance + put(x + advance, text, fill, "lm") + gap
        if left + used + wide(note, style, split) > right:  # too wide even on two lines: the note is cut
            note = fit_text(note, style, right - left - used)
            split = False
        if note:
            put(right, note, note_fill, "rm")

    def text_line(
        self, xy: tuple[float, float], texts: Sequence[str], style: Style, fill: Colour, bg: Colour, anchor: str = "la"
    ) -> float:
        """Draw ``texts`` one after the other from ``xy`` (left-anchored, ``anchor[1]`` vertically), each on its own
        so a right-to-left name keeps the sentence around it in order (see :func:`render.text.fit_parts`);
        returns the width drawn."""
        x = xy[0]
        for text in texts:
            x += self.text((x, xy[1]), text, style, fill, bg, "l" + anchor[1])
        return x - xy[0]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", _zlib.crc32(data, _zlib.crc32(kind)))


#: Pixel rows per band of a PNG's image data: each band is deflated on its own and kept (see :func:`to_png`).
#: Measured on boards drawn as the bot draws them (300 games, moves interleaved): 16 rows cost 2.7 ms a board,
#: 32 rows 1.9, 64 rows 1.5–2.0 (60% of bands found kept, the PNG no larger than deflated whole), 128 rows 2.0;
#: deflating the image whole, 3.1 ms.
BAND_ROWS = 64
#: Bands kept deflated in this process (2–5 KB each on a board: 10–20 MB at most).
BAND_CACHE = 4096
#: A zlib stream's header: deflate, 32 KB window, no preset dictionary (FCHECK makes it a multiple of 31).
_ZLIB_HEADER = b"\x78\x01"
#: The last deflate block: empty, final, fixed codes (BFINAL 1, BTYPE 01, the end-of-block code).
_LAST_BLOCK = b"\x03\x00"


class _Bands:
    """Deflated bands of image data, by their bytes' fingerprint (CRC-32, Adler-32 and length) and the zlib level:
    the least recently used forgotten past :data:`BAND_CACHE`. Shared by the threads of a process (a lock)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[int, int, int, int], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def deflated(self, band: memoryview, adler: int, level: int) -> bytes:
        """``band`` (its Adler-32 ``adler``) as raw deflate blocks at zlib ``level`` that need nothing before them
        and end on a byte boundary (a sync flush, not final), so that bands deflated apart follow one another in one
        stream. Deflated by a compressor of its own, so the same band gives the same bytes in any process whatever
        was deflated before it."""
        key = (_zlib.crc32(band), adler, len(band), level)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                self.hits += 1
                return kept
        compressor = _zlib.compressobj(level, zlib.DEFLATED, -15)
        data: bytes = compressor.compress(band) + compressor.flush(zlib.Z_SYNC_FLUSH)
        with self._lock:
            self.misses += 1
            self._kept[key] = data
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return data

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.hits = self.misses = 0


#: This process's deflated bands (:func:`to_png`).
BANDS = _Bands(BAND_CACHE)


def to_png(image: Image.Image, level: int = PNG_LEVEL) -> bytes:
    """Encode a palette ``image`` as PNG bytes: 8-bit indices, its palette, no row filters (they do not help a
    palette image), deflated at zlib ``level``.

    The image data is deflated in bands of :data:`BAND_ROWS` pixel rows, each on its own and kept by its bytes'
    fingerprint (:data:`BANDS`): a band drawn before — the background, a building row that did not change since
    the game's last board, a preview's unchanged part — is not deflated again. The bands follow one another in one
    zlib stream (each ends with a sync flush), so the PNG is standard, its pixels are the image's whatever was kept,
    and the same image gives the same bytes in any process; it is no larger than one deflated whole."""
    if image.mode != "P":
        raise ValueError(f"to_png needs a palette image, not {image.mode}")
    width, height = image.size
    stride = width + 1
    pieces = [_ZLIB_HEADER]
    adler = 1
    for top in range(0, height, BAND_ROWS):
        # Each row of a PNG starts with its filter type (0, none). Pillow's raw encoder pads rows to a stride with
        # zeros, so rows of width + 1 bytes, shifted by one byte, are exactly that: 0, row 1, 0, row 2, ...
        # Read band by band (Image.tobytes's own encoder, given the band's box): a buffer of the whole board,
        # allocated and freed per board, costs more in page faults than its copying.
        bottom = min(top + BAND_ROWS, height)
        encoder = Image._getencoder("P", "raw", ("P", stride))
        encoder.setimage(image.im, (0, top, width, bottom))
        rows = encoder.encode(stride * (bottom - top))[2]
        band = memoryview(b"\0" + rows[:-1])
        band_adler = _zlib.adler32(band)
        pieces.append(BANDS.deflated(band, band_adler, level))
        adler = _zlib.adler32(band, adler)
    pieces += (_LAST_BLOCK, struct.pack(">I", adler))
    idat = b"".join(pieces)
    palette = bytes(image.getpalette() or [])
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", idat),
            _chunk(b"IEND", b""),
        )
    )
