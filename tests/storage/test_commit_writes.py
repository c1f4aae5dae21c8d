"""What the compare-and-set commit (:meth:`bot.storage.store.GameStore.commit`) writes beside the record, key by key
and TTL by TTL — the interaction a turn answers (its reply key), the members' shard keys, the claims' tries — and
when its Lua script refuses: Redis's own clock past the commit's deadline, the store's identity marker gone, another
commit first (then none of the loser's effects land). Against a real Redis (tests/conftest.py), no mocks.

The tests of the record's own versioning are in test_commit.py; these read every key the database holds."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.core.record import Player, Record, Status
from bot.storage.deadlines import Deadline, Deadlines
from bot.storage.errors import StoreLost
from bot.storage.guard import StoreGuard
from bot.storage.keys import Keys
from bot.storage.outbox import Announcement
from bot.storage.store import REPLY_TTL, Effects, GameStore, NotSaved, fresh_task, reply_to
from tests.conftest import Clock, make_client

from .contents import contents

CHANNEL = 7
#: A server id as Discord makes them: its shard key (``id >> 22``) is not 0, so a wrong one shows.
GUILD = 81384788765712384
SHARD = str(GUILD >> 22)
#: The interaction a turn answers: ``<application id>:<token>``.
TOKEN = "4242:aW50ZXJhY3Rpb24tdG9rZW4"

FORFEIT = Deadline("forfeit", CHANNEL, "g1", 1).member
REMIND = Deadline("remind", CHANNEL, "g1", 1).member
TURN = Announcement("turn", CHANNEL, "g1", 1, 1, "move").member
COMPUTER = Announcement("computer", CHANNEL, "g1", 1).member


def game(game_id: str = "g1", name: str = "Ann") -> Record:
    """A running game's record in :data:`CHANNEL` of :data:`GUILD` (``name`` tells two records apart)."""
    return Record(
        id=game_id,
        kind="hongkong",
        status=Status.ACTIVE,
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=1,
        opponent=2,
        players=(Player(1, name), Player(2, "Ben")),
        state={},
    )


def turn(version: int = 1, game_id: str = "g1") -> Effects:
    """A turn's effects as the game layer makes them: the turn's forfeit and reminder, its board post, active."""
    return Effects(
        schedule=(
            (Deadline("forfeit", CHANNEL, game_id, version).member, 500.0),
            (Deadline("remind", CHANNEL, game_id, version).member, 250.0),
        ),
        announce=((Announcement("turn", CHANNEL, game_id, version, version, "move").member, 15.0),),
        active=True,
    )


async def answering(commit, interaction: str | None = TOKEN, within: float | None = None):
    """Run ``commit()`` in a task of its own, as an interaction's handler does: its accounting fresh, its change
    answering ``interaction`` (:func:`reply_to`) and due ``within`` seconds from now (None: no deadline)."""

    async def handler():
        fresh_task(None if within is None else time.monotonic() + within)
        reply_to(interaction)
        return await commit()

    return await asyncio.create_task(handler())


async def test_a_turn_commit_writes_exactly_these_keys_values_and_ttls(store, redis):
    """A turn committed in answer to an interaction writes seven keys and nothing else: the record (version 1),
    the deadlines and the outbox with their members' shard keys (``guild id >> 22``), the server's active set, and
    the interaction's token under the turn announcement's reply key, expiring with Discord's 15-minute window;
    only that key expires."""
    assert await answering(lambda: store.commit(CHANNEL, game(), 0, turn())) == 1
    reply_key = "hongbot:{ch:7}:reply:turn|7|g1|1|1|move"
    assert await contents(redis) == {
        "hongbot:{ch:7}:game": ("hash", {"v": "1", "doc": game().to_json()}, False),
        "hongbot:deadlines": ("zset", [(REMIND, 250.0), (FORFEIT, 500.0)], False),
        "hongbot:deadlines:shard": ("hash", {FORFEIT: SHARD, REMIND: SHARD}, False),
        "hongbot:outbox": ("zset", [(TURN, 15.0)], False),
        "hongbot:outbox:shard": ("hash", {TURN: SHARD}, False),
        "hongbot:{g:81384788765712384}:active": ("set", {"7"}, False),
        reply_key: ("string", TOKEN, True),
    }
    assert reply_key == Keys.reply(CHANNEL, TURN)
    assert REPLY_TTL - 5 <= await redis.ttl(reply_key) <= REPLY_TTL == 900
    assert await store.reply_of(CHANNEL, TURN) == TOKEN


async def test_the_reply_key_is_written_only_for_the_handler_s_own_turn_announcement(store, redis):
    """The interaction is stored only beside a *turn* announcement (a computer's reply alone writes none), only by
    the task that called :func:`reply_to` (a task it started does not inherit it), and not by a refused commit."""
    computer_only = Effects(announce=((COMPUTER, 30.0),))
    assert await answering(lambda: store.commit(CHANNEL, game(), 0, computer_only)) == 1
    assert await redis.keys("hongbot:{ch:7}:reply:*") == []

    async def from_a_child_task():
        return await asyncio.create_task(store.commit(CHANNEL, game(name="Cy"), 1, turn(2)))

    assert await answering(from_a_child_task) == 2
    assert await redis.keys("hongbot:{ch:7}:reply:*") == []

    before = await contents(redis)
    assert await answering(lambda: store.commit(CHANNEL, game(name="Di"), 1, turn(3))) is None  # stale
    assert await contents(redis) == before


async def test_the_next_turn_clears_the_old_members_shard_keys_and_claims(store, redis):
    """A commit that cancels a deadline and settles an announcement removes them with their shard keys and their
    claim counts (``…:tries``) in the same step: once the old turn's members are gone, their hashes are gone too."""
    await store.commit(CHANNEL, game(), 0, turn())
    deadlines = Deadlines(redis, Clock(1000.0))  # past both deadlines: claimed once each
    assert sorted(d.member for d in await deadlines.claim_due()) == [FORFEIT, REMIND]
    assert await redis.hgetall("hongbot:deadlines:tries") == {FORFEIT: "1", REMIND: "1"}

    nxt = Effects(
        cancel=(FORFEIT, REMIND), settle=(TURN,), schedule=((Deadline("forfeit", CHANNEL, "g1", 2).member, 900.0),)
    )
    assert await store.commit(CHANNEL, game(name="Cy"), 1, nxt) == 2
    assert {key: value for key, value in (await contents(redis)).items() if "game" not in key} == {
        "hongbot:deadlines": ("zset", [("forfeit|7|g1|2", 900.0)], False),
        "hongbot:deadlines:shard": ("hash", {"forfeit|7|g1|2": SHARD}, False),
        "hongbot:{g:81384788765712384}:active": ("set", {"7"}, False),
    }


async def test_a_commit_redis_runs_after_its_deadline_is_refused_by_the_script(store, redis, redis_server):
    """The deadline is checked by the script against Redis's own ``TIME``: a commit sent in time but held in a
    paused server (``CLIENT PAUSE``, as a stopped one holds it) until past its deadline writes nothing and raises
    :class:`NotSaved` — the script's refusal (-2), not the check made before sending."""
    assert await answering(lambda: store.commit(CHANNEL, game(), 0, turn()), within=5.0) == 1  # measures the offset
    before = await contents(redis)
    pauser = make_client(redis_server)
    try:
        await pauser.execute_command("CLIENT", "PAUSE", 2500, "ALL")
        with pytest.raises(NotSaved, match="Redis ran the change to channel 7 after its deadline"):
            await answering(lambda: store.commit(CHANNEL, game(name="Cy"), 1, turn(2)), within=1.0)
    finally:
        await pauser.execute_command("CLIENT", "UNPAUSE")
        await pauser.aclose()
    assert await contents(redis) == before


async def test_a_commit_is_refused_when_the_store_s_identity_marker_is_gone(redis_server, redis):
    """On a store whose identity a :class:`StoreGuard` established, every commit carries the marker key: while it
    is there the commit lands; once it is gone (the server was flushed or restarted empty) the script refuses
    before reading anything, :class:`StoreLost` names the marker, and not one key changes."""
    client = make_client(redis_server)
    guard = StoreGuard(client, "the test's Redis")
    try:
        await guard.establish()
        store = GameStore(client)
        assert await store.commit(CHANNEL, game(), 0, turn()) == 1
        await redis.delete(Keys.IDENTITY)
        before = await contents(redis)
        with pytest.raises(StoreLost, match="hongbot:store:identity"):
            await answering(lambda: store.commit(CHANNEL, game(name="Cy"), 1, turn(2)))
        assert await contents(redis) == before
        assert "lost its data" in guard.problem
    finally:
        await guard.stop()
        await client.aclose()


async def test_of_two_commits_racing_with_effects_only_the_winner_s_effects_land(store, redis, other):
    """Two processes commit a turn at the same version at once (two connections, ``asyncio.gather``), each with
    its own deadlines, announcement and interaction: exactly one gets version 2, and the database holds that one's
    record, deadlines, announcement and reply key — none of the other's. Ten rounds."""
    rival = GameStore(other)
    for round_ in range(10):
        await redis.flushdb()
        assert await store.commit(CHANNEL, game("g"), 0) == 1
        mine = answering(lambda: store.commit(CHANNEL, game("a"), 1, turn(2, "a")), interaction="1:a")
        theirs = answering(lambda: rival.commit(CHANNEL, game("b"), 1, turn(2, "b")), interaction="1:b")
        results = await asyncio.gather(mine, theirs)
        assert sorted(results, key=str) == [2, None], round_
        won = "a" if results[0] == 2 else "b"
        lost = "b" if won == "a" else "a"
        assert (await store.get(CHANNEL)).record.id == won
        data = await contents(redis)
        assert data["hongbot:deadlines"][1] == [(f"remind|7|{won}|2", 250.0), (f"forfeit|7|{won}|2", 500.0)]
        assert data["hongbot:outbox"][1] == [(f"turn|7|{won}|2|2|move", 15.0)]
        assert data[f"hongbot:{{ch:7}}:reply:turn|7|{won}|2|2|move"][1] == f"1:{won}"
        assert not [key for key in data if f"|{lost}|" in key]


async def test_a_commit_retried_after_its_reply_was_lost_is_reported_done_not_applied_twice(store, redis):
    """The same change sent again at the same expected version (its first reply was lost) finds the version one
    past it with its own document: the script reports the version it made (1), and the record stays at 1."""
    assert await store.commit(CHANNEL, game(), 0, turn()) == 1
    before = await contents(redis)
    assert await store.commit(CHANNEL, game(), 0, turn()) == 1
    assert await contents(redis) == before
    assert await store.commit(CHANNEL, game(name="Cy"), 0, turn()) is None  # another document at 0: refused
