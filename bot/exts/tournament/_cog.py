"""``/tournament``: create, start, standings, withdraw, cancel — and the sign-up post's Join/Leave. Discord glue
only: the rules are :mod:`bot.core.tournament`, the store :mod:`bot.storage.tournaments`, the rounds :mod:`._runner`.

Creating, starting and cancelling need **Manage Server**; anyone may join, leave and look. Every refusal is an
ephemeral answer saying what was wrong and what would be right, and nothing is written.
"""

from __future__ import annotations

import inspect
import logging
import unicodedata
from typing import TYPE_CHECKING, Awaitable, Callable, Literal, Optional, TypeVar

import discord
import pytimeparse2
from discord import app_commands
from discord.ext import commands

from engine import IllegalMove

from ...core.errors import UserError
from ...core.record import Record
from ...core.tournament.event import Board, Format, Phase, Tournament, TournamentError
from ...core.tournament.standings import standings
from ...i18n import _, n_, p_
from ...i18n.names import escape
from ...i18n.wording import describe_duration, user_name, when
from ...interface import answers, mentions
from ...interface.buttons import view
from ...interface.mentions import NO_MENTIONS
from ...interface.posts import watch
from ...interface.translator import untranslated
from ...storage.settings import MAX_TURN_TIMER, MIN_TURN_TIMER, RESIGN_CONFIRMATION, parse_duration
from ...storage.tournaments import Step, Tournaments
from ..play._language import public
from ..play._reach import require_postable
from . import _words as words
from ._buttons import BUTTONS, SignupButton, WithdrawButton
from ._picture import standings_file
from ._runner import Runner, heading_plain
from ._signup import SEAT_CHOICES, game_options, options_text, signup_view

if TYPE_CHECKING:
    from ...interface.client import HongBot

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The most rounds a Swiss may have.
MAX_ROUNDS = 30
#: Discord's limit on autocomplete choices.
MAX_CHOICES = 25
_KEYWORD = inspect.Parameter.KEYWORD_ONLY
_INTERACTION = inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)
TOURNAMENT_HELP = "Which tournament (default: the one in this channel)"


def n_waiting(t: Tournament) -> int:
    """How many boards of the current round have neither a game nor a result (waiting to start)."""
    return sum(1 for b in t.boards[-1] if b.result is None and b.game is None) if t.boards else 0


def start_delay(text: str) -> float:
    """``starts`` of ``/tournament create`` → seconds from now, 1 minute … 7 days (RULES.md, "Sign-up").

    Raises:
        UserError: unreadable, no unit, in the past (or now), sooner than 1 minute, or more than 7 days away — each
            naming the ``starts`` option and what would be right.
    """
    option = mentions.option("tournament create", "starts")
    shown = " ".join(text.split())
    if shown.startswith("-"):
        raise UserError(
            _(
                "{starts} '{text}' is in the past: it is how long from now the tournament starts, e.g. 10 minutes, "
                "2 hours or 1 day.",
                starts=option,
                text=shown[:32],
            )
        )
    try:
        return float(parse_duration(shown))
    except UserError:
        raw = pytimeparse2.parse(unicodedata.normalize("NFKC", shown).lower())
    if raw is not None and raw > MAX_TURN_TIMER:
        raise UserError(
            _(
                "{starts} '{text}' is too far away: a tournament starts at most 7 days from now, e.g. 2 hours or "
                "1 day.",
                starts=option,
                text=shown[:32],
            )
        )
    if raw is not None and raw < MIN_TURN_TIMER:
        raise UserError(
            _(
                "{starts} '{text}' is too soon: give the players at least 1 minute to join, e.g. 10 minutes or "
                "2 hours from now.",
                starts=option,
                text=shown[:32],
            )
        )
    raise UserError(
        _(
            "{starts} is how long from now, e.g. 10 minutes, 2 hours or 1 day (at most 7 days): I can't read '{text}'.",
            starts=option,
            text=shown[:32],
        )
    )


def _tournament_id(rng) -> str:
    return "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(6))


class TournamentCog(commands.Cog, name="Tournament"):
    """The ``/tournament`` group, the sign-up buttons, the results of tournament games (``game_finished``) and the
    runner of tournament steps."""

    def __init__(self, bot: "HongBot") -> None:
        self.bot = bot
        self.layer = bot.layer
        self.store = Tournaments(bot.layer.store.redis, bot.layer.clock)
        self.runner = Runner(bot, self.store, bot.poll_interval)
        self.__cog_app_commands__.append(self._group())

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*BUTTONS)
        self.runner.start()

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(*BUTTONS)
        await self.runner.stop()

    # --- the command group ------------------------------------------------------------------------

    def _group(self) -> app_commands.Group:
        group = app_commands.Group(
            name="tournament", description="Swiss and round-robin tournaments in this server", guild_only=True
        )
        kinds = self.layer.kinds
        params: dict[str, inspect.Parameter] = {}
        helps: dict[str, str] = {}
        for kind in kinds.values():
            for p in game_options(kind):
                if p.name not in params:
                    params[p.name] = p.replace(kind=_KEYWORD, default=None, annotation=Optional[p.annotation])
                    helps[p.name] = kind.challenge_help.get(p.name, p.name)
        game_choices = [app_commands.Choice(name=untranslated(kind.title), value=name) for name, kind in kinds.items()]
        create_params = [
            inspect.Parameter("game", _KEYWORD, annotation=str),
            inspect.Parameter("format", _KEYWORD, annotation=Literal["swiss", "round_robin", "double_round_robin"]),
            inspect.Parameter(
                "rounds", _KEYWORD, default=None, annotation=Optional[app_commands.Range[int, 1, MAX_ROUNDS]]
            ),
            *params.values(),
            inspect.Parameter(
                "turn_timer", _KEYWORD, default=None, annotation=Optional[app_commands.Range[str, 1, 20]]
            ),
            inspect.Parameter("starts", _KEYWORD, default=None, annotation=Optional[app_commands.Range[str, 1, 20]]),
            inspect.Parameter("name", _KEYWORD, default=None, annotation=Optional[app_commands.Range[str, 1, 60]]),
        ]

        async def create(interaction: discord.Interaction, **options) -> None:
            await self.create(interaction, **options)

        create.__signature__ = inspect.Signature([_INTERACTION, *create_params])  # type: ignore[attr-defined]
        create = app_commands.describe(
            game="Which game",
            format="swiss (set rounds), round_robin (everyone plays everyone) or double_round_robin (twice)",
            rounds="Swiss: how many rounds (default 3); a round robin has one round per opponent",
            turn_timer="Time for a turn in the tournament's games, e.g. 1 hour, 2 days (default: the server's)",
            starts="Start automatically after this long, e.g. 2 hours (default: /tournament start)",
            name="The tournament's name (default: the game and format)",
            **helps,
        )(app_commands.choices(game=game_choices)(create))
        command: app_commands.Command = app_commands.Command(
            name="create",
            description="Create a tournament here, with a sign-up post (Manage Server)",
            callback=create,
        )
        group.add_command(command)
        for name, description, method in (
            ("start", "Close the sign-up and start round 1 (Manage Server)", self.start),
            ("standings", "The standings of a tournament, with a picture", self.standings),
            ("withdraw", "Leave a tournament you are playing in", self.withdraw),
            ("cancel", "Cancel a tournament (Manage Server)", self.cancel),
        ):
            group.add_command(self._tournament_command(name, description, method))
        return group

    def _tournament_command(self, name: str, description: str, method) -> app_commands.Command:
        async def callback(
            interaction: discord.Interaction, tournament: Optional[app_commands.Range[str, 1, 16]] = None
        ) -> None:
            await method(interaction, tournament)

        callback.__qualname__ = callback.__name__ = f"tournament_{name}"
        described = app_commands.describe(tournament=TOURNAMENT_HELP)(callback)
        command: app_commands.Command = app_commands.Command(name=name, description=description, callback=described)
        command.autocomplete("tournament")(self.complete_tournament)
        return command

    async def complete_tournament(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The server's tournaments not over, newest first, by name or id containing what was typed."""
        if interaction.guild_id is None:
            return []
        typed = (current or "").casefold()
        out = []
        for t in reversed(await self.store.of_guild(interaction.guild_id)):
            if t.phase in (Phase.CANCELLED,):
                continue
            label = f"{words.title(t, self.layer.kinds[t.kind])}".replace("\\", "")
            if typed in label.casefold() or typed in t.id:
                out.append(app_commands.Choice(name=label[:100], value=t.id))
        return out[:MAX_CHOICES]

    # --- finding a tournament -------------------------------------------------------------------

    async def pick(
        self, interaction: discord.Interaction, tournament_id: str | None, *, phases: tuple[Phase, ...]
    ) -> Tournament:
        """The tournament an option names, or the one (of ``phases``) run from this channel, or the server's only one.

        Raises:
            UserError: none found, or several (pick one with the option).
        """
        guild_id = interaction.guild_id
        if guild_id is None:
            raise UserError(_("Tournaments are run in a server."))
        if tournament_id:
            held = await self.store.find(guild_id, tournament_id.strip().lower())
            if held is not None:
                return held.tournament
            typed = tournament_id.strip().casefold()  # a name as shown in the posts (case-insensitive, exact)
            named = [t for t in await self.store.of_guild(guild_id) if t.name and t.name.strip().casefold() == typed]
            if len(named) == 1:
                return named[0]
            if named:
                raise UserError(
                    _(
                        "{count} tournaments in this server are called `{name}`: pick the one you mean from the list.",
                        count=len(named),
                        name=escape(tournament_id.strip()[:32]),
                    )
                )
            raise UserError(
                _("There is no tournament `{id}` in this server. Pick one from the list.", id=tournament_id[:16])
            )
        candidates = [t for t in await self.store.of_guild(guild_id) if t.phase in phases]
        here = [t for t in candidates if t.channel_id == interaction.channel_id]
        chosen = here or candidates
        if len(chosen) == 1:
            return chosen[0]
        if not chosen:
            raise UserError(
                _("There is no tournament for that in this server. {create} makes one.", create=words.command("create"))
            )
        raise UserError(
            _(
                "There are several tournaments: pick one with the option {option}.",
                option=mentions.option("tournament standings", "tournament"),
            )
        )

    @staticmethod
    def require_manager(interaction: discord.Interaction) -> None:
        if not interaction.permissions.manage_guild:
            raise UserError(
                _(
                    "Only members with the **Manage Server** permission can create, start or cancel a tournament. "
                    "Anyone can join one with its {join} button.",
                    join=f"**{p_('button', 'Join')}**",
                )
            )

    async def update(self, t: Tournament, change) -> Tournament:
        """A change to the stored tournament's document; a refused step becomes the refusal's words."""
        return await self.refused(self.store.update(t.channel_id, t.id, change), t)

    @staticmethod
    def check(t: Tournament, step: Callable[[], object], *, leaving: bool = False) -> None:
        """Refuse, before anything is written, a step the tournament as read refuses (``step`` raises
        :class:`TournamentError`; ``leaving``: a leave or withdrawal); the store's own write checks again at the
        moment it is made.

        Raises:
            UserError: the refusal's words.
        """
        try:
            step()
        except TournamentError as exc:
            raise UserError(words.refusal(exc.reason, t, leaving=leaving)) from exc

    async def refused(self, step: Awaitable[T], t: Tournament, *, leaving: bool = False) -> T:
        """Await a change of ``t``; a refused step (:class:`TournamentError`) becomes the refusal's words, a
        tournament gone meanwhile says so.

        Raises:
            UserError: the refusal.
        """
        try:
            return await step
        except TournamentError as exc:
            raise UserError(words.refusal(exc.reason, t, leaving=leaving)) from exc
        except LookupError as exc:
            raise UserError(_("This tournament no longer exists.")) from exc

    async def current(self, t: Tournament) -> Tournament:
        """``t`` as stored now (or as it was, if it is gone)."""
        held = await self.store.get(t.channel_id, t.id)
        return held.tournament if held is not None else t

    # --- /tournament create ---------------------------------------------------------------------

    async def create(
        self,
        interaction: discord.Interaction,
        *,
        game: str,
        format: str,
        rounds=None,
        turn_timer=None,
        starts=None,
        name=None,
        **given,
    ) -> None:
        """Create a tournament run from this channel and post its sign-up (public) with Join/Leave.

        Raises:
            UserError: without Manage Server, outside a text channel, an unknown game, an option of the other game,
                rounds for a round robin, an unreadable timer or start time, invalid game options.
        """
        self.require_manager(interaction)
        if interaction.guild_id is None or not isinstance(interaction.channel, discord.TextChannel):
            raise UserError(
                _("Create a tournament in a server's text channel (not a thread): its games get threads there.")
            )
        require_postable(interaction, threads=True)  # every game of it gets a thread here
        kind = self.layer.kinds.get(game)
        if kind is None:
            raise UserError(_("`{game}` is not a game I host. Pick one from the list.", game=game[:32]))
        mine = {p.name for p in game_options(kind)}
        foreign = sorted(n for n, v in given.items() if v is not None and n not in mine)
        if foreign:
            raise UserError(
                _(
                    "{option} is not an option of {game}: leave it out.",
                    option=mentions.option("tournament create", foreign[0]),
                    game=kind.title,
                )
            )
        fmt = Format(format)
        if fmt is Format.DOUBLE_ROUND_ROBIN and rounds is not None:
            raise UserError(
                _(
                    "A double round robin has two rounds per opponent: leave {rounds} out (it is set when the "
                    "tournament starts).",
                    rounds=mentions.option("tournament create", "rounds"),
                )
            )
        if fmt is Format.ROUND_ROBIN and rounds is not None:
            raise UserError(
                _(
                    "A round robin has one round per opponent: leave {rounds} out (it is set when the tournament "
                    "starts).",
                    rounds=mentions.option("tournament create", "rounds"),
                )
            )
        timer = float(parse_duration(turn_timer)) if turn_timer else None
        start_at = self.layer.clock() + start_delay(starts) if starts else None
        chosen = {n: v for n, v in given.items() if v is not None and n in mine}
        options = kind.challenge(**chosen)
        for option, value in SEAT_CHOICES.items():
            if option in inspect.signature(kind.challenge).parameters:
                options[option] = value
        try:
            kind.new_game(kind.seat_options(options, self.layer.rng)[1])
        except IllegalMove as exc:
            raise UserError(str(exc)) from exc
        t = Tournament(
            id=_tournament_id(self.layer.rng),
            guild_id=interaction.guild_id,
            channel_id=interaction.channel.id,
            creator=interaction.user.id,
            kind=kind.name,
            format=fmt,
            rounds=rounds or 3,
            options=options,
            turn_timer=timer,
            starts=start_at,
            created=self.layer.clock(),
            name=(name or "").strip(),
        )
        step = (Step("start", t.channel_id, t.id, 0), start_at) if start_at else None
        answers.before_change(interaction)  # stored only once Discord has the answer's start
        await self.store.create(t, step)
        async with public(self.bot, self.layer, t.guild_id):
            text = words.signup_text(t, kind, options_text(kind, t))
            buttons = signup_view(t)
        message = await answers.send(interaction, text, view=buttons, allowed_mentions=NO_MENTIONS)
        if message is None:  # the initial response: read back for its id
            try:
                message = await interaction.original_response()
            except discord.HTTPException:
                return
        await self.store.update(t.channel_id, t.id, lambda x: (x.replace(message_id=message.id), (), None))

    # --- Join / Leave -----------------------------------------------------------------------------

    async def signup(self, interaction: discord.Interaction, button: SignupButton) -> None:
        """Join or Leave pressed: the list updated on the post (or, after the start, a private note; Leave while the
        player's game in it is being played asks first, as ``/tournament withdraw`` does).

        Raises:
            UserError: joining twice, a started round robin, leaving when not in, the tournament gone.
        """
        held = await self.store.get(button.channel, button.tournament_id)
        if held is None:
            raise UserError(_("This tournament no longer exists."))
        t = held.tournament
        user = interaction.user
        if button.action == "join":  # refused before anything is written (the store's write checks again)
            self.check(t, lambda: t.join(user.id, user_name(user)))
        else:
            self.check(t, lambda: t.leave(user.id), leaving=True)
            if playing(t, user.id) is not None:  # its game would be resigned: asked first, privately
                await self.ask_withdraw(interaction, t)
                return
        answers.before_change(interaction)
        if button.action == "join":
            joined = await self.refused(self.store.join(t.channel_id, t.id, user.id, user_name(user)), t)
            note = (
                _("You're in! You'll be paired from round {round}.", round=joined) if t.phase is Phase.RUNNING else None
            )
            t = await self.current(t)
        else:
            t = await self.refused(self.store.leave(t.channel_id, t.id, user.id), t, leaving=True)
            note = _("You left the tournament.") if t.phase is Phase.RUNNING else None
        kind = self.layer.kinds[t.kind]
        async with public(self.bot, self.layer, t.guild_id):
            text = words.signup_text(t, kind, options_text(kind, t))
            buttons = signup_view(t)
        await answers.edit(interaction, content=text, view=buttons, allowed_mentions=NO_MENTIONS)
        if note:
            await answers.send(interaction, note, ephemeral=True)

    # --- /tournament start ------------------------------------------------------------------------

    async def start(self, interaction: discord.Interaction, tournament_id: str | None) -> None:
        """Close the sign-up and start: round 1 is paired at once and its games start in threads (the runner).

        Raises:
            UserError: without Manage Server, no such tournament, already started, fewer than 2 players.
        """
        self.require_manager(interaction)
        t = await self.pick(interaction, tournament_id, phases=(Phase.SIGNUP,))
        if interaction.channel_id == t.channel_id:
            require_postable(interaction, threads=True)
        seeds = await self.runner.seeds(t)
        answers.before_change(interaction)
        t = await self.refused(self.store.start(t.channel_id, t.id, seeds), t)
        kind = self.layer.kinds[t.kind]
        await answers.send(
            interaction,
            n_(
                "**{tournament}** has started with {count} player: round 1 of {rounds} is being paired and its "
                "games start in threads here.",
                "**{tournament}** has started with {count} players: round 1 of {rounds} is being paired and its "
                "games start in threads here.",
                len(t.entrants),
                tournament=words.title(t, kind),
                rounds=t.rounds,
            ),
            allowed_mentions=NO_MENTIONS,
        )
        await self.runner.refresh_signup(t)

    # --- /tournament standings --------------------------------------------------------------------

    async def standings(self, interaction: discord.Interaction, tournament_id: str | None) -> None:
        """The standings (text and picture), for everyone in the channel.

        Raises:
            UserError: no such tournament, or it has not started.
        """
        t = await self.pick(interaction, tournament_id, phases=(Phase.SIGNUP, Phase.RUNNING, Phase.FINISHED))
        kind = self.layer.kinds[t.kind]
        if t.phase is Phase.SIGNUP or not t.boards:
            raise UserError(_("**{tournament}** has not started yet: no standings.", tournament=words.title(t, kind)))
        played = t.round if t.round_complete else t.round - 1
        rows = standings(t) if t.phase is Phase.FINISHED else standings(t, played)
        waiting = (
            n_waiting(t) if t.phase is Phase.RUNNING and not t.round_complete else 0
        )  # boards not started yet (a player busy in another tournament's game, or no thread yet)
        if t.phase is Phase.FINISHED:
            heading = _("🏆 **{tournament}** — final standings", tournament=words.title(t, kind))
        elif played == 0:
            heading = _(
                "📊 **{tournament}** — round 1 of {rounds} is being played: no results yet",
                tournament=words.title(t, kind),
                rounds=t.rounds,
            )
        else:
            heading = _(
                "📊 **{tournament}** — standings after round {round} (round {current} of {rounds} is being played)",
                tournament=words.title(t, kind),
                round=played,
                current=t.round,
                rounds=t.rounds,
            )
        if waiting:
            heading += "\n" + n_(
                "⏳ {count} board of round {round} is waiting to start: a player is still playing another "
                "tournament's game.",
                "⏳ {count} boards of round {round} are waiting to start: a player is still playing another "
                "tournament's game.",
                waiting,
                round=t.round,
            )
        text = words.standings_text(t, kind, rows, heading)
        picture = await standings_file(t, kind, rows, heading_plain(t, kind, played))
        link = await self.runner.web_view(t)
        await answers.send(
            interaction,
            text,
            file=picture.file("standings.png"),
            allowed_mentions=NO_MENTIONS,
            **watch(link),
        )

    # --- /tournament withdraw ---------------------------------------------------------------------

    async def withdraw(self, interaction: discord.Interaction, tournament_id: str | None) -> None:
        """The caller leaves a tournament: not paired again; a game they are playing in it is resigned — asked
        first, privately, when there is one (:meth:`ask_withdraw`).

        Raises:
            UserError: not in it, withdrawn already, the tournament over.
        """
        if tournament_id:
            t = await self.pick(interaction, tournament_id, phases=(Phase.SIGNUP, Phase.RUNNING))
        else:
            guild_id = interaction.guild_id or 0
            mine = [
                x
                for x in await self.store.of_guild(guild_id)
                if x.phase in (Phase.SIGNUP, Phase.RUNNING)
                and (e := x.entrant(interaction.user.id)) is not None
                and e.withdrawn is None
            ]
            if not mine:
                raise UserError(_("You're not playing in any tournament of this server."))
            if len(mine) > 1:
                raise UserError(
                    _(
                        "You're in several tournaments: pick one with the option {option}.",
                        option=mentions.option("tournament withdraw", "tournament"),
                    )
                )
            t = mine[0]
        user_id = interaction.user.id
        self.check(t, lambda: t.leave(user_id), leaving=True)
        if playing(t, user_id) is not None:  # its game would be resigned: asked first
            await self.ask_withdraw(interaction, t)
            return
        answers.before_change(interaction, private=lambda: True)  # (the answer is the caller's alone)
        await self._withdraw(interaction, t, user_id)

    async def _withdraw(self, interaction: discord.Interaction, t: Tournament, user_id: int) -> None:
        """Withdraw ``user_id`` (their game in it resigned), say so privately, and bring the sign-up post up to
        date."""
        t = await self.refused(self.store.leave(t.channel_id, t.id, user_id), t, leaving=True)
        kind = self.layer.kinds[t.kind]
        said = _("You withdrew from **{tournament}**.", tournament=words.title(t, kind))
        if interaction.message is not None and interaction.message.flags.ephemeral:  # (the question, answered)
            await answers.edit(interaction, content=said, view=None)
        else:
            await answers.send(interaction, said, ephemeral=True)
        board = playing(t, user_id)
        if t.phase is Phase.RUNNING and board is not None and board.channel is not None and board.game is not None:
            await self.runner.resign_game(t, kind, board.channel, user_id, board.game)
        await self.runner.refresh_signup(t)

    async def ask_withdraw(self, interaction: discord.Interaction, t: Tournament) -> None:
        """Ask the caller privately whether to withdraw though their game in ``t`` is being played (it would be
        resigned), with Confirm / Cancel open for :data:`bot.storage.settings.RESIGN_CONFIRMATION` seconds, as
        ``/resign`` does: one mis-tap never ends a game. Nothing is written."""
        user_id = interaction.user.id
        board = playing(t, user_id)
        assert board is not None
        kind = self.layer.kinds[t.kind]
        opponent = board.opponent(user_id)
        entrant = t.entrant(opponent) if opponent is not None else None
        expires = int(self.layer.clock()) + RESIGN_CONFIRMATION
        buttons = view(*(WithdrawButton(answer, t.guild_id, t.channel_id, t.id, expires) for answer in ("yes", "no")))
        # TRANSLATORS: {tournament} a tournament's name; {opponent} a player's name; {when} a moment Discord shows
        # relative to now in the reader's language: "in a minute".
        question = _(
            "Withdraw from **{tournament}**? Your game against {opponent} in it is still being played: withdrawing "
            "resigns it (a loss, rated), and you won't be paired again. This question closes {when}.",
            tournament=words.title(t, kind),
            opponent=escape(words.player_name(entrant.id, entrant.name)) if entrant else "?",
            when=when(expires),
        )
        await answers.send(interaction, question, view=buttons, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def answer_withdraw(self, interaction: discord.Interaction, button: WithdrawButton) -> None:
        """Confirm / Cancel pressed under the withdrawal question: Cancel (or a Confirm pressed too late) changes
        nothing and says so; Confirm withdraws the presser (their game resigned).

        Raises:
            UserError: the tournament is gone, or refuses it now (withdrawn already, over).
        """
        if button.answer == "no":
            await answers.edit(
                interaction, content=_("Withdrawal cancelled: you're still in the tournament."), view=None
            )
            return
        if self.layer.clock() > button.expires:
            # TRANSLATORS: {duration} is e.g. "1 minute"; {command} the command /tournament withdraw (a mention).
            content = _(
                "This confirmation expired after {duration}: nothing happened. Use {command} again if you still "
                "want to withdraw.",
                duration=describe_duration(RESIGN_CONFIRMATION),
                command=words.command("withdraw"),
            )
            await answers.edit(interaction, content=content, view=None)
            return
        held = await self.store.get(button.channel, button.tournament_id)
        if held is None:
            raise UserError(_("This tournament no longer exists."))
        t, user_id = held.tournament, interaction.user.id
        self.check(t, lambda: t.leave(user_id), leaving=True)
        answers.before_change(interaction)
        await self._withdraw(interaction, t, user_id)

    # --- /tournament cancel -----------------------------------------------------------------------

    async def cancel(self, interaction: discord.Interaction, tournament_id: str | None) -> None:
        """Cancel: no more rounds; games being played go on as ordinary games.

        Raises:
            UserError: without Manage Server, no such tournament, already over.
        """
        self.require_manager(interaction)
        t = await self.pick(interaction, tournament_id, phases=(Phase.SIGNUP, Phase.RUNNING))
        answers.before_change(interaction)
        t = await self.update(t, lambda x: (x.cancel(), (), None))
        kind = self.layer.kinds[t.kind]
        await answers.send(
            interaction,
            _("**{tournament}** is cancelled.", tournament=words.title(t, kind)),
            allowed_mentions=NO_MENTIONS,
        )
        await self.runner.refresh_signup(t)

    # --- results ----------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_game_finished(self, record: Record) -> None:
        """A game ended: if it is a tournament's, its result goes on its board (the round advances after its last)."""
        await self._result(record)

    @commands.Cog.listener()
    async def on_game_result_due(self, record: Record) -> None:
        """The reconciler's second chance for a finished game's follow-ups: the same, once."""
        await self._result(record)

    async def _result(self, record: Record) -> None:
        try:
            recorded = await self.runner.record_result(record)
        except Exception:
            log.exception("the result of game %s did not reach its tournament; the round's watch records it", record.id)
            return
        if recorded is not None and recorded.outcome == "last":
            await (
                self.runner.run_due()
            )  # the round's last result: its step pairs the next one at once, not at the next poll


def playing(t: Tournament, user_id: int) -> Board | None:
    """The board of ``t`` where ``user_id``'s game is being played (started, no result yet), or None."""
    if t.phase is not Phase.RUNNING or not t.boards:
        return None
    return next((b for b in t.boards[-1] if b.has(user_id) and b.result is None and b.game is not None), None)


async def setup(bot: "HongBot") -> None:
    await bot.add_cog(TournamentCog(bot))


__all__ = ["TournamentCog", "setup"]
