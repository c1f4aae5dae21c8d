"""Join / Leave under a tournament's sign-up post, and Confirm / Cancel under the private "Withdraw?" question:
restart-safe (:class:`bot.interface.buttons.GameButton`), the server, channel and tournament in the ``custom_id``; a
press goes to :meth:`TournamentCog.signup` or :meth:`TournamentCog.answer_withdraw`."""

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


class WithdrawButton(
    GameButton,
    template=r"hb:tw:(?P<answer>yes|no):(?P<guild_id>\d+):(?P<channel>\d+):(?P<tournament_id>[a-z0-9]{1,16}):"
    r"(?P<expires>\d{1,12})",
):
    """Confirm / Cancel (``answer``) under the private question asked when a player withdraws while their game in
    the tournament is being played (the game is resigned): carries the tournament and when the question expires
    (Unix seconds), so a Confirm pressed later — after a restart too — does nothing but say so. It acts on the
    presser's own entry only."""

    numbers = ("guild_id", "channel", "expires")

    def __init__(self, answer: str, guild_id: int, channel: int, tournament_id: str, expires: int) -> None:
        label, style = (
            (p_("button", "Confirm"), discord.ButtonStyle.danger)
            if answer == "yes"
            else (p_("button", "Cancel"), discord.ButtonStyle.secondary)
        )
        custom_id = f"hb:tw:{answer}:{guild_id}:{channel}:{tournament_id}:{expires}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.answer, self.guild_id, self.channel, self.tournament_id = answer, guild_id, channel, tournament_id
        self.expires = expires

    async def press(self, interaction: discord.Interaction) -> None:
        cog = cast("TournamentCog", cog_named(interaction, "Tournament"))
        await cog.answer_withdraw(interaction, self)


BUTTONS = (SignupButton, WithdrawButton)

__all__ = ["SignupButton", "WithdrawButton", "signup_buttons", "BUTTONS"]
