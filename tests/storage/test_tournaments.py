"""Tournaments in Redis (bot/storage/tournaments.py), against a real Redis: a result, a join or a withdrawal is its
own atomic write — never refused because others happen at the same moment (with CPU burners beside the test) — the
same result twice counts once and another is refused, a round is advanced by its claimed step exactly once, a change
of the document is a compare-and-set, steps are claimed by one process of many, a tournament stored by the
previous version (one document) is read and moved to this layout, and tournaments over are swept past their
retention."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import time
from contextlib import contextmanager

import psutil
import pytest
import redis.asyncio as aioredis

from bot import budget
from bot.core.errors import GameChanged
from bot.core.tournament.event import Format, Phase, Tournament, TournamentError
from bot.storage.connection import redis_options
from bot.storage.keys import Keys
from bot.storage.tournaments import SCHEMA, Step, Tournaments
from tests.conftest import Clock

GUILD, CHANNEL = 5, 77


def fresh(tid: str = "t1", n: int = 0, rounds: int = 3) -> Tournament:
    t = Tournament(tid, GUILD, CHANNEL, 1, "hongkong", Format.SWISS, rounds, created=1.0)
    for i in range(1, n + 1):
        t = t.join(100 + i, f"P{i}")
    return t


def with_games(t: Tournament) -> Tournament:
    """Every pending board of the current round given a thread and a game ``g<index>``."""
    r = len(t.boards) - 1
    for i, board in enumerate(t.boards[r]):
        if board.result is None:
            t = t.with_board(r, i, game=f"g{i}", channel=10_000 + i)
    return t


@pytest.fixture
async def bot_redis(redis_server):
    """A client on the test's Redis made as the bot makes its own (:func:`bot.storage.connection.connect`): a
    blocking pool of 50 connections (a command waits for a free one) and the time budget's timeouts."""
    url = redis_server["url"] if "url" in redis_server else f"unix://{redis_server['unix_socket_path']}"
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=50, timeout=budget.POOL_TIMEOUT, decode_responses=True, **redis_options()
    )
    client = aioredis.Redis.from_pool(pool)
    yield client
    await client.aclose()


@contextmanager
def burning(count: int = 2):
    """``count`` processes burning a CPU each (``while True: pass``) while the block runs: a busy host."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        for burner in burners:  # each in its loop (past the interpreter's start) before the block runs
            watched = psutil.Process(burner.pid)
            for _ in range(200):
                if sum(watched.cpu_times()[:2]) > 0.1:
                    break
                time.sleep(0.01)
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


async def test_a_tournament_is_stored_listed_and_read_back(redis):
    store = Tournaments(redis, Clock())
    t = fresh(n=3)
    await store.create(t)
    held = await store.get(CHANNEL, "t1")
    assert held is not None and held.tournament == t and held.version == 1 and not held.legacy
    assert await redis.hgetall(Keys.guild_tournaments(GUILD)) == {"t1": str(CHANNEL)}
    assert [x.id for x in await store.of_guild(GUILD)] == ["t1"]
    assert (await store.find(GUILD, "t1")).tournament == t
    assert await store.find(GUILD, "nope") is None
    with pytest.raises(GameChanged):
        await store.create(t)
    # a started one, its games and results, reads back the same (entrants from their part, in pairing order)
    started = with_games(fresh("t2", n=5).start({104: 9.0})).record_result("g0", 1)
    await store.create(started)
    assert (await store.get(CHANNEL, "t2")).tournament == started
    assert [e.id for e in started.entrants][:1] == [104]


async def test_a_stale_commit_writes_nothing(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh())
    assert await store.commit(fresh().replace(name="A"), 1) == 2
    assert await store.commit(fresh().replace(name="B"), 1) == 0
    assert (await store.get(CHANNEL, "t1")).tournament.name == "A"


async def test_a_crowd_of_joins_and_leaves_is_all_kept(redis):
    """A hundred players join at once, twenty of them leave again at once: every one is kept, nothing refused, and
    the sign-up numbers stay 1..n in sign-up order."""
    store = Tournaments(redis, Clock())
    await store.create(fresh())
    joined = await asyncio.gather(*(store.join(CHANNEL, "t1", i, f"P{i}") for i in range(1, 101)))
    assert joined == [1] * 100
    await asyncio.gather(*(store.leave(CHANNEL, "t1", i) for i in range(1, 101, 5)))
    t = (await store.get(CHANNEL, "t1")).tournament
    assert sorted(e.id for e in t.entrants) == [i for i in range(1, 101) if i % 5 != 1]
    assert [e.seed for e in t.entrants] == list(range(1, 81))
    assert (await store.get(CHANNEL, "t1")).version == 1  # the document was never rewritten


async def test_refused_joins_and_leaves_write_nothing(redis):
    store = Tournaments(redis, Clock())
    await store.create(fresh(n=1, rounds=1))
    before = await redis.hgetall(Keys.tournament_players(CHANNEL, "t1"))
    for user, reason in ((101, "joined"),):
        with pytest.raises(TournamentError) as refused:
            await store.join(CHANNEL, "t1", user, "again")
        assert refused.value.reason == reason
    with pytest.raises(TournamentError) as refused:
        await store.leave(CHANNEL, "t1", 999)
    assert refused.value.reason == "not_in"
    assert await redis.hgetall(Keys.tournament_players(CHANNEL, "t1")) == before
    with pytest.raises(LookupError):
        await store.join(CHANNEL, "nope", 1, "x")
    # started (one round: nobody can join), then withdrawn, then over
    await store.join(CHANNEL, "t1", 102, "P2")
    t = await store.start(CHANNEL, "t1", {})
    with pytest.raises(TournamentError) as refused:
        await store.join(CHANNEL, "t1", 103, "late")
    assert refused.value.reason == "closed"
    await store.leave(CHANNEL, "t1", 101)
    for call, reason in (
        (store.join(CHANNEL, "t1", 101, "P1"), "withdrawn"),
        (store.leave(CHANNEL, "t1", 101), "withdrawn"),
    ):
        with pytest.raises(TournamentError) as refused:
            await call
        assert refused.value.reason == reason
    assert (await store.get(CHANNEL, "t1")).tournament.boards[0][0].result == (
        "-+" if t.boards[0][0].first == 101 else "+-"
    )


async def test_the_same_result_twice_counts_once_and_another_is_refused_and_logged(redis, caplog):
    store = Tournaments(redis, Clock())
    await store.create(with_games(fresh(n=4).start()))
    first = await store.record(CHANNEL, "t1", "g0", "1-0")
    again = await store.record(CHANNEL, "t1", "g0", "1-0")
    with caplog.at_level(logging.WARNING, logger="bot.storage.tournaments"):
        other = await store.record(CHANNEL, "t1", "g0", "0-1")
    assert (first.outcome, again.outcome, other.outcome, other.before) == ("kept", "same", "other", "1-0")
    assert "a second, different result 0-1 for g0 refused (it has 1-0)" in caplog.text
    assert (await store.record(CHANNEL, "t1", "nope", "1-0")).outcome == "no_board"
    t = (await store.get(CHANNEL, "t1")).tournament
    assert t.boards[0][0].result == "1-0" and t.boards[0][1].result is None
    last = await store.record(CHANNEL, "t1", "g1", "=")
    assert last.outcome == "last" and await store.due(Step("round", CHANNEL, "t1", 2)) is not None


async def record_all(store: Tournaments, t: Tournament, count: int) -> list[str]:
    """The first ``count`` boards' results, all at once (seat 0 wins on even boards, seat 1 on odd)."""
    outcomes = await asyncio.gather(
        *(store.record(CHANNEL, t.id, f"g{i}", "1-0" if i % 2 == 0 else "0-1") for i in range(count))
    )
    return [o.outcome for o in outcomes]


async def advance_by_step(stores: list[Tournaments], number: int) -> list[Step]:
    """Every process claims due steps at once; the one that got round ``number``'s step pairs it (as the runner
    does); returns the steps claimed."""

    async def process(store: Tournaments) -> list[Step]:
        claimed = await store.claim_due()
        for step in claimed:
            if step.what == "round" and step.round == number:
                await store.advance(step.channel_id, step.tournament_id, number - 1, schedule=False)
                await store.done(step)
        return claimed

    return [step for claimed in await asyncio.gather(*(process(s) for s in stores)) for step in claimed]


async def test_sixty_results_at_once_are_all_kept_and_the_round_advances_once(redis, bot_redis):
    """A round's games all ending at the same moment (every turn timer running out): every result is kept, the round
    step is scheduled once — by the last result — and the next round is paired once, by that step."""
    clock = Clock()
    store = Tournaments(bot_redis, clock)
    t = with_games(fresh(n=120).start())
    await store.create(t)
    outcomes = await record_all(store, t, 60)
    assert sorted(outcomes) == ["kept"] * 59 + ["last"]
    assert await redis.zrange(Keys.TOURNAMENT_DUE, 0, -1) == [f"round|{CHANNEL}|t1|2"]
    version = (await store.get(CHANNEL, "t1")).version
    claimed = await advance_by_step([store, Tournaments(redis, clock), Tournaments(redis, clock)], 2)
    assert [s.member for s in claimed] == [f"round|{CHANNEL}|t1|2"]
    held = await store.get(CHANNEL, "t1")
    t = held.tournament
    assert t.round == 2 and held.version == version + 1
    assert [b.result for b in t.boards[0]] == ["1-0" if i % 2 == 0 else "0-1" for i in range(60)]
    assert await redis.zrange(Keys.TOURNAMENT_DUE, 0, -1) == []


async def test_two_hundred_results_at_once_beside_cpu_burners_are_all_kept(redis, bot_redis):
    """A 400-player round whose 200 games end at once, on a host with two processes burning the CPU: every result
    kept (none refused, none lost), the round step scheduled once, the round advanced once however many processes
    claim at once, and recording a result again after all that changes nothing."""
    clock = Clock()
    store = Tournaments(bot_redis, clock)
    t = with_games(fresh(n=400).start())
    assert len(t.boards[0]) == 200
    await store.create(t)
    version = (await store.get(CHANNEL, "t1")).version
    with burning(2):
        outcomes = await record_all(store, t, 200)
        claimed = await advance_by_step([Tournaments(redis, clock) for _ in range(4)], 2)
    assert sorted(outcomes) == ["kept"] * 199 + ["last"]
    assert [s.member for s in claimed] == [f"round|{CHANNEL}|t1|2"]
    held = await store.get(CHANNEL, "t1")
    assert held.version == version + 1 and held.tournament.round == 2
    assert [b.result for b in held.tournament.boards[0]] == ["1-0" if i % 2 == 0 else "0-1" for i in range(200)]
    assert len(held.tournament.boards[1]) == 200
    assert (await store.record(CHANNEL, "t1", "g7", "0-1")).outcome == "same"
    assert await redis.zrange(Keys.TOURNAMENT_DUE, 0, -1) == []


async def test_joins_and_withdrawals_during_a_round_reach_its_pairing(redis):
    """Late joiners and withdrawals land while the round's results arrive and while it is being paired: the pairing
    that commits counts every one (a pairing computed before one of them is made again), and a withdrawal forfeits
    its board when the game has not started, or leaves it to the game when it has."""
    clock = Clock()
    store = Tournaments(redis, clock)
    t = fresh(n=40).start()
    t = t.with_board(0, 0, game="g0", channel=10_000)  # only board 0 has a game; board 1's thread is open
    t = t.with_board(0, 1, channel=10_001)
    await store.create(t)
    b2, b3 = t.boards[0][2], t.boards[0][3]
    await asyncio.gather(
        *(store.join(CHANNEL, "t1", 900 + i, f"L{i}") for i in range(5)),
        store.leave(CHANNEL, "t1", b2.first),  # not started: a forfeit
        store.leave(CHANNEL, "t1", t.boards[0][1].second),  # its thread is open: the game decides
    )
    after = (await store.get(CHANNEL, "t1")).tournament
    assert after.boards[0][2].result == "-+" and after.boards[0][1].result is None
    assert all(after.entrant(900 + i).joined == 2 for i in range(5))
    # the rest of the round's results, then the pairing — with a join and a withdrawal racing it
    for i, b in enumerate(after.boards[0]):
        if b.result is None and b.game is None:
            after = after.with_board(0, i, game=f"x{i}")
            await store.start_board(CHANNEL, "t1", 1, i, 20_000 + i, f"x{i}")
    await asyncio.gather(*(store.record(CHANNEL, "t1", b.game, "1-0") for b in after.boards[0] if b.result is None))
    await asyncio.gather(
        store.advance(CHANNEL, "t1", 1),
        store.join(CHANNEL, "t1", 999, "Very late"),
        store.leave(CHANNEL, "t1", b3.first),
    )
    t = (await store.get(CHANNEL, "t1")).tournament
    paired = {p for b in t.boards[1] for p in (b.first, b.second) if p is not None}
    # whichever landed first: a joiner before the pairing is in it, after it enters the round after
    late = t.entrant(999)
    assert (late.joined == 2 and 999 in paired) or (late.joined == 3 and 999 not in paired)
    # a withdrawal before the pairing keeps them out of it; after it, their new board is a forfeit
    gone = t.entrant(b3.first)
    if gone.withdrawn == 2:
        assert b3.first not in paired
    else:
        assert gone.withdrawn == 3 and t.pending_board(b3.first) is None
        assert next(b for b in t.boards[1] if b.has(b3.first)).points(b3.first) == 0
    assert b2.first not in paired and {900 + i for i in range(5)} <= paired
    assert paired == {e.id for e in t.entrants if e.active_in(2)} | ({b3.first} if gone.withdrawn == 3 else set())


async def test_a_board_takes_one_thread_and_one_game(redis):
    store = Tournaments(redis, Clock())
    t = fresh(n=4).start()
    await store.create(t)
    assert await store.open_board(CHANNEL, "t1", 1, 0, 555) == 555
    assert await store.open_board(CHANNEL, "t1", 1, 0, 666) == 555  # the first thread stays
    assert await store.start_board(CHANNEL, "t1", 1, 0, 555, "gA") is None
    assert await store.start_board(CHANNEL, "t1", 1, 0, 555, "gB") == "gA"
    assert (await store.locate([999, CHANNEL], "gA")) == (CHANNEL, "t1")
    assert (await store.of_game([CHANNEL], "gA")).tournament.boards[0][0].game == "gA"
    assert await store.of_game([CHANNEL], "gB") is None
    await store.leave(CHANNEL, "t1", t.boards[0][1].first)  # board 1: a forfeit, so no thread opens on it
    assert await store.open_board(CHANNEL, "t1", 1, 1, 777) is None
    assert (await store.forfeit(CHANNEL, "t1", 1, 0, "+-")).outcome == "started"


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


async def test_a_tournament_of_the_previous_version_is_read_then_moved_to_this_layout(redis):
    """The previous version kept a tournament as one document (hash v, doc) with its entrants and results inside:
    it reads as it was, and its first change writes it in the new layout — nothing lost."""
    clock = Clock()
    store = Tournaments(redis, clock)
    old = with_games(fresh(n=6).start()).record_result("g0", 0)
    await redis.hset(Keys.guild_tournaments(GUILD), "t1", CHANNEL)
    await redis.hset(Keys.tournament(CHANNEL, "t1"), mapping={"v": 7, "doc": json.dumps(old.to_dict())})
    await redis.hset(Keys.tournament_games(CHANNEL), mapping={b.game: "t1" for b in old.boards[0] if b.game})
    held = await store.get(CHANNEL, "t1")
    assert held.legacy and held.tournament == old and held.version == 7
    assert (await store.record(CHANNEL, "t1", "g1", "0-1")).outcome == "kept"
    held = await store.get(CHANNEL, "t1")
    assert (
        not held.legacy
        and held.version == 8
        and await redis.hget(Keys.tournament(CHANNEL, "t1"), "schema") == str(SCHEMA)
    )
    assert held.tournament == old.record_result("g1", 1)
    assert (await store.record(CHANNEL, "t1", "g2", "1-0")).outcome == "last"


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
    for key in (Keys.tournament(CHANNEL, "t1"), Keys.tournament_players(CHANNEL, "t1")):
        assert "103" not in json.dumps(await redis.hgetall(key)) and "P3" not in json.dumps(await redis.hgetall(key))


async def test_tournaments_over_are_swept_past_their_retention(redis):
    """A finished and a cancelled tournament are listed as over when they end and swept with everything they kept
    (document, parts, game index, steps, the server's list) once older than the retention; a running one stays, and
    one over that the previous version never listed is listed by the first sweep, as over from then."""
    from bot.storage.finished_games import Records
    from bot.storage.privacy import Privacy
    from bot.storage.ratings import Ratings
    from bot.storage.store import GameStore

    clock = Clock()
    store = Tournaments(redis, clock)
    done = with_games(fresh("ta", n=2, rounds=1).start())
    await store.create(done)
    await store.record(CHANNEL, "ta", "g0", "1-0")
    await store.advance(CHANNEL, "ta", 1)
    assert (await store.get(CHANNEL, "ta")).tournament.phase is Phase.FINISHED
    await store.create(fresh("tb", n=2))
    await store.update(CHANNEL, "tb", lambda t: (t.cancel(), (), None))
    await store.create(with_games(fresh("tc", n=2).start()))  # running
    old = fresh("td", n=2).cancel()  # over, stored by the previous version (never listed)
    await redis.hset(Keys.guild_tournaments(GUILD), "td", CHANNEL)
    await redis.hset(Keys.tournament(CHANNEL, "td"), mapping={"v": 3, "doc": json.dumps(old.to_dict())})
    privacy = Privacy(Records(GameStore(redis), Ratings(redis)))
    assert await privacy.sweep_tournaments(clock() - 3600) == 0  # (the first sweep lists "td" as over from now)
    clock.advance(10)
    assert await privacy.sweep_tournaments(clock() - 5) == 2
    assert await privacy.sweep_tournaments(time.time() + 1) == 1  # td: over since that first sweep
    assert [t.id for t in await store.of_guild(GUILD)] == ["tc"]
    assert await store.locate([CHANNEL], "g0") == (CHANNEL, "tc")  # ta's g0 unindexed; tc's stays
    keys = sorted(await redis.keys("*tourn*"))
    assert all(":tourn:tc" in k or "tourn-games" in k for k in keys if k != Keys.guild_tournaments(GUILD)), keys
    assert await redis.hgetall(Keys.guild_tournaments(GUILD)) == {"tc": str(CHANNEL)}
    assert await redis.zrange(Keys.TOURNAMENTS_OVER, 0, -1) == []
    assert await store.due(Step("final", CHANNEL, "ta", 1)) is None
