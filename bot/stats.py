"""The commands about finished games: ``/leaderboard``, ``/stats``, ``/history``, ``/replay``, ``/record``,
the **Replay** button on every final board, and the leaderboard's Previous/Next buttons.

Discord glue only: the records and their indexes live in :mod:`bot.records`, the ratings in :mod:`bot.ratings`,
the GIF and text in :mod:`render.replay` and :mod:`render.record`. :func:`setup` wires it into the bot
(one call from ``HongBot.setup_hook``); :meth:`Stats.game_over` is the one call made when a game ends
(from ``Table.on_finished``). The Replay button joins ``Table.final_items``, the buttons of every final board.

Every refusal is ephemeral and says why (unknown game id, a game still running, no games yet, …). Buttons are
``DynamicItem``\\ s whose ``custom_id`` carries everything they need, so they work after a restart and on any
bot process.
"""
from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Optional

import discord
from discord import app_commands
from discord.utils import escape_markdown

from render.record import record_text
from render.replay import DISCORD_LIMIT, Replay, build_gif, positions

from .kinds import GameKind
from .ratings import GLOBAL, Page, Ratings, Standing, guild_scope
from .records import Records
from .session import UserError, ended_off_board, plain_names

if TYPE_CHECKING:
    from .client import HongBot

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
PER_PAGE = 10
HISTORY_SIZE = 15
LAST_GAMES = 5
_GAME_ID = re.compile(r"^[a-z0-9]{4,16}$")
_REPLAY_CACHE = 4


# --- words ------------------------------------------------------------------------------------------


def player_name(doc: dict, seat: int, limit: int = 32) -> str:
    """A player's name from a record, shortened to ``limit`` characters and escaped for Discord markdown."""
    name = str(doc["players"][seat]["name"])
    if len(name) > limit:
        name = name[: limit - 1] + "…"
    return escape_markdown(name)


def result_short(doc: dict) -> str:
    """"Ann won", "Ann won by resignation", "Ben won on time", "draw", "aborted", from a finished record."""
    result = doc.get("result") or {}
    reason = result.get("reason")
    if reason == "aborted":
        return "aborted"
    winner = result.get("winner")
    if winner is None:
        return "draw"
    how = {"resigned": " by resignation", "timeout": " on time"}.get(reason, "")
    return f"{player_name(doc, winner)} won{how}"


def result_for(doc: dict, user_id: int) -> str:
    """The result from one player's side: "won", "lost", "draw" or "aborted", with how it ended."""
    result = doc.get("result") or {}
    reason = result.get("reason")
    if reason == "aborted":
        return "aborted"
    winner = result.get("winner")
    if winner is None:
        return "draw"
    seat = next((s for s, p in enumerate(doc["players"]) if p["id"] == user_id), None)
    how = {"resigned": " (resignation)", "timeout": " (on time)"}.get(reason, "")
    return ("won" if winner == seat else "lost") + how


def when(ts: float | None, style: str = "d") -> str:
    """A Discord timestamp (shown in each reader's own time zone and language), or "?"."""
    return f"<t:{int(ts)}:{style}>" if ts else "?"


def streak_text(streak: int) -> str:
    """+3 → "3 wins", −1 → "1 loss", 0 → "none"."""
    if streak > 0:
        return f"{streak} win{'s' if streak != 1 else ''}"
    if streak < 0:
        return f"{-streak} loss{'es' if streak != -1 else ''}"
    return "none"


def signed(n: int) -> str:
    """A rating change with its sign: "+158", "−158" (a real minus sign), "±0"."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "±0"


def rating_change_line(doc: dict, change: dict[int, tuple[int, int]] | None) -> str:
    """"ratings in this server: Ann 1500 → 1658 (+158) · Ben 1500 → 1342 (−158)", or "" when unrated."""
    if not change:
        return ""
    parts = []
    for seat, player in enumerate(doc["players"]):
        before, after = change.get(player["id"], (None, None))
        if before is not None:
            parts.append(f"{player_name(doc, seat)} {before} → {after} ({signed(after - before)})")
    return "ratings in this server: " + " · ".join(parts)


def game_label(doc: dict, kinds: dict[str, GameKind]) -> str:
    """One line about a game for autocomplete (≤ 100 characters): id, game, players, date (UTC)."""
    title = kinds[doc["kind"]].title if doc["kind"] in kinds else doc["kind"]
    a, b = (str(p["name"])[:24] for p in doc["players"])
    day = time.strftime("%Y-%m-%d", time.gmtime(doc.get("ended") or 0))
    return f"{doc['id']} · {title}: {a} vs {b} · {day}"[:100]


def leaderboard_embed(kind: GameKind, scope_label: str, page: Page) -> discord.Embed:
    """The embed of one leaderboard page (rank, player, rating ± uncertainty or "?", games, W–L–D)."""
    lines = []
    for rank, s in page.entries:
        name = escape_markdown(s.name[:32])
        rating = f"**{s.rating}**" + ("?" if s.provisional else "")
        lines.append(f"`{rank:>3}.` {name} — {rating} ± {s.uncertainty} · {s.games} game{'s' if s.games != 1 else ''}"
                     f" · {s.record_text()}")
    embed = discord.Embed(title=f"{kind.title} — {scope_label} leaderboard", description="\n".join(lines),
                          colour=discord.Colour.blurple())
    embed.set_footer(text=f"Page {page.page + 1}/{page.pages} · {page.total} player{'s' if page.total != 1 else ''}"
                          f" · rating ± uncertainty · W–L–D · ? = provisional (fewer than 5 rated games)")
    return embed


# --- buttons ----------------------------------------------------------------------------------------


class ReplayButton(discord.ui.DynamicItem[discord.ui.Button], template=r"hb:replay:(?P<game>[a-z0-9]{1,16})"):
    """"Replay" on a final board: the clicker gets the game's animated GIF (ephemeral, so clicks don't
    flood the channel). The game id rides in the custom_id (restart-safe)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(discord.ui.Button(label="Replay", emoji="🎞️", style=discord.ButtonStyle.secondary,
                                           custom_id=f"hb:replay:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        stats: Stats = interaction.client.stats  # type: ignore[attr-defined]
        await stats.guarded(interaction, stats.replay(interaction, self.game_id, ephemeral=True))


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"hb:lb:(?P<dir>[pn]):(?P<kind>[a-z]{1,32}):(?P<scope>[sg]):(?P<page>\d{1,6}):(?P<guild>\d{1,20}):(?P<user>\d{1,20})",
):
    """Previous / Next on a leaderboard. The custom_id carries (game, scope, target page, guild, user); only
    the user who ran ``/leaderboard`` can turn its pages, everyone else gets an ephemeral note."""

    def __init__(self, direction: str, kind: str, scope: str, page: int, guild_id: int, user_id: int,
                 *, disabled: bool = False) -> None:
        label = "Previous" if direction == "p" else "Next"
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary, disabled=disabled,
            custom_id=f"hb:lb:{direction}:{kind}:{scope}:{page}:{guild_id}:{user_id}",
        ))
        self.direction, self.kind, self.scope, self.page = direction, kind, scope, page
        self.guild_id, self.user_id = guild_id, user_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]):
        return cls(match["dir"], match["kind"], match["scope"], int(match["page"]), int(match["guild"]), int(match["user"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        stats: Stats = interaction.client.stats  # type: ignore[attr-defined]
        await stats.guarded(interaction, stats.turn_page(interaction, self))


def leaderboard_view(kind: str, scope: str, page: Page, guild_id: int, user_id: int) -> discord.ui.View:
    """Previous / Next for ``page`` (scope "s" server or "g" global), disabled at the ends."""
    view = discord.ui.View(timeout=None)
    view.add_item(LeaderboardButton("p", kind, scope, max(0, page.page - 1), guild_id, user_id, disabled=page.page == 0))
    view.add_item(LeaderboardButton("n", kind, scope, page.page + 1, guild_id, user_id,
                                    disabled=page.page >= page.pages - 1))
    return view


def replay_view(game_id: str) -> discord.ui.View:
    """A view with just the Replay button of ``game_id``."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(game_id))
    return view


# --- the commands -----------------------------------------------------------------------------------


class Stats:
    """Everything about finished games on Discord: one instance per bot (``bot.stats``).

    Args:
        bot: the running client (its ``table`` answers refusals).
        records: finished games (:class:`Records`).
        ratings: leaderboards (:class:`Ratings`).
        kinds: the hosted games by name.
    """

    def __init__(self, bot: "HongBot", records: Records, ratings: Ratings, kinds: dict[str, GameKind]) -> None:
        self.bot = bot
        self.records = records
        self.ratings = ratings
        self.kinds = kinds
        self._replays: OrderedDict[tuple[str, int], Replay] = OrderedDict()
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        self._cpu = asyncio.Semaphore(1)  # one GIF build at a time: the machine's other core keeps the games moving

    async def guarded(self, interaction: discord.Interaction, work) -> None:
        """Run ``work`` with the table's refusal handling (UserError → ephemeral reason)."""
        await self.bot.table.guarded(interaction, work)

    # --- the end of a game ------------------------------------------------------------------------

    async def game_over(self, doc: dict) -> None:
        """Called when a game has ended (after its final board is posted): record and rate it, then post the
        rating change in the game's channel. Does nothing for a record that is not finished.

        Never raises: a failure is logged; the game's result is already stored, and the sweep after the next
        finished game (or at start-up) records and rates it.
        """
        if doc.get("status") != "finished":
            return
        try:
            await self.records.on_finished(doc)
            change = await self.ratings.change(doc["kind"], guild_scope(doc["guild_id"]), doc["id"])
            line = rating_change_line(doc, change)
            if line:
                await self.bot.get_partial_messageable(doc["channel_id"]).send(
                    f"📈 {self._title(doc)} · {line}"[:2000], allowed_mentions=NO_MENTIONS)
        except Exception:
            log.exception("after game %s ended: recording or posting the rating change failed", doc.get("id"))

    # --- /leaderboard -----------------------------------------------------------------------------

    async def leaderboard(self, interaction: discord.Interaction, kind_name: str, scope: str) -> None:
        """``/leaderboard game: scope:``: page 1 of the server's (``scope`` "server") or the global ranking."""
        kind = self._kind(kind_name)
        code = "g" if scope == "global" else "s"
        embed, view = await self._leaderboard_page(kind, code, 0, interaction.guild_id, interaction.user.id)
        await interaction.response.send_message(embed=embed, view=view, allowed_mentions=NO_MENTIONS)

    async def _leaderboard_page(self, kind: GameKind, code: str, page: int, guild_id: int, user_id: int):
        scope = GLOBAL if code == "g" else guild_scope(guild_id)
        data = await self.ratings.page(kind.name, scope, page, PER_PAGE)
        if not data.total:
            where = "anywhere" if code == "g" else "in this server"
            raise UserError(f"No rated {kind.title} games {where} yet. Finish one (/{kind.name} challenge) "
                            "and its players appear here.")
        label = "global" if code == "g" else "this server's"
        return leaderboard_embed(kind, label, data), leaderboard_view(kind.name, code, data, guild_id, user_id)

    async def turn_page(self, interaction: discord.Interaction, button: LeaderboardButton) -> None:
        """Previous/Next: only the user who ran the command turns the page (others: an ephemeral note)."""
        if interaction.user.id != button.user_id:
            raise UserError(f"These buttons belong to <@{button.user_id}>'s leaderboard. "
                            "Run /leaderboard yourself to browse it.")
        kind = self._kind(button.kind)
        embed, view = await self._leaderboard_page(kind, button.scope, button.page, button.guild_id, button.user_id)
        await interaction.response.edit_message(embed=embed, view=view, allowed_mentions=NO_MENTIONS)

    # --- /stats -----------------------------------------------------------------------------------

    async def stats(self, interaction: discord.Interaction, user: discord.abc.User | None, kind_name: str | None) -> None:
        """``/stats [user] [game]``: rating and rank per game (this server and global), record, streak,
        the Hong record by role, and the last five games in this server."""
        user = user or interaction.user
        if user.bot:
            raise UserError(f"{user.display_name} is a bot: bots don't play, so they have no stats.")
        guild = interaction.guild_id
        kinds = [self._kind(kind_name)] if kind_name else list(self.kinds.values())
        recent = await self.records.recent(guild, user.id, limit=LAST_GAMES, kind=kind_name)
        if not recent:
            what = f"{kinds[0].title} game" if kind_name else "game"
            raise UserError(f"{user.display_name} hasn't finished a {what} in this server yet.")
        embed = discord.Embed(title=f"{escape_markdown(user.display_name[:64])} — stats", colour=discord.Colour.blurple())
        for kind in kinds:
            here = await self.ratings.standing(kind.name, guild_scope(guild), user.id)
            if here is None:
                if kind_name:
                    embed.add_field(name=kind.title, value="No rated games in this server yet.", inline=False)
                continue
            embed.add_field(name=kind.title, value=await self._standing_text(kind, guild, here), inline=False)
        lines = [f"`{d['id']}` {self._title(d)} vs {player_name(d, 1 - self._seat(d, user.id))} — "
                 f"{result_for(d, user.id)} · {when(d.get('ended'))}" for d in recent]
        embed.add_field(name=f"Last {len(lines)} game{'s' if len(lines) != 1 else ''} in this server",
                        value=_fit_lines(lines, 1024), inline=False)
        embed.set_footer(text="Ratings: rating ± uncertainty; ? = provisional (fewer than 5 rated games)")
        await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    async def _standing_text(self, kind: GameKind, guild: int, here: Standing) -> str:
        rank = await self.ratings.rank(kind.name, guild_scope(guild), here.user_id)
        world = await self.ratings.standing(kind.name, GLOBAL, here.user_id)
        world_rank = await self.ratings.rank(kind.name, GLOBAL, here.user_id)
        provisional = " (provisional)" if here.provisional else ""
        lines = [f"Rating **{here.rating_text()}**{provisional} · rank #{rank[0]} of {rank[1]} in this server"]
        if world and world_rank:
            lines.append(f"Global **{world.rating_text()}** · rank #{world_rank[0]} of {world_rank[1]}")
        lines.append(f"Record {here.record_text()} (W–L–D) in {here.games} rated game{'s' if here.games != 1 else ''}"
                     f" · streak: {streak_text(here.streak)}")
        if kind.name == "hong":
            (ew, el, _), (dw, dl, _) = here.seats
            lines.append(f"As {kind.roles[0]} {ew}–{el} · as {kind.roles[1]} {dw}–{dl}")
        return "\n".join(lines)

    # --- /history ---------------------------------------------------------------------------------

    async def history(self, interaction: discord.Interaction, user: discord.abc.User | None) -> None:
        """``/history [user]``: the server's (or the user's) recent finished games: id, game, players, result, date."""
        docs = await self.records.recent(interaction.guild_id, user.id if user else None, limit=HISTORY_SIZE)
        if not docs:
            who = f"{user.display_name} hasn't" if user else "Nobody has"
            raise UserError(f"{who} finished a game in this server yet.")
        lines = [f"`{d['id']}` **{self._title(d)}** · {player_name(d, 0)} vs {player_name(d, 1)} — "
                 f"{result_short(d)} · {when(d.get('ended'))}" for d in docs]
        title = f"{escape_markdown(user.display_name[:64])}'s recent games" if user else "Recent games"
        embed = discord.Embed(title=f"{title} in this server", description=_fit_lines(lines, 4000),
                              colour=discord.Colour.blurple())
        embed.set_footer(text="/replay game:<id> for an animated replay · /record game:<id> for the move record")
        await interaction.response.send_message(embed=embed, allowed_mentions=NO_MENTIONS)

    # --- /replay and /record ----------------------------------------------------------------------

    async def finished_here(self, interaction: discord.Interaction, game_id: str) -> dict:
        """The finished game ``game_id`` of this server.

        Raises:
            UserError: not an id, a game still running, or no such finished game in this server.
        """
        gid = (game_id or "").strip().split(" ")[0].lower()
        if not _GAME_ID.match(gid):
            raise UserError(f"`{escape_markdown(game_id[:40])}` is not a game id: ids are 8 letters and digits, like "
                            "`k3x9q2ab`. Pick one from the list as you type, or see /history.")
        doc = await self.records.find(gid)
        if doc is None or doc.get("guild_id") != interaction.guild_id:
            running = await self.bot.table.layer.active_games(interaction.guild_id)
            if any(d.get("id") == gid for d, _ in running):
                raise UserError(f"Game `{gid}` is still being played; its replay and record are ready once it ends.")
            raise UserError(f"There is no finished game `{gid}` in this server. See /history for the games played here.")
        return doc

    async def replay(self, interaction: discord.Interaction, game_id: str, *, ephemeral: bool = False) -> None:
        """``/replay game:`` (and the Replay button): the game as an animated GIF, one frame per move."""
        doc = await self.finished_here(interaction, game_id)
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)
        limit = min(DISCORD_LIMIT, getattr(interaction, "filesize_limit", DISCORD_LIMIT) or DISCORD_LIMIT)
        replay = await self.replay_for(doc, limit)
        a, b = player_name(doc, 0), player_name(doc, 1)
        text = (f"**{self._title(doc)}** `{doc['id']}`: {a} vs {b} — {result_short(doc)}. "
                f"Replay: {replay.frames - 1} moves, {round(replay.duration_ms / 1000)} s.")
        file = discord.File(io.BytesIO(replay.gif), filename=f"{doc['kind']}-{doc['id']}.gif")
        await interaction.followup.send(text[:2000], file=file, ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)

    async def replay_for(self, doc: dict, max_bytes: int = DISCORD_LIMIT) -> Replay:
        """The game's GIF, built in a worker thread (one build at a time; the last few are kept in memory,
        and simultaneous requests for the same game share one build).

        Raises:
            engine.IllegalMove: the stored record does not replay.
        """
        key = (doc["id"], max_bytes)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            replay = self._replays.get(key)
            if replay is None:
                async with self._cpu:
                    replay = await asyncio.to_thread(self._build_replay, doc, max_bytes)
                self._replays[key] = replay
                while len(self._replays) > _REPLAY_CACHE:
                    self._replays.popitem(last=False)
        self._locks.pop(key, None)
        return replay

    def _build_replay(self, doc: dict, max_bytes: int) -> Replay:
        kind = self.kinds[doc["kind"]]
        moves = list(kind.load(doc["state"]).moves)
        return build_gif(kind.new_game(doc["options"]), moves, kind.render, plain_names(doc), max_bytes=max_bytes,
                         final_text=discord.utils.remove_markdown(result_short(doc)), ended=ended_off_board(doc))

    async def record(self, interaction: discord.Interaction, game_id: str) -> None:
        """``/record game:``: the move record as a text attachment (header lines, then one move a line)."""
        doc = await self.finished_here(interaction, game_id)
        text = self.record_text(doc)
        moves = len(self.kinds[doc["kind"]].load(doc["state"]).moves)
        file = discord.File(io.BytesIO(text.encode("utf-8")), filename=f"{doc['kind']}-{doc['id']}.txt")
        await interaction.response.send_message(
            f"Move record of **{self._title(doc)}** `{doc['id']}` ({moves} moves): "
            f"{player_name(doc, 0)} vs {player_name(doc, 1)} — {result_short(doc)}.",
            file=file, allowed_mentions=NO_MENTIONS,
        )

    def record_text(self, doc: dict) -> str:
        """The text of a game's record (see :mod:`render.record`); replays the moves to name who played each."""
        kind = self.kinds[doc["kind"]]
        moves = list(kind.load(doc["state"]).moves)
        start = kind.new_game(doc["options"])
        movers = [mover for _, _, mover in positions(start, moves)][1:]
        first = movers[0] if movers else kind.new_game(doc["options"]).to_move
        return record_text(doc, title=kind.title, roles=kind.roles, options_text=kind.describe_options(doc["options"]),
                           movers=movers, first=first)

    async def game_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Autocomplete: this server's most recent finished games (≤ 25) whose label contains what was typed."""
        typed = (current or "").strip().lower()
        docs = await self.records.recent(interaction.guild_id, limit=100 if typed else 25)
        labels = [(game_label(d, self.kinds), d["id"]) for d in docs]
        return [app_commands.Choice(name=label, value=gid) for label, gid in labels if typed in label.lower()][:25]

    # --- helpers ----------------------------------------------------------------------------------

    def _kind(self, name: str) -> GameKind:
        if name not in self.kinds:
            raise UserError(f"Unknown game `{name}`: choose one of {', '.join(self.kinds)}.")
        return self.kinds[name]

    def _title(self, doc: dict) -> str:
        kind = self.kinds.get(doc["kind"])
        return kind.title if kind else doc["kind"]

    @staticmethod
    def _seat(doc: dict, user_id: int) -> int:
        return next((s for s, p in enumerate(doc["players"]) if p["id"] == user_id), 0)

    # --- registration -----------------------------------------------------------------------------

    def commands(self) -> list[app_commands.Command]:
        """The five slash commands (server-only)."""
        game_choices = [app_commands.Choice(name=k.title, value=k.name) for k in self.kinds.values()]

        @app_commands.command(name="leaderboard", description="The ranking of a game in this server or across all servers")
        @app_commands.describe(game="Which game", scope="server (default) or global")
        @app_commands.choices(game=game_choices, scope=[app_commands.Choice(name="server", value="server"),
                                                        app_commands.Choice(name="global", value="global")])
        @app_commands.guild_only()
        async def leaderboard(interaction: discord.Interaction, game: str, scope: str = "server") -> None:
            await self.guarded(interaction, self.leaderboard(interaction, game, scope))

        @app_commands.command(name="stats", description="A player's ratings, ranks, record, streak and last games")
        @app_commands.describe(user="Whose stats (default: yours)", game="Only this game")
        @app_commands.choices(game=game_choices)
        @app_commands.guild_only()
        async def stats(interaction: discord.Interaction, user: Optional[discord.User] = None,
                        game: Optional[str] = None) -> None:
            await self.guarded(interaction, self.stats(interaction, user, game))

        @app_commands.command(name="history", description="Recent finished games in this server")
        @app_commands.describe(user="Only this player's games")
        @app_commands.guild_only()
        async def history(interaction: discord.Interaction, user: Optional[discord.User] = None) -> None:
            await self.guarded(interaction, self.history(interaction, user))

        @app_commands.command(name="replay", description="An animated replay (GIF) of a finished game, move by move")
        @app_commands.describe(game="The game id (see /history)")
        @app_commands.guild_only()
        async def replay(interaction: discord.Interaction, game: app_commands.Range[str, 1, 100]) -> None:
            await self.guarded(interaction, self.replay(interaction, game))

        @app_commands.command(name="record", description="The move record of a finished game as a text file")
        @app_commands.describe(game="The game id (see /history)")
        @app_commands.guild_only()
        async def record(interaction: discord.Interaction, game: app_commands.Range[str, 1, 100]) -> None:
            await self.guarded(interaction, self.record(interaction, game))

        async def ids(interaction: discord.Interaction, current: str):
            try:
                return await self.game_choices(interaction, current)
            except Exception:
                log.exception("game id autocomplete failed")
                return []

        replay.autocomplete("game")(ids)
        record.autocomplete("game")(ids)
        return [leaderboard, stats, history, replay, record]


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


async def setup(bot: Any) -> Stats:
    """Add the stats commands and buttons to ``bot`` (after its ``table`` exists, before commands are synced),
    set ``bot.stats``, and record and rate any finished game left over from an earlier run.

    Returns:
        The :class:`Stats`.
    """
    layer = bot.table.layer
    ratings = Ratings(layer.store.redis)
    records = Records(layer.store, ratings, clock=layer.clock)
    stats = Stats(bot, records, ratings, layer.kinds)
    for command in stats.commands():
        bot.tree.add_command(command)
    bot.add_dynamic_items(ReplayButton, LeaderboardButton)
    bot.table.final_items.append(ReplayButton)  # every final board gets a Replay button
    bot.stats = stats
    try:
        await records.sweep(scan=True)
    except Exception:
        log.exception("start-up sweep of finished games failed; it runs again after the next finished game")
    return stats


__all__ = ["Stats", "ReplayButton", "LeaderboardButton", "setup"]
