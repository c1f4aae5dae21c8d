"""Names: what is stored (plain, nothing invisible), what a message shows (escaped once), and names older versions
stored escaped."""

from __future__ import annotations

import pytest

from bot.i18n.names import FALLBACK, best, clean, escape, unescape


@pytest.mark.parametrize(
    "raw, stored",
    [
        ("Ann", "Ann"),
        ("  Ann   Lee ", "Ann Lee"),
        ("a_b*c*_d", "a_b*c*_d"),  # markdown is kept as written: escaping is for messages
        ("\u200d\u200d\u200d", ""),  # zero-width joiners only
        ("\u200b\u200c\u2060\ufeff", ""),  # zero-width space, non-joiner, word joiner, BOM
        ("\u202eevil\u202c", "evil"),  # a bidi override can't flip the message around it
        ("A\u00adnn", "Ann"),  # soft hyphen
        ("\u3164", ""),
        ("\u2800\u2800", ""),
        ("\uffa0\u115f\u1160", ""),  # blank letters
        ("\u0301\u0308", ""),  # combining marks with nothing to sit on
        ("\u0301José", "José"),  # a leading combining mark is dropped, the rest kept
        ("Jose\u0301", "José"),  # NFC: the combined letter
        ("line\nbreak\u2028here", "line break here"),  # controls and separators
        ("\U000e0041\U000e0042tag", "tag"),  # tag characters
        ("李小龙", "李小龙"),
        ("👍🏽", "👍🏽"),
        ("❤️", "❤️"),  # scripts and emoji (with their modifiers) stay
        ("x" * 40, "x" * 32),
        # joiners shape what is on either side: kept between two visible characters, dropped anywhere else
        ("👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"),  # one family emoji, not three people
        ("می\u200cخواهم", "می\u200cخواهم"),  # Persian: the non-joiner keeps the word's shape
        ("\u200dAnn\u200d", "Ann"),
        ("A\u200d\u200dnn", "Ann"),
        ("Ann \u200d Lee", "Ann Lee"),
        ("\u200bA\u200b\u200dB", "A\u200dB"),  # a zero-width space is removed first, then judged
        ("x" * 31 + "\u200dy", "x" * 31),  # a joiner left at the cut goes
    ],
)
def test_clean(raw, stored):
    assert clean(raw) == stored


def test_best_falls_back_to_the_username_then_player():
    assert best("\u200d\u200d", None, "ann_lee") == "ann_lee"
    assert best("Ann", "ann") == "Ann"
    assert best("\u3164", "\u200b") == FALLBACK


@pytest.mark.parametrize(
    "plain, shown",
    [
        ("a_b*c*_d", "a\\_b\\*c\\*\\_d"),
        ("@everyone", "@\u200beveryone"),
        ("<@123456789012345678>", "<@\u200b123456789012345678>"),
        ("> z ~~x~~ `y`", "\\> z \\~\\~x\\~\\~ \\`y\\`"),
    ],
)
def test_escape_once_and_unescape_back(plain, shown):
    assert escape(plain) == shown
    assert unescape(shown) == plain


@pytest.mark.parametrize(
    "text",
    [
        "a_b*c",
        "**bold** `code` ~~gone~~ ||hidden||",
        "> quote",
        ">>> all of it",
        "# title",
        "- item",
        "[x](http://y)",
        "see https://a_b.com/x_y* and <https://c_d>",
        "@everyone @here <@123> @12345678901234567890 @&12345678901234567",
        "a\\b",
        "one\n# two\n - three",
        "日本_語 |>",
    ],
)
def test_escaping_is_discords_own(text):
    """names.py escapes without importing discord.py (the game layer doesn't load it): the same result as
    discord.utils gives, markdown then mentions."""
    from discord.utils import escape_markdown, escape_mentions

    assert escape(text) == escape_mentions(escape_markdown(text))
