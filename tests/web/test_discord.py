"""The web companion from Discord, end to end (the real bot through the emulator, a real Redis): ``/settings web``,
the **Watch live** link button on board posts, links in ``/games``, revoking every link at once; and the pages the
bot serves itself on ``web_port``."""

from __future__ import annotations

import os
import random
import socket

import aiohttp
import psutil
import pytest

from tests.bot.harness import start_bot
from tests.emulator import PERMISSIONS

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
async def web_bot(emu, world, redis_server, redis):
    """The bot serving the web pages itself on a free port; ``world.admin`` may manage the server."""
    world.admin = emu.create_user("ada")
    emu.add_member(world.guild, world.admin, permissions=PERMISSIONS["manage_guild"] | PERMISSIONS["manage_messages"])
    port = free_port()
    bot = await start_bot(emu, redis_server, guild=world.guild, rng=random.Random(1), web_port=port)
    bot.port = port
    yield bot
    await bot.stop()


async def settings(emu, world, **options) -> str:
    it = await emu.slash(world.admin, world.channel, "settings", **options)
    reply = await it.wait_done()
    assert it.ephemeral
    return reply.content


async def start_game(emu, world):
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    return (await click.wait_followups(1))[0]


def watch_url(message) -> str | None:
    links = [b for b in message.buttons() if b.get("style") == 5]
    return links[0]["url"] if links else None


async def test_watch_live_only_where_the_server_allows_it(emu, world, web_bot):
    assert "web pages: **off**" in await settings(emu, world)
    board = await start_game(emu, world)
    assert watch_url(board) is None  # off by default: no link anywhere
    reply = await settings(emu, world, web="link")
    assert "web pages: **link" in reply
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    posted = (await it.wait_followups(1))[0]
    url = watch_url(posted)
    assert url is not None and url.startswith(f"http://localhost:{web_bot.port}/g/")
    assert posted.button("Watch live")["url"] == url
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as page:
            assert page.status == 200 and "B2" in await page.text()
        games = await (await emu.slash(world.cleo, world.channel, "games")).wait_done()
        assert url in str(games.embeds)
        reply = await settings(emu, world, web_revoke=True)
        assert "revoked" in reply
        async with session.get(url) as page:
            assert page.status == 404
        it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
        fresh = watch_url((await it.wait_followups(1))[0])
        assert fresh is not None and fresh != url
        async with session.get(fresh) as page:
            assert page.status == 200
        reply = await settings(emu, world, web="off")
        assert "revoked; turning the web pages on again makes new ones" in reply
        async with session.get(fresh) as page:
            assert page.status == 404
        await settings(emu, world, web="link")  # on again: the old links stay dead (one may have leaked)
        async with session.get(fresh) as page:
            assert page.status == 404
    assert emu.errors == []


async def test_a_public_server_has_its_page(emu, world, web_bot):
    reply = await settings(emu, world, web="public")
    assert "this server's page: http://localhost" in reply
    url = reply.split("this server's page: ")[1].split()[0]
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as page:
            html = await page.text()
            assert page.status == 200 and "Leaderboard" in html
            assert "<title>Test Guild · Games and leaderboard</title>" in html  # the server's name, from Discord


async def test_a_thread_games_link_follows_it_into_its_thread(emu, world, web_bot):
    await settings(emu, world, threads=True, web="link")
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    await (await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])).wait_done()
    thread_id = challenge.id
    first = await emu.wait_for_message(thread_id, lambda m: "the game begins" in m.content)
    url = watch_url(first)
    assert url is not None
    it = await emu.slash(world.ann, thread_id, "hongkong place", square="A1")
    moved = (await it.wait_followups(1))[0]
    assert watch_url(moved) == url  # one game, one link, wherever it is played
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as page:
            assert page.status == 200 and "<code>S@A1</code>" in await page.text()
    assert emu.errors == []


def environment_of(pid: int) -> dict[str, str]:
    raw = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    return dict(item.decode(errors="replace").partition("=")[::2] for item in raw if item)


async def test_the_pages_are_served_by_a_child_process_without_the_token(emu, world, web_bot):
    """Strangers' requests never reach the bot's own process (its sockets, Redis connections and CPU stay the
    players'): the port is served by a child that has no Discord token and ends with the bot."""
    child = web_bot.bot.web_child.proc
    assert child is not None and child.poll() is None and child.pid != os.getpid()
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{web_bot.port}/healthz") as answer:
            assert answer.status == 200
    listening = {c.laddr for c in psutil.Process(child.pid).net_connections("inet") if c.status == "LISTEN"}
    assert {(address.ip, address.port) for address in listening} == {("127.0.0.1", web_bot.port)}  # web_host
    env = environment_of(child.pid)
    assert emu.token not in "".join(env.values()) and "DISCORD_TOKEN" not in env
    assert open(env["HONGBOT_CONFIG"]).read() == ""  # no config.toml (nor any token in it) is read
    await web_bot.bot.close()
    assert child.wait(timeout=10) is not None  # stopped with the bot
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"http://127.0.0.1:{web_bot.port}/healthz")
