"""End to end: the real bot, through the local Discord emulator, with a real Redis — records, ratings and the
commands about finished games: two finished games, then /leaderboard, /stats, /history, /replay (and the Replay
button), /record; leaderboard paging by its owner only, across a restart; every refusal ephemeral."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

import engine.hong as hong
import engine.hongkong as hk
from engine.result import EndReason
from bot.storage.ratings import GLOBAL, Ratings, guild_scope
from bot.core.record import Player, Record, Result, Status
from bot.storage.store import GameStore
from engine.movetext import parse_record

from tests.bot.harness import display, place_options, refused, resign, start_bot

pytestmark = pytest.mark.timeout(300)


async def accept(emu, world, challenge_it, by):
    challenge = await challenge_it.wait_done()
    click = await emu.click(by, challenge, challenge.button("Accept")["custom_id"])
    return (await click.wait_followups(1))[0]


async def hongkong_game_to_the_end(emu, world, redis):
    """Ann (blue, first) vs Ben, random legal turns until the game ends. Returns (game id, engine game, final post)."""
    await accept(
        emu, world, await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben), world.ben
    )
    gid = (await GameStore(redis).get(world.channel)).record.id
    game, rng, users, posted = hk.new_game(0), random.Random(11), [world.ann, world.ben], None
    while not game.is_over:
        turn = rng.choice(game.legal_moves())
        it = await emu.slash(users[game.to_move], world.channel, "hongkong place", **place_options(turn))
        posted = (await it.wait_followups(1))[0]
        assert f"`{turn}`" in posted.content, posted.content
        game.play(turn)
    return gid, game, posted


async def hong_game_resigned(emu, world, redis):
    """Ann (emperor) vs Ben on the inner board; two placements, then Ben resigns. Returns (game id, final post)."""
    await accept(
        emu,
        world,
        await emu.slash(world.ann, world.channel, "hong challenge", opponent=world.ben, role="emperor", board="inner"),
        world.ben,
    )
    stored = await GameStore(redis).get(world.channel)
    game = hong.from_dict(stored.record.state)
    for user, square in ((world.ann, game.empty_squares()[0]), (world.ben, game.empty_squares()[5])):
        it = await emu.slash(user, world.channel, "hong place", square=square)
        await it.wait_followups(1)
    return stored.record.id, await resign(emu, world.ben, world.channel, "hong")


async def rating_note(emu, world, n: int):
    """Wait until the channel shows ``n`` rating-change notes; return the last."""
    await emu.wait_for_message(
        world.channel, lambda m: sum("📈" in x.content for x in emu.messages(world.channel)) >= n
    )
    return [m for m in emu.messages(world.channel) if "📈" in m.content][-1]


def gif_frames(data: bytes) -> int:
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF"
    return image.n_frames


async def test_two_games_then_leaderboard_stats_history_replay_record(emu, world, running, redis):
    ann, ben, cleo = world.ann, world.ben, world.cleo

    # --- game 1: Hong Kong, played to the end ---------------------------------------------------
    hk_id, hk_game, final = await hongkong_game_to_the_end(emu, world, redis)
    assert "Game over" in final.content
    labels = [b["label"] for b in final.buttons()]
    assert "Replay" in labels and "Rematch" in labels
    note = await rating_note(emu, world, 1)
    winner = hk_game.winner
    if winner is None:
        assert f"{display(ann)} 1500 → 1500" in note.content
    else:
        won, lost = (ann, ben) if winner == 0 else (ben, ann)
        assert f"{display(won)} 1500 → 1658 (+158)" in note.content
        assert f"{display(lost)} 1500 → 1342 (−158)" in note.content

    # --- game 2: Hong, Ben (dragon master) resigns ---------------------------------------------
    hong_id, hong_final = await hong_game_resigned(emu, world, redis)
    assert "resigned" in hong_final.content and "Replay" in [b["label"] for b in hong_final.buttons()]
    note = await rating_note(emu, world, 2)
    assert f"{display(ann)} 1500 → 1658 (+158)" in note.content and f"{display(ben)} 1500 → 1342 (−158)" in note.content

    # rated exactly once on both leaderboards
    ratings = Ratings(redis)
    for scope in (guild_scope(world.guild), GLOBAL):
        assert (await ratings.standing("hong", scope, int(ann["id"]))).games == 1
        assert (await ratings.standing("hongkong", scope, int(ben["id"]))).games == 1

    # --- /leaderboard ----------------------------------------------------------------------------
    it = await emu.slash(cleo, world.channel, "leaderboard", game="hong")
    board = await it.wait_done()
    assert not it.ephemeral
    embed = board.embeds[0]
    assert embed["title"] == "Hong — this server's leaderboard"
    lines = embed["description"].split("\n")
    assert len(lines) == 2
    assert display(ann) in lines[0] and "**1658**? ± 484" in lines[0] and "1 game" in lines[0] and "1–0–0" in lines[0]
    assert display(ben) in lines[1] and "**1342**? ± 484" in lines[1] and "0–1–0" in lines[1]
    assert lines[0].startswith("`  1.`") and lines[1].startswith("`  2.`")
    assert "Page 1/1" in embed["footer"]["text"] and "provisional" in embed["footer"]["text"]
    assert board.buttons() == []  # one page: nothing to turn

    it = await emu.slash(cleo, world.channel, "leaderboard", game="hongkong", scope="global")
    shown = await it.wait_done()
    assert shown.embeds[0]["title"] == "Hong Kong — global leaderboard"
    assert len(shown.embeds[0]["description"].split("\n")) == 2

    # --- /stats ----------------------------------------------------------------------------------
    it = await emu.slash(cleo, world.channel, "stats", user=ann)
    stats = await it.wait_done()
    assert not it.ephemeral
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert stats.embeds[0]["title"] == f"{display(ann)} — stats"
    assert "Rating **1658? ± 484** (provisional) · rank #1 of 2 in this server" in fields["Hong"]
    assert "Global **1658? ± 484** · rank #1 of 2" in fields["Hong"]
    assert "Record 1–0–0 (W–L–D) in 1 rated game · streak: 1 win" in fields["Hong"]
    assert "As emperor 1–0 · as dragon master 0–0" in fields["Hong"]
    assert "Hong Kong" in fields and "As emperor" not in fields["Hong Kong"]
    last = fields["Last 2 games in this server"].split("\n")
    assert last[0].startswith(f"`{hong_id}` Hong vs {display(ben)} — won (resignation)")
    assert last[1].startswith(f"`{hk_id}` Hong Kong vs {display(ben)} — ")

    it = await emu.slash(ben, world.channel, "stats", game="hong")
    fields = {f["name"]: f["value"] for f in (await it.wait_done()).embeds[0]["fields"]}
    assert list(fields)[0] == "Hong" and "streak: 1 loss" in fields["Hong"] and "Hong Kong" not in fields

    # --- /history --------------------------------------------------------------------------------
    it = await emu.slash(cleo, world.channel, "history")
    history = (await it.wait_done()).embeds[0]
    rows = history["description"].split("\n")
    assert len(rows) == 2
    assert rows[0].startswith(
        f"`{hong_id}` **Hong** · {display(ann)} vs {display(ben)} — {display(ann)} won by resignation · <t:"
    )
    assert rows[1].startswith(f"`{hk_id}` **Hong Kong** · {display(ann)} vs {display(ben)} — ")

    # --- /replay (autocomplete, then the GIF) ----------------------------------------------------
    choices = await emu.autocomplete(cleo, world.channel, "replay", focused="game", game="")
    assert [c["value"] for c in choices] == [hong_id, hk_id]
    assert choices[1]["name"].startswith(f"{hk_id} · Hong Kong: {display(ann)} vs {display(ben)}")
    assert [c["value"] for c in await emu.autocomplete(cleo, world.channel, "record", focused="game", game="kong")] == [
        hk_id
    ]

    it = await emu.slash(cleo, world.channel, "replay", game=hk_id)
    replay = (await it.wait_followups(1, timeout=60))[0]  # a GIF of a whole game: seconds of CPU on a busy host
    assert not it.ephemeral
    gif = replay.attachments[0]
    assert gif.filename == f"hongkong-{hk_id}.gif" and gif.size < 10 * 1024 * 1024
    assert gif_frames(gif.data) == len(hk_game.moves) + 1
    assert f"{len(hk_game.moves)} moves" in replay.content

    # the Replay button on the final board does the same, for the clicker only
    click = await emu.click(cleo, final, final.button("Replay")["custom_id"])
    shown = (await click.wait_followups(1, timeout=60))[0]
    assert click.ephemeral and shown.ephemeral
    assert gif_frames(shown.attachments[0].data) == len(hk_game.moves) + 1
    click = await emu.click(ann, hong_final, hong_final.button("Replay")["custom_id"])
    assert gif_frames((await click.wait_followups(1))[0].attachments[0].data) == 3  # opening + 2 placements

    # --- /record ---------------------------------------------------------------------------------
    it = await emu.slash(cleo, world.channel, "record", game=hk_id.upper())
    posted = await it.wait_done()
    text = posted.attachments[0]
    assert text.filename == f"hongkong-{hk_id}.txt"
    parsed = parse_record(text.data.decode("utf-8"))
    assert parsed.tags["Game"] == "Hong Kong" and parsed.tags["Seat0"] == f"{display(ann)} (blue)"
    replayed = hk.new_game(**parsed.setup)
    for move in parsed.moves:
        replayed.play(move)
    assert replayed.to_dict() == hk_game.to_dict()

    assert emu.errors == []


async def test_refusals_are_ephemeral_with_a_reason(emu, world, running, redis):
    it = await emu.slash(world.ann, world.channel, "leaderboard", game="hongkong")
    assert "No rated Hong Kong games in this server yet" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "history")
    assert "Nobody has finished a game in this server yet" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "stats", user=world.cleo)
    assert f"{display(world.cleo)} hasn't finished a game in this server yet" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "replay", game="no such id!")
    assert "is not a game id" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "record", game="abcdefgh")
    assert "There is no finished game `abcdefgh` in this server" in await refused(it)
    # a game that is still running
    await accept(
        emu, world, await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben), world.ben
    )
    gid = (await GameStore(redis).get(world.channel)).record.id
    it = await emu.slash(world.cleo, world.other_channel, "replay", game=gid)
    assert f"Game `{gid}` is still being played" in await refused(it)
    assert await emu.autocomplete(world.ann, world.channel, "replay", focused="game", game="") == []
    assert emu.errors == []


async def test_leaderboard_pages_turn_only_for_their_owner_and_survive_a_restart(emu, world, redis, redis_server):
    first = await start_bot(emu, redis_server, guild=world.guild)
    # 24 rated players in this server: 12 games, player 10+i beats player 50+i (the winners tie for rank 1, the
    # losers for rank 13)
    ratings = Ratings(redis)
    for i in range(12):
        await ratings.apply(
            Record(
                id=f"seed{i:04}",
                kind="hongkong",
                status=Status.FINISHED,
                guild_id=world.guild,
                channel_id=world.channel,
                challenger=10 + i,
                opponent=50 + i,
                players=(Player(10 + i, f"Winner {i:02}"), Player(50 + i, f"Loser {i:02}")),
                state={},
                ended=1000.0 + i,
                result=Result(0, EndReason.FINISHED, ""),
            )
        )
    it = await emu.slash(world.ann, world.channel, "leaderboard", game="hongkong")
    board = await it.wait_done()

    def page_of(message) -> tuple[str, list[str]]:
        embed = message.embeds[0]
        return embed["footer"]["text"].split(" · ")[0], embed["description"].split("\n")

    footer, rows = page_of(board)
    assert footer == "Page 1/3" and len(rows) == 10 and rows[0].startswith("`  1.`") and "Winner" in rows[0]
    assert [b["label"] for b in board.buttons()] == ["Previous", "Next"]
    assert board.button("Previous").get("disabled") and not board.button("Next").get("disabled")

    # someone else clicks: told so, privately; the page does not change
    click = await emu.click(world.ben, board, "Next")
    assert "belong to" in await refused(click)
    assert page_of(board)[0] == "Page 1/3"

    click = await emu.click(world.ann, board, "Next")
    await click.wait_done()
    footer, rows = page_of(board)
    assert footer == "Page 2/3" and rows[0].startswith("`  1.`") and rows[2].startswith("` 13.`")
    assert "Winner" not in "".join(rows[2:])

    # a restart: the buttons carry everything in their custom_id
    await first.stop()
    second = await start_bot(emu, redis_server, guild=world.guild)
    try:
        click = await emu.click(world.ann, board, "Next")
        await click.wait_done()
        footer, rows = page_of(board)
        assert footer == "Page 3/3" and len(rows) == 4 and rows[-1].startswith("` 13.`")
        assert board.button("Next").get("disabled") and not board.button("Previous").get("disabled")
        click = await emu.click(world.ann, board, "Previous")
        await click.wait_done()
        assert page_of(board)[0] == "Page 2/3"
    finally:
        await second.stop()
    assert emu.errors == []


async def test_a_finished_game_replays_after_a_restart(emu, world, redis, redis_server):
    first = await start_bot(emu, redis_server, guild=world.guild)
    try:
        await accept(
            emu, world, await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben), world.ben
        )
        gid = (await GameStore(redis).get(world.channel)).record.id
        it = await emu.slash(world.ann, world.channel, "hongkong place", square="B2")
        await it.wait_followups(1)
        final = await resign(emu, world.ben, world.channel)
        await rating_note(emu, world, 1)
    finally:
        await first.stop()
    second = await start_bot(emu, redis_server, guild=world.guild)
    try:
        click = await emu.click(world.cleo, final, "Replay")
        gif = (await click.wait_followups(1))[0].attachments[0]
        assert gif.filename == f"hongkong-{gid}.gif" and gif_frames(gif.data) == 2
        it = await emu.slash(world.cleo, world.channel, "record", game=gid)
        parsed = parse_record((await it.wait_done()).attachments[0].data.decode("utf-8"))
        assert parsed.moves == ["S@B2"] and parsed.tags["Termination"] == "resigned"
        # started again: nothing is rated twice by the start-up sweep
        assert (await Ratings(redis).standing("hongkong", GLOBAL, int(world.ann["id"]))).games == 1
    finally:
        await second.stop()
    assert emu.errors == []
