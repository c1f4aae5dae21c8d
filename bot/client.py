"""The bot process: a discord.py client that hosts the games through :class:`bot.table.Table`."""
from __future__ import annotations

import logging
import random
import time
from typing import Callable

import discord
from discord import app_commands
from discord.ext import commands

from .config import Config
from .games import all_kinds
from .session import GameLayer
from .stats import setup as setup_stats
from .store import GameStore, RedisHandle, connect
from .table import DYNAMIC_ITEMS, Table

log = logging.getLogger(__name__)


class HongBot(commands.Bot):
    """The bot: connects to Redis in ``setup_hook``, registers every game's command group, syncs commands.

    Args:
        config: the loaded :class:`Config`.
        redis: an already connected :class:`RedisHandle` to use (tests share one server between bots);
            None → connect from ``config`` at start-up and close it at shutdown.
        rng: randomness for game ids, seeds and "random" options (tests pass a seeded one).
        clock: Unix seconds now (tests pass one they can move forward instead of sleeping).
        poll_interval: seconds between checks for due deadlines.
    """

    def __init__(
        self,
        config: Config,
        *,
        redis: RedisHandle | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        poll_interval: float = 1.0,
    ) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(), help_command=None)
        self.config = config
        self._redis = redis
        self._owns_redis = redis is None
        self.table: Table | None = None
        self.rng = rng
        self.clock = clock
        self.poll_interval = poll_interval

    async def setup_hook(self) -> None:
        if self._redis is None:
            self._redis = await connect(self.config.redis_url, self.config.data_dir)
        kinds = all_kinds()
        layer = GameLayer(
            GameStore(self._redis.client), kinds, challenge_timeout=self.config.challenge_timeout,
            clock=self.clock, rng=self.rng,
        )
        self.table = Table(self, layer, poll_interval=self.poll_interval)
        for kind in kinds.values():
            self.tree.add_command(self.table.build_group(kind))
        for command in self.table.server_commands():
            self.tree.add_command(command)
        self.tree.on_error = self.on_app_command_error
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        await setup_stats(self)  # /leaderboard /stats /history /replay /record, Replay button, rating sweep
        if self.config.dev_guild_id:
            guild = discord.Object(self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d command groups: %s", len(synced), ", ".join(c.name for c in synced))
        log.info("checked the deadlines of %d challenge(s) and game(s)", await layer.rearm())
        self.table.start_deadlines()
        log.info("resumed %d computer turn(s)", await self.table.resume_computer_games())

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) in %d guild(s)", self.user, self.user.id if self.user else "?", len(self.guilds))

    async def on_app_command_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """Central handler for what the commands did not catch: bad option values, checks, crashes."""
        if isinstance(error, app_commands.TransformerError):
            text = f"I couldn't read `{error.value}` for that option. {error}"
        elif isinstance(error, app_commands.CheckFailure):
            text = str(error) or "You can't use this command here."
        else:
            log.error("command %s failed", interaction.command and interaction.command.qualified_name, exc_info=error)
            text = "Something went wrong on our side; nothing was changed. Please try again."
        if self.table:
            await self.table.refuse(interaction, text)

    async def close(self) -> None:
        if self.table:
            await self.table.stop()
        await super().close()
        if self._owns_redis and self._redis is not None:
            await self._redis.close()
            self._redis = None
