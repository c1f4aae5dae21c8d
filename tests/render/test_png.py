"""PNG encoding (render.common.to_png): the image's exact pixels and palette, a valid zlib stream, whatever bands
were found kept — for boards of both games as they are played, and for images of any height."""

from __future__ import annotations

import io
import random
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from engine import hong, hongkong
from render import hong as hong_render
from render import hongkong as hongkong_render
from render.common import BAND_ROWS, BANDS, to_png


def chunks(png: bytes) -> dict[bytes, bytes]:
    """The PNG's chunks by type (each chunk's CRC checked)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = {}, 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data), kind
        out[kind] = data
        at += 12 + length
    return out


def same_pixels(png: bytes, image: Image.Image) -> None:
    decoded = Image.open(io.BytesIO(png))
    decoded.load()
    assert decoded.mode == "P" and decoded.size == image.size
    assert decoded.tobytes() == image.tobytes()
    assert decoded.getpalette() == image.getpalette()
    # the image data is one zlib stream whose checksum (Adler-32) is that of the filtered rows
    width, height = image.size
    raw = zlib.decompress(chunks(png)[b"IDAT"])
    assert raw == b"".join(b"\0" + image.tobytes()[y * width : (y + 1) * width] for y in range(height))


@pytest.mark.parametrize("height", [1, 2, BAND_ROWS - 1, BAND_ROWS, BAND_ROWS + 1, 3 * BAND_ROWS + 5])
def test_any_height_encodes_to_its_exact_pixels(height: int) -> None:
    rng = random.Random(height)
    image = Image.new("P", (37, height))
    image.putdata([rng.randrange(6) for _ in range(37 * height)])
    image.putpalette([v for i in range(256) for v in (i, 255 - i, i // 2)])
    same_pixels(to_png(image), image)
    same_pixels(to_png(image), image)  # its bands now found kept


@pytest.mark.parametrize(
    "module, renderer, options",
    [(hongkong, hongkong_render.RENDERER, {}), (hong, hong_render.RENDERER, {"expansion": True})],
    ids=["hongkong", "hong"],
)
def test_boards_of_a_game_played_decode_to_the_drawn_image(module, renderer, options) -> None:
    rng = random.Random(7)
    game = module.new_game(**options)
    hits = BANDS.hits
    while not game.is_over:
        image = renderer.image(game, ("Ann", "李小龙"))
        png = renderer.png(game, ("Ann", "李小龙"))
        same_pixels(png, image)
        game.play(rng.choice(game.legal_moves()))
    assert BANDS.hits > hits  # the unchanged parts of a board were not deflated again


def test_a_band_kept_from_another_image_gives_the_same_bytes_as_a_fresh_encoding() -> None:
    a = Image.new("P", (50, 3 * BAND_ROWS), 1)
    a.putpalette([v for i in range(256) for v in (i, i, i)])
    b = a.copy()
    b.paste(2, (0, BAND_ROWS, 50, BAND_ROWS + 3))  # only the middle band differs
    first = to_png(b)
    to_png(a)  # a's bands kept: its first and last are b's too
    BANDS.clear()
    fresh = to_png(b)
    same_pixels(first, b)
    same_pixels(fresh, b)


def test_threads_encode_side_by_side() -> None:
    game = hongkong.new_game()
    rng = random.Random(1)
    images = []
    for _ in range(12):
        game.play(rng.choice(game.legal_moves()))
        images.append(hongkong_render.RENDERER.image(game, ("Ann", "Ben")))
    with ThreadPoolExecutor(4) as pool:
        pngs = list(pool.map(to_png, images * 3))
    for png, image in zip(pngs, images * 3):
        same_pixels(png, image)
