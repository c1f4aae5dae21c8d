"""The bot process: a discord.py client holding the shared services, with its features loaded as extensions.

``setup_hook`` connects to Redis, builds the services every feature uses (``bot.core.kinds``: the hosted games;
``bot.layer``: the :class:`~bot.core.session.GameLayer`), loads :data:`EXTENSIONS` (each adds one cog: its commands,
buttons and listeners), routes every command error to :func:`bot.interface.replies.on_error`, and syncs the commands — only
when their definitions changed since the last sync (:func:`sync_commands`), in every language of the catalogs (the
tree's :class:`~bot.interface.translator.CommandTranslator`), and installs the commands' ids for mentions in messages
(:mod:`bot.interface.mentions`). It also sizes the board renderer's worker
processes (:mod:`bot.interface.board_pool`) and, with ``metrics_port`` set, serves the metrics and the health check
(:mod:`bot.interface.metrics`). Its HTTP to Discord (:mod:`bot.interface.discordhttp`): public follow-ups are never retried blindly, the
bot-token requests take turns per server under this process's share of Discord's global limit, and the 401, 403,
404 and 429 answers are counted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import time
from typing import TYPE_CHECKING, Callable, Mapping

import discord
from discord.ext import commands

from ..config import NO_PRESENCE, Config
from . import discordhttp, mentions
from ..games import all_kinds
from ..storage.guard import StoreGuard
from .metrics import QUEUE_LENGTH, MetricsServer
from .board_pool import default_workers, renderer
from .replies import on_error
from ..core.session import GameLayer
from ..storage import commands as commands_kept
from ..storage.store import GameStore, Shards
from ..storage.connection import RedisHandle, connect
from .translator import CommandTranslator
from .tree import Tree
from ..storage.decoding import RedisClient
from ..storage.weblinks import WebLinks
from ..web.process import WebChild

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

# The bot never joins voice: discord.py's warnings that voice libraries (PyNaCl, davey) are missing are only noise.
discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False

#: Seconds a stop waits at most for the commands, buttons and posts in flight (:meth:`HongBot.drain`).
DRAIN_TIMEOUT = 10.0
#: The names discord.py gives the tasks running a command (``CommandTree-invoker``), a button
#: (``discord-ui-…``) or an event handler (``discord.py: on_…``).
IN_FLIGHT = ("CommandTree-invoker", "discord-ui-", "discord.py: ")

#: The features, loaded in this order (see :mod:`bot.exts`).
EXTENSIONS = (
    "bot.exts.play",
    "bot.exts.stats",
    "bot.exts.admin",
    "bot.exts.help",
    "bot.exts.privacy",
    "bot.exts.tournament",
    "bot.exts.coach",
)


def intents() -> discord.Intents:
    """The gateway events the bot needs: servers, channels, threads, members — not messages (it answers
    interactions only, and reads a channel's history over REST), so people's chat never costs it a thing."""
    wanted = discord.Intents.default()
    wanted.messages = False
    wanted.typing = False
    return wanted


def activity(config: Config, kinds: Mapping[str, object]) -> discord.Game | None:
    """What the bot is shown playing in the member list (sent when it identifies): ``config.presence``, or the games'
    commands — "Playing /hong · /hongkong", so whoever sees the bot sees how to start — or None (``off``)."""
    if config.presence == NO_PRESENCE:
        return None
    return discord.Game(config.presence or " · ".join(f"/{name}" for name in sorted(kinds)))


class HongBot(commands.AutoShardedBot):
    """The bot: connects to Redis in ``setup_hook``, loads the features, syncs commands.

    It runs the gateway shards ``config.shard_ids`` of ``config.shard_count`` (discord.py's ``AutoShardedBot``;
    by default the one shard of a bot that needs no sharding). Several processes, each with its own shards, share one
    Redis: each gets its shards' servers' events and interactions, and claims their deadlines and announcements
    (:attr:`served_shards`).

    Args:
        config: the loaded :class:`Config`.
        redis: an already connected :class:`RedisHandle` to use (tests share one server between bots);
            None → connect from ``config`` at start-up and close it at shutdown.
        rng: randomness for game ids, seeds and "random" options (tests pass a seeded one).
        clock: Unix seconds now (tests pass one they can move forward instead of sleeping).
        poll_interval: seconds between checks for due deadlines.

    Attributes:
        kinds: the hosted games by command name (set in ``setup_hook``).
        layer: the game layer every feature plays through (set in ``setup_hook``).
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
        kinds = all_kinds()
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            activity=activity(config, kinds),
            tree_cls=Tree,
            shard_count=config.shard_count,
            # discord.py's stub says list[int], but None (its default) means every shard
            shard_ids=(
                list(config.shard_ids)  # type: ignore[arg-type]
                if config.shard_ids is not None
                else None
            ),
            heartbeat_timeout=config.heartbeat_timeout,
            http_trace=discordhttp.trace(),
        )
        count = config.shard_count or 1
        #: This process's pace of bot-token requests (:mod:`bot.interface.discordhttp`): its share of Discord's global limit.
        self.gate = discordhttp.share(config.shard_ids if config.shard_ids is not None else tuple(range(count)), count)
        discordhttp.pace(self.http, self.gate, discordhttp.guild_of(self))
        QUEUE_LENGTH.labels("requests").set_function(lambda: self.gate.waiting)
        self.config = config
        self._redis = redis
        self._owns_redis = redis is None
        self.rng = rng
        self.clock = clock
        self.poll_interval = poll_interval
        self.kinds = kinds
        self._layer: GameLayer | None = None
        self.metrics_server: MetricsServer | None = None
        #: The web companion's links (made when a board is posted: bot.interface.posts.watch_view), and the child
        #: process serving its pages when this bot serves them (``web_port``).
        self.weblinks: WebLinks | None = None
        self.web_child: WebChild | None = None
        self._command_ids: dict[str, int] = {}

    async def setup_hook(self) -> None:
        """Connect to Redis, build the game layer, load the features, sync the commands (discord.py calls this
        once, after logging in and before connecting to the gateway). Public interaction follow-ups are made once
        from here on (:func:`bot.interface.discordhttp.install`, in this task: every task of the bot inherits it)."""
        discordhttp.install()
        if self._redis is None:
            self._redis = await connect(
                self.config.redis_url,
                self.config.data_dir,
                allow_unsafe=self.config.allow_unsafe_redis,
                pool_size=self.config.redis_pool_size,
                pool_timeout=self.config.redis_pool_timeout,
                cluster=self.config.redis_cluster,
            )
        guard = StoreGuard.of(self._redis)
        await guard.establish()  # the store's identity, before anything is written
        guard.start(self.config.store_check_interval)
        self.layer = self.game_layer(self._redis.client)
        await self.layer.store.detect_publish()  # how commits tell the web companion (PUBLISH or SPUBLISH)
        self.weblinks = WebLinks(self._redis.client)
        if self.config.web_port:  # the pages served by this bot: from its child process (bot/web/process.py)
            url = self._redis.url or (
                f"unix://{self._redis.embedded.socket_file}" if self._redis.embedded is not None else None
            )
            if url is None:
                log.warning("web_port is set but this bot's Redis has no URL to give the web companion: no pages")
            else:
                self.web_child = WebChild(self.config, url)
                await self.web_child.start()
        self.tree.error(on_error)
        await self.tree.set_translator(CommandTranslator(self.tree))
        workers = self.config.render_workers
        renderer.configure(default_workers() if workers is None else workers)
        self._warm_up = asyncio.create_task(renderer.warm_up(self.kinds.values()))  # workers ready for the first move
        if self.config.metrics_port:
            self.metrics_server = MetricsServer(self, self.config.metrics_port)
            await self.metrics_server.start()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        guild = discord.Object(self.config.dev_guild_id) if self.config.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        await sync_commands(self.tree, self._redis.client, guild)
        await withdraw_guild_commands(self.tree, self._redis.client, keep=guild)
        self._command_ids = await command_ids(self.tree, self._redis.client, guild)
        mentions.install(self.tree, self._command_ids)

    @property
    def layer(self) -> GameLayer:
        """The game layer every feature plays through (built in ``setup_hook``).

        Raises:
            RuntimeError: read before ``setup_hook`` built it (the bot has not started).
        """
        if self._layer is None:
            raise RuntimeError("the game layer is built in setup_hook: the bot has not started")
        return self._layer

    @layer.setter
    def layer(self, layer: GameLayer) -> None:
        self._layer = layer

    def game_layer(self, client: RedisClient) -> GameLayer:
        """The game layer every feature plays through, on the Redis ``client``."""
        return GameLayer(
            GameStore(client),
            self.kinds,
            challenge_timeout=self.config.challenge_timeout,
            clock=self.clock,
            rng=self.rng,
        )

    @property
    def guard(self) -> StoreGuard | None:
        """The :class:`bot.storage.guard.StoreGuard` of the bot's Redis (None before ``setup_hook``)."""
        return self._redis.guard if self._redis is not None else None

    @property
    def me(self) -> discord.ClientUser:
        """The bot's own user (``user``, known once logged in: before any command, button or event).

        Raises:
            RuntimeError: read before the bot logged in.
        """
        if self.user is None:
            raise RuntimeError("the bot's user is known once it has logged in")
        return self.user

    @property
    def served_shards(self) -> Shards:
        """The gateway shards this process runs (all of them until a count asked of Discord is known: then this
        process runs every shard)."""
        count = self.shard_count or 1
        return Shards(count, tuple(self.shard_ids) if self.shard_ids is not None else tuple(range(count)))

    async def on_ready(self) -> None:
        """Log who we are, on which shards, in how many servers."""
        log.info(
            "logged in as %s (%s) on shard(s) %s of %s in %d guild(s)",
            self.user,
            self.user.id if self.user else "?",
            ",".join(map(str, self.served_shards.ids)),
            self.shard_count,
            len(self.guilds),
        )

    async def drain(self, timeout: float = DRAIN_TIMEOUT) -> int:
        """Wait (at most ``timeout`` seconds) until the commands, buttons and event handlers being run — their Redis
        steps and posts — have finished: discord.py's tasks named :data:`IN_FLIGHT`, including those that start
        meanwhile. Returns how many were still running at the deadline (they are cut when the bot closes)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        me = asyncio.current_task()
        while True:
            pending = [
                task
                for task in asyncio.all_tasks()
                if task is not me and not task.done() and task.get_name().startswith(IN_FLIGHT)
            ]
            remaining = deadline - loop.time()
            if not pending or remaining <= 0:
                if pending:
                    log.warning(
                        "stopping with %d command(s) or post(s) still running after %.0f s: %s",
                        len(pending),
                        timeout,
                        ", ".join(sorted({task.get_name() for task in pending})),
                    )
                return len(pending)
            await asyncio.wait(pending, timeout=remaining)

    async def close(self) -> None:
        """Let what is in flight finish (:meth:`drain`), unload the features (each finishes what it is handling: see
        their ``cog_unload``), disconnect, and close Redis if this bot opened it."""
        if not self.is_closed():
            await self.drain()
        if self.metrics_server is not None:
            await self.metrics_server.stop()
            self.metrics_server = None
        if self.web_child is not None:
            await self.web_child.stop()
            self.web_child = None
        await super().close()
        if self._command_ids and mentions.installed_ids() == self._command_ids:
            mentions.install(None, {})  # this bot's commands are no longer served from this process
        if self._owns_redis and self._redis is not None:
            await self._redis.close()
            self._redis = None


def application_id(tree: discord.app_commands.CommandTree) -> int:
    """The id of the application whose commands ``tree`` holds (known once the client has logged in).

    Raises:
        RuntimeError: the client has not logged in yet.
    """
    if tree.client.application_id is None:
        raise RuntimeError("the application's id is known once the client has logged in")
    return tree.client.application_id


async def sync_commands(
    tree: discord.app_commands.CommandTree, redis: RedisClient, guild: discord.abc.Snowflake | None
) -> bool:
    """Sync the tree's commands to Discord (to ``guild`` only, or globally) if their definitions — the payload the
    sync would send, with every language's names and descriptions from the tree's translator (so a changed catalog
    syncs again) — changed since the last sync for this application and scope, whose hash is kept in Redis
    (:meth:`bot.storage.keys.Keys.commands`). Returns whether it synced.

    A restart with unchanged commands makes no request (a sync is a bulk overwrite Discord rate-limits, and slow
    with many commands); deleting the key forces the next start to sync.

    Raises:
        discord.HTTPException: the sync failed (the hash is then not stored: the next start tries again).
    """
    commands = tree.get_commands(guild=guild)
    if tree.translator:
        payload = [await command.get_translated_payload(tree, tree.translator) for command in commands]
    else:
        payload = [command.to_dict(tree) for command in commands]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    application, scope_id = application_id(tree), guild.id if guild is not None else None
    scope = f"server {guild.id}" if guild is not None else "global"
    if await commands_kept.synced_digest(redis, application, scope_id) == digest:
        log.info("%s commands unchanged since the last sync: not synced", scope)
        return False
    synced = await tree.sync(guild=guild)
    await commands_kept.save_sync(redis, application, scope_id, digest, {c.name: c.id for c in synced})
    log.info("synced %d %s command groups: %s", len(synced), scope, ", ".join(c.name for c in synced))
    return True


async def withdraw_guild_commands(
    tree: discord.app_commands.CommandTree, redis: RedisClient, keep: discord.abc.Snowflake | None
) -> list[int]:
    """Remove the commands synced earlier to single servers (``dev_guild_id`` set before, or set to another server)
    from every server but ``keep``: left there, Discord lists each command twice — the server's copy beside the
    global one. Each server gets an empty sync and its kept hash and ids are forgotten; a server the bot
    can no longer reach (it left: 403, 404) is forgotten too. Returns the servers withdrawn from.

    Never raises for Discord: another failure is logged and the server tried again at the next start."""
    application = application_id(tree)
    withdrawn = []
    for guild_id in sorted(await commands_kept.synced_guilds(redis, application)):
        if keep is not None and guild_id == keep.id:
            continue
        try:
            await tree.sync(guild=discord.Object(guild_id))  # the tree holds no commands for it: an empty overwrite
        except (discord.Forbidden, discord.NotFound) as error:
            log.info("server %s: can't withdraw its commands (%s); forgetting them", guild_id, error)
        except discord.HTTPException as error:
            log.warning(
                "server %s: couldn't withdraw the commands synced to it (%s); trying at the next start", guild_id, error
            )
            continue
        else:
            log.info("withdrew the commands synced to server %s alone (dev_guild_id): they are global now", guild_id)
        await commands_kept.forget_guild(redis, application, guild_id)
        withdrawn.append(guild_id)
    return withdrawn


async def command_ids(
    tree: discord.app_commands.CommandTree, redis: RedisClient, guild: discord.abc.Snowflake | None
) -> dict[str, int]:
    """The ids Discord gave the tree's top-level commands (in ``guild``, or global), for command mentions
    (:mod:`bot.interface.mentions`): as kept at the last sync (:func:`sync_commands`), else fetched from Discord once and
    kept. Never raises for Discord: if the fetch fails, no ids (messages then write commands as typed)."""
    application, scope_id = application_id(tree), guild.id if guild is not None else None
    kept = await commands_kept.kept_ids(redis, application, scope_id)
    if kept:
        return kept
    try:
        fetched = await tree.fetch_commands(guild=guild)
    except discord.HTTPException as error:
        log.warning("couldn't fetch the commands' ids (%s): messages name commands as typed", error)
        return {}
    ids = {c.name: c.id for c in fetched}
    await commands_kept.keep_ids(redis, application, scope_id, ids)
    return ids
