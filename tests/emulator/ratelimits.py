"""Discord's REST rate limits, enforced the way Discord reports them (on by default: ``emu.rate_limits``).

Source: Discord developer documentation, Topics → Rate Limits (https://discord.com/developers/docs/topics/rate-limits):

* **Per-route buckets**, counted per top-level resource ("major parameter"): ``channel_id``, ``guild_id``, or
  ``webhook_id`` + ``webhook_token``. Every reply carries ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch
  seconds), ``-Reset-After`` (seconds, with decimals) and ``-Bucket`` (an opaque hash of the route, "non-inclusive of
  top-level resources").
* **429** when a bucket is spent: JSON ``{"message": "You are being rate limited.", "retry_after": 1.234,
  "global": false, "code": 0}`` (the OpenAPI ``RatelimitedResponse``: Error's ``code`` and ``message`` plus
  ``retry_after`` and ``global``), headers ``Retry-After`` (whole seconds, rounded up) and ``X-RateLimit-Scope``
  (``user``: this bot's limit, ``global``: the global limit, ``shared``: a per-resource limit). Discord's own 429s
  come through Google's front end and carry ``Via: 1.1 google`` — discord.py treats a 429 *without* ``Via`` as a
  Cloudflare ban and raises instead of waiting (discord/http.py ``HTTPClient.request``, discord/webhook/async_.py
  ``AsyncWebhookAdapter.request``), so every reply of the emulator's "Discord" carries it.
* **Global limit**: 50 requests per second per bot token; without an Authorization header it applies to the IP
  address. "Interaction endpoints are not bound to the bot's Global Rate Limit": ``/interactions/{id}/{token}/...``
  and the interaction webhooks ``/webhooks/{application_id}/{token}...`` are exempt (they keep their own buckets).
  A global 429 has ``X-RateLimit-Global: true``, ``X-RateLimit-Scope: global`` and ``"global": true``.
* **Invalid request limit** ("Cloudflare bans"): 10,000 answers with status 401, 403 or 429 per 10 minutes (429s
  with ``X-RateLimit-Scope: shared`` are not counted) and the client is refused everything for a while. A Cloudflare
  ban comes from Cloudflare, not Discord: 429 with a plain-text body ``error code: 1015`` and no ``Via`` header
  (what discord-api-docs issues #1771 and #5385 show, and what discord.py's "Banned by Cloudflare more than likely"
  branch expects). ``ban_status = 403`` answers Cloudflare's other refusal (403, text) instead. 404s are counted
  separately (the docs: "If a webhook returns a 404 status you should not attempt to use it again").

Discord publishes no per-route numbers ("rate limits should not be hard coded"); :data:`ROUTE_LIMITS` says where
each value comes from. A test changes a limit only by saying so: ``emu.rate_limits.set_limit(...)``,
``emu.rate_limits.global_limit = ...`` or ``emu.rate_limits.enabled = False``.
"""

from __future__ import annotations

import collections
import hashlib
import json
import logging
import math
import time
from typing import Deque, Dict, List, NamedTuple, Optional, Tuple

from aiohttp import web

log = logging.getLogger("tests.emulator.ratelimits")

GLOBAL_LIMIT = 50  # requests per GLOBAL_PER seconds (docs: "All bots can make up to 50 requests per second")
GLOBAL_PER = 1.0
INVALID_REQUEST_LIMIT = 10_000  # docs: "Currently, this limit is 10,000 per 10 minutes"
INVALID_REQUEST_WINDOW = 600.0
BAN_SECONDS = 3600.0  # not published; Cloudflare bans reported in discord-api-docs #5385 lasted about an hour
VIA = "1.1 google"


class Limit(NamedTuple):
    """A bucket's size: ``limit`` requests per ``per`` seconds, answered with ``scope`` when spent."""

    limit: int
    per: float
    scope: str = "user"


#: (method, route template) -> Limit. A template writes each snowflake as ``{id}`` and each token as ``{token}``.
ROUTE_LIMITS: Dict[Tuple[str, str], Limit] = {
    # Create Message: 5 per 5 s per channel, as Discord's headers show it (X-RateLimit-Limit: 5,
    # X-RateLimit-Reset-After: 5 on the first post of a window), the value the brief observed.
    ("POST", "/channels/{id}/messages"): Limit(5, 5.0),
    # Edit and delete share the figure Discord's headers show for message routes: 5 per 5 s (edit), 5 per 1 s
    # (delete); not published.
    ("PATCH", "/channels/{id}/messages/{id}"): Limit(5, 5.0),
    ("DELETE", "/channels/{id}/messages/{id}"): Limit(5, 1.0),
    ("POST", "/channels/{id}/typing"): Limit(5, 5.0),
    # Interaction follow-ups and edits go through the interaction's webhook: 5 per 2 s per webhook id + token
    # (webhook buckets as Discord's headers show them; e.g. birdie0's Discord Webhooks Guide, "Rate Limits").
    ("POST", "/webhooks/{id}/{token}"): Limit(5, 2.0),
    ("PATCH", "/webhooks/{id}/{token}/messages/@original"): Limit(5, 2.0),
    ("PATCH", "/webhooks/{id}/{token}/messages/{id}"): Limit(5, 2.0),
    ("GET", "/webhooks/{id}/{token}/messages/@original"): Limit(5, 2.0),
    ("DELETE", "/webhooks/{id}/{token}/messages/@original"): Limit(5, 2.0),
    ("DELETE", "/webhooks/{id}/{token}/messages/{id}"): Limit(5, 2.0),
    # Interaction callbacks: one per interaction by nature; a bucket per interaction id + token like a webhook's.
    ("POST", "/interactions/{id}/{token}/callback"): Limit(5, 2.0),
    # Command sync: not published; assumed 5 per 20 s per application (guild: per guild), so a bot that re-syncs
    # in a loop meets 429s while one start-up sync never does.
    ("PUT", "/applications/{id}/commands"): Limit(5, 20.0),
    ("PUT", "/applications/{id}/guilds/{id}/commands"): Limit(5, 20.0),
}
#: every other route: 5 per 5 s per major parameter (assumed: the commonest bucket in Discord's headers)
DEFAULT_LIMIT = Limit(5, 5.0)


class Route(NamedTuple):
    """A request's rate-limit identity: ``template`` (e.g. ``/channels/{id}/messages``), ``major`` (the top-level
    resource, e.g. ``channel:123``, or ``''``), ``interaction`` (exempt from the global limit)."""

    method: str
    template: str
    major: str
    interaction: bool


def route_of(method: str, path: str, application_id: int) -> Route:
    """Classify ``method path`` (path after ``/api/v10``). Never raises, whatever the path holds."""
    parts = [p for p in path.split("/") if p]
    out: List[str] = []
    major = ""
    interaction = False
    i = 0
    while i < len(parts):
        seg = parts[i]
        prev = parts[i - 1] if i else ""
        if prev in ("webhooks", "interactions") and i == 1:
            token = parts[2] if len(parts) > 2 else ""
            out.append("{id}" if seg.isdigit() else seg)
            if token:
                out.append("{token}")
            major = f"{prev[:-1]}:{seg}:{hashlib.sha1(token.encode()).hexdigest()[:12]}"
            interaction = prev == "interactions" or (seg.isdigit() and int(seg) == application_id and bool(token))
            i += 2
            continue
        if seg.isdigit():
            out.append("{id}")
            if prev in ("channels", "guilds") and not major:
                major = f"{prev[:-1]}:{seg}"
        else:
            out.append(seg)
        i += 1
    return Route(method.upper(), "/" + "/".join(out), major, interaction)


class RateLimited(NamedTuple):
    """One 429 the emulator sent (``emu.ratelimited``): ``route`` ("POST /channels/1/messages"), ``scope``
    (user/global/shared), ``global_`` (the global limit)."""

    route: str
    scope: str
    global_: bool


class _Window:
    """A fixed window: ``used`` requests since it opened; it resets at ``reset_at`` (monotonic seconds). The limit
    is read when checking, so a test's change applies at once."""

    __slots__ = ("used", "reset_at")

    def __init__(self) -> None:
        self.used = 0
        self.reset_at = 0.0


class RateLimits:
    """The emulator's rate limiter (``emu.rate_limits``). Attributes a test may set (saying why): ``enabled``,
    ``global_limit`` / ``global_per``, ``invalid_request_limit`` (ban threshold per ``invalid_request_window``
    seconds), ``ban_seconds``, ``ban_status`` (429 or 403); :meth:`set_limit` for one route.
    Times are real (``time.monotonic``): discord.py sleeps real seconds on what the headers say."""

    def __init__(self, application_id: int) -> None:
        self.application_id = application_id
        self.enabled = True
        self.global_limit = GLOBAL_LIMIT
        self.global_per = GLOBAL_PER
        self.invalid_request_limit = INVALID_REQUEST_LIMIT
        self.invalid_request_window = INVALID_REQUEST_WINDOW
        self.ban_seconds = BAN_SECONDS
        self.ban_status = 429
        self.banned_until = 0.0
        self.limits: Dict[Tuple[str, str], Limit] = dict(ROUTE_LIMITS)
        self.ratelimited: List[RateLimited] = []
        self._buckets: Dict[Tuple[str, str], _Window] = {}
        self._global: Dict[str, _Window] = {}
        self._invalid: Deque[float] = collections.deque()
        self._not_found: Deque[float] = collections.deque()

    # -- configuration ---------------------------------------------------------------------------------------------
    def set_limit(self, method: str, template: str, limit: int, per: float, scope: str = "user") -> None:
        """Give route ``method template`` (e.g. ``'POST', '/channels/{id}/messages'``) ``limit`` requests per ``per``
        seconds, answered with ``scope`` (``user`` or ``shared``) when spent. A bucket already running keeps its
        window's end and counts its requests so far against the new limit."""
        if scope not in ("user", "shared"):
            raise ValueError(f"scope must be 'user' or 'shared', not {scope!r}")
        if limit < 1 or per <= 0:
            raise ValueError("a limit needs limit >= 1 and per > 0")
        self.limits[(method.upper(), template)] = Limit(limit, per, scope)

    def limit_for(self, route: Route) -> Limit:
        return self.limits.get((route.method, route.template), DEFAULT_LIMIT)

    @staticmethod
    def bucket_hash(route: Route) -> str:
        """The ``X-RateLimit-Bucket`` of a route: an opaque hash of method and template (no major parameter)."""
        return hashlib.md5(f"{route.method} {route.template}".encode()).hexdigest()

    # -- accounting --------------------------------------------------------------------------------------------------
    def _prune(self, now: float) -> None:
        keep = max(self.invalid_request_window, INVALID_REQUEST_WINDOW)
        for dq in (self._invalid, self._not_found):
            while dq and now - dq[0] > keep:
                dq.popleft()

    def record(self, status: int, scope: Optional[str] = None) -> None:
        """Count a reply for the invalid-request limit: 401, 403 and 429 (except scope ``shared``); 404 apart.
        Starts a ban when the count reaches ``invalid_request_limit`` within ``invalid_request_window``."""
        now = time.monotonic()
        if status in (401, 403) or (status == 429 and scope != "shared"):
            self._invalid.append(now)
            self._prune(now)
            if (
                self.enabled
                and not self.banned(now)
                and self.invalid_requests(self.invalid_request_window) >= self.invalid_request_limit
            ):
                self.banned_until = now + self.ban_seconds
                log.warning(
                    "invalid request limit reached (%d in %.0fs): refusing every request for %.0fs",
                    self.invalid_request_limit,
                    self.invalid_request_window,
                    self.ban_seconds,
                )
        elif status == 404:
            self._not_found.append(now)
            self._prune(now)

    def invalid_requests(self, window: float = INVALID_REQUEST_WINDOW) -> int:
        """401/403/429 answers (429s of scope ``shared`` excluded) in the last ``window`` seconds."""
        since = time.monotonic() - window
        return sum(1 for t in self._invalid if t >= since)

    def not_found_requests(self, window: float = INVALID_REQUEST_WINDOW) -> int:
        """404 answers in the last ``window`` seconds."""
        since = time.monotonic() - window
        return sum(1 for t in self._not_found if t >= since)

    def banned(self, now: Optional[float] = None) -> bool:
        return (now if now is not None else time.monotonic()) < self.banned_until

    def lift_ban(self) -> None:
        """End a ban now (the counts stay)."""
        self.banned_until = 0.0

    # -- per request -------------------------------------------------------------------------------------------------
    def ban_response(self) -> web.Response:
        """Cloudflare's refusal while banned: plain text, no ``Via`` (so discord.py raises instead of waiting)."""
        if self.ban_status == 403:
            return web.Response(status=403, text="error code: 1020", content_type="text/plain")
        return web.Response(status=429, text="error code: 1015", content_type="text/plain")

    def check(
        self, method: str, path: str, authorized: bool
    ) -> Tuple[Optional[web.Response], Dict[str, str], Optional[str]]:
        """Take one request through the global limit and its bucket. Returns ``(refusal, headers, scope)``: a 429
        to answer instead of handling the request (or None), the ``X-RateLimit-*`` headers for the reply, and the
        refusal's scope."""
        if not self.enabled:
            return None, {"Via": VIA}, None
        now = time.monotonic()
        route = route_of(method, path, self.application_id)
        shown = f"{route.method} {path}"
        if not route.interaction:
            who = "bot" if authorized else "ip"
            win = self._global.setdefault(who, _Window())
            if now >= win.reset_at:
                win.used, win.reset_at = 0, now + self.global_per
            if win.used >= self.global_limit:
                retry = win.reset_at - now
                self.ratelimited.append(RateLimited(shown, "global", True))
                return self._refusal(retry, True, "global", {"X-RateLimit-Global": "true"}), {}, "global"
            win.used += 1
        limit = self.limit_for(route)
        key = (self.bucket_hash(route), route.major)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Window()
        if now >= bucket.reset_at:
            bucket.used, bucket.reset_at = 0, now + limit.per
        retry = bucket.reset_at - now
        if bucket.used >= limit.limit:
            headers = self._headers(limit.limit, 0, retry, key[0])
            self.ratelimited.append(RateLimited(shown, limit.scope, False))
            return self._refusal(retry, False, limit.scope, headers), {}, limit.scope
        bucket.used += 1
        return None, self._headers(limit.limit, limit.limit - bucket.used, retry, key[0]), None

    @staticmethod
    def _headers(limit: int, remaining: int, reset_after: float, bucket: str) -> Dict[str, str]:
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
            "Via": VIA,
        }

    @staticmethod
    def _refusal(retry_after: float, is_global: bool, scope: str, headers: Dict[str, str]) -> web.Response:
        message = "The resource is being rate limited." if scope == "shared" else "You are being rate limited."
        body = {"message": message, "retry_after": round(retry_after, 3), "global": is_global, "code": 0}
        headers = dict(
            headers,
            **{
                "Retry-After": str(max(1, math.ceil(retry_after))),
                "X-RateLimit-Scope": scope,
                "Via": VIA,
                "Content-Type": "application/json",
            },
        )
        return web.Response(status=429, body=json.dumps(body).encode(), headers=headers)
