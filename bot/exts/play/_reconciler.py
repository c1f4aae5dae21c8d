"""The reconciler: makes every announcement a stored change left undone, and keeps every game's timers armed.

Every commit writes its announcements to the outbox (:mod:`bot.storage.outbox`) in the same atomic step; the bot that made
the change normally makes them at once. Whatever it could not make — Redis or Discord failed just then, or the
process was killed — this task makes, in one process at a time (each announcement is leased to one claimer):

- ``turn``: the board post, unless the game went on since (a later post shows it) or it was posted already
  (the board's file name carries the announcement's tag: the channel's recent messages are checked first) — as the
  completion of the interaction that made the change while its token is fresh (:meth:`bot.storage.keys.Keys.reply`: the
  player's "thinking…" becomes the board), else in the channel;
- ``computer``: the computer's reply, if it is still to move in that position and not thinking here already;
- ``result``: a finished game's record, rating and rating line — handed to the stats cog
  (the ``game_result_due`` event), which marks it done.

Every :data:`REARM_EVERY` seconds one process (a short Redis lock) also runs :meth:`bot.core.session.GameLayer.rearm`:
every running game gets any missing deadline back and the computer resumes where it is to move. And every
:data:`RETENTION_EVERY` seconds, with ``finished_retention`` set, one process (another lock) deletes the finished
records older than that (:meth:`bot.storage.privacy.Privacy.sweep_retention`; ratings stay), and the tournaments that
finished or were cancelled before then (:meth:`bot.storage.privacy.Privacy.sweep_tournaments`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Awaitable, Callable


from ...core.kinds import GameKind
from ...storage.outbox import MAX_TRIES, Announcement
from ...interface.posts import POSTING
from ...interface.posts import already_posted, board_name, shows_board, turn_message
from ...core.session import GameLayer
from ...storage.finished_games import Records
from ...storage.privacy import Privacy
from ...storage.ratings import Ratings
from ._computer import Computer
from ._language import public
from ._poll import poll
from ...core.kinds import Game
from ._computer import PostTurn

if TYPE_CHECKING:
    from ...interface.client import HongBot
    from ...core.record import Record

log = logging.getLogger(__name__)

#: Seconds between two checks of every game's deadlines (one process does it).
REARM_EVERY = 600.0
#: Seconds between two retention sweeps of finished records (one process does each).
RETENTION_EVERY = 3600.0
#: Seconds in a day (``finished_retention`` is in days).
DAY = 86_400.0
#: The event the stats cog handles for a finished game whose record, rating or rating line is still due.
RESULT_DUE = "game_result_due"


class Reconciler:
    """Polls the outbox every ``poll_interval`` seconds while started.

    Args:
        bot: the client (reads channel history, dispatches :data:`RESULT_DUE`).
        layer: the game layer (outbox, records).
        post_turn: posts a committed turn in its channel (and marks its announcement done).
        post_start: posts a game's first board in its channel: ``(kind, game, record, announcement)``.
        computer: the computer opponent of this process.
        poll_interval: seconds between polls.
    """

    def __init__(
        self,
        bot: "HongBot",
        layer: GameLayer,
        post_turn: PostTurn,
        post_start: Callable[[GameKind, Game, Record, Announcement], Awaitable[bool]],
        computer: Computer,
        poll_interval: float = 1.0,
    ) -> None:
        self.bot = bot
        self.layer = layer
        self.post_turn = post_turn
        self.post_start = post_start
        self.computer = computer
        self.poll_interval = poll_interval
        self._task: asyncio.Task | None = None
        self._stopping = asyncio.Event()
        self.privacy = Privacy(Records(layer.store, Ratings(layer.store.redis), clock=layer.clock))

    def start(self) -> None:
        """Start polling (once)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    async def stop(self, grace: float = 5.0) -> None:
        """Stop polling, letting an announcement being made finish (up to ``grace`` seconds)."""
        self._stopping.set()
        if self._task:
            try:
                await asyncio.wait_for(self._task, grace)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
            self._task = None

    async def _run(self) -> None:
        await poll(self._round, self._stopping, self.poll_interval, "reconciling the outbox")

    async def _round(self) -> None:
        await self.reconcile()
        await self.rearm_if_due()
        await self.retention_if_due()

    async def rearm_if_due(self) -> bool:
        """Run the periodic check of every game's deadlines if no process did in the last :data:`REARM_EVERY`
        seconds. True if this process ran it."""
        if not await self.layer.store.claim_rearm(int(REARM_EVERY)):
            return False
        log.info("periodic check: %d challenge(s) and game(s) have their deadlines", await self.layer.rearm())
        return True

    async def retention_if_due(self) -> int | None:
        """With ``finished_retention`` set, delete the finished records and the tournaments over older than that if
        no process swept in the last :data:`RETENTION_EVERY` seconds. Returns how many finished records this process
        deleted, or None if it did not sweep."""
        days = self.bot.config.finished_retention
        if days is None or not await self.privacy.claim_retention(int(RETENTION_EVERY)):
            return None
        before = self.layer.clock() - days * DAY
        swept = await self.privacy.sweep_retention(before)
        await self.privacy.sweep_tournaments(before)  # (tournaments over: kept as long as their games)
        return swept

    async def reconcile(self) -> int:
        """Claim every announcement due now in the servers of this process's shards and make it. Returns how many were
        settled."""
        settled = 0
        for announcement in await self.layer.outbox.claim(shards=self.bot.served_shards):
            try:
                finished = await self._make(announcement)
            except Exception:
                log.exception(
                    "announcement %s failed (claim %d); retried later", announcement.member, announcement.tries
                )
                finished = False
            if not finished and announcement.tries >= MAX_TRIES:
                log.error("giving up announcement %s after %d tries", announcement.member, announcement.tries)
                finished = True
            if finished:
                await self.layer.outbox.settle(announcement)
                settled += 1
        return settled

    async def _make(self, a: Announcement) -> bool:
        """Make one announcement; True when it is made or no longer needed (settle it), False to retry later."""
        if a.what == "turn":
            return await self._turn(a)
        if a.what == "computer":
            return await self._computer(a)
        if a.what == "result":
            record = await self.layer.store.finished(a.channel_id, a.game_id)
            if record is None:
                return True
            self.bot.dispatch(RESULT_DUE, record)  # the stats cog marks it done once made
            return False
        log.warning("unknown announcement %s dropped", a.member)
        return True

    async def _turn(self, a: Announcement) -> bool:
        if a.member in POSTING:  # this process is posting it now (its board waits its turn to be drawn): later
            return False
        found = await self.layer.announced(a)
        if found is None:
            log.info("announcement %s is stale (the game went on): not posted", a.member)
            return True
        record, game, turn = found
        kind = self.layer.kinds[record.kind]
        text_only = turn is not None and not shows_board(turn)  # a move the computer answers: posted as text
        async with public(self.bot, self.layer, record.guild_id):  # as it was posted: in the server's language
            text = turn_message(kind, turn)[0] if turn is not None and text_only else None
        if await already_posted(self.bot, a.channel_id, file_name=board_name(kind, a), text=text):
            await self.layer.outbox.done(a)
            if turn is None or not turn.finished:
                self.computer.to_move(record, game)
            return True
        log.info("posting announcement %s left undone", a.member)
        if turn is None:
            return bool(await self.post_start(kind, game, record, a))
        # the interaction that made the change, left on "thinking…" by a process that died: completed with the board
        reply = await self.layer.store.reply_of(a.channel_id, a.member)
        return bool(await self.post_turn(None, kind, turn, reply=reply))

    async def _computer(self, a: Announcement) -> bool:
        stored = await self.layer.store.get(a.channel_id)
        if stored is None or stored.record.id != a.game_id or stored.version != a.version:
            return True  # that position is gone; the game's later commit settles its own
        game = self.layer.game_of(stored.record)
        if game.is_over or not stored.record.player(game.to_move).bot:
            return True
        self.computer.to_move(stored.record, game)  # settled by the commit of its move
        return False


__all__ = ["Reconciler", "REARM_EVERY", "RETENTION_EVERY", "RESULT_DUE"]
