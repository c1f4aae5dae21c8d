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
from discord.http import HTTPClient, handle_message_parameters

from tests.emulator import PERMISSIONS, DiscordEmulator


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
        self.gid = emu.create_guild("Limits Guild")
        self.cid = emu.create_channel(self.gid, "general")
        self.other = emu.create_channel(self.gid, "other")
        self.ann = emu.create_user("ann")
        emu.add_member(self.gid, self.ann)


@pytest.fixture
def world(emu: DiscordEmulator) -> World:
    return World(emu)


@pytest.fixture
async def raw(emu: DiscordEmulator) -> AsyncIterator[aiohttp.ClientSession]:
    """A plain aiohttp session authorised as the bot, to read the emulator's replies as they are."""
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.token}"}) as session:
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


async def post(
    raw: aiohttp.ClientSession, emu: DiscordEmulator, channel_id: int, body: Dict[str, Any]
) -> aiohttp.ClientResponse:
    async with raw.post(f"{emu.api_base}/channels/{channel_id}/messages", json=body) as resp:
        await resp.read()
        return resp


async def post_json(raw: aiohttp.ClientSession, emu: DiscordEmulator, channel_id: int, body: Dict[str, Any]) -> tuple:
    async with raw.post(f"{emu.api_base}/channels/{channel_id}/messages", json=body) as resp:
        return resp.status, await resp.json(content_type=None)


# ============================================================================================
# faults
# ============================================================================================


async def test_502_after_the_effect_leaves_the_message_and_answers_502(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    fault = emu.faults.add("POST", r"/channels/\d+/messages", status=502, when="after", times=1)
    status, body = await post_json(raw, emu, world.cid, {"content": "first"})
    assert (status, body) == (502, {"message": "502: Bad Gateway", "code": 0})
    assert [m.content for m in emu.messages(world.cid)] == ["first"]  # the effect stands
    assert fault.hits == 1
    status, _ = await post_json(raw, emu, world.cid, {"content": "second"})  # times=1: spent
    assert status == 200 and fault.hits == 1
    assert [m.content for m in emu.messages(world.cid)] == ["first", "second"]
    assert ("POST", f"/api/v10/channels/{world.cid}/messages", 502) in emu.requests


async def test_502_before_the_effect_makes_no_message(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    emu.faults.add("POST", r"/channels/\d+/messages", status=500, when="before")
    status, body = await post_json(raw, emu, world.cid, {"content": "lost"})
    assert (status, body) == (500, {"message": "500: Internal Server Error", "code": 0})
    assert emu.messages(world.cid) == []
    emu.faults.clear()
    status, _ = await post_json(raw, emu, world.cid, {"content": "kept"})
    assert status == 200 and [m.content for m in emu.messages(world.cid)] == ["kept"]


async def test_a_fault_matches_method_and_path_only(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    fault = emu.faults.add("POST", rf"/channels/{world.other}/messages", status=503, when="before")
    assert (await post_json(raw, emu, world.cid, {"content": "here"}))[0] == 200
    async with raw.get(f"{emu.api_base}/channels/{world.other}") as resp:
        assert resp.status == 200
    assert (await post_json(raw, emu, world.other, {"content": "there"}))[0] == 503
    assert fault.hits == 1
    fault.remove()
    assert (await post_json(raw, emu, world.other, {"content": "there"}))[0] == 200
    any_method = emu.faults.add(None, rf"/channels/{world.cid}", status=504, when="before")
    async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
        assert resp.status == 504
    assert any_method.hits == 1


async def test_discord_py_retries_a_502_after_the_effect_and_posts_twice_without_a_nonce(
    emu: DiscordEmulator, world: World, http: HTTPClient
) -> None:
    """What the bot meets on Discord: discord.py retries a 5xx by itself, so a post Discord made but answered 502
    for is made again — unless the nonce is enforced."""
    emu.faults.add("POST", r"/channels/\d+/messages", status=502, when="after", times=1)
    with handle_message_parameters(content="board") as params:
        await http.send_message(world.cid, params=params)
    assert [m.content for m in emu.messages(world.cid)] == ["board", "board"]


async def test_enforced_nonce_makes_the_retry_of_a_502_after_return_the_first_message(
    emu: DiscordEmulator, world: World, http: HTTPClient
) -> None:
    emu.faults.add("POST", r"/channels/\d+/messages", status=502, when="after", times=1)
    with handle_message_parameters(content="board", nonce="b123-7") as params:  # discord.py sets enforce_nonce
        data = await http.send_message(world.cid, params=params)
    msgs = emu.messages(world.cid)
    assert [m.content for m in msgs] == ["board"]
    assert data["id"] == str(msgs[0].id) and data["nonce"] == "b123-7"


async def test_latency_is_added_before_the_reply(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    """A latency-only fault delays the reply; the request is served as usual. (Asserts the delay happened, not a
    speed: the reply can't come sooner than the injected latency.)"""
    fault = emu.faults.add("GET", r"/channels/\d+", status=None, delay=0.3, when="after")
    started = time.monotonic()
    async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
        assert resp.status == 200
        assert (await resp.json())["id"] == str(world.cid)
    assert time.monotonic() - started >= 0.3
    assert fault.hits == 1


async def test_latency_range_is_drawn_from_the_seeded_rng(emu: DiscordEmulator) -> None:
    fault = emu.faults.add(None, r"/.*", delay=(0.05, 0.1))
    assert fault.status is None  # given only a delay: latency alone
    draws = [fault.draw_delay() for _ in range(20)]
    assert all(0.05 <= d <= 0.1 for d in draws) and len(set(draws)) > 1
    assert emu.faults.add(None, r"/.*").status == 502 and emu.faults.add(None, r"/.*", delay=1, drop=True).drop


async def test_a_dropped_connection_gets_no_reply(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    emu.faults.add("POST", r"/channels/\d+/messages", status=None, drop=True, when="after", times=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(raw, emu, world.cid, {"content": "made, unanswered"})
    assert [m.content for m in emu.messages(world.cid)] == ["made, unanswered"]
    emu.faults.add("POST", r"/channels/\d+/messages", status=None, drop=True, when="before", times=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await post(raw, emu, world.cid, {"content": "never made"})
    assert [m.content for m in emu.messages(world.cid)] == ["made, unanswered"]
    assert ("POST", f"/api/v10/channels/{world.cid}/messages", 0) in emu.requests


async def test_discord_py_does_not_retry_a_dropped_connection(
    emu: DiscordEmulator, world: World, http: HTTPClient
) -> None:
    """discord.py retries a reset only for errno 54/10054 (BSD/Windows ECONNRESET); a closed connection reaches the
    caller as aiohttp's ServerDisconnectedError — not a discord.HTTPException — with the effect done or not."""
    emu.faults.add("POST", r"/channels/\d+/messages", status=None, drop=True, when="after", times=1)
    with handle_message_parameters(content="made") as params, pytest.raises(aiohttp.ServerDisconnectedError):
        await http.send_message(world.cid, params=params)
    assert [m.content for m in emu.messages(world.cid)] == ["made"]


async def test_probability_hits_a_seeded_share(emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession) -> None:
    emu.faults.rng.seed(5)
    # loosened: 40 reads of one channel at once would spend its 5-per-5 s bucket; this test is about the faults
    emu.rate_limits.set_limit("GET", "/channels/{id}", 100, 1.0)
    fault = emu.faults.add("GET", r"/channels/\d+", status=503, when="before", probability=0.5)
    statuses = []
    for _ in range(40):
        async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
            statuses.append(resp.status)
    assert statuses.count(503) == fault.hits
    assert 5 < fault.hits < 35 and statuses.count(200) == 40 - fault.hits


def test_impossible_faults_are_refused(emu: DiscordEmulator) -> None:
    with pytest.raises(ValueError):
        emu.faults.add("POST", r"/x", when="during")
    with pytest.raises(ValueError):
        emu.faults.add("POST", r"/x", status=None)
    with pytest.raises(ValueError):
        emu.faults.add("POST", r"/x", probability=1.5)


# ============================================================================================
# nonce and enforce_nonce
# ============================================================================================


async def test_enforce_nonce_returns_the_first_message(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    s1, first = await post_json(raw, emu, world.cid, {"content": "one", "nonce": "n-1", "enforce_nonce": True})
    s2, again = await post_json(raw, emu, world.cid, {"content": "two", "nonce": "n-1", "enforce_nonce": True})
    assert s1 == s2 == 200
    assert again["id"] == first["id"] and again["content"] == "one" and again["nonce"] == "n-1"
    assert [m.content for m in emu.messages(world.cid)] == ["one"]


async def test_a_nonce_without_enforce_nonce_is_only_echoed(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    _, first = await post_json(raw, emu, world.cid, {"content": "one", "nonce": 42})
    _, second = await post_json(raw, emu, world.cid, {"content": "two", "nonce": 42})
    assert first["nonce"] == second["nonce"] == 42 and first["id"] != second["id"]
    assert [m.content for m in emu.messages(world.cid)] == ["one", "two"]


async def test_an_enforced_nonce_is_forgotten_after_a_few_minutes() -> None:
    now = [1000.0]
    emu = DiscordEmulator(clock=lambda: now[0])
    await emu.start()
    try:
        w = World(emu)
        async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emu.token}"}) as raw:
            body = {"content": "hi", "nonce": "same", "enforce_nonce": True}
            _, first = await post_json(raw, emu, w.cid, body)
            now[0] += 60
            _, again = await post_json(raw, emu, w.cid, body)
            assert again["id"] == first["id"]
            now[0] += emu.nonces.window
            _, later = await post_json(raw, emu, w.cid, body)
            assert later["id"] != first["id"]
            assert len(emu.messages(w.cid)) == 2
    finally:
        await emu.stop()


async def test_nonce_length_and_type_are_checked(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    # loosened: nine posts in a row to one channel would spend its 5-per-5 s bucket; this test is about the body
    emu.rate_limits.set_limit("POST", "/channels/{id}/messages", 50, 1.0)
    status, body = await post_json(raw, emu, world.cid, {"content": "x", "nonce": "n" * 26})
    assert status == 400 and body["code"] == 50035
    assert body["errors"]["nonce"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert (await post_json(raw, emu, world.cid, {"content": "x", "nonce": "n" * 25}))[0] == 200
    assert (await post_json(raw, emu, world.cid, {"content": "x", "nonce": 2**63 - 1}))[0] == 200
    for bad in (2**63, 1.5, ["a"], True):
        status, body = await post_json(raw, emu, world.cid, {"content": "x", "nonce": bad})
        assert status == 400 and "nonce" in body["errors"], bad
    status, body = await post_json(raw, emu, world.cid, {"content": "x", "nonce": "a", "enforce_nonce": "yes"})
    assert status == 400 and "enforce_nonce" in body["errors"]
    assert len(emu.messages(world.cid)) == 2


# ============================================================================================
# rate limits
# ============================================================================================


async def test_every_reply_carries_the_buckets_headers_counting_down(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    seen = []
    for i in range(5):
        resp = await post(raw, emu, world.cid, {"content": f"post {i}"})
        assert resp.status == 200
        h = resp.headers
        seen.append((h["X-RateLimit-Limit"], h["X-RateLimit-Remaining"], h["X-RateLimit-Bucket"], h["Via"]))
        assert 0 < float(h["X-RateLimit-Reset-After"]) <= 5.0
        assert abs(float(h["X-RateLimit-Reset"]) - (time.time() + float(h["X-RateLimit-Reset-After"]))) < 1.0
    bucket = seen[0][2]
    assert seen == [("5", str(4 - i), bucket, "1.1 google") for i in range(5)]
    other = await post(raw, emu, world.other, {"content": "another channel has its own bucket"})
    assert other.status == 200 and other.headers["X-RateLimit-Remaining"] == "4"
    assert other.headers["X-RateLimit-Bucket"] == bucket  # same route, same hash: the channel is the major parameter
    async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
        assert resp.headers["X-RateLimit-Bucket"] != bucket and resp.headers["X-RateLimit-Remaining"] == "4"


async def test_a_spent_bucket_answers_429_with_retry_after(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    for i in range(5):
        assert (await post(raw, emu, world.cid, {"content": f"post {i}"})).status == 200
    async with raw.post(f"{emu.api_base}/channels/{world.cid}/messages", json={"content": "one too many"}) as resp:
        body = await resp.json()
        h = resp.headers
    assert resp.status == 429
    assert set(body) == {"message", "retry_after", "global", "code"}
    assert body["message"] == "You are being rate limited." and body["global"] is False and body["code"] == 0
    assert 0 < body["retry_after"] <= 5.0
    assert h["X-RateLimit-Scope"] == "user" and h["Via"] == "1.1 google"
    assert int(h["Retry-After"]) >= body["retry_after"] and h["X-RateLimit-Remaining"] == "0"
    assert "X-RateLimit-Global" not in h
    assert len(emu.messages(world.cid)) == 5
    assert emu.ratelimited == [(f"POST /channels/{world.cid}/messages", "user", False)]
    assert emu.invalid_requests() == 1


async def test_discord_py_waits_out_a_429_and_then_succeeds(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession, http: HTTPClient
) -> None:
    # shortened window (2 per 1 s instead of 5 per 5 s) so the client's wait is short; the behaviour is the same
    emu.rate_limits.set_limit("POST", "/channels/{id}/messages", 2, 1.0)
    for i in range(2):  # another client spends the bucket: discord.py can't know, so it meets a 429
        assert (await post(raw, emu, world.cid, {"content": f"other {i}"})).status == 200
    with handle_message_parameters(content="after the wait") as params:
        data = await http.send_message(world.cid, params=params)
    assert data["content"] == "after the wait"
    assert [m.content for m in emu.messages(world.cid)] == ["other 0", "other 1", "after the wait"]
    assert emu.ratelimited == [(f"POST /channels/{world.cid}/messages", "user", False)]
    # from now on it reads the headers and waits before sending instead of meeting 429s
    for i in range(5):
        with handle_message_parameters(content=f"paced {i}") as params:
            await http.send_message(world.cid, params=params)
    assert len(emu.messages(world.cid)) == 8 and len(emu.ratelimited) == 1


async def test_discord_py_webhooks_wait_out_a_429_because_it_comes_with_via(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    """Interaction follow-ups go through discord.py's webhook adapter, which waits only on a 429 with ``Via`` (a
    429 without it is taken for a Cloudflare ban and raised). The unknown token answers 404 once served."""
    emu.rate_limits.set_limit("POST", "/webhooks/{id}/{token}", 2, 1.0)  # shortened window, as above
    url = f"{emu.api_base}/webhooks/{emu.application_id}/no-such-token"
    for _ in range(2):
        async with raw.post(url, json={"content": "x"}) as resp:
            assert resp.status == 404
    webhook = discord.Webhook.partial(emu.application_id, "no-such-token", session=raw)
    with pytest.raises(discord.NotFound):
        await webhook.send("follow-up")
    assert emu.ratelimited == [(f"POST /webhooks/{emu.application_id}/no-such-token", "user", False)]
    assert emu.not_found_requests() == 3


async def test_the_global_limit_spares_interaction_routes(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    # shrunk from 50 per 1 s to 10 per 5 s so a slow host can't spread the requests over two windows
    emu.rate_limits.global_limit, emu.rate_limits.global_per = 10, 5.0
    channels = [emu.create_channel(world.gid, f"c{i}") for i in range(12)]
    statuses = []
    for cid in channels:
        async with raw.get(f"{emu.api_base}/channels/{cid}") as resp:
            statuses.append(resp.status)
            if resp.status == 429:
                body, h = await resp.json(), resp.headers
    assert statuses == [200] * 10 + [429] * 2
    assert body["global"] is True and 0 < body["retry_after"] <= 5.0
    assert h["X-RateLimit-Global"] == "true" and h["X-RateLimit-Scope"] == "global" and h["Via"] == "1.1 google"
    assert emu.ratelimited[-1] == (f"GET /channels/{channels[-1]}", "global", True)
    # interaction callbacks and interaction webhooks are not bound to the global limit (served: unknown, 404)
    async with raw.post(f"{emu.api_base}/interactions/1/tok/callback", json={"type": 1}) as resp:
        assert resp.status == 404 and "X-RateLimit-Bucket" in resp.headers
    async with raw.post(f"{emu.api_base}/webhooks/{emu.application_id}/tok", json={"content": "x"}) as resp:
        assert resp.status == 404
    async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
        assert resp.status == 429


async def test_discord_py_waits_out_the_global_limit(emu: DiscordEmulator, world: World, http: HTTPClient) -> None:
    emu.rate_limits.global_limit, emu.rate_limits.global_per = 3, 1.0  # shrunk, so the test meets it at once
    channels = [emu.create_channel(world.gid, f"c{i}") for i in range(5)]
    for cid in channels:
        assert (await http.get_channel(cid))["id"] == str(cid)
    assert any(r.global_ for r in emu.ratelimited)


async def test_too_many_invalid_requests_bring_a_cloudflare_ban(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession, http: HTTPClient
) -> None:
    emu.rate_limits.invalid_request_limit = 5  # lowered from 10,000 so the test can reach it
    async with aiohttp.ClientSession(headers={"Authorization": "Bot wrong"}) as wrong:
        for _ in range(4):
            async with wrong.get(f"{emu.api_base}/channels/{world.cid}") as resp:
                assert resp.status == 401
    async with raw.get(f"{emu.api_base}/channels/1") as resp:  # 404s are counted apart
        assert resp.status == 404
    assert (emu.invalid_requests(), emu.not_found_requests()) == (4, 1)
    assert not emu.rate_limits.banned()
    # a resource's 429 (scope shared) is not counted against the bot
    emu.rate_limits.set_limit("POST", "/channels/{id}/typing", 1, 60.0, scope="shared")
    for expected in (204, 429):
        async with raw.post(f"{emu.api_base}/channels/{world.cid}/typing") as resp:
            assert resp.status == expected
            if expected == 429:
                assert resp.headers["X-RateLimit-Scope"] == "shared"
                assert (await resp.json())["message"] == "The resource is being rate limited."
    assert emu.invalid_requests() == 4
    ch = emu.create_channel(world.gid, "secret")
    await emu.set_permission_overwrite(ch, emu.application_id, deny=1 << 11)
    spec = getattr(emu, "spec", None)  # the emulator's conformance checks, where present (tests/emulator/spec.py)
    if spec is not None:
        spec.enabled = False  # Cloudflare's ban reply is not Discord's: Discord's spec doesn't describe it
    async with raw.post(f"{emu.api_base}/channels/{ch}/messages", json={"content": "x"}) as resp:
        assert resp.status == 403  # the fifth invalid request
    assert emu.rate_limits.banned()
    async with raw.get(f"{emu.api_base}/channels/{world.cid}") as resp:
        assert resp.status == 429 and resp.content_type == "text/plain" and "Via" not in resp.headers
        assert await resp.text() == "error code: 1015"
    with pytest.raises(discord.HTTPException) as caught:  # discord.py raises at once: it can't wait this out
        await http.get_channel(world.cid)
    assert caught.value.status == 429
    emu.rate_limits.lift_ban()
    assert (await http.get_channel(world.cid))["id"] == str(world.cid)


async def test_limits_can_be_turned_off_by_saying_so(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    emu.rate_limits.enabled = False  # this test is about what the emulator does without limits
    for i in range(8):
        resp = await post(raw, emu, world.cid, {"content": f"post {i}"})
        assert resp.status == 200 and "X-RateLimit-Limit" not in resp.headers
    assert emu.ratelimited == []


# ============================================================================================
# Discord's other limits: follow-ups, hour-old edits, slowmode, snowflakes
# ============================================================================================


class FollowUpBot(discord.Client):
    """A minimal bot: ``/many count`` defers, then sends ``count`` follow-ups, noting each outcome."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = discord.app_commands.CommandTree(self)
        self.guild_id = guild_id
        self.outcomes: list = []

        @self.tree.command(name="many", description="many follow-ups")
        async def many(interaction: discord.Interaction, count: int) -> None:
            await interaction.response.defer()
            for i in range(count):
                try:
                    await interaction.followup.send(f"follow-up {i}")
                    self.outcomes.append("sent")
                except discord.HTTPException as exc:
                    self.outcomes.append((exc.status, exc.code))

    async def setup_hook(self) -> None:
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


async def run_many(emu: DiscordEmulator, world: World, count: int) -> list:
    bot = FollowUpBot(world.gid)
    task = asyncio.create_task(bot.start(emu.token))
    try:
        await emu.wait_for_ready()
        await emu.wait_for_commands()
        it = await emu.slash(world.ann, world.cid, "many", count=count)
        await it.wait_followups(min(count, emu.followup_limit or count), timeout=30)
        for _ in range(300):
            if len(bot.outcomes) == count:
                break
            await asyncio.sleep(0.05)
        return bot.outcomes
    finally:
        await bot.close()
        await asyncio.wait_for(task, timeout=10)


async def test_follow_ups_are_capped_for_a_user_installed_app(emu: DiscordEmulator, world: World) -> None:
    emu.followup_limit = 5  # model a user-installed app that isn't installed in the server (Discord's cap: 5)
    outcomes = await run_many(emu, world, 6)
    assert outcomes == ["sent"] * 5 + [(400, 40094)]
    assert [e.code for e in emu.errors] == [40094]


async def test_follow_ups_of_an_app_installed_in_the_server_are_not_capped(emu: DiscordEmulator, world: World) -> None:
    assert emu.followup_limit is None
    outcomes = await run_many(emu, world, 7)  # 7 follow-ups: the 5-per-2 s webhook bucket makes the client wait
    assert outcomes == ["sent"] * 7 and emu.errors == []


async def test_editing_a_message_older_than_an_hour_is_refused_with_30046() -> None:
    now = [1000.0]
    emu = DiscordEmulator(clock=lambda: now[0])
    await emu.start()
    try:
        w = World(emu)
        client = HTTPClient(asyncio.get_running_loop())
        await client.static_login(emu.token)
        try:
            with handle_message_parameters(content="board") as params:
                msg = await client.send_message(w.cid, params=params)
            now[0] += 3599
            with handle_message_parameters(content="still young") as params:
                await client.edit_message(w.cid, msg["id"], params=params)
            now[0] += 2
            with handle_message_parameters(content="too old") as params, pytest.raises(discord.HTTPException) as caught:
                await client.edit_message(w.cid, msg["id"], params=params)
            assert (caught.value.status, caught.value.code) == (429, 30046)  # raised at once, not waited on
            assert caught.value.response.headers.get("Via") is None
            assert emu.message(int(msg["id"])).content == "still young"
            emu.old_message_edits = 1  # Discord lets an unpublished number through; this test allows one
            with handle_message_parameters(content="one allowed") as params:
                await client.edit_message(w.cid, msg["id"], params=params)
            with handle_message_parameters(content="then refused") as params, pytest.raises(discord.HTTPException):
                await client.edit_message(w.cid, msg["id"], params=params)
            assert emu.message(int(msg["id"])).content == "one allowed"
        finally:
            await client.close()
    finally:
        await emu.stop()


async def test_slowmode_binds_users_but_not_the_bot(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession, http: HTTPClient
) -> None:
    await emu.set_slowmode(world.cid, 30)
    assert emu.channel(world.cid)["rate_limit_per_user"] == 30
    await emu.post_message(world.ann, world.cid, "hello")
    with pytest.raises(Exception, match="slowmode"):
        await emu.post_message(world.ann, world.cid, "again")
    for i in range(3):  # Discord: "bots ... are unaffected"
        with handle_message_parameters(content=f"bot {i}") as params:
            await http.send_message(world.cid, params=params)
    assert len(emu.messages(world.cid)) == 4


async def test_slowmode_bound_to_the_bot_answers_429_20016_and_discord_py_waits(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession, http: HTTPClient
) -> None:
    emu.slowmode_applies_to_bots = True  # models reports of bots meeting slowmode, against the docs
    await emu.set_slowmode(world.cid, 1)
    # Manage Messages (which the bot has by default) exempts anyone from slowmode: take it away here
    await emu.set_permission_overwrite(world.cid, emu.application_id, deny=PERMISSIONS["manage_messages"])
    assert (await post(raw, emu, world.cid, {"content": "first"})).status == 200
    status, body = await post_json(raw, emu, world.cid, {"content": "second"})
    assert status == 429 and body["code"] == 20016 and 0 < body["retry_after"] <= 1
    with handle_message_parameters(content="after the wait") as params:
        await http.send_message(world.cid, params=params)
    assert [m.content for m in emu.messages(world.cid)] == ["first", "after the wait"]


@pytest.mark.parametrize(
    "method,path,body,field",
    [
        ("POST", "/channels/abc/messages", {"content": "x"}, "channel_id"),
        ("GET", "/channels/{cid}/messages/12ab", None, "message_id"),
        ("GET", "/guilds/-1", None, "guild_id"),
        ("GET", "/channels/99999999999999999999999", None, "channel_id"),
        ("POST", "/interactions/x/tok/callback", {"type": 1}, "interaction_id"),
        ("GET", "/channels/{cid}/messages?limit=ten", None, "limit"),
        ("GET", "/channels/{cid}/messages?before=yesterday", None, "before"),
    ],
)
async def test_a_bad_snowflake_is_refused_with_50035(
    emu: DiscordEmulator,
    world: World,
    raw: aiohttp.ClientSession,
    method: str,
    path: str,
    body: Optional[dict],
    field: str,
) -> None:
    async with raw.request(method, emu.api_base + path.format(cid=world.cid), json=body) as resp:
        data = await resp.json()
    assert resp.status == 400 and data["code"] == 50035
    assert data["errors"][field]["_errors"][0]["code"] == "NUMBER_TYPE_COERCE"
    assert not [e for e in emu.errors if e.kind == "internal"]


async def test_a_bad_message_reference_is_refused_with_50035(
    emu: DiscordEmulator, world: World, raw: aiohttp.ClientSession
) -> None:
    status, data = await post_json(raw, emu, world.cid, {"content": "x", "message_reference": {"message_id": "abc"}})
    assert status == 400 and "message_id" in data["errors"]["message_reference"]
    status, data = await post_json(raw, emu, world.cid, {"content": "x", "message_reference": "abc"})
    assert status == 400 and "message_reference" in data["errors"]


async def test_latency_before_the_callback_counts_against_the_3_s_deadline(emu: DiscordEmulator, world: World) -> None:
    """Latency on the way to Discord spends the interaction's 3 s: a deferral that arrives later is refused
    (10062); latency on the way back (``when='after'``) does not (the deferral was made)."""
    bot = FollowUpBot(world.gid)
    task = asyncio.create_task(bot.start(emu.token))
    try:
        await emu.wait_for_ready()
        await emu.wait_for_commands()
        slow_in = emu.faults.add(
            "POST", r"/interactions/\d+/[^/]+/callback", status=None, delay=3.2, when="before", times=1
        )
        late = await emu.slash(world.ann, world.cid, "many", count=1)
        await emu.wait_for_error(lambda e: e.interaction_id == late.id, timeout=15)
        assert slow_in.hits == 1 and [e.code for e in emu.errors] == [10062]
        slow_out = emu.faults.add(
            "POST", r"/interactions/\d+/[^/]+/callback", status=None, delay=1.0, when="after", times=1
        )
        fine = await emu.slash(world.ann, world.cid, "many", count=1)
        assert (await fine.wait_followups(1, timeout=15))[0].content == "follow-up 0"
        assert slow_out.hits == 1 and len(emu.errors) == 1
    finally:
        await bot.close()
        await asyncio.wait_for(task, timeout=10)
