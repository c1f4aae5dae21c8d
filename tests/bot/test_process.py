"""`python -m bot` as a real process: embedded Redis, the emulator as Discord, a game that survives a restart,
and a clean stop on SIGTERM (what process managers send)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import psutil
import pytest

from tests.bot.harness import make_world
from tests.bot.processes import alive, descendants

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(180)


async def start_process(emu, world, data_dir: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HONGBOT_CONFIG")}
    env.update(
        PYTHONPATH=str(ROOT),
        DISCORD_TOKEN=emu.token,
        HONGBOT_API_BASE=emu.api_base,
        HONGBOT_GATEWAY_URL=emu.gateway_url,
        HONGBOT_DATA_DIR=str(data_dir),
        HONGBOT_DEV_GUILD_ID=str(world.guild),
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=str(data_dir.parent),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    ready = emu.ready_count
    for _ in range(600):
        if emu.ready_count > ready and emu.sync_count:
            break
        if proc.returncode is not None:
            raise AssertionError((await proc.stderr.read()).decode()[-3000:])
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.5)  # discord.py waits ~2 s for guilds before on_ready
    return proc


async def stop_process(proc) -> tuple[int, str]:
    proc.send_signal(signal.SIGTERM)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode, err.decode()


async def test_the_real_process_plays_survives_a_restart_and_stops_on_sigterm(emu, tmp_path):
    world = make_world(emu)
    data = tmp_path / "data"
    proc = await start_process(emu, world, data)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    await it.wait_followups(1)
    server = embedded_server(data)
    code, err = await stop_process(proc)
    assert code == 0, err[-3000:]
    assert "stopping (signal received)" in err and "Traceback" not in err
    assert (data / "appendonly.aof").exists()
    assert alive([server]) == [], "the embedded redis-server outlived the bot"
    # a new process on the same data directory continues the game
    proc = await start_process(emu, world, data)
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
    posted = (await it.wait_followups(1))[0]
    assert "`S@D4`" in posted.content and f"<@{world.ann['id']}>, your turn" in posted.content
    server = embedded_server(data)
    code, err = await stop_process(proc)
    assert code == 0, err[-3000:]
    assert "Traceback" not in err and "ERROR" not in err, err[-3000:]
    assert alive([server]) == [] and not (data / "redis-server.pid").exists()
    assert emu.errors == []


def embedded_server(data: Path) -> int:
    """The pid of the embedded redis-server a bot runs on ``data`` (a child of the bot)."""
    pid = int((data / "redis-server.pid").read_text().split()[0])
    assert "redis-server" in " ".join(psutil.Process(pid).cmdline())
    return pid


async def test_kill_9_of_the_bot_takes_its_embedded_redis_with_it_and_the_next_start_carries_on(emu, tmp_path):
    from tests.bot.processes import kill9, start_bot_process

    world = make_world(emu)
    data = tmp_path / "data"
    proc = await start_bot_process(emu, world.guild, data)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    await it.wait_followups(1)
    server = embedded_server(data)
    assert server in descendants(proc.pid)
    await kill9(proc)
    for _ in range(100):
        if not alive([server]):
            break
        await asyncio.sleep(0.05)
    assert alive([server]) == [], "the embedded redis-server outlived the killed bot"
    proc = await start_bot_process(emu, world.guild, data, sync=False)  # on the same data: the game goes on
    assert embedded_server(data) != server
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
    posted = (await it.wait_followups(1))[0]
    assert "`S@D4`" in posted.content and f"<@{world.ann['id']}>, your turn" in posted.content
    server = embedded_server(data)
    socket_dir = Path((data / "redis-server.pid").read_text().split()[1]).parent
    await kill9(proc)
    for _ in range(100):
        if not alive([server]):
            break
        await asyncio.sleep(0.05)
    assert alive([server]) == []
    from bot.storage.embedded import stop_stale

    stop_stale(data.resolve())  # what the next start does first: nothing to stop, the killed bot's socket dir removed
    assert not socket_dir.exists()


# --- kill -9 and a Redis that dies ---------------------------------------------------------------------------


async def test_kill_9_of_the_bot_leaves_no_worker_and_the_next_process_carries_on(emu, tmp_path):
    from bot.storage.keys import Keys
    import redis.asyncio as aioredis
    from tests.bot.processes import RedisServer, alive, descendants, kill9, start_bot_process

    world = make_world(emu)
    server = RedisServer(tmp_path / "redis")
    server.start()
    client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
    try:
        proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url)
        it = await emu.slash(
            world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="them"
        )
        await it.wait_followups(1)
        await emu.wait_for_message(world.channel, lambda m: "played `" in m.content)  # the computer moved
        workers = descendants(proc.pid)
        assert workers, "the computer's worker processes should be running"
        await kill9(proc)
        for _ in range(100):
            if not alive(workers):
                break
            await asyncio.sleep(0.05)
        assert alive(workers) == [], "worker processes outlived the bot"
        proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url)
        it = await emu.slash(world.ann, world.channel, "hongkong board")
        await it.wait_followups(1)
        assert await client.zcard(Keys.DEADLINES) >= 1
        await kill9(proc)
    finally:
        await client.aclose()
        server.stop()


async def test_redis_killed_mid_game_the_bot_carries_on_when_it_returns(emu, tmp_path):
    from bot.storage.keys import Keys
    import redis.asyncio as aioredis
    from tests.bot.processes import RedisServer, kill9, start_bot_process

    world = make_world(emu)
    server = RedisServer(tmp_path / "redis")
    server.start()
    proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url)
    try:
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        challenge = await it.wait_done()
        click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
        await click.wait_followups(1)
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        await it.wait_followups(1)
        server.kill()
        it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")  # Redis is down
        reply = await it.wait_done(timeout=30)
        refused = "was not saved" in reply.content or "couldn't reach the game store" in reply.content
        assert refused or "`S@D4`" in reply.content, reply.content
        server.start()
        await asyncio.sleep(1)
        stored = None
        client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
        try:
            if refused:  # not stored: play it again now that Redis is back
                it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
                posted = (await it.wait_followups(1, timeout=30))[0]
                assert "`S@D4`" in posted.content
            it = await emu.slash(world.ann, world.channel, "hongkong place", square="A1")
            posted = (await it.wait_followups(1, timeout=30))[0]
            assert "`S@A1`" in posted.content and f"<@{world.ben['id']}>, your turn" in posted.content
            stored = await client.hgetall(Keys.game(world.channel))
            assert '"moves":["S@B2","S@D4","S@A1"]' in stored["doc"]
            deadlines = await client.zrange(Keys.DEADLINES, 0, -1)
            assert any(d.startswith("forfeit|") and d.endswith("|3") for d in deadlines)
        finally:
            await client.aclose()
    finally:
        await kill9(proc)
        server.stop()


async def test_kill_9_right_after_a_move_is_stored_the_next_process_completes_the_players_thinking(emu, tmp_path):
    """The bot is killed while its board follow-up is on its way (the move stored, its announcement in the outbox):
    the next process edits the player's "thinking…" response into the board, and the board is in the channel once."""
    from tests.bot.processes import RedisServer, kill9, start_bot_process

    world = make_world(emu)
    server = RedisServer(tmp_path / "redis")
    server.start()
    proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url)
    try:
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        challenge = await it.wait_done()
        click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
        await click.wait_followups(1)
        # the move's board follow-up is held (never made): the bot is killed while it waits for Discord's answer
        held = emu.faults.add("POST", r"/webhooks/\d+/[^/]+", status=503, when="before", delay=60.0, times=1)
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        for _ in range(400):
            if held.hits:
                break
            await asyncio.sleep(0.05)
        assert held.hits == 1, it.state()
        await kill9(proc)
        held.remove()
        assert it.original is not None and it.original.loading and it.followups == [], it.state()
        proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url, sync=False)
        seen = await it.wait_done(timeout=60)  # the reconciler, after the announcement's grace
        assert seen is it.original and not seen.loading, it.state()
        assert "`S@B2`" in seen.content and f"<@{world.ben['id']}>, your turn" in seen.content
        (board,) = [a.filename for a in seen.attachments]
        boards = [m for m in emu.messages(world.channel) if any(a.filename == board for a in m.attachments)]
        assert boards == [it.original], boards
        assert it.followups == [] and not any(m.loading for m in emu.messages(world.channel))
    finally:
        await kill9(proc)
        server.stop()
