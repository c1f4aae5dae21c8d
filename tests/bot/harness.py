"""Start the real bot (the class `python -m bot` runs) against the local Discord emulator and a real Redis (the
fixtures `emu`, `world` and `running` of tests/conftest.py use it)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from dataclasses import dataclass
from typing import Iterator

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from PIL import Image

from bot import i18n
from bot.__main__ import point_at
from bot.interface.client import HongBot
from bot.config import Config
from bot.storage.connection import RedisHandle

from tests.conftest import make_client

#: Seconds discord.py waits after the last GUILD_CREATE before the bot is ready (its default 2 s is for Discord's
#: trickle of guilds; the emulator sends READY and every GUILD_CREATE back to back, so this only shortens start-up).
GUILD_READY_TIMEOUT = 0.5


@dataclass
class World:
    """One guild with a channel, a second channel, two players and a spectator."""

    guild: int
    channel: int
    other_channel: int
    ann: dict
    ben: dict
    cleo: dict


def make_world(emu) -> World:
    guild = emu.create_guild("Test Guild")
    channel = emu.create_channel(guild, "games")
    other = emu.create_channel(guild, "other")
    users = [emu.create_user(name) for name in ("ann", "ben", "cleo")]
    for user in users:
        emu.add_member(guild, user)
    return World(guild, channel, other, *users)


class RunningBot:
    """A HongBot connected to the emulator in this event loop; ``await stop()`` closes it."""

    def __init__(self, bot: HongBot, task: asyncio.Task, handle: RedisHandle) -> None:
        self.bot, self.task, self.handle = bot, task, handle

    async def stop(self) -> None:
        await asyncio.wait_for(self.bot.close(), 20)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.task, 10)
        await asyncio.wait_for(self.handle.close(), 10)


async def start_bot(
    emu,
    redis_server,
    guild: int | None = None,
    rng=None,
    clock=None,
    poll_interval: float = 1.0,
    redis: RedisHandle | None = None,
    **config,
) -> RunningBot:
    """Start a bot process-equivalent: its own Redis connection (``redis``, or a new one to ``redis_server``),
    commands synced to ``guild`` (or globally)."""
    point_at(emu.api_base, emu.gateway_url)
    # (a bot serving web pages gives its web child process the Redis URL: bot/web/process.py)
    url = None
    if config.get("web_port") and redis is None:
        url = redis_server.get("url") or f"unix://{redis_server['unix_socket_path']}"
    handle = redis or RedisHandle(make_client(redis_server), url=url)
    bot = HongBot(
        Config(token=emu.token, api_base=emu.api_base, gateway_url=emu.gateway_url, dev_guild_id=guild, **config),
        redis=handle,
        rng=rng,
        poll_interval=poll_interval,
        **({"clock": clock} if clock else {}),
    )
    bot._connection.guild_ready_timeout = GUILD_READY_TIMEOUT  # HongBot passes discord.py no such option
    task = asyncio.create_task(bot.start(emu.token))
    await emu.wait_for_ready(timeout=15)
    await emu.wait_for_commands(timeout=15)
    # wait until this bot's setup (Redis, commands, dynamic items) is complete
    for _ in range(300):
        if bot.is_ready() and bot.get_cog("Play") is not None:
            break
        await asyncio.sleep(0.02)
    assert bot.is_ready(), "the bot did not become ready"
    return RunningBot(bot, task, handle)


def decode_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG"
    return image


def display(user: dict) -> str:
    """The name the bot shows for an emulator user."""
    return user.get("global_name") or user["username"]


async def refused(it) -> str:
    """Wait for an interaction's answer, check it was ephemeral (a refusal), and return its text."""
    await it.wait_response()
    assert it.ephemeral, f"expected an ephemeral refusal, got response {it.response_type}: {it.state()}"
    return (await it.wait_done()).content


def place_options(turn: str) -> dict:
    """A canonical Hong Kong turn (``Q@B2 R@C3``) → `/hongkong place` options."""
    parts = turn.split()
    kind, square = parts[-1].split("@")
    options = {"square": square}
    if kind == "R":
        options["piece"] = "roof"
    if len(parts) == 2:
        options["quick"] = parts[0].split("@")[1]
    return options


async def resign(emu, user, channel: int, game: str = "hongkong"):
    """``user`` resigns through ``/<game> resign`` and its private Confirm; returns the public final board post."""
    it = await emu.slash(user, channel, f"{game} resign")
    question = await it.wait_done()
    assert it.ephemeral and question.content.startswith("Resign your ") and question.buttons(), question.content
    click = await emu.click(user, question, question.button("Confirm")["custom_id"])
    final = (await click.wait_followups(1))[0]
    assert question.content == "You resigned." and question.buttons() == []
    return final


@contextlib.contextmanager
def temporary_catalogs(folder, messages: dict[str, dict], monkeypatch) -> Iterator[None]:
    """Small message catalogs in ``folder`` stand in for ``bot/i18n/locales`` inside the block: ``messages`` maps a
    language code to ``{msgid or (context, msgid): translation}`` — or ``{(singular, plural): (forms…)}`` for a
    counted message — each written as ``<code>.po``; the catalog caches are cleared before and after, so no other
    test sees them."""
    for code, entries in messages.items():
        catalog = Catalog(locale=code)
        for key, text in entries.items():
            if isinstance(text, tuple):  # a counted message: its forms in the language's plural rule
                catalog.add(key, text)
                continue
            context, message = key if isinstance(key, tuple) else (None, key)
            catalog.add(message, text, context=context)
        with (folder / f"{code}.po").open("wb") as f:
            write_po(f, catalog)
    before = i18n.LOCALES
    monkeypatch.setattr(i18n, "LOCALES", folder)
    i18n.reload()
    try:
        yield
    finally:  # the real catalogs again at once (not only at the test's end): nothing after the block caches these
        monkeypatch.setattr(i18n, "LOCALES", before)
        i18n.reload()
