"""Drawing helpers shared by the game renderers: palette, fonts, PNG encoding.

Colours are from the Okabe–Ito palette, chosen so the two players stay distinct for the common forms
of colour blindness (blue vs orange, never red vs green). Fonts are Pillow's built-in scalable font,
so images look the same on every machine whatever fonts it has installed.
"""
from __future__ import annotations

import io
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
