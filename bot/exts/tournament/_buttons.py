"""Join / Leave under a tournament's sign-up post: restart-safe (:class:`bot.interface.buttons.GameButton`), the
server, channel and tournament in the ``custom_id``; a press goes to :meth:`TournamentCog.signup`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from ...i18n import p_
from ...interface.buttons import GameButton, cog_named

if TYPE_CHECKING:
    from ._cog import TournamentCog


class SignupButton(
    GameButton,
    template=r"hb:tn:(?P<action>join|leave):(?P<guild_id>\d+):(?P<channel>\d+):(?P<tournament_id>[a-z0-9]{1,16})",
):
    """Join or Leave (``action``) the tournament ``tournament_id`` of ``guild_id``, run from ``channel``."""

    numbers = ("guild_id", "channel")

    def __init__(self, action: str, guild_id: int, channel: int, tournament_id: str) -> None:
        label, style = (
            (p_("button", "Join"), discord.ButtonStyle.success)
            if action == "join"
            else (p_("button", "Leave"), discord.ButtonStyle.secondary)
        )
        custom_id = f"hb:tn:{action}:{guild_id}:{channel}:{tournament_id}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.action, self.guild_id, self.channel, self.tournament_id = action, guild_id, channel, tournament_id

    async def press(self, interaction: discord.Interaction) -> None:
        cog = cast("TournamentCog", cog_named(interaction, "Tournament"))
        await cog.signup(interaction, self)


def signup_buttons(guild_id: int, channel: int, tournament_id: str) -> list[SignupButton]:
    return [SignupButton(action, guild_id, channel, tournament_id) for action in ("join", "leave")]


BUTTONS = (SignupButton,)

__all__ = ["SignupButton", "signup_buttons", "BUTTONS"]
