"""A tournament's page on the web companion: ``/t/<token>`` — its standings so far (live: every game ended counts at
once), the round's pairings with each board's result (or that it is being played, with its game's **Watch live** link), and while it runs a live part
(``/t/<token>/live``) the page reads again every :data:`REFRESH` seconds (``static/tournament.js``).

Shared as a game's page is (its games' links: :func:`bot.web.app.game_hrefs`): the bot hands out the link (in the round's posts and ``/tournament standings``) where the
server's ``/settings web`` is ``link`` or ``public``; anything else — web off, a revoked link, a token of a game or a
server, a tournament gone — is the one 404. Read only: the web process writes nothing but its cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import aiohttp_jinja2
from aiohttp import web

from .. import i18n
from ..core.kinds import GameKind
from ..core.tournament.event import Board, Format, Phase, Tournament
from ..core.tournament.standings import shown, standings
from ..i18n import _, n_
from ..i18n.tournaments import plain_title, player_name, tie_break_names, tie_break_values
from ..storage.weblinks import Link

if TYPE_CHECKING:
    from .app import Web

#: Seconds between two reads of a running tournament's live part by an open page.
REFRESH = 10


@dataclass(frozen=True)
class Pairing:
    """One board of the round as the page shows it: the players (seat 0 first, with its role), what happened, and
    its game's page (``href``, "" when none)."""

    number: int
    first: str
    second: str
    outcome: str
    playing: bool
    href: str


def outcome(board: Board) -> str:
    """What happened on a board, in words (the current language)."""
    if board.result is None:
        return _("being played") if board.game else _("waiting to start")
    return {
        "1-0": "1–0",
        "0-1": "0–1",
        "=": "½–½",
        # TRANSLATORS: a board's result on the tournament's web page: seat 0 won by forfeit (the game was not played).
        "+-": _("1–0 by forfeit"),
        # TRANSLATORS: a board's result on the tournament's web page: seat 1 won by forfeit (the game was not played).
        "-+": _("0–1 by forfeit"),
        # TRANSLATORS: a board's result on the tournament's web page: both players lost by forfeit.
        "--": _("0–0, both forfeit"),
        "bye": _("the bye (1 point)"),
        "rest": _("rests this round"),
    }[board.result]


def view(t: Tournament, kind: GameKind, hrefs: dict[str, str]) -> dict[str, Any]:
    """The template's context for ``t`` in the current language: heading, status, standings, the round's pairings."""
    rows = standings(t)  # every result so far: the games of the round being played that have ended too
    if t.phase is Phase.FINISHED:
        heading = _("Final standings")
    elif t.phase is Phase.RUNNING:
        # TRANSLATORS: a heading on a tournament's web page: the standings counting every game ended so far.
        heading = _("Live standings")
    else:
        # TRANSLATORS: a heading on a cancelled tournament's web page.
        heading = _("Standings when it was cancelled")
    if t.phase is Phase.SIGNUP:
        status = n_("Sign-up: {count} player so far.", "Sign-up: {count} players so far.", len(t.entrants))
    elif t.phase is Phase.RUNNING:
        status = _("Round {round} of {rounds} is being played.", round=t.round, rounds=t.rounds)
    elif t.phase is Phase.FINISHED:
        status = n_("Finished after {count} round.", "Finished after {count} rounds.", t.round)
    else:
        status = _("Cancelled.")
    formats = {
        # TRANSLATORS: a tournament's format on its web page; {game} is "Hong Kong" or "Hong".
        Format.SWISS: _("{game} · Swiss", game=kind.title),
        Format.ROUND_ROBIN: _("{game} · round robin", game=kind.title),
        Format.DOUBLE_ROUND_ROBIN: _("{game} · double round robin", game=kind.title),
    }
    names = {e.id: player_name(e.id, e.name) for e in t.entrants}
    pairings = [
        Pairing(
            number=i + 1,
            first=names.get(b.first, "?"),
            second=names.get(b.second, "?") if b.second is not None else "",
            outcome=outcome(b),
            playing=b.result is None and b.game is not None,
            href=hrefs.get(b.game, "") if b.game and b.result is None else "",
        )
        for i, b in enumerate(t.boards[-1] if t.boards and t.phase is not Phase.SIGNUP else ())
    ]
    return {
        "title": plain_title(t, kind),
        "format": formats[t.format],
        "status": status,
        "running": t.phase is Phase.RUNNING,
        "heading": heading,
        "tie_breaks": tie_break_names(t.format),
        "rows": [
            {
                "place": row.place,
                "name": player_name(row.id, row.name),
                "withdrew": row.withdrawn,
                "points": shown(row.points),
                "ties": tie_break_values(t.format, row),
            }
            for row in rows
        ],
        "round": t.round,
        "roles": (kind.role(0), kind.role(1)),
        "pairings": pairings,
        "entrants": [names[e.id] for e in t.entrants] if t.phase is Phase.SIGNUP else [],
        "refresh": REFRESH,
    }


async def opened(app_web: "Web", token: str) -> tuple[Link, Tournament, GameKind] | None:
    """What a tournament token opens, or None (404): a valid link of a tournament still stored, of that server, of a
    game the companion hosts."""
    link = await app_web.links.resolve(token)
    if link is None or not link.tournament_id:
        return None
    held = await app_web.tournaments.get(link.channel_id, link.tournament_id)
    if held is None or held.tournament.guild_id != link.guild_id or held.tournament.kind not in app_web.kinds:
        return None
    return link, held.tournament, app_web.kinds[held.tournament.kind]


#: The pages of a server's games whose links the bot made: ``(web state, link, game ids) → {game id: address}``
#: (:func:`bot.web.app.game_hrefs`).
GameLinks = Callable[["Web", Link, list[str]], Awaitable[dict[str, str]]]


async def context(app_web: "Web", token: str, links: GameLinks) -> tuple[Link, dict[str, Any]] | None:
    """The template's context for the tournament ``token`` opens (its running games' links from ``links``), or
    None (404)."""
    async with app_web.reading():
        found = await opened(app_web, token)
        if found is None:
            return None
        link, t, kind = found
        games = [b.game for b in (t.boards[-1] if t.boards else ()) if b.game and b.result is None]
        hrefs = await links(app_web, link, games)
    with i18n.language(app_web.language(link)):
        return link, {**view(t, kind, hrefs), "token": token, "now": time.time()}


def add_routes(app: web.Application, app_web: "Web", links: GameLinks) -> None:
    """``/t/<token>`` (the page) and ``/t/<token>/live`` (its live part), served from ``app_web``'s store, its games'
    pages found by ``links``."""

    async def tournament_page(request: web.Request) -> web.StreamResponse:
        """A tournament's page (see the module docstring)."""
        found = await context(app_web, request.match_info["token"], links)
        if found is None:
            raise web.HTTPNotFound()
        link, page = found
        noindex = link.settings.web != "public"
        language = app_web.language(link)
        with i18n.language(language):
            response = aiohttp_jinja2.render_template("tournament.html", request, {**page, "noindex": noindex})
        response.headers["Cache-Control"] = "no-cache"
        if noindex:
            response.headers["X-Robots-Tag"] = "noindex"
        return response

    async def tournament_live(request: web.Request) -> web.StreamResponse:
        """The page's live part as HTML (status, the round's pairings, standings), read again by an open page."""
        found = await context(app_web, request.match_info["token"], links)
        if found is None:
            raise web.HTTPNotFound()
        link, page = found
        with i18n.language(app_web.language(link)):
            response = aiohttp_jinja2.render_template("_tournament.html", request, page)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Robots-Tag"] = "noindex"
        return response

    app.router.add_get("/t/{token}", tournament_page)
    app.router.add_get("/t/{token}/live", tournament_live)


__all__ = ["REFRESH", "GameLinks", "Pairing", "outcome", "view", "opened", "context", "add_routes"]
