"""The play cog: challenges, moves, boards, threads, rematches, takebacks — the Discord side of playing a game.

Parse, call the game layer (:class:`bot.core.session.GameLayer`, Discord-free), reply. Refusals are raised as
:class:`bot.core.errors.UserError` (or the engine's ``IllegalMove``) and answered by the one error path.

Every command and button that changes a game answers first (:func:`bot.interface.answers.before_change`, set before calling the
game layer): the layer's checks run, the interaction is acknowledged, and only then is the change committed — an
interaction Discord no longer takes changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
from contextlib import nullcontext
from typing import TYPE_CHECKING, Callable

import discord
from discord import app_commands
from discord.ext import commands

from ...interface import answers, mentions
from ...interface.buttons import view
from ...core.errors import UserError
from ...i18n import _, p_
from ...core.kinds import Game, GameKind
from ...interface.options import level_name, person
from ...storage.outbox import Announcement
from ...interface.posts import (
    board_file,
    board_name,
    board_picture,
    follow_up,
    nonce,
    post_first_board,
    post_nonce,
    post_turn,
    send_in_channel,
    send_quietly,
    sides,
    starts_with_board,
    status_line,
    time_runs_out,
    watch,
    watch_view,
)
from ...interface.board_pool import default_workers, renderer
from ...interface.replies import refuse
from ...core.record import Event, Player, Record, Status
from ...core.session import TAKEBACK_TIMEOUT, Person, Turn, result_text, turn_start
from ...storage.settings import RESIGN_CONFIRMATION
from ...i18n.wording import describe_duration, jump_link, shown_user, when
from ...interface.mentions import MENTION_PLAYERS, NO_MENTIONS
from ._buttons import BUTTONS, ChallengeButton, RematchButton, ResignButton, TakebackButton
from . import _rules as rules_pages
from ._learn import BUTTONS as LESSON_BUTTONS
from ._computer import Computer
from . import _takebacks as takebacks
from ._groups import game_group
from ._language import public
from ._reach import gone, listed, require_postable, unpostable
from ._reconciler import Reconciler
from ._timers import Timers
from ...interface.options import channel_id, guild_id

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)

#: Discord's error when a thread was already started from a message (a retry of one made before a 5xx answer).
THREAD_EXISTS = 160004


class Play(commands.Cog):
    """Everything about playing a game on Discord: one ``/<game>`` group per hosted game, ``/takeback``, the
    buttons, the computer's turns and the turn timers.

    Args:
        bot: the bot; uses its shared ``layer`` and ``kinds`` and its ``poll_interval`` (seconds between checks
            for due deadlines).
    """

    def __init__(self, bot: "HongBot") -> None:
        self.bot = bot
        self.layer = bot.layer
        workers = bot.config.computer_workers
        self.computer = Computer(self.layer, self.post_turn, default_workers() if workers is None else workers)
        self.timers = Timers(bot, self.layer, self.post_turn, bot.poll_interval)
        self.reconciler = Reconciler(bot, self.layer, self.post_turn, self.post_board, self.computer, bot.poll_interval)
        self.__cog_app_commands__.extend(game_group(kind, self) for kind in bot.kinds.values())

    async def cog_load(self) -> None:
        """Buttons, then every game's deadlines checked (and the computer's turns made due), then the deadlines
        and the outbox polled (the reconciler makes what an earlier run left unannounced)."""
        self.bot.add_dynamic_items(*BUTTONS, *rules_pages.BUTTONS, *LESSON_BUTTONS)
        log.info("checked the deadlines of %d challenge(s) and game(s)", await self.layer.rearm())
        self.timers.start()
        self.reconciler.start()

    async def cog_unload(self) -> None:
        """Stop the timers — a deadline being handled finishes first (a few seconds at most) — and the
        computer's thinking."""
        self.bot.remove_dynamic_items(*BUTTONS, *rules_pages.BUTTONS, *LESSON_BUTTONS)
        await self.timers.stop()
        await self.reconciler.stop()
        self.computer.close()

    # --- posting ----------------------------------------------------------------------------------

    async def post_turn(
        self, interaction: discord.Interaction | None, kind: GameKind, turn: Turn, *, reply: str | None = None
    ) -> bool:
        """Post a committed turn (:func:`bot.interface.posts.post_turn`, never raises; ``reply``: its interaction left on
        "thinking…", see there); then, if the computer is to move, let it. True if the board was posted."""
        try:
            posted = await post_turn(self.bot, interaction, kind, turn, reply=reply)
            if not posted:  # the bot may have lost the channel: then the game ends without a result (._reach)
                await unpostable(self.bot, self.layer, turn)
            return posted
        finally:
            self.computer.to_move(turn.record, turn.game)
            if turn.event is Event.MOVE and not turn.finished:  # (a finished game: on_game_finished)
                await takebacks.close_stale(self.bot, self.layer, turn.record, turn.player)

    async def post_board(self, kind: GameKind, game: Game, record: Record, announcement: Announcement) -> bool:
        """Post a game's first board in its channel (the reconciler, when the start's post was not made), and mark
        it done. True if posted."""
        async with public(self.bot, self.layer, record.guild_id):
            await post_first_board(self.bot, kind, game, record, announcement, self._begins(kind, record))
        await self.layer.outbox.done(announcement)
        self.computer.to_move(record, game)
        return True

    @staticmethod
    def _begins(kind: GameKind, record: Record) -> str:
        """The first line of a game's first board."""
        # TRANSLATORS: {game} is the game's name ("Hong Kong", "Hong"); {sides} a sentence saying who plays what.
        return _("**{game}** — the game begins! {sides}", game=kind.title, sides=sides(kind, record))

    async def post_start(
        self, interaction: discord.Interaction, kind: GameKind, game: Game, record: Record, heading: Callable[[], str]
    ) -> None:
        """Post a new game's first board as the interaction's follow-up (after deferring, if not done yet), in the
        server's language (``heading()`` is its first line, made in that language)."""
        announcement = Announcement.start(record)
        try:
            async with public(self.bot, self.layer, record.guild_id):
                await answers.defer(interaction, thinking=True)
                text = f"{heading()}\n{status_line(kind, game, record)}"
                await follow_up(
                    self.bot,
                    interaction,
                    text,
                    data=await board_picture(kind, game, record) if starts_with_board(game, record) else None,
                    name=board_name(kind, announcement),
                    allowed_mentions=MENTION_PLAYERS,
                    **watch(await watch_view(self.bot, record)),
                )
        except Exception:  # the game is stored: its first board is posted by the reconciler
            log.exception("posting the first board of game %s failed; the reconciler posts it", record.id)
            await refuse(
                interaction,
                _(
                    "The game is saved and has started. I couldn't post its board just now; it "
                    "will be posted in this channel shortly."
                ),
            )
        else:
            await self.layer.outbox.done(announcement)
            self.computer.to_move(record, game)

    @commands.Cog.listener()
    async def on_game_finished(self, record: Record) -> None:
        """A game has ended: close its open takeback request; if it was played in a thread, say so in the channel
        the thread came from (unless the bot ended it, unable to reach it: :func:`._reach.end_unreachable` says
        why there; or that channel is gone)."""
        await takebacks.close_stale(self.bot, self.layer, record)
        ended_by_us = record.aborted_by is not None and record.aborted_by.id == self.bot.me.id
        if record.parent_id and not ended_by_us and not gone(self.bot, record.guild_id, record.parent_id):
            # (a game the bot ended because it couldn't reach it is told once, by ._reach, with the reason)
            kind = self.layer.kinds[record.kind]
            a, b = record.names
            async with public(self.bot, self.layer, record.guild_id):
                # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first} and {second} the players' names; {result}
                # a sentence saying who won; {link} a link to the game's thread.
                text = _(
                    "**{game}** {first} vs {second} has ended: {result} {link}",
                    game=kind.title,
                    first=a,
                    second=b,
                    result=result_text(kind, record),
                    link=jump_link(record.guild_id, record.channel_id),
                )
            await send_quietly(self.bot, record.parent_id, text, nonce=post_nonce("e", record.id))

    # --- challenges -------------------------------------------------------------------------------

    async def challenge(
        self,
        interaction: discord.Interaction,
        kind: GameKind,
        opponent: discord.abc.User | None,
        options: dict,
        level: str | None = None,
    ) -> None:
        """Open a challenge and post it publicly with Accept/Decline (for the opponent, or anyone if open);
        challenging the bot itself starts a game against the computer at once.

        Raises:
            UserError: in a DM, the bot lacking a permission it needs in the channel, ``level`` without the
                computer, an opponent who is not a member or is a bot, or the game layer's refusals (busy channel,
                yourself).
        """
        me = self.bot.me
        settings = await self.layer.settings.get(guild_id(interaction))
        against_computer = opponent is not None and opponent.id == me.id  # played here, never in a thread
        require_postable(interaction, threads=settings.threads and not against_computer)
        if opponent is not None and opponent.id == me.id:
            await self.computer_game(interaction, kind, options, level or "medium")
            return
        if level is not None:
            # TRANSLATORS: {option} is the option "level" as Discord shows it in this language; {bot} the bot's mention.
            raise UserError(
                _(
                    "`{option}` is for games against the computer: challenge {bot} to play it.",
                    option=mentions.option(f"{kind.name} challenge", "level"),
                    bot=me.mention,
                )
            )
        if opponent is not None and not isinstance(opponent, discord.Member):
            raise UserError(
                _("{user} is not a member of this server, so they can't play here.", user=shown_user(opponent))
            )
        if opponent is not None and opponent.bot:
            raise UserError(_("{user} is a bot and can't play. Challenge a person instead.", user=shown_user(opponent)))
        record = await self.layer.challenge(
            kind,
            guild_id=guild_id(interaction),
            channel_id=channel_id(interaction),
            challenger=person(interaction.user),
            opponent=person(opponent) if opponent else None,
            options=options,
        )
        async with public(self.bot, self.layer, record.guild_id):  # the channel reads it: the server's language
            options_text = kind.describe_options(record.options)
            game_text = f"**{kind.title}**" + (f" ({options_text})" if options_text else "")
            fields = dict(
                challenger=interaction.user.mention,
                game=game_text,
                sides=sides(kind, record, you=record.opponent),
                when=when(record.expires or self.layer.clock() + self.layer.challenge_timeout),
            )
            if opponent:
                opponent_mention = f"<@{record.opponent}>"
                # TRANSLATORS: {opponent} and {challenger} are mentions; {game} the game's name in bold with its
                # options, e.g. "**Hong** (role: random)"; {sides} a sentence saying who plays what; {when} a
                # moment Discord shows relative to now in the reader's language: "in 10 minutes".
                text = _(
                    "{opponent}, {challenger} challenges you to {game}. {sides} This challenge expires {when}.",
                    opponent=opponent_mention,
                    **fields,
                )
            else:
                # TRANSLATORS: {challenger} is a mention; {game} the game's name in bold with its options, e.g.
                # "**Hong** (role: random)"; {sides} a sentence saying who plays what; {when} a moment Discord shows
                # relative to now in the reader's language: "in 10 minutes".
                text = _(
                    "{challenger} is looking for an opponent for {game}: anyone may accept. {sides} This "
                    "challenge expires {when}.",
                    **fields,
                )
            buttons = view(ChallengeButton("accept", record.id), ChallengeButton("decline", record.id))
        # only the challenged member is pinged: never the challenger, nor anyone for an open challenge
        pinged = (
            discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(record.opponent)])
            if record.opponent
            else NO_MENTIONS
        )
        message = await answers.send(interaction, text, view=buttons, allowed_mentions=pinged)
        try:
            message = message or await interaction.original_response()
            await self.layer.remember_message(channel_id(interaction), record.id, message.id)
        except discord.HTTPException:
            log.warning("could not read back challenge message for %s", record.id)

    async def computer_game(self, interaction: discord.Interaction, kind: GameKind, options: dict, level: str) -> None:
        """Start a game against the computer at ``level`` in this channel and post its first board."""
        me = self.bot.me
        record, game = await self.layer.start_computer_game(
            kind,
            guild_id=guild_id(interaction),
            channel_id=channel_id(interaction),
            human=person(interaction.user),
            computer=Person(me.id, "Computer"),
            level=level,
            options=options,
        )
        # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {level} the computer's level (easy, medium, hard); {sides}
        # a sentence saying who plays what.
        await self.post_start(
            interaction,
            kind,
            game,
            record,
            lambda: _(
                "**{game}** against the computer ({level}, unrated): {sides}",
                game=kind.title,
                level=level_name(level),
                sides=sides(kind, record),
            ),
        )

    async def answer_challenge(self, interaction: discord.Interaction, action: str, game_id: str) -> None:
        """Accept or Decline pressed: start the game and post its first board (in a thread of its own if the
        server wants one), or close the challenge.

        Raises:
            UserError: the challenge is gone, expired or not the presser's to answer, or the bot can't post here.
        """
        answers.before_change(interaction)
        if action == "decline":
            record = await self.layer.decline(channel_id(interaction), game_id, interaction.user.id)
            async with public(self.bot, self.layer, record.guild_id):
                fields = dict(game=self.layer.kinds[record.kind].title, user=shown_user(interaction.user))
                if interaction.user.id == record.challenger:
                    # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {user} the challenger's name.
                    content = _("~~{game} challenge~~ — {user} withdrew it.", **fields)
                else:
                    # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {user} the name of who declined.
                    content = _("~~{game} challenge~~ — {user} declined it.", **fields)
            await answers.edit(interaction, content=content, view=None, allowed_mentions=NO_MENTIONS)
            return
        require_postable(interaction)  # without thread permissions the game is played here (see _open_thread)
        try:
            record, game = await self.layer.accept(channel_id(interaction), game_id, person(interaction.user))
        except UserError:  # lost a race, or too late — to this same person's other press?
            if await self._started_by_another_press(interaction, game_id):
                return  # a double click: the first press's answer starts the game; this one needs no refusal
            raise
        kind = self.layer.kinds[record.kind]
        a, b = record.names
        async with public(self.bot, self.layer, record.guild_id):  # the challenge's message: the server's language
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {sides} a sentence saying who plays what.
            header = _("**{game}**: challenge accepted. {sides}", game=kind.title, sides=sides(kind, record))
            await answers.edit(interaction, content=header, view=None, allowed_mentions=NO_MENTIONS)
            settings = await self.layer.settings.get(record.guild_id)
            thread = await self._open_thread(interaction, record, kind) if settings.threads else None
            if thread is not None:
                record = await self.layer.move_to_thread(record, thread.id)
                if record.channel_id == thread.id:
                    announcement = Announcement.start(record)
                    await send_in_channel(
                        self.bot,
                        thread.id,
                        f"{self._begins(kind, record)}\n{status_line(kind, game, record)}",
                        nonce=nonce(announcement),
                        data=await board_picture(kind, game, record),
                        name=board_name(kind, announcement),
                        allowed_mentions=MENTION_PLAYERS,
                        **watch(await watch_view(self.bot, record)),
                    )
                    await self.layer.outbox.done(announcement)
                    await follow_up(
                        self.bot,
                        interaction,
                        # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first}, {second} the players' names;
                        # {thread} a link to the game's thread.
                        _(
                            "**{game}** {first} vs {second} has started in its own thread: {thread}",
                            game=kind.title,
                            first=a,
                            second=b,
                            thread=thread.mention,
                        ),
                        allowed_mentions=NO_MENTIONS,
                    )
                    return
        await self.post_start(interaction, kind, game, record, lambda: self._begins(kind, record))

    async def _open_thread(
        self, interaction: discord.Interaction, record: Record, kind: GameKind
    ) -> discord.Thread | None:
        """A public thread for the game from the challenge message, or None (after saying why) if not possible."""
        if isinstance(interaction.channel, discord.Thread):
            return None  # already in a thread: play here
        if not interaction.app_permissions.create_public_threads:
            await follow_up(
                self.bot,
                interaction,
                # TRANSLATORS: {permission} is Discord's name of the permission, in bold.
                _(
                    "Threads are on for this server, but I don't have the {permission} permission in this channel, so "
                    "the game is played here instead.",
                    permission=listed(["Create Public Threads"]),
                ),
                allowed_mentions=NO_MENTIONS,
            )
            return None
        a, b = record.plain_names  # a thread's name shows no markdown
        # TRANSLATORS: a game thread's name; {game} is "Hong Kong" or "Hong", {first} and {second} the players.
        name = _("{game}: {first} vs {second}", game=kind.title, first=a, second=b)
        message = interaction.message  # (the challenge's: Accept was pressed on it)
        if message is None:
            return None
        try:
            return await message.create_thread(name=name[:100], auto_archive_duration=1440)
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS:  # discord.py's retry after a 5xx: the thread was made (the message's id)
                with contextlib.suppress(discord.HTTPException):
                    thread = await self.bot.fetch_channel(message.id)
                    if isinstance(thread, discord.Thread):
                        return thread
            await follow_up(
                self.bot,
                interaction,
                # TRANSLATORS: {error} is Discord's error message (English) or its HTTP status.
                _(
                    "I couldn't open a thread for this game ({error}), so it is played here instead.",
                    error=exc.text or exc.status,
                ),
                allowed_mentions=NO_MENTIONS,
            )
            return None

    # --- moves ------------------------------------------------------------------------------------

    async def play(self, interaction: discord.Interaction, kind: GameKind, move: str) -> None:
        """Check and commit ``move`` for the caller, then post the new board publicly.

        Raises:
            UserError, IllegalMove: not the caller's game or turn, or not a legal move (nothing is stored).
        """
        answers.note_move(interaction, move)
        answers.before_change(interaction, private=renderer.busy)
        turn = await self.layer.play(kind, channel_id(interaction), interaction.user.id, move)
        await self.post_turn(interaction, kind, turn)

    async def board(self, interaction: discord.Interaction, ephemeral: bool = False) -> None:
        """Anyone: the channel's current board (of whichever game runs here) — in public (spectating is a feature),
        or with ``ephemeral`` to the caller alone.

        Raises:
            UserError: no game running here.
        """
        stored, game = await self.layer.running(channel_id(interaction), history=True)  # turn_number() undoes moves
        record = stored.record
        kind = self.layer.kinds[record.kind]
        await answers.defer(interaction, thinking=True, ephemeral=ephemeral)
        a, b = record.names
        seat = game.to_move
        # shown to the caller alone: the caller's language; to the channel: the server's
        async with nullcontext() if ephemeral else public(self.bot, self.layer, record.guild_id):
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first}, {second} the players; {turn} a number;
            # {player} the name of the player to move and {role} their side (e.g. "blue", "emperor").
            text = _(
                "**{game}**: {first} vs {second}, turn {turn} — {player} ({role}) to move.",
                game=kind.title,
                first=a,
                second=b,
                turn=kind.turn_number(game),
                player=record.player(seat).shown,
                role=kind.role(seat),
            )
            if record.deadline:
                text += " " + time_runs_out(record.deadline)
            text += f"\n{kind.score(game, record.names)}"
            ask = "" if record.player(seat).bot else kind.prompt(game, record.names)
            if ask:
                text += f"\n{ask}"
            if ephemeral:  # seen by the caller alone: discord.py's own retry (a rare duplicate only they see)
                await answers.send(
                    interaction,
                    text[:2000],
                    file=await board_file(kind, game, record),
                    ephemeral=True,
                    allowed_mentions=NO_MENTIONS,
                )
            else:  # the channel's: once (the file is always board.png: found by its text)
                await follow_up(
                    self.bot,
                    interaction,
                    text,
                    data=await board_picture(kind, game, record),
                    by_text=True,
                    allowed_mentions=NO_MENTIONS,
                    **watch(await watch_view(self.bot, record)),
                )

    async def rules(self, interaction: discord.Interaction, kind: GameKind, ephemeral: bool = True) -> None:
        """``/<game> rules``: page 1 of ``kind``'s rules, to the caller alone (``ephemeral``, the default: in their
        language) or to the channel (in the server's), with Previous/Next that only the caller turns."""
        async with nullcontext() if ephemeral else public(self.bot, self.layer, interaction.guild_id):
            message = await rules_pages.page_message(kind, 0, interaction.user.id)
        await answers.send(interaction, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS, **message)

    async def turn_rules_page(self, interaction: discord.Interaction, button: rules_pages.RulesButton) -> None:
        """Previous/Next under the rules: the page the button names, in the same message.

        Raises:
            UserError: someone other than the caller pressed, or the game is no longer hosted.
        """
        kind = self.layer.kinds.get(button.kind)
        if kind is None or not kind.rules:
            raise UserError(_("These rules are no longer available."))
        rules_pages.check_owner(kind, button, interaction.user.id)
        ephemeral = interaction.message is not None and interaction.message.flags.ephemeral
        async with nullcontext() if ephemeral else public(self.bot, self.layer, interaction.guild_id):
            message = await rules_pages.page_message(kind, button.page, button.user_id)
        files = message.pop("files")
        await answers.edit(interaction, attachments=files, allowed_mentions=NO_MENTIONS, **message)

    async def resign(self, interaction: discord.Interaction, kind: GameKind) -> None:
        """The caller asks to resign the channel's game: a private question with Confirm / Cancel, open for
        :data:`bot.storage.settings.RESIGN_CONFIRMATION` seconds (one mis-tap never ends a game).

        Raises:
            UserError: no game of this kind here, or the caller is not playing.
        """
        stored, _game = await self.layer.running(channel_id(interaction), kind)
        record = stored.record
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            a, b = record.names
            # TRANSLATORS: {first} and {second} are the players' names.
            raise UserError(
                _(
                    "You're not playing in this game ({first} vs {second}), so there is nothing for you to resign.",
                    first=a,
                    second=b,
                )
            )
        opponent = record.player(1 - seat)
        expires = int(self.layer.clock()) + RESIGN_CONFIRMATION
        buttons = view(ResignButton("yes", record.id, expires), ResignButton("no", record.id, expires))
        fields = dict(game=kind.title, opponent=opponent.shown, when=when(expires))
        if opponent.bot:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {opponent} a name; {when} a moment Discord shows relative
            # to now in the reader's language: "in a minute".
            question = _(
                "Resign your **{game}** game against {opponent}? It ends the game as a loss. This question "
                "closes {when}.",
                **fields,
            )
        else:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {opponent} a name; {when} a moment Discord shows relative
            # to now in the reader's language: "in a minute".
            question = _(
                "Resign your **{game}** game against {opponent}? It ends the game as a loss and counts for "
                "the ratings. This question closes {when}.",
                **fields,
            )
        await answers.send(interaction, question, view=buttons, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def answer_resign(self, interaction: discord.Interaction, button: ResignButton) -> None:
        """Confirm / Cancel pressed under the resignation question: Cancel (or a Confirm pressed too late) changes
        nothing and says so; Confirm resigns that game — never a newer one — and posts its last board.

        Raises:
            UserError: the game has ended, or the presser is not playing it.
        """
        stored = await self.layer.store.get(channel_id(interaction))
        kind = self.layer.kinds[stored.record.kind] if stored else None
        if button.answer == "no":
            await answers.edit(interaction, content=_("Resignation cancelled: play on."), view=None)
            return
        if self.layer.clock() > button.expires:
            after = describe_duration(RESIGN_CONFIRMATION)
            if kind:
                command = mentions.command(f"{kind.name} resign")
                # TRANSLATORS: {duration} is e.g. "1 minute"; {command} the command /hong resign (a mention).
                content = _(
                    "This confirmation expired after {duration}: nothing happened. Use {command} again if you "
                    "still want to resign.",
                    duration=after,
                    command=command,
                )
            else:
                # TRANSLATORS: {duration} is e.g. "1 minute".
                content = _(
                    "This confirmation expired after {duration}: nothing happened. Use the resign command "
                    "again if you still want to resign.",
                    duration=after,
                )
            await answers.edit(interaction, content=content, view=None)
            return
        if stored is None or kind is None or stored.record.id != button.game_id:
            raise UserError(_("That game has already ended: there is nothing to resign."))
        answers.before_change(interaction)
        turn = await self.layer.resign(kind, channel_id(interaction), interaction.user.id, button.game_id)
        await answers.edit(interaction, content=_("You resigned."), view=None)
        await self.post_turn(interaction, kind, turn)

    async def caller_turn(self, interaction: discord.Interaction, kind: GameKind) -> Game:
        """For autocomplete: the engine game when it is the caller's turn in this channel's game of ``kind``.

        Raises:
            UserError: why not — no such game here, a spectator, not their turn (:meth:`GameLayer.turn_of`).
        """
        _stored, game, _seat = await self.layer.turn_of(kind, channel_id(interaction), interaction.user.id)
        return game

    # --- rematch and takeback ---------------------------------------------------------------------

    async def rematch(self, interaction: discord.Interaction, game_id: str) -> None:
        """Rematch pressed: note the vote, or (both players having pressed) start and post the new game.

        Raises:
            UserError: not a player of that game, the game is gone, the channel is busy, already started, or the
                bot can't post here.
        """
        require_postable(interaction)
        answers.before_change(interaction)
        result = await self.layer.rematch(channel_id(interaction), game_id, person(interaction.user))
        if isinstance(result, Player):  # asked once, with a ping; a second press is refused privately
            async with public(self.bot, self.layer, interaction.guild_id):
                asked, button = f"<@{result.id}>", f"**{p_('button', 'Rematch')}**"
                # TRANSLATORS: {opponent} is a mention, {user} a name; {button} the Rematch button's label, in bold.
                text = _(
                    "{opponent}, {user} wants a rematch: press {button} to play again.",
                    opponent=asked,
                    user=shown_user(interaction.user),
                    button=button,
                )
                buttons = view(RematchButton(game_id))
            message = await answers.send(interaction, text, view=buttons, allowed_mentions=MENTION_PLAYERS)
            try:  # noted so the request is retired when the rematch starts
                message = message or await interaction.original_response()
                await self.layer.store.remember_rematch(channel_id(interaction), game_id, message.id)
            except discord.HTTPException:
                log.warning("could not read back the rematch request of %s", game_id)
            return
        record, game = result
        kind = self.layer.kinds[record.kind]
        computer = next((p for p in record.players if p is not None and p.bot), None)
        if computer is not None:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {level} the computer's level (easy, medium, hard);
            # {sides} a sentence saying who plays what.
            await self.post_start(
                interaction,
                kind,
                game,
                record,
                lambda: _(
                    "**{game}** — rematch against the computer ({level}, unrated): {sides}",
                    game=kind.title,
                    level=level_name(computer.level or "medium"),
                    sides=sides(kind, record),
                ),
            )
        else:
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {sides} a sentence saying who plays what.
            await self.post_start(
                interaction,
                kind,
                game,
                record,
                lambda: _("**{game}** — rematch! {sides}", game=kind.title, sides=sides(kind, record)),
            )
        await self._retire_rematch_request(record.guild_id, channel_id(interaction), game_id)

    async def _retire_rematch_request(self, guild: int, channel: int, game_id: str) -> None:
        """The rematch of ``game_id`` has started: its request (the ping with its own Rematch button) says so and loses
        its button, edited once whichever button started it. A failed edit is logged, never raised."""
        try:
            message_id = await self.layer.store.claim_rematch_message(channel, game_id)
            if message_id is None:
                return
            async with public(self.bot, self.layer, guild):  # an edit of a public post
                content = _("~~Rematch request~~ — the rematch has started.")
            message = self.bot.get_partial_messageable(channel).get_partial_message(message_id)
            await message.edit(content=content, view=None, allowed_mentions=NO_MENTIONS)
        except Exception:
            log.warning("could not retire the rematch request of game %s", game_id, exc_info=True)

    @app_commands.command(name="takeback", description="Ask your opponent to let you undo your last turn")
    @app_commands.guild_only()
    async def takeback(self, interaction: discord.Interaction) -> None:
        """Ask the opponent (with Allow/Refuse buttons) to undo the caller's last turn; against the computer it
        is undone at once."""
        answers.before_change(interaction, private=renderer.busy)
        result = await self.layer.request_takeback(channel_id(interaction), interaction.user.id)
        if isinstance(result, Turn):
            await self.post_turn(interaction, self.layer.kinds[result.record.kind], result)
            return
        record, answerer = result
        request = record.takeback
        if request is None:  # (request_takeback returns the record holding the request)
            raise RuntimeError(f"the takeback request of {record.id} is missing")
        async with public(self.bot, self.layer, record.guild_id):  # the channel reads it: the server's language
            buttons = view(
                *(TakebackButton(answer, record.id, request.moves, request.nonce) for answer in ("yes", "no"))
            )
            game = self.layer.game_of(record, history=True)
            text = takeback_question(record, game, answerer, shown_user(interaction.user))
        message = await answers.send(interaction, text, view=buttons, allowed_mentions=MENTION_PLAYERS)
        try:  # noted so the request can be closed when it stops being answerable (._takebacks)
            message = message or await interaction.original_response()
            await self.layer.store.remember_takeback(
                channel_id(interaction), record.id, request.nonce, message.id, int(TAKEBACK_TIMEOUT) + 86400
            )
        except discord.HTTPException:
            log.warning("could not read back the takeback request of %s", record.id)

    async def _started_by_another_press(self, interaction: discord.Interaction, game_id: str) -> bool:
        """After an Accept was refused: whether it lost to this same person's other press (a double click) — the game
        ``game_id`` now runs here with them in it."""
        stored = await self.layer.store.get(channel_id(interaction))
        return (
            stored is not None
            and stored.record.id == game_id
            and stored.record.status is Status.ACTIVE
            and stored.record.seat_of(interaction.user.id) is not None
        )

    async def answer_takeback(self, interaction: discord.Interaction, button: TakebackButton) -> None:
        """Allow / Refuse pressed on a takeback request.

        Raises:
            UserError: not the opponent, or the request is gone, expired or for another position.
        """
        answers.before_change(interaction)
        try:
            result = await self.layer.answer_takeback(
                channel_id(interaction),
                button.game_id,
                button.moves,
                interaction.user.id,
                button.answer == "yes",
                button.nonce,
            )
        except UserError:  # lost a race, or too late — to this same person's other press?
            stored = await self.layer.store.get(channel_id(interaction))
            answered = (
                stored is not None
                and stored.record.id == button.game_id
                and (
                    stored.record.takeback is None
                    or stored.record.takeback.nonce != button.nonce
                    or stored.record.takeback.refused
                )
            )
            if answered and stored is not None and stored.record.seat_of(interaction.user.id) is not None:
                return  # a double click: the first press answered the request; this one needs no refusal
            raise
        await self.layer.store.forget_takeback(channel_id(interaction), button.game_id, button.nonce)  # answered here
        record = result.record if isinstance(result, Turn) else result
        async with public(self.bot, self.layer, record.guild_id):  # an edit of the public request
            if not isinstance(result, Turn):
                # TRANSLATORS: {user} refused; {asker} asked for the takeback (names).
                content = _(
                    "Takeback refused by {user}: {asker} can ask again after their next turn.",
                    user=shown_user(interaction.user),
                    asker=_asker(result).shown,
                )
            else:
                content = _("Takeback allowed by {user}.", user=shown_user(interaction.user))
        await answers.edit(interaction, content=content, view=None)
        if not isinstance(result, Turn):
            return
        await self.post_turn(interaction, self.layer.kinds[result.record.kind], result)


def takeback_question(record: Record, game: Game, answerer: int, user: str) -> str:
    """The public question of ``record``'s takeback request (``game``: its engine game with its undo history), naming
    the turn it would undo by its move numbers (as /record and the analysis number them) and its moves, in the
    current language: "<@Ben>, Ann asks to take back their last turn, move 12: `Q@B2 S@C3`. Allow it? …"."""
    request = record.takeback
    start = turn_start(game, request.by if request else None)
    first = start[0] if start else len(game.moves)
    undone = game.moves[first:]
    moves = ", ".join(f"`{move}`" for move in undone)
    closes = when(request.expires if request else 0)
    if len(undone) > 1:
        # TRANSLATORS: {opponent} is a mention, {user} a name; {first}–{last} the move numbers of the turn to undo
        # (a Hong placement and its dragon's action), {moves} those moves (`A5H`, `D2 rotate C4`); {when} a moment
        # Discord shows relative to now in the reader's language: "in 5 minutes".
        return _(
            "{opponent}, {user} asks to take back their last turn, moves {first}–{last}: {moves}. Allow it? (This "
            "request closes {when}.)",
            opponent=record.mention(answerer),
            user=user,
            first=first + 1,
            last=first + len(undone),
            moves=moves,
            when=closes,
        )
    # TRANSLATORS: {opponent} is a mention, {user} a name; {number} the number of the move to undo and {move} the move
    # (`Q@B2 S@C3`); {when} a moment Discord shows relative to now in the reader's language: "in 5 minutes".
    return _(
        "{opponent}, {user} asks to take back their last turn, move {number}: {move}. Allow it? (This request "
        "closes {when}.)",
        opponent=record.mention(answerer),
        user=user,
        number=first + 1,
        move=moves,
        when=closes,
    )


def _asker(record: Record) -> Player:
    """Who asked for the takeback a refusal left in ``record`` (:meth:`bot.session.GameLayer.answer_takeback` keeps
    the request, marked refused)."""
    if record.takeback is None:
        raise RuntimeError(f"the refused takeback request of {record.id} is missing")
    return record.player(record.takeback.by)


__all__ = ["Play", "takeback_question"]
