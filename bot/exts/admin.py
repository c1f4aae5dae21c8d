"""Running the bot in a server: ``/settings`` (turn timer, reminders, threads, the language of its posts),
``/game abort`` and ``/games``.

Every answer here is ephemeral, in the caller's language (the command tree makes it current).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from babel.lists import format_list
from discord import app_commands
from discord.ext import commands
from discord.utils import escape_markdown

from ..interface import answers, mentions
from .. import i18n
from ..core.errors import UserError
from ..i18n import _, n_, names
from ..interface.options import person
from ..interface.posts import post_turn, server_language, watch_url
from ..interface.board_pool import renderer
from ..storage.settings import WEB_MODES, GuildSettings, parse_duration
from ..interface.translator import untranslated
from ..i18n.wording import describe_duration, when
from ..interface.options import channel_id

if TYPE_CHECKING:
    from ..interface.client import HongBot

#: Discord's limit on an embed's fields.
MAX_FIELDS = 25
#: Discord's limit on an option's choices.
MAX_CHOICES = 25
#: ``/settings language:auto``: the server's preferred locale decides (see :meth:`bot.storage.settings.SettingsStore.update`).
AUTO = "auto"


def language_choices() -> list[app_commands.Choice[str]]:
    """The ``language`` option's choices: ``auto`` (the server's language in Discord), then every language the
    bot speaks (:func:`bot.i18n.languages`, read when this module is loaded: a catalog added is offered after a
    restart), each by its own name ("Deutsch", "日本語"), the same in every language."""
    languages = [
        app_commands.Choice(name=untranslated(i18n.language_name(code)), value=code) for code in i18n.languages()
    ]
    return [app_commands.Choice(name="auto: the server's language in Discord", value=AUTO), *languages]


async def complete_language(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The ``language`` option's suggestions when the languages are too many for choices: those whose name or
    code contains what is typed (any case), ``auto`` first, at most :data:`MAX_CHOICES`."""
    typed = current.casefold().strip()
    return [
        choice
        for choice in language_choices()
        if typed in choice.name.casefold() or typed in str(choice.value).casefold()
    ][:MAX_CHOICES]


def language_option(choices: list[app_commands.Choice[str]]):
    """The ``language`` option as ``choices`` (a list Discord shows at once) when they fit in Discord's
    :data:`MAX_CHOICES`, else as suggestions while typing (:func:`complete_language`) — a catalog past the
    25th is never left out. A decorator for the ``/settings`` command."""
    if len(choices) <= MAX_CHOICES:
        return app_commands.choices(language=choices)
    return app_commands.autocomplete(language=complete_language)


def describe_web(settings: GuildSettings, server_url: str | None = None) -> str:
    """The ``/settings`` line of the web companion: off, link or public (with the server's page, if any)."""
    if settings.web == "public":
        state = _("public (each game's page, and this server's leaderboard and live games)")
    elif settings.web == "link":
        state = _("link (a game's page, for whoever has its link)")
    else:
        state = _("off")
    # TRANSLATORS: {state} says whether games can be watched on the web ("off", "link (…)", "public (…)").
    line = _("• web pages: **{state}**", state=state)
    if server_url:
        # TRANSLATORS: {url} is the address of the server's page (leaderboard and live games) on the web.
        line += "\n" + _("  this server's page: {url}", url=server_url)
    return line


def describe_settings(
    settings: GuildSettings, guild: discord.Guild | None, *, changed: bool, server_url: str | None = None
) -> str:
    """What ``/settings`` answers (current language): each setting and what it does; the language of the
    server's posts by its own name, and whether it follows the server's language in Discord; the web pages
    (``server_url``: the server's page when it is public)."""
    posts = i18n.language_name(i18n.server_language(settings.language, getattr(guild, "preferred_locale", None)))
    lines = [
        _("Settings updated for this server:") if changed else _("Settings for this server:"),
        _(
            "• turn timer: **{duration}** (a player who doesn't move in time forfeits; applies from the next turn)",
            duration=describe_duration(settings.turn_timer),
        ),
        _("• reminders: **{state}** (once, at half the time)", state=_("on") if settings.reminders else _("off")),
        _("• a thread per game: **{state}**", state=_("on") if settings.threads else _("off")),
        describe_web(settings, server_url),
        # TRANSLATORS: {language} is a language's own name, e.g. "Deutsch", "日本語"
        _("• language of the bot's posts: **{language}**", language=posts)
        if settings.language in i18n.languages()
        else _(
            "• language of the bot's posts: **{language}** (auto: the server's language in Discord)", language=posts
        ),
    ]
    if settings.language and settings.language not in i18n.languages():
        # TRANSLATORS: {chosen} is the name of the language chosen for the server (e.g. "français"), {language} the
        # one posts use meanwhile; {settings} the command /settings (a mention).
        lines.append(
            _(
                "⚠️ **{chosen}** was chosen, but this bot can't read that language's catalog now (missing or "
                "damaged): posts are in **{language}** until it is back. Its operator has the details in the "
                "log; {settings} can choose another.",
                chosen=i18n.language_name(settings.language),
                language=posts,
                settings=mentions.command("settings"),
            )
        )
    return "\n".join(lines)


class Admin(commands.Cog):
    """Server-wide commands. Uses the bot's shared ``layer`` (games, settings) and ``kinds``."""

    def __init__(self, bot: "HongBot") -> None:
        self.bot = bot
        self.layer = bot.layer

    @app_commands.command(name="settings", description="Show or change the bot's settings for this server")
    @app_commands.describe(
        turn_timer="Time for a turn, 1 minute to 7 days, e.g. 90 minutes, 1h 30m, 2 days (default 24 hours)",
        reminders="Remind the player to move at half the time (default True)",
        threads="Open a thread for each game (default False)",
        language="The language of the bot's posts here (default auto: the server's language in Discord)",
        web="Web pages of games: off (default), link (for whoever has a link), public (also a server page)",
        web_revoke="Revoke every web link of this server at once; new posts get new ones (default False)",
    )
    @language_option(language_choices())
    @app_commands.choices(web=[app_commands.Choice(name=mode, value=mode) for mode in WEB_MODES])
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: discord.Interaction,
        turn_timer: app_commands.Range[str, 1, 20] | None = None,
        reminders: bool | None = None,
        threads: bool | None = None,
        language: str | None = None,
        web: str | None = None,
        web_revoke: bool | None = None,
    ) -> None:
        """Show the server's settings to anyone (the turn timer concerns every player); with options, change them,
        which needs Manage Server. ``language``: a code of :func:`bot.i18n.languages` for the server's public posts,
        or ``"auto"`` (the server's preferred locale); ``web``: the web companion's pages (off, link, public);
        ``web_revoke``: every web link of the server revoked at once (as turning ``web`` off does).

        Raises:
            UserError: outside a server, a change without the permission, or an unreadable or out-of-range timer.
        """
        if interaction.guild_id is None:
            raise UserError(_("Use {settings} in a server.", settings=mentions.command("settings")))
        changing = any(v is not None for v in (turn_timer, reminders, threads, language, web)) or bool(web_revoke)
        if changing and not interaction.permissions.manage_guild:
            raise UserError(
                _(
                    "Only members with the **Manage Server** permission can change the bot's settings; "
                    "{settings} without options shows them.",
                    settings=mentions.command("settings"),
                )
            )
        if web is not None and web not in WEB_MODES:
            raise UserError(
                _(
                    "`{text}` is not a choice for the web pages: pick off, link or public.",
                    text=escape_markdown(web[:40]),
                )
            )
        if language is not None and language not in (AUTO, *i18n.languages()):  # typed, not suggested
            raise UserError(
                _(
                    "`{text}` is not a language I speak: pick one from the list ({languages}).",
                    text=escape_markdown(language[:40]),
                    languages=", ".join(i18n.language_name(code) for code in i18n.languages()),
                )
            )
        seconds = parse_duration(turn_timer) if turn_timer is not None else None
        turned_off = web == "off" and (await self.layer.settings.get(interaction.guild_id)).web != "off"
        settings = await self.layer.settings.update(
            interaction.guild_id, turn_timer=seconds, reminders=reminders, threads=threads, language=language, web=web
        )
        if web_revoke or turned_off:  # turned off: every link retired, so turning on again revives no leaked one
            settings = await self.layer.settings.revoke_web_links(interaction.guild_id)
        server_name = interaction.guild.name if interaction.guild else ""
        server_url = await self.server_url(interaction.guild_id, settings, server_name)
        text = describe_settings(settings, interaction.guild, changed=changing, server_url=server_url)
        if turned_off:
            text += "\n" + _(
                "Every web link of this server made so far is revoked; turning the web pages on again makes new ones."
            )
        elif web_revoke:
            text += "\n" + _("Every web link of this server made so far is revoked; new posts carry new links.")
        await answers.send(interaction, text, ephemeral=True)

    async def server_url(self, guild_id: int, settings: GuildSettings, name: str = "") -> str | None:
        """The address of the server's page on the web companion (public servers, when the bot knows its address),
        titled with the server's ``name``."""
        base, links = self.bot.config.web_base, self.bot.weblinks
        if base is None or links is None or settings.web != "public":
            return None
        with i18n.language(await server_language(self.bot, guild_id, self.layer)):
            token = await links.server_link(guild_id, i18n.current(), settings, names.clean(name))
        return f"{base}/s/{token}" if token else None

    game = app_commands.Group(
        name="game",
        description="Moderate games in this server",
        guild_only=True,
        default_permissions=discord.Permissions(manage_messages=True),
    )

    @game.command(name="abort", description="End this channel's game without a result (unrated)")
    async def abort(self, interaction: discord.Interaction) -> None:
        """An admin ends the channel's game, unrated, and its last board is posted. Needs Manage Messages.

        Raises:
            UserError: without the permission, or no game running here.
        """
        if not interaction.permissions.manage_messages:
            raise UserError(_("Only members with the **Manage Messages** permission can abort a game."))
        answers.before_change(interaction, private=renderer.busy)  # stored only once answered
        turn = await self.layer.abort(channel_id(interaction), person(interaction.user))
        await post_turn(self.bot, interaction, self.layer.kinds[turn.record.kind], turn)

    @app_commands.command(name="games", description="The games running in this server, to watch")
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction) -> None:
        """The server's running games (ephemeral), for anyone who wants to watch.

        Raises:
            UserError: outside a server, or no game running.
        """
        if interaction.guild_id is None:
            raise UserError(_("Use {games} in a server.", games=mentions.command("games")))
        games = await self.layer.active_games(interaction.guild_id)
        if not games:
            start = format_list(
                [mentions.command(f"{name} challenge") for name in self.layer.kinds], style="or", locale=i18n.current()
            )
            # TRANSLATORS: {commands} is e.g. "/hong challenge or /hongkong challenge"
            raise UserError(
                _("No games are running in this server right now. Start one with {commands}.", commands=start)
            )
        embed = discord.Embed(title=_("Games in progress ({count})", count=len(games)), colour=discord.Colour.blurple())
        language = await server_language(self.bot, interaction.guild_id, self.layer)
        server_name = interaction.guild.name if interaction.guild else ""
        settings = await self.layer.settings.get(interaction.guild_id)
        server_url = await self.server_url(interaction.guild_id, settings, server_name)
        if server_url:
            # TRANSLATORS: {url} is the address of the server's page (leaderboard and live games) on the web.
            embed.description = _("On the web: {url}", url=server_url)
        for record, game in games[:MAX_FIELDS]:
            kind = self.layer.kinds[record.kind]
            a, b = record.names
            seat = game.to_move
            # TRANSLATORS: {game} is "Hong Kong" or "Hong"; {first} and {second} are the players' names
            name = _("{game}: {first} vs {second}", game=kind.title, first=a, second=b)
            # TRANSLATORS: {role} is the seat's name (blue, emperor …), {channel} the game's channel or thread (a
            # mention: Discord shows its name, and opens it when clicked)
            value = _(
                "{player} ({role}) to move · turn {turn} · watch in {channel}",
                player=record.player(seat).shown,
                role=kind.role(seat),
                turn=kind.turn_number(game),
                channel=f"<#{record.channel_id}>",
            )
            if record.deadline:
                # TRANSLATORS: in a list of a game's facts ("… · turn 3 · time runs out in 2 hours"): no full stop.
                # {when} is a moment Discord shows relative to now in the reader's language: "in 23 hours".
                value += " · " + _("time runs out {when}", when=when(record.deadline))
            with i18n.language(language):
                url = await watch_url(self.bot, record)
            if url:
                # TRANSLATORS: a link to the game's page on the web ([text](address) is Discord's link markdown)
                value += " · " + _("[watch live]({url})", url=url)
            embed.add_field(name=name[:256], value=value[:1024], inline=False)
        if len(games) > MAX_FIELDS:
            more = len(games) - MAX_FIELDS
            embed.set_footer(text=n_("… and {count} more", "… and {count} more", more))
        await answers.send(interaction, embed=embed, ephemeral=True)


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Admin` cog to ``bot``."""
    await bot.add_cog(Admin(bot))


__all__ = ["Admin", "setup"]
