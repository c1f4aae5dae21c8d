"""The web companion's pages (aiohttp + Jinja2 templates, autoescaped), over the bot's Redis, read only.

Routes (every page of a server answers 404 unless its ``/settings web`` allows it, and 404 says nothing more):

- ``/g/<token>``: a game — the board, players, whose turn, time left, the moves with what each did, the result;
  live (``/g/<token>/events``, Server-Sent Events whose ids are the record's version); a finished game is its
  replay (``?ply=N``, a slider, arrow keys).
- ``/g/<token>/b/<language>/<ply>-<hash>.png``: a board, immutable (:mod:`bot.web.views`, :mod:`bot.web.boards`).
- ``/s/<token>``: a ``public`` server's leaderboards and live games; ``/leaderboard/<game>``: the global one.
- ``/static/…``: the page's script and style; ``/healthz``.

Every client is limited per address (:mod:`bot.web.limits`: 429 with ``Retry-After``). The pages are in the
server's language (``/settings language``, else its language in Discord when the link was made); the global
leaderboard in the reader's (``Accept-Language``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from pathlib import Path
from typing import Any, AsyncIterator

import aiohttp_jinja2
import jinja2
from babel.dates import format_timedelta
from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage

from .. import i18n
from ..core.kinds import GameKind
from ..core.record import Record
from ..core.session import result_text
from ..games import all_kinds
from ..i18n import _, n_
from ..storage.decoding import RedisClient
from ..storage.errors import UNREACHABLE
from ..storage.finished_games import Records
from ..storage.keys import keys_for
from ..storage.live import LiveFeed
from ..storage.ratings import GLOBAL, PROVISIONAL_GAMES, Ratings, guild_scope
from ..storage.store import GameStore
from ..storage.weblinks import Link, WebLinks, game_subject, make_token
from .boards import Boards
from .limits import Networks, RateLimiter, StreamCounter, client_key
from .sockets import IDLE, Gate, GatedSite, server_header
from .live import KEEP_ALIVE, POLL, Hub, State, Topic
from .views import Found, GameView, frame_hash, game_view, plain, read_game

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
#: What a browser waits before reconnecting a dropped event stream (milliseconds; the stream's ``retry:``).
RETRY_MS = 2000
#: Leaderboard rows a page.
PER_PAGE = 20
#: What :func:`number` reads.
DIGITS = re.compile(r"[0-9]+")
#: Cache-Control of every answer that doesn't say otherwise (pages, the live stream, errors): kept by no cache, the
#: reader's or a shared one — a page names players and its address is its link, and a proxy or CDN that kept one
#: would go on showing it after ``web:off``, a revoke, a takeback or ``/privacy forget``.
PRIVATE = "private, no-store"
#: A board image's: its URL never changes meaning (:func:`bot.web.views.frame_hash`), so the reader's own browser
#: keeps it a day (a replay's frames load once); never a shared cache, which would keep serving it after a revoke,
#: ``web:off`` or ``/privacy forget`` turned its URL into a 404.
BOARD_CACHE = "private, max-age=86400, immutable"
#: The script and style's (no person in them; their URLs carry their version, ``?v=``).
STATIC_CACHE = "public, max-age=31536000, immutable"

#: Requests of a process reading the store at once (:meth:`Web.reading`); a pool's others serve the live pages.
READS = 32
#: Seconds a request waits for its turn to read the store before it is answered 503.
READ_WAIT = 5.0

WEB: web.AppKey["Web"] = web.AppKey("web")


class Busy(Exception):
    """Every turn to read the store is taken (:meth:`Web.reading`): the page is answered 503, back in a moment."""


class Web:
    """The companion's state in one process: the store (read), link resolution, boards, live topics, the limiter.

    Args:
        redis: the bot's Redis client (``decode_responses=True``).
        base_url: the absolute base of links and images (``public_url``), no trailing slash.
        kinds: the games, by name (default: every registered game).
        limiter: the per-client limiter (default: 120 at once, 4 a second).
        streams: the open event streams per client (default: :data:`bot.web.limits.STREAMS` each).
        poll: seconds between re-reads of the watched games.
        keep_alive: seconds between keep-alive comments on the event streams.
        sharded: the commits publish with ``SPUBLISH`` (a Redis 7 Cluster: :meth:`GameStore.detect_publish`).
        proxies: reverse proxies in front (``web_proxies``: whose ``X-Forwarded-For`` entry is the client).
        trusted_proxies: the addresses those proxies connect from (``web_trusted_proxies``; default: loopback and
            the private ranges, :data:`bot.web.limits.PRIVATE_NETWORKS`): ``X-Forwarded-For`` is believed from
            them only.
        reads: requests reading the store at once (:data:`READS`; a request past them waits its turn, at most
            :data:`READ_WAIT` seconds, then 503): page traffic never takes every connection of the Redis pool,
            whose rest serves the live pages' shared refreshes.
        global_leaderboard: serve ``/leaderboard/<game>`` (``web_global_leaderboard``; off: 404), names of every
            server's players on the open web, so the operator's decision.
        boards: the board images (default: :class:`bot.web.boards.Boards` with its bounds).
    """

    def __init__(
        self,
        redis: RedisClient,
        base_url: str,
        *,
        kinds: dict[str, GameKind] | None = None,
        limiter: RateLimiter | None = None,
        streams: StreamCounter | None = None,
        poll: float = POLL,
        keep_alive: float = KEEP_ALIVE,
        sharded: bool = False,
        proxies: int = 0,
        global_leaderboard: bool = False,
        boards: Boards | None = None,
        trusted_proxies: Networks | None = None,
        reads: int | None = None,
    ) -> None:
        self.redis = redis
        self.base_url = base_url.rstrip("/")
        self.kinds = kinds or all_kinds()
        self.store = GameStore(redis)
        self.links = WebLinks(redis)
        self.ratings = Ratings(redis)
        self.boards = boards or Boards()
        self.limiter = limiter or RateLimiter()
        self.streams = streams or StreamCounter()
        self.hub = Hub(self._state, poll, keep_alive)
        self.health = Health(redis)
        self.sharded = sharded
        self.proxies = proxies
        self.trusted_proxies = trusted_proxies if trusted_proxies is not None else Networks()
        self._reads = asyncio.Semaphore(reads or READS)
        self.read_wait = READ_WAIT
        self.global_leaderboard = global_leaderboard
        self.started = time.time()

    # --- reading ----------------------------------------------------------------------------------

    def client(self, request: web.Request) -> str:
        """Who ``request`` counts against (:func:`client_address` with this process's proxies)."""
        return client_address(request, self.proxies, self.trusted_proxies)

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """Hold one of the :data:`READS` turns to read the store for a request (at most :attr:`read_wait` seconds,
        :data:`READ_WAIT`, waited for one, else :class:`Busy`)."""
        try:
            await asyncio.wait_for(self._reads.acquire(), self.read_wait)
        except TimeoutError:
            raise Busy("every turn to read the store was taken") from None
        try:
            yield
        finally:
            self._reads.release()

    async def game(self, token: str) -> tuple[Link, Found, GameKind] | None:
        """What a game token opens, or None (404)."""
        link = await self.links.resolve(token)
        if link is None or not link.game_id:
            return None
        found = await read_game(self.store, link.channel_id, link.game_id)
        if found is None or found.record.kind not in self.kinds or found.record.guild_id != link.guild_id:
            return None
        return link, found, self.kinds[found.record.kind]

    def language(self, link: Link) -> str:
        """The language of a server's pages: its ``/settings language``, else the one its link was made in."""
        chosen = link.settings.language or link.language
        return chosen if chosen in i18n.languages() else i18n.SOURCE

    def view(self, token: str, link: Link, found: Found, kind: GameKind) -> GameView:
        """The game's view in its server's language (current while it is built)."""
        with i18n.language(self.language(link)):
            return game_view(kind, found, token, self.language(link))

    async def _state(self, token: str, known: int) -> State | None:
        """The live state of ``token``'s game for its viewers (:class:`bot.web.live.Hub`), or None (gone)."""
        opened = await self.game(token)
        if opened is None:
            return None
        link, found, kind = opened
        view = self.view(token, link, found, kind)
        version = view.version if not view.finished else known + 1
        return State(version, view.finished, self.event(version, view, link), link.channel_id)

    def event(self, version: int, view: GameView, link: Link) -> bytes:
        """The SSE event of a state: ``id`` the version; ``data`` JSON of the version, the last ply and its board,
        whose turn (or the result), the HTML of the page's head of the live part (status, players) and of the last
        move's entry, in the server's language. Its size doesn't grow with the game: a page whose list lacks more
        than that last entry (it missed a version, or a takeback shortened the game) reads the whole list from
        ``/g/<token>/live``."""
        with i18n.language(self.language(link)):
            context = {"view": view, "now": time.time(), "version": version, "frame": view.last}
            head = self.env.get_template("_head.html").render(context)
            move = self.env.get_template("_move.html").render(context)
        data = json.dumps({**view.summary(), "version": version, "head": head, "move": move}, ensure_ascii=False)
        return f"id: {version}\nevent: state\ndata: {data}\n\n".encode()

    @property
    def env(self) -> jinja2.Environment:
        return self._env

    @env.setter
    def env(self, env: jinja2.Environment) -> None:
        self._env = env

    # --- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start hearing the commits of watched games."""
        self.hub.start(LiveFeed(self.redis, self.hub.heard, sharded=self.sharded))

    async def close(self) -> None:
        await self.hub.close()


# --- middleware -----------------------------------------------------------------------------------


def client_address(request: web.Request, proxies: int = 0, trusted: Networks | None = None) -> str:
    """The client a request is counted against (:func:`bot.web.limits.client_key`: an IPv4 address, an IPv6 /64):
    the peer's address; or, behind ``proxies`` reverse proxies (``web_proxies``), when the peer and the entries the
    proxies nearer us wrote are ``trusted`` (``web_trusted_proxies``), the entry of ``X-Forwarded-For`` that many
    from the right (the one the outermost proxy saw; entries further left are the client's to write, so never
    believed). A request straight from anyone else (the port reachable directly) is counted by its peer whatever
    it writes in ``X-Forwarded-For``; so is one with too few entries."""
    peer = request.remote or "?"
    trusted = trusted if trusted is not None else Networks()
    if proxies and peer in trusted:
        forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
        if len(forwarded) >= proxies and all(hop in trusted for hop in forwarded[len(forwarded) - proxies + 1 :]):
            return client_key(forwarded[-proxies])
    return client_key(peer)


@web.middleware
async def limit(request: web.Request, handler):
    """429 with ``Retry-After`` for an address past its rate (:class:`bot.web.limits.RateLimiter`)."""
    app_web = request.app[WEB]
    wait = app_web.limiter.allow(app_web.client(request))
    if wait > 0:
        return web.Response(
            status=429,
            text="Too many requests: slow down and try again shortly.\n",
            headers={"Retry-After": str(max(1, round(wait)))},
        )
    return await handler(request)


#: Headers of every answer: no script, style or image from elsewhere (the pages have none), nothing sniffed, no
#: Referer (a page's address holds its link token), no framing.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@web.middleware
async def secured(request: web.Request, handler):
    """:data:`SECURITY_HEADERS` on every answer, and its Cache-Control: :data:`PRIVATE` unless it set one (a
    board), :data:`STATIC_CACHE` for a versioned static file."""
    response = await handler(request)
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
        if "Cache-Control" not in response.headers:
            versioned = request.path.startswith("/static/") and "v" in request.query and response.status == 200
            response.headers["Cache-Control"] = STATIC_CACHE if versioned else PRIVATE
    return response


#: Seconds a browser is asked to wait (``Retry-After``) when the store doesn't answer a page.
STORE_RETRY_AFTER = 5


@web.middleware
async def errors(request: web.Request, handler):
    """A missing page is one plain 404 page (nothing says whether a token ever existed); a store that doesn't answer
    in time (down, stalled, or every connection of this process's pool busy under a flood) is a 503 with
    ``Retry-After`` and a warning line, not a traceback; an unexpected error is a 500 page and a log line."""
    try:
        return await handler(request)
    except web.HTTPNotFound:
        return not_found(request)
    except web.HTTPException:
        raise
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except (*UNREACHABLE, Busy) as exc:
        log.warning("the web page %s: the store did not answer (%s)", redact(request.path), exc)
        return web.Response(
            status=503,
            headers={"Retry-After": str(STORE_RETRY_AFTER)},
            text="The game store is busy or out of reach: this page is back in a moment.\n",
        )
    except Exception:
        log.exception("the web page %s failed", redact(request.path))
        return web.Response(status=500, text="Something went wrong on our side.\n")


def not_found(request: web.Request) -> web.Response:
    """The one 404 page, in the reader's language."""
    with i18n.language(reader_language(request)):
        response = aiohttp_jinja2.render_template(
            "message.html",
            request,
            {
                "title": _("Nothing here"),
                "message": _(
                    "This page doesn't exist, or isn't shared any more. Ask in the game's Discord channel for a new link."
                ),
                "noindex": True,
            },
            status=404,
        )
    response.headers["X-Robots-Tag"] = "noindex"
    response.headers["Vary"] = "Accept-Language"
    return response


def reader_language(request: web.Request) -> str:
    """The reader's language from ``Accept-Language`` (the first one the bot speaks), else English."""
    header = request.headers.get("Accept-Language", "")
    for part in header.split(","):
        code = part.split(";")[0].strip()
        if code and code != "*":
            found = i18n.resolve(code)
            if found != i18n.SOURCE or code.lower().startswith("en"):
                return found
    return i18n.SOURCE


# --- pages ----------------------------------------------------------------------------------------


async def game_page(request: web.Request) -> web.StreamResponse:
    """A game's page; ``?ply=N`` opens its board after N moves."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    async with app_web.reading():
        opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    view = app_web.view(token, link, found, kind)
    language = app_web.language(link)
    asked = request.query.get("ply") or None  # empty: the current position
    with i18n.language(language):
        ply = view.last.ply if asked is None else number(asked, 6)
        if ply is None or ply > view.last.ply:
            # TRANSLATORS: {ply} is what was asked for after ?ply= in the address; {last} the last move's number
            message = _(
                "This game has no position {ply}: choose a number from 0 (the start) to {last}.",
                ply=(asked or "")[:20],
                last=view.last.ply,
            )
            response = aiohttp_jinja2.render_template(
                "message.html",
                request,
                {"title": view.title, "message": message, "back": f"/g/{token}", "noindex": True},
                status=400,
            )
            response.headers["X-Robots-Tag"] = "noindex"
            return response
        noindex = link.settings.web != "public"
        context: dict[str, Any] = {
            "view": view,
            "ply": ply,
            "frame": view.frames[ply],
            "token": token,
            "base": app_web.base_url,
            "noindex": noindex,
            "now": time.time(),
            "language": language,
            "version": view.version,
            "players": _("{first} vs {second}", first=view.seats[0].name, second=view.seats[1].name),
        }
        response = aiohttp_jinja2.render_template("game.html", request, context)
    if noindex:
        response.headers["X-Robots-Tag"] = "noindex"
    return response


def number(text: str, digits: int) -> int | None:
    """``text`` as a whole number if it is 1 to ``digits`` ASCII decimal digits and nothing else, else None: no
    sign, space, underscore, other script's digits (``٣``, ``１``) or superscripts (``²``, which ``str.isdigit``
    accepts and ``int`` refuses); leading zeros are read as the number they pad (``03`` is 3). Every number a
    request carries (``?ply=``, ``?page=``, ``Last-Event-ID``, ``?since=``, a board's ply) is read by this."""
    return int(text) if 0 < len(text) <= digits and DIGITS.fullmatch(text) else None


async def live_part(request: web.Request) -> web.StreamResponse:
    """The live part of a game's page as HTML (status, players, every move): what a page reads when an event
    doesn't complete its move list."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    async with app_web.reading():
        opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    view = app_web.view(token, link, found, kind)
    with i18n.language(app_web.language(link)):
        response = aiohttp_jinja2.render_template(
            "_live.html", request, {"view": view, "now": time.time(), "version": view.version}
        )
    response.headers["X-Robots-Tag"] = "noindex"
    return response


async def board_image(request: web.Request) -> web.StreamResponse:
    """A board PNG at its immutable URL; 404 for a name that isn't one of the game's boards *now* (checked before
    the cache is read: a board drawn before ``/privacy forget`` renamed a player, or before a takeback, is never
    served again), nor in another language than the game's pages (:meth:`Web.language`: one board a ply, so the
    URLs a game offers are bounded by its moves)."""
    app_web: Web = request.app[WEB]
    token, language = request.match_info["token"], request.match_info["language"]
    ply_text, _sep, digest = request.match_info["name"].partition("-")
    ply = number(ply_text, 6)
    if language not in i18n.languages() or ply is None or len(digest) != 16:
        raise web.HTTPNotFound()
    async with app_web.reading():
        opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    if language != app_web.language(link):
        raise web.HTTPNotFound()
    record = found.record
    moves = list(kind.load(record.game_state, replay=False).moves)
    if ply > len(moves) or frame_hash(record, moves, ply, record.finished and ply == len(moves)) != digest:
        raise web.HTTPNotFound()
    data = await app_web.boards.png(f"{record.id}:{language}:{ply}:{digest}", kind, record, ply, language)
    headers = {"Cache-Control": BOARD_CACHE}
    if link.settings.web != "public":
        headers["X-Robots-Tag"] = "noindex"
    return web.Response(body=data, content_type="image/png", headers=headers)


def last_event_id(request: web.Request) -> int | None:
    """The ``Last-Event-ID`` a reconnecting browser sent (or ``?since=``), or None when absent or not a version."""
    return number(request.headers.get("Last-Event-ID") or request.query.get("since") or "", 15)


async def events(request: web.Request) -> web.StreamResponse:
    """The live stream of a game: its state now unless the browser already has this version (``Last-Event-ID``;
    one from the future or garbage gets the state now), then each new version as it is committed, a keep-alive
    comment every :data:`bot.web.live.KEEP_ALIVE` seconds, and the end of the stream once the game is over. A client
    (:func:`client_address`) holding :data:`bot.web.limits.STREAMS` streams open already gets 429; one more than
    :data:`bot.web.limits.LIVE_STREAMS` in the process, 503."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    client = app_web.client(request)
    refused = app_web.streams.open(client)
    if refused:
        text = (
            f"Too many live pages open from your address (at most {app_web.streams.limit}): close some.\n"
            if refused == 429
            else "Too many live pages are open on this server: try again in a moment.\n"
        )
        return web.Response(status=refused, text=text, headers={"Retry-After": str(RETRY_MS // 1000 * 5)})
    try:
        return await _events(request, app_web, token)
    finally:
        app_web.streams.close(client)


async def _events(request: web.Request, app_web: Web, token: str) -> web.StreamResponse:
    async with app_web.reading():
        link = await app_web.links.resolve(token)
        if link is None or not link.game_id:
            raise web.HTTPNotFound()
        topic = await app_web.hub.join(token, link.channel_id)
    try:
        if topic.state is None:
            raise web.HTTPNotFound()
        response = web.StreamResponse(
            headers={
                **SECURITY_HEADERS,
                "Content-Type": "text/event-stream",
                "Cache-Control": PRIVATE,
                "X-Accel-Buffering": "no",
                "X-Robots-Tag": "noindex",
            }
        )
        await response.prepare(request)
        try:
            await stream(response, topic, last_event_id(request))
        except ConnectionError:  # the viewer left
            pass
        return response
    finally:
        await app_web.hub.leave(topic)


async def stream(response: web.StreamResponse, topic: Topic, known: int | None) -> None:
    """Write ``topic``'s states to an open event stream (see :func:`events`) until the game is over or gone.

    Raises:
        ConnectionError: the viewer went away.
    """
    await response.write(f"retry: {RETRY_MS}\n\n".encode())
    sent: State | None = None
    while True:
        future = topic.future  # (taken before the state is read: a state published meanwhile resolves it)
        state = topic.state
        if topic.gone:
            await response.write(b"event: gone\ndata: {}\n\n")
            break
        if state is not None and state is not sent:
            if known is None or state.version != known or sent is not None:
                await response.write(state.event)
            sent = state
            if state.finished:
                await response.write(b"event: end\ndata: {}\n\n")
                break
        if await topic.next(future) == "tick":
            await response.write(b": keep-alive\n\n")


async def leaderboard_rows(app_web: Web, kind: str, scope: str, page: int) -> dict[str, Any]:
    found = await app_web.ratings.page(kind, scope, page, PER_PAGE)
    return {
        "rows": [
            {
                "rank": rank,
                "name": standing.name,
                "rating": standing.rating,
                "uncertainty": standing.uncertainty,
                "games": standing.games,
                "record": standing.record_text(),
                "provisional": standing.provisional,
            }
            for rank, standing in found.entries
        ],
        "page": found.page,
        "pages": found.pages,
        "total": found.total,
    }


def page_number(request: web.Request) -> int:
    """``?page=N`` (1-based, :func:`number`) as a 0-based page; anything else is the first page."""
    page = number(request.query.get("page", "1"), 6)
    return page - 1 if page else 0


async def global_leaderboard(request: web.Request) -> web.StreamResponse:
    """The global leaderboard of one game, in the reader's language; 404 unless the operator serves it
    (``web_global_leaderboard``: it names players of servers whose own pages are off)."""
    app_web: Web = request.app[WEB]
    name = request.match_info.get("kind") or next(iter(app_web.kinds))
    if not app_web.global_leaderboard or name not in app_web.kinds:
        raise web.HTTPNotFound()
    async with app_web.reading():
        board = await leaderboard_rows(app_web, name, GLOBAL, page_number(request))
    with i18n.language(reader_language(request)):
        response = aiohttp_jinja2.render_template(
            "leaderboard.html",
            request,
            {
                "title": _("{game}: global leaderboard", game=app_web.kinds[name].title),
                "kinds": app_web.kinds,
                "current": name,
                "board": board,
                "noindex": False,
                "path": "/leaderboard/",
            },
        )
    response.headers["Vary"] = "Accept-Language"  # (in the reader's language: a cache must tell readers apart)
    return response


async def server_page(request: web.Request) -> web.StreamResponse:
    """A ``public`` server's page, titled with its name: the games being played and the recent ones, with their
    links, and each game's leaderboard there."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    async with app_web.reading():
        link = await app_web.links.resolve(token)
        if link is None or link.game_id:
            raise web.HTTPNotFound()
        running = await running_games(app_web, link)
        finished = await Records(app_web.store, app_web.ratings).recent(link.guild_id, limit=RECENT)
        # the leaderboard asked for, else the one of the game played last there
        played = [record.kind for record in finished if record.kind in app_web.kinds]
        name = request.query.get("game") or (played[0] if played else next(iter(app_web.kinds)))
        if name not in app_web.kinds:
            name = next(iter(app_web.kinds))
        board = await leaderboard_rows(app_web, name, guild_scope(link.guild_id), page_number(request))
        hrefs = await game_hrefs(app_web, link, [record.id for record in running + finished])
    now = time.time()
    with i18n.language(app_web.language(link)):
        words = _("Games and leaderboard")
        return aiohttp_jinja2.render_template(
            "server.html",
            request,
            {
                "title": f"{link.name} · {words}" if link.name else words,
                "heading": link.name or words,
                "subtitle": words if link.name else "",
                "kinds": app_web.kinds,
                "current": name,
                "board": board,
                "live": [game_item(app_web, record, hrefs) for record in running],
                "recent": [
                    game_item(app_web, record, hrefs, now) for record in finished if record.kind in app_web.kinds
                ],
                "noindex": False,
                "path": f"/s/{token}?game=",
            },
        )


#: Finished games a server's page lists.
RECENT = 10


async def running_games(app_web: Web, link: Link) -> list[Record]:
    """The server's running games (of a game this process serves)."""
    games = []
    for channel_id in await app_web.store.active_channels(link.guild_id):
        raw = await app_web.store.raw(channel_id)
        try:
            record = Record.from_json(raw.get("doc", ""))
        except ValueError:
            continue
        if record.state is not None and not record.finished and record.kind in app_web.kinds:
            games.append(record)
    return games


async def game_hrefs(app_web: Web, link: Link, game_ids: list[str]) -> dict[str, str]:
    """The page of each of the server's games ``game_ids`` whose link the bot has made (posted with a board): game
    id → ``/g/<token>``. The web process makes none: it writes nothing."""
    secret = await app_web.links.secret()
    if secret is None or not game_ids:
        return {}
    keys = keys_for(app_web.redis)
    tokens = [make_token(secret, game_subject(link.guild_id, gid, link.settings.web_epoch)) for gid in game_ids]
    async with app_web.redis.pipeline(transaction=False) as pipe:
        for token in tokens:
            pipe.exists(keys.web_link(token))
        made = await pipe.execute()
    return {gid: f"/g/{token}" for gid, token, exists in zip(game_ids, tokens, made) if exists}


def game_item(app_web: Web, record: Record, hrefs: dict[str, str], now: float | None = None) -> dict[str, str]:
    """A game as a server's page lists it (in the current language): its game, players and link; a finished one
    also how it ended and when (``now``: the time to say it from)."""
    a, b = record.plain_names
    item = {"title": app_web.kinds[record.kind].title, "players": f"{a} – {b}", "href": hrefs.get(record.id, "")}
    if record.finished and now is not None:
        try:
            item["result"] = plain(result_text(app_web.kinds[record.kind], record))
        except Exception:  # (a record that doesn't replay: listed without its result)
            item["result"] = ""
        ended = float(record.ended or now)
        item["when"] = format_timedelta(int(ended - now), add_direction=True, locale=i18n.current())
    return item


#: Seconds ``/healthz`` waits for Redis to answer a PING before it calls the store down.
HEALTH_TIMEOUT = 1.0
#: Seconds a PING's outcome answers ``/healthz`` before Redis is asked again.
HEALTH_EVERY = 1.0


class Health:
    """Whether the store answers, as ``/healthz`` says it: one PING at most every :attr:`every` seconds in this
    process, shared by every request meanwhile (also by those that arrive while it is on its way), so a flood of
    health checks costs Redis nothing more than one check a second.

    Args:
        redis: the store.
        every: seconds an outcome is reused (:data:`HEALTH_EVERY`).
        timeout: seconds a PING may take (:data:`HEALTH_TIMEOUT`).
    """

    def __init__(self, redis: RedisClient, every: float = HEALTH_EVERY, timeout: float = HEALTH_TIMEOUT) -> None:
        self.redis, self.every, self.timeout = redis, every, timeout
        self._checked = -float("inf")
        self._answer: tuple[int, str] = (503, "not checked yet\n")
        self._checking: asyncio.Task[tuple[int, str]] | None = None

    async def check(self) -> tuple[int, str]:
        """``(200, "ok\\n")``, or ``(503, reason)`` when Redis didn't answer a PING in time."""
        if time.monotonic() - self._checked < self.every:
            return self._answer
        if self._checking is None:
            self._checking = asyncio.create_task(self._ping())
        task = self._checking
        return await asyncio.shield(task)

    async def _ping(self) -> tuple[int, str]:
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout)
            answer = (200, "ok\n")
        except TimeoutError:
            answer = (503, f"redis: no answer within {self.timeout:g} s\n")
        except Exception as error:
            answer = (503, f"redis: {type(error).__name__}\n")
        self._answer, self._checked, self._checking = answer, time.monotonic(), None
        return answer


async def healthz(request: web.Request) -> web.Response:
    """200 ``ok`` when Redis answers a PING within :data:`HEALTH_TIMEOUT` seconds, else 503 and a one-line reason
    (the pages can't be served without the store); the PING's outcome is reused for :data:`HEALTH_EVERY` seconds
    (:class:`Health`), and the check is rate-limited per client like any page."""
    status, text = await request.app[WEB].health.check()
    return web.Response(status=status, text=text)


class QuietBadRequests(logging.Filter):
    """A request aiohttp's parser refuses before any page sees it (a raw non-ASCII byte in the address, a garbled
    request line: a client's mistake, answered 400 by aiohttp) is logged as one INFO line, not an ERROR traceback.
    Browsers percent-encode what is typed in the address, which reaches the pages and gets their own 400 page."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, BadHttpMessage):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = "%s (refused with 400): %s", (record.getMessage(), type(error).__name__)
            record.exc_info, record.exc_text = None, None
        return True


_QUIET = QuietBadRequests()

#: A link's token where a log line could hold one: in a page's path (``/g/<token>``, ``/s/<token>``) or its key.
TOKENS = re.compile(r"(?<=/g/)[A-Za-z0-9_-]{22}|(?<=/s/)[A-Za-z0-9_-]{22}|(?<=web:link:)[A-Za-z0-9_-]{22}")


def redact(text: str) -> str:
    """``text`` with every link token in it replaced by ``…`` (``/g/…/live``): a log line is read by people a link
    isn't meant for, and a token is the whole key to its page."""
    return TOKENS.sub("…", text)


class Redacted(logging.Filter):
    """Every record of the web's loggers and aiohttp's with the link tokens in its message and its traceback
    replaced (:func:`redact`)."""

    #: The loggers it is put on (a logger's filters see only its own records).
    LOGGERS = (
        "aiohttp.server",
        "aiohttp.web",
        "aiohttp.access",
        "aiohttp.internal",
        "bot.web",
        "bot.web.app",
        "bot.web.live",
        "bot.web.boards",
        "bot.web.sockets",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if TOKENS.search(message):
            record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


_REDACTED = Redacted()


def make_app(web_state: Web) -> web.Application:
    """The aiohttp application serving ``web_state``'s pages (start and stop it with the app's runner)."""
    server_log = logging.getLogger("aiohttp.server")
    if _QUIET not in server_log.filters:
        server_log.addFilter(_QUIET)
    for name in Redacted.LOGGERS:
        if _REDACTED not in logging.getLogger(name).filters:
            logging.getLogger(name).addFilter(_REDACTED)
    app = web.Application(middlewares=[secured, errors, limit])
    app[WEB] = web_state
    app.on_response_prepare.append(server_header)
    # autoescaped; jinja2's i18n extension with the bot's catalogs: _, n_, gettext, ngettext are bot.i18n's (fields
    # as {name}: _("{n} moves", n=3)), in the language current in the request's task
    web_state.env = aiohttp_jinja2.setup(
        app,
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html"], default=True),
        extensions=["jinja2.ext.i18n"],
        undefined=jinja2.StrictUndefined,
    )
    web_state.env.install_gettext_callables(gettext=_, ngettext=n_, newstyle=False)  # type: ignore[attr-defined]
    web_state.env.globals.update(
        _=_, n_=n_, static=_static_url(), current_language=i18n.current, provisional_games=PROVISIONAL_GAMES
    )
    app.router.add_get("/g/{token}", game_page)
    app.router.add_get("/g/{token}/events", events)
    app.router.add_get("/g/{token}/live", live_part)
    app.router.add_get("/g/{token}/b/{language}/{name:[0-9]+-[0-9a-f]+}.png", board_image)
    app.router.add_get("/s/{token}", server_page)
    app.router.add_get("/leaderboard", global_leaderboard)
    app.router.add_get("/leaderboard/{kind}", global_leaderboard)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/favicon.ico", favicon)
    app.router.add_static("/static", HERE / "static")

    async def on_startup(_app: web.Application) -> None:
        await web_state.start()

    async def on_cleanup(_app: web.Application) -> None:
        await web_state.close()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app


async def favicon(_request: web.Request) -> web.FileResponse:
    """``/favicon.ico``, where browsers look without being told: the pages' icon (an SVG)."""
    return web.FileResponse(HERE / "static" / "favicon.svg", headers={"Content-Type": "image/svg+xml"})


def _static_url():
    """``static(name)`` in templates: the file's URL with its modification time (a new file is a new URL)."""
    stamps: dict[str, int] = {}

    def url(name: str) -> str:
        if name not in stamps:
            stamps[name] = int((HERE / "static" / name).stat().st_mtime)
        return f"/static/{name}?v={stamps[name]}"

    return url


async def serve(
    web_state: Web, port: int, host: str | None = None, *, gate: Gate | None = None, idle: float = IDLE
) -> web.AppRunner:
    """Serve the pages on ``port`` of ``host`` (every interface when None; ``web_host`` says which) through a
    :class:`bot.web.sockets.GatedSite`: connections counted by ``gate`` (default: its caps, trusted proxies
    exempt from the per-address one when ``web_proxies`` is set), closed after ``idle`` seconds without a whole
    request. Returns the runner (``await runner.cleanup()`` stops it)."""
    runner = web.AppRunner(make_app(web_state), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    if gate is None:
        trusted = web_state.trusted_proxies
        gate = Gate(exempt=lambda address: bool(web_state.proxies) and address in trusted)
    await GatedSite(runner, host, port, gate, idle).start()
    return runner


__all__ = ["Web", "make_app", "serve", "reader_language", "last_event_id"]
