"""The base of every button the bot posts, and the buttons of a finished game's last board.

Every button is a discord.py ``DynamicItem``: what it acts on rides in its ``custom_id`` (matched by the
subclass's ``template``), so it works after a restart and on any bot process. :class:`GameButton` rebuilds a
button from its ``custom_id`` (the template's named groups are the constructor's arguments) and routes every
failure of a press to the one error path, :func:`bot.interface.replies.on_error`.

A button class declared with ``final_board=<position>`` is put on the last board of every finished game (built
from the game id alone); the features declare theirs, nothing adds them at run time.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

import discord
from discord.ext import commands

from . import answers
from .. import i18n
from ..core.errors import UserError
from ..i18n import _
from .replies import on_error


class GameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"(?!)"):
    """A restart-safe button. Subclasses give a ``template`` whose named groups are their ``__init__``'s
    arguments (those listed in :attr:`numbers` are passed as ``int``) and implement :meth:`press`."""

    #: Template groups passed to ``__init__`` as whole numbers.
    numbers: ClassVar[tuple[str, ...]] = ()
    #: Whether a press sets out to change a game (:func:`bot.interface.answers.will_change`); False for a button
    #: that only shows something.
    changes: ClassVar[bool] = True
    _final_board: ClassVar[dict[str, tuple[int, type["GameButton"]]]] = {}

    if TYPE_CHECKING:
        # Each subclass's __init__ takes its own template's groups (the final board's buttons: the game id alone);
        # the base itself is never made.
        def __init__(self, *args: object, **kwargs: object) -> None: ...

    def __init_subclass__(cls, *, template: str, final_board: int | None = None, **kwargs) -> None:
        super().__init_subclass__(template=template, **kwargs)
        if final_board is not None:  # keyed by name: a reloaded extension replaces its class, never adds twice
            GameButton._final_board[f"{cls.__module__}.{cls.__qualname__}"] = (final_board, cls)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]):
        """The button a pressed ``custom_id`` describes (discord.py calls this for every press)."""
        return cls(**{k: int(v) if k in cls.numbers else v for k, v in match.groupdict().items()})

    async def callback(self, interaction: discord.Interaction) -> None:
        """Run :meth:`press` in the presser's language (``interaction.locale``: its replies and refusals; public
        posts switch to the server's) under the interaction's watchdog (:func:`bot.interface.answers.watch`: acknowledged
        within Discord's 3 s whatever the game store does); any failure goes to the one error path (refusal or
        apology)."""
        answers.watch(interaction)
        i18n.use(interaction.locale)
        if self.changes:
            answers.will_change(interaction)
        try:
            self.check_server(interaction)
            await self.press(interaction)
        except Exception as exc:
            await on_error(interaction, exc)

    def check_server(self, interaction: discord.Interaction) -> None:
        """A button whose ``custom_id`` names a server (a ``guild_id`` group) acts only in that server: a
        ``custom_id`` edited by a modified client could otherwise reach another server's data.

        Raises:
            UserError: pressed anywhere else.
        """
        guild_id = getattr(self, "guild_id", None)
        if isinstance(guild_id, int) and guild_id != interaction.guild_id:
            raise UserError(_("This button belongs to another server's message, so it does nothing here."))

    async def press(self, interaction: discord.Interaction) -> None:
        """What the button does. Raise :class:`bot.core.errors.UserError` to refuse (ephemerally)."""
        raise NotImplementedError


def view(*items: discord.ui.Item) -> discord.ui.View:
    """A view holding ``items``, without a timeout (dynamic items outlive any view)."""
    holder = discord.ui.View(timeout=None)
    for item in items:
        holder.add_item(item)
    return holder


def final_board_view(game_id: str) -> discord.ui.View:
    """The buttons of a finished game's last board, in their declared positions."""
    declared = sorted(GameButton._final_board.values(), key=lambda entry: entry[0])
    return view(*(cls(game_id) for _, cls in declared))


__all__ = ["GameButton", "view", "final_board_view"]


def cog_named(interaction: discord.Interaction, name: str) -> commands.Cog:
    """The cog ``name`` of the bot a button was pressed on — found by name: a reloaded extension's class is another
    class object, so callers ``cast`` it to theirs.

    Raises:
        RuntimeError: that feature is not loaded.
    """
    bot = interaction.client
    cog = bot.get_cog(name) if isinstance(bot, (commands.Bot, commands.AutoShardedBot)) else None
    if cog is None:
        raise RuntimeError(f"the {name.lower()} feature is not loaded")
    return cog
