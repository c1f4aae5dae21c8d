"""Tournaments in Redis (bot/storage/tournaments.py), against a real Redis: compare-and-set commits, no lost update
under concurrent changes, a round advanced and its step scheduled exactly once, steps claimed by one process of
many, a finished game found by its id."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.errors import GameChanged
from bot.core.tournament.event import Format, Phase, Tournament, TournamentError
from bot.storage.keys import Keys
from bot.storage.tournaments import Step, Tournaments, advancing
from tests.conftest import Clock

GUILD, CHANNEL = 5, 77


def fresh(tid: str = "t1", n: int = 0) -> Tournament:
    t = Tournament(tid, GUILD, CHANNEL, 1, "hongkong", Format.SWISS, 3, created=1.0)
    for i in range(1, n + 1):
        t = t.join(100 + i, f"P{i}")
    return t


async def test_a_tournament_is_stored_listed_and_read_back(redis):
    store = Tournaments(redis, Clock())
    t = fresh(n=3)
    await store.create(t)
    held = await store.get(CHANNEL, "t1")
    assert held is not None and held.tournament == t and held.version == 1
    assert await redis.hgetall(Keys.guild_tournaments(GUILD)) == {"t1": str(CHANNEL)}
    assert [x.id for x in await store.of_guild(GUILD)] == ["t1"]
    assert (await store.find(GUILD, "t1")).tournament == t
    assert await store.find(GUILD, "nope") is None
    with pytest.raises(GameChanged):
        await store.create(t)


async def test_a_stale_commit_writes_nothing(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh())
    assert await store.commit(fresh(n=1), 1) == 2
    assert await store.commit(fresh(n=2), 1) == 0
    assert len((await store.get(CHANNEL, "t1")).tournament.entrants) == 1


async def test_concurrent_joins_are_all_kept(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh())

    async def join(i: int) -> None:
        await store.update(CHANNEL, "t1", lambda t: (t.join(i, f"P{i}"), (), None))

    await asyncio.gather(*(join(i) for i in range(1, 13)))
    t = (await store.get(CHANNEL, "t1")).tournament
    assert sorted(e.id for e in t.entrants) == list(range(1, 13))


async def test_a_refused_step_writes_nothing(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh(n=1))
    with pytest.raises(TournamentError):
        await store.update(CHANNEL, "t1", lambda t: (t.join(101, "again"), (), None))
    assert (await store.get(CHANNEL, "t1")).version == 1


async def test_a_round_advances_once_when_two_results_race(redis):
    """Two processes record the round's last two results at once: the round is paired once and its step scheduled
    once, whichever commits last."""
    clock = Clock()
    store = Tournaments(redis, clock)
    t = fresh(n=4).start()
    t = t.with_board(0, 0, game="g1").with_board(0, 1, game="g2")
    await store.create(t)

    def result(game: str):
        def change(t: Tournament):
            t = t.record_result(game, 0)
            if t.round_complete:
                t = t.next_round()
                return t, (), (Step("round", CHANNEL, t.id, t.round), clock())
            return t, (), None

        return change

    await asyncio.gather(*(store.update(CHANNEL, "t1", result(g)) for g in ("g1", "g2")))
    t = (await store.get(CHANNEL, "t1")).tournament
    assert t.round == 2 and t.phase is Phase.RUNNING
    assert [r for r in await redis.zrange(Keys.TOURNAMENT_DUE, 0, -1)] == [f"round|{CHANNEL}|t1|2"]


async def test_a_step_is_claimed_by_one_process_and_again_after_its_lease(redis):
    clock = Clock()
    a, b = Tournaments(redis, clock), Tournaments(redis, clock)
    step = Step("round", CHANNEL, "t1", 2)
    await a.schedule(step, clock() - 1)
    claims = await asyncio.gather(a.claim_due(), b.claim_due())
    assert sorted(len(c) for c in claims) == [0, 1]
    assert await a.claim_due() == []
    clock.advance(61)  # the claimer died: its lease (60 s) ran out
    (again,) = await b.claim_due()
    assert again == step
    assert await b.done(again) and await a.due(step) is None


async def test_a_game_finds_its_tournament(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh(n=2))
    await store.update(CHANNEL, "t1", lambda t: (t, ["gX"], None))
    assert (await store.of_game([999, CHANNEL], "gX")).tournament.id == "t1"
    assert await store.of_game([CHANNEL], "other") is None


async def test_privacy_exports_a_players_tournaments_and_forgets_them(redis):
    """/privacy: export lists the tournaments a player entered; forget turns them into "a former player" under a
    stand-in id on every board, results and standings unchanged; a tournament still open blocks forgetting."""
    from bot.core.tournament.standings import standings
    from bot.storage.finished_games import Records
    from bot.storage.privacy import Privacy
    from bot.storage.ratings import Ratings
    from bot.storage.store import GameStore

    store = Tournaments(redis, Clock())
    t = fresh(n=4).start().with_board(0, 0, game="g1").with_board(0, 1, game="g2")
    t = t.record_result("g1", 0).record_result("g2", None).replace(rounds=1).next_round()
    assert t.phase is Phase.FINISHED
    await store.create(t)
    await store.create(fresh("t2", n=2))  # P1 and P2 still signed up here
    privacy = Privacy(Records(GameStore(redis), Ratings(redis)))
    exported = await privacy.export(101)
    assert [x["id"] for x in exported["tournaments"]] == ["t1", "t2"]
    assert [x.id for x in await privacy.open_tournaments(101)] == ["t2"]
    assert await privacy.open_tournaments(103) == []
    before = [(r.place, r.points, r.buchholz) for r in standings(t)]
    erased = await privacy.forget(103, lambda record: record)
    assert erased.tournaments == 1
    after = (await store.get(CHANNEL, "t1")).tournament
    seed = t.entrant(103).seed
    assert after.entrant(103) is None and after.entrant(-seed).name == "a former player"
    assert all(not b.has(103) for r in after.boards for b in r) and any(b.has(-seed) for b in after.boards[0])
    assert [(r.place, r.points, r.buchholz) for r in standings(after)] == before
    assert "103" not in (await redis.hget(Keys.tournament(CHANNEL, "t1"), "doc"))


async def test_sixty_results_at_once_are_all_kept_and_the_round_advances_once(redis):
    """A round's games all ending at the same moment (every turn timer running out): every result is kept and the
    next round is paired once, its step scheduled once."""
    clock = Clock()
    store = Tournaments(redis, clock)
    t = fresh(n=120).start()
    for i in range(len(t.boards[0])):
        t = t.with_board(0, i, game=f"g{i}")
    await store.create(t)
    await asyncio.gather(
        *(
            store.update(CHANNEL, "t1", advancing(lambda x, g=f"g{i}": x.record_result(g, i % 2), clock))
            for i in range(60)
        )
    )
    t = (await store.get(CHANNEL, "t1")).tournament
    assert t.round == 2 and all(b.result in ("1-0", "0-1") for b in t.boards[0])
    assert await redis.zrange(Keys.TOURNAMENT_DUE, 0, -1) == [f"round|{CHANNEL}|t1|2"]
