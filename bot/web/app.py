"""The web companion's pages (aiohttp + Jinja2 templates, autoescaped), over the bot's Redis, read only.

Routes (every page of a server answers 404 unless its ``/settings web`` allows it, and 404 says nothing more):

- ``/g/<token>``: a game — the board, players, whose turn, time left, the moves with what each did, the result;
  live (``/g/<token>/events``, Server-Sent Events whose ids are the record's version); a finished game is its
  replay (``?ply=N``, a slider, arrow keys).
- ``/g/<token>/b/<language>/<ply>-<hash>.png``: a board, immutable (:mod:`bot.web.views`, :mod:`bot.web.boards`).
- ``/s/<token>``: a ``public`` server's leaderboards and live games; ``/leaderboard/<game>``: the global one.
- ``/t/<token>``: a tournament — its standings, the round's pairings and each game's link (:mod:`bot.web.tournaments`).
- ``/static/…``: the page's script and style; ``/healthz``.

Every client is limited per address (:mod:`bot.web.limits`: 429 with ``Retry-After``). The pages are in the
server's language (``/settings language``, else its language in Discord when the link was made); the global
leaderboard in the reader's (``Accept-Language``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage

from .. import i18n
from ..core.kinds import GameKind
from ..core.record import Record
from ..games import all_kinds
from ..i18n import _, n_
from ..storage.decoding import RedisClient
from ..storage.errors import UNREACHABLE
from ..storage.live import LiveFeed
from ..storage.ratings import GLOBAL, Ratings, guild_scope
from ..storage.store import GameStore
from ..storage.tournaments import Tournaments
from ..storage.weblinks import Link, WebCache, WebLinks
from .boards import Boards
from .limits import RateLimiter, StreamCounter, client_key
from .live import KEEP_ALIVE, POLL, Hub, State, Topic
from .tournaments import add_routes as add_tournament_routes
from .tournaments import game_links
from .views import Found, GameView, frame_hash, game_view, read_game

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
#: What a browser waits before reconnecting a dropped event stream (milliseconds; the stream's ``retry:``).
RETRY_MS = 2000
#: Leaderboard rows a page.
PER_PAGE = 20
#: The immutable images' Cache-Control.
IMMUTABLE = "public, max-age=31536000, immutable"

WEB: web.AppKey["Web"] = web.AppKey("web")


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
        global_leaderboard: serve ``/leaderboard/<game>`` (``web_global_leaderboard``; off: 404), names of every
            server's players on the open web, so the operator's decision.
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
    ) -> None:
        self.redis = redis
        self.base_url = base_url.rstrip("/")
        self.kinds = kinds or all_kinds()
        self.store = GameStore(redis)
        self.links = WebLinks(redis)
        self.ratings = Ratings(redis)
        self.tournaments = Tournaments(redis, time.time)
        self.boards = Boards(WebCache(redis))
        self.limiter = limiter or RateLimiter()
        self.streams = streams or StreamCounter()
        self.hub = Hub(self._state, poll, keep_alive)
        self.sharded = sharded
        self.proxies = proxies
        self.global_leaderboard = global_leaderboard
        self.started = time.time()

    # --- reading ----------------------------------------------------------------------------------

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


def client_address(request: web.Request, proxies: int = 0) -> str:
    """The client a request is counted against (:func:`bot.web.limits.client_key`: an IPv4 address, an IPv6 /64)
    of the peer's address, or behind ``proxies`` reverse proxies (``web_proxies``) of the entry of
    ``X-Forwarded-For`` that many from the right (the one the outermost trusted proxy saw; entries further left are
    the client's to write, so never believed). Missing entries: the peer's."""
    if proxies:
        forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
        if len(forwarded) >= proxies:
            return client_key(forwarded[-proxies])
    return client_key(request.remote or "?")


@web.middleware
async def limit(request: web.Request, handler):
    """429 with ``Retry-After`` for an address past its rate (:class:`bot.web.limits.RateLimiter`)."""
    app_web = request.app[WEB]
    if request.path != "/healthz":
        wait = app_web.limiter.allow(client_address(request, app_web.proxies))
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
    """:data:`SECURITY_HEADERS` on every answer."""
    response = await handler(request)
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
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
    except UNREACHABLE as exc:
        log.warning("the web page %s: the store did not answer (%s)", request.path, exc)
        return web.Response(
            status=503,
            headers={"Retry-After": str(STORE_RETRY_AFTER)},
            text="The game store is busy or out of reach: this page is back in a moment.\n",
        )
    except Exception:
        log.exception("the web page %s failed", request.path)
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
    opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    view = app_web.view(token, link, found, kind)
    language = app_web.language(link)
    asked = request.query.get("ply") or None  # empty: the current position
    with i18n.language(language):
        if asked is not None:
            if not plain_number(asked) or int(asked) > view.last.ply:
                # TRANSLATORS: {ply} is what was asked for after ?ply= in the address; {last} the last move's number
                message = _(
                    "This game has no position {ply}: choose a number from 0 (the start) to {last}.",
                    ply=asked[:20],
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
        ply = int(asked) if asked is not None else view.last.ply
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
    response.headers["Cache-Control"] = "no-cache"
    if noindex:
        response.headers["X-Robots-Tag"] = "noindex"
    return response


def plain_number(text: str) -> bool:
    """Whether ``text`` is a ply as ``?ply=`` takes it: 1 to 6 ASCII decimal digits, nothing else (no sign, space,
    other script's digits); leading zeros are read as the number they pad (``03`` is 3)."""
    return 0 < len(text) <= 6 and text.isascii() and text.isdigit()


async def live_part(request: web.Request) -> web.StreamResponse:
    """The live part of a game's page as HTML (status, players, every move): what a page reads when an event
    doesn't complete its move list."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    view = app_web.view(token, link, found, kind)
    with i18n.language(app_web.language(link)):
        response = aiohttp_jinja2.render_template(
            "_live.html", request, {"view": view, "now": time.time(), "version": view.version}
        )
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Robots-Tag"] = "noindex"
    return response


async def board_image(request: web.Request) -> web.StreamResponse:
    """A board PNG at its immutable URL; 404 for a name that isn't one of the game's boards *now* (checked before
    the cache is read: a board drawn before ``/privacy forget`` renamed a player, or before a takeback, is never
    served again)."""
    app_web: Web = request.app[WEB]
    token, language = request.match_info["token"], request.match_info["language"]
    ply_text, _sep, digest = request.match_info["name"].partition("-")
    if language not in i18n.languages() or not ply_text.isdigit() or len(digest) != 16 or len(ply_text) > 6:
        raise web.HTTPNotFound()
    opened = await app_web.game(token)
    if opened is None:
        raise web.HTTPNotFound()
    link, found, kind = opened
    record, ply = found.record, int(ply_text)
    moves = list(kind.load(record.game_state, replay=False).moves)
    if ply > len(moves) or frame_hash(record, moves, ply, record.finished and ply == len(moves)) != digest:
        raise web.HTTPNotFound()
    data = await app_web.boards.png(f"{record.id}:{language}:{ply}:{digest}", kind, record, ply, language)
    headers = {"Cache-Control": IMMUTABLE}
    if link.settings.web != "public":
        headers["X-Robots-Tag"] = "noindex"
    return web.Response(body=data, content_type="image/png", headers=headers)


def last_event_id(request: web.Request) -> int | None:
    """The ``Last-Event-ID`` a reconnecting browser sent (or ``?since=``), or None when absent or not a version."""
    text = request.headers.get("Last-Event-ID") or request.query.get("since") or ""
    text = text.strip()
    return int(text) if text.isdigit() and len(text) <= 15 else None


async def events(request: web.Request) -> web.StreamResponse:
    """The live stream of a game: its state now unless the browser already has this version (``Last-Event-ID``;
    one from the future or garbage gets the state now), then each new version as it is committed, a keep-alive
    comment every :data:`bot.web.live.KEEP_ALIVE` seconds, and the end of the stream once the game is over. A client
    (:func:`client_address`) holding :data:`bot.web.limits.STREAMS` streams open already gets 429."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    client = client_address(request, app_web.proxies)
    if not app_web.streams.open(client):
        return web.Response(
            status=429,
            text=f"Too many live pages open from your address (at most {app_web.streams.limit}): close some.\n",
            headers={"Retry-After": str(RETRY_MS // 1000 * 5)},
        )
    try:
        return await _events(request, app_web, token)
    finally:
        app_web.streams.close(client)


async def _events(request: web.Request, app_web: Web, token: str) -> web.StreamResponse:
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
                "Cache-Control": "no-cache",
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
                "rating": standing.rating_text(),
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
    """``?page=N`` (1-based) as a 0-based page; anything else is the first page."""
    text = request.query.get("page", "1").strip()
    return int(text) - 1 if text.isdigit() and 0 < len(text) <= 6 and int(text) > 0 else 0


async def global_leaderboard(request: web.Request) -> web.StreamResponse:
    """The global leaderboard of one game, in the reader's language; 404 unless the operator serves it
    (``web_global_leaderboard``: it names players of servers whose own pages are off)."""
    app_web: Web = request.app[WEB]
    name = request.match_info.get("kind") or next(iter(app_web.kinds))
    if not app_web.global_leaderboard or name not in app_web.kinds:
        raise web.HTTPNotFound()
    board = await leaderboard_rows(app_web, name, GLOBAL, page_number(request))
    with i18n.language(reader_language(request)):
        return aiohttp_jinja2.render_template(
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


async def server_page(request: web.Request) -> web.StreamResponse:
    """A ``public`` server's page: each game's leaderboard there and the games being played, with their links."""
    app_web: Web = request.app[WEB]
    token = request.match_info["token"]
    link = await app_web.links.resolve(token)
    if link is None or not link.server_page:
        raise web.HTTPNotFound()
    name = request.query.get("game") or next(iter(app_web.kinds))
    if name not in app_web.kinds:
        name = next(iter(app_web.kinds))
    board = await leaderboard_rows(app_web, name, guild_scope(link.guild_id), page_number(request))
    live = await live_games(app_web, link)
    with i18n.language(app_web.language(link)):
        return aiohttp_jinja2.render_template(
            "server.html",
            request,
            {
                "title": _("Games and leaderboard"),
                "kinds": app_web.kinds,
                "current": name,
                "board": board,
                "live": live,
                "noindex": False,
                "path": f"/s/{token}?game=",
            },
        )


async def live_games(app_web: Web, link: Link) -> list[dict[str, str]]:
    """The server's running games, each with its page's link when the bot has made one (the web process makes
    none: it writes nothing but its cache)."""
    records = []
    for channel_id in await app_web.store.active_channels(link.guild_id):
        raw = await app_web.store.raw(channel_id)
        try:
            record = Record.from_json(raw.get("doc", ""))
        except ValueError:
            continue
        if record.state is None or record.finished or record.kind not in app_web.kinds:
            continue
        records.append(record)
    hrefs = await game_links(app_web.redis, app_web.links, link, [r.id for r in records])
    return [
        {
            "title": app_web.kinds[record.kind].title,
            "players": " – ".join(record.plain_names),
            "href": hrefs.get(record.id, ""),
        }
        for record in records
    ]


#: Seconds ``/healthz`` waits for Redis to answer a PING before it calls the store down.
HEALTH_TIMEOUT = 1.0


async def healthz(request: web.Request) -> web.Response:
    """200 ``ok`` when Redis answers a PING within :data:`HEALTH_TIMEOUT` seconds, else 503 and a one-line reason
    (the pages can't be served without the store)."""
    app_web: Web = request.app[WEB]
    try:
        await asyncio.wait_for(app_web.redis.ping(), HEALTH_TIMEOUT)
    except TimeoutError:
        return web.Response(status=503, text=f"redis: no answer within {HEALTH_TIMEOUT:g} s\n")
    except Exception as error:
        return web.Response(status=503, text=f"redis: {type(error).__name__}\n")
    return web.Response(text="ok\n")


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


def make_app(web_state: Web) -> web.Application:
    """The aiohttp application serving ``web_state``'s pages (start and stop it with the app's runner)."""
    server_log = logging.getLogger("aiohttp.server")
    if _QUIET not in server_log.filters:
        server_log.addFilter(_QUIET)
    app = web.Application(middlewares=[secured, errors, limit])
    app[WEB] = web_state
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
    web_state.env.globals.update(_=_, n_=n_, static=_static_url())
    app.router.add_get("/g/{token}", game_page)
    app.router.add_get("/g/{token}/events", events)
    app.router.add_get("/g/{token}/live", live_part)
    app.router.add_get("/g/{token}/b/{language}/{name:[0-9]+-[0-9a-f]+}.png", board_image)
    app.router.add_get("/s/{token}", server_page)
    add_tournament_routes(app, web_state)  # /t/<token>: a tournament's page (bot/web/tournaments.py)
    app.router.add_get("/leaderboard", global_leaderboard)
    app.router.add_get("/leaderboard/{kind}", global_leaderboard)
    app.router.add_get("/healthz", healthz)
    app.router.add_static("/static", HERE / "static")

    async def on_startup(_app: web.Application) -> None:
        await web_state.start()

    async def on_cleanup(_app: web.Application) -> None:
        await web_state.close()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app


def _static_url():
    """``static(name)`` in templates: the file's URL with its modification time (a new file is a new URL)."""
    stamps: dict[str, int] = {}

    def url(name: str) -> str:
        if name not in stamps:
            stamps[name] = int((HERE / "static" / name).stat().st_mtime)
        return f"/static/{name}?v={stamps[name]}"

    return url


async def serve(web_state: Web, port: int, host: str | None = None) -> web.AppRunner:
    """Serve the pages on ``port`` (every interface unless ``host``); returns the runner (``await runner.cleanup()``
    stops it)."""
    runner = web.AppRunner(make_app(web_state), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


__all__ = ["Web", "make_app", "serve", "reader_language", "last_event_id"]
