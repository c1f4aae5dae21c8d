"""End to end: the bot's reach into a game's channel changes under it — permissions taken away, the game's thread
locked or archived, the channel deleted, the bot removed from the server. Through the real bot, the emulator (which
announces each change as Discord does and enforces it on REST calls) and a real Redis; time is the test's clock.

The rule (README, "When the bot can't post in a game's channel"): a game never starts where the bot couldn't post
it; a locked thread is reopened; a game the bot can no longer post ends without a result — unrated, nobody forfeits,
its timers cancelled, gone from /games — and its players are told in the thread's parent channel, or by DM.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.ratings import GLOBAL, Ratings
from bot.storage.store import GameStore
from bot.storage.keys import Keys
from tests.emulator import PERMISSIONS

from tests.bot.harness import refused
from tests.e2e.test_lifecycle import bots, world  # noqa: F401  (the same world with an admin, and bots on the test clock)

pytestmark = pytest.mark.timeout(240)

HOUR = 3600
SEND, ATTACH, EMBED = PERMISSIONS["send_messages"], PERMISSIONS["attach_files"], PERMISSIONS["embed_links"]


async def new_game(emu, world, channel):
    it = await emu.slash(world.ann, channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_followups(1)  # the first board: the interaction is over before the clock moves


async def ended_unrated(redis, channel, game_id=None):
    """The channel is free, its last game finished as aborted, with no deadline left and nobody rated."""
    store = GameStore(redis)
    assert await store.get(channel) is None
    [member] = [m for m in await redis.zrange("hongbot:finished", 0, -1) if m.startswith(f"{channel}:")]
    record = await store.finished(channel, member.split(":")[1])
    assert record.result.reason.value == "aborted" and record.result.winner is None
    assert [m for m in await redis.zrange(Keys.DEADLINES, 0, -1) if f"|{channel}|" in m] == []
    assert (await Ratings(redis).page("hongkong", GLOBAL, 0)).total == 0
    return record


async def no_games(emu, world, channel):
    it = await emu.slash(world.cleo, channel, "games")
    assert "No games are running" in await refused(it)


# --- (5) permissions ------------------------------------------------------------------------------------


async def test_a_game_never_starts_where_the_bot_cannot_post(emu, world, bots, redis):
    await bots()
    store = GameStore(redis)
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=SEND)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    assert await refused(it) == (
        "I can't host a game here: I don't have the **Send Messages** permission in this channel, and I need them to "
        "post the boards, reminders and results. A server admin can grant them in the channel's permissions; or start "
        "the game in another channel."
    )
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=ATTACH | EMBED)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user)  # the computer too
    assert "the **Attach Files** and **Embed Links** permissions" in await refused(it)
    assert await store.get(world.channel) is None
    # with a thread per game, the thread permissions too
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=PERMISSIONS["send_messages_in_threads"])
    it = await emu.slash(world.admin, world.channel, "settings", threads=True)
    assert "a thread per game: **on**" in (await it.wait_done()).content, it.state()
    it = await emu.slash(world.ann, world.channel, "hong challenge", opponent=world.ben)
    assert (
        "threads are on for this server (a thread per game), and I don't have **Send Messages in Threads**"
        in await refused(it)
    )
    await (await emu.slash(world.admin, world.channel, "settings", threads=False)).wait_done()
    # permissions taken away between the challenge and the accept: the accept is refused, the challenge stays
    await emu.set_permission_overwrite(world.channel, emu.bot_user)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=EMBED)
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    assert "**Embed Links**" in await refused(click)
    assert (await store.get(world.channel)).record.status.value == "challenge"
    await emu.set_permission_overwrite(world.channel, emu.bot_user)
    await (await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])).wait_done()
    assert (await store.get(world.channel)).record.status.value == "active"
    assert emu.errors == []


async def test_permission_lost_mid_game_ends_it_unrated_and_nobody_forfeits(emu, world, bots, clock, redis):
    await bots()
    await (await emu.slash(world.admin, world.channel, "settings", turn_timer="2h")).wait_done()
    await new_game(emu, world, world.channel)
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=SEND)
    clock.advance(HOUR + 1)  # the reminder is due: the bot can't post it, so the game ends without a result
    [dm] = await asyncio.wait_for(_dms(emu, world.ben), 10)
    assert dm.content == (
        f"⚠️ Your game in <#{world.channel}>: **Hong Kong** ann vs ben ended without a result "
        f"(unrated, nobody forfeits): I no longer have **Send Messages** in <#{world.channel}>."
    )
    assert [m.content for m in emu.dms(world.ann)] == [dm.content]
    await ended_unrated(redis, world.channel)
    await no_games(emu, world, world.other_channel)
    await emu.set_permission_overwrite(world.channel, emu.bot_user)
    clock.advance(2 * HOUR)  # past the forfeit: nothing more happens
    await asyncio.sleep(0.3)
    assert not any("ran out of time" in m.content or "⏰" in m.content for m in emu.messages(world.channel))
    assert emu.errors == []  # nothing was even attempted in the channel


async def _dms(emu, user, n: int = 1):
    while len(emu.dms(user)) < n:
        await asyncio.sleep(0.02)
    return emu.dms(user)


@pytest.mark.parametrize("denied, name", [(ATTACH, "Attach Files"), (SEND, "Send Messages")])
async def test_a_computer_reply_that_cannot_be_posted_ends_the_game(emu, world, bots, redis, denied, name):
    await bots()
    it = await emu.slash(
        world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy", first="me"
    )
    await it.wait_done()
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=denied)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="A1")
    assert "is thinking" in (await it.wait_followups(1))[0].content  # an interaction's answer needs no permission
    # the reply could not be posted (not "thinking…" forever): the players are told why — in the channel while the
    # bot can still write text there, else by DM
    if denied == ATTACH:
        told = await emu.wait_for_message(world.channel, lambda m: m.content.startswith("⚠️"))
    else:
        [told] = await asyncio.wait_for(_dms(emu, world.ann), 10)
    assert "ended without a result" in told.content and f"I no longer have **{name}**" in told.content
    await ended_unrated(redis, world.channel)
    it = await emu.slash(world.ann, world.channel, "hongkong board")
    assert "There is no game running in this channel" in await refused(it)
    # the reply was not even sent: the bot's view of its permissions said no (a 403 counts toward Discord's
    # invalid-request limit)
    assert emu.errors == [] and emu.invalid_requests() == 0


# --- (6) locked and archived threads ----------------------------------------------------------------


async def thread_game(emu, world, redis):
    await (await emu.slash(world.admin, world.channel, "settings", threads=True, turn_timer="2h")).wait_done()
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    assert "has started in its own thread" in (await click.wait_followups(1))[0].content
    await emu.wait_for_message(challenge.id, lambda m: "the game begins" in m.content)
    assert (await GameStore(redis).get(challenge.id)).record.parent_id == world.channel
    return challenge.id


async def test_a_locked_thread_is_reopened_for_the_reminder_and_the_forfeit(emu, world, bots, clock, redis):
    await bots()
    thread = await thread_game(emu, world, redis)
    await emu.update_thread(thread, archived=True, locked=True)  # a moderator closed it
    clock.advance(HOUR + 1)
    reminder = await emu.wait_for_message(thread, lambda m: "⏰" in m.content)
    assert f"<@{world.ann['id']}>" in reminder.content
    meta = emu.channel(thread)["thread_metadata"]
    assert not meta["locked"] and not meta["archived"]
    await emu.update_thread(thread, archived=True)  # archived again (not locked): a post reopens it by itself
    clock.advance(HOUR)
    await emu.wait_for_message(thread, lambda m: "ran out of time" in m.content)
    await emu.wait_for_message(world.channel, lambda m: "has ended" in m.content and "ran out of time" in m.content)
    assert emu.errors == []


async def test_a_thread_that_cannot_be_reopened_moves_the_game_to_its_channel(emu, world, bots, clock, redis):
    await bots()
    thread = await thread_game(emu, world, redis)
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=PERMISSIONS["manage_threads"])
    await emu.update_thread(thread, locked=True)
    clock.advance(HOUR + 1)  # the reminder is due: the thread is locked for good, so the game moves to its channel
    moved = await emu.wait_for_message(world.channel, lambda m: "goes on here" in m.content)
    assert moved.content.startswith(
        "⚠️ **Hong Kong** ann vs ben goes on here, in this channel: a moderator locked its thread and I can't reopen it "
        "(I don't have **Manage Threads**)."
    )
    assert f"<@{world.ann['id']}>, your turn" in moved.content and moved.attachments
    store = GameStore(redis)
    assert await store.get(thread) is None
    record = (await store.get(world.channel)).record
    assert record.parent_id is None and record.channel_id == world.channel
    # the reminder that was due comes in the channel, and the turn keeps its time: the forfeit an hour later
    reminder = await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    assert f"If you don't move, you forfeit <t:{int(record.deadline)}:R>." in reminder.content
    clock.advance(HOUR)
    final = await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
    assert "ann ran out of time: ben wins." in final.content
    assert emu.messages(thread)[-1].content.startswith("**Hong Kong** — the game begins")  # nothing more there
    assert emu.errors == []


async def test_a_closed_thread_whose_channel_is_busy_ends_the_game_with_a_notice(emu, world, bots, clock, redis):
    await bots()
    thread = await thread_game(emu, world, redis)
    await (await emu.slash(world.admin, world.channel, "settings", threads=False)).wait_done()
    await new_game(emu, world, world.channel)  # the parent channel has a game of its own now
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=PERMISSIONS["manage_threads"])
    await emu.update_thread(thread, locked=True)
    clock.advance(HOUR + 1)
    note = await emu.wait_for_message(world.channel, lambda m: "⚠️" in m.content)
    assert note.content == (
        "⚠️ **Hong Kong** ann vs ben ended without a result (unrated, nobody forfeits): a moderator "
        "locked its thread and I can't reopen it (I don't have **Manage Threads**)."
    )
    await ended_unrated(redis, thread)
    await asyncio.sleep(0.3)  # told once, with the reason: not also "… has ended: Aborted by …"
    assert not any("has ended" in m.content for m in emu.messages(world.channel))
    assert (await GameStore(redis).get(world.channel)).record.status.value == "active"  # the other game plays on
    assert emu.errors == []


# --- (7) channels deleted, the bot removed --------------------------------------------------------------


async def test_a_deleted_channel_ends_its_games_and_cancels_their_timers(emu, world, bots, clock, redis):
    await bots()
    await (await emu.slash(world.admin, world.channel, "settings", turn_timer="2h")).wait_done()
    await new_game(emu, world, world.other_channel)
    doomed_challenge = emu.create_channel(world.guild, "doomed")
    await asyncio.sleep(0.05)
    it = await emu.slash(world.cleo, doomed_challenge, "hong challenge")
    await it.wait_done()
    thread = await thread_game(emu, world, redis)  # a thread game whose thread goes
    await emu.delete_channel(world.other_channel)
    await emu.delete_channel(doomed_challenge)
    await emu.delete_channel(thread)
    [dm] = await asyncio.wait_for(_dms(emu, world.ann), 10)
    assert "ended without a result (unrated, nobody forfeits): its channel was deleted." in dm.content
    note = await emu.wait_for_message(world.channel, lambda m: "⚠️" in m.content)
    assert note.content.endswith("its thread was deleted.")
    await asyncio.sleep(0.3)  # and only that: not also "… has ended: Aborted by …" with a link to the deleted thread
    assert [m.content for m in emu.messages(world.channel) if "has ended" in m.content] == []
    for channel in (world.other_channel, thread):
        await ended_unrated(redis, channel)
    assert await GameStore(redis).get(doomed_challenge) is None  # the open challenge is withdrawn
    await no_games(emu, world, world.channel)
    clock.advance(3 * HOUR)
    await asyncio.sleep(0.3)
    assert [m.content for m in emu.dms(world.ann)] == [dm.content]
    assert emu.errors == []


async def test_a_channel_deleted_while_the_bot_was_away_is_found_by_its_timer(emu, world, bots, clock, redis):
    first = await bots()
    await (await emu.slash(world.admin, world.channel, "settings", turn_timer="2h")).wait_done()
    await new_game(emu, world, world.other_channel)
    await first.stop()
    await emu.delete_channel(world.other_channel)  # no bot connected: no event reaches it
    await bots()
    clock.advance(HOUR + 1)  # the reminder finds the channel gone (404 Unknown Channel)
    [dm] = await asyncio.wait_for(_dms(emu, world.ben), 10)
    assert dm.content.endswith("its channel was deleted.")
    await ended_unrated(redis, world.other_channel)


async def test_the_bot_removed_from_the_server_ends_its_games(emu, world, bots, clock, redis):
    await bots()
    await (await emu.slash(world.admin, world.channel, "settings", turn_timer="2h")).wait_done()
    await new_game(emu, world, world.channel)
    it = await emu.slash(world.cleo, world.other_channel, "hongkong challenge")
    await it.wait_done()
    await emu.remove_member(world.guild, emu.bot_user)
    for _ in range(200):
        if (
            await GameStore(redis).get(world.channel) is None
            and await GameStore(redis).get(world.other_channel) is None
        ):
            break
        await asyncio.sleep(0.02)
    await ended_unrated(redis, world.channel)
    assert await GameStore(redis).get(world.other_channel) is None
    assert await redis.smembers(f"hongbot:{{g:{world.guild}}}:active") == set()
    clock.advance(3 * HOUR)
    await asyncio.sleep(0.3)
    assert emu.dms(world.ann) == []  # no server shared any more: Discord refuses the DM (logged, not retried)
    assert {e.code for e in emu.errors} <= {50007}
