"""Operating under load (issue 15): a move answered "busy" when the boards queue is long — stored once, its board
posted when its turn comes; the Prometheus metrics after moves; the health check up and down; the settings that size
the worker processes and open the metrics port. Through the real bot, the emulator and a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.interface.client import HongBot
from bot.config import Config, ConfigError, load_config
from bot.interface.metrics import gateway_connected
from bot.interface.board_pool import CHANNEL, PLAYER, renderer

from tests.bot.harness import display, start_bot
from tests.bot.processes import RedisServer
from tests.e2e.test_lifecycle import bots, new_game, world  # noqa: F401  (the same world, and bots on the test clock)

pytestmark = pytest.mark.timeout(180)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.asynccontextmanager
async def boards_queue_full(monkeypatch):
    """Every drawing slot taken (as by a burst of boards) and any wait counted as too long: a person's board now
    waits, and :meth:`Renderer.busy` is true. Leaving frees the slots."""
    monkeypatch.setattr(renderer, "busy_wait", 0.0)
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(renderer.slots):
            await stack.enter_async_context(renderer.slot(CHANNEL))
        assert renderer.busy()
        yield


async def test_a_move_in_a_full_queue_is_answered_busy_stored_once_and_its_board_follows(
    emu, world, bots, clock, monkeypatch
):
    bot = await bots()
    await new_game(emu, world)
    layer = bot.bot.layer
    async with boards_queue_full(monkeypatch):
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        note = await it.wait_done()
        assert it.ephemeral and note.content == (
            "I'm busy right now: your move `S@B2` is saved, and its board will be posted here in a moment."
        )
        stored = await layer.store.get(world.channel)
        assert stored.record.state["moves"] == ["S@B2"]  # stored before the answer
        tag = f"{stored.record.id}-{stored.version}"
        clock.advance(16)  # past the outbox's grace: the reconciler leaves a post this process is making alone
        await asyncio.sleep(0.3)
        assert [m for m in emu.messages(world.channel) if m.attachments and "S@B2" in m.content] == []
    # the private "thinking…" (answered before the commit) became the busy note, its first follow-up; the board follows
    board = (await it.wait_followups(2))[-1]
    assert board.attachments[0].filename == f"hongkong-{tag}.png" and not board.ephemeral
    assert f"{display(world.ann)} played `S@B2`" in board.content
    clock.advance(3600)  # later polls find nothing more to post
    await asyncio.sleep(0.3)
    assert [
        m.id for m in emu.messages(world.channel) if any(a.filename.endswith(f"-{tag}.png") for a in m.attachments)
    ] == [board.id]
    assert (await layer.store.get(world.channel)).record.state["moves"] == ["S@B2"]
    assert [a for a in await layer.outbox.pending() if a.what == "turn"] == []
    # the queue freed, the next move is answered as usual: "thinking…", then its board
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
    assert (await it.wait_response())["type"] == 5
    assert "`S@D4`" in (await it.wait_done()).content
    assert emu.errors == []


async def test_people_s_boards_are_drawn_before_the_channel_s_when_the_queue_is_full():
    order = []

    async def draw(name: str, priority: int) -> None:
        async with renderer.slot(priority):
            order.append(name)

    async with contextlib.AsyncExitStack() as stack:
        for _ in range(renderer.slots):
            await stack.enter_async_context(renderer.slot(CHANNEL))
        waiting = [
            asyncio.create_task(draw(name, priority))
            for name, priority in (
                ("computer 1", CHANNEL),
                ("person 1", PLAYER),
                ("computer 2", CHANNEL),
                ("person 2", PLAYER),
            )
        ]
        gone = asyncio.create_task(draw("person who left", PLAYER))
        await asyncio.sleep(0.05)
        assert order == [] and renderer.waiting == 5
        assert (
            0 < renderer.expected_wait(PLAYER) < renderer.expected_wait(CHANNEL)
        )  # 3 ahead of a person, 5 of the rest
        gone.cancel()  # a post given up while waiting (its bot stopping) leaves the queue
        await asyncio.sleep(0)
        assert renderer.waiting == 4
    await asyncio.gather(*waiting)
    assert order == ["person 1", "person 2", "computer 1", "computer 2"]
    assert renderer.waiting == 0 and renderer.active == 0


def samples(text: str) -> dict[tuple, float]:
    """The metrics page as ``{(sample name, sorted labels): value}``."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}{path}") as response:
            return response.status, await response.text()


async def test_the_metrics_endpoint_counts_moves_latencies_queues_games_and_the_computer(emu, world, bots, monkeypatch):
    monkeypatch.setattr("bot.interface.metrics.ACTIVE_EVERY", 0.0)  # counted at every scrape
    port = free_port()
    await bots(metrics_port=port)
    status, text = await get(port, "/metrics")
    assert status == 200
    before = samples(text)
    await new_game(emu, world)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
    await it.wait_done()
    it = await emu.slash(
        world.ann, world.other_channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="them"
    )
    await it.wait_done()
    await emu.wait_for_message(world.other_channel, lambda m: "played `" in m.content)  # the computer moved
    now = samples((await get(port, "/metrics"))[1])

    def grew(name: str, **labels) -> float:
        key = (name, tuple(sorted(labels.items())))
        return now[key] - before.get(key, 0.0)

    assert grew("hongbot_moves_total", game="hongkong", by="person") == 1
    assert grew("hongbot_moves_total", game="hongkong", by="computer") == 1
    assert grew("hongbot_first_response_seconds_count") == 1
    assert grew("hongbot_board_posted_seconds_count") == 1
    assert grew("hongbot_computer_think_seconds_count", level="easy") == 1
    assert now[("hongbot_first_response_seconds_bucket", (("le", "3.0"),))] >= 1
    assert now[("hongbot_active_games", ())] == 2  # this server's game between people and the computer's
    assert now[("hongbot_queue_length", (("queue", "boards"),))] == 0
    assert ("hongbot_queue_length", (("queue", "computer"),)) in now
    assert [grew("hongbot_failures_total", reason=r) for r in ("error", "board", "expired")] == [0, 0, 0]
    assert grew("hongbot_busy_total") == 0
    assert emu.errors == []


async def test_the_health_check_says_what_is_down(emu, world, tmp_path):
    server = RedisServer(tmp_path / "redis")
    server.start()
    port = free_port()
    bot = await start_bot(emu, {"unix_socket_path": str(server.socket)}, guild=world.guild, metrics_port=port)
    try:
        assert await get(port, "/healthz") == (200, "ok\n")
        server.kill()
        status, text = await get(port, "/healthz")
        assert status == 503 and text.startswith("redis: ") and "gateway" not in text
        server.start()
        for _ in range(50):  # the client reconnects on its next command
            if (await get(port, "/healthz"))[0] == 200:
                break
            await asyncio.sleep(0.1)
        assert await get(port, "/healthz") == (200, "ok\n")
    finally:
        await bot.stop()
        server.stop()
    with pytest.raises(aiohttp.ClientConnectionError):  # the endpoint goes with the bot
        await get(port, "/healthz")


def test_a_bot_that_has_not_connected_is_not_healthy():
    assert gateway_connected(HongBot(Config(token="x"))) is False


def test_the_worker_and_metrics_settings_read_from_the_environment_and_refuse_bad_values(tmp_path):
    none = tmp_path / "none.toml"
    config = load_config(
        none, env={"HONGBOT_RENDER_WORKERS": "0", "HONGBOT_COMPUTER_WORKERS": "3", "HONGBOT_METRICS_PORT": "9100"}
    )
    assert (config.render_workers, config.computer_workers, config.metrics_port) == (0, 3, 9100)
    config = load_config(none, env={"HONGBOT_RENDER_WORKERS": "auto"})
    assert (config.render_workers, config.computer_workers, config.metrics_port) == (None, None, 0)
    for var, value, says in [
        (
            "HONGBOT_RENDER_WORKERS",
            "two",
            "render_workers must be a whole number of processes (or \"auto\"), not 'two'",
        ),
        ("HONGBOT_RENDER_WORKERS", "65", 'render_workers must be between 0 and 64 processes (or "auto")'),
        ("HONGBOT_COMPUTER_WORKERS", "0", 'computer_workers must be between 1 and 64 processes (or "auto")'),
        ("HONGBOT_METRICS_PORT", "70000", "metrics_port must be between 0 and 65535"),
        ("HONGBOT_METRICS_PORT", "-1", "metrics_port must be a whole number"),
    ]:
        with pytest.raises(ConfigError) as error:
            load_config(none, env={var: value})
        assert says in str(error.value) and f"(set by ${var})" in str(error.value)


@pytest.mark.parametrize("workers", [0, 1])
async def test_a_preview_is_the_board_after_the_move_drawn_by_the_workers_or_here(workers):
    from bot.games import all_kinds
    from bot.interface.board_pool import Renderer
    from engine import IllegalMove

    kind = all_kinds()["hongkong"]
    game = kind.new_game({"first": 0})
    game.play("S@B2")
    before = game.to_dict()
    pool = Renderer(workers)
    try:
        preview = await pool.preview(kind, game, "S@C3", ("Ann", "Ben"), language="en")
        after = game.copy()
        after.play("S@C3")
        assert preview == kind.render.png(after, ("Ann", "Ben"))  # the move's plot marked as a last move is
        assert game.to_dict() == before  # (played on a copy)
        with pytest.raises(IllegalMove):
            await pool.preview(kind, game, "S@F9", ("Ann", "Ben"), language="en")  # no plot F9
    finally:
        pool.close()
