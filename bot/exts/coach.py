"""The computer as a coach: ``/analyse`` (and the Analyse button under a finished game's last board) and ``/hint``.

``/analyse game:<id>``: the computer judges every move of a finished game of this server (:mod:`engine.ai.analysis`:
the mover's chance to win before and after, the move it would have played; a drop of at least 10 points of the
chance to win is an *inaccuracy*, 20 a *mistake*, 30 a *blunder*), then posts a win-chance graph
(:mod:`render.analysis`) and each player's three worst moves with the better move and a board of it. The analysis
runs in a worker process of its own (:class:`Analyst`), spawned like the computer's (:mod:`bot.interface.computer_pool`)
and :data:`ANALYSIS_NICE` steps below the bot — lower than the computer's thinking — so it takes only the CPU that
people's moves and the computer's leave. The answer is "Analysing…" at once, edited into the result when it is ready;
the result is kept in Redis (:mod:`bot.storage.analyses`) so a second request is answered at once.

``/hint``: in a game against the computer, the caller (on their turn) privately gets the move the computer would play
for them and what it gains in one line (the game's own words for what a move did: a capture, a sealed building, a
Hong made). Hints are counted per seat and game (:mod:`bot.storage.analyses`) and the count is shown with every
hint and in the game's analysis ("hints used: 2"); games against the computer are never rated, so a hint changes no
rating. In a game between people ``/hint`` refuses.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, cast

import discord
from discord import app_commands
from discord.ext import commands

from engine.ai.analysis import BLUNDER, INACCURACY, MISTAKE, VERSION, Analysis, Verdict, analyse, can_analyse
from engine.result import EndReason
from render.analysis import graph_png
from render.common import Palette

from .. import i18n
from ..budget import COMPUTER_REPLY, DISCORD_FOLLOW_UP
from ..core.errors import UserError
from ..core.invocation import invocation
from ..core.kinds import Game, GameKind
from ..core.record import Record
from ..i18n import _, n_, p_
from ..i18n.wording import GAME_ID, player_name
from ..interface import answers, mentions
from ..interface.board_pool import CHANNEL, renderer
from ..interface.buttons import GameButton, cog_named
from ..interface.computer_pool import WorkerPool, _start_worker, time_left
from ..interface.mentions import NO_MENTIONS
from ..interface.options import EPHEMERAL_HELP, guild_id
from ..interface.posts import Picture
from ..storage.analyses import Analyses
from .stats._phrases import game_label

if TYPE_CHECKING:
    from ..interface.client import HongBot
    from .stats import Stats

log = logging.getLogger(__name__)

#: How much lower than the bot the analysis worker runs (``os.nice`` steps): below the computer's thinking (10).
ANALYSIS_NICE = 15
#: Seed of every analysis (the same game gives the same analysis).
SEED = 0
#: Each player's worst moves shown.
WORST = 3
#: Analyses this process runs or queues at once; beyond, a new one is refused ("try again in a few minutes"), so the
#: queue never outlasts an interaction's 15 minutes.
MAX_QUEUED = 10


def _analyse(state: dict[str, Any]) -> dict[str, Any]:
    """In the worker: the analysis of a game's ``to_dict()`` as a dict."""
    return analyse(state, seed=SEED).to_dict()


def _hint(state: dict[str, Any], until: float | None = None) -> tuple[str, float]:
    """In the worker: the computer's move for the player to move and their chance after it (0–1), its search ended
    by ``until`` (Unix seconds, wall time; :func:`bot.interface.computer_pool.time_left`)."""
    import random
    import time

    from engine import registry
    from engine.ai import SETTINGS
    from engine.ai.analysis import _coach

    game = registry.find(str(state["game"])).load(state)
    coach = _coach(game.kind)
    settings = SETTINGS[game.kind]["hard"]
    left = time_left(until, game.kind, "hard", SETTINGS)
    seconds = settings["seconds"] if left is None else left
    if coach is None:
        from engine.ai import choose_move

        return choose_move(game, "hard", seconds=seconds), 0.5
    best, chance, _after = coach.assess(
        game,
        random.Random(f"hint:{len(game.moves)}"),
        nodes=settings["nodes"],
        depth=settings["depth"],
        deadline=time.perf_counter() + seconds,
    )
    return best, chance


def _graph(
    chances: list[float],
    names: tuple[str, str],
    palette: Palette,
    marks: list[int],
    ending: tuple[float, str] | None,
    language: str,
    locales: Path | None = None,
) -> bytes:
    """In a board worker (:mod:`bot.interface.board_pool`): the graph's PNG in ``language``, from the catalogs in
    ``locales`` (the bot's :data:`bot.i18n.LOCALES`); the marks labelled with their move numbers."""
    if locales is not None and locales != i18n.LOCALES:
        i18n.LOCALES = locales
        i18n.reload()
    return graph_png(
        chances,
        names,
        palette,
        marks=marks,
        mark_labels=[str(ply) for ply in marks],
        ending=ending,
        translations=i18n.translations(language),
    )


class Analyst(WorkerPool):
    """One worker process for analyses, started like the computer's (:func:`bot.interface.computer_pool._start_worker`:
    it dies with the bot) at ``nice`` steps below the bot. Analyses queue for it one at a time."""

    def __init__(self, workers: int = 1, nice: int = ANALYSIS_NICE) -> None:
        super().__init__(workers, _start_worker, (nice,))


class AnalyseButton(GameButton, template=rf"hb:analyse:(?P<game_id>{GAME_ID})", final_board=2):
    """ "Analyse" on a final board: the presser gets the game's analysis, privately (clicks don't flood the channel)."""

    changes = False

    def __init__(self, game_id: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=p_("button", "Analyse"),
                emoji="🔍",
                style=discord.ButtonStyle.secondary,
                custom_id=f"hb:analyse:{game_id}",
            )
        )
        self.game_id = game_id

    async def press(self, interaction: discord.Interaction) -> None:
        await cast("Coach", cog_named(interaction, "Coach")).send_analysis(interaction, self.game_id, ephemeral=True)


def label_text(label: str | None) -> str:
    """A move's label in the current language ("blunder"), "" for none."""
    return {
        "blunder": p_("analysis", "blunder"),
        "mistake": p_("analysis", "mistake"),
        "inaccuracy": p_("analysis", "inaccuracy"),
    }.get(label or "", "")


def percent(chance: float) -> str:
    """A chance (0–1) as a whole percentage: "62%"."""
    return f"{round(chance * 100)}%"


class Coach(commands.Cog):
    """``/analyse`` and ``/hint`` (see the module docstring).

    Args:
        bot: the bot (its ``layer``: records and running games).
        analyses: kept analyses and hint counts.
        kinds: the hosted games by name.
    """

    def __init__(self, bot: "HongBot", analyses: Analyses, kinds: dict[str, GameKind]) -> None:
        self.bot = bot
        self.analyses = analyses
        self.kinds = kinds
        self.analyst = Analyst()
        self._running: dict[str, asyncio.Future] = {}
        self._resuming: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(AnalyseButton)
        self._resuming = asyncio.create_task(self.resume())

    async def resume(self) -> None:
        """Finish the analyses a stopped or killed bot promised ("Analysing…") and never edited in, while their
        interactions' tokens last (15 minutes): each claimed by one process, analysed again, the answer edited in
        as :meth:`send_analysis` would have."""
        try:
            pending = await self.analyses.claim(time.time())
        except Exception:
            log.warning("could not read the analyses to resume", exc_info=True)
            return
        for entry in pending:
            try:
                record = await self._stats().records.find(str(entry["game"]))
                webhook = discord.Webhook.partial(int(entry["app"]), str(entry["token"]), client=self.bot)
                if record is None:
                    continue
                await self.analyses.remember(int(entry["interaction"]), entry)
                await self._finish(record, str(entry["language"]), partial(_edit_original, webhook))
                await self.analyses.forget(int(entry["interaction"]))
            except Exception:
                log.warning("could not resume the analysis of game %s", entry.get("game"), exc_info=True)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(AnalyseButton)
        if self._resuming is not None:
            self._resuming.cancel()
        for task in self._running.values():
            task.cancel()
        self.analyst.close()

    def _stats(self) -> "Stats":
        stats = self.bot.get_cog("Stats")
        if stats is None:
            raise RuntimeError("the stats feature is not loaded")
        return cast("Stats", stats)

    # --- /analyse ---------------------------------------------------------------------------------

    @app_commands.command(
        name="analyse", description="The computer judges every move of a finished game: a graph and the worst moves"
    )
    @app_commands.describe(game="The game id (see /history)", ephemeral=EPHEMERAL_HELP)
    @app_commands.guild_only()
    async def analyse_command(
        self, interaction: discord.Interaction, game: app_commands.Range[str, 1, 100], ephemeral: bool = False
    ) -> None:
        """Post the analysis of a finished game (:meth:`send_analysis`)."""
        await self.send_analysis(interaction, game, ephemeral=ephemeral)

    @analyse_command.autocomplete("game")
    async def game_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """This server's finished games, as ``/replay`` offers them (≤ 25 whose label contains what was typed; none,
        and a log line, if they can't be read)."""
        typed = (current or "").strip().lower()
        try:
            records = await self._stats().records.recent(guild_id(interaction), limit=100 if typed else 25)
        except Exception:
            log.exception("game id autocomplete failed")
            return []
        labels = [(game_label(r, self.kinds), r.id) for r in records]
        return [app_commands.Choice(name=label, value=gid) for label, gid in labels if typed in label.lower()][:25]

    async def analysable(self, interaction: discord.Interaction, game_id: str) -> Record:
        """The finished game ``game_id`` of this server, if it can be analysed.

        Raises:
            UserError: as :meth:`bot.exts.stats.Stats.finished_here` (not an id, running, not in this server), or the
                game was aborted, has no moves, or its game has no analysis.
        """
        record = await self._stats().finished_here(interaction, game_id)
        kind = self.kinds[record.kind]
        if record.result is not None and record.result.reason.value == "aborted":
            raise UserError(
                _(
                    "Game `{id}` was aborted, so there is no result to analyse. Pick a game that was played to its end, "
                    "resigned or lost on time.",
                    id=record.id,
                )
            )
        if not kind.load(record.game_state).moves:
            raise UserError(_("Game `{id}` ended before anyone moved: there is nothing to analyse.", id=record.id))
        if not can_analyse(kind.name):
            raise UserError(_("The computer can't analyse {game} games yet.", game=kind.title))
        return record

    async def send_analysis(self, interaction: discord.Interaction, game_id: str, *, ephemeral: bool = False) -> None:
        """``/analyse`` and the Analyse button: "Analysing…" at once (unless the analysis is kept), then the graph and
        each player's worst moves, in the channel or (``ephemeral``) to the caller alone.

        Raises:
            UserError: as :meth:`analysable`.
        """
        record = await self.analysable(interaction, game_id)
        if record.id not in self._running and len(self._running) >= MAX_QUEUED:
            raise UserError(
                n_(
                    "The computer is busy analysing {count} game. Try again in a few minutes.",
                    "The computer is busy analysing {count} games. Try again in a few minutes.",
                    len(self._running),
                )
            )
        language = i18n.current() if ephemeral else await self._server_language(interaction.guild_id)
        kept = await self.analyses.get(record.id)
        if kept is not None and kept.get("version") != VERSION:
            kept = None  # kept in an older layout: analysed again
        await answers.defer(interaction, thinking=True, ephemeral=ephemeral)
        if kept is not None:
            await self._finish(record, language, interaction.edit_original_response, kept)
            return
        entry = {
            "interaction": interaction.id,
            "game": record.id,
            "app": interaction.application_id,
            "token": interaction.token,
            "language": language,
            "until": time.time() + DISCORD_FOLLOW_UP - 30,  # (a margin: the token must still work when used)
        }
        # promised from here: a bot restarted before the result finishes it (resume); not forgotten if this is cut
        # off — the bot stopped or killed — or the edit fails
        await self.analyses.remember(interaction.id, entry)
        with i18n.language(language):
            moves = len(self.kinds[record.kind].load(record.game_state).moves)
            await interaction.edit_original_response(
                content=n_(
                    "🔍 Analysing game `{id}` ({count} move)… the result appears here.",
                    "🔍 Analysing game `{id}` ({count} moves)… the result appears here.",
                    moves,
                    id=record.id,
                )
            )
        await self._finish(record, language, interaction.edit_original_response)
        await self.analyses.forget(interaction.id)

    async def _finish(
        self, record: Record, language: str, edit: Callable[..., Awaitable[Any]], kept: dict[str, Any] | None = None
    ) -> None:
        """Analyse ``record`` (or take ``kept``) and ``edit`` the "Analysing…" answer into the result (or into
        "failed, try again"), in ``language``."""
        try:
            data = kept if kept is not None else await self._analysis_of(record)
            analysis = Analysis.from_dict(data)
        except Exception:
            log.exception("analysis of game %s failed", record.id)
            with i18n.language(language):
                await edit(content=_("The analysis of game `{id}` failed. Try again in a minute.", id=record.id))
            return
        with i18n.language(language):
            content, pictures = await self._result(record, analysis)
        files = [picture.file(name) for name, picture in pictures]
        await edit(content=content, attachments=files, allowed_mentions=NO_MENTIONS)

    async def _analysis_of(self, record: Record) -> dict[str, Any]:
        """Analyse the game in the worker (one analysis per game at a time: a second request waits for the
        first) and keep the result."""
        task = self._running.get(record.id)
        if task is None:
            task = asyncio.ensure_future(self.analyst.run(_analyse, record.game_state))
            self._running[record.id] = task
            game_id = record.id

            def forget(_task: asyncio.Future) -> None:
                self._running.pop(game_id, None)

            task.add_done_callback(forget)
        data: dict[str, Any] = await asyncio.shield(task)
        await self.analyses.put(record.id, data)
        return data

    async def _result(self, record: Record, analysis: Analysis) -> tuple[str, list[tuple[str, Picture]]]:
        """The answer's text and images (graph, then a board per worst move), in the current language: every number
        from the analysis's one set of chances, every move by its number in the move list."""
        kind = self.kinds[record.kind]
        names = record.plain_names
        chances = analysis.chances()
        stopped = self._stopped(record, len(analysis.plies), chances[-1])
        graph = await self._draw_graph(
            chances, names, kind, analysis.turning_points(WORST), stopped[0] if stopped else None
        )
        # TRANSLATORS: the alt text of the analysis graph; {first}, {second} are the players.
        alt = _(
            "Graph of each player's chance to win after every move: {first} (blue) above the middle, {second} "
            "(orange) below.",
            first=names[0],
            second=names[1],
        )
        pictures: list[tuple[str, Picture]] = [(f"analysis-{record.id}.png", Picture(graph, alt))]
        lines = [
            # TRANSLATORS: the head of an analysis. {inaccuracy}, {mistake}, {blunder}: percentage points (10, 20, 30).
            _(
                "🔍 **{game}** `{id}`: {first} vs {second}. Labels: inaccuracy ≥ {inaccuracy} points of the chance to "
                "win, mistake ≥ {mistake}, blunder ≥ {blunder}. The moves listed are ringed on the graph, by their "
                "numbers.",
                game=kind.title,
                id=record.id,
                first=player_name(record, 0),
                second=player_name(record, 1),
                inaccuracy=round(INACCURACY * 100),
                mistake=round(MISTAKE * 100),
                blunder=round(BLUNDER * 100),
            )
        ]
        hints = await self.analyses.hints(record.id)
        full = kind.load(record.game_state)  # (replayed: with its undo history, to take back)
        for seat in (0, 1):
            player = record.player(seat)
            used = hints.get(seat, 0) if not player.bot else 0
            worst = analysis.worst(seat, WORST)
            head = f"**{player_name(record, seat)}**"
            if used:
                head += " · " + _("hints used: {count}", count=used)
            lines.append(head)
            if not worst:
                lines.append("· " + _("no inaccuracies, mistakes or blunders."))
            for verdict in worst:
                game = self._before(full, verdict.ply)
                lines.append("· " + self._verdict_line(verdict))
                game.play(verdict.best)
                png = await renderer.png(kind, game, names, priority=CHANNEL)
                # TRANSLATORS: alt text of a board in an analysis; {move} the better move, {number} a move's number.
                text = _(
                    "The board after {move}, the better choice at move {number}.", move=verdict.best, number=verdict.ply
                )
                pictures.append((f"move-{verdict.ply}.png", Picture(png, text)))
        if stopped:
            lines.append(stopped[1])
        return "\n".join(lines)[:2000], pictures

    @staticmethod
    def _stopped(record: Record, moves: int, last: float) -> tuple[tuple[float, str], str] | None:
        """For a game that ended off the board (a resignation, a loss on time) after ``moves`` moves, with seat 0's
        chance ``last`` in its last position: the graph's ending (seat 0's result and its words) and the line that
        says it; None for a game played out."""
        result = record.result
        if result is None or result.winner is None or result.reason not in (EndReason.RESIGNED, EndReason.TIMEOUT):
            return None
        loser = 1 - result.winner
        name = player_name(record, loser)
        chance = percent(last if loser == 0 else 1.0 - last)
        if result.reason is EndReason.RESIGNED:
            # TRANSLATORS: on the analysis graph, where the game stopped; {name} the player who resigned.
            words = _("{name} resigned", name=record.plain_names[loser])
            # TRANSLATORS: {name} resigned after move {number}; {chance} their chance to win then ("62%").
            line = _(
                "🏳️ {name} resigned after move {number}, with a chance to win of about {chance}.",
                name=name,
                number=moves,
                chance=chance,
            )
        else:
            # TRANSLATORS: on the analysis graph, where the game stopped; {name} the player whose time ran out.
            words = _("{name} ran out of time", name=record.plain_names[loser])
            # TRANSLATORS: {name} ran out of time after move {number}; {chance} their chance to win then ("62%").
            line = _(
                "⌛ {name} ran out of time after move {number}, with a chance to win of about {chance}.",
                name=name,
                number=moves,
                chance=chance,
            )
        return (float(result.winner == 0), words), line

    @staticmethod
    async def _draw_graph(
        chances: list[float], names: tuple[str, str], kind: GameKind, marks: list[int], ending: tuple[float, str] | None
    ) -> bytes:
        """The win-chance graph drawn by a board worker (as a channel's board, after people's), in the current
        language: never in the event loop's process, where it would hold people's moves up."""
        language = i18n.current()
        async with renderer.slot(CHANNEL):
            if renderer.workers <= 0:
                return await asyncio.to_thread(
                    partial(_graph, chances, names, kind.render.palette, marks, ending, language)
                )
            return await renderer.run(
                _graph, chances, names, kind.render.palette, marks, ending, language, i18n.LOCALES
            )

    @staticmethod
    def _before(game: Game, ply: int) -> Game:
        """A copy of the finished ``game`` taken back to before its move number ``ply`` (from 1)."""
        earlier = game.copy()
        earlier.truncate(ply - 1)
        return earlier

    @staticmethod
    def _verdict_line(v: Verdict) -> str:
        # TRANSLATORS: one judged move. {number} its number in the game (as in /record and the web replay); {move} the
        # move played; {label} blunder/mistake/inaccuracy; {before} and {after} chances to win ("62%"); {best} the
        # better move.
        return _(
            "move {number}: {move} — {label} ({before} → {after}); better: {best}",
            number=v.ply,
            move=f"`{v.move}`",
            label=label_text(v.label),
            before=percent(v.before),
            after=percent(v.after),
            best=f"`{v.best}`",
        )

    # --- /hint ------------------------------------------------------------------------------------

    @app_commands.command(name="hint", description="In a game against the computer: the move it would play for you")
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction) -> None:
        """The move the computer would play for the caller, and what it does, to the caller alone.

        Raises:
            UserError: no game here, a game between people, not the caller's game or turn.
        """
        guild_id(interaction)
        layer = self.bot.layer
        stored, game = await layer.running(interaction.channel_id or 0)
        record = stored.record
        kind = self.kinds[record.kind]
        if not any(record.player(seat).bot for seat in (0, 1)):
            raise UserError(
                _(
                    "Hints are only for games against the computer: this is a game between people, and the moves "
                    "are theirs to find."
                )
            )
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise UserError(_("Only the player in this game can ask for a hint."))
        if game.to_move != seat or game.is_over:
            raise UserError(_("It's not your turn: ask for a hint when it is."))
        await answers.defer(interaction, thinking=True, ephemeral=True)
        move, chance = await self._hint_move(game.to_dict())
        command = self._command_for(kind, game, move)
        after = game.copy()
        after.play(move)
        what = kind.describe_move(after, record.names)
        count = await self.analyses.add_hint(record.id, seat)
        if what:
            # TRANSLATORS: a hint. {move} the move; {command} the command that plays it with its options (a mention
            # and `square:C2 quick:E1`); {what} what it does ("captured Ben's building on B2"); {chance} the player's
            # chance to win after it ("62%"); {count} hints used in this game.
            text = _(
                "💡 Play {move}: {command} ({what}). Your chance to win after it: about {chance}. (Hints used in this "
                "game: {count}.)",
                move=f"`{move}`",
                command=command,
                what=what,
                chance=percent(chance),
                count=count,
            )
        else:
            # TRANSLATORS: a hint. {move} the move; {command} the command that plays it with its options (a mention
            # and `square:C2 quick:E1`); {chance} the player's chance to win after it ("62%"); {count} hints used.
            text = _(
                "💡 Play {move}: {command}. It keeps your chance to win at about {chance}. (Hints used in this game: "
                "{count}.)",
                move=f"`{move}`",
                command=command,
                chance=percent(chance),
                count=count,
            )
        await answers.send(interaction, text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @staticmethod
    def _command_for(kind: GameKind, game: Game, move: str) -> str:
        """``move`` as the command that plays it in ``game``'s position, with its options as the caller's Discord
        shows them (:func:`bot.core.invocation.invocation`, :func:`bot.interface.mentions.invoked`)."""
        try:
            name, options = invocation(kind, game, move)
        except LookupError:  # (every legal move has its command: tests/contract/test_bot.py holds it)
            log.warning("no command of /%s plays the hint %r", kind.name, move)
            return f"`{move}`"
        return mentions.invoked(f"{kind.name} {name}", options)

    async def _hint_move(self, state: dict[str, Any]) -> tuple[str, float]:
        """The hint's search in the computer's worker processes (the play feature's), else in the analysis worker."""
        play = self.bot.get_cog("Play")
        computer = getattr(play, "computer", None)
        pool: WorkerPool = computer.thinker if computer is not None else self.analyst
        move, chance = await pool.run(_hint, state, time.time() + COMPUTER_REPLY)
        return str(move), float(chance)

    async def _server_language(self, guild: int | None) -> str:
        if guild is None:
            return i18n.SOURCE
        return await self.bot.layer.settings.language_of(self.bot.get_guild(guild) or discord.Object(guild))


async def _edit_original(webhook: discord.Webhook, **fields: Any) -> None:
    """Edit an interaction's original response through its webhook (its token), as a restarted bot must."""
    await webhook.edit_message(cast(int, "@original"), **fields)


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Coach` cog to ``bot``."""
    await bot.add_cog(Coach(bot, Analyses(bot.layer.store.redis), bot.layer.kinds))


__all__ = ["ANALYSIS_NICE", "AnalyseButton", "Analyst", "Coach", "setup"]
