"""The game layer: challenge, accept, load, apply, commit, finish — once, for every game.

Pure of Discord: callers pass plain ids and names, and get back records (:class:`bot.core.record.Record`) and engine games.
Every change is computed from the stored record and committed with :meth:`bot.storage.store.GameStore.commit` against
the version it was computed from; a lost race raises :class:`bot.core.errors.GameChanged` and changes nothing. The
commit carries what follows from the change (:class:`bot.storage.store.Effects`): the turn's deadlines, the server's active
set, and the announcements still to make (:mod:`bot.storage.outbox`) — so none of it can be lost between two steps.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
import time
from dataclasses import dataclass
from typing import Callable

from babel.lists import format_list

from engine import IllegalMove
from engine.result import EndReason

from .. import i18n
from ..storage.deadlines import Deadline, Deadlines
from .errors import GameChanged, NoGameHere, UserError
from ..i18n import _, p_
from . import naming
from .kinds import Game, GameKind
from ..storage.outbox import START, Announcement, Outbox
from .record import Event, Player, Record, Result, Status, Takeback
from ..storage.settings import SettingsStore
from ..storage.store import Effects, GameStore, Stored

TAKEBACK_TIMEOUT = 300.0  # seconds an unanswered takeback request stays open
#: How many games a process remembers having checked by a full replay (the oldest are forgotten first).
CHECKED_GAMES = 100_000
#: The characters of a game id (no 0/o, 1/l/i: read aloud and typed without confusion).
ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


@dataclass(frozen=True)
class Person:
    """A Discord user as the game layer sees one: id and display name."""

    id: int
    name: str


@dataclass(frozen=True)
class Turn:
    """The outcome of a committed change to a running game.

    Attributes:
        record: the record as committed (``status`` active, or finished once the game ended).
        game: the engine game after the change.
        player: the seat (0/1) that moved, resigned, ran out of time or took back; None for an abort.
        move: the move in canonical notation, or None when no move was played.
        event: what the change was (:class:`bot.core.record.Event`).
        announcement: its board post, still to make (:mod:`bot.storage.outbox`); None for a turn not from a commit.
        undone: for a takeback, the moves it undid, oldest first (against the computer: the caller's turn and the
            computer's reply, if it had replied).
    """

    record: Record
    game: Game
    player: int | None
    move: str | None
    event: Event = Event.MOVE
    announcement: Announcement | None = None
    undone: tuple[str, ...] = ()

    @property
    def finished(self) -> bool:
        return self.record.finished


def turn_start(game: Game, seat: int | None = None) -> tuple[int, int] | None:
    """The most recent turn (of ``seat``, or of anyone): ``(move index where it began, its player)``, found by
    undoing moves on a copy of ``game`` (a Hong turn may hold a placement and a dragon action). None if there is
    no such turn."""
    g = game.copy()
    while g.moves:
        g.pop()
        if g.pending is None and (seat is None or g.to_move == seat):
            return len(g.moves), g.to_move
    return None


def result_text(kind: GameKind, record: Record, game: Game | None = None) -> str:
    """How the finished ``record`` ended, as a sentence in the current language: "Ann resigned: Ben wins.", "Ann ran
    out of time: Ben wins.", "Aborted by Cy: no result, unrated.", or the game's own result of a game played out
    (``kind.result``, from ``game`` — the record's final position, loaded from it when not given).

    The stored :attr:`bot.core.record.Result.text` is this in English, written when the game ended; a post says it in the
    server's language by calling this inside ``with i18n.language(...)``."""
    result = record.result
    if result is None:
        raise ValueError(f"{record.id} has not ended: it has no result")
    if result.reason in (EndReason.RESIGNED, EndReason.TIMEOUT) and result.winner is not None:
        loser, winner = record.player(1 - result.winner).shown, record.player(result.winner).shown
        if result.reason is EndReason.RESIGNED:
            return _("{loser} resigned: {winner} wins.", loser=loser, winner=winner)
        return _("{loser} ran out of time: {winner} wins.", loser=loser, winner=winner)
    if result.reason is EndReason.ABORTED:
        if record.aborted_by is None:  # not from abort(): the stored words are all there is
            return result.text
        # TRANSLATORS: {name} is who aborted the game (an admin, or the bot itself).
        return _("Aborted by {name}: no result, unrated.", name=record.aborted_by.shown)
    return kind.result(game if game is not None else kind.load(record.game_state, replay=False), record.names)


class GameLayer:
    """Drives every game kind through the engine contract and the store.

    Args:
        store: the Redis-backed :class:`GameStore`.
        kinds: the games hosted, by name.
        settings: per-server settings (turn timer, reminders); None → read from the store's Redis.
        challenge_timeout: seconds a challenge stays open.
        clock: returns Unix seconds (injectable for tests).
        rng: randomness for "random" options; given (a test's seeded ``random.Random``), for game ids too. Without
            it game ids come from :mod:`secrets` (the operating system's randomness): an id is shown to players and
            must not be predictable from earlier ones (a Mersenne Twister's would be).
    """

    def __init__(
        self,
        store: GameStore,
        kinds: dict[str, GameKind],
        *,
        settings: SettingsStore | None = None,
        challenge_timeout: float = 600.0,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.kinds = kinds
        self.settings = settings or SettingsStore(store.redis)
        self.deadlines = Deadlines(store.redis, clock)
        self.outbox = Outbox(store.redis, clock)
        self.challenge_timeout = challenge_timeout
        self.clock = clock
        self.rng = rng or random.Random()
        self._ids: random.Random = rng if rng is not None else secrets.SystemRandom()
        self._checked: dict[str, None] = {}  # ids of the games this process has checked (insertion order: age)

    # --- reading ----------------------------------------------------------------------------------

    def game_of(self, record: Record, *, history: bool = False) -> Game:
        """The engine game of a running or finished record.

        Loaded from the stored position (the engine's ``from_dict(state, replay=False)``: no replay of the moves),
        except that every move is replayed and checked by the rules the first time this process meets the game (a
        game it started itself is known sound), so a record damaged at rest — by hand, or by another version — is
        refused before anything is built on it; and with ``history``, for undoing moves (a takeback, finding where
        a turn began): only the replay gives a Hong game its undo history.

        Raises:
            engine.InvalidState: the stored state is damaged (the message says how).
        """
        kind = self.kinds[record.kind]
        if history or record.id not in self._checked:
            game = kind.load(record.game_state)
            self._remember_checked(record.id)
            return game
        return kind.load(record.game_state, replay=False)

    def _remember_checked(self, game_id: str) -> None:
        self._checked[game_id] = None
        if len(self._checked) > CHECKED_GAMES:
            del self._checked[next(iter(self._checked))]

    async def current(self, channel_id: int) -> Stored | None:
        """The channel's live record: an open (unexpired) challenge or a running game, else None."""
        stored = await self.store.get(channel_id)
        if stored is None or self._expired(stored.record):
            return None
        return stored

    async def running(
        self, channel_id: int, kind: GameKind | None = None, *, history: bool = False
    ) -> tuple[Stored, Game]:
        """The channel's running game and its engine state (with its undo ``history``: see :meth:`game_of`).

        Raises:
            UserError: no game here (or only a challenge), or (with ``kind``) the game here is another kind.
        """
        stored = await self.current(channel_id)
        if stored is not None and stored.record.status is Status.CHALLENGE:
            record = stored.record
            title = self.kinds[record.kind].title
            if record.opponent:
                # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {name} the challenged player.
                raise UserError(
                    _(
                        "The {game} challenge here hasn't been accepted yet: the game starts when {name} accepts it.",
                        game=title,
                        name=record.player_of(record.opponent).shown,
                    )
                )
            # TRANSLATORS: {game} is "Hong Kong" or "Hong".
            raise UserError(
                _(
                    "The {game} challenge here hasn't been accepted yet: the game starts when someone accepts it.",
                    game=title,
                )
            )
        if stored is None or stored.record.status is not Status.ACTIVE:
            names = [kind.name] if kind else list(self.kinds)
            hint = format_list(
                [naming.command(f"{name} challenge") for name in names], style="or", locale=i18n.current()
            )
            # TRANSLATORS: {commands} is a command or two (mentions): "/hongkong challenge or /hong challenge".
            raise NoGameHere(
                _("There is no game running in this channel. Start one with {commands}.", commands=hint), channel_id
            )
        record = stored.record
        if kind is not None and record.kind != kind.name:
            other = self.kinds[record.kind]
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {command} its command's name, "hongkong" or "hong".
            raise UserError(
                _(
                    "The game in this channel is {game}: use /{command} commands here.",
                    game=other.title,
                    command=other.name,
                )
            )
        return stored, self.game_of(record, history=history)

    def _expired(self, record: Record) -> bool:
        return record.status is Status.CHALLENGE and (record.expires or 0) <= self.clock()

    async def active_records(self, guild_id: int) -> list[Record]:
        """Every running game's record in the server, oldest first (no engine game loaded); a channel listed as
        active that no longer has one is taken off the list."""
        records = []
        for channel_id in await self.store.active_channels(guild_id):
            stored = await self.store.get(channel_id)
            if stored and stored.record.status is Status.ACTIVE:
                records.append(stored.record)
            else:
                await self.store.mark_active(guild_id, channel_id, False)
        return sorted(records, key=lambda r: r.started or 0)

    async def active_games(self, guild_id: int) -> list[tuple[Record, Game]]:
        """Every running game in the server: ``[(record, engine game)]``, oldest first (:meth:`active_records`)."""
        return [(record, self.game_of(record)) for record in await self.active_records(guild_id)]

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(
        self,
        kind: GameKind,
        *,
        guild_id: int,
        channel_id: int,
        challenger: Person,
        opponent: Person | None,
        options: dict,
    ) -> Record:
        """Open a challenge in the channel (``opponent`` None: anyone but the challenger may accept).

        Returns the stored record (status challenge); its expiry is scheduled.

        Raises:
            UserError: challenging yourself, or the channel already has a live challenge or game.
            IllegalMove: the options are not valid for the game (from the engine).
        """
        if opponent is not None and opponent.id == challenger.id:
            # TRANSLATORS: {option} is the option "opponent" as Discord shows it in this language.
            raise UserError(
                _(
                    "You can't challenge yourself. Pick another member as `{option}`, or leave it out "
                    "for an open challenge anyone can accept.",
                    option=naming.option(f"{kind.name} challenge", "opponent"),
                )
            )
        stored = await self._free_channel(channel_id, challenger.id)
        seat, engine_options = kind.seat_options(options, self.rng)
        kind.new_game(engine_options)  # validates the options now rather than at accept time
        now = self.clock()
        expires = now + self.challenge_timeout
        players: list[Player | None] = [None, None]
        players[seat] = Player(challenger.id, challenger.name)
        if opponent is not None:
            players[1 - seat] = Player(opponent.id, opponent.name)
        record = Record(
            id=self._new_id(),
            kind=kind.name,
            status=Status.CHALLENGE,
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=challenger.id,
            opponent=opponent.id if opponent else None,
            players=(players[0], players[1]),
            options=engine_options,
            created=now,
            updated=now,
            expires=expires,
        )
        expire = Deadline("expire", channel_id, record.id, 0)
        await self._create(
            channel_id, record, stored, Effects(cancel=self._deadlines_of(stored), schedule=((expire.member, expires),))
        )
        return record

    async def start_computer_game(
        self,
        kind: GameKind,
        *,
        guild_id: int,
        channel_id: int,
        human: Person,
        computer: Person,
        level: str,
        options: dict,
    ) -> tuple[Record, Game]:
        """Start a game against the computer at once (no challenge to accept). Unrated: the computer's seat is a
        :class:`Player` with ``bot`` True. Returns the record (status active) and the engine game.

        Raises:
            UserError: the channel already has a live challenge or game, or a race was lost.
            IllegalMove: the options are not valid for the game.
        """
        stored = await self._free_channel(channel_id, human.id)
        seat, engine_options = kind.seat_options(options, self.rng)
        game = kind.new_game(engine_options)
        players: list[Player | None] = [None, None]
        players[seat] = Player(human.id, human.name)
        players[1 - seat] = Player(computer.id, computer.name, bot=True, level=level)
        now = self.clock()
        record = Record(
            id=self._new_id(),
            kind=kind.name,
            status=Status.ACTIVE,
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=human.id,
            opponent=computer.id,
            players=(players[0], players[1]),
            options=engine_options,
            state=game.to_dict(),
            created=now,
            updated=now,
            started=now,
        )
        return await self._start(channel_id, record, game, stored), game

    async def start_paired(
        self,
        kind: GameKind,
        *,
        guild_id: int,
        channel_id: int,
        parent_id: int | None,
        players: tuple[Person, Person],
        options: dict,
        turn_timer: float | None = None,
    ) -> tuple[Record, Game]:
        """Start a game between two given players at once (a tournament's board: no challenge, seats as given,
        ``players[0]`` in seat 0), in ``channel_id`` (its thread; ``parent_id`` the channel the thread is in), with
        ``turn_timer`` seconds a turn (None: the server's). Returns the record (status active) and the engine game.

        Raises:
            UserError: the channel already has a live challenge or game (a game started there before: the caller
                reads it), or a race was lost.
            IllegalMove: the options are not valid for the game.
        """
        stored = await self._free_channel(channel_id)
        game = kind.new_game(options)
        now = self.clock()
        first, second = players
        record = Record(
            id=self._new_id(),
            kind=kind.name,
            status=Status.ACTIVE,
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=first.id,
            opponent=second.id,
            players=(Player(first.id, first.name), Player(second.id, second.name)),
            options=options,
            state=game.to_dict(),
            created=now,
            updated=now,
            started=now,
            parent_id=parent_id,
            turn_timer=turn_timer,
        )
        return await self._start(channel_id, record, game, stored), game

    async def _free_channel(self, channel_id: int, user_id: int | None = None) -> Stored | None:
        """The channel's record if it may be replaced (an expired challenge), or None.

        Raises:
            UserError: the channel has a live challenge or game (``user_id``: who asks — told to press Accept when
                the open challenge is theirs to accept).
        """
        stored = await self.store.get(channel_id)
        if stored is not None and not self._expired(stored.record):
            raise UserError(self._busy_message(stored.record, user_id))
        return stored

    async def _create(self, channel_id: int, record: Record, replacing: Stored | None, effects: Effects) -> None:
        if await self.store.commit(channel_id, record, replacing.version if replacing else 0, effects) is None:
            raise GameChanged(_("Someone started a game in this channel at the same moment. Try again in a moment."))

    async def _start(self, channel_id: int, record: Record, game: Game, replacing: Stored | None) -> Record:
        """Store a new running game with its first turn's deadlines, its first board to post and (if the computer
        moves first) the computer's turn, all in one commit."""
        record, effects = await self._starting(
            record, game, (replacing.version if replacing else 0) + 1, self._deadlines_of(replacing)
        )
        await self._create(channel_id, record, replacing, effects)
        return record

    async def _starting(
        self, record: Record, game: Game, version: int, cancel: tuple[str, ...]
    ) -> tuple[Record, Effects]:
        """A game about to be stored at ``version`` as running, with its first turn timed, and the effects of
        storing it: ``cancel`` removed, the turn's deadlines set, the first board (and the computer's turn) to
        announce, the channel marked active."""
        now = self.clock()
        self._remember_checked(record.id)  # made here from new_game(): nothing to check
        record, schedule = await self._timed(record, game, record.started or now)
        announce = [
            self.outbox.entry(Announcement.start(record), now),
            *self._computer_entry(record, game, version, now),
        ]
        return record, Effects(cancel=cancel, schedule=schedule, announce=tuple(announce), active=True)

    def _new_id(self) -> str:
        """A new game id: 8 characters of :data:`ID_ALPHABET` (about 40 bits) from :mod:`secrets` (or the test's
        seeded ``rng``). An id names a game in commands; it is never what a web link's secret is made of alone
        (:mod:`bot.storage.weblinks`)."""
        return "".join(self._ids.choice(ID_ALPHABET) for _ in range(8))

    def _busy_message(self, record: Record, user_id: int | None = None) -> str:
        """Why the channel can't take another game, and what ``user_id`` (who asked, if known) can do instead."""
        kind = self.kinds[record.kind]
        acceptable = record.opponent == user_id or (record.opponent is None and record.challenger != user_id)
        if record.status is Status.CHALLENGE and user_id is not None and acceptable:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {name} the challenger's name; {button} the Accept
            # button's label, in bold.
            return (
                _(
                    "{name} has already challenged you to {game} in this channel: press {button} under their "
                    "challenge to play.",
                    name=record.player(record.seat_of(record.challenger) or 0).shown,
                    game=kind.title,
                    button=f"**{p_('button', 'Accept')}**",
                )
                if record.opponent == user_id
                else _(
                    "There is an open {game} challenge by {name} in this channel: press {button} under it to play.",
                    name=record.player(record.seat_of(record.challenger) or 0).shown,
                    game=kind.title,
                    button=f"**{p_('button', 'Accept')}**",
                )
            )
        if record.status is Status.CHALLENGE:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong".
            return _(
                "There is already an open {game} challenge in this channel. Wait for it to be answered or to "
                "expire, or play in another channel.",
                game=kind.title,
            )
        a, b = record.names
        # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first} and {second} the players' names; {board} the
        # command /hongkong board or /hong board (a mention).
        return _(
            "A game of {game} is already running in this channel ({first} vs {second}). Watch it with "
            "{board}, or start yours in another channel.",
            game=kind.title,
            first=a,
            second=b,
            board=naming.command(f"{kind.name} board"),
        )

    async def remember_message(self, channel_id: int, game_id: str, message_id: int) -> None:
        """Note the challenge message's id, so it can be edited when the challenge expires.

        Kept beside the record (not in it), so noting it never races with an Accept click.
        """
        await self.store.remember_message(channel_id, game_id, message_id, int(self.challenge_timeout) + 86400)

    async def challenge_message(self, channel_id: int, game_id: str) -> int | None:
        """The challenge message's id noted by :meth:`remember_message`, if any."""
        return await self.store.challenge_message(channel_id, game_id)

    async def _challenge_for(self, channel_id: int, game_id: str) -> Stored:
        stored = await self.store.get(channel_id)
        if stored is None or stored.record.id != game_id or stored.record.status is not Status.CHALLENGE:
            raise UserError(_("This challenge is no longer open."))
        if self._expired(stored.record):
            # TRANSLATORS: {command} is the command /hongkong challenge or /hong challenge (a mention).
            raise UserError(
                _(
                    "This challenge has expired. Start a new one with {command}.",
                    command=naming.command(f"{stored.record.kind} challenge"),
                )
            )
        return stored

    async def accept(self, channel_id: int, game_id: str, user: Person) -> tuple[Record, Game]:
        """The challenged user (or, for an open challenge, anyone but the challenger) accepts: the game starts.

        Returns the record (status active) and the engine game; the first turn's deadlines are set.

        Raises:
            UserError: not the challenged user, the challenge is gone or expired, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        record = stored.record
        if user.id == record.challenger:
            raise UserError(_("You can't accept your own challenge; you can withdraw it with Decline."))
        if record.opponent is not None and user.id != record.opponent:
            opponent = record.player_of(record.opponent).shown
            raise UserError(_("Only {name} can accept this challenge.", name=opponent))
        players = tuple(p or Player(user.id, user.name) for p in record.players)
        kind = self.kinds[record.kind]
        game = kind.new_game(record.options)
        now = self.clock()
        record = record.replace(
            status=Status.ACTIVE, opponent=user.id, players=players, state=game.to_dict(), started=now, updated=now
        )
        record, effects = await self._starting(record, game, stored.version + 1, self._deadlines_of(stored))
        if await self.store.commit(channel_id, record, stored.version, effects) is None:
            raise GameChanged(_("This challenge changed at the same moment (answered or withdrawn). Look again."))
        return record, game

    async def decline(self, channel_id: int, game_id: str, user_id: int) -> Record:
        """The challenged user declines, or the challenger withdraws; the challenge is removed. Returns its record.

        Raises:
            UserError: someone else clicked, the challenge is gone, or a race was lost.
        """
        stored = await self._challenge_for(channel_id, game_id)
        record = stored.record
        if user_id != record.challenger and (record.opponent is None or user_id != record.opponent):
            if record.opponent is None:
                raise UserError(_("This is an open challenge: accept it to play, or let it expire."))
            raise UserError(_("Only the challenged player can decline this challenge (or the challenger withdraw it)."))
        if (
            await self.store.commit(channel_id, None, stored.version, Effects(cancel=self._deadlines_of(stored)))
            is None
        ):
            raise GameChanged(_("This challenge changed at the same moment. Look again."))
        return record

    async def expire(self, channel_id: int, game_id: str) -> Record | None:
        """Remove the challenge ``game_id`` if it is still open and past its time; returns its record or None."""
        stored = await self.store.get(channel_id)
        if stored is None or stored.record.id != game_id or not self._expired(stored.record):
            return None
        if (
            await self.store.commit(channel_id, None, stored.version, Effects(cancel=self._deadlines_of(stored)))
            is None
        ):
            return None
        return stored.record

    async def move_to_thread(self, record: Record, thread_id: int) -> Record:
        """Move a just-started game from its channel into ``thread_id`` (the game then lives there).

        Returns the record as stored in the thread. If the game changed in the channel meanwhile, it stays
        in the channel and that record is returned.
        """
        channel_id = record.channel_id
        game = self.game_of(record)
        moved = record.replace(channel_id=thread_id, parent_id=channel_id)
        moved, effects = await self._starting(moved, game, 1, ())
        if await self.store.commit(thread_id, moved, 0, effects) is None:
            return record
        stored = await self.store.get(channel_id)
        left = Effects(cancel=self._deadlines_of(stored), settle=(Announcement.start(record).member,), active=False)
        if (
            stored is None
            or stored.record != record
            or await self.store.commit(channel_id, None, stored.version, left) is None
        ):
            await self.store.commit(
                thread_id,
                None,
                1,
                Effects(
                    cancel=self._deadlines_of(Stored(moved, 1)),
                    settle=(Announcement.start(moved).member,),
                    active=False,
                ),
            )
            return record
        return moved

    async def move_to_parent(self, thread_id: int) -> Record | None:
        """Move the running game of the thread ``thread_id`` back into the channel it came from (the bot can't post in
        the thread any more). The game keeps its turn, and the turn its deadlines (at the same times).

        Returns the record as stored in the parent channel, or None if it can't move: no game runs in the thread, it
        didn't come from a channel, the parent has a challenge or game of its own, or the game changed meanwhile.
        """
        stored = await self.store.get(thread_id)
        if stored is None or stored.record.status is not Status.ACTIVE or not stored.record.parent_id:
            return None
        record = stored.record
        parent = stored.record.parent_id
        marker = len(self.game_of(record).moves)
        start, end = record.turn_started or record.updated, record.deadline or record.updated
        schedule = []  # the turn's deadlines still pending (one being handled now included), at the turn's times
        for what, at in (("forfeit", end), ("remind", (start + end) / 2)):
            if await self.deadlines.due(Deadline(what, thread_id, record.id, marker)) is not None:
                schedule.append((Deadline(what, parent, record.id, marker).member, at))
        moved = record.replace(channel_id=parent, parent_id=None)
        if await self.store.commit(parent, moved, 0, Effects(schedule=tuple(schedule), active=True)) is None:
            return None
        left = Effects(cancel=self._deadlines_of(stored), active=False)
        if await self.store.commit(thread_id, None, stored.version, left, guild_id=record.guild_id) is None:
            await self.store.commit(
                parent, None, 1, Effects(cancel=tuple(m for m, _ in schedule), active=False), guild_id=record.guild_id
            )
            return None
        return moved

    # --- moves ------------------------------------------------------------------------------------

    async def turn_of(self, kind: GameKind, channel_id: int, user_id: int) -> tuple[Stored, Game, int]:
        """The channel's game of ``kind`` when it is ``user_id``'s turn in it: ``(stored, game, their seat)`` — what a
        move, or a move's suggestions, starts from.

        Raises:
            UserError: no game of that kind here, a spectator, not their turn, or their time for it ran out.
        """
        stored, game = await self.running(channel_id, kind)
        record = stored.record
        seat = self._player_seat(record, user_id, kind)
        if game.to_move != seat:
            waiting = record.player(game.to_move).shown
            # TRANSLATORS: {name} is the player to move; {role} their side ("blue", "emperor").
            raise UserError(
                _("It's not your turn: {name} ({role}) is to move.", name=waiting, role=kind.role(game.to_move))
            )
        if record.deadline and self.clock() >= record.deadline:
            raise UserError(_("Your time for this turn has run out: the game is being ended as a loss on time."))
        return stored, game, seat

    async def play(
        self, kind: GameKind, channel_id: int, user_id: int, move: str, *, expected_state: dict | None = None
    ) -> Turn:
        """Apply ``move`` for ``user_id`` to the channel's game and commit it atomically.

        Args:
            expected_state: if given, the move is only for this exact engine state (the computer's move, chosen for
                the position it was shown); any other position raises :class:`UserError`.

        Raises:
            UserError: no game, another game kind, a spectator, not their turn, their time ran out, a lost race.
            IllegalMove: the engine's reason the move is malformed or illegal (nothing is stored).
        """
        stored, game, seat = await self.turn_of(kind, channel_id, user_id)
        record = stored.record
        if expected_state is not None and record.state != expected_state:
            raise GameChanged(_("The position changed while the move was being chosen."))
        game.play(move)
        record = record.replace(takeback=None)
        return await self._commit(stored, record, kind, game, Turn(record, game, seat, game.moves[-1]))

    async def resign(self, kind: GameKind, channel_id: int, user_id: int, game_id: str | None = None) -> Turn:
        """``user_id`` resigns; the opponent wins. Returns the finished :class:`Turn`.

        Args:
            game_id: resign only this game (a confirmation pressed later must not end a newer game here).

        Raises:
            UserError: no game, another kind, a spectator, another game than ``game_id``, or a lost race.
        """
        stored, game = await self.running(channel_id, kind)
        if game_id is not None and stored.record.id != game_id:
            raise UserError(_("That game has already ended: there is nothing to resign."))
        seat = self._player_seat(stored.record, user_id, kind)
        return await self._commit(
            stored, stored.record, kind, game, Turn(stored.record, game, seat, None, Event.RESIGNED)
        )

    async def forfeit(self, channel_id: int, game_id: str, marker: int) -> Turn | None:
        """The turn that began after ``marker`` moves ran out of time: the player to move loses.

        Returns the finished :class:`Turn`, or None if that turn is already over (a stale deadline).
        """
        stored = await self.store.get(channel_id)
        if stored is None or not self._same_turn(stored, game_id, marker):
            return None
        kind = self.kinds[stored.record.kind]
        game = self.game_of(stored.record)
        try:
            return await self._commit(
                stored, stored.record, kind, game, Turn(stored.record, game, game.to_move, None, Event.TIMEOUT)
            )
        except UserError:
            return None

    async def reminder_due(self, channel_id: int, game_id: str, marker: int) -> tuple[Record, Game] | None:
        """The game and engine state to remind about, if the turn that began after ``marker`` moves still runs
        and its time is not up (after downtime longer than the turn, the forfeit comes without a stale reminder)."""
        stored = await self.store.get(channel_id)
        if stored is None or not self._same_turn(stored, game_id, marker):
            return None
        if stored.record.deadline is not None and stored.record.deadline <= self.clock():
            return None
        return stored.record, self.game_of(stored.record)

    def _same_turn(self, stored: Stored, game_id: str, marker: int) -> bool:
        return (
            stored.record.id == game_id
            and stored.record.status is Status.ACTIVE
            and len((stored.record.state or {}).get("moves", ())) == marker
        )

    async def abort(self, channel_id: int, by: Person) -> Turn:
        """An admin ends the channel's game, unrated, with nobody winning.

        Raises:
            UserError: no game running here, or a lost race.
        """
        stored, game = await self.running(channel_id)
        kind = self.kinds[stored.record.kind]
        record = stored.record.replace(aborted_by=Player(by.id, by.name))
        return await self._commit(stored, record, kind, game, Turn(record, game, None, None, Event.ABORTED))

    def _player_seat(self, record: Record, user_id: int, kind: GameKind) -> int:
        seat = record.seat_of(user_id)
        if seat is None:
            a, b = record.names
            # TRANSLATORS: {first} and {second} are the players' names; {board} the command /hongkong board or
            # /hong board (a mention).
            raise UserError(
                _(
                    "You're not playing in this game ({first} vs {second}). Watch with {board}, "
                    "or challenge someone in another channel.",
                    first=a,
                    second=b,
                    board=naming.command(f"{kind.name} board"),
                )
            )
        return seat

    async def _timed(self, record: Record, game: Game, start: float) -> tuple[Record, tuple[tuple[str, float], ...]]:
        """The record with its turn starting at ``start`` and its deadline set by the server's turn timer, and that
        turn's deadlines: the forfeit, and the reminder at half time if reminders are on."""
        settings = await self.settings.get(record.guild_id)
        timer = record.turn_timer or settings.turn_timer  # a tournament game's own timer first
        deadline = start + timer
        record = record.replace(turn_started=start, deadline=deadline)
        marker = len(game.moves)
        items = [(Deadline("forfeit", record.channel_id, record.id, marker).member, deadline)]
        if settings.reminders:
            items.append((Deadline("remind", record.channel_id, record.id, marker).member, start + timer / 2))
        return record, tuple(items)

    @staticmethod
    def _deadlines_of(stored: Stored | None) -> tuple[str, ...]:
        """The deadlines a stored record has set (removed by the commit that replaces it)."""
        if stored is None:
            return ()
        record = stored.record
        cid, gid = record.channel_id, record.id
        if record.status is Status.CHALLENGE:
            return (Deadline("expire", cid, gid, 0).member,)
        if record.status is Status.ACTIVE:
            marker = len((record.state or {}).get("moves", ()))
            return tuple(Deadline(what, cid, gid, marker).member for what in ("forfeit", "remind"))
        return ()

    def _computer_entry(self, record: Record, game: Game, version: int, now: float) -> list[tuple[str, float]]:
        """The computer's turn to announce, if the computer is to move in ``game`` (stored at ``version``)."""
        if game.is_over or not record.player(game.to_move).bot:
            return []
        return [self.outbox.entry(Announcement.computer(record, version), now)]

    async def _commit(self, stored: Stored, record: Record, kind: GameKind, game: Game, turn: Turn) -> Turn:
        """Commit ``record`` with ``game``'s state: finished if the game is over or ``turn.event`` ends it.

        In the same atomic step: the old turn's deadlines go and the new turn's are set (or, at the end, the
        channel leaves the active set), and the board post, the computer's reply and a finished game's rating are
        added to the outbox (the returned turn's ``announcement`` is the board post).
        """
        now = self.clock()
        record = record.replace(state=game.to_dict(), updated=now)
        channel_id = stored.record.channel_id
        version = stored.version + 1
        announcement = Announcement("turn", channel_id, record.id, version, len(game.moves), turn.event.value)
        announce = [self.outbox.entry(announcement, now)]
        cancel, settle = self._deadlines_of(stored), (Announcement.computer(record, stored.version).member,)
        if turn.event.ends_game or game.is_over:
            record = record.replace(
                status=Status.FINISHED, ended=now, takeback=None, result=self._result(kind, game, record, turn)
            )
            announce.append(self.outbox.entry(Announcement.result(record), now))
            ok = await self.store.finish(
                channel_id,
                record,
                stored.version,
                Effects(cancel=cancel, settle=settle, announce=tuple(announce), active=False),
            )
        else:
            record, schedule = await self._timed(record, game, now)
            announce += self._computer_entry(record, game, version, now)
            ok = (
                await self.store.commit(
                    channel_id,
                    record,
                    stored.version,
                    Effects(cancel=cancel, settle=settle, schedule=schedule, announce=tuple(announce)),
                )
                is not None
            )
        if not ok:
            raise GameChanged(
                _(
                    "The game changed at the same moment (another move, takeback or answer landed "
                    "first). Look at the board and try again."
                )
            )
        return Turn(record, game, turn.player, turn.move, turn.event, announcement, turn.undone)

    @staticmethod
    def _result(kind: GameKind, game: Game, record: Record, turn: Turn) -> Result:
        """How the game ends, its text stored in English (posts say it in their own language: :func:`result_text`)."""
        if turn.event in (Event.RESIGNED, Event.TIMEOUT):
            if turn.player is None:
                raise ValueError(f"a {turn.event.value} turn names no player")
            winner, reason = 1 - turn.player, EndReason(turn.event.value)
        elif turn.event is Event.ABORTED:
            winner, reason = None, EndReason.ABORTED
        else:
            winner, reason = game.winner, EndReason.FINISHED
        result = Result(winner, reason, "")
        with i18n.language(i18n.SOURCE):
            return dataclasses.replace(result, text=result_text(kind, record.replace(result=result), game))

    async def announced(self, announcement: Announcement) -> tuple[Record, Game, Turn | None] | None:
        """What a ``turn`` announcement of the outbox should post now: ``(record, game, turn)`` — ``turn`` None for a
        game's first board — or None if it is stale (the game went on or was replaced: a later post shows it).

        A running game's post is current while its move count is the announced one; a finished game's only for
        the change that ended it.
        """
        a = announcement
        stored = await self.store.get(a.channel_id)
        if stored is not None and stored.record.id == a.game_id and stored.record.status is Status.ACTIVE:
            record, game = stored.record, self.game_of(stored.record, history=True)  # turn_start() undoes moves
            if len(game.moves) != a.moves:
                return None
            if a.event == START:
                return record, game, None
        else:
            finished = await self.store.finished(a.channel_id, a.game_id)
            if finished is None or finished.result is None or a.event == START:
                return None
            record, game = finished, self.game_of(finished, history=True)
            reason = finished.result.reason
            ending = Event.MOVE.value if reason is EndReason.FINISHED else reason.value
            if len(game.moves) != a.moves or a.event != ending:
                return None
        event = Event(a.event)
        if event in (Event.MOVE, Event.TAKEBACK):
            last = turn_start(game)
            player = game.to_move if event is Event.TAKEBACK else (last[1] if last else None)
            move = game.moves[-1] if event is Event.MOVE and game.moves else None
        else:
            player = None if record.result is None or record.result.winner is None else 1 - record.result.winner
            move = None
        return record, game, Turn(record, game, player, move, event, a)

    async def rearm(self) -> int:
        """Make sure every open challenge and running game has its deadlines (``ZADD NX``: a deadline already set
        keeps its time) and its place in the server's active set, and that the computer moves where it is to
        move (its turn made due now). At start-up and, in one process at a time, periodically: it covers records
        from before deadlines were written with the commit, and anything given up. A SCAN of every record:
        never on a move's path. Returns how many records were checked.
        """
        count = 0
        for channel_id in await self.store.channels_with_records():
            stored = await self.store.get(channel_id)
            if stored is None:
                continue
            record = stored.record
            count += 1
            if record.status is Status.CHALLENGE:
                expires = record.expires or record.updated  # (a stored challenge has its expiry: Record checks it)
                await self.deadlines.schedule(
                    (Deadline("expire", channel_id, record.id, 0), expires), only_new=True, guild_id=record.guild_id
                )
            elif record.status is Status.ACTIVE:
                settings = await self.settings.get(record.guild_id)
                game = self.kinds[record.kind].load(record.game_state, replay=False)  # checked when first played
                marker = len(game.moves)
                start = record.turn_started or record.updated
                forfeit_at = record.deadline or start + settings.turn_timer
                items = [(Deadline("forfeit", channel_id, record.id, marker), forfeit_at)]
                remind_at = start + settings.turn_timer / 2
                if settings.reminders and remind_at > self.clock():  # a past reminder has been sent: not twice
                    items.append((Deadline("remind", channel_id, record.id, marker), remind_at))
                await self.deadlines.schedule(*items, only_new=True, guild_id=record.guild_id)
                await self.store.mark_active(record.guild_id, channel_id)
                if not game.is_over and record.player(game.to_move).bot:
                    await self.outbox.resume(Announcement.computer(record, stored.version), record.guild_id)
        return count

    # --- takebacks --------------------------------------------------------------------------------

    async def request_takeback(self, channel_id: int, user_id: int) -> tuple[Record, int] | Turn:
        """The caller asks to undo their last turn. Returns the record and the opponent's seat (who answers) —
        or, against the computer (which always agrees), the :class:`Turn` of the undone position at once.

        One request a turn: a request refused, waiting or run out is this turn's (the record keeps it until the
        turn ends); its expiry is a deadline (``takeback``), so its message can say when it ran out.

        Raises:
            UserError: no game, a spectator, nothing of theirs to take back (the opponent has moved since, or no
                turn yet), a dragon summon in the middle of the turn, or already asked this turn.
        """
        stored, game = await self.running(channel_id, history=True)  # turn_start() undoes moves
        record = stored.record
        kind = self.kinds[record.kind]
        seat = self._player_seat(record, user_id, kind)
        if game.pending is not None:
            raise UserError(_("A dragon summon is in progress: finish the turn before asking for a takeback."))
        mine = turn_start(game, seat)
        if mine is None:
            raise UserError(_("You haven't played a turn yet: there is nothing to take back."))
        if record.player(1 - seat).bot:
            # against the computer: back to the start of the caller's last turn (undoing the computer's reply too)
            undone = tuple(game.truncate(mine[0]))
            record = record.replace(takeback=None)
            return await self._commit(
                stored, record, kind, game, Turn(record, game, seat, None, Event.TAKEBACK, undone=undone)
            )
        last = turn_start(game)
        if last is None or last[1] != seat:
            raise UserError(_("You can only take back your own last turn, before your opponent has moved."))
        asked = record.takeback
        if asked and asked.by == seat and asked.moves == len(game.moves):
            opponent = record.player(1 - seat).shown
            if asked.refused:
                raise UserError(
                    _(
                        "You have already asked for a takeback this turn, and {name} refused it. Play on: "
                        "you can ask again after your next turn.",
                        name=opponent,
                    )
                )
            if asked.expires > self.clock():
                raise UserError(_("Your takeback request is waiting for {name} to answer.", name=opponent))
            raise UserError(
                _(
                    "You have already asked for a takeback this turn, and {name} didn't answer in time. "
                    "Play on: you can ask again after your next turn.",
                    name=opponent,
                )
            )
        request = Takeback(
            by=seat, moves=len(game.moves), expires=self.clock() + TAKEBACK_TIMEOUT, nonce=self._new_id()[:4]
        )
        record = record.replace(takeback=request)
        runs_out = Effects(
            schedule=((Deadline("takeback", channel_id, record.id, request.moves).member, request.expires),)
        )
        if await self.store.commit(channel_id, record, stored.version, runs_out) is None:
            raise GameChanged(_("The game changed at the same moment. Look at the board and try again."))
        return record, 1 - seat

    async def answer_takeback(
        self, channel_id: int, game_id: str, moves: int, user_id: int, accept: bool, nonce: str | None = None
    ) -> Turn | Record:
        """The opponent answers a takeback request. Accepted → the last turn is undone (a :class:`Turn` with
        event takeback); refused → the request stays in the record, marked refused (the record is returned): the
        same player can't ask again this turn.

        Raises:
            UserError: not the opponent, the request is gone or expired, or the game moved on.
        """
        stored = await self.store.get(channel_id)
        live = stored is not None and stored.record.id == game_id and stored.record.status is Status.ACTIVE
        request = stored.record.takeback if stored is not None and live else None
        if (
            stored is None
            or request is None
            or request.refused
            or request.moves != moves
            or (nonce is not None and request.nonce != nonce)
        ):
            raise UserError(_("This takeback request is no longer open."))
        if request.expires <= self.clock():
            raise UserError(_("This takeback request has expired."))
        record = stored.record
        if record.seat_of(user_id) != 1 - request.by:
            raise UserError(
                _("Only {name} can answer this takeback request.", name=record.player(1 - request.by).shown)
            )
        if not accept:
            record = record.replace(takeback=dataclasses.replace(request, refused=True))
            if await self.store.commit(channel_id, record, stored.version) is None:
                raise GameChanged(_("The game changed at the same moment. Look again."))
            return record
        record = record.replace(takeback=None)
        kind = self.kinds[record.kind]
        game = self.game_of(record, history=True)
        start = turn_start(game)
        if start is None:  # (a request is made after a turn: there is one to undo)
            raise UserError(_("This takeback request is no longer open."))
        undone = tuple(game.truncate(start[0]))
        return await self._commit(
            stored, record, kind, game, Turn(record, game, request.by, None, Event.TAKEBACK, undone=undone)
        )

    # --- rematch ----------------------------------------------------------------------------------

    async def rematch(self, channel_id: int, game_id: str, user: Person) -> tuple[Record, Game] | Player:
        """A player of the finished game ``game_id`` asks for a rematch. When both have asked, a new game starts in
        the same channel with the first player (or the roles) swapped: returns ``(record, game)``. Otherwise returns
        the player still to click (to be asked once).

        Raises:
            UserError: not one of the players, the game is unknown, this player has asked already (and the other
                not yet), the channel is busy, or the rematch already started.
        """
        old = await self.store.finished(channel_id, game_id)
        if old is None:
            raise UserError(_("That game is not found any more."))
        seat = old.seat_of(user.id)
        if seat is None:
            raise UserError(_("Only the two players of that game can ask for a rematch."))
        other = old.player(1 - seat)
        voters, started = await self.store.rematch_state(channel_id, game_id)  # refused before anything is written
        if started:
            raise UserError(_("The rematch has already started."))
        if user.id in voters and other.id not in voters and not other.bot:
            raise UserError(
                _("You have already asked for a rematch: waiting for {name} to press Rematch too.", name=other.shown)
            )
        new, votes = await self.store.vote_rematch(channel_id, game_id, user.id, *([other.id] if other.bot else []))
        if votes < 2:  # the computer always agrees
            if not new:
                raise UserError(
                    _(
                        "You have already asked for a rematch: waiting for {name} to press Rematch too.",
                        name=other.shown,
                    )
                )
            return other
        if not await self.store.claim_rematch(channel_id, game_id):
            raise UserError(_("The rematch has already started."))
        kind = self.kinds[old.kind]
        swap, options = kind.rematch(old.options, self.rng)
        players = (old.players[1], old.players[0]) if swap else old.players
        game = kind.new_game(options)
        now = self.clock()
        record = Record(
            id=self._new_id(),
            kind=kind.name,
            status=Status.ACTIVE,
            guild_id=old.guild_id,
            channel_id=channel_id,
            parent_id=old.parent_id,
            challenger=old.challenger,
            opponent=old.opponent,
            players=players,
            options=options,
            state=game.to_dict(),
            created=now,
            updated=now,
            started=now,
            rematch_of=game_id,
        )
        try:
            return await self._start(channel_id, record, game, None), game
        except GameChanged:
            await self.store.release_rematch(channel_id, game_id)
            current = await self.store.get(channel_id)
            raise UserError(self._busy_message(current.record) if current else _("The channel is busy; try again."))


__all__ = ["GameLayer", "UserError", "GameChanged", "Person", "Turn", "IllegalMove", "turn_start", "result_text"]
