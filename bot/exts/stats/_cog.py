"""The stats cog: ``/leaderboard``, ``/stats``, ``/history``, ``/replay``, ``/record``, and recording and rating
every game when it ends (the ``game_finished`` event).

Discord glue only: the records and their indexes live in :mod:`bot.storage.finished_games`, the ratings in :mod:`bot.storage.ratings`,
the GIF in :mod:`render.replay`, the text record in :mod:`engine.movetext`. Every refusal is a
:class:`~bot.core.errors.UserError` that says why (unknown game id, a game still running, no games yet, …).

Languages: a refusal and an answer only the caller sees (``ephemeral``) are in the caller's language (the command
tree and the buttons make it current); an answer the channel reads, and the rating line after a game, in the
server's (:meth:`bot.storage.settings.SettingsStore.language_of`). A game's move record file stays English: it is a
notation, read back by :mod:`engine.movetext`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Optional

import discord
from discord import app_commands
from discord.ext import commands
from discord.utils import escape_markdown

from engine.movetext import record_text
from render.replay import DISCORD_LIMIT, Replay, ReplayTooLarge, positions

from ...interface import answers, mentions
from ... import i18n
from ...core.errors import UserError
from ...games import all_kinds
from ...i18n import _, n_
from ...core.kinds import GameKind
from ...interface.options import EPHEMERAL_HELP
from ...storage.outbox import Announcement
from ...interface.posts import Picture, already_posted, board_picture, follow_up, nonce, send_quietly
from ...storage.ratings import GLOBAL, Ratings, Standing, guild_scope
from ...core.record import Record
from ...core.session import result_text
from ...interface.board_pool import build_replay
from ...storage.finished_games import Records
from ...interface.translator import untranslated
from ...i18n.wording import plain_names, player_name, result_for, result_short, shown_user
from ...interface.mentions import NO_MENTIONS
from ._buttons import BUTTONS, LeaderboardButton, leaderboard_view
from ._phrases import game_label, leaderboard_embed, rating_change_line, streak_text, when
from ...interface.options import guild_id

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)

PER_PAGE = 10
HISTORY_SIZE = 15
LAST_GAMES = 5
_GAME_ID = re.compile(r"^[a-z0-9]{4,16}$")
_REPLAY_CACHE = 4
#: The ``game`` option's choices: every hosted game, by its title (the same in every language).
GAME_CHOICES = [app_commands.Choice(name=untranslated(k.title), value=k.name) for k in all_kinds().values()]
SCOPE_CHOICES = [app_commands.Choice(name="server", value="server"), app_commands.Choice(name="global", value="global")]


def shown(record: Record) -> str:
    """16 hex digits of SHA-256 over what a picture of the finished ``record`` shows: its players' names, its moves
    and how it ended."""
    what = [list(record.plain_names), record.game_state.get("moves"), record.result and record.result.text]
    return hashlib.sha256(repr(what).encode()).hexdigest()[:16]


class Stats(commands.Cog):
    """Everything about finished games on Discord.

    Args:
        bot: the bot (posts rating changes; its ``layer`` tells a running game from an unknown one); None in
            tests of the wording alone.
        records: finished games (:class:`Records`).
        ratings: leaderboards (:class:`Ratings`).
        kinds: the hosted games by name.
    """

    def __init__(self, bot: "HongBot", records: Records, ratings: Ratings, kinds: dict[str, GameKind]) -> None:
        self.bot = bot
        self.records = records
        self.ratings = ratings
        self.kinds = kinds
        # (game id, what it shows, max bytes, language): see replay_for
        self._replays: OrderedDict[tuple[str, str, int, str], Replay] = OrderedDict()
        self._locks: dict[tuple[str, str, int, str], asyncio.Lock] = {}
        self._cpu = asyncio.Semaphore(1)  # one GIF build at a time: the machine's other core keeps the games moving
        self._recording: set[asyncio.Task] = set()

    async def cog_load(self) -> None:
        """Buttons, then record and rate any finished game left over from an earlier run (a failure is logged:
        the sweep after the next finished game retries)."""
        self.bot.add_dynamic_items(*BUTTONS)
        try:
            await self.records.sweep(scan=True)
        except Exception:
            log.exception("start-up sweep of finished games failed; it runs again after the next finished game")

    async def cog_unload(self, grace: float = 5.0) -> None:
        """Let a game being recorded finish (up to ``grace`` seconds), so no rating transaction is cut in half."""
        self.bot.remove_dynamic_items(*BUTTONS)
        if self._recording:
            await asyncio.wait(self._recording, timeout=grace)

    # --- the end of a game ------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_game_finished(self, record: Record) -> None:
        """A game has ended (its final board is posted): record and rate it, then post the rating change in the
        game's channel (:meth:`after_game`)."""
        await self.after_game(record)

    @commands.Cog.listener()
    async def on_game_result_due(self, record: Record) -> None:
        """The play cog's reconciler: a finished game's record, rating or rating line was left undone (a crash or
        a failure before it was made): finish it (:meth:`after_game`)."""
        await self.after_game(record)

    async def after_game(self, record: Record) -> None:
        """Record and rate a finished game (each exactly once), then post its rating change once, and mark the
        game's ``result`` announcement (:mod:`bot.storage.outbox`) done.

        Never raises: a failure is logged and the announcement stays for the reconciler (the game's result is
        already stored; the sweep after the next finished game, or at start-up, also records and rates it).
        """
        if not record.finished:
            return
        task = asyncio.current_task()
        if task is not None:
            self._recording.add(task)
        outbox = self.bot.layer.outbox
        announcement = Announcement.result(record)
        held = False
        try:
            if not await self.records.on_finished(record):
                return
            if not await outbox.is_pending(announcement) or not (held := await outbox.hold(announcement)):
                return  # made already, or being made by another handler right now
            change = await self.ratings.change(record.kind, guild_scope(record.guild_id), record.id)
            with i18n.language(await self._server_language(record.guild_id)):
                line = rating_change_line(record, change)
            text = f"📈 {self._title(record)} · {line}"
            if line and not await already_posted(self.bot, record.channel_id, text=text):
                if not await send_quietly(self.bot, record.channel_id, text, nonce=nonce(announcement)):
                    return
            await outbox.done(announcement)
        except Exception:
            log.exception("after game %s ended: recording or posting the rating change failed", record.id)
        finally:
            if held:
                await outbox.release(announcement)
            if task is not None:
                self._recording.discard(task)

    # --- /leaderboard -----------------------------------------------------------------------------

    @app_commands.command(name="leaderboard", description="The ranking of a game in this server or across all servers")
    @app_commands.describe(game="Which game", scope="server (default) or global", ephemeral=EPHEMERAL_HELP)
    @app_commands.choices(game=GAME_CHOICES, scope=SCOPE_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self, interaction: discord.Interaction, game: str, scope: str = "server", ephemeral: bool = False
    ) -> None:
        """Page 1 of the server's (``scope`` "server") or the global ranking of ``game`` (``ephemeral``: shown to the
        caller alone).

        Raises:
            UserError: an unknown game, or nobody rated there yet.
        """
        code = "g" if scope == "global" else "s"
        data = await self._leaderboard_page(self._kind(game), code, 0, guild_id(interaction))
        with i18n.language(await self._answer_language(interaction, ephemeral)):
            embed = leaderboard_embed(self._kind(game), code, data)
            buttons = leaderboard_view(game, code, data, guild_id(interaction), interaction.user.id)
        await answers.send(interaction, embed=embed, view=buttons, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)

    async def _leaderboard_page(self, kind: GameKind, code: str, page: int, guild_id: int):
        """One page of ``kind``'s leaderboard (``code`` "g" global, "s" the server's).

        Raises:
            UserError: nobody rated there yet.
        """
        scope = GLOBAL if code == "g" else guild_scope(guild_id)
        data = await self.ratings.page(kind.name, scope, page, PER_PAGE)
        if not data.total:
            command = mentions.command(f"{kind.name} challenge")
            if code == "g":
                raise UserError(
                    _(
                        "No rated {game} games anywhere yet. Finish one ({command}) and its players appear here.",
                        game=kind.title,
                        command=command,
                    )
                )
            raise UserError(
                _(
                    "No rated {game} games in this server yet. Finish one ({command}) and its players appear here.",
                    game=kind.title,
                    command=command,
                )
            )
        return data

    async def turn_page(self, interaction: discord.Interaction, button: LeaderboardButton) -> None:
        """Previous/Next pressed: only the user who ran the command turns the page.

        Raises:
            UserError: someone else pressed, or the leaderboard is empty now.
        """
        if interaction.user.id != button.user_id:
            raise UserError(
                _(
                    "These buttons belong to {user}'s leaderboard. Run {leaderboard} yourself to browse it.",
                    user=f"<@{button.user_id}>",
                    leaderboard=mentions.command("leaderboard"),
                )
            )
        kind = self._kind(button.kind)
        data = await self._leaderboard_page(kind, button.scope, button.page, button.guild_id)
        ephemeral = interaction.message is not None and interaction.message.flags.ephemeral
        with i18n.language(await self._answer_language(interaction, ephemeral)):
            embed = leaderboard_embed(kind, button.scope, data)
            buttons = leaderboard_view(kind.name, button.scope, data, button.guild_id, button.user_id)
        await answers.edit(interaction, embed=embed, view=buttons, allowed_mentions=NO_MENTIONS)

    # --- /stats -----------------------------------------------------------------------------------

    @app_commands.command(name="stats", description="A player's ratings, ranks, record, streak and last games")
    @app_commands.describe(
        user="Whose stats (default: yours)", game="Only this game (default: every game)", ephemeral=EPHEMERAL_HELP
    )
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def stats(
        self,
        interaction: discord.Interaction,
        user: Optional[discord.User] = None,
        game: Optional[str] = None,
        ephemeral: bool = False,
    ) -> None:
        """Rating and rank per game (this server and global), record, streak, the record by role where roles
        differ, and the last five games in this server (``ephemeral``: shown to the caller alone).

        Raises:
            UserError: a bot, or no finished game of the user's here.
        """
        who = user or interaction.user
        if who.id == self.bot.me.id:
            raise UserError(
                _(
                    "{user} plays as the computer, but games against the computer are unrated, so it has "
                    "no stats. Try {stats} for a person, or {history} for the games played here.",
                    user=shown_user(who),
                    stats=mentions.command("stats"),
                    history=mentions.command("history"),
                )
            )
        if who.bot:
            raise UserError(_("{user} is a bot: only people play here, so it has no stats.", user=shown_user(who)))
        guild = guild_id(interaction)
        kinds = [self._kind(game)] if game else list(self.kinds.values())
        recent = await self.records.recent(guild, who.id, limit=LAST_GAMES, kind=game)
        if not recent:
            if game:
                # TRANSLATORS: {game} is "Hong Kong" or "Hong"
                raise UserError(
                    _(
                        "{user} hasn't finished a {game} game in this server yet.",
                        user=shown_user(who),
                        game=kinds[0].title,
                    )
                )
            raise UserError(_("{user} hasn't finished a game in this server yet.", user=shown_user(who)))
        standings = [(kind, await self.ratings.standing(kind.name, guild_scope(guild), who.id)) for kind in kinds]
        with i18n.language(await self._answer_language(interaction, ephemeral)):
            embed = discord.Embed(title=_("{user} — stats", user=shown_user(who)), colour=discord.Colour.blurple())
            for kind, here in standings:
                if here is None:
                    if game:
                        embed.add_field(name=kind.title, value=_("No rated games in this server yet."), inline=False)
                    continue
                embed.add_field(name=kind.title, value=await self._standing_text(kind, guild, here), inline=False)
            # TRANSLATORS: one of a player's last games: "`k3x9q2ab` Hong Kong vs Ben — won · <date>"
            lines = [
                _(
                    "`{id}` {game} vs {opponent} — {result} · {date}",
                    id=r.id,
                    game=self._title(r),
                    opponent=player_name(r, 1 - (r.seat_of(who.id) or 0)),
                    result=result_for(r, who.id),
                    date=when(r.ended),
                )
                for r in recent
            ]
            embed.add_field(
                name=n_("Last game in this server", "Last {count} games in this server", len(lines)),
                value=_fit_lines(lines, 1024),
                inline=False,
            )
            embed.set_footer(text=_("Ratings: rating ± uncertainty; ? = provisional (fewer than 5 rated games)"))
        await answers.send(interaction, embed=embed, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)

    async def _standing_text(self, kind: GameKind, guild: int, here: Standing) -> str:
        rank = await self.ratings.rank(kind.name, guild_scope(guild), here.user_id)
        if rank is None:  # (a standing is written with its place on the board: see Ratings)
            raise RuntimeError(f"{here.user_id} has a {kind.name} standing but no rank in server {guild}")
        world = await self.ratings.standing(kind.name, GLOBAL, here.user_id)
        world_rank = await self.ratings.rank(kind.name, GLOBAL, here.user_id)
        if here.provisional:
            line = _(
                "Rating **{rating}** (provisional) · rank #{rank} of {players} in this server",
                rating=here.rating_text(),
                rank=rank[0],
                players=rank[1],
            )
        else:
            line = _(
                "Rating **{rating}** · rank #{rank} of {players} in this server",
                rating=here.rating_text(),
                rank=rank[0],
                players=rank[1],
            )
        lines = [line]
        if world and world_rank:
            lines.append(
                _(
                    "Global **{rating}** · rank #{rank} of {players}",
                    rating=world.rating_text(),
                    rank=world_rank[0],
                    players=world_rank[1],
                )
            )
        # TRANSLATORS: {record} is wins–losses–draws, e.g. 3–1–0; {streak} e.g. "2 wins"
        lines.append(
            n_(
                "Record {record} (W–L–D) in {count} rated game · streak: {streak}",
                "Record {record} (W–L–D) in {count} rated games · streak: {streak}",
                here.games,
                record=here.record_text(),
                streak=streak_text(here.streak),
            )
        )
        if kind.record_by_role:
            (ew, el, _draws), (dw, dl, _draws) = here.seats
            # TRANSLATORS: a player's wins–losses in each role: "As emperor 3–1 · as dragon master 2–2"
            lines.append(
                _(
                    "As {first_role} {first_record} · as {second_role} {second_record}",
                    first_role=kind.role(0),
                    first_record=f"{ew}–{el}",
                    second_role=kind.role(1),
                    second_record=f"{dw}–{dl}",
                )
            )
        return "\n".join(lines)

    # --- /history ---------------------------------------------------------------------------------

    @app_commands.command(name="history", description="Recent finished games in this server")
    @app_commands.describe(user="Only this player's games (default: everyone's)", ephemeral=EPHEMERAL_HELP)
    @app_commands.guild_only()
    async def history(
        self, interaction: discord.Interaction, user: Optional[discord.User] = None, ephemeral: bool = False
    ) -> None:
        """The server's (or the user's) recent finished games: id, game, players, result, date (``ephemeral``: shown
        to the caller alone).

        Raises:
            UserError: no finished games yet.
        """
        records = await self.records.recent(guild_id(interaction), user.id if user else None, limit=HISTORY_SIZE)
        if not records:
            if user:
                raise UserError(_("{user} hasn't finished a game in this server yet.", user=shown_user(user)))
            raise UserError(_("Nobody has finished a game in this server yet."))
        with i18n.language(await self._answer_language(interaction, ephemeral)):
            # TRANSLATORS: one finished game: "`k3x9q2ab` **Hong Kong** · Ann vs Ben — Ann won · <date>"
            lines = [
                _(
                    "`{id}` **{game}** · {first} vs {second} — {result} · {date}",
                    id=r.id,
                    game=self._title(r),
                    first=player_name(r, 0),
                    second=player_name(r, 1),
                    result=result_short(r),
                    date=when(r.ended),
                )
                for r in records
            ]
            title = (
                _("{user}'s recent games in this server", user=shown_user(user))
                if user
                else _("Recent games in this server")
            )
            embed = discord.Embed(title=title, description=_fit_lines(lines, 4000), colour=discord.Colour.blurple())
            # TRANSLATORS: {replay} and {record} are the commands /replay and /record, {game} their option "game",
            # as Discord shows them in this language (a footer can't hold mentions).
            embed.set_footer(
                text=_(
                    "{replay} {game}:<id> for an animated replay · {record} {game}:<id> for the move record",
                    replay=mentions.typed("replay"),
                    record=mentions.typed("record"),
                    game=mentions.option("replay", "game"),
                )
            )
        await answers.send(interaction, embed=embed, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)

    # --- /replay and /record ----------------------------------------------------------------------

    @app_commands.command(name="replay", description="An animated replay (GIF) of a finished game, move by move")
    @app_commands.describe(game="The game id (see /history)", ephemeral=EPHEMERAL_HELP)
    @app_commands.guild_only()
    async def replay(
        self, interaction: discord.Interaction, game: app_commands.Range[str, 1, 100], ephemeral: bool = False
    ) -> None:
        """The game as an animated GIF, posted in the channel or (``ephemeral``) to the caller (see
        :meth:`send_replay`)."""
        await self.send_replay(interaction, game, ephemeral=ephemeral)

    @app_commands.command(name="record", description="The move record of a finished game as a text file")
    @app_commands.describe(game="The game id (see /history)", ephemeral=EPHEMERAL_HELP)
    @app_commands.guild_only()
    async def record(
        self, interaction: discord.Interaction, game: app_commands.Range[str, 1, 100], ephemeral: bool = False
    ) -> None:
        """The move record as a text attachment (header lines, then one move a line); ``ephemeral``: to the caller.

        Raises:
            UserError: as :meth:`finished_here`.
        """
        record = await self.finished_here(interaction, game)
        moves = len(self.kinds[record.kind].load(record.game_state).moves)
        file = discord.File(
            io.BytesIO(self.record_text(record).encode("utf-8")), filename=f"{record.kind}-{record.id}.txt"
        )
        with i18n.language(await self._answer_language(interaction, ephemeral)):
            text = n_(
                "Move record of **{game}** `{id}` ({count} move): {first} vs {second} — {result}.",
                "Move record of **{game}** `{id}` ({count} moves): {first} vs {second} — {result}.",
                moves,
                game=self._title(record),
                id=record.id,
                first=player_name(record, 0),
                second=player_name(record, 1),
                result=result_short(record),
            )
        await answers.send(interaction, text, file=file, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)

    @replay.autocomplete("game")
    @record.autocomplete("game")
    async def game_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Autocomplete: this server's most recent finished games (≤ 25) whose label contains what was typed
        (nothing, and a log line, if they can't be read)."""
        typed = (current or "").strip().lower()
        try:
            records = await self.records.recent(guild_id(interaction), limit=100 if typed else 25)
        except Exception:
            log.exception("game id autocomplete failed")
            return []
        labels = [(game_label(r, self.kinds), r.id) for r in records]
        return [app_commands.Choice(name=label, value=gid) for label, gid in labels if typed in label.lower()][:25]

    async def finished_here(self, interaction: discord.Interaction, game_id: str) -> Record:
        """The finished game ``game_id`` of this server.

        Raises:
            UserError: not an id, a game still running, or no such finished game in this server.
        """
        gid = (game_id or "").strip().split(" ")[0].lower()
        if not _GAME_ID.match(gid):
            raise UserError(
                _(
                    "`{text}` is not a game id: ids are 8 letters and digits, like `k3x9q2ab`. Pick one "
                    "from the list as you type, or see {history}.",
                    text=escape_markdown(game_id[:40]),
                    history=mentions.command("history"),
                )
            )
        record = await self.records.find(gid)
        if record is None and interaction.channel_id is not None:
            # just finished here (the Replay button under its last board, pressed at once): the record is stored
            # with the game's last change, the index that finds it in any channel a moment later (game_finished)
            record = await self.bot.layer.store.finished(interaction.channel_id, gid)
        if record is None or record.guild_id != interaction.guild_id:
            running = await self.bot.layer.active_games(guild_id(interaction))
            if any(r.id == gid for r, _game in running):
                raise UserError(
                    _("Game `{id}` is still being played; its replay and record are ready once it ends.", id=gid)
                )
            raise UserError(
                _(
                    "There is no finished game `{id}` in this server. See {history} for the games played here.",
                    id=gid,
                    history=mentions.command("history"),
                )
            )
        return record

    async def send_replay(self, interaction: discord.Interaction, game_id: str, *, ephemeral: bool = False) -> None:
        """``/replay`` and the Replay button (``ephemeral``: for the presser only): the game as an animated GIF,
        one frame per move.

        Raises:
            UserError: as :meth:`finished_here`.
        """
        record = await self.finished_here(interaction, game_id)
        await answers.defer(interaction, thinking=True, ephemeral=ephemeral)
        i18n.use(await self._answer_language(interaction, ephemeral))  # the rest of this task: the replay's language
        limit = min(DISCORD_LIMIT, getattr(interaction, "filesize_limit", DISCORD_LIMIT) or DISCORD_LIMIT)
        try:
            await self._post_replay(interaction, record, limit, ephemeral)
        except (ReplayTooLarge, discord.HTTPException) as exc:
            if isinstance(exc, discord.HTTPException) and exc.status != 413:
                raise
            await self._replay_too_large(interaction, record, limit, ephemeral)

    async def _post_replay(self, interaction: discord.Interaction, record: Record, limit: int, ephemeral: bool) -> None:
        """Build the replay under ``limit`` bytes and post it as the deferred answer.

        Raises:
            ReplayTooLarge: it can't be made small enough; discord.HTTPException: the post failed (413: too large).
        """
        replay = await self.replay_for(record, limit)
        # TRANSLATORS: {seconds} is the replay's length in seconds ("s" its unit)
        text = n_(
            "**{game}** `{id}`: {first} vs {second} — {result}. Replay: {count} move, {seconds} s.",
            "**{game}** `{id}`: {first} vs {second} — {result}. Replay: {count} moves, {seconds} s.",
            replay.frames - 1,
            game=self._title(record),
            id=record.id,
            first=player_name(record, 0),
            second=player_name(record, 1),
            result=result_short(record),
            seconds=round(replay.duration_ms / 1000),
        )
        name = f"{record.kind}-{record.id}.gif"
        # TRANSLATORS: a replay's alt text. {game} is "Hong Kong" or "Hong"; {first}, {second} the players; {result}
        # how the game ended (a sentence).
        alt = n_(
            "Animated replay of {game}, {first} vs {second}, {count} move. {result}",
            "Animated replay of {game}, {first} vs {second}, {count} moves. {result}",
            replay.frames - 1,
            game=self._title(record),
            first=player_name(record, 0),
            second=player_name(record, 1),
            result=result_text(self.kinds[record.kind], record),
        )
        picture = Picture(replay.gif, alt)
        if ephemeral:  # seen by the caller alone: discord.py's own retry (a rare duplicate only they see)
            await answers.send(
                interaction, text[:2000], file=picture.file(name), ephemeral=True, allowed_mentions=NO_MENTIONS
            )
        else:  # the channel's: once (bot.interface.posts.follow_up)
            await follow_up(self.bot, interaction, text, data=picture, name=name, allowed_mentions=NO_MENTIONS)

    async def _replay_too_large(
        self, interaction: discord.Interaction, record: Record, limit: int, ephemeral: bool
    ) -> None:
        """The replay can't be uploaded here (over the server's limit even at its smallest): the caller alone is
        told so and gets the game's final board instead, or — if even that is over the limit — the way to its text
        record. A public "thinking…" placeholder is removed first, so nothing of it shows in the channel. Said in
        the caller's language."""
        i18n.use(interaction.locale)
        if not ephemeral:
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
        kind = self.kinds[record.kind]
        board = await board_picture(kind, kind.load(record.game_state), record)
        where = f"**{self._title(record)}** `{record.id}`"
        size = f"{limit / 1_000_000:.1f} MB" if limit >= 1_000_000 else f"{limit // 1000} KB"
        files = [board.file("board.png")] if len(board.data) < limit else []
        # TRANSLATORS: {game} is e.g. **Hong Kong** `k3x9q2ab`; {size} an upload limit, e.g. 8.0 MB
        if files:
            text = _(
                "The replay of {game} is too large for this server's upload limit ({size}) even at its smallest, "
                "so here is its final board instead. {record} `{option}:{id}` gives every move as text.",
                game=where,
                size=size,
                record=mentions.command("record"),
                option=mentions.option("record", "game"),
                id=record.id,
            )
        else:
            text = _(
                "The replay of {game} is too large for this server's upload limit ({size}) even at its smallest, "
                "and so is a picture of its final board. {record} `{option}:{id}` gives every move as text.",
                game=where,
                size=size,
                record=mentions.command("record"),
                option=mentions.option("record", "game"),
                id=record.id,
            )
        await answers.send(interaction, text, files=files, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def replay_for(self, record: Record, max_bytes: int = DISCORD_LIMIT) -> Replay:
        """The game's GIF in the current language (its words), built in a worker thread (one build at a time; the
        last few are kept in memory, and simultaneous requests for the same game share one build). A kept GIF is
        found by what it shows (:func:`shown`), so a record rewritten since (a player forgotten: ``/privacy
        forget``) is drawn again, never served as it was.

        Raises:
            engine.IllegalMove: the stored record does not replay.
        """
        key = (record.id, shown(record), max_bytes, i18n.current())
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            replay = self._replays.get(key)
            if replay is None:
                async with self._cpu:
                    replay = await asyncio.to_thread(self._build_replay, record, max_bytes)
                self._replays[key] = replay
                while len(self._replays) > _REPLAY_CACHE:
                    self._replays.popitem(last=False)
        self._locks.pop(key, None)
        return replay

    def _build_replay(self, record: Record, max_bytes: int) -> Replay:
        kind = self.kinds[record.kind]
        moves = list(kind.load(record.game_state).moves)
        # (in a worker thread with the caller's context: frames and captions in the language of the answer)
        return build_replay(
            kind,
            kind.new_game(record.options),
            moves,
            plain_names(record),
            max_bytes=max_bytes,
            final_text=discord.utils.remove_markdown(result_short(record)),
            ended=record.ended_off_board,
        )

    def record_text(self, record: Record) -> str:
        """The text of a game's record (see :mod:`engine.movetext`), in English whoever asks (a notation, read back
        by its parser); replays the moves to name who played each."""
        kind = self.kinds[record.kind]
        moves = list(kind.load(record.game_state).moves)
        movers = [
            mover for _before, _move, mover in positions(kind.new_game(record.options), moves) if mover is not None
        ]  # (the opening has no mover)
        first = movers[0] if movers else kind.new_game(record.options).to_move
        with i18n.language(i18n.SOURCE):
            options = kind.describe_options(record.options) or "none"
        return record_text(
            record.to_dict(), title=kind.title, roles=kind.roles, options_text=options, movers=movers, first=first
        )

    # --- helpers ----------------------------------------------------------------------------------

    def _kind(self, name: str) -> GameKind:
        if name not in self.kinds:
            raise UserError(_("Unknown game `{name}`: choose one of {games}.", name=name, games=", ".join(self.kinds)))
        return self.kinds[name]

    async def _server_language(self, guild_id: int | None) -> str:
        """The language of public posts in the server ``guild_id`` (known even when it is not in the cache)."""
        if guild_id is None:
            return i18n.SOURCE
        guild = self.bot.get_guild(guild_id)
        return await self.bot.layer.settings.language_of(guild or discord.Object(guild_id))

    async def _answer_language(self, interaction: discord.Interaction, ephemeral: bool) -> str:
        """The language of an answer: the caller's (current) when only they see it, else the server's."""
        return i18n.current() if ephemeral else await self._server_language(interaction.guild_id)

    def _title(self, record: Record) -> str:
        kind = self.kinds.get(record.kind)
        return kind.title if kind else record.kind


def _fit_lines(lines: list[str], limit: int) -> str:
    """Whole lines joined by newlines, as many as fit in ``limit`` characters."""
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


__all__ = ["Stats", "GAME_CHOICES"]
