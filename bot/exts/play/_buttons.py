"""The play feature's buttons: Accept/Decline on a challenge, Rematch on a final board, Allow/Refuse on a
takeback request, Confirm/Cancel on a resignation. Each carries what it acts on in its ``custom_id`` (restart-safe) and hands the press to the
:class:`~bot.exts.play._cog.Play` cog; refusals and failures take the one error path (:class:`GameButton`).

Labels are in the current language when the button is made: the server's for a public post, the caller's for a
private question. The ``custom_id`` never changes with the language (a button posted earlier keeps working).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from ...interface.buttons import GameButton, cog_named
from ...i18n import p_
from ...i18n.wording import GAME_ID

if TYPE_CHECKING:
    from ._cog import Play


def _play(interaction: discord.Interaction) -> "Play":
    """The play cog of the bot the button was pressed on.

    Raises:
        RuntimeError: the play feature is not loaded.
    """
    return cast("Play", cog_named(interaction, "Play"))


class ChallengeButton(GameButton, template=rf"hb:ch:(?P<action>accept|decline):(?P<game_id>{GAME_ID})"):
    """Accept / Decline on a challenge (``action`` "accept" or "decline")."""

    def __init__(self, action: str, game_id: str) -> None:
        label, style = (
            (p_("button", "Accept"), discord.ButtonStyle.success)
            if action == "accept"
            else (p_("button", "Decline"), discord.ButtonStyle.secondary)
        )
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"hb:ch:{action}:{game_id}"))
        self.action, self.game_id = action, game_id

    async def press(self, interaction: discord.Interaction) -> None:
        await _play(interaction).answer_challenge(interaction, self.action, self.game_id)


class RematchButton(GameButton, template=rf"hb:rm:(?P<game_id>{GAME_ID})", final_board=0):
    """Rematch on a finished game's last board: when both players have pressed it, a new game starts."""

    def __init__(self, game_id: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=p_("button", "Rematch"), style=discord.ButtonStyle.primary, custom_id=f"hb:rm:{game_id}"
            )
        )
        self.game_id = game_id

    async def press(self, interaction: discord.Interaction) -> None:
        await _play(interaction).rematch(interaction, self.game_id)


class TakebackButton(
    GameButton,
    template=rf"hb:tb:(?P<answer>yes|no):(?P<game_id>{GAME_ID}):(?P<moves>\d{{1,4}}):(?P<nonce>[a-z0-9]{{1,8}})",
):
    """Allow / Refuse on a takeback request; carries the game id, the move count it applies to and the request's
    own nonce (so a button of an older, expired request never answers a newer one)."""

    numbers = ("moves",)

    def __init__(self, answer: str, game_id: str, moves: int, nonce: str) -> None:
        label, style = (
            (p_("button", "Allow takeback"), discord.ButtonStyle.success)
            if answer == "yes"
            else (p_("button", "Refuse"), discord.ButtonStyle.secondary)
        )
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"hb:tb:{answer}:{game_id}:{moves}:{nonce}")
        )
        self.answer, self.game_id, self.moves, self.nonce = answer, game_id, moves, nonce

    async def press(self, interaction: discord.Interaction) -> None:
        await _play(interaction).answer_takeback(interaction, self)


class ResignButton(
    GameButton,
    template=rf"hb:rs:(?P<answer>yes|no):(?P<game_id>{GAME_ID}):(?P<expires>\d{{1,12}})",
):
    """Confirm / Cancel under the private "Resign your game?" question: carries the game id and when the question
    expires (Unix seconds), so a Confirm pressed later — after a restart, or in another game — does nothing but
    say so."""

    numbers = ("expires",)

    def __init__(self, answer: str, game_id: str, expires: int) -> None:
        label, style = (
            (p_("button", "Confirm"), discord.ButtonStyle.danger)
            if answer == "yes"
            else (p_("button", "Cancel"), discord.ButtonStyle.secondary)
        )
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"hb:rs:{answer}:{game_id}:{expires}"))
        self.answer, self.game_id, self.expires = answer, game_id, expires

    async def press(self, interaction: discord.Interaction) -> None:
        await _play(interaction).answer_resign(interaction, self)


BUTTONS = (ChallengeButton, RematchButton, TakebackButton, ResignButton)

__all__ = ["ChallengeButton", "RematchButton", "TakebackButton", "ResignButton", "BUTTONS"]
