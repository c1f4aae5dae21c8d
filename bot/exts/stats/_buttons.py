"""The stats feature's buttons: Replay on every final board, Previous/Next on a leaderboard. Each carries what
it needs in its ``custom_id`` (restart-safe) and hands the press to the :class:`~bot.exts.stats._cog.Stats` cog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from ...interface.buttons import GameButton, cog_named, view
from ...i18n import p_
from ...storage.ratings import Page
from ...i18n.wording import GAME_ID

if TYPE_CHECKING:
    from ._cog import Stats


def _stats(interaction: discord.Interaction) -> "Stats":
    """The stats cog of the bot the button was pressed on.

    Raises:
        RuntimeError: the stats feature is not loaded.
    """
    return cast("Stats", cog_named(interaction, "Stats"))


class ReplayButton(GameButton, template=rf"hb:replay:(?P<game_id>{GAME_ID})", final_board=1):
    """ "Replay" on a final board (its label in the language current when it is made: the board's): the clicker
    gets the game's animated GIF (ephemeral, so clicks don't flood the channel)."""

    changes = False

    def __init__(self, game_id: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=p_("button", "Replay"),
                emoji="🎞️",
                style=discord.ButtonStyle.secondary,
                custom_id=f"hb:replay:{game_id}",
            )
        )
        self.game_id = game_id

    async def press(self, interaction: discord.Interaction) -> None:
        await _stats(interaction).send_replay(interaction, self.game_id, ephemeral=True)


class LeaderboardButton(
    GameButton,
    template=r"hb:lb:(?P<direction>[pn]):(?P<kind>[a-z]{1,32}):(?P<scope>[sg]):(?P<page>\d{1,6}):"
    r"(?P<guild_id>\d{1,20}):(?P<user_id>\d{1,20})",
):
    """Previous (``direction`` "p") / Next ("n") on a leaderboard. The custom_id carries (game, scope "s" server
    or "g" global, target page, guild, user); only the user who ran ``/leaderboard`` can turn its pages."""

    numbers = ("page", "guild_id", "user_id")
    changes = False

    def __init__(
        self, direction: str, kind: str, scope: str, page: int, guild_id: int, user_id: int, *, disabled: bool = False
    ) -> None:
        label = p_("button", "Previous") if direction == "p" else p_("button", "Next")
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"hb:lb:{direction}:{kind}:{scope}:{page}:{guild_id}:{user_id}",
            )
        )
        self.direction, self.kind, self.scope, self.page = direction, kind, scope, page
        self.guild_id, self.user_id = guild_id, user_id

    async def press(self, interaction: discord.Interaction) -> None:
        await _stats(interaction).turn_page(interaction, self)


def leaderboard_view(kind: str, scope: str, page: Page, guild_id: int, user_id: int) -> discord.ui.View:
    """Previous / Next for ``page`` (scope "s" server or "g" global), disabled at the ends; none for a leaderboard of
    one page (nothing to turn)."""
    if page.pages <= 1:
        return view()
    return view(
        LeaderboardButton("p", kind, scope, max(0, page.page - 1), guild_id, user_id, disabled=page.page == 0),
        LeaderboardButton("n", kind, scope, page.page + 1, guild_id, user_id, disabled=page.page >= page.pages - 1),
    )


BUTTONS = (ReplayButton, LeaderboardButton)

__all__ = ["ReplayButton", "LeaderboardButton", "leaderboard_view", "BUTTONS"]
