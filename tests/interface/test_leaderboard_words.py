"""A leaderboard page says why a provisional player with a higher rating is ranked below an established one, and a
leaderboard of one page has no Previous / Next to press."""

from __future__ import annotations

from bot.exts.stats._buttons import leaderboard_view
from bot.exts.stats._phrases import leaderboard_embed
from bot.games import all_kinds
from bot.storage.ratings import Page, Standing

KIND = all_kinds()["hongkong"]


def test_the_first_provisional_player_below_an_established_one_is_explained():
    ben = Standing(2, "ben", mu=27.0, games=9, wins=6, losses=3)
    spec = Standing(3, "spec", mu=32.0, games=3, wins=3)
    cleo = Standing(4, "cleo", mu=20.0, games=1, losses=1)
    lines = leaderboard_embed(KIND, "s", Page([(1, ben), (2, spec), (3, cleo)], 0, 1, 3, 0, 1)).description.split("\n")
    assert lines[0].startswith("`  1.` ben") and lines[2].startswith("`  2.` spec — **")
    assert lines[1] == (
        "*Provisional — fewer than 5 rated games: ranked after the players with 5 or more, whatever their rating.*"
    )
    assert len(lines) == 4  # said once, before the first of them
    # everyone provisional (a new server): nothing to explain; on a later page, said only where they begin
    alone = leaderboard_embed(KIND, "s", Page([(1, spec), (2, cleo)], 0, 1, 2, 0, 0)).description.split("\n")
    assert len(alone) == 2
    later = leaderboard_embed(KIND, "s", Page([(11, spec), (12, cleo)], 1, 2, 12, 10, 9)).description.split("\n")
    assert len(later) == 2
    begins = leaderboard_embed(KIND, "s", Page([(11, spec), (12, cleo)], 1, 2, 12, 10, 10)).description.split("\n")
    assert len(begins) == 3 and begins[0].startswith("*Provisional")


def test_a_leaderboard_of_one_page_has_no_buttons_and_a_longer_one_has_both():
    ben = Standing(2, "ben", games=9)
    assert leaderboard_view("hongkong", "s", Page([(1, ben)], 0, 1, 1), 1, 2).children == []
    turning = leaderboard_view("hongkong", "s", Page([(1, ben)], 0, 3, 25), 1, 2)
    assert len(turning.children) == 2
