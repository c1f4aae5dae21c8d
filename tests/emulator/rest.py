"""The REST half of the emulator: routing, body parsing, and the endpoints discord.py calls.

Everything the bot sends is checked against Discord's documented limits; refusals are answered with
Discord's exact error shapes and recorded in ``emu.errors``.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Optional, Tuple

from aiohttp import web

from . import caps, faults, limits, nonces
from .errors import APIError, ErrorTree, describe_api_error
from .spec import SPEC_OP
from .models import (
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PING,
    Attachment,
    Interaction,
    Message,
    iso,
    pinged_users,
    stored_components,
    stored_embeds,
)

if TYPE_CHECKING:  # pragma: no cover
    from .server import DiscordEmulator

log = logging.getLogger("tests.emulator.rest")

CHANNEL_MESSAGE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
INTERACTION_MESSAGE_FLAGS = CHANNEL_MESSAGE_FLAGS | FLAG_EPHEMERAL
ALLOWED_CALLBACKS = {
    PING: {1},
    APPLICATION_COMMAND: {4, 5, 9, 12},
    MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
    APPLICATION_COMMAND_AUTOCOMPLETE: {8},
    MODAL_SUBMIT: {4, 5, 6, 7},
}
THREAD_TYPES = (10, 11, 12)
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
CREATE_PUBLIC_THREADS = 1 << 35
MANAGE_THREADS = 1 << 34
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38


#: set on a reply that must go out without Discord's ``Via`` header (APIError(via=False))
NO_VIA = web.ResponseKey("no_via", bool)


class Req:
    """A parsed request: JSON body (or multipart ``payload_json``) plus uploaded files."""

    def __init__(self, request: web.Request, body: Any, files: List[Tuple[int, str, bytes, Optional[str]]]) -> None:
        self.request = request
        self.method = request.method
        self.path = request.path
        self.query = request.query
        self.body = body
        self.files = files

    def flag(self, name: str) -> bool:
        return self.query.get(name, "").lower() in ("1", "true")


Handler = Callable[..., Awaitable[Any]]


class RestAPI:
    def __init__(self, emu: "DiscordEmulator") -> None:
        self.emu = emu
        self.routes: List[Tuple[str, re.Pattern, Handler, bool]] = []
        A, N = True, False  # needs bot authorization / doesn't
        S = r"(\d+)"
        T = r"([^/]+)"
        add = self._add
        add("GET", r"/users/@me", self.get_me, A)
        add("GET", rf"/users/{S}", self.get_user, A)
        add("POST", r"/users/@me/channels", self.create_dm, A)
        add("GET", r"/gateway", self.get_gateway, N)
        add("GET", r"/gateway/bot", self.get_gateway_bot, A)
        add("GET", r"/oauth2/applications/@me", self.get_application, A)
        add("GET", r"/applications/@me", self.get_application, A)
        add("GET", rf"/applications/{S}/commands", self.get_commands, A)
        add("PUT", rf"/applications/{S}/commands", self.put_commands, A)
        add("POST", rf"/applications/{S}/commands", self.post_command, A)
        add("GET", rf"/applications/{S}/commands/{S}", self.get_command, A)
        add("PATCH", rf"/applications/{S}/commands/{S}", self.patch_command, A)
        add("DELETE", rf"/applications/{S}/commands/{S}", self.delete_command, A)
        add("GET", rf"/applications/{S}/guilds/{S}/commands", self.get_commands, A)
        add("PUT", rf"/applications/{S}/guilds/{S}/commands", self.put_commands, A)
        add("POST", rf"/applications/{S}/guilds/{S}/commands", self.post_command, A)
        add("GET", rf"/applications/{S}/guilds/{S}/commands/permissions", self.get_command_permissions, A)
        add("GET", rf"/applications/{S}/guilds/{S}/commands/{S}", self.get_command, A)
        add("PATCH", rf"/applications/{S}/guilds/{S}/commands/{S}", self.patch_command, A)
        add("DELETE", rf"/applications/{S}/guilds/{S}/commands/{S}", self.delete_command, A)
        add("POST", rf"/interactions/{S}/{T}/callback", self.interaction_callback, N)
        add("POST", rf"/webhooks/{S}/{T}", self.execute_webhook, N)
        add("GET", rf"/webhooks/{S}/{T}/messages/(@original|\d+)", self.get_webhook_message, N)
        add("PATCH", rf"/webhooks/{S}/{T}/messages/(@original|\d+)", self.edit_webhook_message, N)
        add("DELETE", rf"/webhooks/{S}/{T}/messages/(@original|\d+)", self.delete_webhook_message, N)
        add("GET", rf"/channels/{S}", self.get_channel, A)
        add("PATCH", rf"/channels/{S}", self.patch_channel, A)
        add("GET", rf"/channels/{S}/messages", self.get_channel_messages, A)
        add("POST", rf"/channels/{S}/messages", self.post_channel_message, A)
        add("GET", rf"/channels/{S}/messages/{S}", self.get_channel_message, A)
        add("PATCH", rf"/channels/{S}/messages/{S}", self.patch_channel_message, A)
        add("DELETE", rf"/channels/{S}/messages/{S}", self.delete_channel_message, A)
        add("POST", rf"/channels/{S}/typing", self.typing, A)
        add("POST", rf"/channels/{S}/threads", self.create_thread, A)
        add("POST", rf"/channels/{S}/messages/{S}/threads", self.create_thread_from_message, A)
        add("PUT", rf"/channels/{S}/thread-members/(@me|\d+)", self.join_thread, A)
        add("DELETE", rf"/channels/{S}/thread-members/(@me|\d+)", self.leave_thread, A)
        add("GET", rf"/guilds/{S}", self.get_guild, A)
        add("GET", rf"/guilds/{S}/channels", self.get_guild_channels, A)
        add("GET", rf"/guilds/{S}/roles", self.get_guild_roles, A)
        add("GET", rf"/guilds/{S}/members/{S}", self.get_member, A)

    def _add(self, method: str, pattern: str, handler: Handler, auth: bool) -> None:
        self.routes.append((method, re.compile(pattern), handler, auth))

    # ========================================================================================
    # plumbing
    # ========================================================================================
    async def handle(self, request: web.Request) -> web.StreamResponse:
        """One REST request as Discord's edge would treat it: a Cloudflare ban, injected faults (``emu.faults``,
        faults.py), the rate limits (``emu.rate_limits``, ratelimits.py), then :meth:`_serve`; the reply's status is
        recorded in ``emu.requests`` (0 for a dropped connection) and counted for the invalid-request limit."""
        emu = self.emu
        m = re.fullmatch(r"/api(?:/v\d+)?(/.*)", request.path)
        sub = (m.group(1).rstrip("/") or "/") if m else request.path
        if emu.rate_limits.banned():
            reply = emu.rate_limits.ban_response()
            emu.requests.append((request.method, request.path, reply.status))
            return reply
        fault = emu.faults.pick(request.method, sub)
        reply: Optional[web.StreamResponse] = None
        scope: Optional[str] = None
        try:
            if fault is not None and fault.when == "before":
                reply = await faults.apply_before(fault, request)
            if reply is None:
                reply, headers, scope = emu.rate_limits.check(request.method, sub, "Authorization" in request.headers)
            if reply is None:
                reply = await self._serve(request)
                reply.headers.update(headers)
                if reply.get(NO_VIA):
                    reply.headers.popall("Via", None)
                if fault is not None and fault.when == "after":
                    reply = await faults.apply_after(fault, request, reply)
            return reply
        finally:
            dropped = fault is not None and fault.drop and reply is not None
            status = faults.DROPPED if dropped else reply.status if reply is not None else 500
            emu.requests.append((request.method, request.path, status))
            emu.rate_limits.record(status, scope)

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        emu = self.emu
        path = request.path
        m = re.fullmatch(r"/api(?:/v(\d+))?(/.*)", path)
        try:
            if m is None:
                raise APIError(
                    404,
                    0,
                    "404: Not Found",
                    kind="unknown_route",
                    detail="not under /api/v{n}; is discord.http.Route.BASE set to emu.api_base?",
                )
            sub = m.group(2).rstrip("/") or "/"
            handler = None
            groups: Tuple[str, ...] = ()
            needs_auth = True
            method_mismatch = False
            pattern = None
            for method, regex, h, auth in self.routes:
                mm = regex.fullmatch(sub)
                if mm is None:
                    continue
                if method != request.method:
                    method_mismatch = True
                    continue
                handler, groups, needs_auth, pattern = h, mm.groups(), auth, regex.pattern
                break
            if handler is None:
                self._refuse_bad_snowflakes(request.method, sub)
                if method_mismatch:
                    raise APIError(
                        405,
                        0,
                        "405: Method Not Allowed",
                        kind="unknown_route",
                        detail="the emulator does not implement this method for this route",
                    )
                raise APIError(
                    404, 0, "404: Not Found", kind="unknown_route", detail="the emulator does not implement this route"
                )
            if needs_auth and request.headers.get("Authorization") != f"Bot {emu.token}":
                raise APIError(
                    401,
                    0,
                    "401: Unauthorized",
                    kind="unauthorized",
                    detail=f"Authorization header was {request.headers.get('Authorization')!r:.40}",
                )
            self._refuse_bad_snowflakes(request.method, sub, groups, pattern)
            bad_query = caps.query_errors(request.query)
            if bad_query:
                raise APIError.invalid_form(bad_query, kind="bad_request")
            body, files = await self._read_body(request)
            self._check_spec(request, sub, body)
            req = Req(request, body, files)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "REST <- %s %s query=%s body=%s files=%s",
                    request.method,
                    path,
                    dict(request.query),
                    _short(body),
                    [(f[1], len(f[2])) for f in files],
                )
            result = await handler(req, *groups)
            if isinstance(result, web.StreamResponse):
                return result
            if result is None:
                return web.Response(status=204)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("REST -> 200 %s", _short(result))
            return _json_response(result)
        except APIError as err:
            emu._record(
                err.kind,
                describe_api_error(request.method, path, err),
                method=request.method,
                path=path,
                status=err.status,
                code=err.code,
                body=err.body(),
                interaction_id=err.interaction_id,
            )
            resp = _json_response(err.body(), status=err.status)
            if not err.via:
                resp[NO_VIA] = True
            return resp
        except Exception as exc:  # a bug in the emulator: make it loud but don't trigger discord.py retries
            log.exception("emulator failed handling %s %s", request.method, path)
            emu._record(
                "internal",
                f"{request.method} {path}: emulator error {type(exc).__name__}: {exc}",
                method=request.method,
                path=path,
                status=503,
            )
            return _json_response({"message": f"emulator internal error: {exc}", "code": 0}, status=503)

    def _refuse_bad_snowflakes(
        self, method: str, sub: str, groups: Optional[Tuple[str, ...]] = None, pattern: Optional[str] = None
    ) -> None:
        """Discord answers a path whose snowflake isn't one with 400 50035 (``channel_id: Value "abc" is not
        snowflake.``). With ``pattern``/``groups`` (a route that matched): check the matched snowflakes' range;
        without: look for a route the path matches once its snowflakes may be anything, and refuse it if found
        (otherwise nothing: a 404 follows)."""
        if pattern is not None and groups is not None:
            names = caps.route_params(pattern)
            tree = caps.path_snowflake_errors(list(zip(names, groups)))
            if tree:
                raise APIError.invalid_form(tree, kind="bad_request")
            return
        for m, regex, _h, _auth in self.routes:
            if m != method:
                continue
            lenient = caps.lenient_route(regex.pattern).fullmatch(sub)
            if lenient is not None:
                tree = caps.path_snowflake_errors(list(zip(caps.route_params(regex.pattern), lenient.groups())))
                if tree:
                    raise APIError.invalid_form(tree, kind="bad_request")

    def _check_spec(self, request: web.Request, sub: str, body: Any) -> None:
        """Refuse, as Discord does, a request its published spec refuses (path values, query, body):
        400 50035 "Invalid Form Body" with the errors tree (see spec.py)."""
        tree = self.emu.spec.check_request(request, sub, body)
        if tree:
            op = request.get(SPEC_OP)
            iid = op.path_values.get("interaction_id", "") if op is not None else ""
            it = self.emu._interactions.get(int(iid)) if iid.isdigit() else None
            raise APIError.invalid_form(
                tree,
                detail=f"refused by the spec ({op.operation_id if op else '?'})",
                interaction_id=it.id if it is not None else None,
            )

    @web.middleware
    async def spec_middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Every REST reply checked against the spec's response for its status (``emu.spec.check_reply``)."""
        response = await handler(request)
        m = re.fullmatch(r"/api(?:/v\d+)?(/.*)", request.path)
        if m is not None and self.emu.spec.enabled and isinstance(response, web.Response):
            body: Any = None
            if response.body is not None and response.content_type == "application/json":
                try:
                    body = json.loads(response.body)  # type: ignore[arg-type]
                except ValueError:
                    body = response.body
            self.emu.spec.check_reply(request, m.group(1).rstrip("/") or "/", response.status, body)
        return response

    async def _read_body(self, request: web.Request) -> Tuple[Any, List[Tuple[int, str, bytes, Optional[str]]]]:
        files: List[Tuple[int, str, bytes, Optional[str]]] = []
        if not request.can_read_body:
            return None, files
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            body: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = part.name or ""
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    try:
                        body = json.loads(data)
                    except ValueError:
                        raise APIError(400, 50109, "The request body contains invalid JSON.")
                    continue
                fm = re.fullmatch(r"files\[(\d+)\]", name) or re.fullmatch(r"file(\d*)", name)
                if fm is None:
                    raise APIError(400, 50035, "Invalid Form Body", detail=f"unexpected multipart field {name!r}")
                index = int(fm.group(1) or 0)
                files.append((index, part.filename or f"file{index}", bytes(data), part.headers.get("Content-Type")))  # type: ignore[union-attr]
            return body, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return json.loads(raw), files
        except ValueError:
            raise APIError(400, 50109, "The request body contains invalid JSON.")

    async def serve_attachment(self, request: web.Request) -> web.StreamResponse:
        try:
            att = self.emu._attachments[int(request.match_info["attachment_id"])]
        except (KeyError, ValueError):
            return web.Response(status=404, text="Not Found")
        return web.Response(body=att.data, content_type=att.content_type)

    # ========================================================================================
    # lookups
    # ========================================================================================
    def _check_app(self, app_id: str) -> None:
        if int(app_id) != self.emu.application_id:
            raise APIError(
                403,
                50001,
                "Missing Access",
                kind="forbidden",
                detail=f"application {app_id} is not this bot ({self.emu.application_id})",
            )

    def _channel(self, channel_id: str) -> Dict[str, Any]:
        ch = self.emu._channels.get(int(channel_id))
        if ch is None:
            raise APIError(404, 10003, "Unknown Channel", kind="not_found")
        if not self.emu.in_guild(int(ch["guild_id"])):
            raise APIError(
                403,
                50001,
                "Missing Access",
                kind="forbidden",
                detail=f"the bot is not in guild {ch['guild_id']} any more",
            )
        self._check_outage(int(ch["guild_id"]))
        return ch

    def _check_outage(self, guild_id: Optional[int]) -> None:
        """REST on a guild in an outage (``emu.guild_outage``) answers 503, as Discord's servers do when the guild's
        own is down."""
        if guild_id and self.emu.in_outage(guild_id):
            raise APIError(
                503,
                0,
                "503: Service Unavailable",
                kind="outage",
                detail=f"guild {guild_id} is in an outage (unavailable)",
            )

    def _require(self, channel_id: int, needed: int, what: str) -> None:
        perms = self.emu._channel_permissions(channel_id, self.emu.application_id)
        if perms & needed != needed:
            raise APIError(
                403,
                50013,
                "Missing Permissions",
                kind="forbidden",
                detail=f"the bot lacks permission bits {needed & ~perms} to {what} in channel {channel_id}",
            )

    def _channel_message(self, channel_id: str, message_id: str) -> Message:
        msg = self.emu._messages.get(int(message_id))
        if msg is None or msg.channel_id != int(channel_id) or msg.deleted or msg.ephemeral:
            raise APIError(404, 10008, "Unknown Message", kind="not_found")
        return msg

    def _interaction_for_webhook(self, app_id: str, token: str) -> Interaction:
        it = self.emu._by_token.get(token)
        if it is None or int(app_id) != self.emu.application_id:
            raise APIError(404, 10015, "Unknown Webhook", kind="not_found", detail="no interaction has this token")
        self._check_outage(it.guild_id)
        if self.emu.clock() - (it.issued_at or 0) > self.emu.token_lifetime:
            raise APIError(
                401,
                50027,
                "Invalid Webhook Token",
                kind="expired_token",
                detail=f"interaction tokens are valid for {self.emu.token_lifetime:.0f}s",
                interaction_id=it.id,
            )
        if not it.responses:
            raise APIError(
                404,
                10015,
                "Unknown Webhook",
                kind="not_found",
                detail=f"interaction {it.id} has not been acknowledged yet "
                "(follow-ups and @original need an initial response first)",
                interaction_id=it.id,
            )
        return it

    # ========================================================================================
    # message building
    # ========================================================================================
    def _validate(
        self,
        body: Any,
        prefix: Tuple[Any, ...],
        *,
        flags: Optional[int] = None,
        n_files: int = 0,
        interaction_id: Optional[int] = None,
    ) -> Dict[str, Any]:
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise APIError(400, 50035, "Invalid Form Body", detail="body must be a JSON object")
        tree = ErrorTree()
        limits.validate_message_body(tree, prefix, body, flags=flags)
        limits.validate_file_count(tree, prefix, n_files)
        if tree:
            raise APIError.invalid_form(tree, interaction_id=interaction_id)
        return body

    def _check_upload_size(
        self, files: List[Tuple[int, str, bytes, Optional[str]]], interaction_id: Optional[int] = None
    ) -> None:
        total = sum(len(f[2]) for f in files)
        if total > self.emu.attachment_size_limit:
            raise APIError(
                413,
                40005,
                "Request entity too large",
                kind="limit",
                detail=f"{total} bytes of attachments; the limit is {self.emu.attachment_size_limit}",
                interaction_id=interaction_id,
            )

    def _attachments(
        self,
        body: Dict[str, Any],
        files: List[Tuple[int, str, bytes, Optional[str]]],
        channel_id: int,
        existing: Optional[List[Attachment]],
        ephemeral: bool,
    ) -> Optional[List[Attachment]]:
        """New attachment list, or None when the body doesn't touch attachments (edits keep them)."""
        by_index = {f[0]: f for f in files}
        used = set()
        result: List[Attachment] = []
        keep = {a.id: a for a in existing or []}
        if "attachments" in body and body["attachments"] is not None:
            for i, entry in enumerate(body["attachments"]):
                try:
                    aid = int(entry.get("id"))
                except (TypeError, ValueError, AttributeError):
                    tree = ErrorTree()
                    tree.add(("attachments", i, "id"), "BASE_TYPE_REQUIRED", "This field is required")
                    raise APIError.invalid_form(tree)
                if aid in by_index and aid not in keep:
                    index, filename, data, ctype = by_index[aid]
                    used.add(aid)
                    result.append(
                        self.emu._make_attachment(
                            channel_id,
                            entry.get("filename") or filename,
                            data,
                            ctype,
                            entry.get("description"),
                            ephemeral,
                        )
                    )
                elif aid in keep:
                    result.append(keep[aid])
                else:
                    tree = ErrorTree()
                    tree.add(("attachments", i, "id"), "ATTACHMENT_NOT_FOUND", f"Attachment {aid} not found")
                    raise APIError.invalid_form(tree)
        elif not files:
            return None
        else:
            result = list(existing or [])
        for index, filename, data, ctype in sorted(files):
            if index not in used:
                result.append(self.emu._make_attachment(channel_id, filename, data, ctype, None, ephemeral))
        if len(result) > limits.FILES_MAX:
            tree = ErrorTree()
            tree.add(("attachments",), "BASE_TYPE_MAX_LENGTH", f"Must be {limits.FILES_MAX} or fewer in length.")
            raise APIError.invalid_form(tree)
        return result

    @staticmethod
    def _is_empty(
        msg_content: Optional[str], embeds: Any, components: Any, attachments: Any, body: Dict[str, Any]
    ) -> bool:
        return not (msg_content or embeds or components or attachments or body.get("sticker_ids") or body.get("poll"))

    def _new_message(
        self,
        *,
        channel_id: int,
        body: Dict[str, Any],
        files: List[Tuple[int, str, bytes, Optional[str]]],
        flags_mask: int,
        forced_flags: int = 0,
        interaction: Optional[Interaction] = None,
        visible_to: Optional[int] = None,
        mtype: int = 0,
        interaction_metadata: Optional[Dict[str, Any]] = None,
    ) -> Message:
        emu = self.emu
        flags = (int(body.get("flags") or 0) & flags_mask) | forced_flags
        ephemeral = bool(flags & FLAG_EPHEMERAL)
        attachments = self._attachments(body, files, channel_id, None, ephemeral) or []
        content = body.get("content") or ""
        embeds = body.get("embeds") or []
        components = body.get("components") or []
        if self._is_empty(content, embeds, components, attachments, body) and not flags & FLAG_LOADING:
            raise APIError(
                400,
                50006,
                "Cannot send an empty message",
                kind="bad_request",
                interaction_id=interaction.id if interaction else None,
            )
        channel = emu._channels.get(channel_id) or emu._dms[channel_id]
        msg = Message(
            id=emu._new_id(),
            channel_id=channel_id,
            guild_id=int(channel["guild_id"]) if channel.get("guild_id") else None,
            author=emu.bot_user,
            content=content,
            embeds=stored_embeds(copy.deepcopy(embeds)),
            components=stored_components(copy.deepcopy(components)),
            attachments=attachments,
            flags=flags,
            type=mtype,
            interaction_id=interaction.id if interaction else None,
            webhook_id=emu.application_id if interaction else None,
            application_id=emu.application_id if interaction else None,
            visible_to=visible_to if ephemeral else None,
            interaction_metadata=interaction_metadata,
        )
        msg.pinged = pinged_users(content, body.get("allowed_mentions"))
        ref = body.get("message_reference")
        if ref:
            target = emu._messages.get(int(ref.get("message_id") or 0))
            if target is None or target.deleted:
                if ref.get("fail_if_not_exists", True):
                    tree = ErrorTree()
                    tree.add(("message_reference",), "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
                    raise APIError.invalid_form(tree, kind="bad_request")
            else:
                msg.message_reference = {
                    "type": 0,
                    "message_id": str(target.id),
                    "channel_id": str(target.channel_id),
                    "guild_id": str(target.guild_id) if target.guild_id else None,
                }
                msg.referenced_message = target
                msg.type = 19
        emu._store_message(msg)
        return msg

    def _apply_edit(
        self,
        msg: Message,
        body: Dict[str, Any],
        files: List[Tuple[int, str, bytes, Optional[str]]],
        interaction_id: Optional[int] = None,
    ) -> None:
        new_attachments = self._attachments(body, files, msg.channel_id, msg.attachments, msg.ephemeral)
        content = msg.content if "content" not in body else (body["content"] or "")
        embeds = msg.embeds if "embeds" not in body else (body["embeds"] or [])
        components = msg.components if "components" not in body else (body["components"] or [])
        attachments = msg.attachments if new_attachments is None else new_attachments
        if self._is_empty(content, embeds, components, attachments, body):
            raise APIError(
                400, 50006, "Cannot send an empty message", kind="bad_request", interaction_id=interaction_id
            )
        msg.history.append(msg.snapshot())
        msg.content = content
        msg.embeds = stored_embeds(copy.deepcopy(embeds))
        msg.components = stored_components(copy.deepcopy(components))
        msg.attachments = attachments
        if "flags" in body and body["flags"] is not None:
            changeable = FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2
            msg.flags = (msg.flags & ~changeable) | (int(body["flags"]) & changeable)
        if msg.flags & FLAG_LOADING:  # a deferred answer's "thinking…" becomes the message: it notifies now
            msg.pinged = pinged_users(content, body.get("allowed_mentions"))
        msg.flags &= ~FLAG_LOADING
        msg.edited_at = time.time()

    def _metadata(self, it: Interaction, **extra: Any) -> Dict[str, Any]:
        """A message's ``interaction_metadata`` for interaction ``it`` (Discord's Message Interaction Metadata:
        a command names itself; a component names the message it was on; a modal submit carries the metadata
        of the interaction that opened the modal)."""
        meta: Dict[str, Any] = {
            "id": str(it.id),
            "type": it.type,
            "user": it.user,
            "authorizing_integration_owners": {"0": str(it.guild_id)},
        }
        if it.type == MESSAGE_COMPONENT and it.source_message is not None:
            meta["interacted_message_id"] = str(it.source_message.id)
        if it.type == MODAL_SUBMIT and it.trigger is not None:
            meta["triggering_interaction_metadata"] = self._metadata(it.trigger)
        meta.update(extra)
        return meta

    # ========================================================================================
    # users, gateway, application
    # ========================================================================================
    async def get_me(self, req: Req) -> Any:
        return dict(self.emu.bot_user, **self.emu.bot_account)

    async def get_user(self, req: Req, user_id: str) -> Any:
        user = self.emu._users.get(int(user_id))
        if user is None:
            raise APIError(404, 10013, "Unknown User", kind="not_found")
        return user

    async def get_gateway(self, req: Req) -> Any:
        return {"url": self.emu.gateway_url}

    async def get_gateway_bot(self, req: Req) -> Any:
        return {
            "url": self.emu.gateway_url,
            "shards": self.emu.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": 1},
        }

    async def get_application(self, req: Req) -> Any:
        emu = self.emu
        return {
            "id": str(emu.application_id),
            "name": emu.bot_user["username"],
            "icon": None,
            "description": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": emu.application_flags,
            "bot": emu.bot_user,
            "owner": emu.owner_user,
            "team": None,
            "rpc_origins": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "tags": [],
            "approximate_guild_count": len(emu._guilds),
            "approximate_user_install_count": 0,
            "integration_types_config": {"0": {}},
            "flags_new": str(emu.application_flags),
            "approximate_user_authorization_count": 0,
            "explicit_content_filter": 0,
            "eligible_oauth2_scopes": [],
        }

    # ========================================================================================
    # application commands
    # ========================================================================================
    def _command_store(self, guild_id: Optional[str]) -> List[Dict[str, Any]]:
        if guild_id is None:
            return self.emu.commands
        gid = int(guild_id)
        if gid not in self.emu._guilds:
            raise APIError(404, 10004, "Unknown Guild", kind="not_found")
        return self.emu.guild_commands.setdefault(gid, [])

    def _normalise_command(
        self, data: Dict[str, Any], guild_id: Optional[str], existing: List[Dict[str, Any]]
    ) -> Dict[str, Any]:
        ctype = data.get("type", 1)
        old = next((c for c in existing if c["name"] == data.get("name") and c.get("type", 1) == ctype), None)
        cmd = copy.deepcopy(data)
        cmd["id"] = old["id"] if old else str(self.emu._new_id())
        cmd["application_id"] = str(self.emu.application_id)
        cmd["version"] = str(self.emu._new_id())
        cmd["type"] = ctype
        cmd.setdefault("description", "")
        cmd.setdefault("options", [])
        dmp = cmd.get("default_member_permissions")
        cmd["default_member_permissions"] = None if dmp is None else str(dmp)
        cmd.setdefault("nsfw", False)
        if cmd.get("integration_types") is None:  # Discord: guild install only, unless the command says
            cmd["integration_types"] = [0]
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    async def get_commands(self, req: Req, app_id: str, guild_id: Optional[str] = None) -> Any:
        self._check_app(app_id)
        return self._command_store(guild_id)

    async def put_commands(self, req: Req, app_id: str, guild_id: Optional[str] = None) -> Any:
        self._check_app(app_id)
        store = self._command_store(guild_id)
        tree = ErrorTree()
        limits.validate_command_list(tree, req.body)
        if tree:
            scope = f"guild {guild_id}" if guild_id else "global"
            raise APIError.invalid_form(tree, detail=f"bulk overwrite of {scope} commands refused")
        new = [self._normalise_command(c, guild_id, store) for c in req.body]
        store[:] = new
        self.emu.sync_count += 1
        log.info(
            "bot synced %d %s command(s): %s",
            len(new),
            f"guild {guild_id}" if guild_id else "global",
            [c["name"] for c in new],
        )
        self.emu._notify()
        return new

    async def post_command(self, req: Req, app_id: str, guild_id: Optional[str] = None) -> Any:
        self._check_app(app_id)
        store = self._command_store(guild_id)
        tree = ErrorTree()
        limits.validate_command(tree, (), req.body)
        if tree:
            raise APIError.invalid_form(tree)
        cmd = self._normalise_command(req.body, guild_id, store)
        store[:] = [c for c in store if c["id"] != cmd["id"]] + [cmd]
        probe = ErrorTree()
        limits.validate_command_list(probe, store)
        if probe:
            store.remove(cmd)
            raise APIError(400, 30032, "Maximum number of application commands reached (100)", kind="limit")
        self.emu.sync_count += 1
        self.emu._notify()
        return cmd

    def _find_command(self, store: List[Dict[str, Any]], command_id: str) -> Dict[str, Any]:
        for c in store:
            if c["id"] == str(command_id):
                return c
        raise APIError(404, 10063, "Unknown application command", kind="not_found")

    async def get_command(self, req: Req, app_id: str, *ids: str) -> Any:
        self._check_app(app_id)
        guild_id, command_id = (ids[0], ids[1]) if len(ids) == 2 else (None, ids[0])
        return self._find_command(self._command_store(guild_id), command_id)

    async def patch_command(self, req: Req, app_id: str, *ids: str) -> Any:
        self._check_app(app_id)
        guild_id, command_id = (ids[0], ids[1]) if len(ids) == 2 else (None, ids[0])
        store = self._command_store(guild_id)
        cmd = self._find_command(store, command_id)
        merged = dict(cmd)
        merged.update(req.body or {})
        tree = ErrorTree()
        limits.validate_command(tree, (), merged)
        if tree:
            raise APIError.invalid_form(tree)
        cmd.update(req.body or {})
        self.emu._notify()
        return cmd

    async def delete_command(self, req: Req, app_id: str, *ids: str) -> Any:
        self._check_app(app_id)
        guild_id, command_id = (ids[0], ids[1]) if len(ids) == 2 else (None, ids[0])
        store = self._command_store(guild_id)
        store.remove(self._find_command(store, command_id))
        return None

    async def get_command_permissions(self, req: Req, app_id: str, guild_id: str) -> Any:
        self._check_app(app_id)
        return []

    # ========================================================================================
    # interactions
    # ========================================================================================
    async def interaction_callback(self, req: Req, interaction_id: str, token: str) -> Any:
        emu = self.emu
        it = emu._interactions.get(int(interaction_id))
        if it is None or it.token != token:
            raise APIError(
                404,
                10062,
                "Unknown interaction",
                kind="unknown_interaction",
                detail="no interaction with this id and token",
            )
        self._check_outage(it.guild_id)
        body = req.body if isinstance(req.body, dict) else {}
        ctype = body.get("type")
        if it.responses:
            raise APIError(
                400,
                40060,
                "Interaction has already been acknowledged.",
                kind="already_acknowledged",
                detail=f"{it.description} already got a type {it.response_type} response; "
                f"this second initial response had type {ctype}",
                interaction_id=it.id,
            )
        elapsed = time.monotonic() - (it.dispatched_at or 0)
        if elapsed > emu.response_deadline:
            raise APIError(
                404,
                10062,
                "Unknown interaction",
                kind="unknown_interaction",
                detail=f"initial response to {it.description} arrived {elapsed:.2f}s after dispatch; "
                f"Discord allows {emu.response_deadline:.0f}s",
                interaction_id=it.id,
            )
        if ctype not in ALLOWED_CALLBACKS.get(it.type, set()):
            tree = ErrorTree()
            tree.add(
                ("type",),
                "INTERACTION_CALLBACK_TYPE_INVALID",
                f"Callback type {ctype!r} is not valid for interaction type {it.type}",
            )
            raise APIError(400, 50035, "Invalid Form Body", errors=tree, kind="bad_request", interaction_id=it.id)
        data = body.get("data") or {}
        files = req.files
        msg: Optional[Message] = None
        resp_interaction: Dict[str, Any] = {"id": str(it.id), "type": it.type}

        if ctype in (4, 7):
            self._validate(
                data,
                ("data",),
                n_files=len(files),
                interaction_id=it.id,
                flags=(
                    int(data.get("flags") or 0) | (it.source_message.flags if ctype == 7 and it.source_message else 0)
                ),
            )
            self._check_upload_size(files, it.id)
        if ctype == 4:
            mtype = 20 if it.type == APPLICATION_COMMAND else 0
            msg = self._new_message(
                channel_id=it.channel_id,
                body=data,
                files=files,
                flags_mask=INTERACTION_MESSAGE_FLAGS,
                interaction=it,
                visible_to=int(it.user["id"]),
                mtype=mtype,
                interaction_metadata=self._metadata(it),
            )
            it.original = msg
            it.completed = True
            it.last_message = msg
        elif ctype == 5:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            mtype = 20 if it.type == APPLICATION_COMMAND else 0
            msg = self._new_message(
                channel_id=it.channel_id,
                body={},
                files=[],
                flags_mask=0,
                forced_flags=flags,
                interaction=it,
                visible_to=int(it.user["id"]),
                mtype=mtype,
                interaction_metadata=self._metadata(it),
            )
            it.original = msg
        elif ctype == 6:
            it.original = it.source_message
        elif ctype == 7:
            target = it.source_message
            if target is None or target.deleted:
                raise APIError(404, 10008, "Unknown Message", kind="not_found", interaction_id=it.id)
            self._apply_edit(target, data, files, it.id)
            it.original = target
            it.completed = True
            it.last_message = target
            msg = target
        elif ctype == 8:
            tree = ErrorTree()
            otype = it.focused_option.get("type") if it.focused_option else None
            limits.validate_autocomplete(tree, data, otype)
            if tree:
                raise APIError.invalid_form(
                    tree, detail=f"autocomplete answer to {it.description} refused", interaction_id=it.id
                )
            it.choices = copy.deepcopy(data["choices"])
            it.completed = True
        elif ctype == 9:
            tree = ErrorTree()
            limits.validate_modal(tree, data)
            if tree:
                raise APIError.invalid_form(tree, interaction_id=it.id)
            it.modal = copy.deepcopy(data)
            it.completed = True
        it.responses.append(copy.deepcopy(body))
        log.debug("interaction %s answered with type %s after %.3fs", it.id, ctype, elapsed)

        if msg is not None and ctype in (4, 5):
            await emu._dispatch_message_event("MESSAGE_CREATE", msg)
        elif msg is not None and ctype == 7:
            await emu._dispatch_message_event("MESSAGE_UPDATE", msg)
        emu._notify()

        if msg is not None:
            resp_interaction.update(
                response_message_id=str(msg.id),
                response_message_loading=msg.loading,
                response_message_ephemeral=msg.ephemeral,
            )
        if not req.flag("with_response"):
            return None
        result: Dict[str, Any] = {"interaction": resp_interaction}
        if msg is not None and ctype in (4, 7):  # Discord's callback resource: the message made or updated
            result["resource"] = {"type": ctype, "message": msg.to_payload()}
        return result

    async def execute_webhook(self, req: Req, app_id: str, token: str) -> Any:
        emu = self.emu
        it = self._interaction_for_webhook(app_id, token)
        if it.response_type in (1, 8):
            raise APIError(
                404,
                10015,
                "Unknown Webhook",
                kind="not_found",
                detail=f"{it.description} was answered with type {it.response_type}; it has no follow-ups",
                interaction_id=it.id,
            )
        body = self._validate(req.body, (), n_files=len(req.files), interaction_id=it.id)
        self._check_upload_size(req.files, it.id)
        capped = caps.followup_refusal(len(it.followups), emu.followup_limit, it.id)
        if capped:
            raise capped
        original = it.original
        if original is not None and original.loading and not original.deleted and original.interaction_id == it.id:
            # Discord: the first follow-up after a type 5 deferral edits the loading message instead
            # of creating a new one; its ephemeral state stays whatever the deferral said.
            self._apply_edit(original, body, req.files, it.id)
            msg = original
            event = "MESSAGE_UPDATE"
        else:
            extra = {"original_response_message_id": str(original.id)} if original is not None else {}
            msg = self._new_message(
                channel_id=it.channel_id,
                body=body,
                files=req.files,
                flags_mask=INTERACTION_MESSAGE_FLAGS,
                interaction=it,
                visible_to=int(it.user["id"]),
                mtype=0 if it.type != APPLICATION_COMMAND else 20,
                interaction_metadata=self._metadata(it, **extra),
            )
            event = "MESSAGE_CREATE"
        it.followups.append(msg)
        it.completed = True
        it.last_message = msg
        await emu._dispatch_message_event(event, msg)
        emu._notify()
        if not req.flag("wait"):
            return None
        return msg.to_payload()

    def _webhook_message(self, it: Interaction, message_id: str) -> Message:
        if message_id == "@original":
            msg = it.original
        else:
            msg = self.emu._messages.get(int(message_id))
            if msg is not None and msg is not it.original and msg not in it.followups:
                msg = None
        if msg is None or msg.deleted:
            raise APIError(
                404,
                10008,
                "Unknown Message",
                kind="not_found",
                detail=f"{it.description} has no message {message_id}",
                interaction_id=it.id,
            )
        return msg

    async def get_webhook_message(self, req: Req, app_id: str, token: str, message_id: str) -> Any:
        it = self._interaction_for_webhook(app_id, token)
        return self._webhook_message(it, message_id).to_payload()

    async def edit_webhook_message(self, req: Req, app_id: str, token: str, message_id: str) -> Any:
        emu = self.emu
        it = self._interaction_for_webhook(app_id, token)
        msg = self._webhook_message(it, message_id)
        body = self._validate(
            req.body,
            (),
            n_files=len(req.files),
            interaction_id=it.id,
            flags=int((req.body or {}).get("flags") or 0) | msg.flags,
        )
        self._check_upload_size(req.files, it.id)
        self._apply_edit(msg, body, req.files, it.id)
        it.completed = True
        it.last_message = msg
        await emu._dispatch_message_event("MESSAGE_UPDATE", msg)
        emu._notify()
        return msg.to_payload()

    async def delete_webhook_message(self, req: Req, app_id: str, token: str, message_id: str) -> Any:
        emu = self.emu
        it = self._interaction_for_webhook(app_id, token)
        msg = self._webhook_message(it, message_id)
        msg.deleted = True
        await emu._dispatch_message_event("MESSAGE_DELETE", msg)
        emu._notify()
        return None

    # ========================================================================================
    # channels and messages
    # ========================================================================================
    async def get_channel(self, req: Req, channel_id: str) -> Any:
        self._channel(channel_id)
        return self.emu._channel_payload(int(channel_id))

    async def patch_channel(self, req: Req, channel_id: str) -> Any:
        """Modify a thread's ``archived``/``locked``/``name``/``auto_archive_duration`` (what the bot may change).
        Discord: unarchiving a thread that is not locked needs only Send Messages in Threads; locking, unlocking,
        or unarchiving a locked thread needs Manage Threads. Sends THREAD_UPDATE."""
        ch = self._channel(channel_id)
        if ch["type"] not in THREAD_TYPES:
            raise APIError(
                403,
                50013,
                "Missing Permissions",
                kind="forbidden",
                detail="the emulator only lets the bot modify threads (it never has Manage Channels)",
            )
        body = req.body if isinstance(req.body, dict) else {}
        meta = ch["thread_metadata"]
        cid = int(ch["id"])
        touches_lock = "locked" in body and bool(body["locked"]) != bool(meta.get("locked"))
        if touches_lock or (body.get("archived") is False and meta.get("locked")) or body.get("archived") is True:
            self._require(cid, MANAGE_THREADS, "lock, unlock or archive a thread")
        else:
            self._require(cid, VIEW_CHANNEL | SEND_MESSAGES_IN_THREADS, "unarchive a thread")
        if "name" in body:
            ch["name"] = str(body["name"])[:100]
        if "auto_archive_duration" in body:
            meta["auto_archive_duration"] = body["auto_archive_duration"]
        await self.emu._change_thread(ch, archived=body.get("archived"), locked=body.get("locked"))
        return self._thread_payload(ch)

    async def get_channel_messages(self, req: Req, channel_id: str) -> Any:
        ch = self._channel(channel_id)
        self._require(int(ch["id"]), VIEW_CHANNEL | READ_MESSAGE_HISTORY, "read message history")
        msgs = self.emu.messages(int(channel_id))
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])][:limit]
            return [m.to_payload() for m in reversed(msgs)]
        return [m.to_payload() for m in reversed(msgs[-limit:])]

    def _require_embeds(self, channel_id: int, body: Any) -> None:
        """Discord: a bot's channel message (or edit) with embeds needs Embed Links there (403 otherwise);
        interaction responses and follow-ups are exempt."""
        if isinstance(body, dict) and body.get("embeds"):
            self._require(channel_id, EMBED_LINKS, "send embeds")

    async def _enter_thread(self, thread: Dict[str, Any]) -> None:
        """Posting in a thread, as Discord does it: an archived thread is unarchived by the message unless it is
        locked (400 50083 "Thread is archived"; a moderator must unarchive it first); a locked, active thread
        takes messages only from members with Manage Threads (403 160005 "Thread is locked")."""
        meta = thread["thread_metadata"]
        can_manage = self.emu._channel_permissions(int(thread["id"]), self.emu.application_id) & MANAGE_THREADS
        if meta.get("archived") and meta.get("locked"):
            raise APIError(
                400,
                50083,
                "Thread is archived",
                kind="forbidden",
                detail=f"thread {thread['id']} is archived and locked: unarchive it first (Manage Threads)",
            )
        if meta.get("locked") and not can_manage:
            raise APIError(
                403,
                160005,
                "Thread is locked",
                kind="forbidden",
                detail=f"thread {thread['id']} is locked and the bot lacks Manage Threads",
            )
        if meta.get("archived"):
            await self.emu._change_thread(thread, archived=False)

    async def create_dm(self, req: Req) -> Any:
        """Open (or get) the bot's direct-message channel with a user. Discord lets a bot message a user only if
        they share a server (and the user allows it): 403 50007 "Cannot send messages to this user" otherwise."""
        emu = self.emu
        try:
            uid = int((req.body or {}).get("recipient_id"))
        except (TypeError, ValueError):
            tree = ErrorTree()
            tree.add(("recipient_id",), "BASE_TYPE_REQUIRED", "This field is required")
            raise APIError.invalid_form(tree)
        user = emu._users.get(uid)
        if user is None:
            raise APIError(404, 10013, "Unknown User", kind="not_found")
        shared = any(uid in g["members"] and emu.application_id in g["members"] for g in emu._guilds.values())
        if not shared:
            raise APIError(
                403,
                50007,
                "Cannot send messages to this user",
                kind="forbidden",
                detail=f"the bot shares no server with user {uid}",
            )
        cid = emu._dm_ids.get(uid)
        if cid is None:
            cid = emu._dm_ids[uid] = emu._new_id()
            emu._dms[cid] = {"id": str(cid), "type": 1, "last_message_id": None, "flags": 0, "recipients": [user]}
            emu._channel_messages[cid] = []
        return dict(emu._dms[cid])

    def _check_post_fields(self, body: Dict[str, Any]) -> None:
        """Create Message's ``nonce``/``enforce_nonce`` (nonces.py) and ``message_reference`` snowflakes (caps.py):
        400 50035 as Discord answers."""
        tree = ErrorTree()
        nonces.validate_nonce(tree, body)
        tree.items.extend((caps.body_snowflake_errors(body) or ErrorTree()).items)
        if tree:
            raise APIError.invalid_form(tree)

    def _create_once(self, body: Dict[str, Any], create: Callable[[], Message]) -> Tuple[Message, bool]:
        """``create()`` the message unless ``enforce_nonce`` finds the bot's message with the same nonce (nonces.py):
        returns (message, created). Synchronous, so two requests with one nonce can't both create."""
        nonce, enforce = body.get("nonce"), body.get("enforce_nonce") is True
        if nonce is not None and enforce:
            existing = self.emu.nonces.find(self.emu.application_id, nonce)
            if existing is not None:
                return existing, False
        msg = create()
        if nonce is not None:
            msg.nonce = nonce
            if enforce:
                self.emu.nonces.remember(self.emu.application_id, nonce, msg)
        return msg, True

    async def _post_dm(self, req: Req, cid: int) -> Any:
        emu = self.emu
        body = self._validate(req.body, (), n_files=len(req.files))
        self._check_post_fields(body)
        self._check_upload_size(req.files)
        msg, created = self._create_once(
            body,
            lambda: self._new_message(channel_id=cid, body=body, files=req.files, flags_mask=CHANNEL_MESSAGE_FLAGS),
        )
        emu._notify()
        return msg.to_payload()

    async def post_channel_message(self, req: Req, channel_id: str) -> Any:
        emu = self.emu
        if int(channel_id) in emu._dms:
            return await self._post_dm(req, int(channel_id))
        ch = self._channel(channel_id)
        cid = int(ch["id"])
        in_thread = ch["type"] in THREAD_TYPES
        self._require(cid, VIEW_CHANNEL | (SEND_MESSAGES_IN_THREADS if in_thread else SEND_MESSAGES), "send messages")
        body = self._validate(req.body, (), n_files=len(req.files))
        self._check_post_fields(body)
        if req.files:
            self._require(cid, ATTACH_FILES, "attach files")
        self._require_embeds(cid, body)
        self._check_upload_size(req.files)
        if in_thread:
            await self._enter_thread(ch)
        emu._check_slowmode(cid, emu.application_id)
        msg, created = self._create_once(
            body,
            lambda: self._new_message(channel_id=cid, body=body, files=req.files, flags_mask=CHANNEL_MESSAGE_FLAGS),
        )
        if not created:
            return msg.to_payload()
        await emu._dispatch_message_event("MESSAGE_CREATE", msg)
        emu._notify()
        return msg.to_payload()

    async def get_channel_message(self, req: Req, channel_id: str, message_id: str) -> Any:
        self._channel(channel_id)
        self._require(int(channel_id), VIEW_CHANNEL | READ_MESSAGE_HISTORY, "read message history")
        return self._channel_message(channel_id, message_id).to_payload()

    async def patch_channel_message(self, req: Req, channel_id: str, message_id: str) -> Any:
        emu = self.emu
        self._channel(channel_id)
        msg = self._channel_message(channel_id, message_id)
        if int(msg.author["id"]) != emu.application_id:
            raise APIError(403, 50005, "Cannot edit a message authored by another user", kind="forbidden")
        body = self._validate(
            req.body, (), n_files=len(req.files), flags=int((req.body or {}).get("flags") or 0) | msg.flags
        )
        self._require_embeds(int(channel_id), body)
        self._check_upload_size(req.files)
        emu.old_edits.check(msg.created_clock)
        self._apply_edit(msg, body, req.files)
        await emu._dispatch_message_event("MESSAGE_UPDATE", msg)
        emu._notify()
        return msg.to_payload()

    async def delete_channel_message(self, req: Req, channel_id: str, message_id: str) -> Any:
        emu = self.emu
        self._channel(channel_id)
        msg = self._channel_message(channel_id, message_id)
        if int(msg.author["id"]) != emu.application_id:
            self._require(int(channel_id), MANAGE_MESSAGES, "delete other users' messages")
        msg.deleted = True
        await emu._dispatch_message_event("MESSAGE_DELETE", msg)
        emu._notify()
        return None

    async def typing(self, req: Req, channel_id: str) -> Any:
        self._channel(channel_id)
        return None

    # -- threads -----------------------------------------------------------------------------
    def _new_thread(self, parent: Dict[str, Any], body: Dict[str, Any], thread_id: int, ttype: int) -> Dict[str, Any]:
        emu = self.emu
        tree = ErrorTree()
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            tree.add(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        duration = body.get("auto_archive_duration") or 4320
        if duration not in (60, 1440, 4320, 10080):
            tree.add(("auto_archive_duration",), "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}.")
        if tree:
            raise APIError.invalid_form(tree)
        now = time.time()
        thread = {
            "id": str(thread_id),
            "type": ttype,
            "guild_id": parent["guild_id"],
            "parent_id": parent["id"],
            "owner_id": str(emu.application_id),
            "name": name,
            "last_message_id": None,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": body.get("rate_limit_per_user") or 0,
            "flags": 0,
            "total_message_sent": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": duration,
                "archive_timestamp": iso(now),
                "locked": False,
                "create_timestamp": iso(now),
                **({"invitable": body.get("invitable", True)} if ttype == 12 else {}),
            },
            "member": {
                "id": str(thread_id),
                "user_id": str(emu.application_id),
                "join_timestamp": iso(now),
                "flags": 0,
            },
        }
        emu._channels[thread_id] = thread
        emu._channel_messages[thread_id] = []
        emu._guilds[int(parent["guild_id"])]["channels"].append(thread_id)
        thread["_members"] = {emu.application_id}
        return thread

    def _thread_payload(self, thread: Dict[str, Any]) -> Dict[str, Any]:
        return {k: v for k, v in thread.items() if not k.startswith("_")}

    async def _announce_thread(self, thread: Dict[str, Any]) -> None:
        for s in self.emu.gateway.live_sessions(int(thread["guild_id"])):
            if s.ready:
                await s.dispatch("THREAD_CREATE", dict(self._thread_payload(thread), newly_created=True))

    async def create_thread(self, req: Req, channel_id: str) -> Any:
        emu = self.emu
        parent = self._channel(channel_id)
        if parent["type"] in THREAD_TYPES:
            raise APIError(400, 50024, "Cannot execute action on this channel type", kind="bad_request")
        body = req.body or {}
        ttype = body.get("type", 12)
        if ttype not in (11, 12):
            tree = ErrorTree()
            tree.add(("type",), "BASE_TYPE_CHOICES", "Value must be one of {11, 12}.")
            raise APIError.invalid_form(tree)
        self._require(
            int(parent["id"]),
            VIEW_CHANNEL | (CREATE_PUBLIC_THREADS if ttype == 11 else CREATE_PRIVATE_THREADS),
            "create threads",
        )
        thread = self._new_thread(parent, body, emu._new_id(), ttype)
        if ttype == 11:
            # Discord posts a "started a thread" system message in the parent channel.
            notice = Message(
                id=emu._new_id(),
                channel_id=int(parent["id"]),
                guild_id=int(parent["guild_id"]),
                author=emu.bot_user,
                content=thread["name"],
                type=18,
            )
            notice.message_reference = {"type": 0, "channel_id": thread["id"], "guild_id": parent["guild_id"]}
            emu._store_message(notice)
        await self._announce_thread(thread)
        emu._notify()
        return _json_response(self._thread_payload(thread), status=201)

    async def create_thread_from_message(self, req: Req, channel_id: str, message_id: str) -> Any:
        emu = self.emu
        parent = self._channel(channel_id)
        msg = self._channel_message(channel_id, message_id)
        self._require(int(parent["id"]), VIEW_CHANNEL | CREATE_PUBLIC_THREADS, "create threads")
        if msg.thread is not None:
            raise APIError(400, 160004, "A thread has already been created for this message", kind="bad_request")
        thread = self._new_thread(parent, req.body or {}, msg.id, 11)
        msg.thread = self._thread_payload(thread)
        await self._announce_thread(thread)
        emu._notify()
        return _json_response(self._thread_payload(thread), status=201)

    async def join_thread(self, req: Req, channel_id: str, user_id: str) -> Any:
        ch = self._channel(channel_id)
        if ch["type"] not in THREAD_TYPES:
            raise APIError(400, 50024, "Cannot execute action on this channel type", kind="bad_request")
        uid = self.emu.application_id if user_id == "@me" else int(user_id)
        ch.setdefault("_members", set()).add(uid)
        ch["member_count"] = len(ch["_members"])
        return None

    async def leave_thread(self, req: Req, channel_id: str, user_id: str) -> Any:
        ch = self._channel(channel_id)
        uid = self.emu.application_id if user_id == "@me" else int(user_id)
        ch.setdefault("_members", set()).discard(uid)
        ch["member_count"] = len(ch["_members"])
        return None

    # ========================================================================================
    # guilds
    # ========================================================================================
    def _guild_id(self, guild_id: str) -> int:
        gid = int(guild_id)
        if gid not in self.emu._guilds:
            raise APIError(404, 10004, "Unknown Guild", kind="not_found")
        if not self.emu.in_guild(gid):
            raise APIError(403, 50001, "Missing Access", kind="forbidden", detail=f"the bot is not in guild {gid}")
        self._check_outage(gid)
        return gid

    async def get_guild(self, req: Req, guild_id: str) -> Any:
        """The guild; ``with_counts=true`` adds the approximate member and presence counts (Discord: Get Guild)."""
        gid = self._guild_id(guild_id)
        payload = self.emu._guild_payload(gid)
        if req.flag("with_counts"):
            payload.update(approximate_member_count=len(self.emu._guilds[gid]["members"]), approximate_presence_count=0)
        return payload

    async def get_guild_channels(self, req: Req, guild_id: str) -> Any:
        gid = self._guild_id(guild_id)
        return [
            self.emu._channel_payload(c)
            for c in self.emu._guilds[gid]["channels"]
            if self.emu._channels[c]["type"] not in THREAD_TYPES
        ]

    async def get_guild_roles(self, req: Req, guild_id: str) -> Any:
        gid = self._guild_id(guild_id)
        return list(self.emu._guilds[gid]["roles"].values())

    async def get_member(self, req: Req, guild_id: str, user_id: str) -> Any:
        gid = self._guild_id(guild_id)
        if int(user_id) not in self.emu._guilds[gid]["members"]:
            raise APIError(404, 10007, "Unknown Member", kind="not_found")
        return self.emu._member_payload(gid, int(user_id))


def _json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses bodies whose Content-Type is exactly "application/json"
    # (aiohttp's json_response would append "; charset=utf-8").
    return web.Response(
        body=json.dumps(data).encode("utf-8"), status=status, headers={"Content-Type": "application/json"}
    )


def _short(data: Any, limit: int = 400) -> str:
    try:
        text = json.dumps(data, default=str)
    except Exception:  # pragma: no cover
        text = repr(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."
