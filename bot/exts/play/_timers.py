"""The turn timers on Discord: poll Redis for due deadlines and act on each once.

Deadlines live in Redis (:mod:`bot.storage.deadlines`) and are leased to one process at a time and settled once
handled, so each fires once across bot processes and none is lost to a crash. What they do here: ``expire``
edits a challenge nobody answered, ``remind`` pings the player to move, ``forfeit`` ends the game on time and
posts its last board, ``takeback`` closes a takeback request nobody answered (:mod:`._takebacks`). Before a reminder or a forfeit, :func:`._reach.ready` checks that the bot can still post in
the game's channel (a game it can't post in ends without a result: nobody forfeits).

A deadline in a server Discord reports unavailable (an outage: GUILD_DELETE with ``unavailable``, which is not the bot
being removed) waits: it is left leased, not settled, and fires again when its lease ends — once the server is back.
Nobody is reminded into, or forfeits in, a server none of its players can reach.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ...storage.deadlines import Deadline
from ...i18n import _
from ...interface.posts import post_nonce, send_quietly
from ...core.session import GameLayer
from ...i18n.wording import when
from ...interface.mentions import MENTION_PLAYERS, NO_MENTIONS
from . import _takebacks as takebacks
from ._computer import PostTurn
from ._language import public
from ._poll import poll
from ._reach import ready

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)


class Timers:
    """Polls for due deadlines every ``poll_interval`` seconds while started.

    Args:
        bot: the client (posts and edits outside interactions).
        layer: the game layer (claims deadlines, expires, forfeits).
        post: posts a committed turn in its game's channel (a forfeit).
        poll_interval: seconds between polls.
    """

    def __init__(self, bot: "HongBot", layer: GameLayer, post: PostTurn, poll_interval: float = 1.0) -> None:
        self.bot = bot
        self.layer = layer
        self.post = post
        self.poll_interval = poll_interval
        self._poller: asyncio.Task | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        """Start polling (once)."""
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll())

    async def _poll(self) -> None:
        await poll(self.fire_due, self._stopping, self.poll_interval, "handling deadlines")

    async def fire_due(self) -> int:
        """Claim and handle every deadline due now in the servers of this process's shards (each leased to one
        process; settled once handled, so a crash in between leaves it to fire again when the lease ends). Returns how
        many were claimed."""
        claimed = await self.layer.deadlines.claim_due(shards=self.bot.served_shards)
        for deadline in claimed:
            if await self._unavailable(deadline.channel_id):
                log.info("deadline %s waits: its server is unavailable (a Discord outage)", deadline.member)
                continue  # not settled: it fires again when its lease ends
            try:
                await self._fire(deadline)
                await self.layer.deadlines.done(deadline)
            except Exception:
                log.exception("deadline %s failed; it fires again when its lease ends", deadline.member)
        return len(claimed)

    async def _unavailable(self, channel_id: int) -> bool:
        """Whether the channel's server is in a Discord outage, as the gateway last said (a server unavailable since
        the bot connected has no channels cached: its game's record names it)."""
        guild = getattr(self.bot.get_channel(channel_id), "guild", None)
        if guild is None:
            stored = await self.layer.store.get(channel_id)
            guild = self.bot.get_guild(stored.record.guild_id) if stored else None
        return guild is not None and guild.unavailable

    async def _fire(self, deadline: Deadline) -> None:
        if deadline.what == "expire":
            await self._expire(deadline)
        elif deadline.what == "remind":
            await self._remind(deadline)
        elif deadline.what == "takeback":
            await takebacks.expired(self.bot, self.layer, deadline.channel_id, deadline.game_id)
        elif deadline.what == "forfeit":
            if not await ready(self.bot, self.layer, deadline.channel_id):
                return  # the bot can't post there: the game ended without a result, nobody forfeits
            turn = await self.layer.forfeit(deadline.channel_id, deadline.game_id, deadline.marker)
            if turn:
                await self.post(None, self.layer.kinds[turn.record.kind], turn)

    async def _expire(self, deadline: Deadline) -> None:
        """Close the challenge and strike its message through (buttons gone)."""
        record = await self.layer.expire(deadline.channel_id, deadline.game_id)
        message_id = record and await self.layer.challenge_message(deadline.channel_id, deadline.game_id)
        if record is not None and message_id:
            kind = self.layer.kinds[record.kind]
            async with public(self.bot, self.layer, record.guild_id):
                if record.opponent:
                    opponent = f"<@{record.opponent}>"
                    # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {opponent} a mention of who was challenged.
                    content = _(
                        "~~{game} challenge~~ — expired: {opponent} did not answer in time.",
                        game=kind.title,
                        opponent=opponent,
                    )
                else:
                    # TRANSLATORS: {game} is "Hong Kong" or "Hong".
                    content = _("~~{game} challenge~~ — expired: nobody accepted in time.", game=kind.title)
            message = self.bot.get_partial_messageable(deadline.channel_id).get_partial_message(message_id)
            await message.edit(content=content, view=None, allowed_mentions=NO_MENTIONS)

    async def _remind(self, deadline: Deadline) -> None:
        """Ping the player to move (never the computer) with the time left."""
        due = await self.layer.reminder_due(deadline.channel_id, deadline.game_id, deadline.marker)
        if due is None or due[0].player(due[1].to_move).bot:
            return
        if not await ready(self.bot, self.layer, deadline.channel_id):
            return  # the bot can't post there: the game ended without a result (see ._reach)
        record, game = due
        if record.deadline is None:  # (a running game's turn has its deadline: see GameLayer._timed)
            return
        kind = self.layer.kinds[record.kind]
        async with public(self.bot, self.layer, record.guild_id):
            # TRANSLATORS: {player} is a mention; {game} "Hong Kong" or "Hong"; {role} the player's side (e.g.
            # "blue", "emperor"); {when} a moment Discord shows relative to now in the reader's language: "in 2 hours".
            text = _(
                "⏰ {player}, it's your turn in **{game}** ({role}). If you don't move, you forfeit {when}.",
                player=record.mention(game.to_move),
                game=kind.title,
                role=kind.role(game.to_move),
                when=when(record.deadline),
            )
        await send_quietly(
            self.bot,
            deadline.channel_id,
            text,
            MENTION_PLAYERS,
            nonce=post_nonce("p", deadline.game_id, deadline.marker),
        )

    async def stop(self, grace: float = 5.0) -> None:
        """Stop polling, letting a deadline being handled finish (up to ``grace`` seconds) so no Redis transaction
        or post is cut in half."""
        self._stopping.set()
        if self._poller:
            try:
                await asyncio.wait_for(self._poller, grace)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
            self._poller = None


__all__ = ["Timers"]
