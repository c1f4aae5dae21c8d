"""The emulator's gateway faults, each seen at the wire (what the server sends, and when) with a raw websocket client,
then through a real discord.py client (that it notices and RESUMEs or IDENTIFYs, and no interaction is lost).

Discord's rules: https://discord.com/developers/docs/events/gateway (heartbeats, heartbeat requests, zombie
connections, rate limiting, resuming) and its close codes (4008 Rate limited, 4009 Session timed out).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Dict, List, Optional

import aiohttp
import discord
import pytest

from tests.emulator import DiscordEmulator, EmulatorAssertion, EmulatorTimeout

from .test_server import EmuBot, running_bot

pytestmark = pytest.mark.timeout(120)


class Raw:
    """A bare gateway client: JSON text frames, no compression, heartbeats only when the test sends them."""

    def __init__(self, emu: DiscordEmulator) -> None:
        self.emu = emu
        self.http: Optional[aiohttp.ClientSession] = None
        self.ws: Optional[aiohttp.ClientWebSocketResponse] = None
        self.seq: Optional[int] = None
        self.session_id: Optional[str] = None
        self.hello: Dict[str, Any] = {}

    async def open(self) -> Dict[str, Any]:
        """Connect; returns HELLO's ``d``."""
        if self.http is None:
            self.http = aiohttp.ClientSession()
        self.ws = await self.http.ws_connect(f"{self.emu.gateway_url}?v=10&encoding=json", autoclose=False)
        hello = await self.recv()
        assert hello is not None and hello["op"] == 10
        self.hello = hello["d"]
        return self.hello

    async def recv(self, timeout: float = 5.0) -> Optional[Dict[str, Any]]:
        """The next payload, or None once the connection is closed (then ``self.ws.close_code`` says how)."""
        assert self.ws is not None
        msg = await self.ws.receive(timeout=timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            return None
        payload = msg.json()
        if payload.get("s") is not None:
            self.seq = payload["s"]
        return payload

    async def until(self, predicate, timeout: float = 5.0) -> List[Dict[str, Any]]:
        """Payloads up to and including the first ``predicate`` accepts (AssertionError if the connection closes)."""
        seen = []
        while True:
            payload = await self.recv(timeout)
            assert payload is not None, f"closed ({self.ws.close_code}) before a match; seen {seen}"
            seen.append(payload)
            if predicate(payload):
                return seen

    async def send(self, op: int, d: Any) -> None:
        assert self.ws is not None
        await self.ws.send_json({"op": op, "d": d})

    async def identify(self, intents: int = 1) -> List[Dict[str, Any]]:
        """IDENTIFY; returns the dispatches up to READY (its guilds come after)."""
        await self.send(2, {"token": self.emu.token, "intents": intents, "properties": {}})
        seen = await self.until(lambda p: p.get("t") == "READY")
        self.session_id = seen[-1]["d"]["session_id"]
        return seen

    async def resume(self) -> List[Dict[str, Any]]:
        """RESUME on a fresh connection with the last sequence number seen; returns what came up to RESUMED."""
        await self.open()
        await self.send(6, {"token": self.emu.token, "session_id": self.session_id, "seq": self.seq})
        return await self.until(lambda p: p.get("t") == "RESUMED" or p["op"] == 9)

    async def close(self, code: int = 4000) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close(code=code)

    async def aclose(self) -> None:
        await self.close()
        if self.http is not None:
            await self.http.close()


@pytest.fixture
async def raw_emu() -> AsyncIterator[DiscordEmulator]:
    """An emulator with a short heartbeat interval (250 ms, grace 150 ms) and one guild with one channel."""
    emulator = DiscordEmulator(heartbeat_interval_ms=250, heartbeat_grace_ms=150)
    await emulator.start()
    emulator.gid = emulator.create_guild("Gateway Guild")  # type: ignore[attr-defined]
    emulator.cid = emulator.create_channel(emulator.gid, "general")  # type: ignore[attr-defined]
    try:
        yield emulator
    finally:
        await emulator.stop()


@pytest.fixture
async def raw(raw_emu: DiscordEmulator) -> AsyncIterator[Raw]:
    client = Raw(raw_emu)
    try:
        yield client
    finally:
        await client.aclose()


def kinds(payloads: List[Dict[str, Any]]) -> List[Any]:
    """op for non-dispatches, event name for dispatches."""
    return [p["t"] if p["op"] == 0 else p["op"] for p in payloads]


# ============================================================================================
# heartbeats
# ============================================================================================


async def test_hello_gives_the_interval_and_each_heartbeat_is_acked(raw_emu: DiscordEmulator, raw: Raw) -> None:
    hello = await raw.open()
    assert hello["heartbeat_interval"] == 250
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw.send(1, raw.seq)
    assert kinds(await raw.until(lambda p: p["op"] == 11)) == [11]
    conn = raw_emu.gateway.connections[-1]
    assert conn.heartbeats == 1 and conn.acks == 1 and conn.heartbeat_log[-1][1] == raw.seq == 2


async def test_a_connection_that_keeps_heartbeating_stays_open(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.identify()
    for _ in range(6):  # 6 intervals, a heartbeat each
        await asyncio.sleep(0.2)
        await raw.send(1, raw.seq)
        await raw.until(lambda p: p["op"] == 11)
    assert not raw.ws.closed and raw_emu.connected
    assert [e for e in raw_emu.errors if e.kind == "gateway"] == []


async def test_a_connection_that_misses_heartbeats_is_closed_with_4009_and_stays_resumable(
    raw_emu: DiscordEmulator, raw: Raw
) -> None:
    await raw.open()
    await raw.send(1, None)
    await raw.until(lambda p: p["op"] == 11)
    last = time.monotonic()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    assert await raw.recv(timeout=5) is None  # no heartbeat sent after the first: the server closes
    closed_after = time.monotonic() - last
    assert raw.ws.close_code == 4009
    assert closed_after >= (250 + 150) / 1000 - 0.02  # not before the interval and its grace were over
    assert "no heartbeat for" in str(raw_emu.errors[-1]) and raw_emu.errors[-1].kind == "gateway"
    session = raw_emu.sessions[0]
    assert not session.invalidated and session.expect_resume
    # an event while away is buffered and replayed on RESUME, then RESUMED
    await raw_emu._broadcast("GUILD_UPDATE", raw_emu._guild_payload(raw_emu.gid), raw_emu.gid)
    replayed = await raw.resume()
    assert kinds(replayed) == ["GUILD_UPDATE", "RESUMED"]
    assert session.resumes == 1 and not session.expect_resume and session.live


async def test_op_1_asks_for_a_heartbeat_at_once_and_waits_for_the_answer(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    asked = asyncio.create_task(raw_emu.request_heartbeat())
    request = await raw.until(lambda p: p["op"] == 1)
    assert request[-1] == {"op": 1, "d": None, "s": None, "t": None}
    assert not asked.done()
    await raw.send(1, raw.seq)
    assert await asked == raw.seq == 2  # the answer carries the last sequence number the client had
    assert kinds(await raw.until(lambda p: p["op"] == 11)) == [11]  # and is ACKed like any heartbeat
    # a client that does not answer: the request times out
    other = asyncio.create_task(raw_emu.request_heartbeat(timeout=0.1))
    with pytest.raises(EmulatorTimeout, match="a heartbeat answering op 1"):
        await other


# ============================================================================================
# rate limit, payload size
# ============================================================================================


async def test_more_than_120_payloads_in_a_minute_close_the_connection_with_4008(
    raw_emu: DiscordEmulator, raw: Raw
) -> None:
    await raw.open()
    await raw.identify()  # payload 1
    for _ in range(119):  # payloads 2..120: all answered
        await raw.send(1, raw.seq)
    received = []
    while received.count(11) < 119:
        received.append((await raw.recv())["op"])
    await raw.send(1, raw.seq)  # the 121st within 60 s
    assert await raw.recv() is None and raw.ws.close_code == 4008
    assert "more than 120 payloads in 60s" in str(raw_emu.errors[-1])
    assert kinds(await raw.resume())[-1] == "RESUMED"  # 4008 does not end the session


async def test_a_payload_over_4096_bytes_is_closed_with_4002(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.send(2, {"token": raw_emu.token, "intents": 1, "properties": {"os": "x" * 5000}})
    assert await raw.recv() is None and raw.ws.close_code == 4002
    assert "at most 4096" in str(raw_emu.errors[-1])


async def test_a_malformed_payload_is_closed_with_4002(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.ws.send_str("[1, 2]")
    assert await raw.recv() is None and raw.ws.close_code == 4002
    assert "not a payload object" in str(raw_emu.errors[-1])
    for bad in ({"op": 2, "d": [1]}, {"op": 6, "d": "resume"}):
        await raw.open()
        await raw.ws.send_json(bad)
        assert await raw.recv() is None and raw.ws.close_code == 4002
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw.close(4000)
    await raw.open()
    await raw.send(6, {"token": raw_emu.token, "session_id": raw.session_id, "seq": "two"})
    assert await raw.recv() is None and raw.ws.close_code == 4002
    assert [e.kind for e in raw_emu.errors] == ["gateway"] * 4


# ============================================================================================
# zombie connections
# ============================================================================================


async def test_a_zombie_connection_gets_no_ack_and_no_event_and_resume_replays_them(
    raw_emu: DiscordEmulator, raw: Raw
) -> None:
    emu = DiscordEmulator(heartbeat_interval_ms=60_000)  # no server-side heartbeat deadline in the way
    await emu.start()
    try:
        gid = emu.create_guild("Zombie Guild")
        client = Raw(emu)
        await client.open()
        await client.identify()
        await client.until(lambda p: p.get("t") == "GUILD_CREATE")
        emu.stop_heartbeat_acks()
        await client.send(1, client.seq)
        await emu._broadcast("GUILD_UPDATE", emu._guild_payload(gid), gid)
        with pytest.raises(asyncio.TimeoutError):  # nothing at all: no ACK, no GUILD_UPDATE
            await client.recv(timeout=0.5)
        conn = emu.gateway.connections[-1]
        assert conn.heartbeats == 1 and conn.acks == 0 and [p["t"] for p in conn.held] == ["GUILD_UPDATE"]
        # the client does what Discord asks: close with a code other than 1000/1001, then RESUME
        await client.close(4000)
        replayed = await client.resume()
        assert kinds(replayed) == ["GUILD_UPDATE", "RESUMED"]
        assert replayed[0]["s"] == 3 and replayed[1]["s"] == 4  # READY 1, GUILD_CREATE 2: nothing skipped or doubled
        await client.send(1, client.seq)
        assert kinds(await client.until(lambda p: p["op"] == 11)) == [11]  # the new connection is healthy
        await client.aclose()
    finally:
        await emu.stop()


async def test_a_zombie_spell_that_ends_sends_what_it_held_in_order(raw: Raw) -> None:
    emu = DiscordEmulator(heartbeat_interval_ms=60_000)
    await emu.start()
    try:
        gid = emu.create_guild("Spell Guild")
        client = Raw(emu)
        await client.open()
        await client.identify()
        await client.until(lambda p: p.get("t") == "GUILD_CREATE")
        emu.stop_heartbeat_acks()
        await emu._broadcast("GUILD_UPDATE", emu._guild_payload(gid), gid)
        await client.send(1, client.seq)  # no ACK for this one, ever
        await emu._broadcast("GUILD_UPDATE", emu._guild_payload(gid), gid)
        await asyncio.sleep(0.2)
        await emu.resume_heartbeat_acks()
        got = await client.until(lambda p: p.get("s") == 4)
        assert kinds(got) == ["GUILD_UPDATE", "GUILD_UPDATE"] and [p["s"] for p in got] == [3, 4]
        await client.send(1, client.seq)
        assert kinds(await client.until(lambda p: p["op"] == 11)) == [11]
        # called without await (as stop_heartbeat_acks is), it still sends what was held
        emu.stop_heartbeat_acks()
        await emu._broadcast("GUILD_UPDATE", emu._guild_payload(gid), gid)
        emu.resume_heartbeat_acks()
        assert [p["s"] for p in await client.until(lambda p: p.get("s") == 5)] == [5]
        # acks-only: events still flow, ACKs don't
        emu.stop_heartbeat_acks(hold_events=False)
        await client.send(1, client.seq)
        await emu._broadcast("GUILD_UPDATE", emu._guild_payload(gid), gid)
        assert kinds([await client.recv()]) == ["GUILD_UPDATE"]
        assert emu.gateway.connections[-1].acks == 1
        await client.aclose()
    finally:
        await emu.stop()


# ============================================================================================
# drops, op 7, op 9
# ============================================================================================


async def test_a_1006_drop_closes_tcp_without_a_close_frame_and_resume_replays(
    raw_emu: DiscordEmulator, raw: Raw
) -> None:
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw.send(1, raw.seq)
    await raw.until(lambda p: p["op"] == 11)
    await raw_emu.drop_connection(1006)
    msg = await raw.ws.receive(timeout=5)
    assert msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)  # no CLOSE frame came
    assert raw.ws.close_code == 1006
    session = raw_emu.sessions[0]
    assert not session.live and session.expect_resume and not session.invalidated
    await raw_emu._broadcast("GUILD_UPDATE", raw_emu._guild_payload(raw_emu.gid), raw_emu.gid)  # kept for RESUME
    assert kinds(await raw.resume()) == ["GUILD_UPDATE", "RESUMED"]


async def test_drop_with_4008_keeps_the_session(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw_emu.drop_connection(4008)
    assert await raw.recv() is None and raw.ws.close_code == 4008
    assert kinds(await raw.resume())[-1] == "RESUMED"


async def test_op_7_and_op_9(raw_emu: DiscordEmulator, raw: Raw) -> None:
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw_emu.request_reconnect()
    assert (await raw.recv())["op"] == 7
    await raw.close(4000)
    assert kinds(await raw.resume()) == ["RESUMED"]
    await raw_emu.invalidate_session(resumable=True)
    assert await raw.recv() == {"op": 9, "d": True, "s": None, "t": None}
    await raw.close(4000)
    assert kinds(await raw.resume()) == ["RESUMED"]
    await raw_emu.invalidate_session()
    assert await raw.recv() == {"op": 9, "d": False, "s": None, "t": None}
    await raw.close(1000)
    assert kinds(await raw.resume()) == [9]  # that session is gone: a RESUME is refused with op 9 d=false
    assert raw_emu.sessions[0].invalidated


# ============================================================================================
# guild outages
# ============================================================================================


async def test_a_guild_outage_is_announced_refuses_interactions_and_rest_and_ends_with_guild_create(
    raw_emu: DiscordEmulator, raw: Raw
) -> None:
    gid, cid = raw_emu.gid, raw_emu.cid
    user = raw_emu.create_user("ann")
    raw_emu.add_member(gid, user)
    await raw.open()
    await raw.identify()
    await raw.until(lambda p: p.get("t") == "GUILD_CREATE")
    await raw_emu.guild_outage(gid)
    assert (await raw.recv())["d"] == {"id": str(gid), "unavailable": True}
    assert raw_emu.in_outage(gid) and raw_emu.in_guild(gid)  # unavailable, not left
    with pytest.raises(EmulatorAssertion, match="outage"):
        await raw_emu.slash(user, cid, "anything")
    raw_emu.create_channel(gid, "quiet")  # no CHANNEL_CREATE while the guild is out
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {raw_emu.token}"}) as http:
        for path in (f"/channels/{cid}", f"/guilds/{gid}", f"/channels/{cid}/messages"):
            async with http.get(raw_emu.api_base + path) as reply:
                assert reply.status == 503
                assert await reply.json() == {"message": "503: Service Unavailable", "code": 0}
    assert {e.kind for e in raw_emu.errors} == {"outage"}
    # a client identifying during the outage gets the guild unavailable
    other = Raw(raw_emu)
    await other.open()
    seen = await other.identify()
    assert seen[-1]["d"]["guilds"] == [{"id": str(gid), "unavailable": True}]
    assert (await other.recv())["d"] == {"id": str(gid), "unavailable": True}
    await raw_emu.end_guild_outage(gid)
    for client in (raw, other):
        back = await client.until(lambda p: p.get("t") == "GUILD_CREATE")
        assert back[-1]["d"]["unavailable"] is False and back[-1]["d"]["id"] == str(gid)
        assert [c["name"] for c in back[-1]["d"]["channels"]] == ["general", "quiet"]
    assert not raw_emu.in_outage(gid)
    await other.aclose()


# ============================================================================================
# a real discord.py client through each fault
# ============================================================================================


class QuickBot(EmuBot):
    """discord.py's own client; notices a silent connection after 1.5 s (``heartbeat_timeout``)."""

    def __init__(self, label: str, **options: Any) -> None:
        super().__init__(label, heartbeat_timeout=1.5, **options)


@pytest.fixture
async def live() -> AsyncIterator[Any]:
    emu = DiscordEmulator(heartbeat_interval_ms=500, heartbeat_grace_ms=2000)
    await emu.start()
    gid = emu.create_guild("Live Guild")
    cid = emu.create_channel(gid, "general")
    ann = emu.create_user("ann")
    emu.add_member(gid, ann)
    bot = QuickBot("quick")
    async with running_bot(emu, bot=bot):
        await emu.wait_for_commands()
        yield emu, bot, gid, cid, ann
    await emu.stop()


async def whoami(emu: DiscordEmulator, cid: int, user: Dict[str, Any]) -> str:
    it = await emu.slash(user, cid, "whoami")
    return (await it.wait_done()).content


async def test_discord_py_answers_op_1_with_its_sequence(live) -> None:
    emu, bot, gid, cid, ann = live
    assert await whoami(emu, cid, ann) == "I am quick"
    session = emu.sessions[-1]
    assert await emu.request_heartbeat() == session.seq
    assert emu.errors == []


async def test_discord_py_notices_a_zombie_resumes_and_answers_again(live) -> None:
    emu, bot, gid, cid, ann = live
    session = emu.sessions[-1]
    zombie = session.conn
    beats, acks = zombie.heartbeats, zombie.acks
    emu.stop_heartbeat_acks()
    await emu._wait_until(lambda: session.resumes == 1 and session.live, 15, lambda: "a RESUME after the zombie")
    assert len(emu.sessions) == 1 and session.conn is not zombie  # resumed on a new connection, not identified again
    assert zombie.heartbeats > beats and zombie.acks == acks and zombie.closed  # it kept beating, got no ACK
    assert await whoami(emu, cid, ann) == "I am quick"
    assert emu.errors == []


@pytest.mark.parametrize("fault", ["drop 1006", "drop 4008", "drop 4000", "op 7", "op 9 resumable"])
async def test_an_interaction_sent_while_the_bot_is_away_is_replayed_and_answered(live, fault: str) -> None:
    emu, bot, gid, cid, ann = live
    session = emu.sessions[-1]
    if fault.startswith("drop"):
        await emu.drop_connection(int(fault.split()[1]))
    elif fault == "op 7":
        await emu.request_reconnect()
    else:
        await emu.invalidate_session(resumable=True)
    it = await emu.slash(ann, cid, "whoami")  # at once: the bot is away or leaving
    assert (await it.wait_done()).content == "I am quick"
    await emu._wait_until(lambda: session.resumes == 1, 10, lambda: "a RESUME")
    assert len(emu.sessions) == 1 and session.live
    assert session.replayed >= 1  # the interaction came again on the RESUME: the bot never had it before
    assert await whoami(emu, cid, ann) == "I am quick"
    assert emu.errors == []


async def test_after_op_9_not_resumable_discord_py_identifies_again(live) -> None:
    emu, bot, gid, cid, ann = live
    first = emu.sessions[-1]
    await emu.invalidate_session()
    second = await emu.wait_for_ready(timeout=15)
    assert first.invalidated and second is not first
    assert await whoami(emu, cid, ann) == "I am quick"


async def test_discord_py_keeps_an_unavailable_guild_and_gets_it_back(live) -> None:
    emu, bot, gid, cid, ann = live
    removed: List[int] = []

    async def on_guild_remove(guild: discord.Guild) -> None:
        removed.append(guild.id)

    bot.add_listener(on_guild_remove)
    await emu.guild_outage(gid)
    await emu._wait_until(
        lambda: bot.get_guild(gid) is not None and bot.get_guild(gid).unavailable,
        5,
        lambda: "discord.py to mark the guild unavailable",
    )
    await emu.end_guild_outage(gid)
    await emu._wait_until(lambda: not bot.get_guild(gid).unavailable, 5, lambda: "the guild back")
    assert removed == []
    assert await whoami(emu, cid, ann) == "I am quick"
    assert emu.errors == []
