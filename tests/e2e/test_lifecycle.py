"""End to end: turn timers, reminders and forfeits, threads, rematch, takeback, /games, settings and aborts.

Time is a clock the test moves forward (no sleeping for timers): the bots poll Redis for due deadlines every
few milliseconds, and the test waits for the messages they post.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.store import GameStore
from tests.emulator import PERMISSIONS, EmulatorAssertion

from tests.bot.harness import decode_png, display, make_world, refused, resign, start_bot

pytestmark = pytest.mark.timeout(240)

HOUR = 3600


@pytest.fixture
async def world(emu):
    world = make_world(emu)
    world.admin = emu.create_user("ada")
    emu.add_member(world.guild, world.admin, permissions=PERMISSIONS["manage_guild"] | PERMISSIONS["manage_messages"])
    return world


@pytest.fixture
async def bots(emu, world, redis_server, redis, clock):
    """Start bots on demand; all are stopped at the end."""
    started = []

    async def start(**kwargs):
        bot = await start_bot(emu, redis_server, guild=world.guild, clock=clock, poll_interval=0.02, **kwargs)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        await bot.stop()


async def new_game(emu, world, channel=None, challenger=None, opponent=None):
    channel = channel or world.channel
    challenger, opponent = challenger or world.ann, opponent or world.ben
    it = await emu.slash(challenger, channel, "hongkong challenge", opponent=opponent)
    challenge = await it.wait_done()
    click = await emu.click(opponent, challenge, challenge.button("Accept")["custom_id"])
    await click.wait_done()
    return challenge, click


async def place(emu, world, user, square, channel=None):
    it = await emu.slash(user, channel or world.channel, "hongkong place", square=square)
    return (await it.wait_followups(1))[0]


async def set_timer(emu, world, timer: str, **more):
    it = await emu.slash(world.admin, world.channel, "settings", turn_timer=timer, **more)
    reply = await it.wait_done()
    assert it.ephemeral and "Settings updated" in reply.content
    return reply


async def test_reminder_then_forfeit(emu, world, bots, clock, redis):
    await bots()
    await set_timer(emu, world, "2h")
    await new_game(emu, world)
    await place(emu, world, world.ann, "A1")  # Ben's turn now: 2 hours
    clock.advance(HOUR + 1)
    reminder = await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    assert f"<@{world.ben['id']}>" in reminder.content and "forfeit" in reminder.content
    clock.advance(HOUR)
    final = await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
    assert f"{display(world.ben)} ran out of time: {display(world.ann)} wins" in final.content
    decode_png(final.attachments[0].data)
    assert await GameStore(redis).get(world.channel) is None
    record = await GameStore(redis).finished(world.channel, final.button("Rematch")["custom_id"].split(":")[-1])
    assert record.result.reason == "timeout" and record.result.winner == 0
    # exactly one reminder and one forfeit were posted
    assert sum("⏰" in m.content for m in emu.messages(world.channel)) == 1
    assert sum("ran out of time" in m.content for m in emu.messages(world.channel)) == 1
    assert emu.errors == []


async def test_a_move_resets_the_clock(emu, world, bots, clock, redis):
    await bots()
    await set_timer(emu, world, "1h", reminders=False)
    await new_game(emu, world)
    clock.advance(50 * 60)
    await place(emu, world, world.ann, "A1")
    clock.advance(50 * 60)  # 100 minutes since the game began, 50 since Ann moved: nobody has run out
    await place(emu, world, world.ben, "E5")
    await asyncio.sleep(0.2)  # give the pollers a chance to (wrongly) fire
    assert not any("ran out of time" in m.content or "⏰" in m.content for m in emu.messages(world.channel))
    assert (await GameStore(redis).get(world.channel)).record.status == "active"


async def test_restart_between_reminder_and_deadline(emu, world, bots, clock, redis_server):
    first = await bots()
    await set_timer(emu, world, "2h")
    await new_game(emu, world)
    clock.advance(HOUR + 1)
    await emu.wait_for_message(world.channel, lambda m: "⏰" in m.content)
    await first.stop()
    clock.advance(HOUR)  # the deadline passes while no bot runs
    await bots()
    final = await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
    assert f"{display(world.ann)} ran out of time" in final.content
    assert sum("⏰" in m.content for m in emu.messages(world.channel)) == 1


async def test_two_bot_processes_fire_a_deadline_once(emu, world, bots, clock):
    one = await bots()
    await set_timer(emu, world, "10m", reminders=False)
    await new_game(emu, world)
    two = await bots()  # a second process on the same Redis (the emulator routes interactions to the newest)
    assert one.bot.is_ready() and two.bot.is_ready()
    clock.advance(11 * 60)
    await emu.wait_for_message(world.channel, lambda m: "ran out of time" in m.content)
    await asyncio.sleep(0.3)  # both pollers have run several times since
    assert sum("ran out of time" in m.content for m in emu.messages(world.channel)) == 1
    assert emu.errors == []


async def test_challenge_expiry_uses_the_same_deadlines(emu, world, bots, clock, redis):
    await bots()
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    clock.advance(601)
    await emu.wait_for_message(world.channel, lambda m: m.id == challenge.id and "expired" in m.content)
    assert challenge.buttons() == [] and await GameStore(redis).get(world.channel) is None


async def test_open_challenge_anyone_but_the_challenger_accepts(emu, world, bots):
    await bots()
    it = await emu.slash(world.ann, world.channel, "hongkong challenge")
    challenge = await it.wait_done()
    assert "anyone may accept" in challenge.content
    click = await emu.click(world.ann, challenge, challenge.button("Accept")["custom_id"])
    assert "can't accept your own challenge" in await refused(click)
    click = await emu.click(world.cleo, challenge, challenge.button("Accept")["custom_id"])
    board = (await click.wait_followups(1))[0]
    assert f"<@{world.ann['id']}>, your turn" in board.content
    posted = await place(emu, world, world.ann, "B2")
    assert f"<@{world.cleo['id']}>, your turn" in posted.content


async def test_game_in_a_thread(emu, world, bots, redis):
    await bots()
    it = await emu.slash(world.admin, world.channel, "settings", threads=True)
    assert "a thread per game: **on**" in (await it.wait_done()).content
    challenge, click = await new_game(emu, world)
    thread_id = challenge.id  # Discord gives a thread started from a message that message's id
    first = await emu.wait_for_message(thread_id, lambda m: "the game begins" in m.content)
    threads = emu.threads(world.channel)
    assert [int(t["id"]) for t in threads] == [thread_id]
    assert threads[0]["name"] == f"Hong Kong: {display(world.ann)} vs {display(world.ben)}"
    await emu.wait_for_message(world.channel, lambda m: f"<#{thread_id}>" in m.content)
    decode_png(first.attachments[0].data)
    # the game lives in the thread: the parent channel is free, the thread has the game
    store = GameStore(redis)
    assert await store.get(world.channel) is None
    assert (await store.get(thread_id)).record.parent_id == world.channel
    await place(emu, world, world.ann, "A1", channel=thread_id)
    # a move sent in the parent channel is pointed to the thread
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="E5")
    assert await refused(it) == (
        f"This channel's game of Hong Kong ({display(world.ann)} vs {display(world.ben)}) is "
        f"played in its thread <#{thread_id}>: play and watch it there."
    )
    await resign(emu, world.ben, thread_id)
    ended = await emu.wait_for_message(world.channel, lambda m: "has ended" in m.content)
    assert f"{display(world.ben)} resigned" in ended.content and str(thread_id) in ended.content
    # another game can run in the parent channel at the same time as a thread game
    assert emu.errors == []


async def test_threads_without_permission_play_in_the_channel(emu, world, bots, redis):
    await bots()
    no_threads = emu.create_channel(world.guild, "no-threads")
    await (await emu.slash(world.admin, world.channel, "settings", threads=True)).wait_done()
    # a challenge where the bot can't open the game's thread is refused, naming the permission...
    await emu.set_permission_overwrite(no_threads, emu.bot_user, deny=PERMISSIONS["create_public_threads"])
    it = await emu.slash(world.ann, no_threads, "hongkong challenge", opponent=world.ben)
    text = await refused(it)
    assert "threads are on for this server" in text and "**Create Public Threads**" in text
    assert await GameStore(redis).get(no_threads) is None
    # ...but one that loses it between the challenge and the accept is played in the channel, with a note
    await emu.set_permission_overwrite(no_threads, emu.bot_user)
    it = await emu.slash(world.ann, no_threads, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    await emu.set_permission_overwrite(no_threads, emu.bot_user, deny=PERMISSIONS["create_public_threads"])
    await (await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])).wait_done()
    note = await emu.wait_for_message(no_threads, lambda m: "Create Public Threads" in m.content)
    assert "played here instead" in note.content
    await emu.wait_for_message(no_threads, lambda m: "the game begins" in m.content)
    assert (await GameStore(redis).get(no_threads)).record.status == "active"


async def test_rematch_swaps_who_moves_first(emu, world, bots, redis):
    await bots()
    await new_game(emu, world)
    final = await resign(emu, world.ann, world.channel)
    await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))  # posted after: not counted below
    rematch_id = final.button("Rematch")["custom_id"]
    click = await emu.click(world.cleo, final, rematch_id)
    assert "Only the two players" in await refused(click)
    click = await emu.click(world.ann, final, rematch_id)
    asked = await click.wait_done()
    assert not click.ephemeral and asked.content == (
        f"<@{world.ben['id']}>, {display(world.ann)} wants a rematch: press **Rematch** to play again."
    )
    assert [b["label"] for b in asked.buttons()] == ["Rematch"]  # the ping has its own button
    posts = len(emu.messages(world.channel))
    click = await emu.click(world.ann, final, rematch_id)  # again: a private note, no second ping
    assert await refused(click) == (
        f"You have already asked for a rematch: waiting for {display(world.ben)} to press Rematch too."
    )
    assert len(emu.messages(world.channel)) == posts
    click = await emu.click(world.ben, asked, asked.button("Rematch")["custom_id"])  # Ben answers the ping itself
    board = (await click.wait_followups(1))[0]
    assert "rematch" in board.content and f"<@{world.ben['id']}>, your turn" in board.content
    # the ping is retired: it says the rematch has started, and its button is gone
    await emu.wait_for_message(world.channel, lambda m: m.id == asked.id and not m.buttons())
    assert asked.content == "~~Rematch request~~ — the rematch has started."
    doc = (await GameStore(redis).get(world.channel)).record
    assert doc.options == {"first": 1} and doc.state["moves"] == []
    click = await emu.click(world.ben, final, rematch_id)
    assert "already started" in await refused(click)


async def test_takeback_accepted_and_declined(emu, world, bots, redis):
    await bots()
    await new_game(emu, world)
    await place(emu, world, world.ann, "A1")
    it = await emu.slash(world.ben, world.channel, "takeback")
    assert "nothing to take back" in await refused(it)
    await place(emu, world, world.ben, "E5")
    it = await emu.slash(world.ann, world.channel, "takeback")
    assert "your own last turn, before your opponent has moved" in await refused(it)
    await place(emu, world, world.ann, "A2")
    it = await emu.slash(world.ann, world.channel, "takeback")
    request = await it.wait_done()
    assert f"<@{world.ben['id']}>" in request.content
    click = await emu.click(world.ann, request, request.button("Refuse")["custom_id"])
    assert f"Only {display(world.ben)} can answer" in await refused(click)
    click = await emu.click(world.ben, request, request.button("Refuse")["custom_id"])
    await click.wait_done()
    assert (
        request.content
        == (f"Takeback refused by {display(world.ben)}: {display(world.ann)} can ask again after their next turn.")
        and request.buttons() == []
    )
    store = GameStore(redis)
    assert (await store.get(world.channel)).record.state["moves"] == ["S@A1", "S@E5", "S@A2"]
    # one request a turn: not again until Ann's next turn (and Ben isn't pinged again)
    it = await emu.slash(world.ann, world.channel, "takeback")
    assert await refused(it) == (
        f"You have already asked for a takeback this turn, and {display(world.ben)} refused "
        "it. Play on: you can ask again after your next turn."
    )
    await place(emu, world, world.ben, "E4")
    await place(emu, world, world.ann, "A3")
    # asked on her next turn and allowed: the board goes back one turn and is reposted
    it = await emu.slash(world.ann, world.channel, "takeback")
    request = await it.wait_done()
    click = await emu.click(world.ben, request, request.button("Allow takeback")["custom_id"])
    board = (await click.wait_followups(1))[0]
    assert board.content.startswith(f"Takeback accepted: {display(world.ann)}'s last turn is undone (`S@A3`).\n")
    assert f"<@{world.ann['id']}>, your turn" in board.content
    decode_png(board.attachments[0].data)
    assert (await store.get(world.channel)).record.state["moves"] == ["S@A1", "S@E5", "S@A2", "S@E4"]
    assert "allowed" in request.content and request.buttons() == []
    assert emu.errors == []


async def test_games_lists_running_games(emu, world, bots, clock, redis):
    await bots()
    it = await emu.slash(world.cleo, world.channel, "games")
    assert "No games are running" in await refused(it)
    await new_game(emu, world)
    await place(emu, world, world.ann, "C1")
    clock.advance(60)
    await new_game(emu, world, channel=world.other_channel, challenger=world.cleo, opponent=world.ann)
    it = await emu.slash(world.cleo, world.channel, "games")
    reply = await it.wait_done()
    fields = reply.embeds[0]["fields"]
    assert len(fields) == 2
    assert fields[0]["name"] == f"Hong Kong: {display(world.ann)} vs {display(world.ben)}"
    assert f"{display(world.ben)} (orange) to move · turn 2" in fields[0]["value"]
    deadline = int((await GameStore(redis).get(world.other_channel)).record.deadline)
    assert fields[1]["value"] == (
        f"{display(world.cleo)} (blue) to move · turn 1 · watch in <#{world.other_channel}> · "
        f"time runs out <t:{deadline}:R>"
    )  # the channel by its name, the time kept current, no stray full stop in the list


async def test_admin_commands_refused_for_non_admins(emu, world, bots, redis):
    await bots()
    await new_game(emu, world)
    # every member sees the settings (the turn timer concerns every player), only Manage Server changes them
    it = await emu.slash(world.cleo, world.channel, "settings")
    shown = await it.wait_done()
    assert shown.ephemeral and "• turn timer: **1 day**" in shown.content
    before = await GameStore(redis).raw(world.channel)
    it = await emu.slash(world.cleo, world.channel, "settings", turn_timer="1m")
    assert await refused(it) == (
        "Only members with the **Manage Server** permission can change the bot's settings; "
        f"{emu.mention(world.guild, 'settings')} without options shows them."
    )
    it = await emu.slash(world.cleo, world.channel, "settings")
    assert "• turn timer: **1 day**" in (await it.wait_done()).content  # unchanged
    # Discord hides /game from members without the permission...
    with pytest.raises(EmulatorAssertion, match="default_member_permissions"):
        await emu.slash(world.cleo, world.channel, "game abort")
    # ...and if an admin opens it to everyone, the bot still checks
    emu.allow_command_for_everyone(world.guild, "game")
    it = await emu.slash(world.cleo, world.channel, "game abort")
    assert "Manage Messages" in await refused(it)
    assert await GameStore(redis).raw(world.channel) == before
    it = await emu.slash(world.admin, world.channel, "settings", turn_timer="3 weeks")
    assert await refused(it) == (
        "'3 weeks' is too long: the turn timer can be at most 7 days (it can be between 1 minute and 7 days)."
    )
    it = await emu.slash(world.admin, world.channel, "settings", turn_timer="30s")
    assert "too short: the turn timer must be at least 1 minute" in await refused(it)
    it = await emu.slash(world.admin, world.channel, "settings", turn_timer="90 minutes")
    assert "turn timer: **1 hour 30 minutes**" in (await it.wait_done()).content
    # the admin aborts: unrated, nobody wins, the channel is free
    it = await emu.slash(world.admin, world.channel, "game abort")
    final = (await it.wait_followups(1))[0]
    assert f"Aborted by {display(world.admin)}" in final.content
    assert await GameStore(redis).get(world.channel) is None
    assert emu.errors == []
