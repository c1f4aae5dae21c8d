"""``/privacy``: what the bot keeps about a person, a copy of it, and erasing it (README.md, "Privacy").

- ``/privacy info`` — the short version of the README's section, in the caller's language;
- ``/privacy export`` — everything kept about the caller as a JSON file (:meth:`bot.storage.privacy.Privacy.export`);
- ``/privacy forget`` — a private question with Confirm / Cancel (:class:`ForgetButton`, restart-safe, open for
  :data:`FORGET_CONFIRMATION` seconds), then everything erased (:meth:`bot.storage.privacy.Privacy.forget`): in
  finished games the caller becomes "a former player" (:func:`bot.core.forgetting.forget`). Refused while the caller
  is in a challenge or a running game (its channel named), which would write them again.

Every answer is ephemeral, in the caller's language (the command tree makes it current; a button's press too).
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, cast

import discord
from babel.lists import format_list
from discord import app_commands
from discord.ext import commands

from .. import i18n
from ..core.errors import UserError
from ..core.forgetting import forget
from ..core.record import Record, Status
from ..core.tournament.event import Phase
from ..i18n import _, n_, p_
from ..i18n.names import escape
from ..i18n.wording import describe_duration, jump_link
from ..interface import answers, mentions
from ..interface.buttons import GameButton, cog_named, view
from ..storage.finished_games import Records
from ..storage.privacy import Privacy as Store
from ..storage.ratings import Ratings
from .tournament._words import title

if TYPE_CHECKING:
    from ..interface.client import HongBot

#: Seconds a "Forget your data?" question can be confirmed.
FORGET_CONFIRMATION = 60
#: Seconds in a day (``finished_retention`` is in days).
DAY = 86_400


class ForgetButton(GameButton, template=r"hb:pf:(?P<answer>yes|no):(?P<user_id>\d{1,20}):(?P<expires>\d{1,12})"):
    """Confirm / Cancel under the private "Forget your data?" question: carries who asked and when the question
    expires (Unix seconds), so that only they can answer it, and a Confirm pressed later — after a restart too —
    does nothing but say so."""

    numbers = ("user_id", "expires")

    def __init__(self, answer: str, user_id: int, expires: int) -> None:
        label, style = (
            (p_("button", "Confirm"), discord.ButtonStyle.danger)
            if answer == "yes"
            else (p_("button", "Cancel"), discord.ButtonStyle.secondary)
        )
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"hb:pf:{answer}:{user_id}:{expires}"))
        self.answer, self.user_id, self.expires = answer, user_id, expires

    async def press(self, interaction: discord.Interaction) -> None:
        await cast("Privacy", cog_named(interaction, "Privacy")).answer_forget(interaction, self)


#: The buttons of this feature (restart-safe), added by :meth:`Privacy.cog_load`.
BUTTONS = (ForgetButton,)


def retention_text(days: float | None) -> str:
    """How long finished games are kept, in the current language (``finished_retention``: None is forever)."""
    if days is None:
        return _("Finished games are kept until the players ask me to forget them.")
    # TRANSLATORS: {duration} is e.g. "365 days"
    return _(
        "Finished games are kept for {duration}, then deleted (ratings stay).", duration=describe_duration(days * DAY)
    )


def info_text(days: float | None) -> str:
    """``/privacy info``'s answer in the current language: what is kept, where, how long, who sees it, and the
    commands to get a copy or have it erased."""
    lines = [
        _("**What I keep about you**, in this bot's database (Redis):"),
        # TRANSLATORS: the list of what the bot stores; keep the bullets
        _(
            "• your finished games: your Discord id and display name, every move and the result — shown in the "
            "server's history and replays;"
        ),
        _(
            "• your ratings and stats for each game, in each server and on the global leaderboard that every server "
            "can see;"
        ),
        _("• the tournaments you enter: your Discord id and display name as you signed up, your pairings and results;"),
        _(
            "• where a server shows its games on the web (its choice, off by default): your display name on their "
            "pages, and the board images drawn for them (kept at most 15 minutes, and never in the bot's database);"
        ),
        _("• while you play: the game, its timers and the posts still to make (gone when it ends)."),
        retention_text(days),
        "",
        # TRANSLATORS: {export} and {forget} are the commands /privacy export and /privacy forget (mentions)
        _(
            "{export} sends you a copy of it all; {forget} erases it everywhere (in finished games you become "
            "“a former player”).",
            export=mentions.command("privacy export"),
            forget=mentions.command("privacy forget"),
        ),
    ]
    return "\n".join(lines)


def refusal(record: Record) -> str:
    """Why ``/privacy forget`` is refused while ``record`` (a challenge or running game of the caller) is open."""
    channel = f"<#{record.channel_id}>"
    if record.status is Status.CHALLENGE:
        # TRANSLATORS: {channel} is a channel (a mention)
        return _(
            "You have an open challenge in {channel}: ask again once it is answered or has expired.", channel=channel
        )
    # TRANSLATORS: {channel} is a channel (a mention)
    return _("Resign or finish your game in {channel} first: I can't erase your data while you play.", channel=channel)


class Privacy(commands.Cog):
    """``/privacy info``, ``/privacy export``, ``/privacy forget`` (anyone, anywhere the bot's commands are)."""

    def __init__(self, bot: "HongBot", store: Store) -> None:
        self.bot = bot
        self.layer = bot.layer
        self.store = store

    async def cog_load(self) -> None:
        """Make the Confirm / Cancel buttons answer, those posted before a restart too."""
        self.bot.add_dynamic_items(*BUTTONS)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(*BUTTONS)

    privacy = app_commands.Group(name="privacy", description="What I keep about you: see it, get a copy, erase it")

    @privacy.command(name="info", description="What I keep about you, where, for how long, and who sees it")
    async def info(self, interaction: discord.Interaction) -> None:
        """Answer privately with :func:`info_text`."""
        await answers.send(interaction, info_text(self.bot.config.finished_retention), ephemeral=True)

    @privacy.command(name="export", description="Get everything I keep about you as a file")
    async def export(self, interaction: discord.Interaction) -> None:
        """Send the caller their data (:meth:`bot.storage.privacy.Privacy.export`) as ``hongbot-<user id>.json``,
        privately; without any, say so."""
        data = await self.store.export(interaction.user.id)
        games, ratings, tournaments = len(data["games"]), len(data["ratings"]), len(data["tournaments"])
        if not games and not ratings and not tournaments:
            await answers.send(
                interaction,
                _("I keep nothing about you: no finished games, no ratings, no tournament entries."),
                ephemeral=True,
            )
            return
        text = json.dumps(data, ensure_ascii=False, indent=1).encode()
        held = []
        if games:
            held.append(n_("{count} finished game", "{count} finished games", games))
        if tournaments:
            held.append(n_("{count} tournament entry", "{count} tournament entries", tournaments))
        if ratings:
            held.append(_("your ratings and stats"))
        # TRANSLATORS: {held} lists what the file holds: "2 finished games, 1 tournament entry and your ratings and
        # stats" (each part translated apart, listed as the language lists things)
        content = _(
            "Everything I keep about you, as JSON: {held}.",
            held=format_list(held, locale="en_GB" if i18n.current() == i18n.SOURCE else i18n.current()),
        )
        await answers.send(
            interaction,
            content,
            ephemeral=True,
            file=discord.File(io.BytesIO(text), filename=f"hongbot-{interaction.user.id}.json"),
        )

    @privacy.command(name="forget", description="Erase everything I keep about you (asks you to confirm)")
    async def forget(self, interaction: discord.Interaction) -> None:
        """Ask privately whether to erase the caller's data, with Confirm / Cancel.

        Raises:
            UserError: the caller is in a challenge or a running game (it names the channel).
        """
        await self._check_free(interaction.user.id)
        expires = int(self.layer.clock()) + FORGET_CONFIRMATION
        buttons = view(
            ForgetButton("yes", interaction.user.id, expires), ForgetButton("no", interaction.user.id, expires)
        )
        # TRANSLATORS: {duration} is e.g. "1 minute"
        question = _(
            "Erase everything I keep about you? Your ratings, stats and leaderboard entries go, in every "
            "server; in your finished games you become “a former player”. This can't be undone. Confirm "
            "within {duration}.",
            duration=describe_duration(FORGET_CONFIRMATION),
        )
        await answers.send(interaction, question, view=buttons, ephemeral=True)

    async def _check_free(self, user_id: int) -> None:
        """Raise the :func:`refusal` of the first challenge or running game ``user_id`` is in, if any."""
        busy = await self.store.in_play(user_id)
        if busy:
            raise UserError(refusal(busy[0]))
        entered = await self.store.open_tournaments(user_id)
        if entered:
            t = entered[0]
            name = title(t, self.layer.kinds[t.kind]) if t.kind in self.layer.kinds else escape(t.name or t.id)
            post = jump_link(t.guild_id, t.channel_id) + (f"/{t.message_id}" if t.message_id else "")
            if t.phase is Phase.SIGNUP:
                # TRANSLATORS: {tournament} is a tournament's name, {post} a link to its sign-up post, {leave} the
                # label of its button Leave (in bold).
                raise UserError(
                    _(
                        "You're signed up for the tournament **{tournament}**: press {leave} on its sign-up post "
                        "({post}) first, then ask again.",
                        tournament=name,
                        post=post,
                        leave=f"**{p_('button', 'Leave')}**",
                    )
                )
            # TRANSLATORS: {tournament} is a tournament's name, {post} a link to its sign-up post; {withdraw} the
            # command /tournament withdraw (a mention)
            raise UserError(
                _(
                    "You're still playing in the tournament **{tournament}** ({post}): leave it with {withdraw} first "
                    "(or wait for its end), then ask again.",
                    tournament=name,
                    post=post,
                    withdraw=mentions.command("tournament withdraw"),
                )
            )

    async def answer_forget(self, interaction: discord.Interaction, button: ForgetButton) -> None:
        """Confirm / Cancel pressed under the question: Cancel, or a Confirm pressed too late, erases nothing and
        says so; Confirm erases the caller's data and says what changed.

        Raises:
            UserError: pressed by someone else than who asked, or the caller is now in a game.
        """
        if button.user_id != interaction.user.id:
            raise UserError(
                _(
                    "This question is someone else's: only they can answer it. {command} asks you yours.",
                    command=mentions.command("privacy forget"),
                )
            )
        if button.answer == "no":
            await answers.edit(interaction, content=_("Nothing was erased."), view=None)
            return
        if self.layer.clock() > button.expires:
            # TRANSLATORS: {duration} is e.g. "1 minute"; {command} the command /privacy forget (a mention)
            content = _(
                "This confirmation expired after {duration}: nothing was erased. Use {command} again if you "
                "still want it.",
                duration=describe_duration(FORGET_CONFIRMATION),
                command=mentions.command("privacy forget"),
            )
            await answers.edit(interaction, content=content, view=None)
            return
        await self._check_free(interaction.user.id)
        await answers.defer(interaction)  # finding every record may take a while
        user_id = interaction.user.id
        erased = await self.store.forget(user_id, lambda record: forget(self.layer.kinds[record.kind], record, user_id))
        # TRANSLATORS: {count} finished games, now showing "a former player" instead of the person
        content = n_(
            "Done: everything I kept about you is erased. In {count} finished game you are now “a former "
            "player”; your ratings and stats are gone from every leaderboard.",
            "Done: everything I kept about you is erased. In {count} finished games you are now “a former "
            "player”; your ratings and stats are gone from every leaderboard.",
            erased.records,
        )
        await answers.edit(interaction, content=content, view=None)


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Privacy` cog to ``bot``, on the Redis of its game layer."""
    layer = bot.layer
    records = Records(layer.store, Ratings(layer.store.redis), clock=layer.clock)
    await bot.add_cog(Privacy(bot, Store(records)))


__all__ = ["Privacy", "ForgetButton", "FORGET_CONFIRMATION", "info_text", "refusal", "retention_text", "setup"]
