"""How the bot talks HTTP to Discord under failures and limits: no blind retry of a public follow-up, a fair pace
for the bot's own requests, and a count of the requests Discord counts against it.

**Posts made once.** discord.py 2.7 retries a request that Discord answered 500, 502, 504 or 524 up to five times
by itself (``HTTPClient.request``; ``AsyncWebhookAdapter.request`` for webhooks and interactions). Discord may
answer 5xx *after* it made the post, so a blind retry doubles it:

- A channel message (``POST /channels/{id}/messages``) carries a ``nonce`` with ``enforce_nonce: true`` when the bot
  gives one (discord.py's ``handle_message_parameters``), and Discord then returns the first message for a retry
  with the same nonce by the same author within a few minutes. So every channel post of the bot passes a nonce made
  from what it announces (:mod:`bot.interface.posts`), and the library's retry is harmless there.
- An interaction follow-up (``POST /webhooks/{application}/{token}``) has no nonce. :class:`OnceAdapter` — installed
  in discord.py's ``async_context`` (the adapter every ``Webhook`` and ``Interaction`` of this context uses;
  :func:`install`) — hands the library's retry loop a session that raises :class:`PostUncertain` when a *public*
  follow-up is answered 5xx or its connection drops after it was sent, instead of returning the answer: the loop is
  left at once, and the caller decides (:func:`post_once`: look whether the post exists, then send again or leave
  it to the outbox). Ephemeral follow-ups keep the library's retry: nobody but their reader sees them, and a rare
  duplicate refusal beats a lost one.
- An interaction callback (the first response) may be sent again — Discord refuses a second callback — but
  discord.py's pause before it (1 s, then 3 s) would miss Discord's 3 s for the first response: a callback answered
  5xx, or whose connection dropped, is sent again at once, after a short pause, while that time allows. And when an
  attempt after such a failure is refused
  with 40060 ("already acknowledged"), the first one was made: the adapter returns it as made (discord.py then knows
  the interaction is answered and goes on with follow-ups) instead of raising.

**A fair pace.** Discord lets a bot make 50 requests a second with its token (interaction callbacks and follow-ups
exempt), across all its processes. :class:`FairGate` starts the bot-token requests of this process at most
``rate`` a second (a bucket of ``burst``), and when they queue, serves the queues of the servers round-robin, so one
server whose games post a lot (the computer's replies, timers, reconciler retries) can't starve the others. It
wraps ``HTTPClient.request`` (:func:`pace`), which interaction responses and follow-ups never go through.

**Invalid requests.** Discord (Cloudflare) bans a bot for a while after 10,000 answers 401, 403 or 429 in 10 minutes.
:func:`trace` is an aiohttp trace (discord.py's ``http_trace`` option) counting every 401, 403, 404 and 429 the bot
gets in ``hongbot_invalid_requests_total{status}`` (:mod:`bot.interface.metrics`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from typing import Any, AsyncContextManager, Awaitable, Callable, Hashable, TypeVar

import aiohttp
import discord
from discord.http import Route, json_or_text
from discord.webhook.async_ import AsyncWebhookAdapter, async_context
from prometheus_client import REGISTRY

from .metrics import INVALID_REQUESTS

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The statuses Discord counts as invalid requests (401, 403, 429), and 404, counted alongside.
INVALID = (401, 403, 404, 429)
#: discord.py's route path of an executed webhook: an interaction follow-up.
FOLLOW_UP = "/webhooks/{webhook_id}/{webhook_token}"
#: discord.py's route path of an interaction callback (the initial response).
CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
#: Discord's error code for a second initial response to an interaction.
ALREADY_ACKNOWLEDGED = 40060
#: Pauses (seconds) before an interaction callback answered 5xx is sent again at once, while the time since the
#: interaction's creation stays under :data:`QUICK_WITHIN` (Discord's 3 s for the first response, less a margin).
QUICK_PAUSES = (0.1, 0.2, 0.4, 0.6)
QUICK_WITHIN = 2.5
#: Discord's ephemeral message flag (1 << 6).
EPHEMERAL = 64
#: Discord's global limit on bot-token requests a second, and the share of it :class:`FairGate` uses at most in
#: any one second (``rate + burst``), all this bot's processes together.
DISCORD_GLOBAL = 50
BUDGET = 40


class PostUncertain(discord.DiscordServerError):
    """A post that may or may not have been made: Discord answered 5xx, or the connection dropped after the request
    was sent. ``status`` is Discord's (0 for a dropped connection)."""

    def __init__(
        self, response: aiohttp.ClientResponse | None, data: Any = None, *, cause: BaseException | None = None
    ):
        if response is not None:
            super().__init__(response, data)
        else:
            Exception.__init__(self, f"connection lost after the request was sent ({cause!r})")
            self.response, self.status, self.code, self.text = None, 0, 0, repr(cause)


class _Answer:
    """``session.request(...)`` as a context manager that raises :class:`PostUncertain` instead of returning a 5xx
    answer (or when the connection drops once the request is out)."""

    def __init__(self, request) -> None:
        self._request = request
        self._entered = False

    async def __aenter__(self) -> aiohttp.ClientResponse:
        try:
            response = await self._request.__aenter__()
        except aiohttp.ClientConnectorError:  # never connected: nothing was sent
            raise
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, asyncio.TimeoutError) as exc:
            raise PostUncertain(None, cause=exc) from exc
        self._entered = True
        if response.status >= 500:
            data = await json_or_text(response)
            await self._request.__aexit__(None, None, None)
            self._entered = False
            raise PostUncertain(response, data)
        return response

    async def __aexit__(self, *exc: Any) -> Any:
        if self._entered:
            return await self._request.__aexit__(*exc)
        return None


class _CheckedSession:
    """The part of an aiohttp session the webhook adapter uses (``request``), answering 5xx with
    :class:`PostUncertain`."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session

    def request(self, method: str, url: Any, **kwargs: Any) -> _Answer:
        return _Answer(self._session.request(method, url, **kwargs))


class _MadeBefore(Exception):
    """A callback retried after a 5xx was refused as already acknowledged: the 5xx came after the effect."""


class _CallbackAnswer:
    """``session.request(...)`` for an interaction callback. A 5xx answer — or a connection that dropped or timed
    out, which leaves it as unknown whether Discord took the callback — is sent again at once, after
    :data:`QUICK_PAUSES`, while Discord's 3 s for the first response leave time (discord.py's own retry waits 1 s,
    then 3 s: past the deadline); a JSON body only (a multipart form can't be sent twice). A failure is noted, and a
    later attempt refused with 40060 raises :class:`_MadeBefore` (the first had been made)."""

    def __init__(
        self, session: aiohttp.ClientSession, method: str, url: Any, kwargs: dict, tries: dict, deadline: float
    ) -> None:
        self._session, self._method, self._url, self._kwargs = session, method, url, kwargs
        self._tries, self._deadline = tries, deadline
        self._request: AsyncContextManager[aiohttp.ClientResponse] | None = None

    async def _send(self) -> aiohttp.ClientResponse:
        self._request = request = self._session.request(self._method, self._url, **self._kwargs)
        return await request.__aenter__()

    async def _release(self) -> None:
        request, self._request = self._request, None
        if request is not None:
            await request.__aexit__(None, None, None)

    async def _attempt(self) -> aiohttp.ClientResponse | BaseException:
        """One sending: the response, or the connection's failure (dropped, timed out) — which, like a 5xx, may
        have come before or after Discord took the callback."""
        try:
            return await self._send()
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as exc:
            self._request = None
            return exc

    async def __aenter__(self) -> aiohttp.ClientResponse:
        answer = await self._attempt()
        resendable = isinstance(self._kwargs.get("data"), (str, bytes, type(None)))
        for pause in QUICK_PAUSES:
            failed = isinstance(answer, BaseException) or answer.status >= 500
            if not failed or not resendable or time.time() + pause > self._deadline:
                break
            self._tries["failed"] = True
            if not isinstance(answer, BaseException):
                await self._release()
            await asyncio.sleep(pause)
            answer = await self._attempt()
        if isinstance(answer, BaseException):
            self._tries["failed"] = True
            raise answer
        response = answer
        if response.status >= 500:
            self._tries["failed"] = True
        elif response.status == 400 and self._tries.get("failed"):
            data = await json_or_text(response)
            if isinstance(data, dict) and data.get("code") == ALREADY_ACKNOWLEDGED:
                await self._release()
                raise _MadeBefore()
        return response

    async def __aexit__(self, *exc: Any) -> Any:
        request, self._request = self._request, None
        if request is not None:
            return await request.__aexit__(*exc)
        return None


class _CallbackSession:
    """The part of an aiohttp session the webhook adapter uses, for one interaction callback and its retries;
    ``created``: the interaction's creation (Unix seconds)."""

    def __init__(self, session: aiohttp.ClientSession, created: float) -> None:
        self._session = session
        self._tries: dict = {}
        self._deadline = created + QUICK_WITHIN

    def request(self, method: str, url: Any, **kwargs: Any) -> _CallbackAnswer:
        return _CallbackAnswer(self._session, method, url, kwargs, self._tries, self._deadline)


def _ephemeral(payload: dict | None, multipart: list[dict] | None) -> bool:
    """Whether a webhook execution's body asks for an ephemeral message (its ``flags``)."""
    if payload is None and multipart:
        for field in multipart:
            if field.get("name") == "payload_json":
                try:
                    payload = json.loads(field.get("value") or "{}")
                except (TypeError, ValueError):
                    payload = None
                break
    return bool(int((payload or {}).get("flags") or 0) & EPHEMERAL)


class OnceAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter, except that a public interaction follow-up answered 5xx (or whose connection
    dropped once sent) raises :class:`PostUncertain` at once instead of being retried blindly, and an interaction
    callback whose retry after a 5xx is refused as already acknowledged counts as made (see the module docstring).
    Everything else — rate limits (429: waits ``retry_after``), other errors, other routes — is the library's own
    handling."""

    async def request(self, route: Route, session: aiohttp.ClientSession, **kwargs: Any) -> Any:
        if (
            route.method == "POST"
            and route.path == FOLLOW_UP
            and not _ephemeral(kwargs.get("payload"), kwargs.get("multipart"))
        ):
            session = _CheckedSession(session)  # type: ignore[assignment]
        elif route.method == "POST" and route.path == CALLBACK and route.webhook_id is not None:
            try:
                created = discord.utils.snowflake_time(int(route.webhook_id)).timestamp()
                # (a stand-in for the session, as _CheckedSession: the adapter calls its request alone)
                return await super().request(
                    route,
                    _CallbackSession(session, created),  # type: ignore[arg-type]
                    **kwargs,
                )
            except _MadeBefore:
                log.info("interaction %s: a response answered 5xx was made after all", route.webhook_id)
                # what discord.py reads of a callback's answer (InteractionCallbackResponse): the interaction's id
                return {"interaction": {"id": str(route.webhook_id)}}
        return await super().request(route, session, **kwargs)


def install() -> OnceAdapter:
    """Make :class:`OnceAdapter` the webhook adapter of the current context (``discord.webhook.async_
    .async_context``) and of every task created from it afterwards: call it in the bot's main task before it connects
    (``setup_hook``). Returns the adapter."""
    adapter = OnceAdapter()
    async_context.set(adapter)
    return adapter


async def post_once(
    send: Callable[[], Awaitable[T]], made: Callable[[], Awaitable[bool | None]], *, tries: int = 3, pause: float = 1.0
) -> T | None:
    """Make a post once although Discord may fail after making it: ``send()`` (a fresh request each call: files are
    made anew); when it raises :class:`PostUncertain`, wait (``pause``, then 3×, 5× it) and ask ``made()`` — True:
    the post exists, done (returns None); False: it doesn't, send again (at most ``tries`` sends); None (can't
    tell): give up.

    Returns:
        what ``send()`` returned, or None when the post was found made.

    Raises:
        PostUncertain: the last send failed and the post was not found (or couldn't be looked for): whoever keeps
            the post due (the outbox) decides; any other error of ``send()`` as it is.
    """
    for attempt in range(tries):
        try:
            return await send()
        except PostUncertain as exc:
            await asyncio.sleep(pause * (1 + 2 * attempt))
            found = await made()
            if found:
                log.info("a post answered %s was made after all: not sent again", exc.status)
                return None
            if found is None or attempt == tries - 1:
                raise
            log.info("a post answered %s was not made: sending it again", exc.status)
    raise AssertionError("unreachable")


class FairGate:
    """Starts at most ``rate`` requests a second (a token bucket holding at most ``burst``), serving waiting
    requests one per key (a server) in turn.

    Args:
        rate: requests a second, > 0.
        burst: the most requests started at once after a quiet time (≥ 1).
        clock: monotonic seconds (injectable).
    """

    def __init__(self, rate: float, burst: int = 1, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, max(1, burst), clock
        self._tokens = float(self.burst)
        self._stamp = clock()
        self._queues: dict[Hashable, deque[asyncio.Future]] = {}  # insertion order: the round
        self._pump: asyncio.Task | None = None
        #: Requests started so far, by key (for tests and benchmarks).
        self.started: dict[Hashable, int] = {}

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn."""
        return sum(sum(not f.done() for f in queue) for queue in self._queues.values())

    def _refill(self) -> None:
        now = self.clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def _start(self, key: Hashable) -> None:
        self._tokens -= 1
        self.started[key] = self.started.get(key, 0) + 1

    async def slot(self, key: Hashable) -> None:
        """Wait for a request of ``key``'s turn (at once when nothing waits and the bucket has a token)."""
        self._refill()
        if not self._queues and self._tokens >= 1:
            self._start(key)
            return
        future = asyncio.get_running_loop().create_future()
        self._queues.setdefault(key, deque()).append(future)
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._serve())
        await future

    async def _serve(self) -> None:
        while self._queues:
            self._refill()
            if self._tokens < 1:
                await asyncio.sleep((1 - self._tokens) / self.rate)
                continue
            key = next(iter(self._queues))
            queue = self._queues.pop(key)
            future = queue.popleft()
            if queue:
                self._queues[key] = queue  # to the end of the round
            if not future.done():  # (a cancelled waiter gives its turn away)
                self._start(key)
                future.set_result(None)


def guild_of(bot: discord.Client) -> Callable[[Route], Hashable]:
    """A route's server for :class:`FairGate`: its ``guild_id``, or its channel's server (from the bot's cache), or the
    channel itself when not cached; 0 for a route of neither."""

    def key(route: Route) -> Hashable:
        if route.guild_id is not None:
            return int(route.guild_id)
        if route.channel_id is not None:
            channel = bot.get_channel(int(route.channel_id))
            guild = getattr(channel, "guild", None)
            return guild.id if guild is not None else ("channel", int(route.channel_id))
        return 0

    return key


def pace(http: discord.http.HTTPClient, gate: FairGate, key: Callable[[Route], Hashable]) -> None:
    """Make every bot-token request of ``http`` (``HTTPClient.request``) wait for its turn at ``gate`` first, by
    ``key(route)``. Interaction callbacks and follow-ups go through the webhook adapter instead: never paced."""
    request = http.request

    async def paced(route: Route, **kwargs: Any) -> Any:
        await gate.slot(key(route))
        return await request(route, **kwargs)

    http.request = paced  # type: ignore[method-assign]


def share(shard_ids: tuple[int, ...], shard_count: int) -> FairGate:
    """The gate of a process running ``shard_ids`` of ``shard_count`` shards: its share of :data:`BUDGET` (the
    processes of one bot share Discord's global limit), three quarters as the steady rate and a quarter as the
    burst, so no second sees more than the share."""
    budget = BUDGET * max(1, len(shard_ids)) / max(1, shard_count, len(shard_ids))
    return FairGate(rate=budget * 0.75, burst=max(1, int(budget * 0.25)))


def trace() -> aiohttp.TraceConfig:
    """An aiohttp trace counting the invalid requests (:data:`INVALID`) in ``hongbot_invalid_requests_total``: pass it
    as discord.py's ``http_trace``."""
    config = aiohttp.TraceConfig()

    async def on_request_end(session, context, params: aiohttp.TraceRequestEndParams) -> None:
        status = params.response.status
        if status in INVALID:
            INVALID_REQUESTS.labels(str(status)).inc()
            log.debug("%s %s answered %s", params.method, params.url.path, status)

    config.on_request_end.append(on_request_end)
    return config


def invalid_requests() -> dict[str, float]:
    """The invalid requests counted so far in this process, by status (for tests and benchmarks)."""
    return {
        str(s): REGISTRY.get_sample_value("hongbot_invalid_requests_total", {"status": str(s)}) or 0.0 for s in INVALID
    }


__all__ = [
    "PostUncertain",
    "OnceAdapter",
    "install",
    "post_once",
    "FairGate",
    "guild_of",
    "pace",
    "share",
    "trace",
    "invalid_requests",
    "INVALID",
    "BUDGET",
    "DISCORD_GLOBAL",
]
