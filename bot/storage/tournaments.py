"""Tournaments kept in Redis (:class:`bot.core.tournament.event.Tournament`), written so that no result, join or
withdrawal is ever refused because others happen at the same moment, and a round advances exactly once across
processes and restarts.

A tournament is a document and its parts (keys from :class:`bot.storage.keys.Keys`, all in its channel's hash slot):

- the document (:meth:`Keys.tournament`, hash ``v``, ``doc``): its settings, phase, pairing order and the rounds
  as paired — changed only by compare-and-set (:meth:`Tournaments.commit`, ``lua/tournament.lua``), which is rare: a
  round paired, a round's posts made, a cancel. The same hash holds the fields the other scripts read: ``schema``,
  ``phase``, ``round``, ``joins`` (the round a joiner enters, 0: none), ``left`` (the current round's boards still
  to be played), ``ev`` (the entrants' version), ``seq`` (sign-ups so far);
- its entrants (:meth:`Keys.tournament_players`), one field each, written by ``lua/tournament_player.lua`` — a join,
  a leave or a withdrawal is one O(1) atomic write, never lost to a crowd;
- its results (:meth:`Keys.tournament_results`), one field a board, each written once by ``lua/tournament_result.lua``
  (the same result again counts once; another is refused and logged), in O(1) whatever the tournament's size; the
  round's last result schedules the round step;
- its boards' threads and games (:meth:`Keys.tournament_boards`), written once each by ``lua/tournament_board.lua``,
  which also indexes the game to its board in the channel's game index.

:meth:`Tournaments.get` reads them all at one moment (``lua/tournament_read.lua``) and puts the tournament together.
The round's step pairs the next round from what it read — one compare-and-set that also checks the entrants'
version, so a join or withdrawal that lands meanwhile makes it pair again, not the other way round.

Besides: the channel's game index (:meth:`Keys.tournament_games`: game id → ``<tournament id> <board>``, so a
finished game finds its tournament and board), the bucket's due steps (:meth:`Keys.tournament_due`, a :class:`bot.storage.store.DueSet`, the
claims turn timers use) and the tournaments over (:meth:`Keys.tournaments_over`, listed as each ends: deleted past
``finished_retention`` by :meth:`Tournaments.delete`, from :meth:`bot.storage.privacy.Privacy.sweep_tournaments`). A server's list (:meth:`Keys.guild_tournaments`) is written before the document and
read leniently (an id without a document is skipped).

A step due is ``<what>|<channel id>|<tournament id>|<round>``: ``start`` (the start time), ``round`` (pair round
``n`` if it is not yet, post the standings before it and start its games), ``watch`` (a running round's safety net) or
``final`` (the final standings and the podium), scheduled by the write that makes it due, claimed by
:meth:`Tournaments.claim_due`, settled by :meth:`Tournaments.done` once handled (a process killed in between leaves
it to be claimed again when the lease ends; every handler is idempotent).

A tournament stored by an earlier version as one document (no ``schema`` field) is read as it is and written whole,
in this layout, by its next change.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from redis.exceptions import ResponseError

from ..core.errors import GameChanged
from ..core.tournament.event import Entrant, Phase, Tournament, TournamentError
from .decoding import RedisClient, decoded, decoded_hash, decoded_list
from .keys import keys_for
from .scripts import TOURNAMENT, TOURNAMENT_BOARD, TOURNAMENT_PLAYER, TOURNAMENT_READ, TOURNAMENT_RESULT
from .store import DueSet, Shards, as_store_lost, guarded, marker, through_gate, writing

log = logging.getLogger(__name__)

#: Seconds a claimed step stays with its claimer before another process may take it (doubling each time).
LEASE = 60.0
#: Compare-and-set attempts of a document change before it gives up (every one lost a race). Only the rare
#: document changes retry: results, joins and withdrawals never race.
TRIES = 20
#: The layout's number (the document hash's ``schema``): a tournament without it is in the old one-document layout.
SCHEMA = 2
#: A tournament id as the bot makes them (and the tests' "t1"): the last part of its document's key.
_DOCUMENT = re.compile(r":tourn:([a-z0-9]{1,16})$")


def board_key(round_no: int, index: int) -> str:
    """A board's field in the parts: ``<round (1-based)>.<index (0-based)>``."""
    return f"{round_no}.{index}"


@dataclass(frozen=True)
class Step:
    """A tournament step due: ``what`` (round|final|start|watch), the tournament's ``channel_id`` and
    ``tournament_id``, and the ``round`` it is for."""

    what: str
    channel_id: int
    tournament_id: str
    round: int
    leased_until: float = field(default=0.0, compare=False)

    @property
    def member(self) -> str:
        return f"{self.what}|{self.channel_id}|{self.tournament_id}|{self.round}"

    @classmethod
    def parse(cls, member: str, leased_until: float = 0.0) -> "Step":
        what, channel, tid, number = member.split("|")
        return cls(what, int(channel), tid, int(number), leased_until)


@dataclass(frozen=True)
class Held:
    """A tournament as read: the tournament, its document's version (≥ 1), its entrants' version (bumped by every
    join, leave and withdrawal), and whether it is still in the old one-document layout."""

    tournament: Tournament
    version: int
    entrants: int = 0
    legacy: bool = False


@dataclass(frozen=True)
class Recorded:
    """What became of a result: ``outcome`` is ``kept`` (recorded), ``last`` (recorded, and it completed its round:
    the round step is due), ``same`` (the board had this result already: nothing changed), ``other`` (the board has
    another result, ``before``: refused), ``started`` (a forfeit refused: the board's game is being started) or
    ``no_board`` (no board plays that game)."""

    outcome: str
    before: str | None = None

    @property
    def new(self) -> bool:
        """The result was recorded now."""
        return self.outcome in ("kept", "last")


Change = Callable[[Tournament], tuple[Tournament, Iterable[str], tuple[Step, float] | None]]


class Tournaments:
    """Read, create and change tournaments; schedule, claim and settle their steps.

    Args:
        redis: a ``decode_responses=True`` client.
        clock: Unix seconds now (injectable: the tests' clock).
    """

    def __init__(self, redis: RedisClient, clock: Callable[[], float]) -> None:
        self.redis = redis
        self.keys = keys_for(redis)
        self.clock = clock
        self._commit = TOURNAMENT.register(redis)
        self._result = TOURNAMENT_RESULT.register(redis)
        self._player = TOURNAMENT_PLAYER.register(redis)
        self._board = TOURNAMENT_BOARD.register(redis)
        self._read = TOURNAMENT_READ.register(redis)
        self._due = DueSet(redis, self.keys.tournament_due, lease=LEASE)

    def _parts(self, channel_id: int, tournament_id: str) -> dict[str, str]:
        keys = self.keys
        return {
            "doc": keys.tournament(channel_id, tournament_id),
            "players": keys.tournament_players(channel_id, tournament_id),
            "results": keys.tournament_results(channel_id, tournament_id),
            "boards": keys.tournament_boards(channel_id, tournament_id),
        }

    # --- reading --------------------------------------------------------------------------------

    async def get(self, channel_id: int, tournament_id: str) -> Held | None:
        """The tournament, read with its parts at one moment, or None if there is none (or it is damaged: logged)."""
        parts = self._parts(channel_id, tournament_id)
        raw = await self._read(keys=parts, args={})
        head, players, results, boards = (_pairs(part) for part in raw)
        if not head:
            return None
        try:
            version = int(head["v"])
            if head.get("schema") != str(SCHEMA):
                return Held(Tournament.from_dict(json.loads(head["doc"])), version, legacy=True)
            t = assemble(json.loads(head["doc"]), players, results, boards)
            return Held(t, version, int(head.get("ev", 0)))
        except (KeyError, TypeError, ValueError) as exc:
            log.error("tournament %s in %s is damaged (%s): left as it is", tournament_id, channel_id, exc)
            return None

    async def _held(self, channel_id: int, tournament_id: str) -> Held:
        held = await self.get(channel_id, tournament_id)
        if held is None:
            raise LookupError(f"no tournament {tournament_id} in {channel_id}")
        return held

    async def of_guild(self, guild_id: int) -> list[Tournament]:
        """Every tournament of the server, oldest first."""
        index = decoded_hash(await self.redis.hgetall(self.keys.guild_tournaments(guild_id)))
        out = []
        for tid, channel in index.items():
            held = await self.get(int(channel), tid)
            if held is not None:
                out.append(held.tournament)
        return sorted(out, key=lambda t: (t.created, t.id))

    async def find(self, guild_id: int, tournament_id: str) -> Held | None:
        """A tournament of the server by its id, or None."""
        channel = decoded(await self.redis.hget(self.keys.guild_tournaments(guild_id), tournament_id))
        return await self.get(int(channel), tournament_id) if channel else None

    async def locate(self, channel_ids: Iterable[int], game_id: str) -> tuple[int, str] | None:
        """``(channel id, tournament id)`` of the tournament whose board plays ``game_id``, looked up in the game
        index of each of ``channel_ids`` (a game's thread's parent, or its channel once moved there), or None for a
        game of no tournament. One small read a channel: the tournament itself is not read."""
        for channel_id in channel_ids:
            indexed = decoded(await self.redis.hget(self.keys.tournament_games(channel_id), game_id))
            if indexed:  # ('<tournament id> <board>'; the previous version wrote the id alone)
                return channel_id, indexed.partition(" ")[0]
        return None

    async def of_game(self, channel_ids: Iterable[int], game_id: str) -> Held | None:
        """The tournament whose board plays ``game_id`` (:meth:`locate`), read whole, or None."""
        found = await self.locate(channel_ids, game_id)
        return await self.get(*found) if found else None

    async def documents(self) -> list[tuple[int, str]]:
        """``(channel id, tournament id)`` of every tournament, in every server (a SCAN: for ``/privacy`` and the
        retention sweep)."""
        found = []
        async for key in self.redis.scan_iter(match=self.keys.TOURNAMENT_PATTERN, count=1000):
            document = _DOCUMENT.search(key)
            if document:  # (not one of its parts)
                found.append((self.keys.channel_of(key), document.group(1)))
        return found

    async def involving(self, user_id: int) -> list[Tournament]:
        """Every tournament ``user_id`` entered or created, in every server (a SCAN: for ``/privacy``)."""
        found = []
        for channel, tid in await self.documents():
            held = await self.get(channel, tid)
            if held is not None and held.tournament.involves(user_id):
                found.append(held.tournament)
        return sorted(found, key=lambda t: (t.created, t.id))

    async def forget(self, user_id: int, former_name: str) -> int:
        """Erase ``user_id`` from every tournament (:meth:`Tournament.forgetting`): their entry moves to the stand-in
        id in the same step as the document. Returns how many changed."""
        changed = 0
        for t in await self.involving(user_id):
            for attempt in range(TRIES):
                held = await self._held(t.channel_id, t.id)
                after = held.tournament.forgetting(user_id, former_name)
                entrant = held.tournament.entrant(user_id)
                parts = None
                if entrant is not None and not held.legacy:  # their entry moves to the stand-in id, renamed
                    raw = decoded(await self.redis.hget(self._parts(t.channel_id, t.id)["players"], str(user_id)))
                    entry = json.loads(raw) if raw else json.loads(_entry(entrant, entrant.seed))
                    moved = json.dumps({**entry, "name": former_name}, ensure_ascii=False)
                    parts = {**_no_parts(), "players": {str(-entrant.seed): moved}, "drop": [str(user_id)]}
                if await self.commit(after, held.version, parts=parts, whole=held.legacy):
                    changed += 1
                    break
            else:
                raise GameChanged("the tournament changed too often at the same moment")
        return changed

    # --- writing the document -------------------------------------------------------------------

    async def create(self, tournament: Tournament, step: tuple[Step, float] | None = None) -> None:
        """Store a new tournament whole (listed in its server first), with its first step (e.g. its start time).

        Raises:
            GameChanged: a tournament with this id exists already (nothing written).
        """
        await through_gate()  # an interaction's change: stored only once it is acknowledged
        writing()
        await guarded(
            self.redis,
            None,
            ("HSET", self.keys.guild_tournaments(tournament.guild_id), tournament.id, tournament.channel_id),
        )
        if not await self.commit(tournament, 0, step=step, whole=True):
            raise GameChanged("a tournament with this id exists already")

    async def commit(
        self,
        tournament: Tournament,
        version: int,
        *,
        games: Iterable[str] = (),
        step: tuple[Step, float] | None = None,
        entrants: int | None = None,
        paired: bool = False,
        whole: bool = False,
        parts: dict | None = None,
    ) -> int:
        """Write ``tournament``'s document if it is still at ``version`` (0: new) — and, given ``entrants``, if its
        entrants are still at that version — indexing ``games`` (on its boards) to it and scheduling ``step`` (a :class:`Step` and
        when), all in one atomic step. ``paired``: the change paired a round (its boards still to be played are
        counted: the last result schedules its step). ``whole``: write every part too (:func:`parts_of`: a new
        tournament, or one moved from the old layout). ``parts``: some parts to write with it (an entry renamed).
        Returns the new version, or 0 if someone committed in between (nothing written).

        Raises:
            bot.storage.errors.StoreLost: the store lost its data (nothing written).
            bot.core.errors.NotAcknowledged: the change answers an interaction Discord refused (nothing written).
        """
        channel = tournament.channel_id
        bucket = self.keys.bucket(channel)
        over = tournament.phase in (Phase.FINISHED, Phase.CANCELLED)
        if whole:
            parts = parts_of(tournament)
        elif paired and tournament.boards:  # the boards decided as paired (a bye, a rest, a forfeit): in their part
            decided = {board_key(tournament.round, i): b.result for i, b in enumerate(tournament.boards[-1])}
            parts = {**_no_parts(), "results": {k: v for k, v in decided.items() if v is not None}}
        for game in games:  # indexed to their boards
            found = tournament.board_of_game(game)
            if found is not None:
                parts = parts or _no_parts()
                parts = {**parts, "games": {**parts["games"], game: board_key(found[0] + 1, found[1])}}
        await through_gate()  # (see bot.storage.store.gate: an interaction's change waits for its acknowledgement)
        writing()
        try:
            return int(
                await self._commit(
                    keys={
                        **self._parts(channel, tournament.id),
                        "games": self.keys.tournament_games(channel),
                        "due": self._due.key(channel),
                        "over": self.keys.tournaments_over(bucket),
                        "marker": marker(self.redis, bucket),
                    },
                    args={
                        "expected": version,
                        "entrants": "" if entrants is None else entrants,
                        "schema": SCHEMA,
                        "body": json.dumps(document(tournament), separators=(",", ":"), ensure_ascii=False),
                        "id": tournament.id,
                        "phase": tournament.phase.value,
                        "round": tournament.round,
                        "joins": tournament.joining_round,
                        "left": pending(tournament) if paired or whole else "",
                        "step": step[0].member if step else "",
                        "step_at": step[1] if step else 0,
                        "ended": self.clock() if over else "",
                        "listed": f"{channel}:{tournament.id}",
                        "parts": json.dumps(parts, separators=(",", ":"), ensure_ascii=False) if parts else "",
                    },
                )
            )
        except ResponseError as exc:
            raise as_store_lost(self.redis, exc) from exc

    async def update(self, channel_id: int, tournament_id: str, change: Change) -> Tournament:
        """Apply ``change`` (tournament → (changed tournament, game ids to index, step to schedule)) to the stored
        document with a compare-and-set, reading again and re-applying after a lost race — for the rare changes of
        the document alone (a cancel, a round's posts made, the sign-up post's id); results, entrants and boards
        have their own writes. ``change`` may raise (e.g. :class:`bot.core.tournament.event.TournamentError`):
        nothing is written. A change that returns the tournament unchanged writes nothing. Returns the tournament as
        stored.

        Raises:
            LookupError: no such tournament.
            GameChanged: :data:`TRIES` races lost in a row.
        """
        for attempt in range(TRIES):
            if attempt:  # a lost race: the winners spread out
                await asyncio.sleep(random.uniform(0, 0.01 * attempt))
            held = await self._held(channel_id, tournament_id)
            changed, games, step = change(held.tournament)
            games = list(games)
            if changed == held.tournament and not games and step is None and not held.legacy:
                return changed
            if await self.commit(changed, held.version, games=games, step=step, whole=held.legacy):
                return changed
        raise GameChanged("the tournament changed too often at the same moment")

    async def _pair(
        self, channel_id: int, tournament_id: str, pair: Callable[[Held], Tournament | None], step
    ) -> Tournament:
        """Commit a change that pairs a round (the start, or the next round): computed by ``pair`` from what was
        read (None: nothing to do), committed only if the document *and the entrants* are still as read, with its
        boards still to be played counted and ``step(tournament)`` scheduled. Returns the tournament as stored.

        Raises:
            LookupError: no such tournament. TournamentError: as ``pair``. GameChanged: :data:`TRIES` races lost.
        """
        for attempt in range(TRIES):
            if attempt:
                await asyncio.sleep(random.uniform(0, 0.01 * attempt))
            held = await self._held(channel_id, tournament_id)
            paired = pair(held)
            if paired is None:
                return held.tournament
            if await self.commit(
                paired, held.version, step=step(paired), entrants=held.entrants, paired=True, whole=held.legacy
            ):
                return paired
        raise GameChanged("the tournament changed too often at the same moment")

    async def start(self, channel_id: int, tournament_id: str, seeds: dict[int, float]) -> Tournament:
        """Close the sign-up and pair round 1 (:meth:`Tournament.start`), its round step due now.

        Raises:
            TournamentError: ``started``, ``too_few``. LookupError: no such tournament. GameChanged: lost
            :data:`TRIES` races (entrants changing all the while).
        """
        now = self.clock()
        return await self._pair(
            channel_id,
            tournament_id,
            lambda held: held.tournament.start(seeds),
            lambda t: (Step("round", t.channel_id, t.id, 1), now),
        )

    async def advance(self, channel_id: int, tournament_id: str, after: int, *, schedule: bool = True) -> Tournament:
        """Pair the round after round ``after`` once every board of ``after`` has its result (or finish the
        tournament, its ``final`` step due now): the one place a round is paired, run by the round's claimed step.
        Does nothing when the tournament is not in round ``after`` any more, or not complete. ``schedule``: make the
        new round's ``round`` step due now (False when that step is the caller). Returns the tournament as stored.

        Raises:
            LookupError: no such tournament. GameChanged: lost :data:`TRIES` races (entrants changing all the while:
            the step runs again when its lease ends).
        """
        now = self.clock()

        def pair(held: Held) -> Tournament | None:
            t = held.tournament
            if t.phase is not Phase.RUNNING or t.round != after or not t.round_complete:
                return None
            return t.next_round()

        def step(t: Tournament) -> tuple[Step, float] | None:
            if t.phase is Phase.FINISHED:
                return Step("final", t.channel_id, t.id, t.round), now
            return (Step("round", t.channel_id, t.id, t.round), now) if schedule else None

        return await self._pair(channel_id, tournament_id, pair, step)

    # --- results, entrants, boards: each its own write ------------------------------------------

    async def _script(self, script, channel_id: int, tournament_id: str, keys: dict, args: dict) -> str:
        """Run one of the parts' scripts; a tournament still in the old layout is first written whole in this one
        (then the script runs again).

        Raises:
            LookupError: no such tournament. StoreLost, NotAcknowledged: as :meth:`commit`.
        """
        bucket = self.keys.bucket(channel_id)
        await through_gate()
        writing()
        for attempt in range(2):
            try:
                reply = decoded(
                    await script(keys={**keys, "marker": marker(self.redis, bucket)}, args={"schema": SCHEMA, **args})
                )
            except ResponseError as exc:
                raise as_store_lost(self.redis, exc) from exc
            if reply != "legacy":
                return reply
            held = await self._held(channel_id, tournament_id)
            if not held.legacy or attempt:
                raise LookupError(f"tournament {tournament_id} in {channel_id} is not in this layout")
            await self.commit(held.tournament, held.version, whole=True)
        raise LookupError(f"no tournament {tournament_id} in {channel_id}")  # (not reached)

    async def record(self, channel_id: int, tournament_id: str, game_id: str, result: str) -> Recorded:
        """Record the result of the game ``game_id`` on its board (one of
        :data:`bot.core.tournament.event.RESULTS`): one atomic write of that board alone, in O(1) — never refused
        because other results arrive at the same moment. The same result again counts once; another result for a
        board that has one is refused (logged). The round's last result makes the round step due now.

        Raises:
            LookupError: no such tournament. StoreLost, NotAcknowledged: as :meth:`commit`.
        """
        return await self._record(channel_id, tournament_id, game_id, "", result)

    async def forfeit(self, channel_id: int, tournament_id: str, round_no: int, index: int, result: str) -> Recorded:
        """Record a forfeit (``+-``, ``-+``) on a board whose game has not started (a withdrawal, a player gone),
        as :meth:`record`; refused (``started``) once the board's thread is recorded: its game decides."""
        return await self._record(channel_id, tournament_id, "", board_key(round_no, index), result)

    async def _record(self, channel_id: int, tournament_id: str, game_id: str, board: str, result: str) -> Recorded:
        parts = self._parts(channel_id, tournament_id)
        reply = await self._script(
            self._result,
            channel_id,
            tournament_id,
            {k: parts[k] for k in ("doc", "results", "boards")}
            | {"games": self.keys.tournament_games(channel_id), "due": self._due.key(channel_id)},
            {
                "id": tournament_id,
                "game": game_id,
                "board": board,
                "result": result,
                "now": self.clock(),
                "step": f"round|{channel_id}|{tournament_id}|",
            },
        )
        outcome, _, before = reply.partition(" ")
        if outcome == "other":
            log.warning(
                "tournament %s: a second, different result %s for %s refused (it has %s)",
                tournament_id,
                result,
                game_id or f"board {board}",
                before,
            )
        return Recorded(outcome, before or None)

    async def join(self, channel_id: int, tournament_id: str, user_id: int, name: str) -> int:
        """``user_id`` joins (during the sign-up, or a running Swiss with rounds to come: paired from the next
        round): one atomic write of their entry alone — never refused because others join at the same moment.
        Returns the round they are paired from.

        Raises:
            TournamentError: ``joined`` (already in), ``withdrawn`` (withdrew before), ``closed``.
            LookupError: no such tournament.
        """
        parts = self._parts(channel_id, tournament_id)
        reply = await self._script(
            self._player,
            channel_id,
            tournament_id,
            {"doc": parts["doc"], "players": parts["players"]},
            {"action": "join", "user": user_id, "name": name, "round": 0},
        )
        outcome, _, joined = reply.partition(" ")
        if outcome != "in":
            raise TournamentError(outcome)
        return int(joined)

    async def leave(self, channel_id: int, tournament_id: str, user_id: int) -> Tournament:
        """``user_id`` leaves: during the sign-up taken off the list; once started withdrawn — not paired from the
        next round on, and their board of this round a forfeit if its game has not started (RULES.md). Their entry's
        own write (then the forfeit's): never refused because others join or leave at the same moment; it is read
        again only if the round advanced in between. Returns the tournament as stored after.

        Raises:
            TournamentError: ``not_in``, ``withdrawn`` (already), ``over``. LookupError: no such tournament.
        """
        parts = self._parts(channel_id, tournament_id)
        for _attempt in range(TRIES):  # ("moved": only the round's own step, once a round, makes it read again)
            t = (await self._held(channel_id, tournament_id)).tournament
            reply = await self._script(
                self._player,
                channel_id,
                tournament_id,
                {"doc": parts["doc"], "players": parts["players"]},
                {"action": "leave", "user": user_id, "name": "", "round": t.round},
            )
            outcome = reply.partition(" ")[0]
            if outcome in ("removed", "out"):
                break
            if outcome != "moved":
                raise TournamentError(outcome)
        else:
            raise GameChanged("the tournament changed too often at the same moment")
        if outcome == "out" and t.boards:
            index, board = next(((i, b) for i, b in enumerate(t.boards[-1]) if b.has(user_id)), (None, None))
            if board is not None and index is not None and board.result is None and board.second is not None:
                if board.channel is None:
                    forfeit = "-+" if board.first == user_id else "+-"
                    await self.forfeit(channel_id, tournament_id, t.round, index, forfeit)
        return (await self._held(channel_id, tournament_id)).tournament

    async def withdrawn(self, channel_id: int, tournament_id: str, players: Iterable[int | None]) -> set[int]:
        """Those of ``players`` (None skipped) who have withdrawn (one small read of their entries, not of the
        tournament)."""
        ids = [p for p in players if p is not None]
        if not ids:
            return set()
        key = self._parts(channel_id, tournament_id)["players"]
        entries = [decoded(raw) for raw in await self.redis.hmget(key, [str(p) for p in ids])]
        return {p for p, raw in zip(ids, entries) if raw and json.loads(raw).get("withdrawn") is not None}

    async def open_board(
        self, channel_id: int, tournament_id: str, round_no: int, index: int, thread: int
    ) -> int | None:
        """Record ``thread`` as the board's thread unless one is already (then that one is returned, and used); None
        when the board has its result (a forfeit: no game)."""
        reply = await self._board_write(channel_id, tournament_id, round_no, index, thread, "")
        return None if reply == "decided" else int(reply)

    async def start_board(
        self, channel_id: int, tournament_id: str, round_no: int, index: int, thread: int, game_id: str
    ) -> str | None:
        """Record the board's game (once), indexed to the board and the tournament. Returns None, or the id of the
        game recorded before (this one is then not)."""
        reply = await self._board_write(channel_id, tournament_id, round_no, index, thread, game_id)
        return reply.partition(" ")[2] if reply.startswith("game ") else None

    async def _board_write(
        self, channel_id: int, tournament_id: str, round_no: int, index: int, thread: int, game: str
    ) -> str:
        parts = self._parts(channel_id, tournament_id)
        return await self._script(
            self._board,
            channel_id,
            tournament_id,
            {k: parts[k] for k in ("doc", "results", "boards")} | {"games": self.keys.tournament_games(channel_id)},
            {"board": board_key(round_no, index), "thread": thread, "game": game, "id": tournament_id},
        )

    # --- steps due ------------------------------------------------------------------------------

    async def schedule(self, step: Step, when: float, guild_id: int | None = None) -> None:
        """Set ``step`` due at ``when`` (again, if it is: a step put off)."""
        await self._due.add(step.channel_id, {step.member: when}, guild_id=guild_id)

    async def claim_due(self, limit: int = 100, shards: Shards = Shards()) -> list[Step]:
        """Lease every step due now (of ``shards``' servers and of unknown ones) to this caller; settle each with
        :meth:`done` once handled."""
        return [Step.parse(m, until) for m, until, _ in await self._due.claim(self.clock(), limit, shards)]

    async def done(self, step: Step) -> bool:
        """A claimed step was handled: removed (unless scheduled anew since its claim). True if removed."""
        return await self._due.settle(step.channel_id, step.member, step.leased_until)

    async def due(self, step: Step) -> float | None:
        """When ``step`` is due (or its lease ends), or None if it is not scheduled."""
        return await self._due.score(step.channel_id, step.member)

    # --- retention ------------------------------------------------------------------------------

    async def list_over(self, now: float) -> int:
        """List every tournament over (finished or cancelled) that isn't yet among the tournaments over, as over
        ``now`` — those stored by an earlier version, which did not list them (a SCAN: once a process). Returns how
        many were looked at."""
        seen = 0
        for channel, tid in await self.documents():
            held = await self.get(channel, tid)
            seen += 1
            if held is not None and held.tournament.phase in (Phase.FINISHED, Phase.CANCELLED):
                bucket = self.keys.bucket(channel)
                await guarded(
                    self.redis, bucket, ("ZADD", self.keys.tournaments_over(bucket), "NX", now, f"{channel}:{tid}")
                )
        return seen

    async def delete(self, channel_id: int, tournament_id: str) -> None:
        """Delete a tournament and everything it kept: the document and its parts, its games' index entries, its
        steps due, the server's list entry, its place among the tournaments over. Its games' records are finished
        games, swept on their own.

        Raises:
            bot.storage.errors.StoreLost: the store lost its data (what was deleted stays deleted).
        """
        writing()
        held = await self.get(channel_id, tournament_id)
        parts = self._parts(channel_id, tournament_id)
        bucket = self.keys.bucket(channel_id)
        members = [m for m in await self._due.members() if f"|{channel_id}|{tournament_id}|" in m]
        await self._due.remove(channel_id, *members)
        index = self.keys.tournament_games(channel_id)
        games = [b.game for r in held.tournament.boards for b in r if b.game] if held else []
        owners = [decoded(owner) for owner in await self.redis.hmget(index, games)] if games else []
        games = [g for g, owner in zip(games, owners) if owner and owner.partition(" ")[0] == tournament_id]
        if held is not None:
            guild = held.tournament.guild_id
            await guarded(self.redis, None, ("HDEL", self.keys.guild_tournaments(guild), tournament_id))
        if games:
            await guarded(self.redis, bucket, ("HDEL", index, *games))
        await guarded(
            self.redis,
            bucket,
            *(("DEL", key) for key in parts.values()),
            ("ZREM", self.keys.tournaments_over(bucket), f"{channel_id}:{tournament_id}"),
        )

    async def memory(self, tournament: Tournament) -> int:
        """Bytes Redis uses for the tournament's document and parts (``MEMORY USAGE … SAMPLES 0``): for the
        benchmark."""
        keys = self._parts(tournament.channel_id, tournament.id).values()
        return sum([int(await self.redis.memory_usage(key, samples=0) or 0) for key in keys])  # (every field)


# --- the layout -------------------------------------------------------------------------------------


def _pairs(flat) -> dict[str, str]:
    """A script's flat list of field, value pairs as a dict of text."""
    items = decoded_list(flat)
    return dict(zip(items[::2], items[1::2]))


def pending(t: Tournament) -> int:
    """How many boards of the current round have no result yet."""
    return sum(1 for b in t.boards[-1] if b.result is None) if t.boards else 0


def document(t: Tournament) -> dict:
    """The document as stored: the tournament as JSON but what its parts hold — its entrants, and on its boards
    only who plays whom (results, threads and games are parts) — with ``order``: the entrants' ids by pairing
    number once started (none during the sign-up: sign-up order numbers them)."""
    d = t.to_dict()
    del d["entrants"]
    d["boards"] = [[{"first": b.first, "second": b.second} for b in r] for r in t.boards]
    d["order"] = [] if t.phase is Phase.SIGNUP else [e.id for e in sorted(t.entrants, key=lambda e: e.seed)]
    d["schema"] = SCHEMA
    return d


def _entry(entrant: Entrant, seq: int) -> str:
    """An entrant's entry in the players' part: name, sign-up number, the round joined (and withdrawn, once)."""
    entry = {"name": entrant.name, "seq": seq, "joined": entrant.joined}
    if entrant.withdrawn is not None:
        entry["withdrawn"] = entrant.withdrawn
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _no_parts() -> dict:
    return {"players": {}, "drop": [], "results": {}, "boards": {}, "games": {}, "seq": 0}


def parts_of(t: Tournament) -> dict:
    """Every part of ``t`` (for :meth:`Tournaments.commit`'s ``parts``): its entrants (numbered by pairing number),
    results, threads and games."""
    parts = _no_parts()
    parts["players"] = {str(e.id): _entry(e, e.seed) for e in t.entrants}
    parts["seq"] = max((e.seed for e in t.entrants), default=0)
    for number, boards in enumerate(t.boards, 1):
        for index, b in enumerate(boards):
            key = board_key(number, index)
            if b.result is not None:
                parts["results"][key] = b.result
            if b.channel is not None:
                parts["boards"][key] = f"{b.channel} {b.game}" if b.game else str(b.channel)
            if b.game is not None:
                parts["games"][b.game] = key
    return parts


def assemble(d: dict, players: dict[str, str], results: dict[str, str], boards: dict[str, str]) -> Tournament:
    """The tournament from its document (:func:`document`) and its parts as read. Pairing numbers: the document's
    ``order``, then everyone else by sign-up (late joiners, or everyone during the sign-up).

    Raises:
        KeyError, TypeError, ValueError: a damaged document or part.
    """
    order = {int(user): i for i, user in enumerate(d.get("order", ()))}
    entries = {int(user): json.loads(entry) for user, entry in players.items()}
    ranked = sorted(entries, key=lambda user: (0, order[user]) if user in order else (1, int(entries[user]["seq"])))
    entrants = [
        {
            "id": user,
            "name": str(entries[user]["name"]),
            "seed": seed,
            "joined": int(entries[user]["joined"]),
            "withdrawn": entries[user].get("withdrawn"),
        }
        for seed, user in enumerate(ranked, 1)
    ]
    rounds = []
    for number, paired in enumerate(d.get("boards", ()), 1):
        row = []
        for index, b in enumerate(paired):
            key = board_key(number, index)
            b = dict(b)
            if key in results:
                b["result"] = results[key]
            if key in boards:
                thread, _, game = boards[key].partition(" ")
                b["channel"] = int(thread)
                if game:
                    b["game"] = game
            row.append(b)
        rounds.append(row)
    return Tournament.from_dict({**d, "entrants": entrants, "boards": rounds})


__all__ = ["LEASE", "TRIES", "SCHEMA", "Step", "Held", "Recorded", "Tournaments", "assemble", "board_key", "parts_of"]
