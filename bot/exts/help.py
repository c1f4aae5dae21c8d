"""``/help``: what the bot does, how to start a game, every command with one line, and a link to invite the bot.

The answer is ephemeral and in the caller's language (the command tree makes it current). Commands are listed from
the tree itself — every command the bot has, a new game's included — each by its mention, with its description as
Discord shows it in that language (the catalogs' translation of the description).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import discord
from babel.lists import format_list
from discord import app_commands
from discord.ext import commands

from .. import i18n
from ..i18n import _
from ..interface import answers, mentions
from .play._reach import NAMES as GAME_PERMISSIONS

if TYPE_CHECKING:
    from ..interface.client import HongBot

#: What the bot needs in a server (README.md, "Create the Discord application"): a game's channel's permissions
#: (:data:`bot.exts.play._reach.NAMES`) and Read Message History (a post whose answer was lost is looked for).
INVITE_PERMISSIONS = discord.Permissions(read_message_history=True, **{name: True for name in GAME_PERMISSIONS})
#: The scopes of the invite: the bot user and its slash commands.
INVITE_SCOPES = ("bot", "applications.commands")
#: Discord's limits on an embed: a field's value, and the fields.
FIELD_MAX, MAX_FIELDS = 1024, 25


def invite_url(application_id: int) -> str:
    """The OAuth2 link that adds the bot to a server with :data:`INVITE_PERMISSIONS` and :data:`INVITE_SCOPES`."""
    return discord.utils.oauth_url(application_id, permissions=INVITE_PERMISSIONS, scopes=INVITE_SCOPES)


def command_lines(command: app_commands.Command | app_commands.Group) -> Iterator[str]:
    """One line per command a member can run under ``command`` (itself, or each subcommand of a group): its mention
    and its description in the current language."""
    if isinstance(command, app_commands.Group):
        for sub in command.commands:
            yield from command_lines(sub)
        return
    yield f"{mentions.command(command.qualified_name)} — {_(command.description)}"


def help_embed(tree: app_commands.CommandTree, titles: dict[str, str], application_id: int) -> discord.Embed:
    """``/help``'s answer (current language): what the bot does and how to start (``titles``: each game's command
    name → its title), then a field per top-level command of ``tree`` with its commands, then the invite link.
    Each field is cut to Discord's limits (the commands themselves stay listed by Discord)."""
    games = format_list([f"**{title}**" for title in titles.values()], locale=_list_locale())
    starts = format_list([mentions.command(f"{name} challenge") for name in titles], style="or", locale=_list_locale())
    # TRANSLATORS: {games} lists the games' names in bold ("**Hong** and **Hong Kong**")
    lines = [
        _(
            "I host board games for two players here: {games}. Every game is played in its channel, by slash "
            "commands, with a new board after every turn; anyone can watch.",
            games=games,
        ),
        "",
        # TRANSLATORS: {commands} is e.g. "/hong challenge or /hongkong challenge" (mentions)
        _(
            "**Start a game** with {commands}: name an `opponent`, pick me to play the computer (choose its "
            "`level`), or leave it out for anyone to accept.",
            commands=starts,
        ),
        "",
        # TRANSLATORS: {analyse} and {hint} are the commands (mentions); the numbers are points of a chance to win.
        _(
            "**Learn from a game**: {analyse} has the computer judge every move of a finished game — an inaccuracy "
            "costs the mover at least 10 points of their chance to win, a mistake 20, a blunder 30. In a game "
            "against the computer, {hint} shows you the move it would play; hints are counted and shown in the "
            "game's analysis (games against the computer are never rated).",
            analyse=mentions.command("analyse"),
            hint=mentions.command("hint"),
        ),
    ]
    embed = discord.Embed(title=_("How to play here"), description="\n".join(lines), colour=discord.Colour.blurple())
    listed = [c for c in tree.get_commands() if isinstance(c, (app_commands.Command, app_commands.Group))]
    listed.sort(key=lambda c: c.name not in titles)  # the games' commands first, then the rest as the tree has them
    for command in listed[: MAX_FIELDS - 1]:
        embed.add_field(name=mentions.typed(command.name), value=_cut("\n".join(command_lines(command))), inline=False)
    # TRANSLATORS: a link's text (Markdown); {url} is the address that adds the bot to a server
    embed.add_field(
        name=_("Invite"), value=_("[Add me to another server]({url})", url=invite_url(application_id)), inline=False
    )
    return embed


def _cut(text: str) -> str:
    """``text`` within a field's :data:`FIELD_MAX` characters, cut at a line's end."""
    if len(text) <= FIELD_MAX:
        return text
    return text[: FIELD_MAX - 1].rpartition("\n")[0] + "\n…"


def _list_locale() -> str:
    """The locale of lists in the current language (English as CLDR's en_GB: no comma before "and")."""
    code = i18n.current()
    return "en_GB" if code == i18n.SOURCE else code


class Help(commands.Cog):
    """``/help`` (anyone, anywhere the bot's commands are)."""

    def __init__(self, bot: "HongBot") -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What I do, how to start a game, and every command")
    async def help(self, interaction: discord.Interaction) -> None:
        """Answer privately with :func:`help_embed`."""
        titles = {name: kind.title for name, kind in sorted(self.bot.kinds.items())}
        embed = help_embed(self.bot.tree, titles, interaction.application_id)
        await answers.send(interaction, embed=embed, ephemeral=True)


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Help` cog to ``bot``."""
    await bot.add_cog(Help(bot))


__all__ = ["Help", "help_embed", "invite_url", "command_lines", "INVITE_PERMISSIONS", "setup"]
