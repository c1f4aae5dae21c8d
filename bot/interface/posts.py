"""What the bot posts about a running game: the board image, the status line, a committed turn.

Used by the features that change a game (play: moves, takebacks, timeouts; admin: aborts). When a posted turn
ended the game, :func:`post_turn` dispatches the ``game_finished`` event with the finished
:class:`~bot.core.record.Record`; the features that care listen for it (``on_game_finished``).

A committed turn's board post is an announcement of :mod:`bot.storage.outbox`: once posted it is marked done; if the post
fails it stays for the play cog's reconciler, which posts it later — so the board's file name carries the
announcement's tag, and :func:`already_posted` finds a post made before a crash. While this process posts one, its
member is in :data:`POSTING` (the reconciler leaves it alone).

Every post is made once, though Discord may answer 5xx after making it (and discord.py retries that by itself): a
post in a channel carries a nonce made from what it announces (:func:`nonce`, :func:`post_nonce`), which Discord
enforces; an interaction's public follow-up, which has none, is never retried blindly — the channel is looked at
first (:func:`follow_up`, :mod:`bot.interface.discordhttp`).

Boards are drawn by :data:`bot.interface.board_pool.renderer` (worker processes, people's boards first); a move is answered at once
— Discord's "thinking…", or "busy: your move is saved, the board follows" when the drawings queue is long
(:func:`answer_first`) — and the numbers of :mod:`bot.interface.metrics` are counted here.

Languages (:mod:`bot.i18n`): a post is the channel's to read, so its text, buttons and board are in the server's
language (:func:`server_language`, decided once per post in :func:`post_turn`); what only the player who acted sees
(:func:`busy_note`, :func:`saved_note`) is in theirs, the current language when a command or button runs. The other
builders here say things in the current language: their caller picks it.
"""

from __future__ import annotations

import asyncio
import io
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

import aiohttp
import discord

from . import answers
from .. import i18n
from .buttons import final_board_view
from .discordhttp import PostUncertain, post_once
from ..core.kinds import Game, GameKind
from .metrics import BOARD_POSTED, BUSY, FAILURES, FIRST_RESPONSE, MOVES, since
from ..i18n import _
from ..storage.outbox import Announcement
from ..core.record import Event, Record
from .board_pool import CHANNEL, PLAYER, renderer
from .replies import MESSAGE_LIMIT, refuse
from ..core.session import Turn, result_text
from ..i18n.wording import plain_names, when
from .mentions import MENTION_PLAYERS, NO_MENTIONS

if TYPE_CHECKING:
    from ..core.session import GameLayer
    from .client import HongBot

log = logging.getLogger(__name__)

#: The event dispatched (``bot.dispatch``) with the finished record when a game has ended.
GAME_FINISHED = "game_finished"
#: Announcements (:attr:`Announcement.member`) this process is posting right now.
POSTING: set[str] = set()


class _File(TypedDict, total=False):
    """The attachment of a post, when it has one (``send``'s ``file``)."""

    file: discord.File


class _View(TypedDict, total=False):
    """The buttons of a post, when it has some (``send``'s ``view``: None would remove a message's buttons)."""

    view: discord.ui.View


async def server_language(bot: discord.Client, guild_id: int | None, layer: GameLayer) -> str:
    """The language of public posts in the server ``guild_id`` (:meth:`bot.storage.settings.SettingsStore.language_of`
    of ``layer``'s settings; a server not in the bot's cache still gets its ``/settings language``, only its
    preferred locale is unknown; None, a DM: English). Every feature asks here."""
    if guild_id is None:
        return i18n.SOURCE
    settings = layer.settings
    return await settings.language_of(bot.get_guild(guild_id) or discord.Object(guild_id))


async def board_png(kind: GameKind, game: Game, record: Record, *, priority: int = PLAYER) -> bytes:
    """The rendered board as PNG bytes (drawn by a render worker, in ``priority``'s turn: :mod:`bot.interface.board_pool`); a
    game that was resigned, lost on time or aborted shows that result instead of whose turn it was."""
    return await renderer.png(kind, game, plain_names(record), ended=record.ended_off_board, priority=priority)


@dataclass(frozen=True)
class Picture:
    """An image to attach to a post: its bytes and its alt text (Discord's attachment ``description``, read out by
    screen readers and shown when the image can't be: every image the bot posts has one)."""

    data: bytes
    alt: str

    def file(self, name: str) -> discord.File:
        """The attachment called ``name`` (alt text cut to Discord's 1,024 characters)."""
        return discord.File(io.BytesIO(self.data), filename=name, description=self.alt[:ALT_MAX])


#: Discord's limit on an attachment's description (its alt text).
ALT_MAX = 1024


def board_alt(kind: GameKind, game: Game, record: Record) -> str:
    """A board image's alt text, in the current language: the game, the turn, the score, and whose turn it is or how
    the game ended — what a player who can't see the image needs ("Hong Kong board, turn 12. Buildings: Ann 5 –
    Ben 4. Ben (orange) to move.")."""
    if record.result is not None:
        status = result_text(kind, record, game)
    else:
        # TRANSLATORS: {player} is the name of the player to move, {role} their side ("blue", "emperor").
        status = _("{player} ({role}) to move.", player=record.player(game.to_move).shown, role=kind.role(game.to_move))
    return _alt(kind, game, kind.score(game, record.names), status)


def position_alt(kind: GameKind, game: Game, names: tuple[str, str]) -> str:
    """:func:`board_alt` of a position that is no stored game (a lesson's board): whose turn it is, or the game's
    own result once it is over."""
    if game.is_over:
        status = kind.result(game, names)
    else:
        status = _("{player} ({role}) to move.", player=names[game.to_move], role=kind.role(game.to_move))
    return _alt(kind, game, kind.score(game, names), status)


def _alt(kind: GameKind, game: Game, score: str, status: str) -> str:
    # TRANSLATORS: the alt text of a board image. {game} is "Hong Kong" or "Hong"; {turn} a number; {score} the score
    # line ("Buildings: Ann 5 – Ben 4"); {status} whose turn it is or how the game ended (a sentence).
    return _(
        "{game} board, turn {turn}. {score}. {status}",
        game=kind.title,
        turn=kind.turn_number(game),
        score=score.rstrip("."),
        status=status,
    )


async def board_picture(kind: GameKind, game: Game, record: Record, *, priority: int = PLAYER) -> Picture:
    """The rendered board (:func:`board_png`) with its alt text (:func:`board_alt`)."""
    return Picture(await board_png(kind, game, record, priority=priority), board_alt(kind, game, record))


async def board_file(
    kind: GameKind, game: Game, record: Record, name: str = "board.png", *, priority: int = PLAYER
) -> discord.File:
    """The rendered board (:func:`board_picture`) as a PNG attachment called ``name``, with its alt text."""
    return (await board_picture(kind, game, record, priority=priority)).file(name)


async def watch_url(bot: discord.Client, record: Record) -> str | None:
    """The address of ``record``'s page on the web companion (:mod:`bot.web`), its link made if need be, when the
    server's ``/settings web`` allows it and the bot knows the companion's address (``public_url`` or
    ``web_port``); else None. A store that fails here costs the link only (logged), never the post."""
    base = getattr(getattr(bot, "config", None), "web_base", None)
    links = getattr(bot, "weblinks", None)
    if base is None or links is None or record.guild_id is None:
        return None
    try:
        token = await links.game_link(record.guild_id, record.channel_id, record.id, i18n.current())
    except Exception:
        log.warning("could not make the web link of game %s; posting without it", record.id, exc_info=True)
        return None
    return f"{base}/g/{token}" if token else None


async def watch_view(
    bot: discord.Client, record: Record, view: discord.ui.View | None = None
) -> discord.ui.View | None:
    """``view`` (or a new one) with a **Watch live** link button to the game's page (:func:`watch_url`; its label in
    the current language: the post's), or ``view`` unchanged when there is no page to link to."""
    url = await watch_url(bot, record)
    if url is None:
        return view
    view = view if view is not None else discord.ui.View(timeout=None)
    label = _("Watch the replay") if record.finished else _("Watch live")
    view.add_item(
        discord.ui.Button(
            style=discord.ButtonStyle.link, label=label, url=url, emoji="🔴" if not record.finished else None
        )
    )
    return view


def watch(view: discord.ui.View | None) -> _View:
    """``send``'s keyword for ``view`` (:func:`watch_view`): ``{"view": view}``, or nothing without one."""
    return {"view": view} if view is not None else {}


def board_name(kind: GameKind, announcement: Announcement | None) -> str:
    """The file name of an announced board: ``<game>-<game id>-<version>.png`` (its :attr:`Announcement.tag`)."""
    return f"{kind.name}-{announcement.tag}.png" if announcement else "board.png"


def nonce(announcement: Announcement | None) -> str | None:
    """A post's nonce for Discord to deduplicate a retry of the same announcement (at most 25 characters):
    ``t<tag>`` a board, ``r<tag>`` a rating line, ``c<tag>`` the computer's (see :func:`post_nonce`)."""
    return f"{announcement.what[0]}{announcement.tag}"[:25] if announcement else None


#: What a channel post outside an interaction announces, as the first letter of its nonce (:func:`post_nonce`); the
#: announcements of :mod:`bot.storage.outbox` use the first letter of their ``what`` (``t``, ``r``, ``c``: :func:`nonce`).
NONCE_KINDS = {
    "p": "a reminder: the player to move is pinged",
    "e": "a thread game's end, told in the thread's parent channel",
    "f": "a thread game moved to the parent channel, with its board",
    "u": "a game ended without a result, told in the parent channel",
    "d": "the same, told a player by direct message",
}


def post_nonce(kind: str, game_id: str, detail: int | str = "") -> str:
    """The nonce of a channel post outside an interaction: ``<kind><game id>-<detail>`` (``kind`` a key of
    :data:`NONCE_KINDS`; ``detail`` tells two posts of one kind and game apart, e.g. the move count of a reminder),
    at most 25 characters (Discord's limit; game ids have at most 16). Discord returns the first message for a
    retry with the same nonce (``enforce_nonce``, which discord.py sends with every nonce), so a post whose answer was
    lost is never made twice."""
    if kind not in NONCE_KINDS:
        raise ValueError(f"unknown kind of post {kind!r}")
    return f"{kind}{game_id}-{detail}"[:25]


async def seen(
    bot: discord.Client, channel_id: int, *, file_name: str | None = None, text: str | None = None, limit: int = 50
) -> bool | None:
    """Whether the bot's last ``limit`` messages in the channel include one with an attachment ``file_name`` or
    exactly ``text`` (its first :data:`MESSAGE_LIMIT` characters); None when the bot can't tell: it lacks Read Message
    History there (known from its cache: no request Discord would refuse), or reading failed."""
    channel = bot.get_channel(channel_id)
    if (
        channel is not None
        and not isinstance(channel, discord.abc.PrivateChannel)
        and channel.guild.me is not None
        and not channel.permissions_for(channel.guild.me).read_message_history
    ):
        return None
    me = bot.user.id if bot.user else None
    try:
        async for message in bot.get_partial_messageable(channel_id).history(limit=limit):
            if message.author.id != me:
                continue
            if file_name and any(a.filename == file_name for a in message.attachments):
                return True
            if text and message.content == text[:MESSAGE_LIMIT]:
                return True
    except (discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError) as exc:
        log.warning("could not read the history of channel %s (%s)", channel_id, getattr(exc, "status", exc))
        return None
    return False


async def already_posted(
    bot: discord.Client, channel_id: int, *, file_name: str | None = None, text: str | None = None, limit: int = 50
) -> bool:
    """Whether the bot's last ``limit`` messages in the channel include one with an attachment ``file_name`` or
    exactly ``text`` (a retry checks before posting again; :func:`seen`). A history the bot can't read counts as not
    posted (logged): posting twice is better than never."""
    return bool(await seen(bot, channel_id, file_name=file_name, text=text, limit=limit))


async def follow_up(
    bot: discord.Client,
    interaction: discord.Interaction,
    text: str,
    *,
    data: Picture | None = None,
    name: str = "board.png",
    by_text: bool = False,
    confirm: str | None = None,
    **kwargs,
) -> None:
    """Post ``text`` (and the file ``data`` as the attachment ``name``) as the interaction's public follow-up, once:
    if Discord answers 5xx, the channel is looked at (by ``name``, which carries the announcement's tag — or, without
    ``data`` or with ``by_text``, by the exact text) before sending again (:func:`bot.interface.discordhttp.post_once`).
    Sent through :func:`bot.interface.answers.send` (the initial response if none was sent yet; ``confirm``: what the
    watchdog's private "thinking…" becomes). ``kwargs``: ``followup.send``'s.

    Raises:
        discord.HTTPException: it failed (:class:`bot.interface.discordhttp.PostUncertain`: perhaps made — the outbox decides).
    """

    async def send():
        files: _File = {"file": data.file(name)} if data is not None else {}
        return await answers.send(interaction, text[:MESSAGE_LIMIT], confirm=confirm, **files, **kwargs)

    async def made():
        by_name = data is not None and not by_text
        if interaction.channel_id is None:  # (every command and button names its channel)
            return None
        return await seen(
            bot, interaction.channel_id, file_name=name if by_name else None, text=None if by_name else text
        )

    await post_once(send, made)


class CannotPost(discord.DiscordException):
    """The bot lacks what a post in the channel needs (View Channel, Send Messages — in Threads for a thread —, Attach
    Files for a board), as its cache of the server says: the post is not sent, sparing Discord a request it would
    refuse (403s count toward its invalid-request limit)."""


def check_postable(bot: discord.Client, channel_id: int, *, files: bool) -> None:
    """Raise :class:`CannotPost` if the cached permissions of the bot in ``channel_id`` forbid a post (with
    ``files``: an attachment). A channel not in the cache passes: the post itself will tell."""
    channel = bot.get_channel(channel_id)
    if channel is None or isinstance(channel, discord.abc.PrivateChannel) or channel.guild.me is None:
        return
    allowed = channel.permissions_for(channel.guild.me)
    send = allowed.send_messages_in_threads if isinstance(channel, discord.Thread) else allowed.send_messages
    if not (allowed.view_channel and send and (allowed.attach_files or not files)):
        raise CannotPost(f"no permission to post in channel {channel_id}")


async def send_in_channel(
    bot: discord.Client,
    channel_id: int,
    text: str,
    *,
    nonce: str | None,
    data: Picture | None = None,
    name: str = "board.png",
    tries: int = 3,
    **kwargs,
) -> discord.Message:
    """Post ``text`` (and ``data`` as the attachment ``name``) in a channel outside any interaction. With a ``nonce``
    (every post of the bot has one) a connection dropped after sending is retried at once with the same nonce —
    Discord returns the first message for it; discord.py itself retries a 5xx. ``kwargs``: ``send``'s.

    Raises:
        CannotPost: the bot's permissions there forbid it (nothing was sent).
        discord.HTTPException, aiohttp.ClientError: it failed.
    """
    check_postable(bot, channel_id, files=data is not None)
    channel = bot.get_partial_messageable(channel_id)
    for attempt in range(tries):
        files: _File = {"file": data.file(name)} if data is not None else {}
        try:
            # (discord.py's overloads type nonce str | int; its send takes None: it then makes one up)
            return await channel.send(text[:MESSAGE_LIMIT], nonce=nonce, **files, **kwargs)  # type: ignore[arg-type]
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
            if nonce is None or attempt == tries - 1:
                raise
            await asyncio.sleep(1 + 2 * attempt)
    raise AssertionError("unreachable")


def busy_note(turn: Turn) -> str:
    """What a player is told at once when the boards queue is long: their change is stored, its board follows."""
    if turn.move:
        # TRANSLATORS: {move} is the move in the game's notation (e.g. Q@B2 S@C3), shown as it is.
        return _(
            "I'm busy right now: your move `{move}` is saved, and its board will be posted here in a moment.",
            move=turn.move,
        )
    return _("I'm busy right now: the change is saved, and its board will be posted here in a moment.")


async def answer_first(interaction: discord.Interaction, turn: Turn) -> discord.Interaction | None:
    """Answer a committed change's interaction at once: Discord's "thinking…" while its board is drawn, or — when a
    person's board would wait long (:meth:`bot.interface.board_pool.Renderer.busy`) — :func:`busy_note`, to the player alone
    (replacing the watchdog's private "thinking…" if it answered first: :mod:`bot.interface.answers`).
    Returns the interaction, or None if it had expired (past Discord's 3 s: the board then goes to the channel)."""
    try:
        if renderer.busy():
            first = await answers.send(interaction, busy_note(turn), ephemeral=True) is None
            BUSY.inc()
        else:
            first = await answers.defer(interaction, thinking=True)
    except discord.NotFound:
        FAILURES.labels("expired").inc()
        log.warning(
            "interaction %s expired before its first answer; posting game %s in its channel",
            interaction.id,
            turn.record.id,
        )
        return None
    if first:
        FIRST_RESPONSE.observe(since(interaction))
    return interaction


def done_note(turn: Turn) -> str:
    """What the watchdog's private "thinking…" becomes when a change it waited for is stored and its board goes to
    the channel (:func:`bot.interface.answers.send`'s ``confirm``)."""
    if turn.move:
        # TRANSLATORS: {move} is the move in the game's notation (e.g. Q@B2 S@C3), shown as it is.
        return _("Your move `{move}` is saved; its board is posted in this channel.", move=turn.move)
    return _("Done: the game is saved; its board is posted in this channel.")


def saved_note(turn: Turn) -> str:
    """What a player is told when their change is stored but its board could not be posted."""
    if turn.move:
        # TRANSLATORS: {move} is the move in the game's notation (e.g. Q@B2 S@C3), shown as it is.
        return _(
            "Your move `{move}` is saved. I couldn't post the board just now; it will be posted in this channel "
            "shortly.",
            move=turn.move,
        )
    return _("Done: the game is saved. I couldn't post the board just now; it will be posted in this channel shortly.")


def sides(kind: GameKind, record: Record, *, you: int | None = None) -> str:
    """Who plays which side and who moves first, as a sentence: "Ann plays blue and moves first; Ben plays orange."
    (Hong: "Ann plays the emperor and moves first; …"). ``you``: a user id addressed as "you" ("…; you play
    orange."); an empty seat (an open challenge) is "whoever accepts"."""
    first = kind.new_game(record.options).to_move
    parts = []
    for seat in (0, 1):
        player = record.players[seat]
        addressed = player is not None and player.id == you
        if addressed:
            part = _your_side(kind, seat, seat == first)
        else:
            part = _side(kind, player.shown if player else _("whoever accepts"), seat, seat == first)
        if seat == 0 and (player is None or addressed):  # words of ours at the start of a sentence: capitalised
            part = part[:1].upper() + part[1:]
        parts.append(part)
    # TRANSLATORS: the two sides of a game, e.g. "Ann plays blue and moves first" and "you play orange".
    return _("{first}; {second}.", first=parts[0], second=parts[1])


def _side(kind: GameKind, name: str, seat: int, first: bool) -> str:
    """ "Ann plays blue and moves first" (Hong: "Ann plays the emperor"); ``name`` may be "whoever accepts"."""
    role = kind.role(seat)
    if kind.role_article:  # Hong's roles are people: "the emperor", "the dragon master"
        # TRANSLATORS: {name} is a player's name or "whoever accepts"; {role} "emperor" or "dragon master".
        return (
            _("{name} plays the {role} and moves first", name=name, role=role)
            if first
            else _("{name} plays the {role}", name=name, role=role)
        )
    # TRANSLATORS: {name} is a player's name or "whoever accepts"; {role} a colour, "blue" or "orange".
    return (
        _("{name} plays {role} and moves first", name=name, role=role)
        if first
        else _("{name} plays {role}", name=name, role=role)
    )


def _your_side(kind: GameKind, seat: int, first: bool) -> str:
    """ "you play blue and move first" (Hong: "you play the emperor"), said to the player in ``seat``."""
    role = kind.role(seat)
    if kind.role_article:
        # TRANSLATORS: said to a player; {role} is "emperor" or "dragon master".
        return _("you play the {role} and move first", role=role) if first else _("you play the {role}", role=role)
    # TRANSLATORS: said to a player; {role} is a colour, "blue" or "orange".
    return _("you play {role} and move first", role=role) if first else _("you play {role}", role=role)


def computer_replied(turn: Turn) -> bool:
    """Whether a takeback undid a move of the computer's too (its reply to the turn taken back): the undone moves
    replayed on a copy of the position they were undone to."""
    if turn.player is None:
        return False
    opponent = 1 - turn.player
    if not turn.undone or not turn.record.player(opponent).bot:
        return False
    game = turn.game.copy()
    for move in turn.undone:
        if game.to_move == opponent:
            return True
        game.play(move)
    return False


def time_runs_out(deadline: float) -> str:
    """The turn's deadline as a sentence whose time Discord keeps current (:func:`bot.i18n.wording.when`): "Time
    runs out in 23 hours." — right whenever the post is read, unlike a duration written when it was made."""
    # TRANSLATORS: {when} is a moment Discord shows relative to now in the reader's language: "in 23 hours".
    return _("Time runs out {when}.", when=when(deadline))


async def post_first_board(
    bot: discord.Client, kind: GameKind, game: Game, record: Record, announcement: Announcement, heading: str
) -> None:
    """A game's first board in its channel: ``heading`` (what begins), the :func:`status_line`, the board, the
    **Watch live** link where the server allows it, made once (the announcement's nonce). Call it in the language
    of the post (``public(...)``): the status line and the link's label are worded in it.

    Raises:
        discord.HTTPException, aiohttp.ClientError: as :func:`send_in_channel` (the caller's outbox keeps the
            announcement for the reconciler).
    """
    await send_in_channel(
        bot,
        record.channel_id,
        f"{heading}\n{status_line(kind, game, record)}",
        nonce=nonce(announcement),
        data=await board_picture(kind, game, record) if starts_with_board(game, record) else None,
        name=board_name(kind, announcement),
        allowed_mentions=MENTION_PLAYERS,
        **watch(await watch_view(bot, record)),
    )


def status_line(kind: GameKind, game: Game, record: Record) -> str:
    """Score and whose turn, with a mention of the player to move and the time they have for the turn."""
    seat = game.to_move
    player = record.player(seat)
    score, role = kind.score(game, record.names), kind.role(seat)
    if player.bot:  # never tell the channel to act for the computer
        # TRANSLATORS: {name} is the computer player's name; {role} its side ("blue", "emperor").
        return f"{score}\n" + _("{name} ({role}) is thinking…", name=player.shown, role=role)
    ask = kind.prompt(game, record.names)
    if ask:
        score += f"\n{ask}"
    if record.deadline:
        # TRANSLATORS: {mention} pings the player to move; {role} their side ("blue", "emperor"); {when} the turn's
        # deadline, a moment Discord shows relative to now in the reader's language: "in 23 hours".
        turn = _(
            "{mention}, your turn ({role}). Time runs out {when}.",
            mention=record.mention(seat),
            role=role,
            when=when(record.deadline),
        )
    else:
        # TRANSLATORS: {mention} pings the player to move; {role} their side ("blue", "emperor").
        turn = _("{mention}, your turn ({role}).", mention=record.mention(seat), role=role)
    return f"{score}\n{turn}"


def turn_message(kind: GameKind, turn: Turn) -> tuple[str, discord.ui.View | None]:
    """The text posted with the board after a committed change, and the buttons of a finished game's last board
    (None while the game runs)."""
    record, game = turn.record, turn.game
    if turn.event is Event.MOVE and turn.player is not None:
        name, happened = record.player(turn.player).shown, kind.describe_move(game, record.names)
        # TRANSLATORS: {move} is the move in the game's notation (e.g. Q@B2 S@C3), shown as it is; {happened}
        # what it did, e.g. "Ann's 2 buildings are taken".
        head = (
            _("{name} played `{move}`: {happened}.", name=name, move=turn.move, happened=happened)
            if happened
            else _("{name} played `{move}`.", name=name, move=turn.move)
        )
    elif turn.event is Event.TAKEBACK and turn.player is not None:
        name, undone = record.player(turn.player).shown, ", ".join(f"`{move}`" for move in turn.undone)
        if computer_replied(turn) and undone:
            # TRANSLATORS: {moves} lists the moves taken back in the game's notation, e.g. `S@B2`, `Q@C3 S@C3`.
            head = _(
                "Takeback: {name}'s last turn and the computer's reply are undone ({moves}).", name=name, moves=undone
            )
        elif undone:
            # TRANSLATORS: {moves} lists the moves taken back in the game's notation, e.g. `S@B2` or `C3H`,
            # `D2 rotate C4` (a Hong turn with a dragon's action).
            head = _("Takeback accepted: {name}'s last turn is undone ({moves}).", name=name, moves=undone)
        elif computer_replied(turn):  # posted again from its announcement (the moves undone are gone from the record)
            head = _("Takeback: {name}'s last turn and the computer's reply are undone.", name=name)
        else:
            head = _("Takeback accepted: {name}'s last turn is undone.", name=name)
    else:
        head = ""
    if not turn.finished:
        return f"{head}\n{status_line(kind, game, record)}", None
    # TRANSLATORS: {result} is how the game ended, a sentence: "Ann resigned: Ben wins."
    text = f"{head}\n" + _("**Game over.** {result}", result=result_text(kind, record, game))
    people = [record.mention(seat) for seat in (0, 1) if not record.player(seat).bot]  # never the computer
    # TRANSLATORS: {mentions} pings the players of the game that just ended.
    text = text.strip() + "\n" + _("{mentions} — thanks for playing!", mentions=" ".join(people))
    return text, final_board_view(record.id)


def starts_with_board(game: Game, record: Record) -> bool:
    """One board a round against the computer, from the start: when the computer moves first, the game's first post
    is text alone (an empty board saying "thinking…" would come just before the board of its move)."""
    return not record.player(game.to_move).bot


def shows_board(turn: Turn) -> bool:
    """One board a round against the computer: a move after which the computer is to move is posted as text alone
    (every move stays in the channel's history), and the computer's reply is posted with the board; every other
    post shows the board."""
    return turn.finished or not turn.record.player(turn.game.to_move).bot


async def complete(
    bot: discord.Client, reply: str, text: str, *, data: Picture | None = None, name: str = "board.png", **kwargs
) -> bool:
    """Complete an interaction left on "thinking…" by a process that stored its change and died: edit its original
    response (``PATCH /webhooks/<application id>/<token>/messages/@original``, idempotent: a retry edits it again) to
    ``text`` with the file ``data`` as the attachment ``name``. ``reply``: ``"<application id>:<token>"`` as
    :func:`bot.storage.store.reply_to` stored it. ``kwargs``: ``edit_message``'s (``view``, ``allowed_mentions``).

    Returns:
        True if edited; False if Discord refused it (the token expired after its 15 minutes: 404 ``10015`` Unknown
        Webhook, or the response is gone) or the request failed — the caller then posts in the channel. Logged, never
        raises. Source: Discord, Receiving and Responding ("Edit Original Interaction Response").
    """
    application_id, _, token = reply.partition(":")
    try:
        webhook = discord.Webhook.partial(int(application_id), token, client=bot)
        files = [data.file(name)] if data is not None else []
        # (discord.py types message_id as int; it goes into the URL, where Discord names the response "@original")
        await webhook.edit_message(
            "@original",
            content=text[:MESSAGE_LIMIT],  # type: ignore[call-overload]
            attachments=files,
            **kwargs,
        )
        return True
    except (ValueError, discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError) as exc:
        log.info(
            "could not complete an interaction's response (%s); posting in the channel",
            getattr(exc, "status", None) or repr(exc),
        )
        return False


async def post_turn(
    bot: "HongBot", interaction: discord.Interaction | None, kind: GameKind, turn: Turn, *, reply: str | None = None
) -> bool:
    """Post board (see :func:`shows_board`) + notation + what happened + next player: as the interaction's
    follow-up (after deferring), or in the game's channel when there is no interaction (a timeout, the computer's
    move) or the interaction has expired. ``reply`` (no ``interaction``: the reconciler): the interaction a killed
    process left on "thinking…" (:meth:`bot.storage.keys.Keys.reply`), completed with the post (:func:`complete`) while
    Discord still lets it be; else the post goes to the channel.
    Rendering runs off the event loop. Then the turn's announcement is marked done. If the turn ended the game,
    ``game_finished`` is dispatched even when the post failed (the game's state is committed: what follows from
    it happens anyway).

    Never raises: when the post fails, the announcement stays in the outbox for the reconciler, and the player
    (if they acted through an interaction) is told that their change is saved and the board follows.

    Returns:
        True if the board was posted.
    """
    posted = False
    if turn.event is Event.MOVE and turn.player is not None:
        MOVES.labels(kind.name, "computer" if turn.record.player(turn.player).bot else "person").inc()
    member = turn.announcement.member if turn.announcement is not None else ""
    POSTING.add(member)
    try:
        if interaction is not None and (not interaction.response.is_done() or answers.pending(interaction)):
            interaction = await answer_first(interaction, turn)  # to the player alone: in their language
        confirm = done_note(turn) if interaction is not None and answers.pending(interaction) else None
        priority = PLAYER if interaction is not None else CHANNEL
        with i18n.language(await server_language(bot, turn.record.guild_id, bot.layer)):  # the server's language
            text, view = turn_message(kind, turn)
            view = await watch_view(bot, turn.record, view) if shows_board(turn) else view
            extra: _View = {"view": view} if view else {}
            name = board_name(kind, turn.announcement)
            png = await board_picture(kind, turn.game, turn.record, priority=priority) if shows_board(turn) else None
            if interaction is not None:
                try:
                    await follow_up(
                        bot,
                        interaction,
                        text,
                        data=png,
                        name=name,
                        confirm=confirm,
                        allowed_mentions=MENTION_PLAYERS,
                        **extra,
                    )
                    posted = True
                    BOARD_POSTED.observe(since(interaction))
                except discord.NotFound:  # the interaction expired: post in the channel instead
                    log.warning(
                        "interaction %s expired; posting game %s in its channel", interaction.id, turn.record.id
                    )
            if not posted and reply:
                posted = await complete(
                    bot, reply, text, data=png, name=name, allowed_mentions=MENTION_PLAYERS, **extra
                )
            if not posted:
                await send_in_channel(
                    bot,
                    turn.record.channel_id,
                    text,
                    nonce=nonce(turn.announcement),
                    data=png,
                    name=name,
                    allowed_mentions=MENTION_PLAYERS,
                    **extra,
                )
                posted = True
    except Exception as exc:
        FAILURES.labels("board").inc()
        if isinstance(exc, PostUncertain):  # Discord may have made it: no traceback, the outbox decides
            log.warning(
                "posting game %s in channel %s: Discord may or may not have made the post (%s); the "
                "reconciler looks and posts it if not",
                turn.record.id,
                turn.record.channel_id,
                exc,
            )
        elif isinstance(exc, CannotPost):  # the caller sees why (bot.exts.play._reach)
            log.warning("game %s: %s", turn.record.id, exc)
        else:
            log.exception(
                "posting game %s in channel %s failed; the reconciler posts it later",
                turn.record.id,
                turn.record.channel_id,
            )
        if interaction is not None:  # the with block has ended: in the player's language
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


async def send_quietly(
    bot: discord.Client,
    channel_id: int,
    text: str,
    mentions: discord.AllowedMentions = NO_MENTIONS,
    *,
    nonce: str | None = None,
) -> bool:
    """Post ``text`` in a channel outside any interaction (:func:`send_in_channel`); a failure is logged, never
    raised. ``nonce`` (:func:`nonce`, :func:`post_nonce`) lets Discord drop a retry of the same post. True if
    posted."""
    try:
        await send_in_channel(bot, channel_id, text, nonce=nonce, allowed_mentions=mentions)
        return True
    except (CannotPost, discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError) as exc:
        log.warning("could not post in channel %s (%s)", channel_id, getattr(exc, "status", None) or repr(exc))
        return False


__all__ = [
    "watch_url",
    "watch_view",
    "watch",
    "CannotPost",
    "check_postable",
    "GAME_FINISHED",
    "POSTING",
    "server_language",
    "board_png",
    "board_file",
    "busy_note",
    "answer_first",
    "board_name",
    "nonce",
    "NONCE_KINDS",
    "post_nonce",
    "seen",
    "already_posted",
    "follow_up",
    "send_in_channel",
    "done_note",
    "saved_note",
    "sides",
    "computer_replied",
    "status_line",
    "post_first_board",
    "turn_message",
    "shows_board",
    "starts_with_board",
    "complete",
    "post_turn",
    "send_quietly",
]
