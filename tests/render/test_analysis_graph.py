"""The win-chance graph (render/analysis.py): a PNG of the stated size in the game's palette, both players' colours
drawn where each leads, and no text under 10 px when shown 400 px wide (tests/bench/legibility.py's rule)."""

from __future__ import annotations

import io

from PIL import Image

from render import common
from render.analysis import _BOTTOM, _PILL_H, HEIGHT, WIDTH, graph_image, graph_png, spread
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


def test_the_ringed_moves_are_numbered_under_the_plot_clear_of_the_line_and_both_axes_are_labelled():
    drawn: list[tuple[str, float, float]] = []
    original = common.Canvas.text

    def recording(self, xy, text, style, *args, **kwargs):
        drawn.append((text, xy[0], xy[1]))
        return original(self, xy, text, style, *args, **kwargs)

    common.Canvas.text = recording  # type: ignore[method-assign]
    try:
        graph_image(CHANCES, ("Ann", "Ben"), PALETTE, marks=[3, 4], mark_labels=["3", "4"])
    finally:
        common.Canvas.text = original  # type: ignore[method-assign]
    bottom = HEIGHT - _BOTTOM
    labels = [(x, y) for text, x, y in drawn if text in ("3", "4") and y < bottom + 14 + _PILL_H]
    assert len(labels) == 2 and all(y > bottom for _x, y in labels)  # in the row under the plot, not on the line
    assert abs(labels[0][0] - labels[1][0]) >= 30  # neighbouring moves' numbers spread apart
    assert any(text == "moves played" for text, _x, _y in drawn)


def test_numbers_too_close_together_are_spread_apart_within_the_row():
    assert spread([100, 105, 108], [40, 40, 40], 0, 1000) == [100, 144, 188]
    assert spread([990, 995], [40, 40], 0, 1000) == [936, 980]  # pushed back from the right edge


def test_a_resignation_is_drawn_where_the_game_stopped():
    resigned = graph_image([0.5, 0.7], ("Ann", "Ben"), PALETTE, ending=(1.0, "Ben resigned")).convert("RGB")
    played = graph_image([0.5, 0.7], ("Ann", "Ben"), PALETTE).convert("RGB")
    assert resigned.tobytes() != played.tobytes()
