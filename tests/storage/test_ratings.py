"""Ratings against a real Redis: direction of changes, what is rated, provisional marking, leaderboard order and
paging, server vs global, and exactly-once application under concurrency (two "processes", many calls)."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.record import Record, RecordError
from bot.storage.ratings import (
    GLOBAL,
    MODEL,
    PROVISIONAL_GAMES,
    Ratings,
    Standing,
    display,
    guild_scope,
    rating_outcome,
)

GUILD, OTHER_GUILD = 9, 10
ANN, BEN, CLEO = 1, 2, 3
NAMES = {ANN: "Ann", BEN: "Ben", CLEO: "Cleo"}


def finished(
    gid: str,
    p0: int,
    p1: int,
    winner: int | None,
    reason: str = "finished",
    *,
    kind: str = "hongkong",
    guild: int = GUILD,
    ended: float = 1000.0,
) -> Record:
    """A finished record as GameStore.finish stores it (only the fields ratings read, plus the usual ones)."""
    return Record.from_dict(
        {
            "schema": 2,
            "id": gid,
            "kind": kind,
            "status": "finished",
            "guild_id": guild,
            "channel_id": 500,
            "challenger": p0,
            "opponent": p1,
            "players": [{"id": p0, "name": NAMES.get(p0, f"P{p0}")}, {"id": p1, "name": NAMES.get(p1, f"P{p1}")}],
            "options": {"first": 0},
            "state": {"game": "hongkong", "first": 0, "moves": []},
            "started": ended - 100,
            "ended": ended,
            "result": {"winner": winner, "reason": reason, "text": "…"},
        }
    )


@pytest.fixture
def ratings(redis) -> Ratings:
    return Ratings(redis)


# --- which games are rated ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "winner, reason, ranks",
    [
        (0, "finished", [1, 2]),
        (1, "finished", [2, 1]),
        (None, "finished", [1, 1]),  # a draw
        (1, "resigned", [2, 1]),  # seat 0 resigned: a loss for seat 0
        (0, "timeout", [1, 2]),
        (None, "aborted", None),
        (None, "resigned", None),  # no winner but not a normal end: not a draw, unrated
    ],
)
def test_rating_outcome(winner, reason, ranks):
    assert rating_outcome(finished("g", ANN, BEN, winner, reason)) == ranks


def test_an_unknown_ending_is_a_damaged_record_never_rated():
    with pytest.raises(RecordError, match="something-new"):
        finished("g", ANN, BEN, 0, "something-new")


def test_same_person_or_a_bot_is_unrated():
    assert rating_outcome(finished("g", ANN, ANN, 0)) is None
    doc = finished("g", ANN, BEN, 0)
    doc = doc.replace(players=(doc.players[0], doc.players[1].__class__(BEN, "Ben", bot=True, level="easy")))
    assert rating_outcome(doc) is None


async def test_unrated_games_change_nothing(ratings, redis):
    assert await ratings.apply(finished("ab", ANN, BEN, None, "aborted")) == {}
    assert await redis.keys("hongbot:{rt:*") == []


# --- direction and size of changes ----------------------------------------------------------------------


async def test_winner_goes_up_loser_down_by_openskill(ratings):
    change = await ratings.apply(finished("g1", ANN, BEN, 0))
    # openskill Plackett–Luce from (25, 25/3) each: the winner to 27.6354, the loser to 22.3646
    assert change[guild_scope(GUILD)] == {ANN: (1500, 1658), BEN: (1500, 1342)}
    assert change[GLOBAL] == {ANN: (1500, 1658), BEN: (1500, 1342)}
    ann = await ratings.standing("hongkong", guild_scope(GUILD), ANN)
    ben = await ratings.standing("hongkong", guild_scope(GUILD), BEN)
    [[a], [b]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()]], ranks=[1, 2])
    assert ann.mu == pytest.approx(a.mu) and ben.mu == pytest.approx(b.mu)
    assert ann.mu == pytest.approx(27.6354, abs=1e-4) and ben.mu == pytest.approx(22.3646, abs=1e-4)
    assert ann.sigma < 25 / 3 and ben.sigma < 25 / 3
    assert (ann.games, ann.wins, ann.losses, ann.draws, ann.streak) == (1, 1, 0, 0, 1)
    assert (ben.games, ben.wins, ben.losses, ben.draws, ben.streak) == (1, 0, 1, 0, -1)
    assert ann.seats == ((1, 0, 0), (0, 0, 0)) and ben.seats == ((0, 0, 0), (0, 1, 0))
    assert ann.name == "Ann" and ann.last == 1000.0


async def test_resignation_is_a_loss_for_the_resigner(ratings):
    await ratings.apply(finished("g1", ANN, BEN, 1, "resigned"))  # Ann (seat 0) resigned
    ann = await ratings.standing("hongkong", GLOBAL, ANN)
    ben = await ratings.standing("hongkong", GLOBAL, BEN)
    assert ann.rating == 1342 and ann.losses == 1
    assert ben.rating == 1658 and ben.wins == 1


async def test_draw_between_equals_keeps_ratings_and_shrinks_uncertainty(ratings):
    await ratings.apply(finished("g1", ANN, BEN, None))
    ann = await ratings.standing("hongkong", GLOBAL, ANN)
    assert ann.mu == pytest.approx(25.0) and ann.sigma < 25 / 3
    assert (ann.draws, ann.streak, ann.record_text()) == (1, 0, "0–0–1")


async def test_an_upset_moves_ratings_more_than_an_expected_result(ratings):
    # Ann beats Ben three times; Ben's win over Ann then (an upset) costs Ann more than a fourth win would gain
    for n in range(3):
        await ratings.apply(finished(f"w{n}", ANN, BEN, 0, ended=1000 + n))
    ann = await ratings.standing("hongkong", GLOBAL, ANN)
    ben = await ratings.standing("hongkong", GLOBAL, BEN)
    [[if_won], _] = MODEL.rate(
        [[MODEL.create_rating([ann.mu, ann.sigma])], [MODEL.create_rating([ben.mu, ben.sigma])]], ranks=[1, 2]
    )
    upset = await ratings.apply(finished("upset", ANN, BEN, 1, ended=2000))
    before, after = upset[GLOBAL][ANN]
    assert before == ann.rating and after < before
    assert before - after > display(if_won.mu) - ann.rating > 0
    assert upset[GLOBAL][BEN][1] > upset[GLOBAL][BEN][0]
    ann = await ratings.standing("hongkong", GLOBAL, ANN)
    assert ann.streak == -1 and (ann.wins, ann.losses) == (3, 1)


async def test_streaks(ratings):
    results = [0, 0, 0, 1, 1, None, 0]  # winner seat each game; Ann is seat 0
    streaks = []
    for n, winner in enumerate(results):
        await ratings.apply(finished(f"s{n}", ANN, BEN, winner, ended=1000 + n))
        streaks.append((await ratings.standing("hongkong", GLOBAL, ANN)).streak)
    assert streaks == [1, 2, 3, -1, -2, 0, 1]


async def test_separate_ratings_per_game_kind(ratings):
    await ratings.apply(finished("k1", ANN, BEN, 0, kind="hongkong"))
    await ratings.apply(finished("k2", ANN, BEN, 1, kind="hong"))
    assert (await ratings.standing("hongkong", GLOBAL, ANN)).rating == 1658
    assert (await ratings.standing("hong", GLOBAL, ANN)).rating == 1342
    hong_ann = await ratings.standing("hong", GLOBAL, ANN)
    assert hong_ann.seats == ((0, 1, 0), (0, 0, 0))  # lost as seat 0 (emperor)


async def test_server_and_global_leaderboards(ratings):
    await ratings.apply(finished("a1", ANN, BEN, 0, guild=GUILD))
    await ratings.apply(finished("a2", ANN, CLEO, 0, guild=OTHER_GUILD))
    here = await ratings.page("hongkong", guild_scope(GUILD), 0)
    there = await ratings.page("hongkong", guild_scope(OTHER_GUILD), 0)
    world = await ratings.page("hongkong", GLOBAL, 0)
    assert [s.user_id for _, s in here.entries] == [ANN, BEN]
    assert [s.user_id for _, s in there.entries] == [ANN, CLEO]
    assert world.total == 3 and world.entries[0][1].user_id == ANN
    assert (await ratings.standing("hongkong", guild_scope(GUILD), ANN)).games == 1
    assert (await ratings.standing("hongkong", GLOBAL, ANN)).games == 2
    assert await ratings.standing("hongkong", guild_scope(OTHER_GUILD), BEN) is None
    assert await ratings.rank("hongkong", GLOBAL, CLEO) in ((2, 3), (3, 3))
    assert await ratings.rank("hongkong", GLOBAL, 999) is None


# --- provisional players ----------------------------------------------------------------------------------


async def test_provisional_until_five_games(ratings):
    texts = []
    for n in range(PROVISIONAL_GAMES):
        await ratings.apply(finished(f"p{n}", ANN, BEN, n % 2, ended=1000 + n))
        ann = await ratings.standing("hongkong", GLOBAL, ANN)
        texts.append((ann.games, ann.provisional, ann.rating_text()))
    assert [t[1] for t in texts] == [True, True, True, True, False]
    assert all("?" in text for _, provisional, text in texts if provisional)
    assert "?" not in texts[-1][2]
    ann = await ratings.standing("hongkong", GLOBAL, ANN)
    assert ann.rating_text() == f"{ann.rating} ± {ann.uncertainty}"


def test_standing_text():
    s = Standing(1, "Ann", mu=27.6354, sigma=8.0659, games=1, wins=1)
    assert s.rating_text() == "1658? ± 484"
    assert Standing(1, "Ann", games=5).rating_text() == "1500 ± 500"
    assert display(25) == 1500


async def test_established_players_rank_above_provisional_ones(ratings):
    # Ann and Ben play six games (Ben wins 4 of them): both established; Cleo beats a newcomer once,
    # reaching a higher rating than Ann, but is provisional and so ranks below both.
    for n in range(6):
        await ratings.apply(finished(f"e{n}", ANN, BEN, 1 if n < 4 else 0, ended=1000 + n))
    await ratings.apply(finished("c1", CLEO, 77, 0, ended=2000))
    page = await ratings.page("hongkong", GLOBAL, 0)
    order = [s.user_id for _, s in page.entries]
    standings = {s.user_id: s for _, s in page.entries}
    assert standings[CLEO].rating > standings[ANN].rating
    assert order == [BEN, ANN, CLEO, 77]
    assert [rank for rank, _ in page.entries] == [1, 2, 3, 4]
    assert await ratings.rank("hongkong", GLOBAL, CLEO) == (3, 4)


# --- leaderboard paging ----------------------------------------------------------------------------------


async def test_leaderboard_pages_of_ten_in_rating_order(ratings):
    # 25 players: 11 pairs (100+i beats 200+i), and player 100 also beats three newcomers 300–302
    for i in range(11):
        await ratings.apply(finished(f"m{i}", 100 + i, 200 + i, 0, ended=1000 + i))
    for i in range(3):
        await ratings.apply(finished(f"x{i}", 100, 300 + i, 0, ended=2000 + i))
    total = 11 * 2 + 3
    pages = [await ratings.page("hongkong", GLOBAL, p) for p in range(3)]
    assert [len(p.entries) for p in pages] == [10, 10, 5]
    assert all(p.pages == 3 and p.total == total for p in pages)
    entries = [e for p in pages for e in p.entries]
    # competition ranking of the shown ratings: the ten 1–0 winners (101–110) share rank 2, and so on
    tiers = [(not s.provisional, s.rating) for _, s in entries]
    assert [rank for rank, _ in entries] == [1 + sum(t > mine for t in tiers) for mine in tiers]
    assert [rank for rank, _ in entries][:12] == [1] + [2] * 10 + [12]
    assert entries[0][1].user_id == 100 and entries[0][1].wins == 4
    ratings_in_order = [s.rating for _, s in entries]
    assert ratings_in_order == sorted(ratings_in_order, reverse=True)
    assert len({s.user_id for _, s in entries}) == total
    # out-of-range pages are clamped
    assert (await ratings.page("hongkong", GLOBAL, 99)).page == 2
    assert (await ratings.page("hongkong", GLOBAL, -3)).page == 0
    empty = await ratings.page("hong", GLOBAL, 0)
    assert (empty.total, empty.pages, empty.entries) == (0, 1, [])


# --- exactly once ----------------------------------------------------------------------------------------


async def test_applying_twice_rates_once(ratings):
    doc = finished("once", ANN, BEN, 0)
    first = await ratings.apply(doc)
    second = await ratings.apply(doc)
    assert all(v is not None for v in first.values())
    assert second == {guild_scope(GUILD): None, GLOBAL: None}
    assert (await ratings.standing("hongkong", GLOBAL, ANN)).games == 1
    assert await ratings.change("hongkong", GLOBAL, "once") == {ANN: (1500, 1658), BEN: (1500, 1342)}


async def test_two_processes_rating_the_same_game_at_once_rate_it_once(redis, new_handle):
    """Two bot processes (separate connections) both try to rate the same game, 10 times each, all at once."""
    a, b = Ratings(new_handle().client), Ratings(new_handle().client)
    doc = finished("race", ANN, BEN, 0)
    results = await asyncio.gather(*[(a if n % 2 else b).apply(doc) for n in range(20)])
    for scope in (guild_scope(GUILD), GLOBAL):
        applied = [r[scope] for r in results if r[scope] is not None]
        assert applied == [{ANN: (1500, 1658), BEN: (1500, 1342)}]
        ann = await Ratings(redis).standing("hongkong", scope, ANN)
        assert (ann.games, ann.wins) == (1, 1)
        assert await redis.hlen(Ratings.key("hongkong", scope, "rated")) == 1


async def test_concurrent_different_games_lose_no_update(redis, new_handle):
    """Twenty different games of the same two players rated concurrently by two processes: all twenty count."""
    a, b = Ratings(new_handle().client), Ratings(new_handle().client)
    docs = [finished(f"c{n:02}", ANN, BEN, n % 2, ended=1000 + n) for n in range(20)]
    results = await asyncio.gather(*[(a if n % 2 else b).apply(doc) for n, doc in enumerate(docs)])
    assert all(r[GLOBAL] is not None for r in results)
    for scope in (guild_scope(GUILD), GLOBAL):
        ann = await Ratings(redis).standing("hongkong", scope, ANN)
        ben = await Ratings(redis).standing("hongkong", scope, BEN)
        assert (ann.games, ann.wins, ann.losses) == (20, 10, 10)
        assert (ben.games, ben.wins, ben.losses) == (20, 10, 10)
        assert ann.seats == ((10, 10, 0), (0, 0, 0))
        assert await redis.hlen(Ratings.key("hongkong", scope, "rated")) == 20


async def test_retry_after_a_crash_between_leaderboards_completes_the_other(ratings):
    """A process rated the server leaderboard and died before the global one: the retry rates only global."""
    doc = finished("crash", ANN, BEN, 0)
    await ratings._apply_scope(doc, guild_scope(GUILD), [1, 2])
    assert await ratings.standing("hongkong", GLOBAL, ANN) is None
    retry = await ratings.apply(doc)
    assert retry[guild_scope(GUILD)] is None and retry[GLOBAL] == {ANN: (1500, 1658), BEN: (1500, 1342)}
    for scope in (guild_scope(GUILD), GLOBAL):
        assert (await ratings.standing("hongkong", scope, ANN)).games == 1


def test_leaderboard_embed_fits_discord_limits_with_the_worst_names():
    from bot.games.hongkong import HONGKONG
    from bot.storage.ratings import Page
    from bot.exts.stats import leaderboard_embed

    worst = "*_~`|>\\" * 10  # every character needs escaping
    page = Page(
        [(n + 991, Standing(n, worst, mu=30.0, sigma=1.0, games=99999, wins=99999)) for n in range(10)], 99, 1000, 9999
    )
    embed = leaderboard_embed(HONGKONG, "s", page).to_dict()
    assert len(embed["description"]) <= 4096 and len(embed["title"]) <= 256 and len(embed["footer"]["text"]) <= 2048
    assert len(embed["description"]) + len(embed["title"]) + len(embed["footer"]["text"]) <= 6000
    assert embed["description"].count("\n") == 9 and "`1000.`" in embed["description"]


async def test_equal_ratings_share_a_rank_and_rank_agrees_with_the_page(ratings):
    """Standard competition ranking ("1, 2, 2, 4"): 15 players who each beat a newcomer once have the same rating
    and share rank 1; the 15 newcomers they beat share rank 16 — on every page and in :meth:`Ratings.rank`."""
    for i in range(15):
        await ratings.apply(finished(f"t{i}", 500 + i, 600 + i, 0, ended=1000 + i))
    pages = [await ratings.page("hongkong", GLOBAL, p, per_page=7) for p in range(5)]
    entries = [e for p in pages[:5] for e in p.entries]
    assert len(entries) == 30 and len({s.rating for _, s in entries}) == 2
    assert [rank for rank, _ in entries] == [1] * 15 + [16] * 15
    for rank, s in entries:
        assert await ratings.rank("hongkong", GLOBAL, s.user_id) == (rank, 30)
    # one more win breaks the tie at the top (1, 2 ×14); its loser lost less to a stronger player (16), then 17 ×15
    await ratings.apply(finished("t-extra", 500, 700, 0, ended=3000))
    assert [(await ratings.rank("hongkong", GLOBAL, u))[0] for u in (500, 501, 514, 700, 600, 614)] == [
        1,
        2,
        2,
        16,
        17,
        17,
    ]
