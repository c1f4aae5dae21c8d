"""The language of the play feature's public posts: a server's (:meth:`bot.storage.settings.SettingsStore.language_of`).

Replies to the person who acted are in their own language (the command tree and :class:`bot.interface.buttons.GameButton`
set it from ``interaction.locale``); everything posted for the channel to read — challenges, their Accept/Decline
buttons, reminders, forfeits, thread names, takeback and rematch requests — is built ``with`` :func:`public`.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import discord

from ... import i18n
from ...interface.posts import server_language
from ...core.session import GameLayer


@asynccontextmanager
async def public(bot: discord.Client, layer: GameLayer, guild_id: int | None) -> AsyncIterator[str]:
    """``async with public(bot, layer, guild_id):`` builds the text of a post in the server's language (see
    :func:`bot.interface.posts.server_language`); the language before it after. Yields the language's code."""
    with i18n.language(await server_language(bot, guild_id, layer)) as code:
        yield code


__all__ = ["public"]
