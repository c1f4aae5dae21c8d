"""``python -m bot.i18n extract`` (also ``python -m bot.interface.extract extract``): rebuild the catalogs' template
``bot/i18n/locales/hongbot.pot`` from the code (every marked message, :func:`bot.i18n.extract`) and from the command tree
(every name, description and choice the translator is asked for, :func:`bot.interface.translator.command_strings`), and merge
it into every language's catalog (:func:`bot.i18n.write_catalogs`).

The command tree is the bot's own, built offline (:func:`command_tree`): no Discord, no Redis.
"""

from __future__ import annotations

import argparse
import asyncio

from discord import app_commands

from .. import i18n
from .client import EXTENSIONS, HongBot
from ..config import Config
from ..storage.connection import unconnected
from .translator import command_strings


class _Offline(HongBot):
    """The bot with its features' commands, none of them started."""

    async def add_cog(self, cog, /, **_kwargs) -> None:
        """Only the cog's commands, into the tree: adding the cog itself would start it (``cog_load``: timers,
        Redis)."""
        for command in cog.__cog_app_commands__:
            self.tree.add_command(command)


async def command_tree() -> app_commands.CommandTree:
    """The bot's command tree as it is synced, built offline: :class:`bot.interface.client.HongBot` with its features
    (:data:`bot.interface.client.EXTENSIONS`) loaded on a Redis client that never connects, their cogs' commands added to
    the tree without starting the cogs (no timers, no Redis, no Discord)."""
    handle = unconnected()  # never used: building the commands reads nothing
    bot = _Offline(Config(), redis=handle)
    bot.layer = bot.game_layer(handle.client)
    for extension in EXTENSIONS:
        await bot.load_extension(extension)
    await handle.close()
    return bot.tree


async def _tree_strings() -> list[tuple[str | None, str, str]]:
    return await command_strings(await command_tree())


def main(argv: list[str] | None = None) -> int:
    """Run ``extract``: rebuild the template and merge it into every catalog; prints the files written and how
    many messages the template holds. Returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bot.i18n", description="Message catalogs of the bot.")
    parser.add_argument("action", choices=["extract"], help="extract: rebuild the template and update the catalogs")
    parser.parse_args(argv)
    strings = asyncio.run(_tree_strings())
    template = i18n.extract(extra=strings)
    for path in i18n.write_catalogs(template):
        print(path)
    print(f"{len(template)} messages, {len(strings)} of them from the commands")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["command_tree", "main"]
