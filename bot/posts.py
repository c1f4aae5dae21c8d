"""What the bot posts about a running game: the board image, the status line, a committed turn.

Used by the features that change a game (play: moves, takebacks, timeouts; admin: aborts). When a posted turn
ended the game, :func:`post_turn` dispatches the ``game_finished`` event with the finished
:class:`~bot.record.Record`; the features that care listen for it (``on_game_finished``).
"""
from __future__ import annotations

import asyncio
import io
import logging

import discord

from .buttons import final_board_view
from .kinds import Game, GameKind
from .record import Event, Record
from .replies import MESSAGE_LIMIT
from .session import Turn
from .words import MENTION_PLAYERS, NO_MENTIONS, describe_duration, plain_names

log = logging.getLogger(__name__)

#: The event dispatched (``bot.dispatch``) with the finished record when a game has ended.
GAME_FINISHED = "game_finished"


async def board_file(kind: GameKind, game: Game, record: Record) -> discord.File:
    """The rendered board as a ``board.png`` attachment (rendered in a worker thread); a game that was
    resigned, lost on time or aborted shows that result instead of whose turn it was."""
    png = await asyncio.to_thread(kind.render, game, plain_names(record), ended=record.ended_off_board)
    return discord.File(io.BytesIO(png), filename="board.png")


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
        head = f"{record.player(turn.player).shown} played `{turn.move}`."
    elif turn.event is Event.TAKEBACK:
        head = f"Takeback accepted: {record.player(turn.player).shown}'s last turn is undone."
    else:
        head = ""
    if not turn.finished:
        return f"{head}\n{status_line(kind, game, record)}", None
    text = f"{head}\n**Game over.** {record.result.text}".strip()
    text += f"\n{record.mention(0)} {record.mention(1)} — thanks for playing!"
    return text, final_board_view(record.id)


async def post_turn(bot: discord.Client, interaction: discord.Interaction | None, kind: GameKind, turn: Turn) -> None:
    """Post board + notation + next player: as the interaction's follow-up (after deferring), or in the
    game's channel when there is no interaction (a timeout, the computer's move). Rendering runs off the event
    loop. If the turn ended the game, ``game_finished`` is dispatched even when the post failed (the game's
    state is committed: what follows from it happens anyway).

    Raises:
        discord.HTTPException: the post failed.
    """
    if interaction is not None and not interaction.response.is_done():
        await interaction.response.defer(thinking=True)
    try:
        text, view = turn_message(kind, turn)
        file = await board_file(kind, turn.game, turn.record)
        extra = {"view": view} if view else {}
        if interaction is not None:
            await interaction.followup.send(text[:MESSAGE_LIMIT], file=file, allowed_mentions=MENTION_PLAYERS, **extra)
        else:
            channel = bot.get_partial_messageable(turn.record.channel_id)
            await channel.send(text[:MESSAGE_LIMIT], file=file, allowed_mentions=MENTION_PLAYERS, **extra)
    finally:
        if turn.finished:
            bot.dispatch(GAME_FINISHED, turn.record)


async def send_quietly(bot: discord.Client, channel_id: int, text: str,
                       mentions: discord.AllowedMentions = NO_MENTIONS) -> None:
    """Post ``text`` in a channel outside any interaction; a failure is logged, never raised."""
    try:
        await bot.get_partial_messageable(channel_id).send(text[:MESSAGE_LIMIT], allowed_mentions=mentions)
    except discord.HTTPException:
        log.warning("could not post in channel %s", channel_id)


__all__ = ["GAME_FINISHED", "board_file", "status_line", "turn_message", "post_turn", "send_quietly"]
