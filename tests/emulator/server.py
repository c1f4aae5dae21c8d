"""DiscordEmulator: state, lifecycle and the API end-to-end tests drive it with."""

from __future__ import annotations

import asyncio
import collections
import logging
import mimetypes
import secrets
import time
import urllib.parse
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional, Tuple, Union

from aiohttp import web

from . import limits
from .caps import SLOWMODE_MAX, OldMessageEdits, slowmode_refusal
from .faults import Faults
from .errors import APIError, EmulatorAssertion, EmulatorTimeout, InteractionFailed, RecordedError
from .gateway import (
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILD_PRESENCES,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
    GatewayServer,
    GatewaySession,
)
from .models import (
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    Attachment,
    Interaction,
    Message,
    iso,
)
from .nonces import NonceRegistry
from .ratelimits import RateLimited, RateLimits
from .rest import RestAPI
from .spec import Conformance, SpecViolation
from .snowflake import SnowflakeGenerator

log = logging.getLogger("tests.emulator")

# Permission bits (https://discord.com/developers/docs/topics/permissions)
P = {
    "create_instant_invite": 1 << 0,
    "kick_members": 1 << 1,
    "ban_members": 1 << 2,
    "administrator": 1 << 3,
    "manage_channels": 1 << 4,
    "manage_guild": 1 << 5,
    "add_reactions": 1 << 6,
    "view_audit_log": 1 << 7,
    "priority_speaker": 1 << 8,
    "stream": 1 << 9,
    "view_channel": 1 << 10,
    "send_messages": 1 << 11,
    "send_tts_messages": 1 << 12,
    "manage_messages": 1 << 13,
    "embed_links": 1 << 14,
    "attach_files": 1 << 15,
    "read_message_history": 1 << 16,
    "mention_everyone": 1 << 17,
    "use_external_emojis": 1 << 18,
    "view_guild_insights": 1 << 19,
    "connect": 1 << 20,
    "speak": 1 << 21,
    "mute_members": 1 << 22,
    "deafen_members": 1 << 23,
    "move_members": 1 << 24,
    "use_vad": 1 << 25,
    "change_nickname": 1 << 26,
    "manage_nicknames": 1 << 27,
    "manage_roles": 1 << 28,
    "manage_webhooks": 1 << 29,
    "manage_guild_expressions": 1 << 30,
    "use_application_commands": 1 << 31,
    "request_to_speak": 1 << 32,
    "manage_events": 1 << 33,
    "manage_threads": 1 << 34,
    "create_public_threads": 1 << 35,
    "create_private_threads": 1 << 36,
    "use_external_stickers": 1 << 37,
    "send_messages_in_threads": 1 << 38,
    "use_embedded_activities": 1 << 39,
    "moderate_members": 1 << 40,
}
ALL_PERMISSIONS = (1 << 51) - 1
MANAGE_GUILD = P["manage_guild"]
ADMINISTRATOR = P["administrator"]

DEFAULT_EVERYONE_PERMISSIONS = sum(
    P[k]
    for k in (
        "create_instant_invite",
        "add_reactions",
        "stream",
        "view_channel",
        "send_messages",
        "embed_links",
        "attach_files",
        "read_message_history",
        "mention_everyone",
        "use_external_emojis",
        "connect",
        "speak",
        "use_vad",
        "change_nickname",
        "use_application_commands",
        "request_to_speak",
        "create_public_threads",
        "create_private_threads",
        "use_external_stickers",
        "send_messages_in_threads",
        "use_embedded_activities",
    )
)

DEFAULT_BOT_PERMISSIONS = sum(
    P[k]
    for k in (
        "view_channel",
        "send_messages",
        "send_messages_in_threads",
        "embed_links",
        "attach_files",
        "read_message_history",
        "add_reactions",
        "use_external_emojis",
        "create_public_threads",
        "create_private_threads",
        "manage_threads",
        "manage_messages",
    )
)

CHANNEL_TEXT = 0
CHANNEL_CATEGORY = 4
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = (10, 11, 12)

UserLike = Union[Dict[str, Any], int, str]


class _Patch:
    """Undo handle returned by :meth:`DiscordEmulator.patch_discord` (also a context manager)."""

    def __init__(self, undo: Callable[[], None]) -> None:
        self._undo: Optional[Callable[[], None]] = undo

    def undo(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None

    def __enter__(self) -> "_Patch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.undo()


class DiscordEmulator:
    """A local stand-in for Discord's gateway + REST API that an unmodified discord.py bot talks to.

    discord.py must be pointed at it with two class attributes (see :meth:`patch_discord`)::

        discord.http.Route.BASE = emu.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)

    :meth:`start` does both by default (``patch_discord=False`` to opt out) and :meth:`stop` puts
    the previous values back.
    """

    def __init__(
        self,
        *,
        bot_name: str = "TestBot",
        response_deadline: float = 3.0,
        token_lifetime: float = 15 * 60,
        heartbeat_interval_ms: int = 41250,
        attachment_size_limit: int = limits.ATTACHMENT_SIZE_LIMIT,
        privileged_intents: int = PRIVILEGED_INTENTS,
        patch_discord: bool = True,
        clock: Optional[Callable[[], float]] = None,
        max_guilds_per_shard: int = 2500,
        guilds_per_recommended_shard: int = 1000,
        heartbeat_grace_ms: Optional[int] = None,
        gateway_rate_limit: Tuple[int, float] = (120, 60.0),
        spec: bool = True,
    ) -> None:
        self._ids = SnowflakeGenerator()
        self.token = "emulator." + secrets.token_urlsafe(24)
        self.application_id = self._ids()
        # the bot's public user object (a message's author, a member's user; Discord's UserResponse) ...
        self.bot_user: Dict[str, Any] = {
            "id": str(self.application_id),
            "username": bot_name,
            "global_name": None,
            "discriminator": "0001",
            "avatar": None,
            "bot": True,
            "system": False,
            "flags": 0,
            "public_flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        # ... and what only the bot itself reads (GET /users/@me, READY's user: UserPIIResponse)
        self.bot_account: Dict[str, Any] = {"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"}
        # GATEWAY_PRESENCE_LIMITED | GATEWAY_GUILD_MEMBERS_LIMITED | GATEWAY_MESSAGE_CONTENT_LIMITED | COMMAND_BADGE
        self.application_flags = (1 << 13) | (1 << 15) | (1 << 19) | (1 << 23)
        self.response_deadline = response_deadline
        self.token_lifetime = token_lifetime
        # what an interaction token's age is measured with (seconds): the test's clock if it moves time forward
        # (the 3 s initial-response deadline stays on real time: it is about the bot's latency)
        self.clock: Callable[[], float] = clock or time.monotonic
        # HELLO's heartbeat_interval; a connection with no heartbeat for the interval plus the grace is closed (4009).
        # Discord documents a tolerance but not its size: by default a quarter of the interval (~10 s at Discord's
        # 41.25 s)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.heartbeat_grace_ms = heartbeat_interval_ms // 4 if heartbeat_grace_ms is None else heartbeat_grace_ms
        # (payloads, seconds): Discord closes a connection whose client sends more than 120 payloads in 60 s with 4008
        self.gateway_rate_limit = gateway_rate_limit
        self.attachment_size_limit = attachment_size_limit
        self.privileged_intents = privileged_intents
        # Discord closes a session whose shard would hold more guilds than this with 4011 (Sharding required), and
        # GET /gateway/bot recommends a shard per ``guilds_per_recommended_shard`` guilds (see recommended_shards)
        self.max_guilds_per_shard = max_guilds_per_shard
        self.guilds_per_recommended_shard = guilds_per_recommended_shard
        # the client language of a user without one of their own (create_user(locale=...), set_locale), and the
        # preferred locale of a guild created without one (create_guild(locale=...))
        self.locale = "en-US"
        self._user_locales: Dict[int, str] = {}
        self.presence: Any = None
        self.connect_grace = 5.0  # how long interaction helpers wait for a (re)connecting bot

        self.errors: List[RecordedError] = []
        # Discord's published OpenAPI spec held against every request, reply and gateway payload (spec.py):
        # requests it refuses are answered 400 50035; replies/payloads it would not describe are kept here
        self.spec = Conformance(spec)
        self.requests: Deque[Tuple[str, str, int]] = collections.deque(maxlen=300)
        self.interactions: List[Interaction] = []
        self.commands: List[Dict[str, Any]] = []
        self.guild_commands: Dict[int, List[Dict[str, Any]]] = {}
        self.sync_count = 0
        self.ready_count = 0  # READY events sent (one per IDENTIFY)
        # guild id -> top-level command names a server admin opened to everyone (Server Settings →
        # Integrations), which overrides the command's default_member_permissions
        self.command_overrides: Dict[int, set] = {}

        self._users: Dict[int, Dict[str, Any]] = {self.application_id: self.bot_user}
        self.owner_user = self.create_user("app-owner")
        self._guilds: Dict[int, Dict[str, Any]] = {}
        self._channels: Dict[int, Dict[str, Any]] = {}
        self._dms: Dict[int, Dict[str, Any]] = {}  # the bot's direct-message channels, by channel id
        self._dm_ids: Dict[int, int] = {}  # user id -> DM channel id
        self._messages: Dict[int, Message] = {}
        self._channel_messages: Dict[int, List[Message]] = {}
        self._attachments: Dict[int, Attachment] = {}
        self._interactions: Dict[int, Interaction] = {}
        self._by_token: Dict[str, Interaction] = {}
        self._waiters: set = set()

        # REST faults a test injects (faults.py) and enforce_nonce's memory (nonces.py)
        self.faults = Faults()
        # Discord's rate limits, on by default (ratelimits.py); a test loosens one only by saying so
        self.rate_limits = RateLimits(self.application_id)
        # Discord's other limits (caps.py): follow-ups per interaction (None: no cap, as for an app installed in the
        # server), edits of hour-old messages allowed per hour (30046), and whether slowmode binds the bot
        self.followup_limit: Optional[int] = None
        self.old_edits = OldMessageEdits(lambda: self.clock())
        self.slowmode_applies_to_bots = False
        self._last_post: Dict[Tuple[int, int], float] = {}  # (channel, user) -> time.monotonic() of their last post
        self.nonces = NonceRegistry(lambda: self.clock())

        self.gateway = GatewayServer(self)
        self.rest = RestAPI(self)
        self._runner: Optional[web.AppRunner] = None
        self.host = "127.0.0.1"
        self.port: Optional[int] = None
        self._patches: List[_Patch] = []
        self._auto_patch = patch_discord

    # ========================================================================================
    # lifecycle
    # ========================================================================================
    @property
    def spec_violations(self) -> List[SpecViolation]:
        """What the emulator sent that Discord's spec would not (replies, gateway payloads, undocumented routes)."""
        return self.spec.violations

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> "DiscordEmulator":
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[self.rest.spec_middleware])
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.rest.serve_attachment)
        app.router.add_route("*", "/{tail:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self.host = host
        log.info("Discord emulator listening on %s (gateway %s)", self.api_base, self.gateway_url)
        if self._auto_patch:
            self.patch_discord()
        return self

    async def stop(self) -> None:
        for conn in list(self.gateway.connections):
            if not conn.closed:
                await conn.close(1001, "Emulator shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for p in reversed(self._patches):
            p.undo()
        self._patches.clear()

    async def __aenter__(self) -> "DiscordEmulator":
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    def patch_discord(self) -> _Patch:
        """Point discord.py at this emulator; returns an undo handle (also undone by :meth:`stop`).

        Two class attributes are needed: ``Route.BASE`` for REST, and
        ``DiscordWebSocket.DEFAULT_GATEWAY`` because ``Client.connect`` never asks ``GET /gateway/bot``
        -- it opens ``DEFAULT_GATEWAY`` for the first connection and again after an
        INVALID_SESSION; only RESUMEs use READY's ``resume_gateway_url``.
        """
        try:
            import yarl
            from discord.gateway import DiscordWebSocket
            from discord.http import Route
        except ImportError:  # pragma: no cover - discord.py not installed: nothing to point
            return _Patch(lambda: None)

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

        def undo() -> None:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

        patch = _Patch(undo)
        self._patches.append(patch)
        return patch

    # ========================================================================================
    # building the world
    # ========================================================================================
    def create_user(
        self, name: str, *, global_name: Optional[str] = None, bot: bool = False, locale: Optional[str] = None
    ) -> Dict[str, Any]:
        """A user. ``locale``: their Discord client's language (a Discord locale, e.g. ``'de'``, ``'pt-BR'``), sent
        as ``locale`` with each of their interactions; None: :attr:`locale`, whatever it is then."""
        uid = self._ids()
        user = {
            "id": str(uid),
            "username": name,
            "global_name": global_name if global_name is not None else name,
            "discriminator": "0",
            "avatar": None,
            "bot": bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        self._users[uid] = user
        if locale is not None:
            self.set_locale(user, locale)
        return user

    def set_locale(self, user: UserLike, locale: str) -> None:
        """``user`` switches their client to ``locale`` (a Discord locale): their next interactions carry it."""
        self._user_locales[int(self._resolve_user(user)["id"])] = limits.check_locale(locale)

    def user_locale(self, user: UserLike) -> str:
        """The ``locale`` of ``user``'s interactions: their client's language."""
        return self._user_locales.get(int(self._resolve_user(user)["id"]), self.locale)

    async def set_guild_locale(self, guild_id: int, locale: str) -> None:
        """A server admin changes the server's language (Server Settings → Community: preferred_locale): the bot gets
        GUILD_UPDATE, and later interactions in the guild carry it as ``guild_locale``."""
        self._guild(guild_id)["preferred_locale"] = limits.check_locale(locale)
        await self._broadcast("GUILD_UPDATE", self._guild_payload(guild_id), guild_id)

    def create_guild(
        self,
        name: str,
        *,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        owner: Optional[Dict[str, Any]] = None,
        shard: Optional[Tuple[int, int]] = None,
        locale: Optional[str] = None,
    ) -> int:
        """A guild the bot is in. ``shard=(shard_id, num_shards)`` picks its id so that Discord would send its
        events to that shard (``(guild_id >> 22) % num_shards == shard_id``). ``locale``: its preferred locale (the
        server's language in Discord); None: :attr:`locale` now."""
        gid = self._ids() if shard is None else self._ids.on_shard(*shard)
        if owner is None:
            owner = self.create_user(f"{name} owner".lower().replace(" ", "-"))
        bot_role_id = self._ids()
        guild = {
            "id": gid,
            "name": name,
            "owner_id": int(owner["id"]),
            "joined_at": time.time(),
            "roles": {
                gid: self._role(gid, "@everyone", everyone_permissions, position=0),
                bot_role_id: self._role(
                    bot_role_id,
                    self.bot_user["username"],
                    bot_permissions,
                    position=1,
                    managed=True,
                    tags={"bot_id": str(self.application_id)},
                ),
            },
            "members": {},
            "channels": [],
            "bot_role_id": bot_role_id,
            "preferred_locale": limits.check_locale(locale if locale is not None else self.locale),
        }
        self._guilds[gid] = guild
        guild["members"][self.application_id] = {"roles": [bot_role_id], "joined_at": time.time(), "nick": None}
        guild["members"][int(owner["id"])] = {"roles": [], "joined_at": time.time(), "nick": None}
        self._schedule_broadcast("GUILD_CREATE", lambda s: self._guild_create_payload(gid, s), INTENT_GUILDS, gid)
        return gid

    def _role(
        self,
        rid: int,
        name: str,
        permissions: int,
        *,
        position: int,
        managed: bool = False,
        tags: Optional[Dict[str, Any]] = None,
    ) -> Dict[str, Any]:
        role = {
            "id": str(rid),
            "name": name,
            "permissions": str(permissions),
            "position": position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if tags:
            role["tags"] = tags
        return role

    def allow_command_for_everyone(self, guild_id: int, name: str) -> None:
        """Do what a server admin can in Server Settings → Integrations: let everyone use the top-level command
        ``name`` whatever its ``default_member_permissions`` (so the bot's own permission check is what's left)."""
        self.command_overrides.setdefault(guild_id, set()).add(name)

    def create_role(self, guild_id: int, name: str, permissions: int = 0) -> int:
        guild = self._guild(guild_id)
        rid = self._ids()
        guild["roles"][rid] = self._role(rid, name, permissions, position=len(guild["roles"]))
        return rid

    def create_channel(
        self,
        guild_id: int,
        name: str,
        *,
        type: int = CHANNEL_TEXT,
        parent_id: Optional[int] = None,
        topic: Optional[str] = None,
        permission_overwrites: Optional[List[Dict[str, Any]]] = None,
    ) -> int:
        guild = self._guild(guild_id)
        cid = self._ids()
        channel = {
            "id": str(cid),
            "type": type,
            "guild_id": str(guild_id),
            "name": name,
            "position": len(guild["channels"]),
            "permission_overwrites": permission_overwrites or [],
            "parent_id": str(parent_id) if parent_id else None,
            "topic": topic,
            "nsfw": False,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }
        self._channels[cid] = channel
        self._channel_messages[cid] = []
        guild["channels"].append(cid)
        self._schedule_broadcast("CHANNEL_CREATE", lambda s: dict(channel), INTENT_GUILDS, guild_id)
        return cid

    def add_member(
        self,
        guild_id: int,
        user: UserLike,
        permissions: int = 0,
        *,
        roles: Iterable[int] = (),
        nick: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Make ``user`` a member. ``permissions`` is granted through a role of its own (on top of
        @everyone), so the bot sees it both in interaction payloads and via guild roles."""
        guild = self._guild(guild_id)
        u = self._resolve_user(user)
        uid = int(u["id"])
        role_ids = list(roles)
        if permissions:
            role_ids.append(self.create_role(guild_id, f"{u['username']} permissions", permissions))
        guild["members"][uid] = {"roles": role_ids, "joined_at": time.time(), "nick": nick}
        self._schedule_broadcast(
            "GUILD_MEMBER_ADD",
            lambda s: dict(self._member_payload(guild_id, uid), guild_id=str(guild_id)),
            INTENT_GUILD_MEMBERS,
            guild_id,
        )
        return self._member_payload(guild_id, uid)

    def _schedule_broadcast(
        self, event: str, make: Callable[[GatewaySession], Any], intent: int, guild_id: int
    ) -> None:
        """World changes after a bot connected are announced like Discord does, to the guild's shard (needs a
        running loop)."""
        sessions = [s for s in self.gateway.reachable_sessions(guild_id) if s.ready and s.has_intent(intent)]
        if not sessions or self.in_outage(guild_id):
            return
        loop = asyncio.get_running_loop()
        for s in sessions:
            loop.create_task(s.dispatch(event, make(s)))

    # ========================================================================================
    # queries
    # ========================================================================================
    def messages(self, channel_id: int, *, user: Optional[UserLike] = None) -> List[Message]:
        """Messages visible in the channel, oldest first. Ephemeral messages are left out unless
        ``user`` is given, in which case those visible to that user are included."""
        uid = int(self._resolve_user(user)["id"]) if user is not None else None
        return [
            m
            for m in self._channel_messages.get(int(channel_id), [])
            if not m.deleted and (not m.ephemeral or (uid is not None and m.visible_to == uid))
        ]

    def dms(self, user: UserLike) -> List[Message]:
        """The direct messages the bot sent ``user``, oldest first."""
        cid = self._dm_ids.get(int(self._resolve_user(user)["id"]))
        return self.messages(cid) if cid is not None else []

    def message(self, message_id: int) -> Message:
        return self._messages[int(message_id)]

    def channel(self, channel_id: int) -> Dict[str, Any]:
        return self._channels[int(channel_id)]

    def threads(self, channel_id: int) -> List[Dict[str, Any]]:
        return [
            c for c in self._channels.values() if c.get("parent_id") == str(channel_id) and c["type"] in THREAD_TYPES
        ]

    @property
    def connected(self) -> bool:
        s = self.gateway.current_session()
        return s is not None and s.live and s.ready

    def connected_for(self, guild_id: Optional[int]) -> bool:
        """Whether a bot session of the guild's shard is live and has its READY and GUILD_CREATEs."""
        s = self.gateway.session_for(guild_id)
        return s is not None and s.live and s.ready

    @property
    def recommended_shards(self) -> int:
        """The shard count GET /gateway/bot recommends: one per ``guilds_per_recommended_shard`` guilds the bot is in,
        and enough that no shard holds more than ``max_guilds_per_shard`` of them."""
        count = max(1, -(-sum(1 for g in self._guilds if self.in_guild(g)) // self.guilds_per_recommended_shard))
        while any(
            sum(1 for g in self._guilds if self.in_guild(g) and (g >> 22) % count == shard) > self.max_guilds_per_shard
            for shard in range(count)
        ):
            count += 1
        return count

    @property
    def sessions(self) -> List[GatewaySession]:
        return sorted(self.gateway.sessions.values(), key=lambda s: s.order)

    # ========================================================================================
    # waiting
    # ========================================================================================
    def _notify(self) -> None:
        for fut in list(self._waiters):
            if not fut.done():
                fut.set_result(None)

    @staticmethod
    def _loop_time() -> float:
        return time.monotonic()

    async def _wait_until(
        self,
        check: Callable[[], bool],
        timeout: float,
        describe: Callable[[], str],
        *,
        poll_deadline: Optional[float] = None,
    ) -> None:
        end = time.monotonic() + timeout
        loop = asyncio.get_running_loop()
        while True:
            if check():
                return
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise EmulatorTimeout(
                    f"timed out after {timeout}s waiting for {describe()}{self._errors_text()}{self._requests_text()}"
                )
            wake = remaining
            if poll_deadline is not None and poll_deadline + 0.01 > time.monotonic():
                wake = min(wake, poll_deadline - time.monotonic() + 0.01)
            fut = loop.create_future()
            self._waiters.add(fut)
            try:
                await asyncio.wait_for(fut, max(wake, 0.001))
            except asyncio.TimeoutError:
                pass
            finally:
                self._waiters.discard(fut)

    def _errors_text(self) -> str:
        if not self.errors:
            return "\nemu.errors: []"
        return "\nemu.errors:\n" + "\n".join(f"  - [{e.kind}] {e}" for e in self.errors)

    def _requests_text(self, n: int = 12) -> str:
        recent = list(self.requests)[-n:]
        if not recent:
            return "\nno REST requests received"
        return "\nlast REST requests:\n" + "\n".join(f"  {m} {p} -> {s}" for m, p, s in recent)

    async def wait_for_ready(self, timeout: float = 10, *, shard: Optional[Tuple[int, int]] = None) -> GatewaySession:
        """Until the most recently identified bot connection (with ``shard``: the most recent one identified as that
        ``(shard_id, num_shards)``) is live and got READY + GUILD_CREATEs."""

        def found() -> Optional[GatewaySession]:
            if shard is None:
                return self.gateway.current_session()
            mine = [s for s in self.gateway.sessions.values() if s.shard == list(shard) and not s.invalidated]
            return max(mine, key=lambda s: s.order) if mine else None

        def check() -> bool:
            session = found()
            return session is not None and session.live and session.ready

        await self._wait_until(
            check, timeout, lambda: f"a bot to connect and identify (shard {shard}); sessions: {self.sessions}"
        )
        session = found()
        assert session is not None
        return session

    async def wait_for_commands(self, timeout: float = 10) -> None:
        await self._wait_until(lambda: self.sync_count > 0, timeout, lambda: "the bot to sync application commands")

    async def wait_for_message(
        self, channel_id: int, predicate: Callable[[Message], bool] = lambda m: True, timeout: float = 10
    ) -> Message:
        found: List[Message] = []

        def check() -> bool:
            for m in self.messages(channel_id):
                if predicate(m):
                    found.append(m)
                    return True
            return False

        await self._wait_until(
            check,
            timeout,
            lambda: f"a matching message in channel {channel_id}; visible now: {self.messages(channel_id)}",
        )
        return found[0]

    async def wait_for_error(
        self, predicate: Callable[[RecordedError], bool] = lambda e: True, timeout: float = 10
    ) -> RecordedError:
        found: List[RecordedError] = []

        def check() -> bool:
            for e in self.errors:
                if predicate(e):
                    found.append(e)
                    return True
            return False

        await self._wait_until(check, timeout, lambda: "a matching entry in emu.errors")
        return found[0]

    # ========================================================================================
    # rate limits (ratelimits.py) and Discord's other limits (caps.py)
    # ========================================================================================
    @property
    def old_message_edits(self) -> int:
        """Edits of messages older than an hour allowed per hour before 30046 (default 0; Discord's number is
        not published)."""
        return self.old_edits.allowed

    @old_message_edits.setter
    def old_message_edits(self, value: int) -> None:
        self.old_edits.allowed = value

    async def set_slowmode(self, channel_id: int, seconds: int) -> None:
        """Set a channel's ``rate_limit_per_user`` (0-21600 s; 0 turns slowmode off) and send CHANNEL_UPDATE."""
        if not 0 <= seconds <= SLOWMODE_MAX:
            raise ValueError(f"rate_limit_per_user must be 0-{SLOWMODE_MAX}, not {seconds}")
        channel = self._channels[int(channel_id)]
        channel["rate_limit_per_user"] = seconds
        await self._broadcast("CHANNEL_UPDATE", self._channel_payload(int(channel_id)), int(channel["guild_id"]))

    def _check_slowmode(self, channel_id: int, user_id: int) -> None:
        """Slowmode as Discord's Channel resource describes ``rate_limit_per_user``: "bots, as well as users with
        the permission manage_messages or manage_channel, are unaffected" (bots bound only with
        ``slowmode_applies_to_bots``). Raises the 429 20016 refusal, or notes the post."""
        channel = self._channels.get(channel_id)
        seconds = (channel or {}).get("rate_limit_per_user") or 0
        now = time.monotonic()
        key = (channel_id, user_id)
        exempt = (user_id == self.application_id and not self.slowmode_applies_to_bots) or (
            self._channel_permissions(channel_id, user_id) & (P["manage_messages"] | P["manage_channels"])
        )
        if seconds and not exempt and key in self._last_post and now - self._last_post[key] < seconds:
            raise slowmode_refusal(seconds - (now - self._last_post[key]))
        self._last_post[key] = now

    def invalid_requests(self, window: float = 600) -> int:
        """REST answers with status 401, 403 or 429 in the last ``window`` seconds (429s of scope ``shared`` not
        counted): what Discord's invalid-request limit counts (10,000 per 10 minutes, then a Cloudflare ban)."""
        return self.rate_limits.invalid_requests(window)

    def not_found_requests(self, window: float = 600) -> int:
        """REST answers with status 404 in the last ``window`` seconds (Discord restricts repeated 404s too)."""
        return self.rate_limits.not_found_requests(window)

    @property
    def ratelimited(self) -> List[RateLimited]:
        """Every 429 the emulator's rate limits sent, in order: ``RateLimited(route, scope, global_)``."""
        return self.rate_limits.ratelimited

    # ========================================================================================
    # errors / ids
    # ========================================================================================
    def _record(self, kind: str, description: str, **kw: Any) -> RecordedError:
        err = RecordedError(kind=kind, description=description, **kw)
        self.errors.append(err)
        log.warning("emulator recorded %s: %s", kind, description)
        it = self._interactions.get(kw.get("interaction_id") or 0)
        if it is not None:
            it.rejected.append(err)
        self._notify()
        return err

    def _new_id(self) -> int:
        return self._ids()

    # ========================================================================================
    # model helpers used by the REST and gateway halves
    # ========================================================================================
    def _guild(self, guild_id: int) -> Dict[str, Any]:
        try:
            return self._guilds[int(guild_id)]
        except KeyError:
            raise EmulatorAssertion(f"unknown guild {guild_id}; create it with emu.create_guild()") from None

    def _resolve_user(self, user: UserLike) -> Dict[str, Any]:
        if isinstance(user, dict):
            uid = int(user["id"])
        else:
            uid = int(user)
        try:
            return self._users[uid]
        except KeyError:
            raise EmulatorAssertion(f"unknown user {user!r}; create it with emu.create_user()") from None

    def _base_permissions(self, guild_id: int, user_id: int) -> int:
        guild = self._guilds[guild_id]
        if user_id == guild["owner_id"]:
            return ALL_PERMISSIONS
        member = guild["members"].get(user_id)
        perms = int(guild["roles"][guild_id]["permissions"])
        if member is not None:
            for rid in member["roles"]:
                role = guild["roles"].get(rid)
                if role is not None:
                    perms |= int(role["permissions"])
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def _channel_permissions(self, channel_id: int, user_id: int) -> int:
        channel = self._channels[channel_id]
        gid = int(channel["guild_id"])
        if user_id not in self._guilds[gid]["members"]:
            return 0  # not (or no longer) in the guild
        perms = self._base_permissions(gid, user_id)
        if perms == ALL_PERMISSIONS:
            return perms
        if channel["type"] in THREAD_TYPES:
            channel = self._channels[int(channel["parent_id"])]
        overwrites = {int(o["id"]): o for o in channel.get("permission_overwrites") or []}
        member = self._guilds[gid]["members"].get(user_id) or {"roles": []}
        ow = overwrites.get(gid)
        if ow:
            perms = (perms & ~int(ow.get("deny", 0))) | int(ow.get("allow", 0))
        allow = deny = 0
        for rid in member["roles"]:
            ow = overwrites.get(rid)
            if ow and int(ow.get("type", 0)) == 0:
                allow |= int(ow.get("allow", 0))
                deny |= int(ow.get("deny", 0))
        perms = (perms & ~deny) | allow
        ow = overwrites.get(user_id)
        if ow and int(ow.get("type", 1)) == 1:
            perms = (perms & ~int(ow.get("deny", 0))) | int(ow.get("allow", 0))
        if not perms & P["view_channel"]:
            return 0
        return perms

    def _member_payload(
        self, guild_id: int, user_id: int, *, with_user: bool = True, channel_id: Optional[int] = None
    ) -> Dict[str, Any]:
        member = self._guilds[guild_id]["members"][user_id]
        payload: Dict[str, Any] = {
            "roles": [str(r) for r in member["roles"]],
            "joined_at": iso(member["joined_at"]),
            "nick": member.get("nick"),
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
            "avatar_decoration_data": None,
        }
        if with_user:
            payload["user"] = self._users[user_id]
        if channel_id is not None:
            payload["permissions"] = str(self._channel_permissions(channel_id, user_id))
        return payload

    def _channel_payload(self, channel_id: int) -> Dict[str, Any]:
        return {k: v for k, v in self._channels[channel_id].items() if not k.startswith("_")}

    def _guild_payload(self, guild_id: int) -> Dict[str, Any]:
        g = self._guilds[guild_id]
        return {
            "id": str(guild_id),
            "name": g["name"],
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(g["owner_id"]),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "widget_enabled": False,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": list(g["roles"].values()),
            "emojis": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": g["preferred_locale"],
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "stickers": [],
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            "home_header": None,
            "region": "deprecated",
            "widget_channel_id": None,
            "max_presences": None,
            "max_stage_video_channel_users": 50,
            "max_video_channel_users": 25,
            "nsfw": False,
            "incidents_data": None,
        }

    def _guild_create_payload(self, guild_id: int, session: GatewaySession) -> Dict[str, Any]:
        g = self._guilds[guild_id]
        payload = self._guild_payload(guild_id)
        # Discord: without GUILD_PRESENCES, GUILD_CREATE's member list only has the bot itself.
        if session.has_intent(INTENT_GUILD_PRESENCES):
            member_ids = list(g["members"])
        else:
            member_ids = [self.application_id]
        payload.update(
            {
                "joined_at": iso(g["joined_at"]),
                "large": False,
                "unavailable": False,
                "member_count": len(g["members"]),
                "members": [self._member_payload(guild_id, uid) for uid in member_ids],
                "channels": [
                    self._channel_payload(c) for c in g["channels"] if self._channels[c]["type"] not in THREAD_TYPES
                ],
                "threads": [
                    self._channel_payload(c)
                    for c in g["channels"]
                    if self._channels[c]["type"] in THREAD_TYPES
                    and not self._channels[c]["thread_metadata"]["archived"]
                ],
                "voice_states": [],
                "presences": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
            }
        )
        return payload

    def attachment_url(self, channel_id: int, attachment_id: int, filename: str) -> str:
        return f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{urllib.parse.quote(filename)}"

    def _make_attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        content_type: Optional[str],
        description: Optional[str] = None,
        ephemeral: bool = False,
    ) -> Attachment:
        aid = self._ids()
        ctype = content_type if content_type and content_type != "application/octet-stream" else None
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            ctype = "image/png"
        ctype = ctype or mimetypes.guess_type(filename)[0] or "application/octet-stream"
        att = Attachment(
            aid,
            filename,
            data,
            ctype,
            url=self.attachment_url(channel_id, aid, filename),
            description=description,
            ephemeral=ephemeral,
        )
        self._attachments[aid] = att
        return att

    def _store_message(self, msg: Message) -> None:
        if msg.created_clock is None:
            msg.created_clock = self.clock()
        self._messages[msg.id] = msg
        self._channel_messages.setdefault(msg.channel_id, []).append(msg)
        channel = self._channels.get(msg.channel_id)
        if channel is not None and not msg.ephemeral:
            channel["last_message_id"] = str(msg.id)
            if channel["type"] in THREAD_TYPES:
                channel["message_count"] = channel.get("message_count", 0) + 1
                channel["total_message_sent"] = channel.get("total_message_sent", 0) + 1

    async def _dispatch_message_event(self, event: str, msg: Message) -> None:
        """MESSAGE_CREATE / MESSAGE_UPDATE / MESSAGE_DELETE to connected bots (never for ephemeral)."""
        if msg.ephemeral or (msg.guild_id and self.in_outage(msg.guild_id)):
            return
        for s in self.gateway.reachable_sessions(msg.guild_id):
            if not s.ready or not s.has_intent(INTENT_GUILD_MESSAGES):
                continue
            if event == "MESSAGE_DELETE":
                data: Dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
                if msg.guild_id:
                    data["guild_id"] = str(msg.guild_id)
            else:
                data = msg.to_payload(include_guild=True)
                author_id = int(msg.author["id"])
                if msg.guild_id and author_id in self._guilds[msg.guild_id]["members"] and not msg.webhook_id:
                    data["member"] = self._member_payload(msg.guild_id, author_id, with_user=False)
                mentioned = f"<@{self.application_id}>" in msg.content
                if author_id != self.application_id and not s.has_intent(INTENT_MESSAGE_CONTENT) and not mentioned:
                    data.update(content="", embeds=[], attachments=[], components=[])
            await s.dispatch(event, data)

    # ========================================================================================
    # test-facing actions
    # ========================================================================================
    async def post_message(self, user: UserLike, channel_id: int, content: str) -> Message:
        """A user writes a plain message in a channel (dispatched as MESSAGE_CREATE). In slowmode
        (:meth:`set_slowmode`) a user without Manage Messages or Manage Channels who posted there less than
        ``rate_limit_per_user`` seconds ago can't: EmulatorAssertion (their client would refuse)."""
        u = self._resolve_user(user)
        channel = self._channels[int(channel_id)]
        try:
            self._check_slowmode(int(channel_id), int(u["id"]))
        except APIError as err:
            raise EmulatorAssertion(f"{u['username']} is in slowmode in channel {channel_id}: {err.detail}") from None
        gid = int(channel["guild_id"])
        msg = Message(id=self._ids(), channel_id=int(channel_id), guild_id=gid, author=u, content=content)
        self._store_message(msg)
        await self._dispatch_message_event("MESSAGE_CREATE", msg)
        self._notify()
        return msg

    # -- gateway faults (https://discord.com/developers/docs/events/gateway) -------------------
    def _live_session(self, what: str, guild_id: Optional[int] = None) -> GatewaySession:
        """The live session that gets ``guild_id``'s events (None: the most recently identified one)."""
        session = self.gateway.session_for(guild_id) if guild_id is not None else self.gateway.current_session()
        if session is None or not session.live:
            raise EmulatorAssertion(f"no live bot connection to {what}; sessions: {self.sessions}")
        return session

    async def request_reconnect(self, guild_id: Optional[int] = None) -> None:
        """Send op 7 RECONNECT to the current connection (of ``guild_id``'s shard): discord.py closes (4000) and
        RESUMEs. Events sent meanwhile (interactions too) wait in the session and are replayed on RESUME."""
        session = self._live_session("ask for a reconnect", guild_id)
        session.expect_resume = True
        await session.conn.send({"op": 7, "d": None, "s": None, "t": None})  # type: ignore[union-attr]

    async def drop_connection(self, code: int = 4000, guild_id: Optional[int] = None) -> None:
        """Close the current websocket (of ``guild_id``'s shard) from the server side with close code ``code``:
        4000 a network blip, 4008 rate limited (what Discord sends past 120 payloads a minute), 4009 session timed
        out, ...; 1006 drops the TCP connection without a close frame (an abnormal closure). The session stays
        resumable (any code but 1000/1001): discord.py RESUMEs and gets the events sent meanwhile."""
        session = self._live_session("drop", guild_id)
        session.expect_resume = True
        await session.conn.close(code, "Dropped by test")  # type: ignore[union-attr]
        self._notify()

    async def invalidate_session(self, resumable: bool = False, guild_id: Optional[int] = None) -> None:
        """Send op 9 INVALID_SESSION to the current connection (of ``guild_id``'s shard). ``resumable=False``
        (``d: false``): the session is gone; discord.py closes (1000) and IDENTIFYs anew via DEFAULT_GATEWAY (after
        its own 5 s wait unless ``before_identify_hook`` skips it); what was sent to the old session is lost with it.
        ``resumable=True`` (``d: true``): discord.py closes (4000) and RESUMEs the same session."""
        session = self._live_session("invalidate", guild_id)
        if resumable:
            session.expect_resume = True
        else:
            session.invalidated = True
        await session.conn.send({"op": 9, "d": resumable, "s": None, "t": None})  # type: ignore[union-attr]

    async def request_heartbeat(self, timeout: float = 5.0, guild_id: Optional[int] = None) -> Any:
        """Ask the current connection (of ``guild_id``'s shard) for a heartbeat at once (op 1, as Discord may), and
        wait for the client's answer: a heartbeat (op 1) sent after the request, which the server ACKs as any other.
        Returns the heartbeat's ``d``: the last sequence number the client received.

        Raises:
            EmulatorTimeout: no heartbeat within ``timeout`` seconds.
        """
        session = self._live_session("ask for a heartbeat", guild_id)
        conn = session.conn
        assert conn is not None
        before = conn.heartbeats
        conn.heartbeat_requests += 1
        await conn.send({"op": 1, "d": None, "s": None, "t": None})
        await self._wait_until(
            lambda: conn.heartbeats > before,
            timeout,
            lambda: (
                f"a heartbeat answering op 1 on gateway#{conn.number} "
                f"(closed: {conn.closed}, close code {conn.close_code})"
            ),
        )
        return conn.heartbeat_log[before][1]

    def stop_heartbeat_acks(self, *, hold_events: bool = True, guild_id: Optional[int] = None) -> None:
        """Make the current connection (of ``guild_id``'s shard) a zombie: its heartbeats get no ACK (op 11) any
        more. With ``hold_events`` (the default) nothing else reaches the client either -- a link that died on the
        way to it: dispatches stay in the session's buffer, and RESUME replays them. discord.py 2.7 notices only
        silence: nothing received for its ``heartbeat_timeout`` (Client option, 60 s by default); it then closes
        (4000) and RESUMEs on a new connection, which is healthy. ``hold_events=False`` stops only the ACKs, which
        discord.py does not notice while events keep coming. Ends with :meth:`resume_heartbeat_acks` or with the
        connection."""
        session = self._live_session("make a zombie", guild_id)
        conn = session.conn
        assert conn is not None
        conn.acking = False
        conn.holding = hold_events
        session.expect_resume = True

    def resume_heartbeat_acks(self) -> "asyncio.Task[None]":
        """End every zombie connection still open: ACKs again, and what it held back is sent, in order. Needs a
        running loop; returns the task sending what was held (await it to know it is out; no need to)."""
        zombies = [c for c in self.gateway.connections if not c.closed and (not c.acking or c.holding)]
        for conn in zombies:
            conn.acking = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.expect_resume = False

        async def release() -> None:
            for conn in zombies:
                await conn.release()

        return asyncio.get_running_loop().create_task(release())

    # -- guild outages ----------------------------------------------------------------------
    def in_outage(self, guild_id: int) -> bool:
        """Whether the guild is unavailable (:meth:`guild_outage`)."""
        guild = self._guilds.get(int(guild_id))
        return bool(guild and guild.get("outage"))

    async def guild_outage(self, guild_id: int) -> None:
        """The guild becomes unavailable, as in a Discord outage: GUILD_DELETE with ``unavailable: true`` (the bot
        was NOT removed; discord.py fires ``on_guild_unavailable``, not ``on_guild_remove``). Until
        :meth:`end_guild_outage`: nobody can create interactions there (the helpers raise EmulatorAssertion), no other
        event of the guild is sent, a bot identifying meanwhile gets it unavailable (GUILD_DELETE, no GUILD_CREATE),
        and REST on the guild, its channels and its interactions answers 503 ``{"message": "503: Service
        Unavailable", "code": 0}`` (recorded in ``emu.errors`` as kind ``outage``)."""
        guild = self._guild(guild_id)
        if guild.get("outage"):
            raise EmulatorAssertion(f"guild {guild_id} is already in an outage")
        guild["outage"] = True
        for s in self._ready_sessions(guild_id):
            await s.dispatch("GUILD_DELETE", {"id": str(guild_id), "unavailable": True})
        self._notify()

    async def end_guild_outage(self, guild_id: int) -> None:
        """The guild is available again: GUILD_CREATE (``unavailable: false``, the whole guild) to the sessions of its
        shard; discord.py fires ``on_guild_available``."""
        guild = self._guild(guild_id)
        if not guild.get("outage"):
            raise EmulatorAssertion(f"guild {guild_id} is not in an outage")
        guild["outage"] = False
        for s in self._ready_sessions(guild_id):
            await s.dispatch("GUILD_CREATE", self._guild_create_payload(int(guild_id), s))
        self._notify()

    def _ready_sessions(self, guild_id: int) -> List[GatewaySession]:
        """The ready sessions that get the guild's events (live, or away after a fault: they get them on RESUME)."""
        return [s for s in self.gateway.reachable_sessions(guild_id) if s.ready and s.has_intent(INTENT_GUILDS)]

    # -- the world changing under a connected bot (each change announced as Discord does) ----
    async def _broadcast(self, event: str, payload: Any, guild_id: int, intent: int = INTENT_GUILDS) -> None:
        """Dispatch a guild's event to the ready sessions of its shard (none while the guild is in an outage)."""
        if self.in_outage(guild_id):
            return
        for s in self.gateway.reachable_sessions(guild_id):  # those away after a fault get it on RESUME
            if s.ready and s.has_intent(intent):
                await s.dispatch(event, payload)
        self._notify()

    def in_guild(self, guild_id: int) -> bool:
        """Whether the bot is (still) a member of the guild."""
        guild = self._guilds.get(int(guild_id))
        return guild is not None and self.application_id in guild["members"]

    async def delete_channel(self, channel_id: int) -> None:
        """Delete a channel or thread, as a server admin would. Discord sends CHANNEL_DELETE (THREAD_DELETE for a
        thread); the threads of a deleted channel go with it without events of their own (discord.py drops them
        from its cache itself). Afterwards every REST call on it answers 404 Unknown Channel (10003); its
        messages stay readable here for the test."""
        channel = self._channels.get(int(channel_id))
        if channel is None:
            raise EmulatorAssertion(f"unknown channel {channel_id}")
        gid = int(channel["guild_id"])
        doomed = [int(channel_id)] + [int(t["id"]) for t in self.threads(int(channel_id))]
        for cid in doomed:
            self._channels.pop(cid, None)
            if cid in self._guilds[gid]["channels"]:
                self._guilds[gid]["channels"].remove(cid)
        payload = {k: v for k, v in channel.items() if not k.startswith("_")}
        if channel["type"] in THREAD_TYPES:
            await self._broadcast(
                "THREAD_DELETE",
                {
                    "id": channel["id"],
                    "guild_id": channel["guild_id"],
                    "parent_id": channel["parent_id"],
                    "type": channel["type"],
                },
                gid,
            )
        else:
            await self._broadcast("CHANNEL_DELETE", payload, gid)

    async def set_permission_overwrite(
        self, channel_id: int, target: Union[UserLike, int], *, allow: int = 0, deny: int = 0, role: bool = False
    ) -> None:
        """Set (or, with ``allow`` and ``deny`` both 0, remove) a channel's permission overwrite for a member
        (``target`` a user) or a role (``role=True``; the guild id is @everyone), and send CHANNEL_UPDATE.
        The bot's permissions there (REST checks, ``app_permissions`` of interactions) follow at once."""
        channel = self._channels.get(int(channel_id))
        if channel is None or channel["type"] in THREAD_TYPES:
            raise EmulatorAssertion(f"{channel_id} is not a channel with permission overwrites")
        target_id = int(target) if role else int(self._resolve_user(target)["id"])  # type: ignore[arg-type]
        overwrites = [o for o in channel.get("permission_overwrites") or [] if int(o["id"]) != target_id]
        if allow or deny:
            overwrites.append({"id": str(target_id), "type": 0 if role else 1, "allow": str(allow), "deny": str(deny)})
        channel["permission_overwrites"] = overwrites
        await self._broadcast("CHANNEL_UPDATE", self._channel_payload(int(channel_id)), int(channel["guild_id"]))

    async def update_thread(
        self, thread_id: int, *, archived: Optional[bool] = None, locked: Optional[bool] = None
    ) -> None:
        """Archive/unarchive and lock/unlock a thread, as a moderator (or Discord's auto-archive) would, and send
        THREAD_UPDATE. An archived thread is unarchived by the next message posted in it unless it is locked;
        a locked one only by someone with Manage Threads (see the REST half)."""
        thread = self._channels.get(int(thread_id))
        if thread is None or thread["type"] not in THREAD_TYPES:
            raise EmulatorAssertion(f"{thread_id} is not a thread")
        await self._change_thread(thread, archived=archived, locked=locked)

    async def _change_thread(
        self, thread: Dict[str, Any], *, archived: Optional[bool] = None, locked: Optional[bool] = None
    ) -> None:
        meta = thread["thread_metadata"]
        if archived is not None and archived != meta["archived"]:
            meta["archived"] = archived
            meta["archive_timestamp"] = iso(time.time())
        if locked is not None:
            meta["locked"] = locked
        await self._broadcast("THREAD_UPDATE", self._channel_payload(int(thread["id"])), int(thread["guild_id"]))

    async def remove_member(self, guild_id: int, user: UserLike) -> None:
        """A member leaves or is kicked. For the bot itself Discord sends GUILD_DELETE (no ``unavailable``): it
        gets no events or interactions from the guild any more, and REST calls on the guild's channels answer
        403 Missing Access (50001). For anyone else GUILD_MEMBER_REMOVE goes to bots with the members intent."""
        guild = self._guild(guild_id)
        uid = int(self._resolve_user(user)["id"])
        if uid not in guild["members"]:
            raise EmulatorAssertion(f"user {uid} is not a member of guild {guild_id}")
        del guild["members"][uid]
        if uid == self.application_id:
            await self._broadcast("GUILD_DELETE", {"id": str(guild_id)}, guild_id)
        else:
            await self._broadcast(
                "GUILD_MEMBER_REMOVE",
                {"guild_id": str(guild_id), "user": self._users[uid]},
                guild_id,
                INTENT_GUILD_MEMBERS,
            )

    # -- slash commands ----------------------------------------------------------------------
    def _find_command(self, guild_id: Optional[int], name: str, ctype: int = 1) -> Tuple[Dict[str, Any], bool]:
        if guild_id is not None:
            for cmd in self.guild_commands.get(guild_id, []):
                if cmd["name"] == name and cmd.get("type", 1) == ctype:
                    return cmd, True
        for cmd in self.commands:
            if cmd["name"] == name and cmd.get("type", 1) == ctype:
                return cmd, False
        known = sorted(
            {c["name"] for c in self.commands + self.guild_commands.get(guild_id or 0, []) if c.get("type", 1) == ctype}
        )
        raise EmulatorAssertion(
            f"command {name!r} (type {ctype}) was not synced by the bot (global or in guild {guild_id}); "
            f"synced: {known}; sync count {self.sync_count}"
        )

    def mention(self, guild_id: Optional[int], command: str) -> str:
        """How a message mentions the synced slash command ``command`` ("hong place") in ``guild_id``: ``</hong
        place:ID>`` with the id this emulator gave the top-level command (the guild's command if synced there,
        else the global one), as Discord's client reads it."""
        cmd, _is_guild, _chain, _leaf = self._resolve_path(guild_id, command)
        return f"</{command}:{cmd['id']}>"

    def _resolve_path(
        self, guild_id: Optional[int], command: str
    ) -> Tuple[Dict[str, Any], bool, List[Dict[str, Any]], List[Dict[str, Any]]]:
        """-> (top-level command, is_guild_command, chain of subcommand/group option defs, leaf option defs)"""
        parts = command.split()
        if not parts:
            raise EmulatorAssertion("empty command name")
        cmd, is_guild = self._find_command(guild_id, parts[0])
        chain: List[Dict[str, Any]] = []
        options = cmd.get("options") or []
        for part in parts[1:]:
            sub = limits.option_by_name(options, part)
            if sub is None or sub.get("type") not in (1, 2):
                subs = [o["name"] for o in options if o.get("type") in (1, 2)]
                raise EmulatorAssertion(
                    f"/{command}: {part!r} is not a subcommand or group of "
                    f"/{' '.join(parts[: parts.index(part)])}; available: {subs}"
                )
            chain.append(sub)
            options = sub.get("options") or []
        if any(o.get("type") in (1, 2) for o in options):
            subs = [o["name"] for o in options if o.get("type") in (1, 2)]
            raise EmulatorAssertion(f"/{command} needs a subcommand; available: {subs}")
        return cmd, is_guild, chain, options

    def _check_can_use(self, cmd: Dict[str, Any], guild_id: int, channel_id: int, uid: int, label: str) -> None:
        perms = self._channel_permissions(channel_id, uid)
        if not perms & P["view_channel"]:
            raise EmulatorAssertion(f"user {uid} cannot see channel {channel_id}")
        if not perms & P["use_application_commands"]:
            raise EmulatorAssertion(
                f"user {uid} lacks Use Application Commands in channel {channel_id}; "
                f"Discord would not let them run /{label}"
            )
        dmp = cmd.get("default_member_permissions")
        if dmp is not None and cmd.get("name") in self.command_overrides.get(guild_id, ()):
            dmp = None  # an admin allowed this command for everyone in the server
        if dmp is not None:
            needed = int(dmp)
            if perms != ALL_PERMISSIONS and (needed == 0 or perms & needed != needed):
                raise EmulatorAssertion(
                    f"/{label} has default_member_permissions={needed} and user {uid} (permissions {perms}) "
                    f"does not have them: Discord hides the command from this user"
                )
        contexts = cmd.get("contexts")
        if contexts is not None and 0 not in contexts:
            raise EmulatorAssertion(f"/{label} is not allowed in guilds (contexts={contexts})")

    def _convert_option(
        self,
        opt: Dict[str, Any],
        value: Any,
        guild_id: int,
        channel_id: int,
        resolved: Dict[str, Dict[str, Any]],
        label: str,
    ) -> Any:
        otype = opt["type"]
        name = opt["name"]
        where = f"/{label} option {name!r}"
        if otype == limits.OPT_STRING:
            if not isinstance(value, str):
                raise EmulatorAssertion(f"{where} is a string option; got {value!r}")
            lo, hi = opt.get("min_length"), opt.get("max_length")
            if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi) or len(value) > 6000:
                raise EmulatorAssertion(f"{where}: length {len(value)} outside [{lo}, {hi}]")
        elif otype == limits.OPT_INTEGER:
            if not isinstance(value, int) or isinstance(value, bool):
                raise EmulatorAssertion(f"{where} is an integer option; got {value!r}")
        elif otype == limits.OPT_NUMBER:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise EmulatorAssertion(f"{where} is a number option; got {value!r}")
        elif otype == limits.OPT_BOOLEAN:
            if not isinstance(value, bool):
                raise EmulatorAssertion(f"{where} is a boolean option; got {value!r}")
        if otype in (limits.OPT_INTEGER, limits.OPT_NUMBER):
            lo, hi = opt.get("min_value"), opt.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise EmulatorAssertion(f"{where}: {value} outside [{lo}, {hi}]; Discord would not send it")
        if otype in (3, 4, 10) and opt.get("choices"):
            values = [c["value"] for c in opt["choices"]]
            if value not in values:
                raise EmulatorAssertion(f"{where} only accepts its choices {values}; got {value!r}")
        if otype in (3, 4, 5, 10):
            return value
        if otype == limits.OPT_USER or (otype == limits.OPT_MENTIONABLE and self._is_user(value)):
            u = self._resolve_user(value)
            uid = int(u["id"])
            resolved.setdefault("users", {})[u["id"]] = u
            if uid in self._guilds[guild_id]["members"]:
                resolved.setdefault("members", {})[u["id"]] = self._member_payload(
                    guild_id, uid, with_user=False, channel_id=channel_id
                )
            return u["id"]
        if otype in (limits.OPT_ROLE, limits.OPT_MENTIONABLE):
            rid = int(value["id"] if isinstance(value, dict) else value)
            role = self._guilds[guild_id]["roles"].get(rid)
            if role is None:
                raise EmulatorAssertion(f"{where}: unknown role {value!r}")
            resolved.setdefault("roles", {})[str(rid)] = role
            return str(rid)
        if otype == limits.OPT_CHANNEL:
            cid = int(value["id"] if isinstance(value, dict) else value)
            ch = self._channels.get(cid)
            if ch is None or ch["guild_id"] != str(guild_id):
                raise EmulatorAssertion(f"{where}: unknown channel {value!r} in guild {guild_id}")
            types = opt.get("channel_types")
            if types and ch["type"] not in types:
                raise EmulatorAssertion(f"{where} accepts channel types {types}; channel {cid} is type {ch['type']}")
            entry = {k: ch[k] for k in ("id", "name", "type", "parent_id", "guild_id") if k in ch}
            entry["permissions"] = str(self._channel_permissions(cid, self.application_id))
            if ch["type"] in THREAD_TYPES:
                entry["thread_metadata"] = ch["thread_metadata"]
            resolved.setdefault("channels", {})[str(cid)] = entry
            return str(cid)
        if otype == limits.OPT_ATTACHMENT:
            if isinstance(value, Attachment):
                att = value
            else:
                filename, data = value
                att = self._make_attachment(channel_id, filename, data, None, ephemeral=True)
            resolved.setdefault("attachments", {})[str(att.id)] = att.to_payload()
            return str(att.id)
        raise EmulatorAssertion(f"{where}: unsupported option type {otype}")

    def _check_reachable(self, channel_id: int, what: str) -> None:
        """Discord sends no interaction from a deleted channel, a guild the bot left, or an archived thread."""
        channel = self._channels.get(channel_id)
        if channel is None:
            raise EmulatorAssertion(f"channel {channel_id} does not exist (deleted?): nobody can use {what} there")
        if not self.in_guild(int(channel["guild_id"])):
            raise EmulatorAssertion(f"the bot is not in guild {channel['guild_id']}: Discord would not send {what}")
        if self.in_outage(int(channel["guild_id"])):
            raise EmulatorAssertion(f"guild {channel['guild_id']} is in an outage (unavailable): nobody can use {what}")
        if channel["type"] in THREAD_TYPES and channel["thread_metadata"].get("archived"):
            raise EmulatorAssertion(f"thread {channel_id} is archived: users cannot use {what} in archived threads")

    def _is_user(self, value: Any) -> bool:
        if isinstance(value, dict):
            return "username" in value
        try:
            return int(value) in self._users
        except (TypeError, ValueError):
            return False

    def _command_target(self, user: UserLike, channel_id: int, command: str):
        """-> (guild id, top-level command, is_guild_command, chain, leaf option defs) for a user who may run it."""
        channel = self._channels.get(int(channel_id))
        if channel is None:
            raise EmulatorAssertion(f"unknown channel {channel_id}; create it with emu.create_channel()")
        gid = int(channel["guild_id"])
        u = self._resolve_user(user)
        uid = int(u["id"])
        if uid not in self._guilds[gid]["members"]:
            raise EmulatorAssertion(f"user {u['username']} is not a member of guild {gid}; use emu.add_member()")
        self._check_reachable(int(channel_id), f"/{command}")
        cmd, is_guild, chain, defs = self._resolve_path(gid, command)
        self._check_can_use(cmd, gid, int(channel_id), uid, command)
        return gid, cmd, is_guild, chain, defs

    @staticmethod
    def _command_data(
        cmd: Dict[str, Any],
        is_guild: bool,
        gid: int,
        chain: List[Dict[str, Any]],
        opts: List[Dict[str, Any]],
        resolved: Dict[str, Dict[str, Any]],
    ) -> Dict[str, Any]:
        for link in reversed(chain):
            opts = [{"type": link["type"], "name": link["name"], "options": opts}]
        data: Dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if is_guild:
            data["guild_id"] = str(gid)
        return data

    def _build_command_data(
        self, user: UserLike, channel_id: int, command: str, options: Dict[str, Any], focused: Optional[str] = None
    ) -> Tuple[Dict[str, Any], Dict[str, Any], Optional[Dict[str, Any]]]:
        gid, cmd, is_guild, chain, defs = self._command_target(user, channel_id, command)
        unknown = set(options) - {d["name"] for d in defs}
        if unknown:
            raise EmulatorAssertion(
                f"/{command} has no option(s) {sorted(unknown)}; the synced options are "
                f"{[(d['name'], d['type'], 'required' if d.get('required') else 'optional') for d in defs]}"
            )
        focused_def = None
        if focused is not None:
            focused_def = limits.option_by_name(defs, focused)
            if focused_def is None:
                raise EmulatorAssertion(f"/{command} has no option {focused!r} to autocomplete")
            if not focused_def.get("autocomplete"):
                raise EmulatorAssertion(f"/{command} option {focused!r} does not have autocomplete enabled")
        else:
            missing = [d["name"] for d in defs if d.get("required") and d["name"] not in options]
            if missing:
                raise EmulatorAssertion(
                    f"/{command} is missing required option(s) {missing}; Discord would not send it"
                )
        resolved: Dict[str, Dict[str, Any]] = {}
        opts: List[Dict[str, Any]] = []
        for d in defs:  # Discord sends options in the order the user filled them; definition order is fine
            if d["name"] not in options:
                continue
            value = options[d["name"]]
            if d["name"] == focused:
                opts.append(
                    {
                        "type": d["type"],
                        "name": d["name"],
                        "value": value if isinstance(value, str) else str(value),
                        "focused": True,
                    }
                )
                continue
            opts.append(
                {
                    "type": d["type"],
                    "name": d["name"],
                    "value": self._convert_option(d, value, gid, int(channel_id), resolved, command),
                }
            )
        return self._command_data(cmd, is_guild, gid, chain, opts, resolved), cmd, focused_def

    async def slash_unchecked(
        self,
        user: UserLike,
        channel_id: int,
        command: str,
        /,
        *,
        types: Optional[Dict[str, int]] = None,
        **options: Any,
    ) -> Interaction:
        """Invoke a synced command with options Discord's own client would never send — what a broken or outdated
        client, or a command schema changed since the client loaded it, can produce: values go out as given, with
        no type, choice, range or required-option check. ``types`` overrides an option's type (default: the synced
        one; 3, string, for a name the schema lacks). A user/channel/role value naming a known one is resolved as
        usual; anything else goes out bare, with no ``resolved`` entry."""
        gid, cmd, is_guild, chain, defs = self._command_target(user, channel_id, command)
        resolved: Dict[str, Dict[str, Any]] = {}
        opts: List[Dict[str, Any]] = []
        for name, value in options.items():
            d = dict(limits.option_by_name(defs, name) or {"name": name, "type": limits.OPT_STRING})
            d["type"] = (types or {}).get(name, d["type"])
            d.pop("choices", None)
            if d["type"] in (
                limits.OPT_USER,
                limits.OPT_CHANNEL,
                limits.OPT_ROLE,
                limits.OPT_MENTIONABLE,
                limits.OPT_ATTACHMENT,
            ):
                try:
                    value = self._convert_option(d, value, gid, int(channel_id), resolved, command)
                except (EmulatorAssertion, TypeError, ValueError, KeyError):
                    pass  # not a known one: sent as given
            opts.append({"type": d["type"], "name": name, "value": value})
        data = self._command_data(cmd, is_guild, gid, chain, opts, resolved)
        return await self._dispatch_interaction(
            APPLICATION_COMMAND, user, int(channel_id), data, command=cmd, description=f"/{command} (unchecked options)"
        )

    async def slash(self, user: UserLike, channel_id: int, command: str, /, **options: Any) -> Interaction:
        """Invoke a synced chat-input command as ``user`` in ``channel_id``.

        ``command`` is the full name ("hongkong challenge"); options are matched against the synced
        definition (user options take a user dict or id; bool/int/str/float as Python values; channel
        and role options take ids; attachment options take ``(filename, bytes)``)."""
        data, cmd, _ = self._build_command_data(user, channel_id, command, options)
        return await self._dispatch_interaction(
            APPLICATION_COMMAND, user, int(channel_id), data, command=cmd, description=f"/{command}"
        )

    async def autocomplete(
        self, user: UserLike, channel_id: int, command: str, /, *, focused: str, **options: Any
    ) -> List[Dict[str, Any]]:
        """Send an autocomplete interaction while ``user`` types ``options[focused]``; returns the
        choices the bot answered with (raises InteractionFailed if it gave no valid answer in time)."""
        if focused not in options:
            options[focused] = ""
        data, cmd, focused_def = self._build_command_data(user, channel_id, command, options, focused=focused)
        it = await self._dispatch_interaction(
            APPLICATION_COMMAND_AUTOCOMPLETE,
            user,
            int(channel_id),
            data,
            command=cmd,
            focused_option=focused_def,
            description=f"autocomplete /{command} {focused}={options[focused]!r}",
        )
        response = await it.wait_response(timeout=self.response_deadline + 1, fail_on_refusal=True)
        if response["type"] != 8:
            raise InteractionFailed(
                f"autocomplete answered with callback type {response['type']}, expected 8\n{it.state()}"
            )
        return list(it.choices or [])

    # -- components --------------------------------------------------------------------------
    def _component_target(
        self, user: UserLike, message: Union[Message, int], custom_id: str, types: Tuple[int, ...]
    ) -> Tuple[Message, Dict[str, Any], Dict[str, Any]]:
        msg = message if isinstance(message, Message) else self._messages.get(int(message))
        if msg is None:
            raise EmulatorAssertion(f"unknown message {message!r}")
        u = self._resolve_user(user)
        if msg.deleted:
            raise EmulatorAssertion(f"{msg!r} was deleted; nothing to click")
        self._check_reachable(msg.channel_id, f"the components of {msg!r}")
        if msg.ephemeral and msg.visible_to != int(u["id"]):
            raise EmulatorAssertion(f"{msg!r} is ephemeral and only visible to user {msg.visible_to}")
        comps = [c for c in msg.all_components() if c.get("type") in types]
        target = next((c for c in comps if c.get("custom_id") == custom_id), None)
        if target is None:
            target = next((c for c in comps if c.get("label") == custom_id), None)
        if target is None:
            raise EmulatorAssertion(
                f"{msg!r} has no component with custom_id (or label) {custom_id!r}; "
                f"components: {[(c.get('type'), c.get('label'), c.get('custom_id')) for c in comps]}"
            )
        if target.get("disabled"):
            raise EmulatorAssertion(f"component {custom_id!r} on {msg!r} is disabled; users cannot use it")
        if target.get("type") == 2 and target.get("style") in (5, 6):
            raise EmulatorAssertion(f"button {custom_id!r} is a link/premium button; it does not create interactions")
        return msg, target, u

    async def click(self, user: UserLike, message: Union[Message, int], custom_id: str) -> Interaction:
        """``user`` presses the button with this custom_id (or label) on ``message``."""
        msg, button, u = self._component_target(user, message, custom_id, (2,))
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self._dispatch_interaction(
            MESSAGE_COMPONENT,
            u,
            msg.channel_id,
            data,
            source_message=msg,
            description=f"click {button.get('label') or button['custom_id']!r} on message {msg.id}",
        )

    async def select(
        self, user: UserLike, message: Union[Message, int], custom_id: str, values: List[Any]
    ) -> Interaction:
        """``user`` picks ``values`` in the select menu with this custom_id."""
        msg, menu, u = self._component_target(user, message, custom_id, limits.SELECT_TYPES)
        lo, hi = menu.get("min_values", 1), menu.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise EmulatorAssertion(f"select {custom_id!r} takes between {lo} and {hi} values; got {len(values)}")
        data: Dict[str, Any] = {"custom_id": menu["custom_id"], "component_type": menu["type"]}
        channel = self._channels[msg.channel_id]
        gid = int(channel["guild_id"])
        if menu["type"] == 3:
            allowed = [o["value"] for o in menu.get("options") or []]
            bad = [v for v in values if v not in allowed]
            if bad:
                raise EmulatorAssertion(f"select {custom_id!r} has no option(s) {bad}; options: {allowed}")
            data["values"] = list(values)
        else:
            resolved: Dict[str, Dict[str, Any]] = {}
            otype = {5: limits.OPT_USER, 6: limits.OPT_ROLE, 7: limits.OPT_CHANNEL, 8: limits.OPT_MENTIONABLE}[
                menu["type"]
            ]
            data["values"] = [
                self._convert_option(
                    {"type": otype, "name": custom_id}, v, gid, msg.channel_id, resolved, f"select {custom_id}"
                )
                for v in values
            ]
            data["resolved"] = resolved
        return await self._dispatch_interaction(
            MESSAGE_COMPONENT,
            u,
            msg.channel_id,
            data,
            source_message=msg,
            description=f"select {values!r} in {custom_id!r} on message {msg.id}",
        )

    async def submit_modal(self, user: UserLike, interaction: Interaction, **values: str) -> Interaction:
        """Submit the modal the bot opened in answer to ``interaction`` (values by text input custom_id)."""
        modal = interaction.modal
        if modal is None:
            raise EmulatorAssertion(f"{interaction!r} did not answer with a modal\n{interaction.state()}")
        inputs = [c for c in limits.flatten_components(modal.get("components") or []) if c.get("type") == 4]
        for c in modal.get("components") or []:
            if c.get("type") == 18 and isinstance(c.get("component"), dict) and c["component"].get("type") == 4:
                inputs.append(c["component"])
        ids = [c["custom_id"] for c in inputs]
        unknown = set(values) - set(ids)
        if unknown:
            raise EmulatorAssertion(
                f"modal {modal.get('custom_id')!r} has no text input(s) {sorted(unknown)}; inputs: {ids}"
            )
        missing = [c["custom_id"] for c in inputs if c.get("required", True) and not values.get(c["custom_id"])]
        if missing:
            raise EmulatorAssertion(f"modal {modal.get('custom_id')!r} requires {missing}")
        rows: List[Dict[str, Any]] = []
        for c in modal.get("components") or []:
            if c.get("type") == 1:
                rows.append(
                    {
                        "type": 1,
                        "components": [
                            {"type": 4, "custom_id": t["custom_id"], "value": values.get(t["custom_id"], "")}
                            for t in c.get("components") or []
                            if t.get("type") == 4
                        ],
                    }
                )
            elif c.get("type") == 18 and isinstance(c.get("component"), dict):
                t = c["component"]
                rows.append(
                    {
                        "type": 18,
                        "id": c.get("id"),
                        "component": {
                            "type": 4,
                            "custom_id": t.get("custom_id"),
                            "value": values.get(t.get("custom_id"), ""),
                        },
                    }
                )
        data = {"custom_id": modal["custom_id"], "components": rows}
        return await self._dispatch_interaction(
            MODAL_SUBMIT,
            user,
            interaction.channel_id,
            data,
            source_message=interaction.source_message,
            trigger=interaction,
            description=f"submit modal {modal['custom_id']!r}",
        )

    # -- dispatch ----------------------------------------------------------------------------
    async def _dispatch_interaction(
        self,
        itype: int,
        user: UserLike,
        channel_id: int,
        data: Dict[str, Any],
        *,
        command: Optional[Dict[str, Any]] = None,
        focused_option: Optional[Dict[str, Any]] = None,
        trigger: Optional[Interaction] = None,
        source_message: Optional[Message] = None,
        description: str = "",
    ) -> Interaction:
        channel = self._channels[channel_id]
        gid = int(channel["guild_id"])
        if self.in_outage(gid):
            raise EmulatorAssertion(f"guild {gid} is in an outage (unavailable): Discord would not send {description}")
        away = self.gateway.session_for(gid)
        if not self.connected_for(gid) and not (away is not None and away.expect_resume and away.ready):
            # e.g. the bot is in the middle of a RESUME: give it a moment rather than buffering blindly (but after a
            # fault the emulator made, the interaction goes into the session, as on Discord, replayed on RESUME)
            await self._wait_until(
                lambda: self.connected_for(gid),
                self.connect_grace,
                lambda: (
                    f"a connected bot (on the shard of guild {gid}) to send {description} to "
                    f"(start one and await emu.wait_for_ready()); sessions: {self.sessions}"
                ),
            )
        session = self.gateway.session_for(gid)  # Discord sends a guild's interactions to its shard
        assert session is not None
        u = self._resolve_user(user)
        uid = int(u["id"])
        iid = self._ids()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        channel_payload = self._channel_payload(channel_id)
        channel_payload["permissions"] = str(self._channel_permissions(channel_id, uid))
        payload: Dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "guild_id": str(gid),
            "guild": {"id": str(gid), "locale": self._guilds[gid]["preferred_locale"], "features": []},
            "channel_id": str(channel_id),
            "channel": channel_payload,
            "member": self._member_payload(gid, uid, channel_id=channel_id),
            "token": token,
            "version": 1,
            "app_permissions": str(self._channel_permissions(channel_id, self.application_id)),
            "locale": self.user_locale(u),
            "guild_locale": self._guilds[gid]["preferred_locale"],
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(gid)},
            "context": 0,
            "attachment_size_limit": self.attachment_size_limit,
        }
        if source_message is not None and itype in (MESSAGE_COMPONENT, MODAL_SUBMIT):
            payload["message"] = source_message.to_payload()
        it = Interaction(
            self,
            id=iid,
            token=token,
            type=itype,
            user=u,
            channel_id=channel_id,
            guild_id=gid,
            payload=payload,
            command=command,
            focused_option=focused_option,
            source_message=source_message,
            description=description,
        )
        it.trigger = trigger
        it.session_id = session.id
        it.issued_at = self.clock()
        self._interactions[iid] = it
        self._by_token[token] = it
        self.interactions.append(it)
        log.debug("dispatching interaction %s (%s) to session %s", iid, description, session.id)
        it.dispatched_at = time.monotonic()  # the 3 s budget starts when Discord sends the event
        await session.dispatch("INTERACTION_CREATE", payload)
        self._notify()
        return it
