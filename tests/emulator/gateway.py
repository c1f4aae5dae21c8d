"""The gateway half of the emulator: websocket sessions, transport compression, RESUME.

discord.py 2.7 connects to ``<gateway>?v=10&encoding=json&compress=zlib-stream`` (or
``compress=zstd-stream`` when ``zstandard``/``compression.zstd`` is importable) and expects:

* ``HELLO`` first, then it sends a heartbeat immediately and ``IDENTIFY`` (or ``RESUME``);
* ``READY`` with ``user``, ``guilds`` (unavailable), ``session_id``, ``resume_gateway_url`` and
  ``application {id, flags}``; then one ``GUILD_CREATE`` per guild (its ``on_ready`` fires
  ``guild_ready_timeout`` = 2 s after the last one);
* every server frame compressed with one shared zlib stream, each frame ending in a
  ``Z_SYNC_FLUSH`` marker (``00 00 ff ff``) -- discord.py buffers until it sees the marker.

Sharding as Discord does it: IDENTIFY may carry ``shard: [shard_id, num_shards]``; a session then gets only the
guilds, guild events and interactions of its shard, ``(guild_id >> 22) % num_shards`` (direct messages: shard 0).
A malformed shard closes the connection with 4010 (Invalid shard); a session whose shard would hold more than the
emulator's ``max_guilds_per_shard`` guilds, with 4011 (Sharding required).

Keeping a connection alive, as https://discord.com/developers/docs/events/gateway describes it:

* **Heartbeats.** Each heartbeat (op 1) is answered with an ACK (op 11). A connection that sends none for
  ``heartbeat_interval`` plus the emulator's ``heartbeat_grace_ms`` (Discord documents a tolerance, not its size) is
  closed by the server with 4009 (Session timed out) -- the session stays resumable ("your connection will be closed
  and you will be forced to Resume"). The server may ask for a heartbeat at once by sending op 1
  (``DiscordEmulator.request_heartbeat``); the client must answer with a heartbeat.
* **Zombie connections.** ``DiscordEmulator.stop_heartbeat_acks`` makes the current connection a zombie: no more
  ACKs and, by default, nothing else reaches the client (dispatches stay in the session's buffer, as Discord keeps
  them for RESUME). discord.py 2.7 notices when nothing at all was received for its ``heartbeat_timeout`` (a Client
  option, 60 s by default: ``KeepAliveHandler.run`` and ``poll_event``'s receive timeout), closes with 4000 and
  RESUMEs, getting the events it missed.
* **Rate limit.** More than 120 payloads from the client on one connection in 60 s (heartbeats included) close it
  with 4008 (Rate limited), as Discord does; a payload over 4096 bytes closes it with 4002 (Decode error).
* **RESUME** replays, in order, every dispatch with a sequence number above the client's, then RESUMED; events sent
  while the client was away (its connection dropped, asked to reconnect, or a zombie) are buffered in the session.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from collections import deque
from typing import TYPE_CHECKING, Any, Deque, Dict, List, Optional, Tuple

from aiohttp import WSMsgType, web

if TYPE_CHECKING:  # pragma: no cover
    from .server import DiscordEmulator

log = logging.getLogger("tests.emulator.gateway")

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT


def _zstd_compressor() -> Optional[Any]:
    """A per-connection zstd streaming compressor if a zstd module is installed, else None."""
    try:
        import zstandard  # type: ignore

        cobj = zstandard.ZstdCompressor().compressobj()
        flush_mode = zstandard.COMPRESSOBJ_FLUSH_BLOCK

        def compress(data: bytes) -> bytes:
            return cobj.compress(data) + cobj.flush(flush_mode)

        return compress
    except ImportError:
        pass
    try:
        from compression.zstd import ZstdCompressor  # type: ignore  # Python 3.14+

        comp = ZstdCompressor()

        def compress(data: bytes) -> bytes:
            return comp.compress(data, mode=ZstdCompressor.FLUSH_BLOCK)

        return compress
    except ImportError:
        return None


def shard_of(guild_id: Optional[int], num_shards: int) -> int:
    """The shard that gets a guild's events: ``(guild_id >> 22) % num_shards`` (direct messages: shard 0)."""
    return (int(guild_id) >> 22) % num_shards if guild_id else 0


class GatewaySession:
    """A Discord gateway session (what RESUME resumes). Outlives individual websocket connections."""

    def __init__(self, emu: "DiscordEmulator", intents: int, shard: Optional[List[int]], order: int) -> None:
        self.emu = emu
        self.id = secrets.token_hex(16)
        self.intents = intents
        self.shard = shard
        self.order = order  # increasing with every IDENTIFY: "most recently identified"
        self.seq = 0
        self.buffer: Deque[Tuple[int, Dict[str, Any]]] = deque(maxlen=5000)
        self.conn: Optional["GatewayConnection"] = None
        self.invalidated = False
        self.ready = False  # READY and every GUILD_CREATE have been sent
        self.resumes = 0
        self.replayed = 0  # dispatches sent again on RESUMEs (the client had not had them)
        # the connection went away because of a fault the emulator made (a drop, op 7, a zombie, 4008/4009): the
        # client is expected to RESUME, and events (interactions too) are buffered for it meanwhile, as on Discord
        self.expect_resume = False
        # dispatch + send (and RESUME's replay) in one step, so a client never sees sequence numbers out of order
        self._lock = asyncio.Lock()

    @property
    def live(self) -> bool:
        return not self.invalidated and self.conn is not None and not self.conn.closed

    def has_intent(self, bit: int) -> bool:
        return bool(self.intents & bit)

    def serves(self, guild_id: Optional[int]) -> bool:
        """Whether this session's shard gets the guild's events (a session without a shard gets every guild's)."""
        if self.shard is None:
            return True
        shard_id, num_shards = self.shard
        return shard_of(guild_id, num_shards) == shard_id

    async def dispatch(self, event: str, data: Any) -> None:
        """Send a dispatch (op 0) with the session's next sequence number; kept in the buffer RESUME replays from
        (the last 5,000), and only buffered while the session has no open connection; its objects are held to
        Discord's spec first (emu.spec.check_gateway)."""
        self.emu.spec.check_gateway(event, data)
        async with self._lock:
            self.seq += 1
            payload = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
            self.buffer.append((self.seq, payload))
            conn = self.conn
            if conn is not None and not conn.closed:
                await conn.send(payload)
            else:
                log.debug("session %s not connected; buffered %s seq=%s for RESUME", self.id, event, self.seq)

    def __repr__(self) -> str:
        return f"<GatewaySession {self.id[:8]} order={self.order} live={self.live} ready={self.ready}>"


class GatewayConnection:
    """One websocket connection."""

    _counter = 0

    def __init__(
        self,
        emu: "DiscordEmulator",
        ws: web.WebSocketResponse,
        compress: Optional[str],
        request: Optional[web.Request] = None,
    ) -> None:
        GatewayConnection._counter += 1
        self.number = GatewayConnection._counter
        self.emu = emu
        self.ws = ws
        self.request = request
        self.compress_mode = compress
        self.session: Optional[GatewaySession] = None
        self.opened_at = time.monotonic()
        self.heartbeats = 0
        # (time.monotonic(), the heartbeat's d: the last sequence number the client had) for each heartbeat received
        self.heartbeat_log: List[Tuple[float, Any]] = []
        self.heartbeat_requests = 0  # op 1 sent by the server
        self.acks = 0  # op 11 sent
        self.acking = True  # False: a zombie, no op 11 (DiscordEmulator.stop_heartbeat_acks)
        self.holding = False  # True: nothing reaches the client; payloads wait in ``held``
        self.held: List[Dict[str, Any]] = []
        self.received: Deque[float] = deque()  # when each payload from the client arrived, for the rate limit
        self.close_code: Optional[int] = None  # the code the server closed with (1006: TCP dropped, no frame)
        self.aborted = False
        self._watchdog: Optional[asyncio.Task] = None
        self._lock = asyncio.Lock()
        self._compress = None
        if compress == "zlib-stream":
            zobj = zlib.compressobj()
            self._compress = lambda data: zobj.compress(data) + zobj.flush(zlib.Z_SYNC_FLUSH)
        elif compress == "zstd-stream":
            self._compress = _zstd_compressor()
            if self._compress is None:
                log.warning(
                    "client asked for zstd-stream but no zstd module is installed here; "
                    "sending uncompressed text frames (discord.py accepts those)"
                )

    @property
    def closed(self) -> bool:
        return self.ws.closed or self.aborted

    @property
    def last_heartbeat(self) -> Optional[float]:
        """When the last heartbeat arrived (``time.monotonic()``), or None."""
        return self.heartbeat_log[-1][0] if self.heartbeat_log else None

    @property
    def compressed(self) -> bool:
        """Whether frames go out compressed (False only if zstd was asked for but is unavailable)."""
        return self._compress is not None

    async def send(self, payload: Dict[str, Any]) -> None:
        if self.holding:  # a zombie connection: nothing gets through (see DiscordEmulator.stop_heartbeat_acks)
            self.held.append(payload)
            return
        await self._send_now(payload)

    async def release(self) -> None:
        """End a zombie spell: ACKs again, and what was held back is sent, in order."""
        self.acking = True
        while self.held:  # what is sent meanwhile still queues behind: the order holds
            await self._send_now(self.held.pop(0))
        self.holding = False

    async def _send_now(self, payload: Dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "gateway#%s -> op=%s t=%s s=%s %s",
                self.number,
                payload.get("op"),
                payload.get("t"),
                payload.get("s"),
                text[:500],
            )
        # compress + send must be atomic: the zlib/zstd stream state is shared by all frames.
        async with self._lock:
            if self.ws.closed:
                return
            try:
                if self._compress is not None:
                    await self.ws.send_bytes(self._compress(text.encode("utf-8")))
                else:
                    await self.ws.send_str(text)
            except (ConnectionResetError, RuntimeError, OSError) as exc:
                log.debug("gateway#%s send failed: %s", self.number, exc)

    async def close(self, code: int, message: str = "") -> None:
        """Close from the server side with a close frame, or with ``code`` 1006 drop the TCP connection without one
        (what a client sees as an abnormal closure)."""
        log.debug("gateway#%s closing with %s %s", self.number, code, message)
        if self.closed:
            return
        self.close_code = code
        if code == 1006:
            self.aborted = True
            transport = self.request.transport if self.request is not None else None
            if transport is not None:
                transport.abort()
            return
        await self.ws.close(code=code, message=message.encode())

    def start_watchdog(self) -> None:
        """Close the connection (4009) if the client lets a heartbeat interval plus the grace pass without one."""
        self._watchdog = asyncio.get_running_loop().create_task(self._watch_heartbeats())

    def stop_watchdog(self) -> None:
        if self._watchdog is not None and not self._watchdog.done():
            self._watchdog.cancel()

    async def _watch_heartbeats(self) -> None:
        emu = self.emu
        while not self.closed:
            allowed = (emu.heartbeat_interval_ms + emu.heartbeat_grace_ms) / 1000
            deadline = (self.last_heartbeat or self.opened_at) + allowed
            now = time.monotonic()
            if now < deadline:
                await asyncio.sleep(deadline - now)
                continue
            emu._record(
                "gateway",
                f"gateway#{self.number}: no heartbeat for {now - (self.last_heartbeat or self.opened_at):.2f}s "
                f"(interval {emu.heartbeat_interval_ms} ms + grace {emu.heartbeat_grace_ms} ms); "
                "closed with 4009 (Session timed out)",
            )
            if self.session is not None:
                self.session.expect_resume = True
            await self.close(4009, "Session timed out")
            return

    def count_received(self) -> bool:
        """Count a payload from the client against Discord's gateway rate limit; False when it goes over (the
        caller closes with 4008)."""
        limit, per = self.emu.gateway_rate_limit
        now = time.monotonic()
        self.received.append(now)
        while self.received and self.received[0] <= now - per:
            self.received.popleft()
        return len(self.received) <= limit


class GatewayServer:
    def __init__(self, emu: "DiscordEmulator") -> None:
        self.emu = emu
        self.sessions: Dict[str, GatewaySession] = {}
        self.connections: List[GatewayConnection] = []
        self._order = 0

    # -- selection ---------------------------------------------------------------------------
    def current_session(self) -> Optional[GatewaySession]:
        """The most recently identified session that has not been invalidated (live or resumable)."""
        candidates = [s for s in self.sessions.values() if not s.invalidated]
        return max(candidates, key=lambda s: s.order) if candidates else None

    def session_for(self, guild_id: Optional[int]) -> Optional[GatewaySession]:
        """The most recently identified session, not invalidated, whose shard gets the guild's events."""
        candidates = [s for s in self.sessions.values() if not s.invalidated and s.serves(guild_id)]
        return max(candidates, key=lambda s: s.order) if candidates else None

    def live_sessions(self, guild_id: Optional[int] = None, *, every: bool = False) -> List[GatewaySession]:
        """Live sessions, oldest first: those whose shard gets ``guild_id``'s events (``every``: all of them)."""
        return sorted(
            (s for s in self.sessions.values() if s.live and (every or s.serves(guild_id))), key=lambda s: s.order
        )

    def reachable_sessions(self, guild_id: Optional[int] = None) -> List[GatewaySession]:
        """The sessions a guild's events go to, oldest first: the live ones, and those away after a fault the
        emulator made (``expect_resume``: Discord keeps their events for RESUME)."""
        return sorted(
            (
                s
                for s in self.sessions.values()
                if s.serves(guild_id) and (s.live or (s.expect_resume and not s.invalidated))
            ),
            key=lambda s: s.order,
        )

    async def broadcast(self, event: str, data: Any, guild_id: Optional[int], *, intent: int = 0) -> None:
        """Dispatch to every session of the guild's shard (live, or away after a fault) that has the given intent
        (0: no intent needed)."""
        for s in self.reachable_sessions(guild_id):
            if intent == 0 or s.has_intent(intent):
                await s.dispatch(event, data)

    # -- websocket handler -------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.StreamResponse:
        q = request.query
        ws = web.WebSocketResponse(autoping=True, max_msg_size=16 * 1024 * 1024, compress=False)
        await ws.prepare(request)
        compress = q.get("compress")
        conn = GatewayConnection(self.emu, ws, compress, request)
        self.connections.append(conn)
        log.debug("gateway#%s connected: %s", conn.number, request.rel_url)
        if q.get("encoding", "json") != "json":
            self.emu._record(
                "gateway", f"gateway connection asked for encoding={q.get('encoding')}; only json is emulated"
            )
            await conn.close(4002, "Decode error")
            return ws
        if q.get("v") not in (None, "9", "10"):
            self.emu._record("gateway", f"gateway connection asked for unsupported API version v={q.get('v')}")
            await conn.close(4012, "Invalid API version")
            return ws
        if compress not in (None, "zlib-stream", "zstd-stream"):
            self.emu._record("gateway", f"gateway connection asked for unknown compress={compress}")
            await conn.close(4002, "Decode error")
            return ws

        await conn.send(
            {
                "op": OP_HELLO,
                "d": {
                    "heartbeat_interval": self.emu.heartbeat_interval_ms,
                    "_trace": ['["emulator-gateway",{"micros":0}]'],
                },
                "s": None,
                "t": None,
            }
        )
        conn.start_watchdog()
        try:
            async for msg in ws:
                if conn.aborted:
                    break
                if msg.type == WSMsgType.TEXT:
                    if not conn.count_received():
                        limit, per = self.emu.gateway_rate_limit
                        self.emu._record(
                            "gateway",
                            f"gateway#{conn.number}: more than {limit} payloads in {per:g}s; "
                            "closed with 4008 (Rate limited)",
                        )
                        if conn.session is not None:
                            conn.session.expect_resume = True
                        await conn.close(4008, "Rate limited.")
                        break
                    if len(msg.data.encode("utf-8")) > 4096:
                        self.emu._record(
                            "gateway",
                            f"gateway#{conn.number}: a payload of {len(msg.data.encode())} "
                            "bytes (at most 4096); closed with 4002",
                        )
                        await conn.close(4002, "Decode error")
                        break
                    try:
                        data = json.loads(msg.data)
                    except ValueError:
                        data = None
                    if not isinstance(data, dict):
                        self.emu._record(
                            "gateway",
                            f"gateway#{conn.number}: client sent invalid JSON or not a payload "
                            f"object {msg.data[:200]!r}",
                        )
                        await conn.close(4002, "Decode error")
                        break
                    await self._on_message(conn, data)
                elif msg.type == WSMsgType.BINARY:
                    self.emu._record("gateway", f"gateway#{conn.number}: client sent a binary frame (ETF?)")
                    await conn.close(4002, "Decode error")
                    break
                elif msg.type == WSMsgType.ERROR:
                    log.debug("gateway#%s error: %s", conn.number, ws.exception())
                    break
        finally:
            conn.stop_watchdog()
            # who closed decides: the server's own code (1006: it dropped TCP), else the client's
            code = conn.close_code if conn.close_code is not None else ws.close_code
            log.debug("gateway#%s disconnected with close code %s", conn.number, code)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # Closing with 1000/1001 ends the session for good (Discord docs: such a session
                # cannot be resumed); any other code keeps it resumable.
                if code in (1000, 1001):
                    session.invalidated = True
            self.emu._notify()
        return ws

    async def _on_message(self, conn: GatewayConnection, data: Dict[str, Any]) -> None:
        op = data.get("op")
        d = data.get("d")
        if op != OP_HEARTBEAT:
            log.debug("gateway#%s <- op=%s %s", conn.number, op, _redact(data))
        if op == OP_HEARTBEAT:
            conn.heartbeats += 1
            conn.heartbeat_log.append((time.monotonic(), d))
            if conn.acking:
                conn.acks += 1
                await conn.send({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None})
            self.emu._notify()
        elif op in (OP_IDENTIFY, OP_RESUME, OP_REQUEST_MEMBERS) and not isinstance(d, dict):
            self.emu._record("gateway", f"gateway#{conn.number}: op {op} with d={d!r:.100} (an object is needed)")
            await conn.close(4002, "Decode error")
        elif op == OP_IDENTIFY:
            await self._identify(conn, d or {})
        elif op == OP_RESUME:
            await self._resume(conn, d or {})
        elif conn.session is None:
            self.emu._record("gateway", f"gateway#{conn.number}: op {op} sent before IDENTIFY")
            await conn.close(4003, "Not authenticated")
        elif op == OP_REQUEST_MEMBERS:
            await self._request_members(conn, d or {})
        elif op in (OP_PRESENCE, OP_VOICE_STATE):
            if op == OP_PRESENCE:
                self.emu.presence = d
        else:
            self.emu._record("gateway", f"gateway#{conn.number}: unknown opcode {op}")
            await conn.close(4001, "Unknown opcode")

    async def _identify(self, conn: GatewayConnection, d: Dict[str, Any]) -> None:
        if conn.session is not None:
            self.emu._record("gateway", f"gateway#{conn.number}: IDENTIFY sent twice on one connection")
            await conn.close(4005, "Already authenticated")
            return
        if d.get("token") != self.emu.token:
            self.emu._record("gateway", f"gateway#{conn.number}: IDENTIFY with a wrong token")
            await conn.close(4004, "Authentication failed")
            return
        intents = d.get("intents")
        if not isinstance(intents, int) or intents < 0:
            self.emu._record("gateway", f"gateway#{conn.number}: IDENTIFY without valid intents ({intents!r})")
            await conn.close(4013, "Invalid intent(s)")
            return
        if intents & PRIVILEGED_INTENTS & ~self.emu.privileged_intents:
            self.emu._record(
                "gateway",
                f"gateway#{conn.number}: IDENTIFY asked for privileged intents "
                f"{intents & PRIVILEGED_INTENTS:#x} that are not enabled",
            )
            await conn.close(4014, "Disallowed intent(s)")
            return
        if isinstance(d.get("presence"), dict):  # the presence to start with (a Gateway Presence Update's fields)
            presence = dict(d["presence"])
            if "activities" not in presence:  # discord.py identifies with v6's single 'game', which Discord still reads
                game = presence.pop("game", None)
                presence["activities"] = [game] if game else []
            self.emu.presence = presence
        shard = d.get("shard")
        if shard is not None and not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
            and shard[1] >= 1
            and 0 <= shard[0] < shard[1]
        ):
            self.emu._record(
                "gateway",
                f"gateway#{conn.number}: IDENTIFY with an invalid shard {shard!r} "
                "(must be [shard_id, num_shards] with 0 <= shard_id < num_shards)",
            )
            await conn.close(4010, "Invalid shard")
            return
        held = [
            g for g in self.emu._guilds if self.emu.in_guild(g) and (shard is None or shard_of(g, shard[1]) == shard[0])
        ]
        if len(held) > self.emu.max_guilds_per_shard:
            self.emu._record(
                "gateway",
                f"gateway#{conn.number}: IDENTIFY {'without a shard' if shard is None else f'as shard {shard}'} "
                f"would hold {len(held)} guilds (at most {self.emu.max_guilds_per_shard} a shard)",
            )
            await conn.close(4011, "Sharding required")
            return
        self._order += 1
        session = GatewaySession(self.emu, intents, shard, self._order)
        self.sessions[session.id] = session
        conn.session = session
        session.conn = conn
        emu = self.emu
        ready: Dict[str, Any] = {
            "v": 10,
            "user": dict(emu.bot_user, **emu.bot_account),
            "guilds": [{"id": str(gid), "unavailable": True} for gid in held],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": emu.gateway_url,
            "application": {"id": str(emu.application_id), "flags": emu.application_flags},
            "private_channels": [],
            "presences": [],
            "relationships": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ['["emulator-gateway",{"micros":0}]'],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        await session.dispatch("READY", ready)
        for gid in held:
            if emu.in_outage(gid):  # stays unavailable until the outage ends (then GUILD_CREATE)
                await session.dispatch("GUILD_DELETE", {"id": str(gid), "unavailable": True})
            else:
                await session.dispatch("GUILD_CREATE", emu._guild_create_payload(gid, session))
        session.ready = True
        emu.ready_count += 1
        log.info(
            "bot identified: session %s (intents %#x, shard %s), %d guild(s) sent",
            session.id,
            intents,
            shard,
            len(held),
        )
        emu._notify()

    async def _resume(self, conn: GatewayConnection, d: Dict[str, Any]) -> None:
        session = self.sessions.get(d.get("session_id") or "")
        if session is None or session.invalidated or d.get("token") != self.emu.token:
            log.info(
                "gateway#%s: RESUME of unknown/invalid session %s -> INVALID_SESSION", conn.number, d.get("session_id")
            )
            # discord.py answers op 9 (d=false) by dropping the session and reconnecting to
            # DiscordWebSocket.DEFAULT_GATEWAY with a fresh IDENTIFY.
            await conn.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        since = d.get("seq") or 0
        if not isinstance(since, int) or isinstance(since, bool):
            self.emu._record(
                "gateway", f"gateway#{conn.number}: RESUME with seq={since!r:.50} (a sequence number is needed)"
            )
            await conn.close(4002, "Decode error")
            return
        async with session._lock:  # no new dispatch slips in between the replayed ones
            old = session.conn
            session.conn = conn
            conn.session = session
            if old is not None and old is not conn and not old.closed:
                await old.close(4000, "Session resumed elsewhere")
            missed = [p for s, p in session.buffer if s > since]
            log.info(
                "gateway#%s: RESUME session %s from seq %s, replaying %d event(s)",
                conn.number,
                session.id,
                since,
                len(missed),
            )
            for payload in missed:
                await conn.send(payload)
            session.replayed += len(missed)
            session.resumes += 1
            session.expect_resume = False
            session.seq += 1
            resumed = {
                "op": OP_DISPATCH,
                "t": "RESUMED",
                "s": session.seq,
                "d": {"_trace": ['["emulator-gateway",{"micros":0}]']},
            }
            session.buffer.append((session.seq, resumed))
            await conn.send(resumed)
        self.emu._notify()

    async def _request_members(self, conn: GatewayConnection, d: Dict[str, Any]) -> None:
        session = conn.session
        assert session is not None
        try:
            gid = int(d.get("guild_id"))
        except (TypeError, ValueError):
            self.emu._record("gateway", f"REQUEST_GUILD_MEMBERS with bad guild_id {d.get('guild_id')!r}")
            return
        guild = self.emu._guilds.get(gid)
        if guild is None:
            return
        if not session.serves(gid):
            self.emu._record(
                "gateway", f"REQUEST_GUILD_MEMBERS for guild {gid}, which is on another shard than {session.shard}"
            )
            return
        query = d.get("query")
        user_ids = d.get("user_ids")
        limit = d.get("limit") or 0
        if query == "" and not user_ids and not session.has_intent(INTENT_GUILD_MEMBERS):
            self.emu._record("gateway", "REQUEST_GUILD_MEMBERS for all members without the GUILD_MEMBERS intent")
            await conn.close(4013, "Invalid intent(s)")
            return
        members = []
        for uid, member in guild["members"].items():
            user = self.emu._users[uid]
            if user_ids:
                wanted = {int(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])}
                if uid not in wanted:
                    continue
            elif query:
                if not user["username"].lower().startswith(query.lower()):
                    continue
            members.append(self.emu._member_payload(gid, uid))
        if limit:
            members = members[:limit]
        chunk: Dict[str, Any] = {"guild_id": str(gid), "members": members, "chunk_index": 0, "chunk_count": 1}
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        if d.get("presences"):
            chunk["presences"] = []
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)


def _redact(data: Dict[str, Any]) -> str:
    d = data.get("d")
    if isinstance(d, dict) and "token" in d:
        data = dict(data, d=dict(d, token="<redacted>"))
    text = json.dumps(data, default=str)
    return text[:500]
