"""A Redis that lost its data — flushed, restarted empty, or no longer keeping anything on disk — is noticed while the
bot runs (bot.storage.guard): an ERROR in the log, /healthz 503 naming it, players an apology, nothing written; and play goes
on once the data is back or an operator accepts the store as it is. Against a real redis-server (tests/bot/processes.py)
that the tests flush and restart; the bot is the real one, in this process, through the emulator."""

from __future__ import annotations

import asyncio
import logging
import os
import sys

import pytest
import redis.asyncio as aioredis

from bot.storage.guard import StoreGuard
from bot.interface.metrics import MetricsServer
from bot.storage.connection import connect
from bot.storage.keys import Keys

from tests.bot.harness import start_bot
from tests.bot.processes import ROOT, RedisServer
from tests.interface.test_operations import get

pytestmark = pytest.mark.timeout(180)

#: Seconds between the bot's store checks in these tests.
INTERVAL = 0.3
APOLOGY = "The game store lost its data; an operator has been alerted — nothing is saved until they decide."


class Setup:
    """A standalone redis-server, the bot on it (checking the store every :data:`INTERVAL` s) and its /healthz."""

    def __init__(self, emu, world, tmp_path, interval: float = INTERVAL) -> None:
        self.emu, self.world, self.tmp, self.interval = emu, world, tmp_path, interval
        self.server = RedisServer(tmp_path / "redis")
        self.client: aioredis.Redis | None = None

    async def __aenter__(self) -> "Setup":
        self.server.start()
        self.client = aioredis.Redis(unix_socket_path=str(self.server.socket), decode_responses=True)
        handle = await connect(self.server.url, self.tmp / "data")
        self.bot = await start_bot(
            self.emu, None, guild=self.world.guild, redis=handle, store_check_interval=self.interval
        )
        self.metrics = MetricsServer(self.bot.bot, 0, host="127.0.0.1")
        await self.metrics.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.metrics.stop()
        await self.bot.stop()
        await self.client.aclose()
        self.server.stop()

    @property
    def guard(self) -> StoreGuard:
        return self.bot.bot.guard

    async def health(self) -> tuple[int, str]:
        return await get(self.metrics.port, "/healthz")

    async def wait_health(self, status: int, timeout: float = 10) -> str:
        """Wait until /healthz answers ``status``; returns its text."""
        for _ in range(int(timeout / 0.1)):
            got, text = await self.health()
            if got == status:
                return text
            await asyncio.sleep(0.1)
        raise AssertionError(f"/healthz still answers {got} {text!r}, not {status}")

    async def game(self, channel: int) -> None:
        """Ann challenges Ben in ``channel``, Ben accepts, Ann places B2."""
        emu, w = self.emu, self.world
        challenge = await (await emu.slash(w.ann, channel, "hongkong challenge", opponent=w.ben)).wait_done()
        click = await emu.click(w.ben, challenge, challenge.button("Accept")["custom_id"])
        await click.wait_followups(1)
        it = await emu.slash(w.ann, channel, "hongkong place", square="B2")
        assert "`S@B2`" in (await it.wait_followups(1))[0].content

    async def refused(self) -> None:
        """Ben's move and a new challenge elsewhere get the apology, and write nothing."""
        emu, w = self.emu, self.world
        before = {key: await self.client.dump(key) for key in await self.client.keys("*")}
        reply = await (await emu.slash(w.ben, w.channel, "hongkong place", square="D4")).wait_done()
        assert reply.content == APOLOGY
        reply = await (await emu.slash(w.cleo, w.other_channel, "hongkong challenge", opponent=w.ann)).wait_done()
        assert reply.content == APOLOGY
        await asyncio.sleep(3 * INTERVAL)  # the timers and the reconciler polled meanwhile: they wrote nothing either
        assert {key: await self.client.dump(key) for key in await self.client.keys("*")} == before


async def test_a_flushed_store_is_noticed_refused_and_play_resumes_when_the_data_is_back(emu, world, tmp_path, caplog):
    async with Setup(emu, world, tmp_path) as s:
        await s.game(world.channel)
        known = s.guard.known
        marker = await s.client.hgetall(Keys.IDENTITY)
        assert marker["id"] == known and float(marker["created"]) > 0
        assert await s.health() == (200, "ok\n")
        saved = {key: await s.client.dump(key) for key in await s.client.keys("*")}
        with caplog.at_level(logging.WARNING, logger="bot.storage.guard"):
            await s.client.flushall()
            text = await s.wait_health(503)
        assert "lost its data" in text and "hongbot:store:identity" in text and known in text
        errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "bot.storage.guard"]
        assert (
            len(errors) == 1 and "lost its data" in errors[0].getMessage() and "accept-empty" in errors[0].getMessage()
        )
        await s.refused()
        # the operator restores the data (here: the keys as they were, the marker among them): play goes on
        for key, value in saved.items():
            await s.client.restore(key, 0, value, replace=True)
        assert await s.wait_health(200) == "ok\n"
        it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
        posted = (await it.wait_followups(1))[0]
        assert "`S@D4`" in posted.content and f"<@{world.ann['id']}>, your turn" in posted.content
        assert s.guard.known == known and s.guard.problem is None
    assert emu.errors == []


async def test_a_store_restarted_empty_is_refused_until_the_operator_accepts_it(emu, world, tmp_path):
    async with Setup(emu, world, tmp_path) as s:
        await s.game(world.channel)
        known = s.guard.known
        s.server.stop()
        for name in os.listdir(s.server.dir):  # its files are lost
            if name.startswith(("appendonly", "dump")):
                os.remove(s.server.dir / name)
        s.server.start()
        # the first command after the restart meets the check on its new connection: refused at once
        reply = await (await emu.slash(world.ben, world.channel, "hongkong place", square="D4")).wait_done()
        assert reply.content == APOLOGY
        assert "lost its data" in await s.wait_health(503)
        await s.refused()
        assert await s.client.dbsize() == 0
        # the operator decides to carry on with the empty store
        env = {k: v for k, v in os.environ.items() if k not in ("HONGBOT_CONFIG",)}
        env.update(PYTHONPATH=str(ROOT), REDIS_URL=s.server.url)
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "store",
            "accept-empty",
            cwd=str(tmp_path),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        assert "accepted the game store" in out.decode()
        assert await s.wait_health(200) == "ok\n"
        assert s.guard.known != known and s.guard.known == await s.client.hget(Keys.IDENTITY, "id")
        await s.game(world.channel)  # the old game is gone: a new one starts and is played
    assert emu.errors == []


async def test_a_restart_with_the_data_raises_no_alarm(emu, world, tmp_path, caplog):
    async with Setup(emu, world, tmp_path) as s:
        await s.game(world.channel)
        with caplog.at_level(logging.WARNING, logger="bot.storage.guard"):
            s.server.stop()
            s.server.start()
            it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
            assert "`S@D4`" in (await it.wait_followups(1, timeout=30))[0].content
            await asyncio.sleep(3 * INTERVAL)
            assert await s.health() == (200, "ok\n")
        assert [r for r in caplog.records if r.name == "bot.storage.guard"] == []
    assert emu.errors == []


async def test_a_restarted_server_that_keeps_nothing_on_disk_is_refused(emu, world, tmp_path):
    async with Setup(emu, world, tmp_path) as s:
        await s.game(world.channel)
        s.server.stop()
        s.server.start()
        await s.client.config_set("appendonly", "no")
        await s.client.config_set("save", "")
        text = await s.wait_health(503)
        for _ in range(50):  # a first 503 may name the dropped connection; the guard's check follows
            if "keeps nothing on disk" in text:
                break
            await asyncio.sleep(0.1)
            text = await s.wait_health(503)
        assert "keeps nothing on disk" in text
        await s.refused()
        await s.client.config_set("appendonly", "yes")  # persistence back: play goes on
        assert await s.wait_health(200) == "ok\n"
        it = await emu.slash(world.ben, world.channel, "hongkong place", square="D4")
        assert "`S@D4`" in (await it.wait_followups(1))[0].content
    assert emu.errors == []


async def test_with_allow_unsafe_redis_a_server_without_persistence_is_only_logged(emu, world, tmp_path, caplog):
    server = RedisServer(tmp_path / "redis")
    server.start()
    client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
    handle = await connect(server.url, tmp_path / "data", allow_unsafe=True)
    bot = await start_bot(emu, None, guild=world.guild, redis=handle, store_check_interval=INTERVAL)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.storage.guard"):
            await client.config_set("appendonly", "no")
            await asyncio.sleep(4 * INTERVAL)
        assert bot.bot.guard.problem is None
        warned = [r.getMessage() for r in caplog.records if r.name == "bot.storage.guard"]
        assert len(warned) == 1 and "keeps nothing on disk" in warned[0] and "allow_unsafe_redis" in warned[0]
        challenge = await (
            await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        ).wait_done()
        assert "challenges you" in challenge.content
    finally:
        await bot.stop()
        await client.aclose()
        server.stop()


async def test_the_marker_is_laid_out_for_a_cluster_in_every_bucket():
    from bot.storage.keys import BUCKET_TAGS, ClusterKeys
    from redis.crc import key_slot

    keys = ClusterKeys.identity_keys()
    assert len(keys) == ClusterKeys.BUCKETS
    for bucket, key in enumerate(keys):  # each in its bucket's slot: on the primary holding that bucket's games
        assert key_slot(key.encode()) == key_slot(
            ClusterKeys.game(next(c for c in range(10_000) if ClusterKeys.bucket(c) == bucket)).encode()
        )
        assert BUCKET_TAGS[bucket] in key
    assert Keys.identity_keys() == ["hongbot:store:identity"]


# --- found on the way, before the periodic check (one every minute here): every write checks the marker of its slot


def guard_errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR and r.name == "bot.storage.guard"]


async def test_a_move_right_after_a_flush_is_refused_before_the_periodic_check(emu, world, tmp_path, caplog):
    async with Setup(emu, world, tmp_path, interval=60) as s:
        await s.game(world.channel)
        with caplog.at_level(logging.WARNING, logger="bot.storage.guard"):
            await s.client.flushall()
            reply = await (await emu.slash(world.ben, world.channel, "hongkong place", square="D4")).wait_done()
            assert reply.content == APOLOGY
            assert await s.client.dbsize() == 0
            errors = guard_errors(caplog)
            assert len(errors) == 1 and "lost its data" in errors[0] and "accept-empty" in errors[0]
            status, text = await s.health()
            assert status == 503 and "lost its data" in text
            reply = await (
                await emu.slash(world.cleo, world.other_channel, "hongkong challenge", opponent=world.ann)
            ).wait_done()
            assert reply.content == APOLOGY
            reply = await (await emu.slash(world.ann, world.channel, "hongkong board")).wait_done()
            assert reply.content == APOLOGY
            await asyncio.sleep(2.5)  # the timers and the reconciler (polling every second) write nothing either
            assert await s.client.dbsize() == 0
        assert len(guard_errors(caplog)) == 1
        assert s.guard.problem is not None
    assert emu.errors == []


async def test_a_board_or_a_challenge_right_after_a_flush_gets_the_apology_not_no_game_here(
    emu, world, tmp_path, caplog
):
    async with Setup(emu, world, tmp_path, interval=60) as s:
        await s.game(world.channel)
        with caplog.at_level(logging.WARNING, logger="bot.storage.guard"):
            await s.client.flushall()
            reply = await (await emu.slash(world.ann, world.channel, "hongkong board")).wait_done()
            assert reply.content == APOLOGY and "no game running" not in reply.content
            reply = await (
                await emu.slash(world.cleo, world.other_channel, "hongkong challenge", opponent=world.ann)
            ).wait_done()
            assert reply.content == APOLOGY
            assert await s.client.dbsize() == 0
        assert len(guard_errors(caplog)) == 1
        assert (await s.health())[0] == 503
    assert emu.errors == []


async def test_every_write_is_refused_atomically_when_its_marker_alone_is_gone(emu, world, tmp_path):
    """Only the marker deleted (the records still there), and the guard kept from closing the connections and from
    remembering the loss (so that nothing but the scripts and guarded writes themselves can refuse): each write is
    refused with StoreLost and writes nothing."""
    from bot.storage.deadlines import Deadline
    from bot.storage.errors import StoreLost
    from bot.storage.outbox import Announcement
    from bot.storage.store import Effects

    from bot.storage.ratings import Ratings
    from bot.storage.finished_games import Records

    async with Setup(emu, world, tmp_path, interval=60) as s:
        await s.game(world.other_channel)  # a game that ends: its record, indexes and ratings are written
        question = await (await emu.slash(world.ben, world.other_channel, "hongkong resign")).wait_done()
        await (await emu.click(world.ben, question, question.button("Confirm")["custom_id"])).wait_done()
        await emu.wait_for_message(world.other_channel, lambda m: m.content.startswith("📈"))
        await s.game(world.channel)
        await s.bot.bot.close()  # the bot's own timers stopped: only the calls below reach Redis
        layer = s.bot.bot.layer
        stored = await layer.store.get(world.channel)
        game_id, channel = stored.record.id, world.channel
        ended = await layer.store.finished(
            world.other_channel, (await s.client.zrange(Keys.FINISHED, 0, -1))[0].split(":")[1]
        )
        records = Records(layer.store, Ratings(layer.store.redis))
        s.guard._probe = None  # (white box) lost() closes no connection: every call meets its own check only
        await s.client.delete(Keys.IDENTITY)
        before = {key: await s.client.dump(key) for key in await s.client.keys("*")}
        calls = {
            "commit": lambda: layer.store.commit(channel, stored.record, stored.version),
            "finish": lambda: layer.store.finish(channel, stored.record, stored.version),
            "new game": lambda: layer.store.commit(world.other_channel, stored.record, 0, Effects(active=True)),
            "active set": lambda: layer.store.mark_active(world.guild, world.other_channel),
            "challenge message": lambda: layer.store.remember_message(channel, game_id, 5, 60),
            "rematch vote": lambda: layer.store.vote_rematch(channel, game_id, 1),
            "rematch claim": lambda: layer.store.claim_rematch(channel, game_id),
            "set aside": lambda: layer.store.set_aside(channel, stored.version, "test"),
            "deadline": lambda: layer.deadlines.schedule((Deadline.parse(f"turn|{channel}|{game_id}|1"), 1e9)),
            "deadline claim": lambda: layer.deadlines.claim_due(),
            "outbox hold": lambda: layer.outbox.hold(Announcement.parse(f"turn|{channel}|{game_id}|1|1|x")),
            "outbox resume": lambda: layer.outbox.resume(Announcement.parse(f"turn|{channel}|{game_id}|1|1|x")),
            "settings": lambda: layer.settings.update(world.guild, reminders=False),
            "indexes": lambda: records.index(ended),
            "ratings": lambda: records.ratings.apply(ended),
            "read of nothing": lambda: layer.store.get(world.other_channel),
        }
        for name, call in calls.items():
            s.guard.problem = None
            with pytest.raises(StoreLost, match="lost its data"):
                await call()
            assert {key: await s.client.dump(key) for key in await s.client.keys("*")} == before, name
        s.guard.problem = None
        assert (await layer.store.get(channel)).version == stored.version  # a read that finds its record answers
    assert emu.errors == []
