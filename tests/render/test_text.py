"""Text in the board images: every name is drawn in its own script (no missing-glyph boxes, no "Player 1" for a name
in Chinese), right-to-left names read right to left, names are cut by their drawn width, the palette keeps colours."""

from __future__ import annotations

import io
import unicodedata

import pytest
from PIL import Image

import engine.hong as hong
import engine.hongkong as hk
from render.common import BACKGROUND, INK, PLAYER_COLOURS, Palette
from render.fonts import BUILTIN, CHAIN, PRIMARY, face_for
from render.hong import render_board as render_hong
from render.hongkong import PALETTE
from render.hongkong import render_board as render_hk
from render.text import Style, clean_name, clusters, fit_parts_lines, fit_text, pieces, render_label, text_width

NAMES_BY_SCRIPT = {
    "CJK": "李小龙",
    "Japanese": "さくら",
    "Korean": "김민준",
    "Cyrillic": "Борис Ёлкин",
    "Greek": "Αλέξανδρος",
    "Arabic": "محمد علي",
    "Hebrew": "שלום",
    "Devanagari": "देवनागरी",
    "emoji": "🐉👍🏽",
}


def test_the_fonts_come_from_the_font_packages():
    assert PRIMARY.name == "NotoSans" and PRIMARY.path is not None  # not the built-in fallback
    assert {"NotoSansCJK", "NotoEmoji", "NotoSansArabic", "NotoSansDevanagari"} <= {f.name for f in CHAIN}
    assert CHAIN[-1] is BUILTIN
    assert PRIMARY.covers("A") and PRIMARY.covers("Ж") and not PRIMARY.covers("李")


@pytest.mark.parametrize("script", sorted(NAMES_BY_SCRIPT))
def test_every_character_of_a_name_has_a_face_that_draws_it(script):
    name = NAMES_BY_SCRIPT[script]
    assert clean_name(name, "Player 1") == name
    for piece in pieces(name):
        assert piece.face is not BUILTIN
        drawn = [ch for ch in piece.text if unicodedata.category(ch) not in ("Cf", "Mn", "Sk")]
        assert drawn and all(piece.face.covers(ch) for ch in drawn), (script, piece)


@pytest.mark.parametrize("script", ["CJK", "Cyrillic", "Arabic", "emoji", "Devanagari", "Greek"])
def test_glyphs_not_boxes(script):
    """Two different letters of a script draw differently (a missing-glyph box would look the same for both),
    and unlike a character no font has."""
    a, b = clusters(NAMES_BY_SCRIPT[script].replace(" ", ""))[:2]
    style = Style(40)

    def drawn(text: str) -> bytes:
        label = render_label(text, style, INK, BACKGROUND, PALETTE)
        return label.image.tobytes() + label.mask.tobytes()

    assert drawn(a) != drawn(b)
    assert face_for("\U000e0001") is None  # an unassigned tag character: no face, left out rather than boxed
    assert clean_name(a + "\U0010fffd", "x") == a


def _header(png: bytes, box: tuple[int, int, int, int]) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").crop(box).tobytes()


def test_names_in_cjk_cyrillic_arabic_and_emoji_are_drawn_as_themselves():
    """On both boards: two different Chinese names give different images, and neither looks like the "Player 1"
    drawn for a name with nothing to draw; likewise Cyrillic, Arabic and emoji names."""
    game_hk = hk.new_game(first=1)  # the orange player to move: the blue player's row is plain
    game_hong = hong.new_game("inner", seed=1)
    cases = [
        (lambda n: render_hk(game_hk, (n, "Ben")), (80, 96, 430, 172)),  # the blue player's name in their row
        (lambda n: render_hong(game_hong, (n, "Ben")), (20, 60, 490, 122)),  # the emperor's name on their card
    ]
    for draw, box in cases:
        fallback = _header(draw(""), box)
        assert fallback == _header(draw("Player 1"), box)
        seen = {fallback}
        for name in ("李小龙", "王大明", "Борис", "محمد علي", "🐉🐲"):
            image = _header(draw(name), box)
            assert image not in seen, name
            seen.add(image)


def test_right_to_left_runs_are_reversed_without_raqm_and_shaped_with_it():
    # without raqm: plain reordering, the Hebrew letters in reverse; a number after them joins their run (as
    # Unicode's algorithm has it) but reads left to right
    plain = pieces("abc שלום 12", shaping=False)
    assert "".join(p.text for p in plain) == "abc 12 םולש" and not any(p.rtl for p in plain)
    # a right-to-left name with a Latin word and a number: the paragraph reads right to left
    visual = "".join(p.text for p in pieces("محمد 23 Ali", shaping=False))
    assert visual == "Ali 23 دمحم"
    # with raqm the run is passed in logical order, marked right to left, for raqm to shape (join) and reverse
    shaped = pieces("محمد علي", shaping=True)
    assert [(p.text, p.rtl) for p in shaped] == [("محمد علي", True)]


def test_emoji_sequences_stay_whole():
    assert clusters("👩\u200d👩\u200d👧x") == ["👩\u200d👩\u200d👧", "x"]
    assert clusters("🇯🇵🇫🇷") == ["🇯🇵", "🇫🇷"]
    assert clusters("👍🏽é") == ["👍🏽", "é"]
    assert clusters("e\u0301") == ["e\u0301"]
    (piece,) = pieces("🐉👍🏽🇯🇵")
    assert piece.face.name == "NotoEmoji"


def test_names_are_cut_by_their_drawn_width():
    style = Style(34)
    for name in (
        "李小龙李小龙李小龙李小龙",
        "Benedict the Builder",
        "محمد علي الحسن الكبير",
        "🐉👩\u200d👩\u200d👧🐉🐉🐉🐉",
    ):
        cut = fit_text(name, style, 150)
        assert cut.endswith("…") and text_width(cut, style) <= 150
        assert name.startswith(cut[:-1].rstrip())
        assert len(clusters(cut[:-1])) == len(clusters(name[: len(cut) - 1]))  # never inside a cluster
    # wide glyphs are cut sooner than narrow ones
    assert len(fit_text("李" * 30, style, 300)) < len(fit_text("l" * 30, style, 300))
    assert fit_text("Ann", style, 500) == "Ann"
    assert fit_text("Benedict", style, text_width("…", style)) == "…"
    assert fit_text("Benedict", style, 1) == ""


def test_clean_name():
    assert clean_name("José", "P") == "José"  # accents are drawn now
    assert clean_name("Łukasz Øyvind Straße", "P") == "Łukasz Øyvind Straße"
    assert clean_name("🐉 Zoë 🐉", "P") == "🐉 Zoë 🐉"
    assert clean_name("名前", "Player 2") == "名前"
    assert clean_name("  Ann \n\t Lee\x00 ", "P") == "Ann Lee"
    assert clean_name("Ann\u202e evil", "P") == "Ann evil"  # a bidirectional override is dropped
    assert clean_name("", "Player 1") == "Player 1"
    assert clean_name("\u200d\u0301", "Player 2") == "Player 2"
    assert clean_name("\ue000\U0010fffd", "Player 2") == "Player 2"  # private use only: nothing to draw
    assert clean_name("\u3164\u2800 \u115f", "Player 1") == "Player 1"  # blank letters picked to look nameless
    assert clean_name(None, "Player 1") == "Player 1"
    assert len(clean_name("x" * 10_000, "P")) == 200
    assert clean_name("x" + "\u0301" * 12, "P") == "x" + "\u0301" * 4  # no tower of accents


def test_palette_keeps_exact_colours_and_refuses_too_many():
    palette = Palette([BACKGROUND, INK, *PLAYER_COLOURS], [(INK, BACKGROUND)])
    strip = Image.new("RGB", (4, 1))
    strip.putdata([BACKGROUND, INK, *PLAYER_COLOURS])
    mapped = palette.quantize(strip).convert("RGB")
    assert [mapped.getpixel((i, 0)) for i in range(4)] == [BACKGROUND, INK, *PLAYER_COLOURS]
    assert palette[INK] == 1
    with pytest.raises(ValueError):
        Palette([(i, i, i) for i in range(256)])


def test_a_line_that_would_cut_its_words_goes_on_two_lines_never_inside_a_name():
    style = Style(25)
    parts = [
        ("Benedict Cumberbatch", True),
        (" (dragon master) wins: 15 Hongs of 15, decided with 6 spaces left", False),
    ]
    one = text_width("".join(t for t, _ in parts), style)
    assert fit_parts_lines(parts, [style], one + 1) == (style, [[t for t, _ in parts]])  # fits: one line
    got, lines = fit_parts_lines(parts, [Style(30), style], one * 0.6, name_max=200)
    assert got == Style(30) and len(lines) == 2
    assert lines[0][0] == fit_text("Benedict Cumberbatch", got, 200)  # the name cut to name_max, kept whole
    assert " ".join("".join(line) for line in lines).endswith(parts[1][0][1:])  # every word, broken at a space
    assert all(sum(text_width(t, got) for t in line) <= one * 0.6 for line in lines)
    cut = fit_parts_lines(parts, [style], one * 0.3)[1]  # too long for two lines: one line, cut as fit_parts cuts
    assert len(cut) == 1 and cut[0][-1].endswith("…")
