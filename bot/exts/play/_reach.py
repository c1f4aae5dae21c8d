"""Whether the bot can post a game where it is played: its permissions in the channel, a game thread a moderator
locked or archived, a channel deleted, the bot removed from the server.

A slash command's answers are interaction responses, which Discord lets through whatever the bot's permissions in
the channel; but reminders, forfeits, the computer's replies and a thread game's notes are ordinary channel posts.
So:

- Before a game starts (a challenge — also against the computer —, accepting one, a rematch):
  :func:`require_postable` refuses with the name of every permission the bot lacks there: View Channel, Send
  Messages (Send Messages in Threads in a thread), Attach Files, Embed Links; with a thread per game, also Create
  Public Threads and Send Messages in Threads.
- Before a post outside an interaction (a reminder, a forfeit) and when such a post failed (the computer's reply,
  a board): :func:`ready`. A thread a moderator locked is reopened (with Manage Threads; an archived one reopens by
  itself when posted in). A thread game the bot still can't post in goes on in the thread's parent channel, with a
  notice and its board (same turn, same deadlines). Otherwise — a permission removed, the channel deleted (10003),
  the bot removed from the server (50001), or the parent busy or closed too — the game **ends without a result**:
  unrated, nobody forfeits, its timers cancelled, gone from ``/games``. The players are told in the thread's parent
  channel, or else by direct message.
- :class:`Reach` listens for the gateway events — a channel or thread deleted, the bot removed from a server — and
  ends the games there the same way (an open challenge there is withdrawn).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiohttp
import discord
from babel.lists import format_list
from discord.ext import commands

from ... import i18n
from ...interface import mentions
from ...core.errors import UserError
from ...i18n import N_, _, n_
from ...interface.posts import (
    GAME_FINISHED,
    board_picture,
    post_nonce,
    send_in_channel,
    send_quietly,
    status_line,
    watch,
    watch_view,
)
from ...core.record import Record, Status
from ...core.session import GameLayer, Person
from ...interface.mentions import MENTION_PLAYERS, NO_MENTIONS
from ._language import public

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)

#: The permissions a game's channel needs, by discord.py's name, with Discord's (English) name for them; shown
#: translated (:func:`listed`).
NAMES = {
    # TRANSLATORS: Discord's names of permissions: write them as Discord's app shows them in your language.
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
    "attach_files": N_("Attach Files"),
    "embed_links": N_("Embed Links"),
    "create_public_threads": N_("Create Public Threads"),
    "manage_threads": N_("Manage Threads"),
}


def needed(*, in_thread: bool, threads: bool = False) -> tuple[str, ...]:
    """The permissions (discord.py names) a game needs in a channel: to post boards there (``in_thread``: the channel
    is a thread), and with ``threads`` (a thread per game, from a channel) to open the game's thread and post in it."""
    post = ("view_channel", "send_messages_in_threads" if in_thread else "send_messages", "attach_files", "embed_links")
    return post + (("create_public_threads", "send_messages_in_threads") if threads and not in_thread else ())


#: Discord denies these implicitly when Send Messages is denied: naming the cause is enough.
IMPLIED_BY_SEND = ("attach_files", "embed_links")


def missing(permissions: discord.Permissions, names: tuple[str, ...]) -> list[str]:
    """Discord's names of the permissions in ``names`` that ``permissions`` lacks, each once, in order — without
    Attach Files and Embed Links when Send Messages is lacking (discord.py, as Discord, denies them with it)."""
    lacking = [n for n in names if not getattr(permissions, n)]
    if "send_messages" in lacking:
        lacking = [n for n in lacking if n not in IMPLIED_BY_SEND]
    return list(dict.fromkeys(NAMES[n] for n in lacking))


def listed(names: list[str]) -> str:
    """Permissions' names (Discord's English names, :data:`NAMES`) in the current language, bold, listed as the
    language lists things (CLDR, through Babel): ``["A", "B", "C"]`` → "**A**, **B** and **C**" (English is
    written without the serial comma, as CLDR's ``en_GB``), "**A**, **B** und **C**", "**A**、**B**、**C**"."""
    code = i18n.current()
    return format_list([f"**{_(n)}**" for n in names], locale="en_GB" if code == i18n.SOURCE else code)


def require_postable(interaction: discord.Interaction, *, threads: bool = False) -> None:
    """Refuse to start a game in the interaction's channel if the bot could not post it there
    (``interaction.app_permissions``; ``threads``: the game would get a thread of its own).

    Raises:
        UserError: naming every permission the bot lacks, and who can fix it.
    """
    in_thread = isinstance(interaction.channel, discord.Thread)
    lacking = missing(interaction.app_permissions, needed(in_thread=in_thread))
    thread_lacking = [
        n
        for n in missing(interaction.app_permissions, needed(in_thread=in_thread, threads=threads))
        if n not in lacking
    ]
    if not lacking and not thread_lacking:
        return
    sentences = []
    if lacking:
        # TRANSLATORS: {permissions} lists Discord's names of permissions, in bold.
        sentences.append(
            n_(
                "I can't host a game here: I don't have the {permissions} permission in this channel, "
                "and I need them to post the boards, reminders and results.",
                "I can't host a game here: I don't have the {permissions} permissions in this channel, "
                "and I need them to post the boards, reminders and results.",
                len(lacking),
                permissions=listed(lacking),
            )
        )
    if thread_lacking:
        thread_names = listed(thread_lacking)
        # TRANSLATORS: {permissions} lists Discord's names of permissions, in bold.
        sentences.append(
            _(
                "Also, threads are on for this server (a thread per game), and I don't have {permissions} here.",
                permissions=thread_names,
            )
            if lacking
            else _(
                "I can't host a game here: threads are on for this server (a thread per game), and I "
                "don't have {permissions} here.",
                permissions=thread_names,
            )
        )
    sentences.append(
        _("A server admin can grant them in the channel's permissions; or start the game in another channel.")
    )
    if thread_lacking:
        # TRANSLATORS: {settings} is the command /settings (a mention), {threads} its option "threads" as Discord
        # shows it in this language.
        sentences.append(
            _(
                "({settings} with `{threads}:False` plays games in their channel instead.)",
                settings=mentions.command("settings"),
                threads=mentions.option("settings", "threads"),
            )
        )
    raise UserError(" ".join(sentences))


@dataclass(frozen=True)
class Obstacle:
    """Why the bot can't post in a game's channel, and whether the channel is a ``thread`` that still exists (the
    game can go on in the thread's parent channel).

    ``why`` is a sentence fragment: an English template marked with ``N_``, said in a post's language by
    :meth:`said`; its fields are ``{permissions}`` (the names, :data:`NAMES` values, in ``permissions``), ``{error}``
    (Discord's error text) and ``{channel}`` (a link to ``channel_id``)."""

    why: str
    thread: bool = False
    permissions: tuple[str, ...] = ()
    error: str = ""
    channel_id: int = 0

    def said(self) -> str:
        """``why`` in the current language, its fields filled."""
        channel = f"<#{self.channel_id}>"
        return _(
            self.why,
            permissions=listed(list(self.permissions)) if self.permissions else "",
            error=self.error,
            channel=channel,
        )

    def __str__(self) -> str:  # the log's (English) wording
        with i18n.language(i18n.SOURCE):
            return self.said()


#: Why a game ended without a result when Discord reported its channel, thread or server gone (:class:`Reach`).
CHANNEL_DELETED = N_("its channel was deleted")
THREAD_DELETED = N_("its thread was deleted")
REMOVED = N_("I was removed from the server")


async def obstacle(bot: discord.Client, channel_id: int) -> Obstacle | None:
    """Why the bot can't post in ``channel_id`` now, or None if it can — after reopening a game thread a moderator
    locked, when the bot may (Manage Threads). An error reading the channel that says nothing of access (Discord
    failing) counts as None: the post itself will tell."""
    channel = bot.get_channel(channel_id)
    if channel is None:  # not in the cache: an archived thread, or gone
        try:
            channel = await bot.fetch_channel(channel_id)
        except discord.NotFound:
            return Obstacle(CHANNEL_DELETED)
        except discord.Forbidden:
            # TRANSLATORS: why a game can't go on; View Channel is Discord's name of a permission.
            return Obstacle(N_("I can no longer see its channel (I was removed from the server, or lost View Channel)"))
        except discord.HTTPException:
            return None
    if isinstance(channel, discord.abc.PrivateChannel) or channel.guild.me is None:
        return None
    thread = isinstance(channel, discord.Thread)
    permissions = channel.permissions_for(channel.guild.me)
    if isinstance(channel, discord.Thread) and channel.locked:
        if not permissions.manage_threads:
            # TRANSLATORS: why a game can't go on; {permissions} is Discord's name of the permission, in bold.
            return Obstacle(
                N_("a moderator locked its thread and I can't reopen it (I don't have {permissions})"),
                thread=True,
                permissions=(NAMES["manage_threads"],),
            )
        try:
            await channel.edit(archived=False, locked=False)
            log.info("reopened the locked thread %s of a game", channel_id)
        except discord.HTTPException as exc:
            # TRANSLATORS: why a game can't go on; {error} is Discord's error message (English) or HTTP status.
            return Obstacle(
                N_("a moderator locked its thread and I couldn't reopen it ({error})"),
                thread=True,
                error=str(exc.text or exc.status),
            )
    lacking = missing(permissions, needed(in_thread=thread))
    if lacking:
        # TRANSLATORS: why a game can't go on; {permissions} lists Discord's names of permissions, in bold;
        # {channel} is a link to the channel.
        return Obstacle(
            N_("I no longer have {permissions} in {channel}"),
            thread=thread,
            permissions=tuple(lacking),
            channel_id=channel_id,
        )
    return None


async def ready(bot: discord.Client, layer: GameLayer, channel_id: int) -> bool:
    """Whether the bot can post the game of ``channel_id`` now (see :func:`obstacle`). If it can't, the game goes on in
    its thread's parent channel or ends without a result (:func:`give_up`), and False is returned."""
    found = await obstacle(bot, channel_id)
    if found is None:
        return True
    await give_up(bot, layer, channel_id, found)
    return False


async def unpostable(bot: discord.Client, layer: GameLayer, turn) -> None:
    """A committed turn's board could not be posted outside an interaction. If that is because the bot can't post
    in its channel (:func:`obstacle`), the announcement is dropped (it can never be made there) and :func:`give_up`
    follows; a passing failure (Discord erring) is left to the reconciler's retries."""
    found = await obstacle(bot, turn.record.channel_id)
    if found is None:
        return
    if turn.announcement is not None:
        await layer.outbox.done(turn.announcement)
    await give_up(bot, layer, turn.record.channel_id, found)


async def give_up(bot: discord.Client, layer: GameLayer, channel_id: int, found: Obstacle) -> None:
    """The bot can't post in ``channel_id``: a game in a thread goes on in the thread's parent channel if the bot can
    post there and it is free (:func:`fall_back`); otherwise the game ends without a result (:func:`end_unreachable`)."""
    if not (found.thread and await fall_back(bot, layer, channel_id, found)):
        await end_unreachable(bot, layer, channel_id, found)


async def fall_back(bot: discord.Client, layer: GameLayer, thread_id: int, why: Obstacle) -> bool:
    """Move the game of the thread ``thread_id`` into its parent channel (:meth:`GameLayer.move_to_parent`: same turn,
    same deadlines) and post its board there with a notice saying ``why``. False — nothing moved — if the game didn't
    come from a channel, the parent has a game of its own, or the bot can't post there either."""
    stored = await layer.store.get(thread_id)
    if stored is None or stored.record.status is not Status.ACTIVE or not stored.record.parent_id:
        return False
    if await obstacle(bot, stored.record.parent_id) is not None:
        return False
    record = await layer.move_to_parent(thread_id)
    if record is None:
        return False
    kind = layer.kinds[record.kind]
    game = layer.game_of(record)
    a, b = record.names
    log.warning("game %s moved from its thread %s to channel %s: %s", record.id, thread_id, record.channel_id, why)
    try:
        async with public(bot, layer, record.guild_id):
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first}, {second} the players; {why} a reason, e.g.
            # "a moderator locked its thread and I can't reopen it (…)".
            text = _(
                "⚠️ **{game}** {first} vs {second} goes on here, in this channel: {why}.",
                game=kind.title,
                first=a,
                second=b,
                why=why.said(),
            )
            await send_in_channel(
                bot,
                record.channel_id,
                f"{text}\n{status_line(kind, game, record)}",
                nonce=post_nonce("f", record.id, len(game.moves)),
                data=await board_picture(kind, game, record),
                allowed_mentions=MENTION_PLAYERS,
                **watch(await watch_view(bot, record)),
            )
    except (
        discord.HTTPException,
        aiohttp.ClientError,
    ):  # the game is there now: its next reminder checks the channel again
        log.warning("could not post the moved game %s in channel %s", record.id, record.channel_id)
    return True


def gone(bot: discord.Client, guild_id: int, channel_id: int) -> bool:
    """Whether a post in the channel ``channel_id`` of server ``guild_id`` could only be refused: the bot is no longer
    in the server (it isn't in the cache), or the channel no longer exists (a server's channels are always cached;
    its threads are not, so this is for channels)."""
    return bot.get_guild(guild_id) is None or bot.get_channel(channel_id) is None


async def end_unreachable(bot: discord.Client, layer: GameLayer, channel_id: int, why: Obstacle) -> Record | None:
    """End the challenge or game of ``channel_id``, which the bot can't post in: an open challenge is withdrawn; a
    running game ends without a result (unrated, nobody forfeits, its timers cancelled, its final board — which
    can't be posted there — not announced), and its players are told ``why`` in the thread's parent channel, or else
    by direct message. Returns the record ended, or None if there was nothing to end."""
    stored = await layer.store.get(channel_id)
    if stored is None:
        return None
    record = stored.record
    try:
        if record.status is Status.CHALLENGE:
            await layer.decline(channel_id, record.id, record.challenger)
            log.info("withdrew challenge %s in channel %s: %s", record.id, channel_id, why)
            return record
        if bot.user is None:
            raise RuntimeError("the bot ends a game once it has logged in")
        turn = await layer.abort(channel_id, Person(bot.user.id, bot.user.display_name))
    except UserError:  # it ended or changed meanwhile: whoever changed it posts it
        return None
    if turn.announcement is not None:  # (a commit's turn has its board post, left unmade here)
        await layer.outbox.done(turn.announcement)
    log.warning("ended game %s in channel %s without a result: %s", record.id, channel_id, why)
    bot.dispatch(GAME_FINISHED, turn.record)  # recorded in the history (unrated); a thread game's parent is told
    await _tell(bot, layer, turn.record, why)
    return turn.record


async def _tell(bot: discord.Client, layer: GameLayer, record: Record, why: Obstacle) -> None:
    """The players learn why their game ended: in the thread's parent channel — or, for a game in a channel, in that
    channel when the bot can still post text there — or else each person by DM (both in the server's language: a DM
    is sent outside any interaction, so no one's own language is known)."""
    kind = layer.kinds[record.kind]
    a, b = record.names
    async with public(bot, layer, record.guild_id):
        # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first}, {second} the players; {why} a reason, e.g.
        # "its channel was deleted".
        text = _(
            "**{game}** {first} vs {second} ended without a result (unrated, nobody forfeits): {why}.",
            game=kind.title,
            first=a,
            second=b,
            why=why.said(),
        )
        channel = f"<#{record.channel_id}>"
        # TRANSLATORS: a direct message; {channel} is a link to the game's channel, {ended} the sentence above.
        direct = _("⚠️ Your game in {channel}: {ended}", channel=channel, ended=text)
    # in the thread's parent channel; for a game in a channel, there if the bot can still write text (a board needs
    # Attach Files: without it a notice still goes); else by DM
    where = record.parent_id or record.channel_id
    if not gone(bot, record.guild_id, where) and await send_quietly(
        bot, where, f"⚠️ {text}", nonce=post_nonce("u", record.id)
    ):
        return
    for seat, player in enumerate(record.players):
        if player is None or player.bot:
            continue
        with contextlib.suppress(discord.HTTPException, aiohttp.ClientError):
            user = bot.get_user(player.id) or await bot.fetch_user(player.id)
            await user.send(direct, allowed_mentions=NO_MENTIONS, nonce=post_nonce("d", record.id, seat))


class Reach(commands.Cog):
    """Ends the games the bot can no longer reach, as Discord reports it (see the module docstring)."""

    def __init__(self, bot: "HongBot") -> None:
        self.bot = bot
        self.layer = bot.layer

    async def _end_where(self, guild_id: int, why: Obstacle, match) -> int:
        """End every running game of the server (and open challenge, scanning every record) whose record
        ``match``\\ es. Returns how many were ended."""
        ended = 0
        for channel_id in await self.layer.store.channels_with_records():
            stored = await self.layer.store.get(channel_id)
            if stored is not None and stored.record.guild_id == guild_id and match(stored.record):
                ended += await end_unreachable(self.bot, self.layer, channel_id, why) is not None
        return ended

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: its game, and the games in its threads, end without a result."""
        n = await self._end_where(
            channel.guild.id, Obstacle(CHANNEL_DELETED), lambda r: channel.id in (r.channel_id, r.parent_id)
        )
        log.info("channel %s deleted: %d game(s) and challenge(s) ended", channel.id, n)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted (on its own, or with its channel): its game ends without a result."""
        await end_unreachable(self.bot, self.layer, payload.thread_id, Obstacle(THREAD_DELETED))

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (or the server deleted): every game there ends without a result."""
        n = await self._end_where(guild.id, Obstacle(REMOVED), lambda r: True)
        log.info("removed from guild %s: %d game(s) and challenge(s) ended", guild.id, n)


__all__ = [
    "NAMES",
    "IMPLIED_BY_SEND",
    "Obstacle",
    "needed",
    "missing",
    "listed",
    "require_postable",
    "obstacle",
    "gone",
    "ready",
    "unpostable",
    "give_up",
    "fall_back",
    "end_unreachable",
    "Reach",
]
