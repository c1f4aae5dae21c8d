"""Small German and Japanese catalogs of the words drawn in the images, for the tests (the real catalogs are filled
by translators later). The German is long on purpose — "Grundstücke", "Schnellbaustein", "ist am Zug", "gewinnt
durch Aufgabe", a result line of 90 characters — to prove that longer words fit; the Japanese is drawn through the
CJK face of the font chain.

Keys as :func:`tests.bot.harness.temporary_catalogs` takes them: an English message; ``("image", message)`` for one
in that context; a ``(singular, plural)`` pair for a counted one (its value the forms of the language: German two,
Japanese one).

And where the labels go: the fixture :func:`drawn` records every label a renderer draws (its text and the box its
pixels cover), :func:`misplaced` says which leave their image or overlap another (tests/render/test_languages.py,
and tests/contract over every game)."""

from __future__ import annotations

import io

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.support import Translations
from PIL import Image

from render import common
from render.text import render_label

Box = tuple[int, int, int, int]

GERMAN = {
    "blue": "blau",
    "orange": "orange",
    ("image", "H: across"): "H: waagerecht",
    ("image", "V: up–down"): "V: senkrecht",
    ("image", "H Hong"): "waagerechter Hong",
    ("image", "V Hong"): "senkrechter Hong",
    ("image", "number: its size"): "Zahl: seine Größe",
    ("image", "WINS"): "GEWINNT",
    ("image", "TO MOVE"): "IST AM ZUG",
    ("{count} Hong", "{count} Hongs"): ("{count} Hong", "{count} Hongs"),
    "{name} ({role}) wins: {hongs} of {threshold}, decided with {spaces} left": "{name} ({role}) gewinnt: {hongs} von {threshold}, entschieden mit {spaces} übrig",
    ("{count} space", "{count} spaces"): ("{count} freiem Feld", "{count} freien Feldern"),
    "{name} ({role}) wins: {hongs} of {threshold}": "{name} ({role}) gewinnt: {hongs} von {threshold}",
    "Aborted: no result": "Abgebrochen: kein Ergebnis",
    "{loser} resigned - {winner} wins": "{loser} hat aufgegeben - {winner} gewinnt durch Aufgabe",
    "{loser} ran out of time - {winner} wins": "{loser} hat die Zeit überschritten - {winner} gewinnt",
    "{name} summons a dragon: {options}": "{name} ruft einen Großen Drachen herbei: {options}",
    "{name} ({role}) to move   -   last: {move}": "{name} ({role}) ist am Zug   -   zuletzt: {move}",
    "{name} ({role}) to move": "{name} ({role}) ist am Zug",
    "Hongs {count} / {threshold}": "Hongs {count} / {threshold}",
    ("image", "SUMMONED"): "HERBEIGERUFEN",
    (
        "image",
        "THE LAIR:\na new Hong of\nsize N summons\ndragon N",
    ): "DER HORT:\nein neuer Hong der Größe N ruft den Großen Drachen N herbei",
    ("image", "block"): "Baustein",
    ("image", "quick block"): "Schnellbaustein",
    ("image", "roof"): "Dach",
    ("image", "centre C3"): "Stadtmitte C3",
    ("image", "number = blocks high"): "Zahl = Höhe in Bausteinen",
    "No result": "Kein Ergebnis",
    "{name} wins": "{name} gewinnt durch Aufgabe",
    "{name} to move": "{name} ist am Zug",
    ("image", "turn {number}"): "Spielzug {number}",
    ("image", "blocks & roofs used"): "Bausteine & Dächer verbaut",
    "Draw {score}, centre C3 empty": "Unentschieden {score}, Stadtmitte C3 leer",
    "{score}: {name} wins on the centre C3": "{score}: {name} gewinnt durch die Stadtmitte C3",
    "{name} wins {score}": "{name} gewinnt {score}",
    ("image", "game over"): "Spiel vorbei",
    ("{count} building", "{count} buildings"): ("{count} Grundstück", "{count} Grundstücke"),
    "Last turn: {name}  {turn}": "Letzter Spielzug: {name}  {turn}",
    "{name} moves first; nothing may go on C3 this turn.": "{name} beginnt; in diesem Spielzug darf nichts auf die Stadtmitte C3 gesetzt werden.",
    ("Opening position · {count} move", "Opening position · {count} moves"): (
        "Ausgangsstellung · {count} Spielzug",
        "Ausgangsstellung · {count} Spielzüge",
    ),
    "{name} played {move} · {index}/{total} · {result}": "{name} setzte {move} · {index}/{total} · {result}",
    "{name} played {move} · {index}/{total}": "{name} setzte {move} · {index}/{total}",
    "Player {number}": "Spieler {number}",
    "emperor": "Kaiser",
    "dragon master": "Drachenmeister",
    "by resignation": "durch Aufgabe",
    "on time": "durch Zeitüberschreitung",
    "aborted": "abgebrochen",
    "board full": "Spielplan voll",
}
JAPANESE = {
    "blue": "青",
    "orange": "オレンジ",
    ("image", "H: across"): "H: 横",
    ("image", "V: up–down"): "V: 縦",
    ("image", "H Hong"): "横のホン",
    ("image", "V Hong"): "縦のホン",
    ("image", "number: its size"): "数字: 大きさ",
    ("image", "WINS"): "勝ち",
    ("image", "TO MOVE"): "手番",
    ("{count} Hong", "{count} Hongs"): ("{count} ホン",),
    "{name} ({role}) wins: {hongs} of {threshold}, decided with {spaces} left": "{name}（{role}）の勝ち: {threshold} 中 {hongs}、残り {spaces} で決着",
    ("{count} space", "{count} spaces"): ("{count} マス",),
    "{name} ({role}) wins: {hongs} of {threshold}": "{name}（{role}）の勝ち: {threshold} 中 {hongs}",
    "Aborted: no result": "中止: 結果なし",
    "{loser} resigned - {winner} wins": "{loser} が投了 - {winner} の勝ち",
    "{loser} ran out of time - {winner} wins": "{loser} が時間切れ - {winner} の勝ち",
    "{name} summons a dragon: {options}": "{name} が竜を召喚: {options}",
    "{name} ({role}) to move   -   last: {move}": "{name}（{role}）の手番   -   直前: {move}",
    "{name} ({role}) to move": "{name}（{role}）の手番",
    "Hongs {count} / {threshold}": "ホン {count} / {threshold}",
    ("image", "SUMMONED"): "召喚済み",
    ("image", "THE LAIR:\na new Hong of\nsize N summons\ndragon N"): "竜の巣:\n大きさ N の新しいホンが竜 N を召喚する",
    ("image", "block"): "ブロック",
    ("image", "quick block"): "クイックブロック",
    ("image", "roof"): "屋根",
    ("image", "centre C3"): "中央 C3",
    ("image", "number = blocks high"): "数字 = ブロックの高さ",
    "No result": "結果なし",
    "{name} wins": "{name} の勝ち",
    "{name} to move": "{name} の手番",
    ("image", "turn {number}"): "第 {number} 手",
    ("image", "blocks & roofs used"): "ブロックと屋根を使い切り",
    "Draw {score}, centre C3 empty": "引き分け {score}、中央 C3 は空き",
    "{score}: {name} wins on the centre C3": "{score}: 中央 C3 で {name} の勝ち",
    "{name} wins {score}": "{name} の勝ち {score}",
    ("image", "game over"): "終局",
    ("{count} building", "{count} buildings"): ("{count} 棟",),
    "Last turn: {name}  {turn}": "直前の手: {name}  {turn}",
    "{name} moves first; nothing may go on C3 this turn.": "{name} が先手。この手番では C3 に置けません。",
    ("Opening position · {count} move", "Opening position · {count} moves"): ("初期局面 · 全 {count} 手",),
    "{name} played {move} · {index}/{total} · {result}": "{name}: {move} · {index}/{total} · {result}",
    "{name} played {move} · {index}/{total}": "{name}: {move} · {index}/{total}",
    "Player {number}": "プレイヤー {number}",
    "emperor": "皇帝",
    "dragon master": "竜使い",
    "by resignation": "投了",
    "on time": "時間切れ",
    "aborted": "中止",
    "board full": "盤面が満杯",
}


def catalog(code: str, messages: dict) -> Catalog:
    """A Babel catalog of ``messages`` (keys as in the module docstring) for the language ``code``."""
    cat = Catalog(locale=code)
    for key, value in messages.items():
        context = None
        if isinstance(key, tuple) and key[0] == "image" and isinstance(value, str):
            context, key = key
        cat.add(key, value, context=context)
    return cat


def translations(code: str, messages: dict) -> Translations:
    """The catalog compiled, as the renderers take it (a new object each call: the renderers' caches are per
    object, so a test starts with none of its language's text drawn)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog(code, messages))
    buffer.seek(0)
    return Translations(buffer)


# --- where the labels go ---------------------------------------------------------------------------


@pytest.fixture
def drawn(monkeypatch):
    """Every label drawn while the test runs: ``(image, text, box of its pixels)``, the image an :class:`Image`
    (a plot, a lair space) or the size of a board (the board and its cached background, where the legend is)."""
    seen: list[tuple[object, str, Box]] = []
    text = common.Canvas.text

    def recording(self, xy, words, style, fill, bg, anchor="la"):
        label = render_label(words, style, fill, bg, self.palette, anchor)
        x, y = round(xy[0]) + label.dx, round(xy[1]) + label.dy
        if words.strip():
            image = self.image.size if self.image.width >= 700 else Image_(self.image)
            seen.append((image, words, (x, y, x + label.image.width, y + label.image.height)))
        return text(self, xy, words, style, fill, bg, anchor)

    monkeypatch.setattr(common.Canvas, "text", recording)
    return seen


class Image_:
    """A small image a label is drawn on (compared by identity, measured by its size)."""

    def __init__(self, image: Image.Image):
        self.image = image

    def __eq__(self, other):
        return isinstance(other, Image_) and other.image is self.image

    def __getitem__(self, i: int) -> int:
        return self.image.size[i]


def misplaced(labels: list[tuple[object, str, Box]]) -> list[str]:
    """Labels that leave their image or overlap another label on the same image (see :func:`drawn`)."""
    wrong = []
    for i, (size, text, (x0, y0, x1, y1)) in enumerate(labels):
        if x0 < 0 or y0 < 0 or x1 > size[0] or y1 > size[1]:
            wrong.append(f"{text!r} {(x0, y0, x1, y1)} leaves its {size} image")
        for other_size, other, (a0, b0, a1, b1) in labels[i + 1 :]:
            if other_size == size and min(x1, a1) > max(x0, a0) and min(y1, b1) > max(y0, b0) and other != text:
                wrong.append(f"{text!r} {(x0, y0, x1, y1)} overlaps {other!r} {(a0, b0, a1, b1)}")
    return wrong
