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

from engine.hongkong import HongKongGame, new_game, parse_square
from engine.result import Ended
from render.common import HIGHLIGHT, INK, MUTED, PLAYER_COLOURS, clean_name, fit_text, font
from render.hongkong import GROUND, HEIGHT, WIDTH, face_box, headline, plot_box, render_board, slot_box

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


def finished(stacks: dict[str, list[tuple[int, str]]]) -> HongKongGame:
    """A position built directly (not by play) whose game is over because all S and R are used."""
    game = new_game()
    for square, stack in stacks.items():
        game.stacks[parse_square(square)] = list(stack)
    for remaining in game.remaining:
        remaining.update(S=0, R=0)
    assert game.is_over
    return game


# --- the image as a file ------------------------------------------------------------------------


def test_png_size_and_mode():
    img = Image.open(io.BytesIO(render_board(new_game(), NAMES)))
    assert img.format == "PNG"
    assert img.size == (WIDTH, HEIGHT) == (940, 1296)
    assert img.mode == "RGB"


def test_busy_position_png_is_small():
    game = played("S@B2", "S@C3", "Q@B2 S@B2", "Q@C3 R@C3", "S@B2", "S@A1", "R@B2", "Q@A1 S@A1")
    assert len(render_board(game, NAMES)) < 150_000


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


def test_quick_block_has_a_white_dot_in_the_stack_view():
    quick = image(played("Q@B2 S@B2"))
    standard = image(played("S@B2", "S@D4", "S@B2"))
    assert slot_centre(quick, "B2", 0) == WHITE
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
    img = image(new_game())
    x0, y0, x1, _ = plot_box(parse_square("C3"))
    assert img.getpixel((x1 - 16, y0 + 16)) == MUTED  # the diamond
    bx0, by0, bx1, _ = plot_box(parse_square("B3"))
    assert img.getpixel((bx1 - 16, by0 + 16)) != MUTED
    assert img.getpixel((x0 + 30, y0 + 30)) != img.getpixel((bx0 + 30, by0 + 30))  # a darker ground


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
    game = finished({"A1": [(0, "S")], "B1": [(0, "S")], "C1": [(1, "S")]})
    assert headline(game, NAMES) == "Ann wins 2-1"
    assert image(game).getpixel((4, 4)) == BLUE


def test_headline_and_band_when_won_on_the_centre():
    game = finished({"A1": [(0, "S")], "C3": [(1, "S")]})
    assert game.outcome.centre_decided
    assert headline(game, NAMES) == "1-1: Ben wins on the centre C3"
    assert image(game).getpixel((4, 4)) == ORANGE


def test_winners_name_is_drawn_even_in_the_longest_headline():
    game = finished({"A1": [(0, "S")], "C3": [(1, "S")]})
    band = (0, 0, WIDTH, 84)
    for long_name in ("Benedict Cumberbatch-Smythe", "W" * 32):
        a = image(game, ("Ann", long_name)).crop(band).tobytes()
        b = image(game, ("Ann", "Q" + long_name[1:])).crop(band).tobytes()
        assert a != b


def test_headline_and_band_when_drawn():
    game = finished({"A1": [(0, "S")], "B1": [(1, "S")]})
    assert headline(game, NAMES) == "Draw 1-1"
    assert image(game).getpixel((4, 4)) == MUTED


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
    game = finished({"A1": [(0, "S")], "B1": [(0, "S")], "C1": [(1, "S")]})
    assert headline(game, NAMES, Ended(1, "resigned")) == "Ann wins 2-1"
    assert render_board(game, NAMES, ended=Ended(1, "resigned")) == render_board(game, NAMES)


def image_ended(game: HongKongGame, ended: Ended) -> Image.Image:
    return Image.open(io.BytesIO(render_board(game, NAMES, ended=ended))).convert("RGB")


def test_finished_game_differs_from_the_same_board_in_progress():
    stacks = {"A1": [(0, "S")], "B1": [(0, "S")], "C1": [(1, "S")]}
    over = finished(stacks)
    going = over.copy()
    going.remaining[0]["S"] = 1
    assert not going.is_over
    a, b = image(over), image(going)
    assert a.tobytes() != b.tobytes()
    board = (0, plot_box(0)[1], WIDTH, plot_box(24)[3])
    assert a.crop(board).tobytes() == b.crop(board).tobytes()


def test_full_board_game_renders():
    game = finished({f"{c}{r}": [((i + j) % 2, "S")] for i, c in enumerate("ABCDE") for j, r in enumerate("12345")})
    assert game.outcome.termination == "board full"
    assert headline(game, NAMES) == "Ann wins 13-12"
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
    for game in (new_game(), played("S@B2"), finished({"A1": [(0, "S")]}), finished({"A1": [(0, "S")], "C3": [(1, "S")]})):
        assert image(game, names).size == (WIDTH, HEIGHT)


def test_long_name_changes_only_the_text():
    short = image(played("S@B2"), ("Ann", "Ben"))
    long = image(played("S@B2"), ("Ann", "Benedict " * 30))
    assert short.crop((0, 0, WIDTH, 90)).tobytes() != long.crop((0, 0, WIDTH, 90)).tobytes()
    board = (0, plot_box(0)[1], WIDTH, plot_box(24)[3])
    assert short.crop(board).tobytes() == long.crop(board).tobytes()


def test_clean_name():
    assert clean_name("José", "P") == "Jose"
    assert clean_name("Łukasz Øyvind Straße", "P") == "Lukasz Oyvind Strasse"
    assert clean_name("🐉 Zoë 🐉", "P") == "Zoe"  # the built-in font has no emoji: dropped, not boxes
    assert clean_name("名前", "Player 2") == "Player 2"
    assert clean_name("  Ann \n\t Lee\x00 ", "P") == "Ann Lee"
    assert clean_name("", "Player 1") == "Player 1"
    assert clean_name("\u200d\u0301", "Player 2") == "Player 2"
    assert clean_name(None, "Player 1") == "Player 1"
    assert len(clean_name("x" * 10_000, "P")) == 200


def test_fit_text():
    f = font(30)
    assert fit_text("Ann", f, 500) == "Ann"
    cut = fit_text("Benedict the Builder", f, 120)
    assert cut.endswith("…") and f.getlength(cut) <= 120 and "Benedict the Builder".startswith(cut[:-1])
    assert fit_text("Benedict", f, f.getlength("…")) == "…"
    assert fit_text("Benedict", f, 1) == ""
