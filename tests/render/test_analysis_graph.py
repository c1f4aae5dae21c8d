"""The win-chance graph (render/analysis.py): a PNG of the stated size in the game's palette, both players' colours
drawn where each leads, and no text under 10 px when shown 400 px wide (tests/bench/legibility.py's rule)."""

from __future__ import annotations

import io

from PIL import Image

from render import common
from render.analysis import HEIGHT, WIDTH, graph_image, graph_png
from render.common import PLAYER_COLOURS
from render.hong import PALETTE
from tests.bench.legibility import LONG, PHONE_WIDTH
from tests.render.languages import GERMAN, JAPANESE, translations

CHANCES = [0.5, 0.7, 0.8, 0.4, 0.2, 0.3, 0.9, 1.0]


def test_the_graph_is_a_png_with_both_players_colours():
    data = graph_png(CHANCES, ("Ann", "Ben"), PALETTE, marks=[3, 6])
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    colours = {c for _n, c in image.convert("RGB").getcolors(WIDTH * HEIGHT)}
    assert PLAYER_COLOURS[0] in colours and PLAYER_COLOURS[1] in colours


def test_one_player_always_ahead_shows_only_their_colour_in_the_plot():
    image = graph_image([0.6, 0.9, 1.0], ("Ann", "Ben"), PALETTE).convert("RGB")
    plot = image.crop((100, 130, WIDTH - 40, HEIGHT - 80))
    colours = {c for _n, c in plot.getcolors(WIDTH * HEIGHT)}
    assert PLAYER_COLOURS[0] in colours and PLAYER_COLOURS[1] not in colours


def test_no_text_under_10_px_at_400_px_wide_in_every_language():
    sizes: set[int] = set()
    original = common.Canvas.text

    def recording(self, xy, text, style, *args, **kwargs):
        if text.strip():
            sizes.add(style.size)
        return original(self, xy, text, style, *args, **kwargs)

    common.Canvas.text = recording  # type: ignore[method-assign]
    try:
        for tr in (None, translations("de", GERMAN), translations("ja", JAPANESE)):
            graph_image(CHANCES * 10, LONG, PALETTE, marks=[3, 40, 79], translations=tr)
    finally:
        common.Canvas.text = original  # type: ignore[method-assign]
    assert sizes and min(sizes) * PHONE_WIDTH / WIDTH >= 10.0, sorted(sizes)
