"""Boards and replays in the post's language: :mod:`bot.interface.board_pool` draws a board in the language current where it is
asked for (``with i18n.language(server)``), across its queue and in its worker processes, and ``/replay``'s GIF the
same way; the image messages are in the catalogs' template.

Small German and Japanese catalogs (tests/render/languages.py) stand in for bot/i18n/locales
(:func:`tests.bot.harness.temporary_catalogs`)."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine.hongkong as hk
from bot import i18n
from bot.games.hong import KIND as HONG
from bot.games.hongkong import KIND as HONGKONG
from bot.interface.board_pool import CHANNEL, PLAYER, Renderer, _draw, build_replay
from engine.result import Ended
from render.replay import build_gif
from tests.bot.harness import temporary_catalogs
from tests.render.languages import GERMAN, JAPANESE

NAMES = ("Ann", "Ben")


@pytest.fixture
def catalogs(tmp_path, monkeypatch):
    """``de.po`` and ``ja.po`` of the image words in a temporary LOCALES folder."""
    with temporary_catalogs(tmp_path, {"de": GERMAN, "ja": JAPANESE}, monkeypatch):
        yield


def mid_game(seed: int = 1) -> hk.HongKongGame:
    game, rng = hk.new_game(first=0), random.Random(seed)
    for _ in range(12):
        game.play(rng.choice(game.legal_moves()))
    return game


def drawn_in(code: str, game, kind=HONGKONG, ended=None) -> bytes:
    return kind.render.png(game, NAMES, ended=ended, translations=i18n.translations(code))


async def test_a_board_is_drawn_in_the_language_current_where_it_is_asked_for(catalogs):
    renderer = Renderer(0)
    game = mid_game()
    english, german = drawn_in("en", game), drawn_in("de", game)
    assert english != german
    assert await renderer.png(HONGKONG, game, NAMES) == english  # no language set: English
    with i18n.language("de"):
        assert await renderer.png(HONGKONG, game, NAMES) == german
        assert await renderer.png(HONGKONG, game, NAMES, language="en") == english  # a language given wins
    with i18n.language("de-AT"):  # a Discord locale of a language we have: that language
        assert await renderer.png(HONGKONG, game, NAMES, ended=Ended(1, "resigned")) == drawn_in(
            "de", game, ended=Ended(1, "resigned")
        )
    with i18n.language("fr"):  # no French catalog: English
        assert await renderer.png(HONGKONG, game, NAMES) == english


async def test_each_board_keeps_its_language_through_the_queue(catalogs):
    """Many boards asked for at once in three languages, more than there are slots: the ones that waited are drawn
    in their own language, not in whatever is current when their slot comes."""
    renderer = Renderer(0)
    games = [mid_game(seed) for seed in range(12)]
    codes = ["en", "de", "ja"] * 4

    async def board(game, code: str, priority: int) -> bytes:
        with i18n.language(code):
            return await renderer.png(HONGKONG, game, NAMES, priority=priority)

    boards = await asyncio.gather(
        *(board(game, code, (PLAYER, CHANNEL)[i % 2]) for i, (game, code) in enumerate(zip(games, codes)))
    )
    assert len(boards) > renderer.slots
    assert boards == [drawn_in(code, game) for game, code in zip(games, codes)]


async def test_a_worker_process_draws_in_the_language_of_the_post(catalogs):
    """In a real worker process (spawned: nothing of this process inherited), the board is the one drawn here in
    that language — the worker reads the same catalogs."""
    renderer = Renderer(1)
    try:
        game = mid_game()
        with i18n.language("de"):
            german = await renderer.png(HONGKONG, game, NAMES)
        with i18n.language("ja"):
            japanese = await renderer.png(HONG, HONG.new_game({"board": "castle", "seed": 2}), NAMES)
        english = await renderer.png(HONGKONG, game, NAMES)
    finally:
        renderer.close()
    assert german == drawn_in("de", game) and english == drawn_in("en", game) and german != english
    assert japanese == drawn_in("ja", HONG.new_game({"board": "castle", "seed": 2}), HONG)


def test_the_workers_drawing_reads_the_language_it_is_given(catalogs):
    game = mid_game()
    assert _draw(HONGKONG.render, "hongkong", game.to_dict(), NAMES, None, "de", i18n.LOCALES) == drawn_in("de", game)
    assert _draw(HONGKONG.render, "hongkong", game.to_dict(), NAMES, None) == drawn_in("en", game)


async def test_a_replay_is_built_in_the_language_current_where_it_is_asked_for(catalogs):
    """``build_replay`` run in a worker thread (as /replay runs it) follows the caller's language."""
    game = mid_game()
    moves = game.moves[:5]

    def gif(code: str) -> bytes:
        return build_gif(
            hk.new_game(first=0), moves, HONGKONG.render, NAMES, final_text="x", translations=i18n.translations(code)
        ).gif

    with i18n.language("de"):
        german = await asyncio.to_thread(build_replay, HONGKONG, hk.new_game(first=0), moves, NAMES, final_text="x")
    english = await asyncio.to_thread(build_replay, HONGKONG, hk.new_game(first=0), moves, NAMES, final_text="x")
    assert german.gif == gif("de") and english.gif == gif("en") and german.gif != english.gif
    assert build_replay(HONGKONG, hk.new_game(first=0), moves, NAMES, final_text="x", language="de").gif == gif("de")


def test_the_template_has_the_images_words():
    """``python -m bot.i18n extract`` finds the images' messages (in render/, through the renderers' gettext,
    ngettext and pgettext) with their contexts and plural forms."""
    template = i18n.extract()
    assert template.get("turn {number}", context="image") is not None
    assert template.get("TO MOVE", context="image") is not None
    assert template.get("THE LAIR:\na new Hong of\nsize N summons\ndragon N", context="image") is not None
    assert template.get("{count} building").id == ("{count} building", "{count} buildings")
    assert template.get("{name} to move") is not None and template.get("blue") is not None
    assert template.get("Opening position · {count} move").id[1] == "Opening position · {count} moves"
