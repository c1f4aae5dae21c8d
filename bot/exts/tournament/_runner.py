"""A tournament's steps on Discord: claimed from Redis (:class:`bot.storage.tournaments.Tournaments`, leased like
turn timers, settled once handled), each handler idempotent, so a round is started once whatever restarts or other
processes — a thread is recorded on its board before its game starts, a game is started in a thread only if none is
there (the game store's commit at version 0), and every post carries a nonce Discord deduplicates.

Steps: ``start`` (the start time came: start, or cancel with fewer than 2 players), ``round`` (the standings so far,
the pairings, then every board's thread and game), ``watch`` (every minute while a round runs: a game that ended
without its result reaching the tournament is recorded — the result events are not the only way in), ``final``
(the final standings, the podium).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Callable

import discord

from ...core.errors import UserError
from ...core.kinds import GameKind
from ...core.record import Record
from ...core.session import Person
from ...core.tournament.event import Phase, Tournament
from ...core.tournament.standings import standings
from ...i18n import _
from ...i18n.names import escape
from ...interface.mentions import MENTION_PLAYERS, NO_MENTIONS
from ...interface.posts import (
    already_posted,
    send_in_channel,
    send_quietly,
    sides,
    post_first_board,
)
from ...storage.outbox import Announcement
from ...storage.ratings import Ratings, guild_scope
from ...storage.tournaments import Step, Tournaments, advancing
from ..play._language import public
from ..play._poll import poll
from . import _words as words
from ._picture import standings_file
from ._signup import options_text, signup_view

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)

#: Seconds between the checks of a running round's games (``watch``), and before a round whose players are busy
#: in another tournament's game is tried again.
WATCH = 60.0
BUSY_RETRY = 10.0
#: The sign-up post is kept up to date while younger than this (seconds): Discord limits edits of hour-old messages.
FRESH_POST = 3300.0


class Runner:
    """Polls for due tournament steps every ``poll_interval`` seconds and runs each once."""

    def __init__(self, bot: "HongBot", store: Tournaments, poll_interval: float = 1.0) -> None:
        self.bot = bot
        self.layer = bot.layer
        self.store = store
        self.ratings = Ratings(bot.layer.store.redis)
        self.poll_interval = poll_interval
        self._task: asyncio.Task | None = None
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(poll(self.run_due, self._stopping, self.poll_interval, "tournament steps"))

    async def stop(self, grace: float = 10.0) -> None:
        self._stopping.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._task, grace)
            self._task = None

    async def run_due(self) -> int:
        """Claim and run every step due now (of this process's shards); each settled once run, unless it put
        itself off. Returns how many were claimed."""
        claimed = await self.store.claim_due(shards=self.bot.served_shards)
        for step in claimed:
            try:
                if await self.run(step):
                    await self.store.done(step)
            except Exception:
                log.exception("tournament step %s failed; it runs again when its lease ends", step.member)
        return len(claimed)

    async def run(self, step: Step) -> bool:
        """Run one step; False when it put itself off (scheduled again: not to be settled)."""
        held = await self.store.get(step.channel_id, step.tournament_id)
        if held is None:
            return True
        t = held.tournament
        if step.what == "start":
            return await self._start_due(t)
        if step.what == "round":
            return await self._round(t, step.round)
        if step.what == "watch":
            return await self._watch(t, step.round)
        if step.what == "final":
            return await self._final(t)
        log.warning("unknown tournament step %s: dropped", step.member)
        return True

    # --- changes ----------------------------------------------------------------------------------

    async def change(self, t: Tournament, step: Callable[[Tournament], Tournament]) -> Tournament:
        """Apply ``step`` to the stored tournament, advancing the round when it completes it."""
        return await self.store.update(t.channel_id, t.id, advancing(step, self.layer.clock))

    async def record_result(self, record: Record) -> Tournament | None:
        """A finished game's result on its board (once; an abort is a double forfeit: RULES.md), the round advanced
        if it was the last. Returns the tournament, or None for a game of no tournament."""
        if not record.finished or record.result is None:
            return None
        held = await self.store.of_game([c for c in (record.parent_id, record.channel_id) if c], record.id)
        if held is None:
            return None
        played = record.result.reason.value != "aborted"
        winner = record.result.winner
        return await self.change(held.tournament, lambda t: t.record_result(record.id, winner, played))

    async def seeds(self, t: Tournament) -> dict[int, float]:
        """Each entrant's rating in the tournament's game in the server (openskill's ordinal, μ − 3σ)."""
        out = {}
        for e in t.entrants:
            standing = await self.ratings.standing(t.kind, guild_scope(t.guild_id), e.id)
            if standing is not None:
                out[e.id] = standing.mu - 3 * standing.sigma
        return out

    # --- steps ------------------------------------------------------------------------------------

    async def _start_due(self, t: Tournament) -> bool:
        """The start time came: start with 2 players or more, else cancel (and say why)."""
        if t.phase is not Phase.SIGNUP:
            return True
        kind = self.layer.kinds[t.kind]
        if len(t.entrants) < 2:
            t = await self.store.update(t.channel_id, t.id, lambda x: (x.cancel(), (), None))
            async with public(self.bot, self.layer, t.guild_id):
                text = _(
                    "**{name}** was cancelled at its start time: it needs at least 2 players.",
                    name=words.title(t, kind),
                )
            await send_quietly(self.bot, t.channel_id, text, nonce=f"x{t.id}")
            await self.refresh_signup(t)
            return True
        seeds = await self.seeds(t)
        now = self.layer.clock()
        await self.store.update(
            t.channel_id,
            t.id,
            lambda x: (
                (x.start(seeds), (), (Step("round", x.channel_id, x.id, 1), now))
                if x.phase is Phase.SIGNUP
                else (x, (), None)
            ),
        )
        return True

    async def _round(self, t: Tournament, number: int) -> bool:
        """Round ``number``: the standings before it, its pairings, then each board's thread and game."""
        if t.phase is not Phase.RUNNING or t.round != number:
            return True
        guild = self.bot.get_guild(t.guild_id)
        if guild is None or guild.unavailable:  # not known yet (a restart) or a Discord outage: later
            await self.store.schedule(Step("round", t.channel_id, t.id, number), self.layer.clock() + WATCH)
            return False
        if not isinstance(guild.get_channel(t.channel_id), discord.TextChannel):
            log.warning("tournament %s: its channel %s is gone: cancelled", t.id, t.channel_id)
            await self.store.update(
                t.channel_id, t.id, lambda x: (x.cancel(), (), None) if x.phase is Phase.RUNNING else (x, (), None)
            )
            return True
        t = await self._drop_departed(t, number)
        if t.phase is not Phase.RUNNING or t.round != number:
            return True  # (the departures completed the round: its step is scheduled)
        busy = await self._busy(t, number)
        if busy:
            if t.waited < number:  # once a round, however often it is tried again
                await self._post_waiting(t, number, busy)
                await self.store.update(
                    t.channel_id, t.id, lambda x: (x.replace(waited=max(x.waited, number)), (), None)
                )
            await self.store.schedule(Step("round", t.channel_id, t.id, number), self.layer.clock() + BUSY_RETRY)
            return False
        kind = self.layer.kinds[t.kind]
        if t.announced < number:  # once a round, however often it is run (a retry, a wait)
            if number > 1:
                await self.post_standings(t, kind, number - 1)
            await self._post_pairings(t, kind, number)
            t = await self.store.update(
                t.channel_id, t.id, lambda x: (x.replace(announced=max(x.announced, number)), (), None)
            )
        for index in range(len(t.boards[number - 1])):
            t = await self._start_board(t, kind, number - 1, index)
        await self.store.schedule(Step("watch", t.channel_id, t.id, number), self.layer.clock() + WATCH)
        await self.refresh_signup(t)
        if any(b.result is None and b.game is None for b in t.boards[number - 1]):  # a thread or game not opened
            await self._cannot_open(t, kind, number)
            await self.store.schedule(Step("round", t.channel_id, t.id, number), self.layer.clock() + WATCH)
            return False
        return True

    async def _cannot_open(self, t: Tournament, kind: GameKind, number: int) -> None:
        """Say once a round that some of its games could not start (no thread could be opened), and what fixes it;
        the round tries again every minute."""
        async with public(self.bot, self.layer, t.guild_id):
            # TRANSLATORS: {tournament} a tournament's name; {round} a round's number; {permissions} Discord's names
            # of permissions, in bold.
            text = _(
                "⚠️ **{tournament}**, round {round}: I couldn't open a thread for every game. I need the "
                "{permissions} permissions in this channel; the round's other games go on, and I try again every "
                "minute.",
                tournament=words.title(t, kind),
                round=number,
                permissions="**Create Public Threads**, **Send Messages in Threads**",
            )
        if not await already_posted(self.bot, t.channel_id, text=text):  # once, not every minute
            await send_quietly(self.bot, t.channel_id, text, nonce=f"h{t.id}-{number}")

    async def _drop_departed(self, t: Tournament, number: int) -> Tournament:
        """Withdraw every player of the round's unstarted boards who has left the server (RULES.md)."""
        guild = self.bot.get_guild(t.guild_id)
        if guild is None:
            return t
        for board in t.boards[number - 1]:
            if board.game is not None or board.result is not None:
                continue
            for player in (board.first, board.second):
                if player is None or guild.get_member(player) is not None:
                    continue
                try:
                    await guild.fetch_member(player)
                except discord.NotFound:
                    log.info("tournament %s: player %s left the server: withdrawn", t.id, player)
                    t = await self.change(t, _withdrawing(player))
                except discord.HTTPException:
                    pass
        return t

    async def _busy(self, t: Tournament, number: int) -> set[int]:
        """The players of the round's unstarted boards who are playing a game of another tournament (one game at a
        time: the round waits while any is); empty when none is."""
        waiting = {p for b in t.boards[number - 1] if b.game is None and b.result is None for p in (b.first, b.second)}
        waiting.discard(None)
        busy: set[int] = set()
        if not waiting:
            return busy
        for other in await self.store.of_guild(t.guild_id):
            if other.id == t.id or other.phase is not Phase.RUNNING or not other.boards:
                continue
            for b in other.boards[-1]:
                if b.result is None and b.game is not None:
                    busy |= {p for p in (b.first, b.second) if p is not None and p in waiting}
        return busy

    async def _post_waiting(self, t: Tournament, number: int, busy: set[int]) -> None:
        """Say once a round, in the tournament's channel (the server's language), which of its boards wait for a
        player still playing another tournament's game (RULES.md, "One game at a time"); a nonce and a look at the
        channel keep it to one post whatever restarts (the caller records the round as ``waited``)."""
        kind = self.layer.kinds[t.kind]
        async with public(self.bot, self.layer, t.guild_id):
            boards = [
                b
                for b in t.boards[number - 1]
                if b.game is None
                and b.result is None
                and b.second is not None
                and (b.first in busy or b.second in busy)
            ]
            lines = [
                # TRANSLATORS: {tournament} a tournament's name; {round} a round's number.
                _(
                    "⏳ **{tournament}**, round {round}: these games wait, because a player is still playing a game "
                    "of another tournament (one game at a time). They start as soon as it ends.",
                    tournament=words.title(t, kind),
                    round=number,
                )
            ]
            for b in boards:
                assert b.second is not None
                names = [escape(self._person(t, p).name) for p in (b.first, b.second)]
                playing = [escape(self._person(t, p).name) for p in (b.first, b.second) if p in busy]
                lines.append(
                    # TRANSLATORS: a waiting board: {first} vs {second}; {busy} who is still playing elsewhere.
                    _(
                        "{first} vs {second} — waiting for {busy}",
                        first=names[0],
                        second=names[1],
                        busy=", ".join(playing),
                    )
                )
            text = words.cut("\n".join(lines))
        if not await already_posted(self.bot, t.channel_id, text=text):  # once, not every retry
            await send_quietly(self.bot, t.channel_id, text, nonce=f"b{t.id}-{number}")

    async def _start_board(self, t: Tournament, kind: GameKind, r: int, i: int) -> Tournament:
        """The board's thread (recorded on the board before anything else), then its game (started only if the
        thread has none), then its first board posted in the thread."""
        board = t.boards[r][i]
        if board.result is not None or board.second is None:
            return t
        if board.channel is None:
            thread = await self._open_thread(t, kind, board.first, board.second)
            if thread is None:
                return t  # (the round says so and tries again)
            t = await self.store.update(
                t.channel_id,
                t.id,
                lambda x: (x.with_board(r, i, channel=thread.id) if x.boards[r][i].channel is None else x, (), None),
            )
            board = t.boards[r][i]
        if board.game is not None:
            return t
        thread_id = board.channel
        assert thread_id is not None and board.second is not None
        stored = await self.layer.store.get(thread_id)
        players = (self._person(t, board.first), self._person(t, board.second))
        if stored is not None and [p.id for p in stored.record.players if p] == [board.first, board.second]:
            record, game = stored.record, self.layer.game_of(stored.record)  # started before a restart
            fresh = False
        else:
            options = kind.seat_options(t.options, self.layer.rng)[1]
            try:
                record, game = await self.layer.start_paired(
                    kind,
                    guild_id=t.guild_id,
                    channel_id=thread_id,
                    parent_id=t.channel_id,
                    players=players,
                    options=options,
                    turn_timer=t.turn_timer,
                )
            except UserError:
                log.warning("tournament %s: thread %s has another game: board left for the next try", t.id, thread_id)
                return t
            fresh = True
        t = await self.store.update(
            t.channel_id,
            t.id,
            lambda x: (x.with_board(r, i, game=record.id) if x.boards[r][i].game is None else x, [record.id], None),
        )
        if fresh or await self.layer.outbox.is_pending(Announcement.start(record)):
            await self._post_first_board(t, kind, record, game)
        return t

    def _person(self, t: Tournament, user_id: int) -> Person:
        entrant = t.entrant(user_id)
        return Person(user_id, words.player_name(user_id, entrant.name) if entrant else str(user_id))

    async def _open_thread(self, t: Tournament, kind: GameKind, first: int, second: int) -> discord.Thread | None:
        """A public thread for a board in the tournament's channel, or None (logged) if the bot can't open one."""
        channel = self.bot.get_channel(t.channel_id)
        if not isinstance(channel, discord.TextChannel):
            return None
        async with public(self.bot, self.layer, t.guild_id):
            # TRANSLATORS: a tournament game's thread name: {tournament} the tournament's name, {round} its number,
            # {first} and {second} the players.
            name = _(
                "{tournament} · round {round}: {first} vs {second}",
                tournament=words.title(t, kind).replace("\\", ""),
                round=t.round,
                first=self._person(t, first).name,
                second=self._person(t, second).name,
            )
        me = self.bot.user.id if self.bot.user else None
        taken = {b.channel for r in t.boards for b in r if b.channel}
        for thread in channel.threads:  # opened before a crash, its board not yet told: used, not opened again
            if thread.name == name[:100] and thread.owner_id == me and thread.id not in taken:
                return thread
        try:
            return await channel.create_thread(
                name=name[:100], type=discord.ChannelType.public_thread, auto_archive_duration=1440
            )
        except discord.HTTPException as exc:
            log.warning("tournament %s: could not open a thread in %s (%s)", t.id, t.channel_id, exc)
            return None

    async def _post_first_board(self, t: Tournament, kind: GameKind, record: Record, game) -> None:
        announcement = Announcement.start(record)
        async with public(self.bot, self.layer, t.guild_id):
            # TRANSLATORS: {tournament} a tournament's name, {round} the round's number; {sides} who plays what.
            heading = _(
                "🏆 **{tournament}**, round {round} — the game begins! {sides}",
                tournament=words.title(t, kind),
                round=t.round,
                sides=sides(kind, record),
            )
            try:
                await post_first_board(self.bot, kind, game, record, announcement, heading)
            except Exception as exc:  # the outbox keeps it: the reconciler posts it
                log.warning("tournament %s: first board of %s not posted yet (%s)", t.id, record.id, exc)
                return
        await self.layer.outbox.done(announcement)

    async def _post_pairings(self, t: Tournament, kind: GameKind, number: int) -> None:
        async with public(self.bot, self.layer, t.guild_id):
            lines = [
                _(
                    "🏆 **{tournament}** — round {round} of {rounds}",
                    tournament=words.title(t, kind),
                    round=number,
                    rounds=t.rounds,
                )
            ]
            for board in t.boards[number - 1]:
                first = escape(self._person(t, board.first).name)
                if board.second is None:
                    if board.result == "bye":
                        lines.append(_("{player} has the bye (1 point).", player=first))
                    else:
                        lines.append(_("{player} rests this round.", player=first))
                    continue
                second = escape(self._person(t, board.second).name)
                if board.result in ("+-", "-+"):
                    winner = first if board.result == "+-" else second
                    lines.append(
                        _("{first} vs {second}: {winner} wins by forfeit.", first=first, second=second, winner=winner)
                    )
                else:
                    # TRANSLATORS: {first} plays the first seat (Hong Kong: moves first; Hong: the emperor).
                    lines.append(
                        _(
                            "{first} ({role}) vs {second}",
                            first=first,
                            second=second,
                            role=kind.role(0),
                        )
                    )
            lines.append(_("Each game is played in its own thread below."))
        await send_quietly(self.bot, t.channel_id, words.cut("\n".join(lines)), nonce=f"r{t.id}-{number}")

    async def post_standings(self, t: Tournament, kind: GameKind, after: int) -> None:
        """The standings after round ``after`` (text and picture), once (a nonce)."""
        async with public(self.bot, self.layer, t.guild_id):
            heading = _(
                "📊 **{tournament}** — standings after round {round}", tournament=words.title(t, kind), round=after
            )
            rows = standings(t, after)  # rounds 1..after only: the next round, its bye, is paired already
            text = words.standings_text(t, kind, rows, heading)
            picture = await standings_file(t, kind, rows, heading_plain(t, kind, after))
        await self._send(t.channel_id, text, picture, f"s{t.id}-{after}")

    async def _final(self, t: Tournament) -> bool:
        """The final standings and the podium, once."""
        kind = self.layer.kinds[t.kind]
        rows = standings(t)
        async with public(self.bot, self.layer, t.guild_id):
            heading = _("🏆 **{tournament}** — final standings", tournament=words.title(t, kind))
            if t.ended_early:
                heading += "\n" + _("No more pairings were possible, so the tournament ended early.")
            text = words.standings_text(t, kind, rows, heading)
            podium = _("🎉 Congratulations!") + "\n" + words.podium(rows)
            picture = await standings_file(t, kind, rows, heading_plain(t, kind, t.round))
        await self._send(t.channel_id, text, picture, f"s{t.id}-final")
        await send_quietly(self.bot, t.channel_id, podium, MENTION_PLAYERS, nonce=f"w{t.id}")
        await self.refresh_signup(t)
        return True

    async def _send(self, channel_id: int, text: str, picture, nonce_: str) -> None:
        try:
            await send_in_channel(
                self.bot,
                channel_id,
                text,
                nonce=nonce_,
                data=picture,
                name="standings.png",
                allowed_mentions=NO_MENTIONS,
            )
        except Exception as exc:
            log.warning("could not post standings in %s (%s)", channel_id, exc)

    async def _watch(self, t: Tournament, number: int) -> bool:
        """While round ``number`` runs: record any of its games that ended without its result reaching the
        tournament; then look again in a minute."""
        if t.phase is not Phase.RUNNING or t.round != number:
            return True
        for board in t.boards[number - 1]:
            if board.result is not None or board.game is None or board.channel is None:
                continue
            for channel in (board.channel, t.channel_id):
                record = await self.layer.store.finished(channel, board.game)
                if record is not None:
                    t = await self.record_result(record) or t
                    break
        if t.phase is Phase.RUNNING and t.round == number:
            await self.store.schedule(Step("watch", t.channel_id, t.id, number), self.layer.clock() + WATCH)
            return False
        return True

    async def refresh_signup(self, t: Tournament) -> None:
        """The sign-up post brought up to date (its list, its phase; no buttons once it can't be joined)."""
        if t.message_id is None:
            return
        if self.layer.clock() - t.created > FRESH_POST:  # (posted when it was created)
            return  # Discord refuses most edits of hour-old messages (30046): the round posts say the rest
        kind = self.layer.kinds[t.kind]
        async with public(self.bot, self.layer, t.guild_id):
            text = words.signup_text(t, kind, options_text(kind, t))
            view = signup_view(t)
        message = self.bot.get_partial_messageable(t.channel_id).get_partial_message(t.message_id)
        try:
            await message.edit(content=text, view=view)
        except discord.HTTPException as exc:
            log.info("tournament %s: sign-up post not updated (%s)", t.id, exc)


def _withdrawing(player: int) -> Callable[[Tournament], Tournament]:
    """A step withdrawing ``player`` unless they are out already."""

    def step(t: Tournament) -> Tournament:
        entrant = t.entrant(player)
        return t.withdraw(player) if entrant is not None and entrant.withdrawn is None else t

    return step


def heading_plain(t: Tournament, kind: GameKind, after: int) -> str:
    """The standings picture's title (no markdown): the final standings of a finished tournament, else the standings
    after round ``after``."""
    if t.phase is Phase.FINISHED:
        return _("{tournament} — final standings", tournament=t.name or words.title(t, kind))
    return _("{tournament} — after round {round}", tournament=t.name or words.title(t, kind), round=after)


__all__ = ["Runner", "WATCH", "BUSY_RETRY", "FRESH_POST"]
