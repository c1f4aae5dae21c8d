"""The words in the images in the post's language: every label drawn is translated, fits its place (inside its image,
overlapping no other label) in German's longer words in the positions only one game has, Japanese is drawn in CJK
glyphs, English is as before. Over every game's common positions (and a replay frame in German) the same checks run in
tests/contract/test_render.py.

Every piece of text a renderer draws goes through :meth:`render.common.Canvas.text`; the tests record each call (the
text, and the box its pixels cover) and check the boxes.
"""

from __future__ import annotations

import ast
import gettext
import io
import random
import string
from pathlib import Path

import pytest
from PIL import Image

import engine.hong as hong
import engine.hongkong as hk
from engine.result import Ended
from render import common
from render.fonts import BUILTIN
from render.hong import render_board as render_hong
from render.hongkong import BOARD_TOP, CELL, SIZE, headline
from render.hongkong import render_board as render_hk
from render.text import Style, pieces, render_label
from tests.render.languages import GERMAN, JAPANESE, drawn, misplaced, translations  # noqa: F401 (drawn: a fixture)

NAMES = ("Ann", "Benedict Cumberbatch")


def test_the_check_finds_a_label_out_of_place():
    size = (100, 50)
    assert misplaced([(size, "a", (0, 0, 40, 20)), (size, "b", (50, 0, 100, 20))]) == []
    assert len(misplaced([(size, "a", (0, 0, 60, 20)), (size, "b", (50, 10, 100, 20))])) == 1  # overlap
    assert len(misplaced([(size, "a", (60, 0, 101, 20))])) == 1  # past the right edge
    assert misplaced([(size, "a", (0, 0, 60, 20)), ((60, 60), "b", (50, 10, 60, 20))]) == []  # another image


# --- positions -------------------------------------------------------------------------------------


def hk_positions():
    """(what, game, ended) for Hong Kong: the opening, a mid-game, resigned, timed out, aborted, the end."""
    rng = random.Random(2)
    game = hk.new_game(first=0)
    yield "opening", game.copy(), None
    for _ in range(20):
        game.play(rng.choice(game.legal_moves()))
    yield "mid", game.copy(), None
    for ended in (Ended(1, "resigned"), Ended(0, "timeout"), Ended(None, "aborted")):
        yield ended.reason.value, game.copy(), ended
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    yield "end", game, None


def hong_positions():
    """(what, game, ended) for Hong with the lair: the start, a mid-game, resigned, a pending summon, the end; and a
    base game decided early (the longest result line)."""
    rng = random.Random(4)
    game = hong.new_game("castle", seed=1, expansion=True)
    yield "start", game.copy(), None
    while len(game.empty_squares()) > game.board.space_count // 2:
        game.play(rng.choice(game.legal_moves()))
    yield "mid", game.copy(), None
    yield "resigned", game.copy(), Ended(0, "resigned")
    while game.pending is None and not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    yield "summon", game.copy(), None
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    yield "end", game, None
    for seed in range(200):  # the dragon master makes a Hong when he can, until a game is decided early
        rng, early = random.Random(seed), hong.new_game("castle", seed=seed)
        while not early.is_over:
            moves = early.legal_moves()
            if early.to_move == 1:
                count = early.hong_count()
                better = [m for m in rng.sample(moves, min(len(moves), 30)) if _makes_a_hong(early, m, count)]
                moves = better or moves
            early.play(rng.choice(moves))
        if early.outcome.spaces_left:
            yield "early", early, None
            return
    raise AssertionError("no game was decided early")


def _makes_a_hong(game, move: str, count: int) -> bool:
    game.play(move)
    made = game.hong_count() > count
    game.pop()
    return made


HK = list(hk_positions())
HONG = list(hong_positions())
#: The positions only one game has: Hong's pending summon and its game decided early (the longest result line). The
#: opening, a midgame, the endings off the board and the end of every game are tested in tests/contract/test_render.py.
CASES = [("hong", what, game, ended) for what, game, ended in HONG if what in ("summon", "early")]
RENDER = {"hongkong": render_hk, "hong": render_hong}


def decode(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


# --- German: longer words fit -------------------------------------------------------------------


@pytest.mark.parametrize("which, what, game, ended", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
@pytest.mark.parametrize("names", [NAMES, ("W" * 32, "Benedict Cumberbatch-Smythe the Third")], ids=["names", "long"])
def test_every_label_fits_in_german_as_in_english(drawn, which, what, game, ended, names):
    for language in (gettext.NullTranslations(), translations("de", GERMAN)):  # new objects: nothing cached
        drawn.clear()
        RENDER[which](game, names, ended=ended, translations=language)
        assert drawn and misplaced(drawn) == [], (what, language)


def test_the_german_words_are_drawn(drawn):
    de = translations("de", GERMAN)
    texts = []
    for what, game, ended in HK:
        render_hk(game, NAMES, ended=ended, translations=de)
    texts += [text for _, text, _ in drawn]
    for word in (
        "Grundstücke",
        "Schnellbaustein",
        "Baustein",
        "Dach",
        "Stadtmitte C3",
        "Zahl = Höhe in Bausteinen",
        "ist am Zug",
        "Spiel vorbei",
        "durch Aufgabe",
        "durch Zeitüberschreitung",
        "Kein Ergebnis",
        "blau",
        "Spielplan voll",
        "Letzter Spielzug: ",
        "Spielzug 1",
    ):
        assert any(word in text for text in texts) or word in " ".join(texts), word  # (or on two lines)
    assert not any(
        english in text
        for text in texts
        for english in ("building", "to move", "game over", "Last turn", "quick block", "blue")
    )
    drawn.clear()
    for what, game, ended in HONG:
        render_hong(game, NAMES, ended=ended, translations=de)
    texts = [text for _, text, _ in drawn]
    for word in (
        "KAISER",
        "DRACHENMEISTER",
        "IST AM ZUG",
        "GEWINNT",
        "HERBEIGERUFEN",
        "DER HORT:",
        "waagerecht",
        "Zahl: seine",
        "gewinnt durch Aufgabe",
        "ruft einen Großen Drachen herbei: ",
    ):
        assert any(word in text for text in texts), word
    assert "rotate" in texts  # the dragons' actions are notation: the same in every language


def test_a_count_takes_the_languages_plural_form(drawn):
    de = translations("de", GERMAN)
    game = hk.new_game(first=0)
    game.play("S@B2")  # Ann controls 1 building, Ben none
    render_hk(game, NAMES, translations=de)
    texts = {text for _, text, _ in drawn}
    assert {"1 Grundstück", "0 Grundstücke"} <= texts


def test_only_the_words_change(drawn):
    """A German board is the English board but for its words: the plots are the same pixels, the header and
    footer differ."""
    _, game, _ = HK[1]
    english, german = (
        decode(render_hk(game, NAMES)),
        decode(render_hk(game, NAMES, translations=translations("de", GERMAN))),
    )
    plots = (0, BOARD_TOP, english.width, BOARD_TOP + SIZE * CELL)
    assert english.crop(plots).tobytes() == german.crop(plots).tobytes()
    assert (
        english.crop((0, 0, english.width, BOARD_TOP)).tobytes()
        != german.crop((0, 0, english.width, BOARD_TOP)).tobytes()
    )
    footer = (0, BOARD_TOP + SIZE * CELL, english.width, english.height)
    assert english.crop(footer).tobytes() != german.crop(footer).tobytes()
    _, game, _ = HONG[1]
    english, german = (
        decode(render_hong(game, NAMES)),
        decode(render_hong(game, NAMES, translations=translations("de", GERMAN))),
    )
    assert english.size == german.size and english.tobytes() != german.tobytes()
    board = (0, 280, english.width, 1040)  # the board and its coordinates: no words
    assert english.crop(board).tobytes() == german.crop(board).tobytes()


# --- Japanese: CJK glyphs -------------------------------------------------------------------------


def test_a_japanese_status_line_is_drawn_in_cjk_glyphs(drawn):
    ja = translations("ja", JAPANESE)
    game = hong.new_game("castle", seed=1)
    game.play(game.legal_moves()[0])
    render_hong(game, NAMES, translations=ja)
    role = ("（皇帝）", "（竜使い）")[game.to_move]
    status = [text for _, text, _ in drawn if "の手番" in text]  # (the name before it is drawn on its own)
    assert status == [f"{role}の手番   -   直前: {game.moves[-1]}"]
    cjk = [p for p in pieces(status[0]) if any("\u3040" <= ch <= "\u9fff" for ch in p.text)]
    assert cjk and all(p.face.name == "NotoSansCJK" and p.region == "ja" for p in cjk)
    assert all(p.face is not BUILTIN and all(p.face.covers(ch) for ch in p.text) for p in cjk)

    def image(text: str) -> bytes:  # a missing-glyph box would look the same for both
        label = render_label(
            text, Style(30), common.INK, common.BACKGROUND, common.Palette([common.INK, common.BACKGROUND])
        )
        return label.mask.tobytes()

    assert image("手") != image("番")
    drawn.clear()
    render_hk(hk.new_game(first=0), NAMES, translations=ja)
    texts = {text for _, text, _ in drawn}
    assert {
        "Ann",
        " の手番",
        "第 1 手",
        "ブロック",
        "クイックブロック",
        "数字 = ブロックの高さ",
        "青",
        "オレンジ",
    } <= texts
    assert misplaced(drawn) == []


# --- English as before; broken translations ------------------------------------------------------


@pytest.mark.parametrize("which, what, game, ended", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_english_is_the_default_and_a_catalog_without_these_words(which, what, game, ended):
    english = RENDER[which](game, NAMES, ended=ended)
    assert RENDER[which](game, NAMES, ended=ended, translations=gettext.NullTranslations()) == english
    assert RENDER[which](game, NAMES, ended=ended, translations=translations("fr", {"unrelated": "autre"})) == english


def test_a_broken_translation_falls_back_to_english():
    broken = translations("de", {"{name} to move": "{nmae} ist am Zug", "{name} wins {score}": "{name} gewinnt {"})
    assert headline(hk.new_game(first=0), NAMES, translations=broken) == "Ann to move"
    _, game, _ = HK[-1]
    assert headline(game, NAMES, translations=broken) == headline(game, NAMES)
    assert render_hk(hk.new_game(first=0), NAMES, translations=broken) == render_hk(hk.new_game(first=0), NAMES)


def test_headline_in_german():
    de = translations("de", GERMAN)
    assert headline(hk.new_game(first=1), NAMES, translations=de) == "Benedict Cumberbatch ist am Zug"
    _, game, ended = HK[2]
    assert headline(game, NAMES, ended, translations=de) == "Benedict Cumberbatch gewinnt durch Aufgabe"


# --- the messages as the catalogs see them --------------------------------------------------------


RENDER_DIR = Path(__file__).resolve().parents[2] / "render"
MARKERS = {"gettext": (0,), "ngettext": (0, 1), "pgettext": (1,)}


def calls():
    """``(file, line, call, marker)`` for every ``….gettext/ngettext/pgettext(…)`` in render/ but render/labels.py
    (which defines them)."""
    for path in sorted(RENDER_DIR.glob("*.py")):
        if path.name == "labels.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MARKERS:
                yield path.name, node.lineno, node, node.func.attr


def test_the_images_messages_follow_the_catalogs_conventions():
    """As bot/'s (tests/i18n/test_wording.py): a literal template or a marked constant, named fields only, and the
    fields exactly the keywords given (``ngettext`` fills ``{count}``); contexts only "image"."""
    wrong, found = [], 0
    for where, line, call, marker in calls():
        found += 1
        if marker == "pgettext" and not (isinstance(call.args[0], ast.Constant) and call.args[0].value == "image"):
            wrong.append(f"{where}:{line}: context {ast.unparse(call.args[0])}")
        given = {k.arg for k in call.keywords} | ({"count"} if marker == "ngettext" else set())
        used: set[str] = set()
        for i in MARKERS[marker]:
            arg = call.args[i]
            if isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript)):
                used = given  # a constant marked with N_ where it is defined
                continue
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                wrong.append(f"{where}:{line}: not a literal: {ast.unparse(arg)}")
                continue
            fields = {f for _t, f, _s, _c in string.Formatter().parse(arg.value) if f is not None}
            if any(not f or f[0].isdigit() for f in fields):
                wrong.append(f"{where}:{line}: unnamed field in {arg.value!r}")
            if fields - given:
                wrong.append(f"{where}:{line}: {arg.value!r}: no keyword for {sorted(fields - given)}")
            used |= fields
        if given - used - ({"count"} if marker == "ngettext" else set()):
            wrong.append(f"{where}:{line}: unused keywords {sorted(given - used)}")
    assert found > 30 and wrong == []
