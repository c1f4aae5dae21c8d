"""Discord's other limits a bot can meet, beyond the rate-limit buckets (ratelimits.py).

* **Follow-ups per interaction**: Discord (Interactions → Receiving and Responding → Create Followup Message):
  "Apps are limited to 5 followup messages per interaction if it was initiated from a user-installed app and isn't
  installed in the server (meaning the authorizing integration owners object only contains USER_INSTALL)".
  Past it: 400, code 40094 "This interaction has hit the maximum number of follow up messages". The emulator
  installs the bot in the server (``authorizing_integration_owners: {"0": guild}``), for which Discord documents no
  cap, so ``emu.followup_limit`` is None; a test sets it to :data:`USER_INSTALL_FOLLOWUPS` to model a user-installed
  app (or any number, saying why).
* **Edits of messages older than an hour**: code 30046 "Maximum number of edits to messages older than 1 hour reached.
  Try again later" (Discord's JSON error codes, added by discord-api-docs PR #4381). Discord publishes no number;
  bots report it as ``429 Too Many Requests (error code: 30046)`` raised at once by discord.py (e.g.
  aikaterna/aikaterna-cogs#302) — not waited on and retried, as a 429 with ``Via`` would be — so the emulator
  answers it without ``Via`` (discord.py raises an HTTPException with that code at once); its body is the spec's
  429 body (``RatelimitedResponse``: ``code``, ``message``, ``retry_after``, ``global``). The
  emulator allows ``emu.old_message_edits`` edits of hour-old messages per hour (default 0: stricter than Discord,
  so a bot that copes here copes there). Age is measured with ``emu.clock``, so a test moves time.
* **Slowmode** (``rate_limit_per_user``, 0-21600 s): Channel resource: "bots, as well as users with the permission
  manage_messages or manage_channel, are unaffected". The bot's posts are therefore never refused for slowmode
  (``emu.slowmode_applies_to_bots = True`` models the contrary, saying why: 429 code 20016 "This action cannot be
  performed due to slowmode rate limit" with ``retry_after``); a user's post (``emu.post_message``) in slowmode
  is refused as their client would.
* **Snowflakes**: a path or query value that is not a snowflake / integer is answered 400 50035 with Discord's
  ``NUMBER_TYPE_COERCE`` error (``Value "abc" is not snowflake.``), never a crash.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from .errors import APIError, ErrorTree

USER_INSTALL_FOLLOWUPS = 5
OLD_MESSAGE_AGE = 3600.0  # seconds: "older than 1 hour"
SLOWMODE_MAX = 21600
SNOWFLAKE_MAX = (1 << 64) - 1
FOLLOWUP_CAP_MESSAGE = "This interaction has hit the maximum number of follow up messages"
OLD_EDIT_MESSAGE = "Maximum number of edits to messages older than 1 hour reached. Try again later"
SLOWMODE_MESSAGE = "This action cannot be performed due to slowmode rate limit."

#: path segment -> the name Discord gives the snowflake after it
PATH_PARAMS = {
    "channels": "channel_id",
    "messages": "message_id",
    "guilds": "guild_id",
    "users": "user_id",
    "applications": "application_id",
    "commands": "command_id",
    "interactions": "interaction_id",
    "webhooks": "webhook_id",
    "thread-members": "user_id",
    "members": "user_id",
    "roles": "role_id",
}
#: query parameters Discord reads as snowflakes / integers
SNOWFLAKE_QUERY = ("before", "after", "around", "guild_id", "thread_id")
INT_QUERY = ("limit",)


def followup_refusal(count: int, limit: Optional[int], interaction_id: int) -> Optional[APIError]:
    """The 400 40094 for the follow-up past ``limit`` (None: no cap), or None."""
    if limit is None or count < limit:
        return None
    return APIError(
        400,
        40094,
        FOLLOWUP_CAP_MESSAGE,
        kind="limit",
        interaction_id=interaction_id,
        detail=f"{count} follow-ups already; the cap is {limit}",
    )


class OldMessageEdits:
    """Edits of messages older than :data:`OLD_MESSAGE_AGE` (by ``clock``), ``allowed`` per hour, then 30046."""

    def __init__(self, clock: Any, allowed: int = 0) -> None:
        self.clock = clock
        self.allowed = allowed
        self._edits: List[float] = []

    def check(self, created: Optional[float]) -> None:
        """Raise the 30046 refusal if a message created at ``created`` (clock seconds) may not be edited now;
        otherwise count the edit if the message is old."""
        if created is None:
            return
        now = self.clock()
        if now - created <= OLD_MESSAGE_AGE:
            return
        self._edits = [t for t in self._edits if now - t < OLD_MESSAGE_AGE]
        if len(self._edits) >= self.allowed:
            # the spec's 429 body (RatelimitedResponse) requires retry_after and global: when the oldest counted
            # edit leaves the hour (a whole hour when none is allowed)
            retry = OLD_MESSAGE_AGE - (now - self._edits[0]) if self._edits and self.allowed else OLD_MESSAGE_AGE
            raise APIError(
                429,
                30046,
                OLD_EDIT_MESSAGE,
                kind="limit",
                via=False,
                extra={"retry_after": round(retry, 3), "global": False},
                detail=f"the message is {now - created:.0f}s old; {len(self._edits)} edits of hour-old "
                f"messages in the last hour, {self.allowed} allowed (emu.old_message_edits)",
            )
        self._edits.append(now)


def slowmode_refusal(retry_after: float) -> APIError:
    """The 429 20016 a slowmode refusal is (when ``emu.slowmode_applies_to_bots``)."""
    return APIError(
        429,
        20016,
        SLOWMODE_MESSAGE,
        kind="limit",
        extra={"retry_after": round(retry_after, 3), "global": False},
        detail=f"slowmode: wait {retry_after:.1f}s",
    )


def _coerce_error(tree: ErrorTree, name: str, value: str, what: str) -> None:
    tree.add((name,), "NUMBER_TYPE_COERCE", f'Value "{value}" is not {what}.')


def is_snowflake(value: Any) -> bool:
    """A snowflake as Discord reads one: decimal digits (a string or a non-negative int) within 64 bits."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= SNOWFLAKE_MAX
    return isinstance(value, str) and value.isdigit() and value.isascii() and int(value) <= SNOWFLAKE_MAX


#: a route's group patterns that hold snowflakes (the others, ``([^/]+)``, are tokens)
_SNOWFLAKE_GROUPS = (r"(\d+)", r"(@me|\d+)", r"(@original|\d+)")
_GROUP = re.compile(r"\((?:@me\||@original\|)?\\d\+\)|\(\[\^/\]\+\)")


def route_params(pattern: str) -> List[Optional[str]]:
    """For each group of a route pattern (``/channels/(\\d+)/messages/(\\d+)``): the name Discord gives it if it
    is a snowflake (``channel_id``, ``message_id``; from the path segment before it), or None for a token."""
    names: List[Optional[str]] = []
    for m in _GROUP.finditer(pattern):
        if m.group(0) == "([^/]+)":
            names.append(None)
            continue
        before = pattern[: m.start()].rstrip("/").rsplit("/", 1)[-1]
        names.append(PATH_PARAMS.get(before, f"{before.rstrip('s')}_id"))
    return names


def lenient_route(pattern: str) -> "re.Pattern[str]":
    """The route pattern with every snowflake group opened to any segment, to recognise a bad snowflake."""
    return re.compile(_GROUP.sub("([^/]+)", pattern))


def path_snowflake_errors(pairs: List[Tuple[Optional[str], Optional[str]]]) -> Optional[ErrorTree]:
    """The 50035 tree naming each (name, value) pair whose value is not a snowflake (names None: tokens, skipped;
    ``@me`` and ``@original`` are allowed where the route takes them), or None."""
    tree = ErrorTree()
    for name, value in pairs:
        if name is None or value is None or value in ("@me", "@original"):
            continue
        if not is_snowflake(value):
            _coerce_error(tree, name, value, "snowflake")
    return tree or None


def query_errors(query: Any) -> Optional[ErrorTree]:
    """50035 errors for query values that are not what Discord reads them as (snowflakes, integers), or None."""
    tree = ErrorTree()
    for name in SNOWFLAKE_QUERY:
        if name in query and not is_snowflake(query[name]):
            _coerce_error(tree, name, query[name], "snowflake")
    for name in INT_QUERY:
        if name in query and not re.fullmatch(r"-?\d{1,18}", query[name]):
            _coerce_error(tree, name, query[name], "int")
    return tree or None


def body_snowflake_errors(body: Dict[str, Any]) -> Optional[ErrorTree]:
    """50035 errors for a message body's snowflakes the emulator reads (``message_reference`` ids)."""
    tree = ErrorTree()
    ref = body.get("message_reference")
    if isinstance(ref, dict):
        for key in ("message_id", "channel_id", "guild_id"):
            value = ref.get(key)
            if value is not None and not is_snowflake(value):
                tree.add(("message_reference", key), "NUMBER_TYPE_COERCE", f'Value "{value}" is not snowflake.')
    elif ref is not None:
        tree.add(("message_reference",), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
    return tree or None
