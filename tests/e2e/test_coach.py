"""End to end: the computer as a coach (issue 26) — /analyse on a finished game posts the win-chance graph and each
player's worst moves, a second /analyse is answered from Redis, the Analyse button under the last board; /hint in a
game against the computer answers privately and in a game between people refuses; every bad input a clear ephemeral
message."""

from __future__ import annotations

import asyncio
import io
import json
import random

import pytest
from PIL import Image

import engine.hong as hong
import engine.hongkong as hk
from engine.ai import choose_move
from bot.core.record import Player, Record, Result, Status
from bot.core.invocation import invocation
from bot.exts.coach import MAX_QUEUED
from bot.games.hongkong import HONGKONG
from engine.ai.analysis import Analysis
from bot.storage.keys import Keys
from bot.storage.store import GameStore
from engine.result import EndReason

from tests.bot.harness import refused
from tests.e2e.test_stats import accept, hongkong_game_to_the_end, rating_note

pytestmark = pytest.mark.timeout(300)


def analysed(message) -> bool:
    return "Labels:" in message.content and bool(message.attachments)


async def test_analyse_posts_the_graph_and_the_worst_moves_then_answers_from_the_cache(emu, world, running, redis):
    gid, game, final = await hongkong_game_to_the_end(emu, world, redis)
    # the Analyse button under the last board, beside Replay
    assert [b["label"] for b in final.buttons()][-1] == "Analyse"
    await rating_note(emu, world, 1)  # recorded: the server's history lists it

    choices = await emu.autocomplete(world.cleo, world.channel, "analyse", focused="game", game="")
    assert [c["value"] for c in choices] == [gid]

    it = await emu.slash(world.cleo, world.channel, "analyse", game=gid)
    posted = await it.wait_message(analysed, timeout=120)  # a whole game searched in the background
    assert not it.ephemeral
    graph = posted.attachments[0]
    assert graph.filename == f"analysis-{gid}.png"
    assert Image.open(io.BytesIO(graph.data)).size == (1000, 580)
    lines = posted.content.split("\n")
    assert f"`{gid}`" in lines[0] and "blunder ≥ 30" in lines[0]
    kept = json.loads(await redis.get(Keys.analysis(gid)))
    assert len(kept["plies"]) == len(game.moves)
    # random moves: each player's three worst are listed with the better move, and a board for each
    judged = [line for line in lines if line.startswith("· move ")]
    assert 1 <= len(judged) <= 6 and all("better: `" in line for line in judged)
    assert len(posted.attachments) == 1 + len(judged)
    assert all(a.filename.startswith("move-") for a in posted.attachments[1:])
    # one voice: each listed move's numbers are the graph's, its label matches them, its number is its place in the
    # game (as in /record and the web replay's ?ply=)
    shown = {v.ply: v for v in Analysis.from_dict(kept).verdicts()}
    for line in judged:
        number, move = int(line.split()[2].rstrip(":")), line.split("`")[1]
        v = shown[number]
        assert game.moves[number - 1] == move == v.move
        assert f"— {v.label} ({round(v.before * 100)}% → {round(v.after * 100)}%)" in line

    # a second request is answered from what Redis keeps: change it, and the answer shows the change — the searches
    # on each side of the move made to agree that it threw a sure win away
    plies = kept["plies"]
    k = next(i for i, p in enumerate(plies[1:-1], 1) if p["mover"] == 0 and p["move"] != p["best"])
    first = plies[k]
    first["before"], first["after"] = 1.0, 0.0
    plies[k - 1]["after"] = 1.0 if plies[k - 1]["mover"] == 0 else 0.0
    plies[k + 1]["before"] = 0.0 if plies[k + 1]["mover"] == 0 else 1.0
    await redis.set(Keys.analysis(gid), json.dumps(kept))
    it = await emu.slash(world.cleo, world.channel, "analyse", game=gid)
    again = await it.wait_message(analysed, timeout=20)
    assert f"move {first['ply']}: `{first['move']}` — blunder (100% → 0%); better: `{first['best']}`" in again.content

    # the button: for the presser alone
    click = await emu.click(world.ben, final, final.button("Analyse")["custom_id"])
    shown = await click.wait_message(analysed, timeout=20)
    assert click.ephemeral and shown.attachments
    assert emu.errors == []


def finished_record(gid: str, guild: int, channel: int, moves: list[str], reason: EndReason) -> Record:
    game = hk.new_game(0)
    for move in moves:
        game.play(move)
    return Record(
        id=gid,
        kind="hongkong",
        status=Status.FINISHED,
        guild_id=guild,
        channel_id=channel,
        challenger=1,
        opponent=2,
        players=(Player(1, "Ann"), Player(2, "Ben")),
        state=game.to_dict(),
        ended=1000.0,
        result=Result(None if reason is EndReason.ABORTED else 0, reason, ""),
    )


async def store_finished(redis, record: Record) -> None:
    await redis.set(Keys.finished(record.channel_id, record.id), record.to_json())
    await redis.hset(Keys.GAME_INDEX, record.id, str(record.channel_id))


async def test_a_hong_game_with_the_lair_is_analysed_with_its_worst_moves_and_their_boards(emu, world, running, redis):
    # Hong's saved state holds its board: each shown position is the finished game taken back, not a state rewritten
    game, rng = hong.new_game("inner", expansion=True, seed=4), random.Random(4)
    while not game.is_over:  # the emperor plays at random, the dragon master as the easy computer
        game.play(rng.choice(game.legal_moves()) if game.to_move == 0 else choose_move(game, "easy", seed=4))
    record = Record(
        id="hongl001",
        kind="hong",
        status=Status.FINISHED,
        guild_id=world.guild,
        channel_id=world.other_channel,
        challenger=int(world.ann["id"]),
        opponent=int(world.ben["id"]),
        players=(Player(int(world.ann["id"]), "ann"), Player(int(world.ben["id"]), "ben")),
        state=game.to_dict(),
        ended=1000.0,
        result=Result(game.winner, EndReason.FINISHED, ""),
    )
    await store_finished(redis, record)
    it = await emu.slash(world.cleo, world.channel, "analyse", game="hongl001", ephemeral=True)
    posted = await it.wait_message(analysed, timeout=120)
    assert it.ephemeral
    judged = [line for line in posted.content.split("\n") if line.startswith("· move ")]
    assert judged and len(posted.attachments) == 1 + len(judged)
    for line in judged:  # numbered as /record and the web replay number them: dragon actions are moves too
        number, move = int(line.split()[2].rstrip(":")), line.split("`")[1]
        assert game.moves[number - 1] == move
    for attachment in posted.attachments[1:]:
        assert Image.open(io.BytesIO(attachment.data)).format == "PNG"
    assert emu.errors == []


async def test_a_resigned_game_says_so_and_a_kept_analysis_of_an_older_layout_is_made_again(emu, world, running, redis):
    await store_finished(
        redis, finished_record("resign01", world.guild, world.other_channel, ["S@C2"], EndReason.RESIGNED)
    )
    await redis.set(Keys.analysis("resign01"), json.dumps({"kind": "hongkong", "start": 0.5, "plies": []}))  # old
    it = await emu.slash(world.cleo, world.channel, "analyse", game="resign01")
    posted = await it.wait_message(analysed, timeout=60)
    report = Analysis.from_dict(json.loads(await redis.get(Keys.analysis("resign01"))))
    assert report.end is not None  # analysed again, its last position searched from Ben's side too
    ben = round((1 - report.chances()[-1]) * 100)
    assert posted.content.split("\n")[-1] == f"🏳️ Ben resigned after move 1, with a chance to win of about {ben}%."
    assert emu.errors == []


async def test_bad_input_to_analyse_is_refused_privately_with_a_reason(emu, world, running, redis):
    it = await emu.slash(world.ann, world.channel, "analyse", game="no such id!")
    assert "is not a game id" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "analyse", game="abcdefgh")
    assert "There is no finished game `abcdefgh` in this server" in await refused(it)
    # a game of another server
    await store_finished(redis, finished_record("elsewhere", 4242, 4243, ["S@B2"], EndReason.RESIGNED))
    it = await emu.slash(world.ann, world.channel, "analyse", game="elsewhere")
    assert "There is no finished game `elsewhere` in this server" in await refused(it)
    # aborted, and over before anyone moved
    await store_finished(
        redis, finished_record("aborted1", world.guild, world.other_channel, ["S@B2"], EndReason.ABORTED)
    )
    it = await emu.slash(world.ann, world.channel, "analyse", game="aborted1")
    assert "Game `aborted1` was aborted, so there is no result to analyse" in await refused(it)
    await store_finished(redis, finished_record("nomoves1", world.guild, world.other_channel, [], EndReason.RESIGNED))
    it = await emu.slash(world.ann, world.channel, "analyse", game="nomoves1")
    assert "Game `nomoves1` ended before anyone moved: there is nothing to analyse." in await refused(it)
    # a game still running
    await accept(
        emu, world, await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben), world.ben
    )
    gid = (await GameStore(redis).get(world.channel)).record.id
    it = await emu.slash(world.cleo, world.other_channel, "analyse", game=gid)
    assert f"Game `{gid}` is still being played" in await refused(it)
    assert await redis.keys(f"{Keys.analysis('*')}") == []  # nothing analysed, nothing kept
    # ten analyses already queued: a new one is refused until they are done
    await store_finished(
        redis, finished_record("queued01", world.guild, world.other_channel, ["S@B2"], EndReason.RESIGNED)
    )
    coach = running.bot.get_cog("Coach")
    waiting = {f"busy{i:04d}": asyncio.get_running_loop().create_future() for i in range(MAX_QUEUED)}
    coach._running.update(waiting)
    try:
        it = await emu.slash(world.ann, world.channel, "analyse", game="queued01")
        assert "The computer is busy analysing 10 games. Try again in a few minutes." in await refused(it)
    finally:
        for gid in waiting:
            coach._running.pop(gid, None)
    assert emu.errors == []


async def test_hint_against_the_computer_privately_and_refused_between_people(emu, world, running, redis):
    # between people: refused, privately
    await accept(
        emu, world, await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben), world.ben
    )
    it = await emu.slash(world.ann, world.channel, "hint")
    assert "Hints are only for games against the computer" in await refused(it)
    # no game at all
    it = await emu.slash(world.ann, world.other_channel, "hint")
    assert "There is no game running in this channel" in await refused(it)

    # against the computer: Ann moves first
    it = await emu.slash(
        world.cleo, world.other_channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="me"
    )
    await it.wait_followups(1)
    store = GameStore(redis)
    before = (await store.get(world.other_channel)).record
    it = await emu.slash(world.ann, world.other_channel, "hint")
    assert "Only the player in this game can ask for a hint" in await refused(it)
    it = await emu.slash(world.cleo, world.other_channel, "hint")
    answer = await it.wait_done(timeout=30)
    assert it.ephemeral and answer.content.startswith("💡 Play `")
    assert "(Hints used in this game: 1.)" in answer.content
    move = answer.content.split("`")[1]
    assert move in hk.from_dict(before.state).legal_moves()
    # the move as the command that plays it: a mention, and its options as typed
    name, options = invocation(HONGKONG, hk.from_dict(before.state), move)
    typed = " ".join(f"{option}:{value}" for option, value in options.items())
    assert f"💡 Play `{move}`: {emu.mention(world.guild, f'hongkong {name}')} `{typed}`" in answer.content
    assert "square:" in typed and "block" not in typed  # (an option at its default is left out)
    # in German: the options as the German client shows them
    emu.set_locale(world.cleo, "de")
    it = await emu.slash(world.cleo, world.other_channel, "hint")
    german = (await it.wait_done(timeout=30)).content
    assert f"{emu.mention(world.guild, f'hongkong {name}')} `feld:" in german and "square" not in german
    assert (await store.get(world.other_channel)).record == before  # a hint changes nothing in the game
    assert await redis.hgetall(Keys.hints(before.id)) == {"0": "2"}  # Cleo's seat: no user id kept
    assert emu.errors == []


async def test_an_analysis_cut_off_by_a_kill_9_is_finished_by_the_next_start(emu, tmp_path):
    """The bot answered "Analysing…" and was killed before editing the result in: the next process finds the
    promise in Redis and edits the same answer into the graph and the worst moves (the token lasts 15 minutes)."""
    import redis.asyncio as aioredis

    from tests.bot.harness import make_world
    from tests.bot.processes import RedisServer, kill9, start_bot_process

    world = make_world(emu)
    server = RedisServer(tmp_path / "redis")
    server.start()
    client = aioredis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
    proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url)
    try:
        gid, _game, _final = await hongkong_game_to_the_end(emu, world, client)
        it = await emu.slash(world.cleo, world.channel, "analyse", game=gid)
        await it.wait_message(lambda m: "Analysing" in m.content, timeout=30)
        assert await client.hlen(Keys.ANALYSES_PENDING) == 1
        await kill9(proc)
        assert not any(analysed(m) for m in it.messages), "killed before the result"
        proc = await start_bot_process(emu, world.guild, tmp_path / "data", server.url, sync=False)
        posted = await it.wait_message(analysed, timeout=120)
        assert f"`{gid}`" in posted.content and posted.attachments[0].filename == f"analysis-{gid}.png"
        for _ in range(100):  # answered: the promise is gone
            if not await client.hlen(Keys.ANALYSES_PENDING):
                break
            await asyncio.sleep(0.05)
        assert await client.hlen(Keys.ANALYSES_PENDING) == 0
    finally:
        await kill9(proc)
        await client.aclose()
        server.stop()
