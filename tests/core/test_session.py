"""The game layer against a real Redis: challenge → accept → moves → finish, refusals, races."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.games.hongkong import HONGKONG
from bot.core.errors import UserError
from bot.core.record import Player, Record, Result, Status
from bot.core.session import GameLayer, Person
from bot.storage.store import GameStore
from engine import IllegalMove
from engine.result import EndReason

ANN, BEN, CLEO = Person(1, "Ann"), Person(2, "Ben"), Person(3, "Cleo")
CH = 500


async def start(layer, first="me"):
    doc = await layer.challenge(
        HONGKONG, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={"first": first}
    )
    return await layer.accept(CH, doc.id, BEN)


async def test_challenge_accept_and_first_move(layer, store):
    doc, game = await start(layer)
    assert doc.status is Status.ACTIVE
    assert [p.id for p in doc.players] == [ANN.id, BEN.id]
    assert game.to_move == 0 and game.moves == []
    turn = await layer.play(HONGKONG, CH, ANN.id, "q@b2  s@b3")
    assert turn.move == "Q@B2 S@B3" and not turn.finished
    stored = await store.get(CH)
    assert stored.version == 3  # challenge, accept, move
    assert stored.record.state["moves"] == ["Q@B2 S@B3"]


async def test_first_them_makes_opponent_move_first(layer):
    doc, game = await start(layer, first="them")
    assert game.to_move == 1
    with pytest.raises(UserError, match="not your turn.*Ben"):
        await layer.play(HONGKONG, CH, ANN.id, "S@A1")


@pytest.mark.parametrize(
    "user, move, error, match",
    [
        (CLEO.id, "S@A1", UserError, "not playing in this game"),
        (BEN.id, "S@A1", UserError, "not your turn"),
        (ANN.id, "S@C3", IllegalMove, "centre"),
        (ANN.id, "S@F9", IllegalMove, "Can't read"),
        (ANN.id, "Q@A1", IllegalMove, "never a turn on its own"),
        (ANN.id, "", IllegalMove, "Can't read"),
    ],
)
async def test_refusals_leave_the_stored_game_untouched(layer, store, user, move, error, match):
    await start(layer)
    before = await store.raw(CH)
    with pytest.raises(error, match=match):
        await layer.play(HONGKONG, CH, user, move)
    assert await store.raw(CH) == before


async def test_no_game_and_double_challenge(layer, store):
    with pytest.raises(UserError, match="no game running"):
        await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    doc = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={})
    with pytest.raises(UserError, match="already an open Hong Kong challenge"):
        await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=CLEO, opponent=BEN, options={})
    with pytest.raises(
        UserError, match="The Hong Kong challenge here hasn't been accepted yet: the game starts when Ben accepts it."
    ):
        await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    with pytest.raises(UserError, match="Only Ben can accept"):
        await layer.accept(CH, doc.id, CLEO)
    with pytest.raises(UserError, match="your own challenge"):
        await layer.accept(CH, doc.id, ANN)
    await layer.accept(CH, doc.id, BEN)
    with pytest.raises(UserError, match="already running"):
        await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=CLEO, opponent=ANN, options={})
    with pytest.raises(UserError, match="challenge yourself"):
        await layer.challenge(HONGKONG, guild_id=9, channel_id=CH + 1, challenger=CLEO, opponent=CLEO, options={})


async def test_challenge_expires(layer, store, clock):
    doc = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={})
    assert await layer.expire(CH, doc.id) is None  # not yet
    clock.t += 601
    with pytest.raises(UserError, match="expired"):
        await layer.accept(CH, doc.id, BEN)
    # an expired challenge no longer blocks the channel
    again = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=CLEO, opponent=BEN, options={})
    assert again.id != doc.id
    clock.t += 601
    assert (await layer.expire(CH, again.id)).id == again.id
    assert await store.get(CH) is None


async def test_decline_and_withdraw(layer, store):
    doc = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={})
    with pytest.raises(UserError, match="Only the challenged player"):
        await layer.decline(CH, doc.id, CLEO.id)
    await layer.decline(CH, doc.id, BEN.id)
    assert await store.get(CH) is None
    doc = await layer.challenge(HONGKONG, guild_id=9, channel_id=CH, challenger=ANN, opponent=BEN, options={})
    await layer.decline(CH, doc.id, ANN.id)
    assert await store.get(CH) is None


async def test_resign_finishes_and_frees_the_channel(layer, store):
    doc, _ = await start(layer)
    turn = await layer.resign(HONGKONG, CH, BEN.id)
    assert turn.finished and turn.record.result.winner == 0 and turn.record.result.reason is EndReason.RESIGNED
    assert await store.get(CH) is None
    record = await store.finished(CH, doc.id)
    assert record.result.text == "Ben resigned: Ann wins."


async def test_full_game_to_the_end(layer, store):
    doc, game = await start(layer)
    rng = random.Random(3)
    turn = None
    while not game.is_over:
        user = doc.player(game.to_move).id
        move = rng.choice(game.legal_moves())
        turn = await layer.play(HONGKONG, CH, user, move)
        game.play(move)
    assert turn.finished
    record = await store.finished(CH, doc.id)
    assert record.state["moves"] == game.moves
    assert record.result.winner == game.winner
    assert await store.get(CH) is None


async def test_concurrent_moves_exactly_one_applies(layer, store, new_handle, clock):
    """Eight independent connections submit moves for the same turn at once: exactly one lands.

    Every submission reads the game before any commits (a barrier after the read), so all eight race on the
    same version: the worst case, made certain rather than left to scheduling.
    """
    doc, _ = await start(layer)
    barrier = asyncio.Barrier(8)

    class ReadThenWait(GameStore):
        async def get(self, channel_id):
            stored = await super().get(channel_id)
            await barrier.wait()
            return stored

    layers = [GameLayer(ReadThenWait(new_handle().client), {"hongkong": HONGKONG}, clock=clock) for _ in range(8)]
    moves = ["S@A1", "S@A2", "S@B1", "S@B2", "R@D4", "S@E5", "Q@A1 S@A1", "S@D1"]
    results = await asyncio.gather(
        *(lay.play(HONGKONG, CH, ANN.id, m) for lay, m in zip(layers, moves)), return_exceptions=True
    )
    landed = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(landed) == 1
    assert all(isinstance(r, UserError) for r in refused)
    assert all("game changed" in str(r) for r in refused)  # each lost the race at the atomic commit
    stored = await store.get(CH)
    assert stored.record.state["moves"] == [landed[0].move]
    assert stored.version == 3


def _challenge(game_id: str) -> Record:
    return Record(
        id=game_id,
        kind="hongkong",
        status=Status.CHALLENGE,
        guild_id=1,
        channel_id=7,
        challenger=1,
        opponent=None,
        players=(Player(1, "Ann"), None),
        expires=99.0,
    )


async def test_store_commit_is_compare_and_set(store):
    assert await store.commit(7, _challenge("a"), 0) == 1
    assert await store.commit(7, _challenge("b"), 0) is None
    assert await store.commit(7, _challenge("c"), 1) == 2
    assert await store.commit(7, _challenge("d"), 1) is None
    assert (await store.get(7)).record == _challenge("c")
    done = _challenge("c").replace(
        status=Status.FINISHED,
        ended=1.0,
        players=(Player(1, "Ann"), Player(2, "Ben")),
        state={},
        result=Result(0, EndReason.RESIGNED, "Ben resigned: Ann wins."),
    )
    assert await store.finish(7, done, 1) is False
    assert await store.finish(7, done, 2) is True
    assert await store.get(7) is None
    assert await store.finished(7, "c") == done


async def test_a_move_for_a_position_that_changed_is_refused(layer, store):
    doc, game = await start(layer)
    state = (await store.get(CH)).record.state
    await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    await layer.play(HONGKONG, CH, BEN.id, "S@E5")
    before = await store.raw(CH)
    with pytest.raises(UserError, match="position changed"):
        await layer.play(HONGKONG, CH, ANN.id, "S@B1", expected_state=state)
    assert await store.raw(CH) == before


async def test_a_move_after_the_deadline_is_refused(layer, store, clock):
    doc, _ = await start(layer)
    clock.t += 24 * 3600
    before = await store.raw(CH)
    with pytest.raises(UserError, match="time for this turn has run out"):
        await layer.play(HONGKONG, CH, ANN.id, "S@A1")
    assert await store.raw(CH) == before
    turn = await layer.forfeit(CH, doc.id, 0)
    assert turn.finished and turn.record.result.reason is EndReason.TIMEOUT and turn.record.result.winner == 1


async def test_takeback_needs_a_turn_of_your_own(layer):
    await start(layer)
    with pytest.raises(UserError, match="nothing to take back"):
        await layer.request_takeback(CH, ANN.id)


async def test_a_paired_game_starts_at_once_with_its_own_turn_timer(layer, store, clock):
    """A tournament's board: seats as given, no challenge, the tournament's turn timer (not the server's), and a
    second start in the same thread refused (no game started twice)."""
    record, game = await layer.start_paired(
        HONGKONG,
        guild_id=9,
        channel_id=CH,
        parent_id=40,
        players=(BEN, ANN),
        options={"first": 0},
        turn_timer=120.0,
    )
    assert [p.id for p in record.players] == [BEN.id, ANN.id] and game.to_move == 0
    assert record.status is Status.ACTIVE and record.parent_id == 40
    assert record.deadline == pytest.approx(clock() + 120.0)
    assert (await store.get(CH)).record == record
    assert Record.from_json(record.to_json()).turn_timer == 120.0
    with pytest.raises(UserError):
        await layer.start_paired(
            HONGKONG, guild_id=9, channel_id=CH, parent_id=40, players=(BEN, ANN), options={"first": 0}
        )
    turn = await layer.play(HONGKONG, CH, BEN.id, "S@B3")
    assert turn.record.deadline == pytest.approx(clock() + 120.0)
