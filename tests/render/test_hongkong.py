"""Hong Kong board image: decodes, right size, deterministic, and shows what the state says.

Pixel checks read spots whose colour is known from the layout: the plain part of a building's top face
(:func:`face_box`), the middle of a stack-view slot (:func:`slot_box`), the highlight frame just inside
a plot's edge (:func:`plot_box`) and the status band at the top left.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from engine.hongkong import HongKongGame, new_game, parse_square, square_name
from engine.result import Ended
from render.common import HIGHLIGHT, INK, MUTED, PLAYER_COLOURS, Canvas, on
from render.hongkong import (
    GROUND,
    HEIGHT,
    PALETTE,
    WIDTH,
    board_image,
    face_box,
    headline,
    plot_box,
    render_board,
    slot_box,
)
from render.text import Style

NAMES = ("Ann", "Ben")
BLUE, ORANGE = PLAYER_COLOURS
WHITE = (255, 255, 255)


def played(*turns: str, first: int = 0) -> HongKongGame:
    game = new_game(first=first)
    for turn in turns:
        game.play(turn)
    return game


def image(game: HongKongGame, names: tuple[str, str] = NAMES) -> Image.Image:
    img = Image.open(io.BytesIO(render_board(game, names)))
    assert img.format == "PNG"
    return img.convert("RGB")


def face_pixel(img: Image.Image, square: str) -> tuple[int, int, int]:
    """A spot on the plain part of a top face, clear of the outline, the number and the roof ridges' crossing."""
    x0, y0, x1, _ = face_box(parse_square(square))
    return img.getpixel(((x0 + x1) // 2, y0 + 12))


def slot_centre(img: Image.Image, square: str, index: int) -> tuple[int, int, int]:
    x0, y0, x1, y1 = slot_box(parse_square(square), index)
    return img.getpixel(((x0 + x1) // 2, (y0 + y1) // 2))


def frame_pixel(img: Image.Image, square: str) -> tuple[int, int, int]:
    x0, y0, _, y1 = plot_box(parse_square(square))
    return img.getpixel((x0 + 4, (y0 + y1) // 2))


def crop(img: Image.Image, square: str) -> bytes:
    return img.crop(plot_box(parse_square(square))).tobytes()


def built_up(plots0: str, plots1: str, first: int = 0) -> HongKongGame:
    """A finished game played out (all standard blocks and roofs used, quick blocks left): each player builds only
    on their own plots (5 or 6, space-separated), never touching the other's: with 5 plots 4 blocks and a roof on
    each, with 6 plots 3 blocks and a roof on the first five and 5 blocks on the sixth."""
    plans = []
    for plots in (plots0.split(), plots1.split()):
        blocks = 4 if len(plots) == 5 else 3
        plan = [m for p in plots[:5] for m in [f"S@{p}"] * blocks + [f"R@{p}"]]
        plans.append(plan + [f"S@{p}" for p in plots[5:] for _ in range(5)])
    game = new_game(first=first)
    while not game.is_over:
        game.play(plans[game.to_move].pop(0))
    return game


WON = "A1 A2 A3 A4 A5 B1", "E1 E2 E3 E4 E5"  # Ann 6 buildings, Ben 5
ON_THE_CENTRE = "A1 A2 A3 A4 A5", "E1 E2 E3 E4 C3"  # 5-5, Ben holds C3
DRAWN = "A1 A2 A3 A4 A5", "E1 E2 E3 E4 E5"  # 5-5, C3 empty


def full_board() -> HongKongGame:
    """A game that ends with the board full: one standard block a turn on each empty plot in order, Ann first."""
    game = new_game(first=0)
    for plot in (1, 0, *range(2, 25)):  # not C3 on the first turn
        game.play(f"S@{square_name(plot)}")
    return game


# --- the image as a file ------------------------------------------------------------------------


def test_png_size_and_mode():
    img = Image.open(io.BytesIO(render_board(new_game(), NAMES)))
    assert img.format == "PNG"
    assert img.size == (WIDTH, HEIGHT) == (940, 1308)
    assert img.mode == "P"
    assert len(img.getpalette()) // 3 == len(PALETTE.colours) <= 255


def test_the_png_holds_exactly_the_drawn_board():
    game = played("S@B2", "S@C3", "Q@B2 R@B3")
    drawn = board_image(game, NAMES)
    decoded = Image.open(io.BytesIO(render_board(game, NAMES)))
    assert decoded.tobytes() == drawn.tobytes()
    assert decoded.getpalette() == drawn.getpalette()


def test_busy_position_png_is_small():
    game = played("S@B2", "S@C3", "Q@B2 S@B2", "Q@C3 R@C3", "S@B2", "S@A1", "R@B2", "Q@A1 S@A1")
    assert len(render_board(game, NAMES)) < 100_000


def test_same_state_same_bytes():
    game = played("S@B2", "S@C3", "Q@B2 R@B3")
    assert render_board(game, NAMES) == render_board(game, NAMES) == render_board(game.copy(), NAMES)


def test_same_bytes_from_worker_threads():
    game = played("S@B2", "S@C3", "Q@B2 R@B3")
    expected = render_board(game, NAMES)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: render_board(game, NAMES), range(12)))
    assert all(r == expected for r in results)


def test_rendering_does_not_change_the_game():
    game = played("S@B2", "S@C3")
    before = (game.to_dict(), [list(s) for s in game.stacks], [dict(r) for r in game.remaining])
    render_board(game, NAMES)
    assert (game.to_dict(), [list(s) for s in game.stacks], [dict(r) for r in game.remaining]) == before


# --- the board ------------------------------------------------------------------------------------


def test_face_is_the_controllers_colour():
    img = image(played("S@B2", "S@D4"))
    assert face_pixel(img, "B2") == BLUE
    assert face_pixel(img, "D4") == ORANGE


def test_capture_changes_the_face_colour():
    # Ann's A1 (3 blocks) next to Ben's B1 (1 block) lets Ann build on B1 (rule 6).
    before = played("S@A1", "S@B1", "Q@A1 S@A1", "S@C2")
    after = played("S@A1", "S@B1", "Q@A1 S@A1", "S@C2", "S@B1")
    assert face_pixel(image(before), "B1") == ORANGE
    img = image(after)
    assert face_pixel(img, "B1") == BLUE
    assert slot_centre(img, "B1", 0) == ORANGE  # Ben's block is still at the bottom of the stack
    assert slot_centre(img, "B1", 1) == BLUE


def test_empty_plot_has_no_face():
    img = image(played("S@B2"))
    assert face_pixel(img, "D4") not in (BLUE, ORANGE)
    assert slot_centre(img, "D4", 0) not in (BLUE, ORANGE)


def test_roof_vs_no_roof_on_a_plot():
    plain = image(played("S@B2", "S@D4", "S@B2"))
    roofed = image(played("S@B2", "S@D4", "R@B2"))
    assert face_pixel(plain, "B2") == BLUE
    top_slope = face_pixel(roofed, "B2")
    assert top_slope != BLUE and sum(top_slope) > sum(BLUE)  # the lit upper slope of the roof
    x0, y0, x1, y1 = face_box(parse_square("B2"))
    assert roofed.getpixel((x0 + 1, (y0 + y1) // 2)) == INK  # the roof's heavy outline
    assert plain.getpixel((x0 + 1, (y0 + y1) // 2)) != INK
    assert crop(plain, "B2") != crop(roofed, "B2")
    assert crop(plain, "D4") == crop(roofed, "D4")


def test_roof_alone_on_an_empty_plot():
    img = image(played("R@B2"))
    assert face_pixel(img, "B2") not in (BLUE, GROUND)  # a roof slope, not plain fill or ground
    x0, y0, x1, y1 = face_box(parse_square("B2"))
    assert img.getpixel((x0 + 1, (y0 + y1) // 2)) == INK


def test_quick_block_is_hollow_in_the_stack_view():
    quick = image(played("Q@B2 S@B2"))
    standard = image(played("S@B2", "S@D4", "S@B2"))
    assert slot_centre(quick, "B2", 0) == WHITE
    x0, y0, x1, y1 = slot_box(parse_square("B2"), 0)
    assert quick.getpixel((x0 + 3, (y0 + y1) // 2)) == BLUE  # a frame in the player's colour around the white
    # the white is large enough to survive a phone's downscaling (at 45 %: about 8 x 6 px)
    assert all(quick.getpixel((x, y)) == WHITE for x in range(x0 + 10, x1 - 9) for y in range(y0 + 9, y1 - 8))
    assert slot_centre(quick, "B2", 1) == BLUE
    assert slot_centre(standard, "B2", 0) == BLUE
    assert slot_centre(standard, "B2", 1) == BLUE


def test_stack_view_shows_every_piece_up_to_five():
    game = played("Q@B2 S@B2", "S@D4", "Q@B2 S@B2", "S@D4", "S@B2")  # B2: Q S Q S S
    img = image(game)
    assert [slot_centre(img, "B2", i) for i in range(5)] == [WHITE, BLUE, WHITE, BLUE, BLUE]
    assert [slot_centre(img, "D4", i) for i in range(5)][:2] == [ORANGE, ORANGE]
    assert slot_centre(img, "D4", 2) not in (BLUE, ORANGE, WHITE)  # empty slot


def test_taller_building_has_more_slabs():
    game = played("Q@B2 S@B2", "S@D4", "Q@B2 S@B2", "S@D4", "S@B2")  # B2: 5 pieces, D4: 2
    img = image(game)
    for square, pieces in (("B2", 5), ("D4", 2)):
        _, _, x1, y1 = face_box(parse_square(square))
        # Just inside the lowest slab's bottom-right corner: 6 px further out per piece below the top.
        assert img.getpixel((x1 + 6 * (pieces - 1) - 2, y1 + 6 * (pieces - 1) - 2)) != GROUND
        assert img.getpixel((x1 + 6 * pieces + 2, y1 + 6 * pieces + 2)) == GROUND


def test_last_turn_is_framed_and_the_frame_moves():
    one = image(played("S@B2"))
    two = image(played("S@B2", "S@D4"))
    assert frame_pixel(one, "B2") == HIGHLIGHT
    assert frame_pixel(one, "D4") != HIGHLIGHT
    assert frame_pixel(two, "D4") == HIGHLIGHT
    assert frame_pixel(two, "B2") != HIGHLIGHT


def test_double_move_frames_both_plots():
    img = image(played("Q@B2 S@D4"))
    assert frame_pixel(img, "B2") == HIGHLIGHT
    assert frame_pixel(img, "D4") == HIGHLIGHT
    assert frame_pixel(img, "C3") != HIGHLIGHT


def test_no_frame_before_the_first_turn():
    img = image(new_game())
    assert all(frame_pixel(img, f"{c}{r}") != HIGHLIGHT for c in "ABCDE" for r in "12345")


def test_centre_plot_is_marked():
    for img in (image(new_game()), image(played("S@B2", "S@C3", "S@B2"))):
        x0, y0, x1, _ = plot_box(parse_square("C3"))
        # the corner flag, big enough for a phone (a 40 px triangle: 18 px at 45 %), built on or not
        assert all(img.getpixel((x1 - 6 - d, y0 + 5)) == MUTED for d in range(0, 30))
        assert img.getpixel((x1 - 16, y0 + 16)) == MUTED
        bx0, by0, bx1, _ = plot_box(parse_square("B3"))
        assert img.getpixel((bx1 - 16, by0 + 16)) != MUTED
        assert img.getpixel((x0 + 30, y0 + 8)) != img.getpixel((bx0 + 30, by0 + 8))  # a darker ground


# --- the header -----------------------------------------------------------------------------------


def test_status_band_is_the_colour_of_the_player_to_move():
    assert image(new_game(first=0)).getpixel((4, 4)) == BLUE
    assert image(new_game(first=1)).getpixel((4, 4)) == ORANGE
    assert image(played("S@B2")).getpixel((4, 4)) == ORANGE


def test_headline_in_progress():
    assert headline(new_game(first=1), NAMES) == "Ben to move"
    assert headline(played("S@B2"), NAMES) == "Ben to move"


def test_remaining_pieces_and_counts_change_the_header():
    a = image(played("S@B2", "S@D4"))
    b = image(played("S@B2", "R@D4"))  # same board shape, Ben used a roof instead of a block
    header = (0, 90, WIDTH, 262)
    assert a.crop(header).tobytes() != b.crop(header).tobytes()


def test_headline_and_band_when_won():
    game = built_up(*WON)
    assert headline(game, NAMES) == "Ann wins 6–5"
    assert image(game).getpixel((4, 4)) == BLUE


def test_headline_and_band_when_won_on_the_centre():
    game = built_up(*ON_THE_CENTRE)
    assert game.outcome.centre_decided
    assert headline(game, NAMES) == "5–5: Ben wins on the centre C3"
    assert image(game).getpixel((4, 4)) == ORANGE


def test_winners_name_is_drawn_even_in_the_longest_headline():
    game = built_up(*ON_THE_CENTRE)
    band = (0, 0, WIDTH, 84)
    for long_name in ("Benedict Cumberbatch-Smythe", "W" * 32):
        a = image(game, ("Ann", long_name)).crop(band).tobytes()
        b = image(game, ("Ann", "Q" + long_name[1:])).crop(band).tobytes()
        assert a != b


def test_headline_and_band_when_drawn():
    game = built_up(*DRAWN)
    assert headline(game, NAMES) == "Draw 5–5, centre C3 empty"  # why it is a draw (rules: "Result")
    assert image(game).getpixel((4, 4)) == MUTED


def test_band_says_blocks_and_roofs_used_not_all_pieces():
    # the game ended with every standard block and roof placed while both players still have 5 quick blocks
    game = built_up(*DRAWN)
    assert all(r["Q"] == 5 for r in game.remaining) and game.outcome.termination == "pieces used"
    right = (WIDTH - 290, 0, WIDTH, 84)
    expected = Canvas(PALETTE.new((WIDTH, 84), MUTED), PALETTE)
    expected.text((WIDTH - 22, 42 - 15), "game over", Style(26), on(MUTED), MUTED, "rm")
    expected.text((WIDTH - 22, 42 + 15), "blocks & roofs used", Style(26), on(MUTED), MUTED, "rm")
    assert image(game).crop(right).tobytes() == expected.image.convert("RGB").crop(right).tobytes()


def test_a_resigned_game_shows_the_winner_not_whose_turn_it_was():
    game = played("S@B2")  # Ben to move; Ben resigns, Ann wins
    header = (0, 0, WIDTH, 262)
    resigned = image_ended(game, Ended(0, "resigned"))
    assert headline(game, NAMES, Ended(0, "resigned")) == "Ann wins"
    assert resigned.getpixel((4, 4)) == BLUE  # the winner's colour, not orange for "Ben to move"
    assert resigned.crop(header).tobytes() != image(game).crop(header).tobytes()
    assert resigned.crop(header).tobytes() != image_ended(game, Ended(0, "timeout")).crop(header).tobytes()
    board = (0, plot_box(0)[1], WIDTH, plot_box(24)[3])
    assert resigned.crop(board).tobytes() == image(game).crop(board).tobytes()


def test_an_aborted_game_shows_no_result():
    game = played("S@B2")
    assert headline(game, NAMES, Ended(None, "aborted")) == "No result"
    assert image_ended(game, Ended(None, "aborted")).getpixel((4, 4)) == MUTED


def test_a_result_on_the_board_wins_over_ended():
    game = built_up(*WON)
    assert headline(game, NAMES, Ended(1, "resigned")) == "Ann wins 6–5"
    assert render_board(game, NAMES, ended=Ended(1, "resigned")) == render_board(game, NAMES)


def image_ended(game: HongKongGame, ended: Ended) -> Image.Image:
    return Image.open(io.BytesIO(render_board(game, NAMES, ended=ended))).convert("RGB")


def test_finished_game_differs_from_the_same_board_in_progress():
    over = built_up(*WON)
    going = over.copy()
    last = going.pop()  # the same game before its last turn
    assert not going.is_over
    a, b = image(over), image(going)
    header = (0, 0, WIDTH, 262)
    assert a.crop(header).tobytes() != b.crop(header).tobytes()
    # the board differs only where the last turn placed and where the turn before it was framed
    changed = {p for p in range(25) if a.crop(plot_box(p)).tobytes() != b.crop(plot_box(p)).tobytes()}
    assert changed == {parse_square(last[2:]), *going.last_turn_plots}


def test_full_board_game_renders():
    game = full_board()
    assert game.outcome.termination == "board full"
    assert headline(game, NAMES) == "Ann wins 13–12"
    assert image(game).size == (WIDTH, HEIGHT)


# --- names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [
        ("🐉" * 40, "A" * 500),
        ("", "   "),
        ("Zoë\u200d👩‍👩‍👧", "名前\nwith newline\t\x00"),
        ("مرحبا بالعالم", "Z\u0301\u0302\u0303algo" * 20),
        ("W" * 32, "x"),
    ],
)
def test_odd_names_do_not_crash(names):
    for game in (new_game(), played("S@B2"), built_up(*WON), built_up(*ON_THE_CENTRE), built_up(*DRAWN)):
        assert image(game, names).size == (WIDTH, HEIGHT)


def test_long_name_changes_only_the_text():
    short = image(played("S@B2"), ("Ann", "Ben"))
    long = image(played("S@B2"), ("Ann", "Benedict " * 30))
    assert short.crop((0, 0, WIDTH, 90)).tobytes() != long.crop((0, 0, WIDTH, 90)).tobytes()
    board = (0, plot_box(0)[1], WIDTH, plot_box(24)[3])
    assert short.crop(board).tobytes() == long.crop(board).tobytes()
