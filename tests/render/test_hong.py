"""Tests for render.hong: the images decode, have the expected size and differ where the state differs."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engine.hong import from_dict, new_game, parse_board
from engine.result import Ended
from render.common import HIGHLIGHT, PLAYER_COLOURS
from render.hong import _LEGEND_H, HONG_COLOURS, PALETTE, WIDTH, board_image, render_board

NAMES = ("Alice", "Bob")
LAIR = {1: "rotate", 2: "place", 3: "movestone", 4: "flip", 5: "move", 6: "stone", 7: "swap"}


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(png))
    im.load()
    return im.convert("RGB")


def count_near(im: Image.Image, colour, tol: int = 12) -> int:
    """Pixels within ``tol`` of ``colour`` in every channel."""
    bands = [b.point(lambda v, c=c: 255 if abs(v - c) <= tol else 0) for b, c in zip(im.split(), colour)]
    mask = Image.eval(bands[0], lambda v: v)
    for b in bands[1:]:
        mask = Image.composite(b, Image.new("L", mask.size, 0), mask)
    return mask.histogram()[255]


def played(board="castle", moves=(), stones=("A3", "A4", "A5"), **kw):
    g = new_game(board, seed=1, stones=list(stones), **kw)
    for m in moves:
        g.play(m)
    return g


def finished(board: str, seed: int = 3, expansion: bool = False):
    rng = random.Random(seed)
    g = new_game(board, seed=seed, expansion=expansion)
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    return g


def board_part(im: Image.Image) -> Image.Image:
    """The image above the legend (a base game: the legend is the last strip)."""
    return im.crop((0, 0, im.width, im.height - _LEGEND_H))


@pytest.mark.parametrize(
    "board,expansion,height",
    [
        ("castle", False, 1328),
        ("garden", False, 1328),
        ("inner", False, 1216),
        ("castle", True, 1586),
        ("garden", True, 1586),
        ("inner", True, 1474),
    ],
)
def test_size_at_start_and_end(board, expansion, height):
    for g in (new_game(board, seed=2, expansion=expansion), finished(board, expansion=expansion)):
        png = render_board(g, NAMES)
        assert decode(png).size == (WIDTH, height)
        assert len(png) < 100_000
        assert Image.open(io.BytesIO(png)).mode == "P"


def test_the_png_holds_exactly_the_drawn_board():
    g = finished("garden", expansion=True)
    decoded = Image.open(io.BytesIO(render_board(g, NAMES)))
    drawn = board_image(g, NAMES)
    assert decoded.tobytes() == drawn.tobytes() and decoded.getpalette() == drawn.getpalette()
    assert len(drawn.getpalette()) // 3 == len(PALETTE.colours) <= 255


def test_h_and_v_on_the_same_square_differ():
    a = decode(render_board(played(moves=["E5H"]), NAMES))
    b = decode(render_board(played(moves=["E5V"]), NAMES))
    assert a.size == b.size and a.tobytes() != b.tobytes()


def test_horizontal_hong_is_marked_in_its_colour():
    without = played(moves=["C4V", "D4H", "F4V"])  # V H . V: no Hong yet
    with_hong = played(moves=["C4V", "D4H", "E4V"])  # V H V: a size-1 Hong
    assert without.hong_count() == 0 and with_hong.hong_count() == 1
    a, b = (board_part(decode(render_board(g, NAMES))) for g in (without, with_hong))
    assert count_near(a, HONG_COLOURS["H"]) < 50
    assert count_near(b, HONG_COLOURS["H"]) > 1000
    assert count_near(b, HONG_COLOURS["V"]) < 50


def test_vertical_hong_is_marked_in_its_own_colour():
    g = played(moves=["E3H", "E4V", "E5V", "E6H"])
    assert g.hong_count() == 1
    im = board_part(decode(render_board(g, NAMES)))
    assert count_near(im, HONG_COLOURS["V"]) > 1000 and count_near(im, HONG_COLOURS["H"]) < 50


def test_to_move_is_shown():
    g = played(moves=["E5H"])
    d = g.to_dict()
    d["to_move"] = 0
    a, b = decode(render_board(g, NAMES)), decode(render_board(from_dict(d, replay=False), NAMES))
    assert a.tobytes() != b.tobytes()
    # The card of the player to move is filled with their colour.
    assert count_near(a, PLAYER_COLOURS[1], 4) > count_near(b, PLAYER_COLOURS[1], 4) + 10_000
    assert count_near(b, PLAYER_COLOURS[0], 4) > count_near(a, PLAYER_COLOURS[0], 4) + 10_000


def test_last_move_is_highlighted():
    g = played(moves=["E5H"])
    assert count_near(decode(render_board(g, NAMES)), HIGHLIGHT) > 500
    assert count_near(decode(render_board(played(), NAMES)), HIGHLIGHT) < 50


def test_game_over_differs_from_in_progress():
    g = finished("inner")
    d = g.to_dict()
    assert render_board(g, NAMES) != render_board(from_dict(d), ("Alice", "Carol"))


def test_a_game_lost_on_time_shows_the_winner_not_whose_turn_it_was():
    g = played(moves=["E5H", "C4V"])  # the emperor (Alice) is to move; she runs out of time
    assert g.to_move == 0 and not g.is_over
    playing = decode(render_board(g, NAMES))
    won = decode(render_board(g, NAMES, ended=Ended(1, "timeout")))
    # the dragon master's card is now the filled one (WINS), the emperor's no longer
    assert count_near(won, PLAYER_COLOURS[1], 4) > count_near(playing, PLAYER_COLOURS[1], 4) + 10_000
    assert count_near(playing, PLAYER_COLOURS[0], 4) > count_near(won, PLAYER_COLOURS[0], 4) + 10_000
    resigned = render_board(g, NAMES, ended=Ended(1, "resigned"))
    aborted = render_board(g, NAMES, ended=Ended(None, "aborted"))
    assert len({render_board(g, NAMES, ended=Ended(1, "timeout")), resigned, aborted}) == 3


def test_a_result_on_the_board_wins_over_ended():
    g = finished("inner")
    assert render_board(g, NAMES, ended=Ended(1 - g.winner, "resigned")) == render_board(g, NAMES)


def test_long_names_leave_the_end_of_the_status_line_visible():
    from render.hong import _HEADER_H, BACKGROUND  # the status line is the second line under the header

    g = played(moves=["E5H", "C4V"])
    line = (WIDTH - 90, _HEADER_H + 56, WIDTH, _HEADER_H + 100)
    for ended in (Ended(0, "timeout"), Ended(1, "resigned"), None):
        im = decode(render_board(g, ("M" * 32, "W" * 32), ended=ended))
        # each name is cut on its own, so "... wins" / "... to move" ends well before the right edge
        assert [c for _, c in im.crop(line).getcolors()] == [BACKGROUND], ended
        short = decode(render_board(g, ("Ann", "Ben"), ended=ended))
        assert short.crop(line).tobytes() == im.crop(line).tobytes()


def test_names_are_cleaned_like_hong_kongs():
    g = played(moves=["E5H"])
    assert render_board(g, ("Ann\nsecond line", "Ben\r\nX")) == render_board(g, ("Ann second line", "Ben X"))
    assert render_board(g, ("José", "")) == render_board(g, ("José", "Player 2"))
    assert render_board(g, ("José", "")) != render_board(g, ("Jose", "Player 2"))  # accents are drawn


def test_pending_summon_and_lair():
    g = new_game(
        parse_board(".....\n.....\n.....", name="t", threshold=1),
        seed=0,
        expansion=True,
        stones=["A3", "B3", "C3"],
        lair=LAIR,
    )
    d = g.to_dict()
    d["grid"] = "V.V../...../SSS.."
    g = from_dict(d, replay=False)
    before = decode(render_board(g, NAMES))
    g.play("B1H")
    assert g.pending is not None
    pending = decode(render_board(g, NAMES))
    g.play("D1 rotate A1")
    after = decode(render_board(g, NAMES))
    assert before.size == pending.size == after.size
    assert len({before.tobytes(), pending.tobytes(), after.tobytes()}) == 3
    # The summoning player's colour frames the lair space that can be chosen.
    lair_area = (0, pending.height - 230, WIDTH, pending.height)
    assert count_near(pending.crop(lair_area), PLAYER_COLOURS[0], 4) > 1000
    assert count_near(after.crop(lair_area), PLAYER_COLOURS[0], 4) < 50


def test_names_that_the_font_cannot_draw_or_that_are_too_long():
    g = played(moves=["E5H"])
    for names in (("Zoë 龍 😀", "x" * 200), ("", "   "), ("龍龍", "Ümit"), ("محمد\u202e evil", "\U0010fffd")):
        assert decode(render_board(g, names)).size == (WIDTH, 1328)


def test_custom_board_renders():
    g = new_game(parse_board("..#\n...\n...", name="tiny", threshold=1), seed=0)
    im = decode(render_board(g, NAMES))
    assert im.width == WIDTH


def test_every_board_mid_game_under_a_megabyte():
    for board in ("castle", "garden", "inner"):
        rng = random.Random(board)
        g = new_game(board, seed=5, expansion=True)
        for _ in range(30):
            g.play(rng.choice(g.legal_moves()))
        assert len(render_board(g, NAMES)) < 1_000_000


def test_the_status_line_names_a_player_named_by_their_role_once_and_a_result_reads_as_a_count():
    from render.hong import _status
    from render.labels import plain, words

    g = played(moves=["E5H", "C4V"])
    assert plain(_status(g, ("Emperor", "Dragon master"), None, words())[0]) == "Emperor to move   -   last: C4V"
    assert plain(_status(g, ("Ann", "Ben"), None, words())[0]) == "Ann (emperor) to move   -   last: C4V"
    done = finished("inner")
    o = done.outcome
    sentence = plain(_status(done, ("Ann", "Ben"), None, words())[0])
    assert f"{o.hongs} Hong" in sentence and f", {o.threshold} needed" in sentence and " of " not in sentence
