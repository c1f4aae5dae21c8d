"""The parts of :mod:`bot.interface.discordhttp` that need no Discord: the fair gate's turns, what counts as a public follow-up,
:func:`post_once`'s decisions, and the posts' nonces."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.interface import discordhttp
from bot.interface.discordhttp import FairGate, PostUncertain, _ephemeral, post_once, share
from bot.storage.outbox import Announcement
from bot.interface.posts import NONCE_KINDS, nonce, post_nonce


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


async def test_the_gate_serves_waiting_servers_in_turn():
    gate = FairGate(rate=1000.0, burst=1)
    order: list[str] = []

    async def request(key: str) -> None:
        await gate.slot(key)
        order.append(key)

    busy = [asyncio.create_task(request("busy")) for _ in range(20)]
    await asyncio.sleep(0)  # the busy server's requests queue first
    other = [asyncio.create_task(request("other")) for _ in range(3)]
    await asyncio.gather(*busy, *other)
    # the other server's three requests are served within the first rounds, not after the busy server's twenty
    last_other = max(i for i, key in enumerate(order) if key == "other")
    assert last_other <= 7, order
    assert gate.started == {"busy": 20, "other": 3} and gate.waiting == 0


async def test_the_gate_lets_a_request_through_at_once_when_nothing_waits():
    clock = Clock()
    gate = FairGate(rate=2.0, burst=3, clock=clock)
    for _ in range(3):
        await asyncio.wait_for(gate.slot(1), 0.1)  # the bucket's three tokens
    waiter = asyncio.create_task(gate.slot(1))
    await asyncio.sleep(0.05)
    assert not waiter.done() and gate.waiting == 1
    clock.t += 0.5  # a token back at 2 a second
    await asyncio.wait_for(waiter, 2)
    assert gate.started == {1: 4}


async def test_a_cancelled_waiter_gives_its_turn_away():
    gate = FairGate(rate=50.0, burst=1)
    await gate.slot("a")
    first = asyncio.create_task(gate.slot("a"))
    second = asyncio.create_task(gate.slot("b"))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.wait_for(second, 2)
    assert gate.started == {"a": 1, "b": 1}


@pytest.mark.parametrize("shard_ids, count, budget", [((0,), 1, 40.0), ((0, 1), 4, 20.0), ((3,), 4, 10.0)])
def test_each_process_keeps_to_its_share_of_the_global_limit(shard_ids, count, budget):
    gate = share(shard_ids, count)
    assert gate.rate + gate.burst <= budget < discordhttp.DISCORD_GLOBAL
    assert gate.rate == pytest.approx(budget * 0.75)


def test_a_follow_up_is_ephemeral_by_its_flags_in_json_or_multipart():
    assert _ephemeral({"content": "x", "flags": 64}, None)
    assert not _ephemeral({"content": "x"}, None)
    assert not _ephemeral({"content": "x", "flags": 4}, None)  # suppress embeds only
    multipart = [{"name": "payload_json", "value": json.dumps({"flags": 64})}, {"name": "files[0]", "value": b""}]
    assert _ephemeral(None, multipart)
    assert not _ephemeral(None, [{"name": "payload_json", "value": json.dumps({"content": "board"})}])
    assert not _ephemeral(None, [{"name": "payload_json", "value": "not json"}])


async def test_post_once_sends_again_only_when_the_post_is_not_there():
    sent, answers = [], iter([False, True])

    async def send():
        sent.append(1)
        raise PostUncertain(None, cause=ConnectionResetError())

    async def made():
        return next(answers)

    assert await post_once(send, made, pause=0.001) is None  # second send uncertain too, then found
    assert len(sent) == 2


async def test_post_once_gives_up_when_it_cannot_tell():
    sent = []

    async def send():
        sent.append(1)
        raise PostUncertain(None, cause=ConnectionResetError())

    async def made():
        return None

    with pytest.raises(PostUncertain):
        await post_once(send, made, pause=0.001)
    assert len(sent) == 1


async def test_post_once_stops_after_its_tries():
    sent = []

    async def send():
        sent.append(1)
        raise PostUncertain(None, cause=ConnectionResetError())

    async def made():
        return False

    with pytest.raises(PostUncertain):
        await post_once(send, made, tries=3, pause=0.001)
    assert len(sent) == 3


def test_every_post_nonce_fits_discord_and_kinds_never_collide():
    game = "abcdefghijklmnop"  # the longest game id (16)
    nonces = {post_nonce(kind, game, 9999999) for kind in NONCE_KINDS}
    nonces |= {nonce(Announcement(what, 1, game, 9999999)) for what in ("turn", "result", "computer")}
    assert len(nonces) == len(NONCE_KINDS) + 3
    assert all(len(n) <= 25 for n in nonces)
    # a reminder at move 0 and the game's rating line are different posts
    assert post_nonce("p", game, 0) != nonce(Announcement.result(_Finished(game)))
    with pytest.raises(ValueError):
        post_nonce("x", game)


class _Finished:
    """Just what :meth:`Announcement.result` reads of a record."""

    def __init__(self, game_id: str) -> None:
        self.id, self.channel_id = game_id, 1
