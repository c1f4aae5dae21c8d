"""The emulator is as strict and as unreliable as Discord: injected faults, nonces, rate limits and Discord's other
limits, driven with aiohttp (to see the raw replies) and with discord.py's own HTTP client (to see the library react
as it would to Discord)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Dict, Optional

import aiohttp
import discord
import pytest
from discord.http import HTTPClient, Route, handle_message_parameters

from tests.emulator import DiscordEmulator


@pytest.fixture
async def emu() -> AsyncIterator[DiscordEmulator]:
    emulator = DiscordEmulator()
    await emulator.start()
    try:
        yield emulator
    finally:
        await emulator.stop()


class World:
    def __init__(self, emu: DiscordEmulator) -> None:
        self.gid = emu.create_guild('Limits Guild')
        self.cid = emu.create_channel(self.gid, 'general')
        self.other = emu.create_channel(self.gid, 'other')
        self.ann = emu.create_user('ann')
        emu.add_member(self.gid, self.ann)


@pytest.fixture
def world(emu: DiscordEmulator) -> World:
    return World(emu)


@pytest.fixture
async def raw(emu: DiscordEmulator) -> AsyncIterator[aiohttp.ClientSession]:
    """A plain aiohttp session authorised as the bot, to read the emulator's replies as they are."""
    async with aiohttp.ClientSession(headers={'Authorization': f'Bot {emu.token}'}) as session:
        yield session


@pytest.fixture
async def http(emu: DiscordEmulator) -> AsyncIterator[HTTPClient]:
    """discord.py's own REST client, logged in to the emulator (it reacts to 429s, 5xx and headers itself)."""
    client = HTTPClient(asyncio.get_running_loop())
    await client.static_login(emu.token)
    try:
        yield client
    finally:
        await client.close()


async def post(raw: aiohttp.ClientSession, emu: DiscordEmulator, channel_id: int, body: Dict[str, Any]
               ) -> aiohttp.ClientResponse:
    async with raw.post(f'{emu.api_base}/channels/{channel_id}/messages', json=body) as resp:
        await resp.read()
        return resp


async def post_json(raw: aiohttp.ClientSession, emu: DiscordEmulator, channel_id: int, body: Dict[str, Any]
                    ) -> tuple:
    async with raw.post(f'{emu.api_base}/channels/{channel_id}/messages', json=body) as resp:
        return resp.status, await resp.json(content_type=None)


# ============================================================================================
# faults
# ============================================================================================


async def test_502_after_the_effect_leaves_the_message_and_answers_502(emu: DiscordEmulator, world: World,
                                                                       raw: aiohttp.ClientSession) -> None:
    fault = emu.faults.add('POST', r'/channels/\d+/messages', status=502, when='after', times=1)
    status, body = await post_json(raw, emu, world.cid, {'content': 'first'})
    assert (status, body) == (502, {'message': '502: Bad Gateway', 'code': 0})
    assert [m.content for m in emu.messages(world.cid)] == ['first']  # the effect stands
    assert fault.hits == 1
    status, _ = await post_json(raw, emu, world.cid, {'content': 'second'})  # times=1: spent
    assert status == 200 and fault.hits == 1
    assert [m.content for m in emu.messages(world.cid)] == ['first', 'second']
    assert ('POST', f'/api/v10/channels/{world.cid}/messages', 502) in emu.requests


async def test_502_before_the_effect_makes_no_message(emu: DiscordEmulator, world: World,
                                                      raw: aiohttp.ClientSession) -> None:
    emu.faults.add('POST', r'/channels/\d+/messages', status=500, when='before')
    status, body = await post_json(raw, emu, world.cid, {'content': 'lost'})
    assert (status, body) == (500, {'message': '500: Internal Server Error', 'code': 0})
    assert emu.messages(world.cid) == []
    emu.faults.clear()
    status, _ = await post_json(raw, emu, world.cid, {'content': 'kept'})
    assert status == 200 and [m.content for m in emu.messages(world.cid)] == ['kept']


async def test_a_fault_matches_method_and_path_only(emu: DiscordEmulator, world: World,
                                                    raw: aiohttp.ClientSession) -> None:
    fault = emu.faults.add('POST', rf'/channels/{world.other}/messages', status=503, when='before')
    assert (await post_json(raw, emu, world.cid, {'content': 'here'}))[0] == 200
    async with raw.get(f'{emu.api_base}/channels/{world.other}') as resp:
        assert resp.status == 200
    assert (await post_json(raw, emu, world.other, {'content': 'there'}))[0] == 503
    assert fault.hits == 1
    fault.remove()
    assert (await post_json(raw, emu, world.other, {'content': 'there'}))[0] == 200
    any_method = emu.faults.add(None, rf'/channels/{world.cid}', status=504, when='before')
    async with raw.get(f'{emu.api_base}/channels/{world.cid}') as resp:
        assert resp.status == 504
    assert any_method.hits == 1


async def test_discord_py_retries_a_502_after_the_effect_and_posts_twice_without_a_nonce(
        emu: DiscordEmulator, world: World, http: HTTPClient) -> None:
    """What the bot meets on Discord: discord.py retries a 5xx by itself, so a post Discord made but answered 502
    for is made again — unless the nonce is enforced."""
    emu.faults.add('POST', r'/channels/\d+/messages', status=502, when='after', times=1)
    with handle_message_parameters(content='board') as params:
        await http.send_message(world.cid, params=params)
    assert [m.content for m in emu.messages(world.cid)] == ['board', 'board']


async def test_enforced_nonce_makes_the_retry_of_a_502_after_return_the_first_message(
        emu: DiscordEmulator, world: World, http: HTTPClient) -> None:
    emu.faults.add('POST', r'/channels/\d+/messages', status=502, when='after', times=1)
    with handle_message_parameters(content='board', nonce='b123-7') as params:  # discord.py sets enforce_nonce
        data = await http.send_message(world.cid, params=params)
    msgs = emu.messages(world.cid)
    assert [m.content for m in msgs] == ['board']
    assert data['id'] == str(msgs[0].id) and data['nonce'] == 'b123-7'


async def test_latency_is_added_before_the_reply(emu: DiscordEmulator, world: World,
                                                 raw: aiohttp.ClientSession) -> None:
    """A latency-only fault delays the reply; the request is served as usual. (Asserts the delay happened, not a
    speed: the reply can't come sooner than the injected latency.)"""
    fault = emu.faults.add('GET', r'/channels/\d+', status=None, delay=0.3, when='after')
    started = time.monotonic()
    async with raw.get(f'{emu.api_base}/channels/{world.cid}') as resp:
        assert resp.status == 200
        assert (await resp.json())['id'] == str(world.cid)
    assert time.monotonic() - started >= 0.3
    assert fault.hits == 1


async def test_latency_range_is_drawn_from_the_seeded_rng(emu: DiscordEmulator) -> None:
    fault = emu.faults.add(None, r'/.*', status=None, delay=(0.05, 0.1))
    draws = [fault.draw_delay() for _ in range(20)]
    assert all(0.05 <= d <= 0.1 for d in draws) and len(set(draws)) > 1


async def test_a_dropped_connection_gets_no_reply(emu: DiscordEmulator, world: World,
                                                  raw: aiohttp.ClientSession) -> None:
    emu.faults.add('POST', r'/channels/\d+/messages', status=None, drop=True, when='after', times=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(raw, emu, world.cid, {'content': 'made, unanswered'})
    assert [m.content for m in emu.messages(world.cid)] == ['made, unanswered']
    emu.faults.add('POST', r'/channels/\d+/messages', status=None, drop=True, when='before', times=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(raw, emu, world.cid, {'content': 'never made'})
    assert [m.content for m in emu.messages(world.cid)] == ['made, unanswered']
    assert ('POST', f'/api/v10/channels/{world.cid}/messages', 0) in emu.requests


async def test_probability_hits_a_seeded_share(emu: DiscordEmulator, world: World,
                                               raw: aiohttp.ClientSession) -> None:
    emu.faults.rng.seed(5)
    fault = emu.faults.add('GET', r'/channels/\d+', status=503, when='before', probability=0.5)
    statuses = []
    for _ in range(40):
        async with raw.get(f'{emu.api_base}/channels/{world.cid}') as resp:
            statuses.append(resp.status)
    assert statuses.count(503) == fault.hits
    assert 5 < fault.hits < 35 and statuses.count(200) == 40 - fault.hits


def test_impossible_faults_are_refused(emu: DiscordEmulator) -> None:
    with pytest.raises(ValueError):
        emu.faults.add('POST', r'/x', when='during')
    with pytest.raises(ValueError):
        emu.faults.add('POST', r'/x', status=None)
    with pytest.raises(ValueError):
        emu.faults.add('POST', r'/x', probability=1.5)


# ============================================================================================
# nonce and enforce_nonce
# ============================================================================================


async def test_enforce_nonce_returns_the_first_message(emu: DiscordEmulator, world: World,
                                                       raw: aiohttp.ClientSession) -> None:
    s1, first = await post_json(raw, emu, world.cid, {'content': 'one', 'nonce': 'n-1', 'enforce_nonce': True})
    s2, again = await post_json(raw, emu, world.cid, {'content': 'two', 'nonce': 'n-1', 'enforce_nonce': True})
    assert s1 == s2 == 200
    assert again['id'] == first['id'] and again['content'] == 'one' and again['nonce'] == 'n-1'
    assert [m.content for m in emu.messages(world.cid)] == ['one']


async def test_a_nonce_without_enforce_nonce_is_only_echoed(emu: DiscordEmulator, world: World,
                                                            raw: aiohttp.ClientSession) -> None:
    _, first = await post_json(raw, emu, world.cid, {'content': 'one', 'nonce': 42})
    _, second = await post_json(raw, emu, world.cid, {'content': 'two', 'nonce': 42})
    assert first['nonce'] == second['nonce'] == 42 and first['id'] != second['id']
    assert [m.content for m in emu.messages(world.cid)] == ['one', 'two']


async def test_an_enforced_nonce_is_forgotten_after_a_few_minutes() -> None:
    now = [1000.0]
    emu = DiscordEmulator(clock=lambda: now[0])
    await emu.start()
    try:
        w = World(emu)
        async with aiohttp.ClientSession(headers={'Authorization': f'Bot {emu.token}'}) as raw:
            body = {'content': 'hi', 'nonce': 'same', 'enforce_nonce': True}
            _, first = await post_json(raw, emu, w.cid, body)
            now[0] += 60
            _, again = await post_json(raw, emu, w.cid, body)
            assert again['id'] == first['id']
            now[0] += emu.nonces.window
            _, later = await post_json(raw, emu, w.cid, body)
            assert later['id'] != first['id']
            assert len(emu.messages(w.cid)) == 2
    finally:
        await emu.stop()


async def test_nonce_length_and_type_are_checked(emu: DiscordEmulator, world: World,
                                                 raw: aiohttp.ClientSession) -> None:
    status, body = await post_json(raw, emu, world.cid, {'content': 'x', 'nonce': 'n' * 26})
    assert status == 400 and body['code'] == 50035
    assert body['errors']['nonce']['_errors'][0]['code'] == 'BASE_TYPE_MAX_LENGTH'
    assert (await post_json(raw, emu, world.cid, {'content': 'x', 'nonce': 'n' * 25}))[0] == 200
    assert (await post_json(raw, emu, world.cid, {'content': 'x', 'nonce': 2 ** 63 - 1}))[0] == 200
    for bad in (2 ** 63, 1.5, ['a'], True):
        status, body = await post_json(raw, emu, world.cid, {'content': 'x', 'nonce': bad})
        assert status == 400 and 'nonce' in body['errors'], bad
    status, body = await post_json(raw, emu, world.cid, {'content': 'x', 'nonce': 'a', 'enforce_nonce': 'yes'})
    assert status == 400 and 'enforce_nonce' in body['errors']
    assert len(emu.messages(world.cid)) == 2
