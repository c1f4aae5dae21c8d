"""Running the bot in a server: ``/settings`` (turn timer, reminders, threads), ``/game abort`` and ``/games``."""
from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from ..errors import UserError
from ..options import person
from ..posts import post_turn
from ..settings import parse_duration
from ..words import describe_duration, jump_link

if TYPE_CHECKING:
    from ..client import HongBot

#: Discord's limit on an embed's fields.
MAX_FIELDS = 25


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
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    async def settings(
        self,
        interaction: discord.Interaction,
        turn_timer: app_commands.Range[str, 1, 20] | None = None,
        reminders: bool | None = None,
        threads: bool | None = None,
    ) -> None:
        """Show (and, with options, change) the server's settings. Needs Manage Server.

        Raises:
            UserError: outside a server, without the permission, or an unreadable or out-of-range timer.
        """
        if interaction.guild_id is None:
            raise UserError("Use /settings in a server.")
        if not interaction.permissions.manage_guild:
            raise UserError("Only members with the **Manage Server** permission can view or change the bot's settings.")
        seconds = parse_duration(turn_timer) if turn_timer is not None else None
        settings = await self.layer.settings.update(interaction.guild_id, turn_timer=seconds, reminders=reminders,
                                                    threads=threads)
        changed = any(v is not None for v in (turn_timer, reminders, threads))
        text = (
            f"{'Settings updated' if changed else 'Settings'} for this server:\n"
            f"• turn timer: **{describe_duration(settings.turn_timer)}** (a player who doesn't move in time forfeits; "
            "applies from the next turn)\n"
            f"• reminders: **{'on' if settings.reminders else 'off'}** (once, at half the time)\n"
            f"• a thread per game: **{'on' if settings.threads else 'off'}**"
        )
        await interaction.response.send_message(text, ephemeral=True)

    game = app_commands.Group(
        name="game", description="Moderate games in this server", guild_only=True,
        default_permissions=discord.Permissions(manage_messages=True),
    )

    @game.command(name="abort", description="End this channel's game without a result (unrated)")
    async def abort(self, interaction: discord.Interaction) -> None:
        """An admin ends the channel's game, unrated, and its last board is posted. Needs Manage Messages.

        Raises:
            UserError: without the permission, or no game running here.
        """
        if not interaction.permissions.manage_messages:
            raise UserError("Only members with the **Manage Messages** permission can abort a game.")
        turn = await self.layer.abort(interaction.channel_id, person(interaction.user))
        await post_turn(self.bot, interaction, self.layer.kinds[turn.record.kind], turn)

    @app_commands.command(name="games", description="The games running in this server, to watch")
    @app_commands.guild_only()
    async def games(self, interaction: discord.Interaction) -> None:
        """The server's running games (ephemeral), for anyone who wants to watch.

        Raises:
            UserError: outside a server, or no game running.
        """
        if interaction.guild_id is None:
            raise UserError("Use /games in a server.")
        games = await self.layer.active_games(interaction.guild_id)
        if not games:
            start = " or ".join(f"/{name} challenge" for name in self.layer.kinds)
            raise UserError(f"No games are running in this server right now. Start one with {start}.")
        embed = discord.Embed(title=f"Games in progress ({len(games)})", colour=discord.Colour.blurple())
        for record, game in games[:MAX_FIELDS]:
            kind = self.layer.kinds[record.kind]
            a, b = record.names
            seat = game.to_move
            left = describe_duration(record.deadline - self.layer.clock()) if record.deadline else "—"
            embed.add_field(
                name=f"{kind.title}: {a} vs {b}"[:256],
                value=(f"{record.player(seat).shown} ({kind.roles[seat]}) to move · turn {kind.turn_number(game)} · "
                       f"{left} left · [watch]({jump_link(record.guild_id, record.channel_id)})")[:1024],
                inline=False,
            )
        if len(games) > MAX_FIELDS:
            embed.set_footer(text=f"… and {len(games) - MAX_FIELDS} more")
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Admin` cog to ``bot``."""
    await bot.add_cog(Admin(bot))


__all__ = ["Admin", "setup"]
