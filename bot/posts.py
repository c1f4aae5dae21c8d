"""What the bot posts about a running game: the board image, the status line, a committed turn.

Used by the features that change a game (play: moves, takebacks, timeouts; admin: aborts). When a posted turn
ended the game, :func:`post_turn` dispatches the ``game_finished`` event with the finished
:class:`~bot.record.Record`; the features that care listen for it (``on_game_finished``).

A committed turn's board post is an announcement of :mod:`bot.outbox`: once posted it is marked done; if the post
fails it stays for the play cog's reconciler, which posts it later — so the board's file name carries the
announcement's tag, and :func:`already_posted` finds a post made before a crash. While this process posts one, its
member is in :data:`POSTING` (the reconciler leaves it alone).

Boards are drawn by :data:`bot.rendering.renderer` (worker processes, people's boards first); a move is answered at once
— Discord's "thinking…", or "busy: your move is saved, the board follows" when the drawings queue is long
(:func:`answer_first`) — and the numbers of :mod:`bot.metrics` are counted here.
"""
from __future__ import annotations

import io
import logging

import discord

from .buttons import final_board_view
from .kinds import Game, GameKind
from .metrics import BOARD_POSTED, BUSY, FAILURES, FIRST_RESPONSE, MOVES, since
from .outbox import Announcement
from .record import Event, Record
from .rendering import CHANNEL, PLAYER, renderer
from .replies import MESSAGE_LIMIT, refuse
from .session import Turn
from .words import MENTION_PLAYERS, NO_MENTIONS, describe_duration, plain_names

log = logging.getLogger(__name__)

#: The event dispatched (``bot.dispatch``) with the finished record when a game has ended.
GAME_FINISHED = "game_finished"
#: Announcements (:attr:`Announcement.member`) this process is posting right now.
POSTING: set[str] = set()


async def board_file(kind: GameKind, game: Game, record: Record, name: str = "board.png", *,
                     priority: int = PLAYER) -> discord.File:
    """The rendered board as a PNG attachment called ``name`` (drawn by a render worker, in ``priority``'s turn:
    :mod:`bot.rendering`); a game that was resigned, lost on time or aborted shows that result instead of whose turn
    it was."""
    png = await renderer.png(kind, game, plain_names(record), ended=record.ended_off_board, priority=priority)
    return discord.File(io.BytesIO(png), filename=name)


def board_name(kind: GameKind, announcement: Announcement | None) -> str:
    """The file name of an announced board: ``<game>-<game id>-<version>.png`` (its :attr:`Announcement.tag`)."""
    return f"{kind.name}-{announcement.tag}.png" if announcement else "board.png"


def nonce(announcement: Announcement | None) -> str | None:
    """A post's nonce for Discord to deduplicate a retry of the same announcement (at most 25 characters)."""
    return f"{announcement.what[0]}{announcement.tag}"[:25] if announcement else None


async def already_posted(bot: discord.Client, channel_id: int, *, file_name: str | None = None,
                         text: str | None = None, limit: int = 50) -> bool:
    """Whether the bot's last ``limit`` messages in the channel include one with an attachment ``file_name`` or
    exactly ``text`` (a retry checks before posting again). A history the bot can't read counts as not posted
    (logged): posting twice is better than never."""
    me = bot.user.id if bot.user else None
    try:
        async for message in bot.get_partial_messageable(channel_id).history(limit=limit):
            if message.author.id != me:
                continue
            if file_name and any(a.filename == file_name for a in message.attachments):
                return True
            if text and message.content == text[:MESSAGE_LIMIT]:
                return True
    except discord.HTTPException as exc:
        log.warning("could not read the history of channel %s (%s)", channel_id, exc.status)
    return False


def busy_note(turn: Turn) -> str:
    """What a player is told at once when the boards queue is long: their change is stored, its board follows."""
    what = f"your move `{turn.move}` is saved" if turn.move else "the change is saved"
    return f"I'm busy right now: {what}, and its board will be posted here in a moment."


async def answer_first(interaction: discord.Interaction, turn: Turn) -> discord.Interaction | None:
    """Answer a committed change's interaction at once: Discord's "thinking…" while its board is drawn, or — when a
    person's board would wait long (:meth:`bot.rendering.Renderer.busy`) — :func:`busy_note`, to the player alone.
    Returns the interaction, or None if it had expired (past Discord's 3 s: the board then goes to the channel)."""
    try:
        if renderer.busy():
            await interaction.response.send_message(busy_note(turn), ephemeral=True)
            BUSY.inc()
        else:
            await interaction.response.defer(thinking=True)
    except discord.NotFound:
        FAILURES.labels("expired").inc()
        log.warning("interaction %s expired before its first answer; posting game %s in its channel",
                    interaction.id, turn.record.id)
        return None
    FIRST_RESPONSE.observe(since(interaction))
    return interaction


def saved_note(turn: Turn) -> str:
    """What a player is told when their change is stored but its board could not be posted."""
    what = f"Your move `{turn.move}` is saved" if turn.move else "Done: the game is saved"
    return f"{what}. I couldn't post the board just now; it will be posted in this channel shortly."


def sides(kind: GameKind, record: Record, *, you: int | None = None, open_seat: str = "whoever accepts") -> str:
    """Who plays which side and who moves first, as a sentence: "Ann plays blue and moves first; Ben plays orange."
    (Hong: "Ann plays the emperor and moves first; …"). ``you``: a user id addressed as "you" ("…; you play
    orange."); an empty seat (an open challenge) is ``open_seat``."""
    first = kind.new_game(record.options).to_move
    parts = []
    for seat in (0, 1):
        player = record.players[seat]
        who = "you" if player is not None and player.id == you else player.shown if player else open_seat
        plural_verb = who == "you"
        if seat == 0 and player is None or who == "you":  # words of ours at the start of a sentence: capitalised
            who = who[:1].upper() + who[1:] if seat == 0 else who
        part = f"{who} {'play' if plural_verb else 'plays'} {kind.role_article}{kind.roles[seat]}"
        if seat == first:
            part += f" and {'move' if plural_verb else 'moves'} first"
        parts.append(part)
    return f"{parts[0]}; {parts[1]}."


def computer_replied(turn: Turn) -> bool:
    """Whether a takeback undid a move of the computer's too (its reply to the turn taken back): the undone moves
    replayed on a copy of the position they were undone to."""
    opponent = 1 - turn.player
    if not turn.undone or not turn.record.player(opponent).bot:
        return False
    game = turn.game.copy()
    for move in turn.undone:
        if game.to_move == opponent:
            return True
        game.play(move)
    return False


def status_line(kind: GameKind, game: Game, record: Record) -> str:
    """Score and whose turn, with a mention of the player to move and the time they have for the turn."""
    seat = game.to_move
    player = record.player(seat)
    if player.bot:
        return f"{kind.score(game, record.names)}\n{player.shown} ({kind.roles[seat]}) is thinking…"
    left = ""
    if record.deadline:
        left = f" You have {describe_duration(record.deadline - (record.turn_started or 0))}."
    return f"{kind.score(game, record.names)}\n{record.mention(seat)}, your turn ({kind.roles[seat]}).{left}"


def turn_message(kind: GameKind, turn: Turn) -> tuple[str, discord.ui.View | None]:
    """The text posted with the board after a committed change, and the buttons of a finished game's last board
    (None while the game runs)."""
    record, game = turn.record, turn.game
    if turn.event is Event.MOVE:
        happened = kind.describe_move(game, record.names)
        head = f"{record.player(turn.player).shown} played `{turn.move}`{': ' + happened if happened else ''}."
    elif turn.event is Event.TAKEBACK:
        head = f"Takeback accepted: {record.player(turn.player).shown}'s last turn is undone."
        if computer_replied(turn):
            head = f"Takeback: {record.player(turn.player).shown}'s last turn and the computer's reply are undone."
    else:
        head = ""
    if not turn.finished:
        return f"{head}\n{status_line(kind, game, record)}", None
    text = f"{head}\n**Game over.** {record.result.text}".strip()
    people = [record.mention(seat) for seat in (0, 1) if not record.player(seat).bot]  # never the computer
    text += f"\n{' '.join(people)} — thanks for playing!"
    return text, final_board_view(record.id)


def shows_board(turn: Turn) -> bool:
    """One board a round against the computer: a move after which the computer is to move is posted as text alone
    (every move stays in the channel's history), and the computer's reply is posted with the board; every other
    post shows the board."""
    return turn.finished or not turn.record.player(turn.game.to_move).bot


async def post_turn(bot: discord.Client, interaction: discord.Interaction | None, kind: GameKind, turn: Turn) -> bool:
    """Post board (see :func:`shows_board`) + notation + what happened + next player: as the interaction's
    follow-up (after deferring), or in the game's channel when there is no interaction (a timeout, the computer's
    move) or the interaction has expired.
    Rendering runs off the event loop. Then the turn's announcement is marked done. If the turn ended the game,
    ``game_finished`` is dispatched even when the post failed (the game's state is committed: what follows from
    it happens anyway).

    Never raises: when the post fails, the announcement stays in the outbox for the reconciler, and the player
    (if they acted through an interaction) is told that their change is saved and the board follows.

    Returns:
        True if the board was posted.
    """
    posted = False
    if turn.event is Event.MOVE:
        MOVES.labels(kind.name, "computer" if turn.record.player(turn.player).bot else "person").inc()
    member = turn.announcement.member if turn.announcement is not None else ""
    POSTING.add(member)
    try:
        if interaction is not None and not interaction.response.is_done():
            interaction = await answer_first(interaction, turn)
        priority = PLAYER if interaction is not None else CHANNEL
        text, view = turn_message(kind, turn)
        extra = {"view": view} if view else {}
        name = board_name(kind, turn.announcement)

        async def board() -> dict:
            return {"file": await board_file(kind, turn.game, turn.record, name, priority=priority)} \
                if shows_board(turn) else {}

        if interaction is not None:
            try:
                await interaction.followup.send(text[:MESSAGE_LIMIT], **await board(),
                                                allowed_mentions=MENTION_PLAYERS, **extra)
                posted = True
                BOARD_POSTED.observe(since(interaction))
            except discord.NotFound:  # the interaction expired: post in the channel instead
                log.warning("interaction %s expired; posting game %s in its channel", interaction.id, turn.record.id)
        if not posted:
            channel = bot.get_partial_messageable(turn.record.channel_id)
            await channel.send(text[:MESSAGE_LIMIT], **await board(),
                               allowed_mentions=MENTION_PLAYERS, nonce=nonce(turn.announcement), **extra)
            posted = True
    except Exception:
        FAILURES.labels("board").inc()
        log.exception("posting game %s in channel %s failed; the reconciler posts it later",
                      turn.record.id, turn.record.channel_id)
        if interaction is not None:
            await refuse(interaction, saved_note(turn))
    finally:
        POSTING.discard(member)
    if posted and turn.announcement is not None:
        try:
            await bot.layer.outbox.done(turn.announcement)
        except Exception:  # the reconciler will find the post and not repeat it
            log.warning("could not mark game %s's post as made", turn.record.id, exc_info=True)
    if turn.finished:
        bot.dispatch(GAME_FINISHED, turn.record)
    return posted


async def send_quietly(bot: discord.Client, channel_id: int, text: str,
                       mentions: discord.AllowedMentions = NO_MENTIONS, *, nonce: str | None = None) -> bool:
    """Post ``text`` in a channel outside any interaction; a failure is logged, never raised. ``nonce`` lets
    Discord drop a retry of the same post. True if posted."""
    try:
        await bot.get_partial_messageable(channel_id).send(text[:MESSAGE_LIMIT], allowed_mentions=mentions,
                                                           nonce=nonce)
        return True
    except discord.HTTPException:
        log.warning("could not post in channel %s", channel_id)
        return False


__all__ = ["GAME_FINISHED", "POSTING", "board_file", "busy_note", "answer_first", "board_name", "nonce",
           "already_posted", "saved_note", "sides",
           "computer_replied", "status_line", "turn_message", "shows_board", "post_turn", "send_quietly"]
