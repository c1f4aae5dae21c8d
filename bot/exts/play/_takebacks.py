"""Takeback requests that close themselves: a request's message loses its Allow / Refuse buttons, and says why, as
soon as it can no longer be answered — the opponent moved instead, the game ended, or its time ran out.

The message's id is noted beside the record (:meth:`bot.storage.store.GameStore.remember_takeback`) when the request is
posted; whoever closes it first claims it (:meth:`bot.storage.store.GameStore.forget_takeback`), so it is edited once. The
expiry is a Redis deadline (``takeback``), so it is closed on time across restarts and processes.
"""

from __future__ import annotations

import logging

import discord

from ...i18n import _
from ...core.record import Record
from ...core.session import TAKEBACK_TIMEOUT, GameLayer
from ...i18n.wording import describe_duration
from ...interface.mentions import NO_MENTIONS
from ._language import public

log = logging.getLogger(__name__)


async def close(bot: discord.Client, layer: GameLayer, channel_id: int, game_id: str, nonce: str, content: str) -> bool:
    """Replace the request ``nonce``'s message by ``content`` (struck through, saying why it closed; buttons gone),
    if this caller is the first to close it. A failed edit is logged, never raised. True if edited."""
    message_id = await layer.store.forget_takeback(channel_id, game_id, nonce)
    if message_id is None:
        return False
    message = bot.get_partial_messageable(channel_id).get_partial_message(message_id)
    try:
        await message.edit(content=content, view=None, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException:
        log.warning("could not close takeback request %s of game %s", nonce, game_id)
        return False
    return True


async def close_stale(bot: discord.Client, layer: GameLayer, record: Record, mover: int | None = None) -> bool:
    """After a committed change of ``record`` (a move by seat ``mover``, the end of the game): close a request the
    change left unanswerable — the opponent moved instead, or the game ended. True if a message was closed. Never
    raises (a failure is logged: the request can't be answered anyway)."""
    try:
        return await _close_stale(bot, layer, record, mover)
    except Exception:
        log.exception("closing the takeback request of game %s failed", record.id)
        return False


async def _close_stale(bot: discord.Client, layer: GameLayer, record: Record, mover: int | None) -> bool:
    noted = await layer.store.takeback_message(record.channel_id, record.id)
    if noted is None:
        return False
    if not record.finished:
        # ``record`` is the game as this change left it; a request may have been made since (its board was posted
        # late, after the player already asked): judge the request by the game as it is now
        stored = await layer.store.get(record.channel_id)
        now = stored.record if stored is not None and stored.record.id == record.id else None
        if now is not None and now.finished:
            return False  # the game's end closes it (on_game_finished)
        request = now.takeback if now is not None else record.takeback
        if request is not None and request.nonce == noted[0]:
            return False  # still this turn's request
    async with public(bot, layer, record.guild_id):  # an edit of a public post
        if record.finished:
            why = _("~~Takeback request~~ — closed: the game has ended.")
        elif mover is not None:
            # TRANSLATORS: {player} is the name of the player who moved.
            why = _("~~Takeback request~~ — closed: {player} moved instead.", player=record.player(mover).shown)
        else:
            why = _("~~Takeback request~~ — closed: the game went on.")
    return await close(bot, layer, record.channel_id, record.id, noted[0], why)


async def expired(bot: discord.Client, layer: GameLayer, channel_id: int, game_id: str) -> bool:
    """A takeback deadline is due: close the request it was set for if it is still this turn's and unanswered."""
    noted = await layer.store.takeback_message(channel_id, game_id)
    stored = await layer.store.get(channel_id)
    if noted is None or stored is None or stored.record.id != game_id:
        return False
    request = stored.record.takeback
    if request is None or request.nonce != noted[0] or request.refused or request.expires > layer.clock():
        return False
    async with public(bot, layer, stored.record.guild_id):  # an edit of a public post
        # TRANSLATORS: {player} is the name of who was asked; {duration} e.g. "5 minutes".
        why = _(
            "~~Takeback request~~ — expired: {player} didn't answer within {duration}.",
            player=stored.record.player(1 - request.by).shown,
            duration=describe_duration(TAKEBACK_TIMEOUT),
        )
    return await close(bot, layer, channel_id, game_id, request.nonce, why)


__all__ = ["close", "close_stale", "expired"]
