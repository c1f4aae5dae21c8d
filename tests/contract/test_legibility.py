"""Every game's boards legible on a phone (issue 24): Discord shows a board about 400 px wide at 1×, and there no text
a player needs — names, whose turn, the score, counts, a Hong's size, the legend, the lair — may be smaller than
10 px (a caption's size; a digit's ink is then about 7 px). Measured as tests/bench/legibility.py measures it: every
label drawn through :meth:`render.common.Canvas.text`, its size scaled to 400 px of the board's width, over a
midgame and a finished game of every challenge, with long names, in English and the long German and Japanese test
catalogs."""

from __future__ import annotations

import pytest

from tests.bench.legibility import LONG, PHONE_WIDTH, measure
from tests.contract.games import SETUPS, finished, ids, midgame
from tests.render.languages import GERMAN, JAPANESE, translations

#: The smallest text (px) at :data:`PHONE_WIDTH`.
SMALLEST = 10.0


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_no_text_under_10_px_on_a_board_shown_400_px_wide(setup):
    small = []
    for what, game in (("midgame", midgame(setup, 2)), ("end", finished(setup, 2))):
        for code, tr in (("en", None), ("de", translations("de", GERMAN)), ("ja", translations("ja", JAPANESE))):
            width, sizes = measure(setup, game, None, LONG, tr)
            small += [
                f"{what} {code}: {size} px ({size * PHONE_WIDTH / width:.1f} at {PHONE_WIDTH}): {sorted(texts)[:3]}"
                for size, texts in sizes.seen.items()
                if size * PHONE_WIDTH / width < SMALLEST
            ]
    assert not small, "\n".join(small)
