"""End to end: ``/privacy`` through the local Discord emulator with a real Redis — the short version in the caller's
language, the export as a JSON file, forget refused while in a challenge or a game, Cancel, someone else's Confirm,
a Confirm too old after a restart, a Confirm after a restart; then nothing of the player in any key or value of the
store while the other player keeps the game (its history and replay); and finished records swept past
``finished_retention`` by the reconciler, ratings kept."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.storage.finished_games import GAME_INDEX
from bot.storage.keys import Keys
from bot.storage.ratings import GLOBAL, Ratings
from bot.storage.store import GameStore

from tests.bot.harness import World, display, refused, resign
from tests.e2e.test_lifecycle import bots  # noqa: F401  (bots started on demand, on the test clock)
from tests.e2e.test_stats import gif_frames, hong_game_resigned, hongkong_game_to_the_end, rating_note
from tests.core.test_privacy import everything

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
async def world(emu):
    """As the usual world, with names found nowhere else in the store (so a scan for them means something)."""
    guild = emu.create_guild("Test Guild")
    channel, other = emu.create_channel(guild, "games"), emu.create_channel(guild, "other")
    users = [
        emu.create_user(name, global_name=shown)
        for name, shown in (("zephyrine", "Zephyrine Quill"), ("bartholomew", "Bartholomew"), ("cleo", "Cleo"))
    ]
    for user in users:
        emu.add_member(guild, user)
    return World(guild, channel, other, *users)


async def ask_forget(emu, world, user):
    it = await emu.slash(user, world.channel, "privacy forget")
    question = await it.wait_done()
    assert it.ephemeral and [b["label"] for b in question.buttons()] == ["Confirm", "Cancel"]
    return question


async def press(emu, user, question, label: str) -> str:
    """``user`` presses ``label`` under ``question``; the question's text afterwards (its buttons gone)."""
    click = await emu.click(user, question, question.button(label)["custom_id"])
    await click.wait_done()
    assert question.buttons() == [], question.content
    return question.content


async def test_privacy_info_export_and_forget(emu, world, bots, clock, redis):  # noqa: F811
    ann, ben, cleo = world.ann, world.ben, world.cleo
    first = await bots()
    gid, _game, _final = await hongkong_game_to_the_end(emu, world, redis)
    await rating_note(emu, world, 1)
    export_cmd, forget_cmd = emu.mention(world.guild, "privacy export"), emu.mention(world.guild, "privacy forget")

    # --- /privacy info: anyone, privately, in their language ---------------------------------------------------------
    it = await emu.slash(cleo, world.channel, "privacy info")
    info = await it.wait_done()
    assert it.ephemeral and info.content == "\n".join(
        [
            "**What I keep about you**, in this bot's database (Redis):",
            "• your finished games: your Discord id and display name, every move and the result — shown in the server's "
            "history and replays;",
            "• your ratings and stats for each game, in each server and on the global leaderboard that every server can "
            "see;",
            "• the tournaments you enter: your Discord id and display name as you signed up, your pairings and results;",
            "• where a server shows its games on the web (its choice, off by default): your display name on their pages, "
            "and the board images drawn for them (kept at most 15 minutes, and never in the bot's database);",
            "• while you play: the game, its timers and the posts still to make (gone when it ends).",
            "Finished games are kept until the players ask me to forget them.",
            "",
            f"{export_cmd} sends you a copy of it all; {forget_cmd} erases it everywhere (in finished games you become "
            "“a former player”).",
        ]
    )
    emu.set_locale(cleo, "de")
    it = await emu.slash(cleo, world.channel, "privacy info")
    assert (await it.wait_done()).content.startswith("**Was ich über dich speichere**, in der Datenbank dieses Bots")

    # --- /privacy export: a JSON file, privately ----------------------------------------------------------------------
    it = await emu.slash(ann, world.channel, "privacy export")
    sent = await it.wait_done()
    assert it.ephemeral and sent.content == (
        "Everything I keep about you, as JSON: 1 finished game and your ratings and stats."
    )
    data = json.loads(sent.attachments[0].data)
    assert sent.attachments[0].filename == f"hongbot-{ann['id']}.json"
    assert [g["id"] for g in data["games"]] == [gid] and data["user_id"] == ann["id"]
    assert {(r["game"], r["leaderboard"]) for r in data["ratings"]} == {
        ("hongkong", f"server {world.guild}"),
        ("hongkong", GLOBAL),
    }

    # --- refused while in a challenge or a game ------------------------------------------------------------------------
    it = await emu.slash(cleo, world.other_channel, "hong challenge", opponent=ann)
    challenge = await it.wait_done()
    it = await emu.slash(ann, world.channel, "privacy forget")
    assert await refused(it) == (
        f"You have an open challenge in <#{world.other_channel}>: ask again once it is answered or has expired."
    )
    click = await emu.click(ann, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)
    it = await emu.slash(ann, world.channel, "privacy forget")
    assert await refused(it) == (
        f"Resign or finish your game in <#{world.other_channel}> first: I can't erase your data while you play."
    )
    await resign(emu, ann, world.other_channel, "hong")
    await rating_note(emu, World(world.guild, world.other_channel, world.channel, ann, ben, cleo), 1)

    # --- Cancel; someone else's Confirm; a Confirm too old after a restart ---------------------------------------------
    stored = {gid: await redis.get(Keys.finished(world.channel, gid))}
    question = await ask_forget(emu, world, ann)
    assert question.content == (
        "Erase everything I keep about you? Your ratings, stats and leaderboard entries go, in every server; in your "
        "finished games you become “a former player”. This can't be undone. Confirm within 1 minute."
    )
    assert await press(emu, ann, question, "Cancel") == "Nothing was erased."

    theirs = await ask_forget(emu, world, ben)
    button = theirs.button("Confirm")
    button["custom_id"] = button["custom_id"].replace(f":{ben['id']}:", f":{ann['id']}:")  # a modified client
    it = await emu.click(ben, theirs, button["custom_id"])
    told = await it.wait_done()
    assert told.ephemeral and told.content == (
        f"This question is someone else's: only they can answer it. {forget_cmd} asks you yours."
    )

    old = await ask_forget(emu, world, ann)
    await first.stop()
    second = await bots()
    clock.advance(61)
    assert await press(emu, ann, old, "Confirm") == (
        f"This confirmation expired after 1 minute: nothing was erased. Use {forget_cmd} again if you still want it."
    )
    assert await redis.get(Keys.finished(world.channel, gid)) == stored[gid]
    assert await Ratings(redis).standing("hongkong", GLOBAL, int(ann["id"])) is not None

    # --- a Confirm after a restart erases everything of hers -----------------------------------------------------------
    question = await ask_forget(emu, world, ann)
    await second.stop()
    await bots()
    assert await press(emu, ann, question, "Confirm") == (
        "Done: everything I kept about you is erased. In 2 finished games you are now “a former player”; your ratings "
        "and stats are gone from every leaderboard."
    )
    text = "\n".join(await everything(redis))
    assert ann["id"] not in text and display(ann) not in text and ann["username"] not in text

    # Bartholomew keeps the game: his rating, his history (with "a former player"), its replay
    assert (await Ratings(redis).standing("hongkong", GLOBAL, int(ben["id"]))).games == 1
    it = await emu.slash(ben, world.channel, "history", user=ben)
    rows = (await it.wait_done()).embeds[0]["description"]
    assert rows.startswith(f"`{gid}` **Hong Kong** · a former player vs {display(ben)} — ")
    it = await emu.slash(ben, world.channel, "replay", game=gid)
    replay = (await it.wait_followups(1, timeout=60))[0]
    assert gif_frames(replay.attachments[0].data) > 1
    it = await emu.slash(ann, world.channel, "privacy export")
    assert (await it.wait_done()).content == (
        "I keep nothing about you: no finished games, no ratings, no tournament entries."
    )
    assert emu.errors == []


async def test_finished_records_past_their_retention_are_swept(emu, world, bots, clock, redis):  # noqa: F811
    await bots(finished_retention=1)
    gid, _game, _final = await hongkong_game_to_the_end(emu, world, redis)
    await rating_note(emu, world, 1)
    rating = await Ratings(redis).standing("hongkong", GLOBAL, int(world.ann["id"]))
    clock.advance(2 * 86400)
    await redis.delete(Keys.RETENTION_LOCK)  # (taken for an hour at start-up: the next process's turn now)
    for _ in range(250):
        if await redis.hget(GAME_INDEX, gid) is None:
            break
        await asyncio.sleep(0.02)
    assert await GameStore(redis).finished(world.channel, gid) is None and await redis.hget(GAME_INDEX, gid) is None
    assert await Ratings(redis).standing("hongkong", GLOBAL, int(world.ann["id"])) == rating  # ratings kept
    it = await emu.slash(world.cleo, world.channel, "replay", game=gid)
    assert (await refused(it)).startswith(f"There is no finished game `{gid}` in this server.")
    assert emu.errors == []


async def test_a_replay_made_before_a_forget_is_drawn_again_without_them(emu, world, running, redis):
    """A replay GIF is kept in memory to answer the next ``/replay`` at once; a forget rewrites the game, so the next
    replay is drawn again: "a former player" in the caption and on every frame, never the GIF of before."""
    ann, ben = world.ann, world.ben
    gid, _final = await hong_game_resigned(emu, world, redis)
    it = await emu.slash(ben, world.channel, "replay", game=gid)
    before = (await it.wait_followups(1, timeout=60))[0]
    assert display(ann) in before.content
    question = await ask_forget(emu, world, ann)
    assert (await press(emu, ann, question, "Confirm")).startswith("Done: everything I kept about you is erased.")
    it = await emu.slash(ben, world.channel, "replay", game=gid)
    after = (await it.wait_followups(1, timeout=60))[0]
    assert display(ann) not in after.content and "a former player vs" in after.content
    assert after.attachments[0].data != before.attachments[0].data  # drawn again: her name is on no frame
    assert gif_frames(after.attachments[0].data) == gif_frames(before.attachments[0].data)
    assert emu.errors == []
