"""The standings picture (render/standings.py): decodes, its size follows the rows, the podium is banded, names in
any script are drawn, and more rows than fit are left to the text."""

from __future__ import annotations

import io

from PIL import Image

from render.standings import HEADING, MAX_ROWS, PODIUM, WIDTH, Line, column_widths, standings_png
from render.text import text_width

HEADINGS = ["#", "Player", "Pts", "Buchholz", "SB", "DE"]


def image(lines, podium=True) -> Image.Image:
    picture = Image.open(io.BytesIO(standings_png("Swiss — after round 2", HEADINGS, lines, podium=podium)))
    picture.load()
    return picture.convert("RGB")


def rows(n: int) -> list[Line]:
    return [Line(str(i + 1), f"Player {i + 1}", "1", ("2", "1", "0")) for i in range(n)]


def test_the_table_grows_with_its_rows_and_stops_at_the_limit():
    assert image(rows(4)).size == (WIDTH, 70 + 44 * 5 + 16)
    assert image(rows(MAX_ROWS + 10)).size == image(rows(MAX_ROWS)).size


def test_the_podium_is_banded_and_a_shared_place_keeps_its_band():
    lines = [Line("1", "Ann", "2", ("3", "2", "0")), Line("", "ベン", "2", ("3", "2", "0")), Line("3", "Cleo", "1", ())]
    picture = image(lines)
    assert picture.getpixel((4, 70 + 44 + 4)) == PODIUM[0]
    assert picture.getpixel((4, 70 + 88 + 4)) == PODIUM[0]  # shares first place
    assert picture.getpixel((4, 70 + 132 + 4)) == PODIUM[2]
    assert image(lines, podium=False).getpixel((4, 70 + 44 + 4)) != PODIUM[0]


def test_names_in_other_scripts_are_drawn():
    a = image([Line("1", "ベン", "2", ("0", "0", "0"))])
    b = image([Line("1", "", "2", ("0", "0", "0"))])
    assert a.crop((96, 114, 400, 158)).tobytes() != b.crop((96, 114, 400, 158)).tobytes()


def test_every_heading_fits_its_column_and_a_withdrawn_player_says_so():
    for headings in (
        HEADINGS,
        ["#", "Spieler", "Punkte", "Buchholz", "SB", "DV"],
        ["#", "Joueur", "Points", "Buchholz", "SB", "CD"],
    ):
        widths = column_widths(headings)
        assert all(text_width(h, HEADING) <= w - 8 for h, w in zip(headings[2:], widths)), headings
    line = Line("4", "Dmitri Alexandrovich Karamazov", "1", ("3", "1", "0"), withdrawn=True)
    noted = standings_png("Cup — final standings", HEADINGS, [line], withdrawn_note="(withdrew)")
    assert noted != standings_png("Cup — final standings", HEADINGS, [line])
