"""Ratings: one leaderboard per game kind and scope (a server, or global), updated exactly once per game.

The maths is `openskill <https://openskill.me>`_'s Plackett–Luce model (Weng & Lin's Bayesian approximation):
each player has a skill estimate ``mu`` (starts at 25) and an uncertainty ``sigma`` (starts at 25/3); a result
moves both players' ``mu`` and shrinks their ``sigma``. Nothing here does rating arithmetic of its own.

Shown to players on a familiar scale: ``rating = 1500 + 60·(mu − 25)`` and ``± 60·sigma`` (a new player is
"1500 ± 500"). A player with fewer than :data:`PROVISIONAL_GAMES` rated games in a scope is **provisional**
there: shown with a "?" and ranked after every established player of that leaderboard.

Ranks are standard competition ranking ("1, 2, 2, 4") of what players see: players with the same shown rating
(and both established, or both provisional) share a rank; the next rank counts everyone above.

Which games count (:func:`rating_outcome`): a game between two different people that ended normally
(``"finished"``: a draw when there is no winner), by resignation or on time (``"timeout"``: the winner is the
player who did not run out). Aborted games and anything else are unrated.

Redis layout — every key one update touches shares the scope's hash tag, so the update is a single
WATCH/MULTI transaction (Redis Cluster: one slot per leaderboard):

- ``hongbot:{rt:<kind>:<scope>}:p:<user id>`` — hash: ``mu``, ``sigma``, ``games``, ``wins``, ``losses``,
  ``draws``, ``streak`` (+n wins / −n losses in a row, 0 after a draw), ``name`` (latest display name, plain;
  entries written by versions before record schema 3 lack ``plain`` and hold it escaped: unescaped on reading),
  ``s0w s0l s0d s1w s1l s1d`` (record by seat: for Hong seat 0 is the emperor, seat 1 the dragon master),
  ``last`` (end time of the latest rated game, Unix seconds).
- ``hongbot:{rt:<kind>:<scope>}:board`` — sorted set user id → order (``mu``; ``mu − 10000`` while provisional).
- ``hongbot:{rt:<kind>:<scope>}:rated`` — hash game id → JSON ``{"<user id>": [before, after], ...}``
  (displayed ratings): the exactly-once marker, written in the same transaction as the ratings.

``<scope>`` is ``g<guild id>`` for a server's leaderboard and ``global`` for the one across servers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from dataclasses import dataclass

from openskill.models import PlackettLuce
from redis.exceptions import ResponseError, WatchError

from engine.result import EndReason

from ..i18n.names import unescape
from ..core.record import Record
from .store import LOST_REPLY, as_store_lost, marker
from .keys import Keys
from .decoding import RedisClient
from .decoding import decoded_hash, decoded_scores

log = logging.getLogger(__name__)

#: Rated games a player needs in a scope before their rating there is no longer provisional.
PROVISIONAL_GAMES = 5
#: Game endings that are rated (see the module docstring).
RATED_REASONS = frozenset({EndReason.FINISHED, EndReason.RESIGNED, EndReason.TIMEOUT})
#: The display scale: ``rating = BASE + SCALE·(mu − MU0)``, uncertainty ``SCALE·sigma``.
BASE, SCALE = 1500, 60
GLOBAL = "global"

MODEL = PlackettLuce()
MU0, SIGMA0 = MODEL.mu, MODEL.sigma
_PROVISIONAL_OFFSET = 10_000.0
_ATTEMPTS = 100


def guild_scope(guild_id: int) -> str:
    """The scope name of a server's leaderboard (``"g<guild id>"``)."""
    return f"g{guild_id}"


def scopes_of(record: Record) -> list[str]:
    """The leaderboards a finished game counts on: its server's, then the global one."""
    return [guild_scope(record.guild_id), GLOBAL]


def display(mu: float) -> int:
    """A skill estimate on the shown scale (1500 for a new player), rounded half up."""
    return math.floor(BASE + SCALE * (mu - MU0) + 0.5)


def _tier(score: float) -> tuple[bool, int]:
    """A leaderboard score (:attr:`Standing.order`) → (established?, shown rating): what a rank is decided by."""
    provisional = score < -_PROVISIONAL_OFFSET / 2
    return not provisional, display(score + (_PROVISIONAL_OFFSET if provisional else 0.0))


def _above(score: float) -> float:
    """The lowest score of a player ranked strictly above one with ``score``: a shown rating one higher in the same
    group (everyone established is above a provisional player)."""
    established, rating = _tier(score)
    mu = MU0 + (rating + 0.5 - BASE) / SCALE  # display(mu) == rating + 1 from here up
    return mu - (0.0 if established else _PROVISIONAL_OFFSET)


def rating_outcome(record: Record) -> list[int] | None:
    """openskill ranks for seat 0 and seat 1 (lower is better; equal for a draw), or None when unrated.

    Unrated: no result or an aborted ending, an empty seat, the same person in both seats, the computer or a
    forgotten player (``/privacy forget``: rated before they were forgotten) in a seat, or an ending off the board
    without a winner.
    """
    result, (first, second) = record.result, record.players
    if result is None or result.reason not in RATED_REASONS or first is None or second is None:
        return None
    if first.id == second.id or first.bot or second.bot or first.former or second.former:
        return None
    if result.winner is None:
        return [1, 1] if result.reason is EndReason.FINISHED else None
    return [1, 2] if result.winner == 0 else [2, 1]


@dataclass(frozen=True)
class Standing:
    """A player's rating and record on one leaderboard.

    Attributes:
        user_id, name: the player (name as of their latest rated game).
        mu, sigma: openskill's estimate and its uncertainty.
        games, wins, losses, draws: rated games on this leaderboard.
        streak: +n for n wins in a row, −n for n losses in a row, 0 after a draw or before any game.
        seats: ``(wins, losses, draws)`` playing seat 0 and seat 1 (Hong: as emperor / as dragon master).
        last: end time of the latest rated game (Unix seconds), 0 if none.
    """

    user_id: int
    name: str
    mu: float = MU0
    sigma: float = SIGMA0
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    streak: int = 0
    seats: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 0, 0), (0, 0, 0))
    last: float = 0.0

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`PROVISIONAL_GAMES` rated games."""
        return self.games < PROVISIONAL_GAMES

    @property
    def rating(self) -> int:
        """The shown rating (see :func:`display`)."""
        return display(self.mu)

    @property
    def uncertainty(self) -> int:
        """The shown uncertainty, ``60·sigma`` rating points."""
        return round(SCALE * self.sigma)

    def rating_text(self) -> str:
        """``"1658 ± 484"``, or ``"1658? ± 484"`` while provisional."""
        return f"{self.rating}{'?' if self.provisional else ''} ± {self.uncertainty}"

    def record_text(self) -> str:
        """Wins–losses–draws, ``"3–1–0"``."""
        return f"{self.wins}–{self.losses}–{self.draws}"

    @property
    def order(self) -> float:
        """The leaderboard's sort score: ``mu``, pushed below every established player while provisional."""
        return self.mu - (_PROVISIONAL_OFFSET if self.provisional else 0.0)

    @classmethod
    def from_hash(cls, user_id: int, h: dict[str, str]) -> "Standing":
        """Read a player hash as stored (empty → a new player)."""
        i = lambda k: int(h.get(k, 0))  # noqa: E731
        return cls(
            user_id=user_id,
            name=h.get("name", str(user_id)) if h.get("plain") == "1" else unescape(h.get("name", str(user_id))),
            mu=float(h.get("mu", MU0)),
            sigma=float(h.get("sigma", SIGMA0)),
            games=i("games"),
            wins=i("wins"),
            losses=i("losses"),
            draws=i("draws"),
            streak=i("streak"),
            seats=((i("s0w"), i("s0l"), i("s0d")), (i("s1w"), i("s1l"), i("s1d"))),
            last=float(h.get("last", 0)),
        )

    def to_hash(self) -> dict[str, str | int | float]:
        """The player hash to store (floats as ``repr`` so they read back exactly)."""
        (s0w, s0l, s0d), (s1w, s1l, s1d) = self.seats
        return {
            "name": self.name,
            "plain": 1,
            "mu": repr(self.mu),
            "sigma": repr(self.sigma),
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "streak": self.streak,
            "s0w": s0w,
            "s0l": s0l,
            "s0d": s0d,
            "s1w": s1w,
            "s1l": s1l,
            "s1d": s1d,
            "last": repr(self.last),
        }


def after_game(
    before: Standing, mu: float, sigma: float, seat: int, rank: int, other_rank: int, name: str, ended: float
) -> Standing:
    """``before`` with one more rated game: the new estimate and the record, streak and seat record updated."""
    won, lost = rank < other_rank, rank > other_rank
    seats = [list(s) for s in before.seats]
    seats[seat][0 if won else 1 if lost else 2] += 1
    if won:
        streak = before.streak + 1 if before.streak > 0 else 1
    elif lost:
        streak = before.streak - 1 if before.streak < 0 else -1
    else:
        streak = 0
    (w0, l0, d0), (w1, l1, d1) = seats
    return Standing(
        user_id=before.user_id,
        name=name,
        mu=mu,
        sigma=sigma,
        games=before.games + 1,
        wins=before.wins + won,
        losses=before.losses + lost,
        draws=before.draws + (not won and not lost),
        streak=streak,
        seats=((w0, l0, d0), (w1, l1, d1)),
        last=max(before.last, ended),
    )


@dataclass(frozen=True)
class Page:
    """One page of a leaderboard.

    Attributes:
        entries: ``(rank, standing)`` pairs, rank 1-based.
        page: this page, 0-based (clamped to the last page).
        pages: number of pages (at least 1).
        total: players on the leaderboard.
        start: the place of the page's first entry on the whole leaderboard (0-based).
        established: players on the leaderboard who are not provisional (ranked before every provisional one).
    """

    entries: list[tuple[int, Standing]]
    page: int
    pages: int
    total: int
    start: int = 0
    established: int = 0


class Ratings:
    """Leaderboards in Redis (layout in the module docstring).

    Args:
        redis: a ``redis.asyncio.Redis`` created with ``decode_responses=True``.
    """

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis

    key = staticmethod(Keys.rating)

    # --- applying results -------------------------------------------------------------------------

    async def apply(self, record: Record) -> dict[str, dict[int, tuple[int, int]] | None]:
        """Rate a finished game on its server's and the global leaderboard, each exactly once.

        Safe to call any number of times, from any number of processes at once: per leaderboard, the
        ratings and the game's ``rated`` marker are written in one transaction that only commits if
        neither the players' ratings nor the marker changed since they were read.

        Returns:
            scope → ``{user id: (rating before, rating after)}`` for the leaderboards this call rated,
            or None for those already rated earlier (by this or another process). ``{}`` for an unrated game.

        Raises:
            redis.RedisError: Redis failed (the leaderboards rated before the failure stay rated; a retry
                rates the rest).
        """
        ranks = rating_outcome(record)
        if ranks is None:
            return {}
        return {scope: await self._apply_scope(record, scope, ranks) for scope in scopes_of(record)}

    async def _apply_scope(self, record: Record, scope: str, ranks: list[int]) -> dict[int, tuple[int, int]] | None:
        kind, gid = record.kind, record.id
        ids = [record.player(seat).id for seat in (0, 1)]
        rated = self.key(kind, scope, "rated")
        pkeys = [self.key(kind, scope, f"p:{uid}") for uid in ids]
        board = self.key(kind, scope, "board")
        async with self.redis.pipeline(transaction=True) as pipe:
            for attempt in range(_ATTEMPTS):
                try:
                    found = marker(self.redis, None)  # one server: refused when the store lost its data
                    await pipe.watch(rated, *pkeys, *([found] if found else []))
                    if found and not await pipe.exists(found):
                        await pipe.unwatch()
                        raise as_store_lost(self.redis, ResponseError(f"{LOST_REPLY} {found}"))
                    if await pipe.hexists(rated, gid):
                        await pipe.unwatch()
                        return None
                    before = [
                        Standing.from_hash(uid, decoded_hash(await pipe.hgetall(k))) for uid, k in zip(ids, pkeys)
                    ]
                    teams = [[MODEL.create_rating([s.mu, s.sigma])] for s in before]
                    (r0,), (r1,) = MODEL.rate(teams, ranks=list(ranks))
                    after = [
                        after_game(
                            before[seat],
                            r.mu,
                            r.sigma,
                            seat,
                            ranks[seat],
                            ranks[1 - seat],
                            record.player(seat).name,
                            float(record.ended or 0),
                        )
                        for seat, r in enumerate((r0, r1))
                    ]
                    change = {s.user_id: (b.rating, s.rating) for b, s in zip(before, after)}
                    pipe.multi()
                    for k, s in zip(pkeys, after):
                        pipe.hset(k, mapping={field: value for field, value in s.to_hash().items()})
                    pipe.zadd(board, {str(s.user_id): s.order for s in after})
                    pipe.hset(rated, gid, json.dumps({str(u): list(c) for u, c in change.items()}))
                    await pipe.execute()
                    return change
                except WatchError:
                    await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise RuntimeError(f"could not rate game {gid} on {kind}/{scope}: {_ATTEMPTS} conflicting updates in a row")

    async def change(self, kind: str, scope: str, game_id: str) -> dict[int, tuple[int, int]] | None:
        """The rating change a game made on a leaderboard, ``{user id: (before, after)}``; None if unrated there."""
        data = await self.redis.hget(self.key(kind, scope, "rated"), game_id)
        return {int(u): (b, a) for u, (b, a) in json.loads(data).items()} if data else None

    # --- reading ----------------------------------------------------------------------------------

    async def standing(self, kind: str, scope: str, user_id: int) -> Standing | None:
        """A player's standing on a leaderboard, or None if they have no rated game there."""
        h = decoded_hash(await self.redis.hgetall(self.key(kind, scope, f"p:{user_id}")))
        return Standing.from_hash(user_id, h) if h else None

    async def rank(self, kind: str, scope: str, user_id: int) -> tuple[int, int] | None:
        """``(rank, players)`` on a leaderboard, or None if the player is not on it. The rank is 1 + the number of
        players ranked strictly above (equal shown ratings share a rank: see the module docstring), the same rank
        :meth:`page` shows."""
        board = self.key(kind, scope, "board")
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zscore(board, str(user_id))
            pipe.zcard(board)
            score, total = await pipe.execute()
        if score is None:
            return None
        return await self._rank_of(board, score), total

    async def _rank_of(self, board: str, score: float) -> int:
        return 1 + await self.redis.zcount(board, _above(score), "+inf")

    async def page(self, kind: str, scope: str, page: int, per_page: int = 10) -> Page:
        """Page ``page`` (0-based; clamped into range) of a leaderboard, best first.

        Order: established players by rating, then provisional players by rating (equal estimates: higher user id
        first). Ranks as :meth:`rank`: equal shown ratings share one, the next counts everyone above ("1, 2, 2, 4").
        """
        board = self.key(kind, scope, "board")
        total = await self.redis.zcard(board)
        pages = max(1, -(-total // per_page))
        page = min(max(0, page), pages - 1)
        start = page * per_page
        scored = decoded_scores(await self.redis.zrevrange(board, start, start + per_page - 1, withscores=True))
        async with self.redis.pipeline(transaction=False) as pipe:
            for uid, _ in scored:
                pipe.hgetall(self.key(kind, scope, f"p:{uid}"))
            hashes = await pipe.execute()
        entries, rank, tier = [], 0, None
        for n, ((uid, score), h) in enumerate(zip(scored, hashes)):
            if _tier(score) != tier:  # sorted best first: everyone before this entry is ranked above it
                rank = await self._rank_of(board, score) if n == 0 else start + n + 1
                tier = _tier(score)
            entries.append((rank, Standing.from_hash(int(uid), h)))
        established = await self.redis.zcount(board, f"({-_PROVISIONAL_OFFSET / 2}", "+inf")
        return Page(entries, page, pages, total, start, int(established))
