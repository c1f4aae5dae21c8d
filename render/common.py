"""Drawing helpers shared by the game renderers: palette, fonts, PNG encoding.

Colours are from the Okabe–Ito palette, chosen so the two players stay distinct for the common forms
of colour blindness (blue vs orange, never red vs green). Fonts are Pillow's built-in scalable font,
so images look the same on every machine whatever fonts it has installed.
"""
from __future__ import annotations

import io
import unicodedata
from functools import lru_cache

from PIL import Image, ImageFont

#: Player colours, index = player number. Blue and orange (Okabe–Ito).
PLAYER_COLOURS: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 114, 178), (230, 159, 0))
#: Darker outlines of the player colours, for edges and text on light ground.
PLAYER_DARK: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 66, 110), (150, 95, 0))
#: Names of the player colours as shown to players.
PLAYER_COLOUR_NAMES: tuple[str, str] = ("blue", "orange")

BACKGROUND = (246, 241, 231)
INK = (33, 33, 33)
MUTED = (120, 112, 100)
HIGHLIGHT = (204, 121, 167)  # Okabe–Ito reddish purple: last move


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's built-in scalable font at ``size`` pixels (cached)."""
    return ImageFont.load_default(size=size)


def to_png(image: Image.Image) -> bytes:
    """Encode ``image`` as PNG bytes (palette-optimised, fast compression)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


#: Longest input :func:`clean_name` looks at; Discord names are at most 32 characters.
_NAME_LIMIT = 200
#: Latin letters that Unicode does not decompose into an ASCII letter plus accents.
_LATIN_EXTRA = str.maketrans({
    "Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "ß": "ss",
    "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Þ": "Th", "þ": "th", "ı": "i", "Ħ": "H", "ħ": "h",
})


@lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    return bytes(font(24).getmask("\U0010fffd"))  # a private-use code point: no font draws it


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Whether :func:`font` draws the character ``ch`` rather than its empty "missing glyph" box.

    The built-in font covers printable ASCII and a few signs ("…", "·"), not accents, emoji or CJK.
    """
    return ch == " " or bytes(font(24).getmask(ch)) != _missing_glyph()


def clean_name(name: object, fallback: str) -> str:
    """A player's display name made fit to draw on one line with :func:`font`.

    Accents are folded (``"José"`` → ``"Jose"``, ``"Łukasz"`` → ``"Lukasz"``), characters the font
    cannot draw (emoji, CJK, control and formatting characters) are dropped, runs of whitespace become
    one space, and at most 200 characters are kept. Returns ``fallback`` if nothing drawable is left (``"名前"``, ``"🐉"``,
    ``""``, None). Never raises.
    """
    text = str(name)[: _NAME_LIMIT * 4] if name is not None else ""
    text = unicodedata.normalize("NFKD", text.translate(_LATIN_EXTRA))
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif unicodedata.category(ch) != "Mn" and has_glyph(ch):
            kept.append(ch)
    cleaned = " ".join("".join(kept).split())[:_NAME_LIMIT]
    return cleaned or fallback


def fit_text(text: str, text_font: ImageFont.FreeTypeFont, max_width: float) -> str:
    """``text`` cut short with an ellipsis ("…") so it is at most ``max_width`` pixels wide in ``text_font``.

    Returns ``text`` unchanged if it fits, ``"…"`` alone if not even one character does, and ``""``
    if ``max_width`` is too small for the ellipsis itself. Trailing spaces are removed before the ellipsis.
    """
    if text_font.getlength(text) <= max_width:
        return text
    if text_font.getlength("…") > max_width:
        return ""
    lo, hi = 0, len(text)  # longest prefix that fits is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if text_font.getlength(text[:mid].rstrip() + "…") <= max_width:
            lo = mid
        else:
            hi = mid
    return text[:lo].rstrip() + "…"
