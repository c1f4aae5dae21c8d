"""Test-facing records: messages, attachments and interactions as the emulator saw them."""

from __future__ import annotations

import copy
import datetime
import json
import re
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set

from .errors import InteractionFailed
from .limits import flatten_buttons, flatten_components

if TYPE_CHECKING:  # pragma: no cover
    from .server import DiscordEmulator

FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# Callback types (Discord "Interaction Callback Type")
PONG = 1
CHANNEL_MESSAGE_WITH_SOURCE = 4
DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
MODAL = 9

CALLBACK_NAMES = {
    1: "PONG",
    4: "CHANNEL_MESSAGE_WITH_SOURCE",
    5: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE",
    6: "DEFERRED_UPDATE_MESSAGE",
    7: "UPDATE_MESSAGE",
    8: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
    9: "MODAL",
    12: "LAUNCH_ACTIVITY",
}

# Interaction types
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
APPLICATION_COMMAND_AUTOCOMPLETE = 4
MODAL_SUBMIT = 5


def iso(ts: Optional[float] = None) -> str:
    dt = datetime.datetime.fromtimestamp(time.time() if ts is None else ts, tz=datetime.timezone.utc)
    return dt.isoformat()


def stored_embeds(embeds: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Embeds as Discord sends back a message's: fields sent as null left out, ``type`` defaulting to
    ``"rich"`` and a field's ``inline`` to false (MessageEmbedResponse, MessageEmbedFieldResponse). Returns
    ``embeds`` (changed in place)."""

    def drop_nulls(node: Dict[str, Any]) -> None:
        for k in [k for k, v in node.items() if v is None]:
            del node[k]
        for v in node.values():
            if isinstance(v, dict):
                drop_nulls(v)

    for e in embeds:
        if isinstance(e, dict):
            drop_nulls(e)
            e.setdefault("type", "rich")
            for f in e.get("fields") or []:
                if isinstance(f, dict):
                    f.setdefault("inline", False)
    return embeds


def stored_components(components: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Components as Discord stores and sends back a message's: every component without an ``id`` gets one
    (numbers counting up from 1 in document order, depth first, skipping ids the sender chose: Discord docs,
    Components reference, "auto populated through an increment system"), and an emoji sent with
    ``"id": null`` (a Unicode emoji) comes back without the ``id`` (ComponentEmojiResponse). Returns
    ``components`` (changed in place)."""
    used = set()
    order: List[Dict[str, Any]] = []

    def walk(items: Any) -> None:
        for c in items or []:
            if not isinstance(c, dict):
                continue
            order.append(c)
            for holder in [c] + [o for o in c.get("options") or [] if isinstance(o, dict)]:  # select options
                emoji = holder.get("emoji")
                if isinstance(emoji, dict) and "id" in emoji and emoji["id"] is None:
                    del emoji["id"]
            if isinstance(c.get("id"), int):
                used.add(c["id"])
            walk(c.get("components"))
            for key in ("accessory", "component"):
                if isinstance(c.get(key), dict):
                    walk([c[key]])

    walk(components)
    n = 0
    for c in order:
        if not isinstance(c.get("id"), int):
            n += 1
            while n in used:
                n += 1
            c["id"] = n
    return components


class Attachment:
    """An uploaded file. ``data`` holds the exact bytes the bot sent."""

    def __init__(
        self,
        id: int,
        filename: str,
        data: bytes,
        content_type: str,
        *,
        url: str,
        description: Optional[str] = None,
        ephemeral: bool = False,
    ) -> None:
        self.id = id
        self.filename = filename
        self.data = data
        self.content_type = content_type
        self.url = url
        self.description = description
        self.ephemeral = ephemeral
        self.width: Optional[int] = None
        self.height: Optional[int] = None
        if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
            self.width = int.from_bytes(data[16:20], "big")
            self.height = int.from_bytes(data[20:24], "big")

    @property
    def size(self) -> int:
        return len(self.data)

    def to_payload(self) -> Dict[str, Any]:
        payload: Dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            payload["description"] = self.description
        if self.width is not None:
            payload["width"] = self.width
            payload["height"] = self.height
        if self.ephemeral:
            payload["ephemeral"] = True
        return payload

    def __repr__(self) -> str:
        return f"<Attachment {self.filename!r} {self.content_type} {self.size} bytes>"


USER_MENTION = re.compile(r"<@!?(\d{15,21})>")


def pinged_users(content: str, allowed_mentions: Optional[Dict[str, Any]]) -> Set[int]:
    """The users a new message's ``content`` notifies, as Discord decides (Allowed Mentions): every user mentioned
    when ``allowed_mentions`` is absent; else those it lets through — all of them with ``"users"`` in ``parse``,
    otherwise only those listed in its ``users``."""
    mentioned = {int(uid) for uid in USER_MENTION.findall(content or "")}
    if allowed_mentions is None:
        return mentioned
    if "users" in (allowed_mentions.get("parse") or []):
        return mentioned
    return mentioned & {int(uid) for uid in allowed_mentions.get("users") or []}


class Message:
    """A message as users would see it. Edits (PATCH, UPDATE_MESSAGE) update this same object."""

    def __init__(
        self,
        *,
        id: int,
        channel_id: int,
        guild_id: Optional[int],
        author: Dict[str, Any],
        content: str = "",
        embeds: Optional[List[Dict[str, Any]]] = None,
        components: Optional[List[Dict[str, Any]]] = None,
        attachments: Optional[List[Attachment]] = None,
        flags: int = 0,
        type: int = 0,
        interaction_id: Optional[int] = None,
        webhook_id: Optional[int] = None,
        application_id: Optional[int] = None,
        visible_to: Optional[int] = None,
        interaction_metadata: Optional[Dict[str, Any]] = None,
        message_reference: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.id = id
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.author = author
        self.content = content or ""
        self.embeds: List[Dict[str, Any]] = embeds or []
        self.components: List[Dict[str, Any]] = components or []
        self.attachments: List[Attachment] = attachments or []
        self.flags = flags
        self.type = type
        self.interaction_id = interaction_id
        self.webhook_id = webhook_id
        self.application_id = application_id
        self.visible_to = visible_to  # user id that can see an ephemeral message
        self.interaction_metadata = interaction_metadata
        self.message_reference = message_reference
        self.referenced_message: Optional["Message"] = None
        self.thread: Optional[Dict[str, Any]] = None
        self.created_at = time.time()
        self.edited_at: Optional[float] = None
        #: the users this message notified when it was created (its user mentions that ``allowed_mentions`` let
        #: through: :func:`pinged_users`); an edit notifies no one
        self.pinged: Set[int] = set()
        self.deleted = False
        self.history: List[Dict[str, Any]] = []  # snapshots of previous versions (before each edit)
        self.nonce: Any = None  # Create Message's nonce (int or str), echoed in the payload
        self.created_clock: Optional[float] = None  # emu.clock() when stored (its age for the 30046 limit)

    # -- convenience -------------------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred "Bot is thinking..." placeholder."""
        return bool(self.flags & FLAG_LOADING)

    def buttons(self) -> List[Dict[str, Any]]:
        return flatten_buttons(self.components)

    def button(self, label_or_custom_id: str) -> Dict[str, Any]:
        buttons = self.buttons()
        for b in buttons:
            if b.get("custom_id") == label_or_custom_id:
                return b
        for b in buttons:
            if b.get("label") == label_or_custom_id:
                return b
        available = [(b.get("label"), b.get("custom_id")) for b in buttons]
        raise LookupError(
            f"message {self.id} has no button with label or custom_id {label_or_custom_id!r}; "
            f"buttons (label, custom_id): {available}"
        )

    def all_components(self) -> List[Dict[str, Any]]:
        return flatten_components(self.components)

    def snapshot(self) -> Dict[str, Any]:
        return {
            "content": self.content,
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    # -- wire format -------------------------------------------------------------------------
    def to_payload(self, *, include_guild: bool = False) -> Dict[str, Any]:
        """The message object as a REST reply carries it (Discord's MessageResponse); ``include_guild`` adds
        ``guild_id``, which Discord sends only in gateway events (MESSAGE_CREATE/UPDATE extra fields)."""
        payload: Dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at) if self.edited_at else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
        if include_guild and self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
            ref = self.referenced_message
            payload["referenced_message"] = ref.to_payload() if ref is not None and not ref.deleted else None
        if self.nonce is not None:
            payload["nonce"] = self.nonce
        if self.thread is not None:
            payload["thread"] = self.thread
        return payload

    def __repr__(self) -> str:
        bits = [f"id={self.id}", f"channel={self.channel_id}"]
        if self.content:
            c = self.content if len(self.content) <= 60 else self.content[:57] + "..."
            bits.append(f"content={c!r}")
        if self.embeds:
            bits.append(f"embeds={len(self.embeds)}")
        if self.attachments:
            bits.append(f"attachments={[a.filename for a in self.attachments]}")
        if self.components:
            bits.append(f"buttons={[b.get('label') or b.get('custom_id') for b in self.buttons()]}")
        if self.ephemeral:
            bits.append("ephemeral")
        if self.loading:
            bits.append("loading")
        if self.deleted:
            bits.append("deleted")
        return f"<Message {' '.join(bits)}>"


class Interaction:
    """Everything that happened to one interaction the emulator dispatched to the bot."""

    def __init__(
        self,
        emu: "DiscordEmulator",
        *,
        id: int,
        token: str,
        type: int,
        user: Dict[str, Any],
        channel_id: int,
        guild_id: Optional[int],
        payload: Dict[str, Any],
        command: Optional[Dict[str, Any]] = None,
        focused_option: Optional[Dict[str, Any]] = None,
        source_message: Optional[Message] = None,
        description: str = "",
    ) -> None:
        self._emu = emu
        self.id = id
        self.token = token
        self.type = type
        self.user = user
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.payload = payload
        self.command = command  # the synced command definition (for type 2 / 4)
        self.focused_option = focused_option  # the option definition being autocompleted
        self.source_message = source_message  # the message a component lives on (type 3)
        self.trigger: Optional["Interaction"] = None  # for a modal submit: the interaction that opened the modal
        self.description = description
        self.dispatched_at: Optional[float] = None  # loop.time() when INTERACTION_CREATE was sent
        self.issued_at: Optional[float] = None  # emu.clock() then: the token's age counts from here
        self.session_id: Optional[str] = None
        self.responses: List[Dict[str, Any]] = []  # accepted callback payloads, in order
        self.rejected: List[Any] = []  # RecordedError for every refused request about this interaction
        self.original: Optional[Message] = None
        self.followups: List[Message] = []
        self.completed = False  # a non-deferred response exists (see wait_done)
        self.last_message: Optional[Message] = None  # most recently created/edited message
        self.modal: Optional[Dict[str, Any]] = None
        self.choices: Optional[List[Dict[str, Any]]] = None

    # -- state -------------------------------------------------------------------------------
    @property
    def response(self) -> Optional[Dict[str, Any]]:
        return self.responses[0] if self.responses else None

    @property
    def response_type(self) -> Optional[int]:
        return self.responses[0]["type"] if self.responses else None

    @property
    def ephemeral(self) -> bool:
        r = self.response
        if r is None:
            return False
        data = r.get("data") or {}
        return bool((data.get("flags") or 0) & FLAG_EPHEMERAL)

    @property
    def messages(self) -> List[Message]:
        """Messages this interaction created: its response message (type 4/5) and follow-ups. For a
        component interaction answered with type 6/7 the edited message is ``original`` instead."""
        out: List[Message] = []
        if self.original is not None and self.original.interaction_id == self.id:
            out.append(self.original)
        for m in self.followups:
            if m not in out:
                out.append(m)
        return out

    @property
    def deadline(self) -> Optional[float]:
        if self.dispatched_at is None:
            return None
        return self.dispatched_at + self._emu.response_deadline

    def state(self) -> str:
        """Human readable summary used in failure messages."""
        lines = [f"interaction {self.id} ({self.description})"]
        if not self.responses:
            lines.append("  no accepted initial response")
        for r in self.responses:
            lines.append(f"  response type {r['type']} ({CALLBACK_NAMES.get(r['type'], '?')}): {_short(r.get('data'))}")
        for m in self.messages:
            lines.append(f"  message: {m!r}")
        for e in self.rejected:
            lines.append(f"  refused: {e}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Interaction id={self.id} type={self.type} {self.description!r} response_type={self.response_type}>"

    # -- waiting -----------------------------------------------------------------------------
    async def wait_response(self, timeout: float = 5, *, fail_on_refusal: bool = False) -> Dict[str, Any]:
        """The initial callback payload ``{"type": .., "data": ..}``.

        Fails early (InteractionFailed) once the 3 second deadline has passed without an accepted
        initial response, because Discord would already have shown "The application did not respond".
        With ``fail_on_refusal`` it also fails as soon as the emulator refuses a response attempt.
        """

        def check() -> bool:
            if self.responses:
                return True
            if fail_on_refusal and self.rejected:
                raise InteractionFailed(
                    f"the response to {self.description} was refused\n{self.state()}{self._emu._errors_text()}"
                )
            deadline = self.deadline
            if deadline is not None and self._emu._loop_time() > deadline:
                raise InteractionFailed(
                    f"no valid initial response within {self._emu.response_deadline}s of dispatch "
                    f'(Discord would show "The application did not respond")\n{self.state()}'
                    f"{self._emu._errors_text()}"
                )
            return False

        await self._emu._wait_until(
            check,
            timeout,
            lambda: f"an initial response to {self.description}\n{self.state()}",
            poll_deadline=self.deadline,
        )
        return self.responses[0]

    async def wait_followups(self, n: int = 1, timeout: float = 10) -> List[Message]:
        await self._emu._wait_until(
            lambda: len(self.followups) >= n,
            timeout,
            lambda: f"{n} follow-up message(s) for {self.description}, got {len(self.followups)}\n{self.state()}",
        )
        return list(self.followups)

    async def wait_done(self, timeout: float = 10) -> Optional[Message]:
        """Wait for a non-deferred response: a type 4/7/8/9 response, or a type 5/6 deferral followed by
        an edit of @original or a follow-up. Returns the message the user sees (None for 8/9)."""

        def check() -> bool:
            if self.completed:
                return True
            if not self.responses:
                deadline = self.deadline
                if deadline is not None and self._emu._loop_time() > deadline:
                    raise InteractionFailed(
                        f"no valid initial response within {self._emu.response_deadline}s of dispatch\n"
                        f"{self.state()}{self._emu._errors_text()}"
                    )
            return False

        await self._emu._wait_until(
            check,
            timeout,
            lambda: f"{self.description} to finish responding\n{self.state()}",
            poll_deadline=self.deadline,
        )
        return self.last_message

    async def wait_message(self, predicate: Callable[[Message], bool], timeout: float = 10) -> Message:
        """First message of this interaction (original or follow-up) matching predicate."""
        found: List[Message] = []

        def check() -> bool:
            for m in self.messages:
                if not m.deleted and predicate(m):
                    found.append(m)
                    return True
            return False

        await self._emu._wait_until(
            check, timeout, lambda: f"a matching message from {self.description}\n{self.state()}"
        )
        return found[0]


def _short(data: Any, limit: int = 300) -> str:
    try:
        text = json.dumps(data, default=str)
    except Exception:  # pragma: no cover
        text = repr(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."
