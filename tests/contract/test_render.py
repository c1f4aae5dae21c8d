"""The renderer contract (render/contract.py) over every registered game, through its bot kind's renderer: boards
that decode as PNG of a sane size in the renderer's palette, drawn the same every time and for every way the game is
held (a copy, a state loaded without the replay, a pickled renderer), different where the position, the names or an
ending off the board differ; English by default; every label in its place in English and in German; and the replay
GIF: one frame per move plus the opening, each the live board (in the same language)."""

from __future__ import annotations

import gettext
import io
import pickle
import random

import pytest
from PIL import Image, ImageChops, ImageStat

from engine import registry
from engine.result import Ended
from render.contract import Renderer
from render.replay import CAPTION_H, DISCORD_LIMIT, FIRST_MS, FRAME_MS, LAST_MS, WIDTH, build_gif, positions
from tests.contract.games import DEFAULTS, SETUPS, Setup, finished, fresh, ids, kind, midgame, play_on
from tests.render.languages import GERMAN, drawn, misplaced, translations  # noqa: F401 (drawn: a fixture)

NAMES = ("Ann", "Ben")
LONG = ("W" * 32, "Benedict Cumberbatch-Smythe the Third")
#: The endings off the board, as the bot passes them.
ENDINGS = [Ended(0, "resigned"), Ended(1, "resigned"), Ended(0, "timeout"), Ended(1, "timeout"), Ended(None, "aborted")]


def renderer(setup: Setup) -> Renderer:
    return kind(setup.name).render


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


def cases(setup: Setup) -> list[tuple[str, object, Ended | None]]:
    """``(what, game, ended)``: the opening, a midgame, the midgame ended each way off the board, the end."""
    middle = midgame(setup, 2)
    return [
        ("opening", fresh(setup, 2), None),
        ("midgame", middle, None),
        *((f"{e.reason.value}-{e.winner}", middle, e) for e in ENDINGS),
        ("end", finished(setup, 2), None),
    ]


# --- boards -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_boards_decode_as_png_of_a_sane_size_in_the_palette(setup):
    render = renderer(setup)
    assert isinstance(render, Renderer)
    palette = [v for colour in render.palette.colours for v in colour]
    sizes = set()
    for what, game, ended in cases(setup):
        png = render.png(game, NAMES, ended=ended)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and 1_000 < len(png) < 1_000_000, (what, len(png))
        board = decode(png)
        image = render.image(game, NAMES, ended=ended)
        assert board.mode == image.mode == "P" and board.size == image.size, what
        assert 600 <= board.width <= 1600 and 600 <= board.height <= 2400, (what, board.size)
        assert board.tobytes() == image.tobytes(), what  # the PNG is the image, losslessly
        assert image.getpalette()[: len(palette)] == palette, what
        sizes.add(board.size)
    assert len(sizes) == 1  # one board, one size, whatever happens on it


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_the_same_position_is_the_same_bytes_however_it_is_held(setup):
    """Copies, a state loaded without the replay (as the drawing workers load it) and a renderer that crossed to
    another process draw the same bytes."""
    render = renderer(setup)
    module = registry.find(setup.name).module
    far = pickle.loads(pickle.dumps(render))
    for what, game, ended in cases(setup)[1::2]:
        png = render.png(game, NAMES, ended=ended)
        assert render.png(game, NAMES, ended=ended) == png, what
        assert render.png(game.copy(), NAMES, ended=ended) == png, what
        assert render.png(module.from_dict(game.to_dict(), replay=False), NAMES, ended=ended) == png, what
        assert far.png(game, NAMES, ended=ended) == png, what


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_boards_differ_where_the_game_differs(setup):
    render = renderer(setup)
    game = fresh(setup, 3)
    opening = render.png(game, NAMES)
    play_on(game, random.Random(3), 1)
    assert render.png(game, NAMES) != opening
    assert render.png(game, ("Ann", "Bea")) != render.png(game, NAMES)
    endings = {render.png(game, NAMES, ended=ended) for ended in ENDINGS}
    assert len(endings) == len(ENDINGS) and render.png(game, NAMES) not in endings
    end = finished(setup, 3)
    for ended in ENDINGS:  # a game played to its end shows its own result
        assert render.png(end, NAMES, ended=ended) == render.png(end, NAMES)


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
def test_any_names_are_drawn(setup):
    render = renderer(setup)
    game = midgame(setup, 4)
    assert render.png(game, ("", "")) == render.png(game, ("Player 1", "Player 2"))
    assert render.png(game, ("Ann\nsecond line", "Ben\r\nX")) == render.png(game, ("Ann second line", "Ben X"))
    assert render.png(game, ("José", "")) != render.png(game, ("Jose", ""))  # accents are drawn
    for names in (LONG, ("山田太郎", "محمد"), ("🐉🐉🐉", "a\u0301\u0302")):
        assert decode(render.png(game, names)).size == decode(render.png(game, NAMES)).size


# --- languages --------------------------------------------------------------------------------------


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
def test_english_is_the_default_and_a_catalog_without_these_words(setup):
    render = renderer(setup)
    for what, game, ended in cases(setup):
        english = render.png(game, NAMES, ended=ended)
        assert render.png(game, NAMES, ended=ended, translations=gettext.NullTranslations()) == english, what
        unrelated = translations("fr", {"unrelated": "autre"})
        assert render.png(game, NAMES, ended=ended, translations=unrelated) == english, what


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("names", [NAMES, LONG], ids=["names", "long"])
def test_every_label_fits_in_german_as_in_english(drawn, setup, names):  # noqa: F811 (drawn: the fixture)
    """In English, and in German's longer words (a game whose words the test catalog lacks is drawn in English
    there: it must fit all the same)."""
    render = renderer(setup)
    for what, game, ended in cases(setup):
        for language in (gettext.NullTranslations(), translations("de", GERMAN)):  # new objects: nothing cached
            drawn.clear()
            render.png(game, names, ended=ended, translations=language)
            assert drawn and misplaced(drawn) == [], (what, language)


# --- replays ----------------------------------------------------------------------------------------


def frames(gif: bytes) -> list[tuple[Image.Image, int]]:
    """Every frame of a GIF as RGB (composited as a viewer shows it) with its duration in ms."""
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    out = []
    for n in range(image.n_frames):
        image.seek(n)
        out.append((image.convert("RGB"), image.info["duration"]))
    return out


def looks_like(frame: Image.Image, png: bytes) -> float:
    """Mean absolute difference (0–255) between a GIF frame (without its caption) and a live board, downscaled."""
    board = decode(png).convert("RGB").resize((frame.width, frame.height - CAPTION_H), Image.Resampling.BILINEAR)
    diff = ImageChops.difference(frame.crop((0, 0, frame.width, frame.height - CAPTION_H)), board)
    return sum(ImageStat.Stat(diff).mean) / 3


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
def test_a_full_game_replay_has_one_frame_per_move_plus_the_opening(setup):
    render, moves = renderer(setup), list(finished(setup, 5).moves)
    replay = build_gif(fresh(setup, 5), moves, render, NAMES, final_text="Ann wins")
    decoded = frames(replay.gif)
    assert replay.frames == len(decoded) == len(moves) + 1
    assert len(replay.gif) < DISCORD_LIMIT
    assert all(frame.size == (WIDTH, replay.height) for frame, _ in decoded)
    durations = [duration for _, duration in decoded]
    assert durations[0] == FIRST_MS and durations[-1] == LAST_MS and set(durations[1:-1]) == {FRAME_MS}
    assert durations[-1] > max(durations[:-1]) and replay.duration_ms == sum(durations)
    # the frames are the live renderer's boards: the opening, a middle position and the end, and no other
    pngs = [render.png(game, NAMES) for game, _, _ in positions(fresh(setup, 5), moves)]
    for n in (0, len(moves) // 3, len(moves)):
        assert looks_like(decoded[n][0], pngs[n]) < 6, n
    assert looks_like(decoded[-1][0], pngs[0]) > looks_like(decoded[-1][0], pngs[-1]) + 3


@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_replay_frame_at_full_width_is_the_live_board_in_the_same_language(drawn, setup, language):  # noqa: F811
    """Replay frames are drawn by the live boards' code: at the boards' own width a frame is the board, pixel for
    pixel, in the same language, with the caption below (German captions when German)."""
    render = renderer(setup)
    words = translations("de", GERMAN) if language == "de" else None
    start, moves = fresh(setup, 6), list(finished(setup, 6).moves[:6])
    width = render.image(start, NAMES).width
    replay = build_gif(start, moves, render, NAMES, translations=words, final_text="Ann hat gewonnen", width=width)
    assert replay.width == width and start.moves == []  # the start is not changed
    for (frame, _), (game, _, _) in zip(frames(replay.gif), positions(fresh(setup, 6), moves), strict=True):
        board = render.image(game, NAMES, translations=words).convert("RGB")
        assert frame.crop((0, 0, board.width, board.height)).tobytes() == board.tobytes(), len(game.moves)
    height = render.image(start, NAMES).height
    captions = [(size, text, box) for size, text, box in drawn if size[1] > height]  # the frames with their caption
    texts = [text for _, text, _ in captions]
    if language == "de":
        assert "Ausgangsstellung · 6 Spielzüge" in texts and any(" setzte " in t and " · 6/6 · " in t for t in texts)
    else:
        assert "Opening position · 6 moves" in texts and any(" played " in t and " · 6/6 · " in t for t in texts)
    assert any(text.endswith(" · Ann hat gewonnen") for text in texts)
    assert all(0 <= x0 and x1 <= size[0] - 12 and y0 >= height for size, _, (x0, y0, x1, _) in captions)
