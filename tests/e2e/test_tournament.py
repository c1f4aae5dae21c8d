"""End to end: tournaments through the local Discord emulator with a real Redis — sign-up, rounds in threads,
results, standings, podium; a 4-player round robin and a 7-player Swiss (a bye, a withdrawal, a restart between
rounds, a game lost on time); and the refusals (joining twice or late, no permission, too few players).

Time is the test's clock: the bots poll Redis every few milliseconds and the test waits for what they post.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.core.tournament.event import Phase
from bot.storage.store import GameStore
from bot.storage.tournaments import Step, Tournaments
from tests.bot.harness import make_world, refused, resign, start_bot
from tests.emulator import PERMISSIONS

pytestmark = pytest.mark.timeout(280)

HOUR = 3600


@pytest.fixture
async def world(emu):
    world = make_world(emu)
    world.admin = emu.create_user("ada")
    emu.add_member(world.guild, world.admin, permissions=PERMISSIONS["manage_guild"])
    world.players = [world.ann, world.ben, world.cleo]
    for name in ("dan", "eve", "fay", "gus"):
        user = emu.create_user(name)
        emu.add_member(world.guild, user)
        world.players.append(user)
    return world


@pytest.fixture
async def bots(emu, world, redis_server, redis, clock):
    """Start bots on demand (each a process-equivalent with its own Redis connection); all stopped at the end."""
    started = []

    async def start(**kwargs):
        bot = await start_bot(emu, redis_server, guild=world.guild, clock=clock, poll_interval=0.02, **kwargs)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        await bot.stop()


async def create(emu, world, **options):
    it = await emu.slash(world.admin, world.channel, "tournament create", **options)
    post = await it.wait_done()
    assert not it.ephemeral, post.content
    return post


async def join(emu, post, users):
    for user in users:
        click = await emu.click(user, post, post.button("Join")["custom_id"])
        await click.wait_done()


async def stored(redis, world):
    (t,) = await Tournaments(redis, lambda: 0.0).of_guild(world.guild)
    return t


async def wait_for(predicate, timeout: float = 30.0):
    for _ in range(int(timeout / 0.05)):
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("timed out waiting")


async def round_started(redis, world, number: int):
    """The tournament once every game of round ``number`` has started (a thread and a game on each board)."""

    async def ready():
        t = await stored(redis, world)
        if t.round != number:
            return None
        pending = [b for b in t.boards[-1] if b.result is None]
        return t if all(b.game is not None for b in pending) else None

    return await wait_for(ready)


def user(world, user_id):
    return next(u for u in [*world.players, world.admin] if int(u["id"]) == user_id)


async def test_round_robin_of_four_from_sign_up_to_podium(emu, world, bots, redis):
    await bots()
    post = await create(emu, world, game="hongkong", format="round_robin", turn_timer="1 hour")
    assert "round robin" in post.content and [b["label"] for b in post.buttons()] == ["Join", "Leave"]
    four = world.players[:4]
    await join(emu, post, four)
    assert all(f"{u['username']}" in post.content for u in four)
    it = await emu.slash(world.admin, world.channel, "tournament start")
    await it.wait_done()
    # every round: the board's seat 1 player resigns, so seat 0 wins; scores then follow the Berger table
    for number in (1, 2, 3):
        t = await round_started(redis, world, number)
        assert len(t.boards[-1]) == 2
        for board in t.boards[-1]:
            record = (await GameStore(redis).get(board.channel)).record
            assert record.turn_timer == 3600.0 and record.parent_id == world.channel
            assert [p.id for p in record.players] == [board.first, board.second]
            await resign(emu, user(world, board.second), board.channel)
    t = await wait_for(lambda: _finished(redis, world))
    assert t.phase is Phase.FINISHED and t.round == 3
    podium = await emu.wait_for_message(world.channel, lambda m: "🥇" in m.content)
    final = await emu.wait_for_message(world.channel, lambda m: "final standings" in m.content)
    assert final.attachments and final.attachments[0].filename == "standings.png"
    # Berger for 4 (seeds 1–4 = ann, ben, cleo, dan by sign-up: no ratings yet): rounds 1–4 2–3 / 4–3 1–2 / 2–4 3–1;
    # seat 0 wins each: 1 beats 4, 2 beats 3; 4 beats 3, 1 beats 2; 2 beats 4, 3 beats 1 → 1: 2, 2: 2, 4: 1, 3: 1.
    # 1 and 2 tie on 2: direct encounter (1 beat 2) puts ann first; 3 and 4 on 1: dan beat cleo.
    names = [u["username"] for u in four]
    assert f"🥇 **{names[0]}** — 2" in podium.content and f"🥈 **{names[1]}** — 2" in podium.content
    lines = [line for line in final.content.splitlines() if " — **" in line]
    assert [line.split(" — ")[0].split(" ", 1)[1] for line in lines] == [names[0], names[1], names[3], names[2]]
    # asked for afterwards: the picture is the final standings too (not "after round 3")
    it = await emu.slash(world.cleo, world.channel, "tournament standings")
    asked = await it.wait_done()
    assert "final standings" in asked.content
    assert asked.attachments[0].description.startswith(f"{title_of(final)} — final standings: a table of 4 players.")
    assert final.attachments[0].description.startswith(f"{title_of(final)} — final standings")
    assert emu.errors == []


def title_of(message) -> str:
    """The tournament's name in a standings post ("🏆 **Hong Kong round robin #abc123** — final standings")."""
    return message.content.split("**")[1]


async def _finished(redis, world):
    t = await stored(redis, world)
    return t if t.phase is Phase.FINISHED else None


async def test_swiss_of_seven_bye_withdrawal_restart_and_a_loss_on_time(emu, world, bots, redis, clock):
    bot = await bots()
    post = await create(emu, world, game="hongkong", format="swiss", rounds=3, turn_timer="1 hour")
    await join(emu, post, world.players)
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()

    # round 1: the fold 1–4, 5–2, 3–6 and the bye for the lowest seed (gus); two games resigned by seat 1, the third
    # lost on time across a restart of the bot
    t = await round_started(redis, world, 1)
    ids = [int(u["id"]) for u in world.players]
    assert [(b.first, b.second, b.result) for b in t.boards[0]] == [
        (ids[0], ids[3], None),
        (ids[4], ids[1], None),
        (ids[2], ids[5], None),
        (ids[6], None, "bye"),
    ]
    pairings = await emu.wait_for_message(world.channel, lambda m: "— round 1 of 3" in m.content)
    assert "gus has the bye (1 point)." in pairings.content
    for board in t.boards[0][:2]:
        await resign(emu, user(world, board.second), board.channel)
    await bot.stop()  # the bot restarts while the last game of round 1 runs out of time
    clock.advance(HOUR + 1)
    await bots()
    lost = await emu.wait_for_message(t.boards[0][2].channel, lambda m: "ran out of time" in m.content)
    assert "cleo ran out of time" in lost.content

    # round 2: paired once (by the new process), the standings after round 1 posted first
    t = await round_started(redis, world, 2)
    after = await emu.wait_for_message(world.channel, lambda m: "standings after round 1" in m.content)
    assert after.attachments[0].filename == "standings.png"
    assert len(t.boards[1]) == 4 and sum(b.second is None for b in t.boards[1]) == 1
    # a withdrawal: the first board's seat 0 player leaves mid-game — their game is resigned (a loss)
    leaver = t.boards[1][0].first
    it = await emu.slash(user(world, leaver), world.channel, "tournament withdraw")
    assert "You withdrew" in await refused(it)
    for board in t.boards[1][1:]:
        if board.second is not None:
            await resign(emu, user(world, board.second), board.channel)

    # round 3: six players left, no bye; the withdrawn player is not paired
    t = await round_started(redis, world, 3)
    assert t.boards[1][0].result == "0-1"
    assert all(not b.has(leaver) for b in t.boards[2]) and all(b.second is not None for b in t.boards[2])
    for board in t.boards[2]:
        await resign(emu, user(world, board.second), board.channel)
    t = await wait_for(lambda: _finished(redis, world))
    await emu.wait_for_message(world.channel, lambda m: "🥇" in m.content)

    # the rules, checked on what was stored: no pair twice, at most one bye each, one thread and one game a board
    pairs = [frozenset((b.first, b.second)) for r in t.boards for b in r if b.second is not None]
    assert len(pairs) == len(set(pairs)) == 3 + 3 + 3
    byes = [b.first for r in t.boards for b in r if b.result == "bye"]
    assert len(byes) == len(set(byes)) == 2
    threads = emu.threads(world.channel)
    assert len(threads) == 9 and {int(th["id"]) for th in threads} == {
        b.channel for r in t.boards for b in r if b.channel
    }
    assert len({b.game for r in t.boards for b in r if b.game}) == 9
    assert emu.errors == []


async def test_refusals_change_nothing(emu, world, bots, redis, clock):
    await bots()
    # a creator without Manage Server
    it = await emu.slash(world.ann, world.channel, "tournament create", game="hongkong", format="swiss")
    assert "Manage Server" in await refused(it)
    assert await Tournaments(redis, lambda: 0.0).of_guild(world.guild) == []
    # an option of the other game; rounds for a round robin
    it = await emu.slash(
        world.admin, world.channel, "tournament create", game="hongkong", format="swiss", expansion=True
    )
    assert "expansion is not an option of Hong Kong" in await refused(it)
    it = await emu.slash(world.admin, world.channel, "tournament create", game="hong", format="round_robin", rounds=2)
    assert "leave rounds out" in await refused(it)
    # a start time in the past or too soon: the answer is about starts, not the turn timer
    for starts, said in (("-5 minutes", "is in the past"), ("1 second", "is too soon"), ("9 days", "too far away")):
        it = await emu.slash(
            world.admin, world.channel, "tournament create", game="hong", format="swiss", starts=starts
        )
        answer = await refused(it)
        assert said in answer and "starts" in answer and "turn timer" not in answer, answer
    assert await Tournaments(redis, lambda: 0.0).of_guild(world.guild) == []

    post = await create(emu, world, game="hong", format="round_robin", board="garden", turn_timer="1 hour")
    assert "\nTurn timer: 1 hour." in post.content, post.content  # on its own line after the game's options
    await join(emu, post, [world.ann])
    before = await redis.hgetall(f"hongbot:{{ch:{world.channel}}}:tourn:{(await stored(redis, world)).id}")
    # joining twice; fewer than 2 players; standings before the start; a start without the permission
    click = await emu.click(world.ann, post, post.button("Join")["custom_id"])
    assert "already signed up" in await refused(click)
    it = await emu.slash(world.admin, world.channel, "tournament start")
    assert "at least 2 players" in await refused(it)
    it = await emu.slash(world.cleo, world.channel, "tournament standings")
    assert "has not started" in await refused(it)
    it = await emu.slash(world.ben, world.channel, "tournament start")
    assert "Manage Server" in await refused(it)
    assert await redis.hgetall(f"hongbot:{{ch:{world.channel}}}:tourn:{(await stored(redis, world)).id}") == before
    # three players (odd: one rests each round), then joining a started round robin
    await join(emu, post, [world.ben, world.cleo])
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    t = await round_started(redis, world, 1)
    assert t.rounds == 3 and [b.result for b in t.boards[0]] == [None, "rest"]
    record = (await GameStore(redis).get(t.boards[0][0].channel)).record
    assert record.kind == "hong" and record.options["board"] == "garden"
    assert post.buttons() == []  # a round robin can't be joined once started: its post loses its buttons
    # the standings, for anyone, with a picture
    it = await emu.slash(world.cleo, world.channel, "tournament standings")
    shown = await it.wait_done()
    assert not it.ephemeral and "round 1 of 3 is being played: no results yet" in shown.content
    assert shown.attachments[0].filename == "standings.png"
    # cancel: no more rounds
    it = await emu.slash(world.admin, world.channel, "tournament cancel")
    assert "is cancelled" in (await it.wait_done()).content
    assert (await Tournaments(redis, lambda: 0.0).of_guild(world.guild))[0].phase is Phase.CANCELLED
    # joining a Swiss in its last round: refused (its post, over an hour old, still shows Join: Discord limits
    # edits of old messages, so the bot leaves it)
    swiss = await create(emu, world, game="hongkong", format="swiss", rounds=1)
    await join(emu, swiss, [world.ann, world.ben])
    clock.advance(HOUR)
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    click = await emu.click(world.players[3], swiss, swiss.button("Join")["custom_id"])
    assert "last round" in await refused(click)
    assert emu.errors == []


async def test_a_deleted_thread_a_departed_player_and_a_round_step_run_again(emu, world, bots, redis, clock):
    """Faults: a game's thread deleted (the game ends without a result: both lose by forfeit), a player who left the
    server (withdrawn when the next round starts: the opponent wins by forfeit), and the round's step run again by
    two processes at once after a crash between a game's start and its board's record — no game started twice."""
    await bots()
    await bots()  # a second process: both poll the same steps
    post = await create(emu, world, game="hongkong", format="swiss", rounds=2)
    four = world.players[:4]
    await join(emu, post, four)
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    t = await round_started(redis, world, 1)
    ids = [int(u["id"]) for u in four]
    assert [(b.first, b.second) for b in t.boards[0]] == [(ids[0], ids[2]), (ids[3], ids[1])]

    # the crash: board 2's thread was opened and its game started, but neither reached the board (the process died
    # first); the step runs again
    store = Tournaments(redis, clock)
    held = await store.get(world.channel, t.id)
    game_id, thread = t.boards[0][1].game, t.boards[0][1].channel
    crashed = held.tournament.with_board(0, 1, game=None, channel=None)
    assert await store.commit(crashed, held.version) == held.version + 1
    step = Step("round", world.channel, t.id, 1)
    await store.schedule(step, clock())
    t = await wait_for(lambda: _board_game(redis, world, 0, 1))
    assert t.boards[0][1].game == game_id and t.boards[0][1].channel == thread
    await wait_for(lambda: _settled(store, step))
    assert len(emu.threads(world.channel)) == 2  # no thread opened again, no second game
    assert (await GameStore(redis).get(thread)).record.id == game_id

    # board 1's thread is deleted: its game ends without a result; dan leaves the server, then ben resigns to him
    await emu.delete_channel(t.boards[0][0].channel)
    await emu.remove_member(world.guild, four[3])
    await resign(emu, world.ben, thread)
    t = await round_started(redis, world, 2)
    assert [b.result for b in t.boards[0]] == ["--", "1-0"]
    departed = next(b for b in t.boards[1] if b.has(ids[3]))
    assert departed.result in ("+-", "-+") and departed.points(ids[3]) == 0 and departed.game is None
    assert t.entrant(ids[3]).withdrawn == 3  # (paired in round 2 already: that board forfeited, none after)
    pairings = await emu.wait_for_message(world.channel, lambda m: "— round 2 of 2" in m.content)
    assert "wins by forfeit" in pairings.content


async def _board_game(redis, world, r, i):
    t = await stored(redis, world)
    return t if t.boards[r][i].game else None


async def _settled(store, step):
    return await store.due(step) is None


async def test_a_start_time_a_late_joiner_a_leave_and_ratings(emu, world, bots, redis, clock):
    """A Swiss that starts by itself at its start time (and one that is cancelled then, short of players); a late
    joiner paired from the next round; Leave after the start withdraws and resigns; results are rated."""
    await bots()
    lonely = await create(emu, world, game="hong", format="swiss", rounds=2, starts="30 minutes", name="Lonely Cup")
    await join(emu, lonely, [world.cleo])
    post = await create(emu, world, game="hongkong", format="swiss", rounds=2, starts="1 hour", name="Spring Cup")
    assert "Spring Cup" in post.content and "Starts <t:" in post.content
    await join(emu, post, world.players[:3])
    clock.advance(HOUR + 1)
    cancelled = await emu.wait_for_message(world.channel, lambda m: "was cancelled at its start time" in m.content)
    assert "**Lonely Cup**" in cancelled.content
    tournaments = Tournaments(redis, clock)

    async def spring():
        return next(t for t in await tournaments.of_guild(world.guild) if t.name == "Spring Cup")

    t = await wait_for(lambda: _started(spring, 1))
    assert [b.result for b in t.boards[0]] == [None, "bye"]
    # dan joins late (the post is an hour old: its buttons still work)
    dan = world.players[3]
    click = await emu.click(dan, post, post.button("Join")["custom_id"])
    await click.wait_done()
    (note,) = await click.wait_followups(1)
    assert note.content == "You're in! You'll be paired from round 2."
    board = t.boards[0][0]
    await resign(emu, user(world, board.second), board.channel)
    t = await wait_for(lambda: _started(spring, 2))
    assert any(b.has(int(dan["id"])) for b in t.boards[1]) and all(b.second is not None for b in t.boards[1])
    # Leave after the start: withdrawn, and the game being played resigned (a loss)
    leaver = t.boards[1][0].first
    click = await emu.click(user(world, leaver), post, post.button("Leave")["custom_id"])
    await click.wait_done()
    t = await wait_for(lambda: _board_result(spring, 1, 0))
    assert t.boards[1][0].result == "0-1" and t.entrant(leaver).withdrawn is not None
    await resign(emu, user(world, t.boards[1][1].second), t.boards[1][1].channel)
    await wait_for(lambda: _phase(spring, Phase.FINISHED))
    # tournament games are rated like any game
    from bot.storage.ratings import Ratings, guild_scope

    standing = await wait_for(lambda: Ratings(redis).standing("hongkong", guild_scope(world.guild), int(dan["id"])))
    assert standing.games == 1


async def test_one_game_at_a_time_a_round_waits_for_its_players(emu, world, bots, redis, clock):
    """Ann and Ben are in two tournaments: the second one's round waits until their first game has ended."""
    await bots()
    first = await create(emu, world, game="hongkong", format="round_robin", name="First")
    await join(emu, first, [world.ann, world.ben])
    it = await emu.slash(
        world.admin, world.other_channel, "tournament create", game="hongkong", format="round_robin", name="Second"
    )
    second = await it.wait_done()
    await join(emu, second, [world.ann, world.ben])
    offered = await emu.autocomplete(world.cleo, world.channel, "tournament standings", focused="tournament")
    assert sorted(c["name"] for c in offered) == ["First", "Second"]
    offered = await emu.autocomplete(
        world.cleo, world.channel, "tournament standings", focused="tournament", tournament="fir"
    )
    assert [c["name"] for c in offered] == ["First"]
    it = await emu.slash(world.cleo, world.channel, "tournament standings", tournament=offered[0]["value"])
    assert "has not started" in await refused(it)
    it = await emu.slash(world.cleo, world.channel, "tournament standings", tournament="nope")
    assert "no tournament `nope`" in await refused(it)
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    tournaments = Tournaments(redis, clock)

    async def named(name):
        return next(t for t in await tournaments.of_guild(world.guild) if t.name == name)

    t1 = await wait_for(lambda: _started(lambda: named("First"), 1))
    await (await emu.slash(world.admin, world.other_channel, "tournament start")).wait_done()
    await asyncio.sleep(1.0)
    t2 = await named("Second")
    assert t2.round == 1 and t2.boards[0][0].game is None and emu.threads(world.other_channel) == []
    # the wait is said once in the tournament's channel (not every retry), and the standings say the board waits
    clock.advance(11)
    await asyncio.sleep(0.5)
    said = [m.content for m in emu.messages(world.other_channel) if "these games wait" in m.content]
    assert len(said) == 1 and "ann vs ben — waiting for ann, ben" in said[0], said
    assert (await named("Second")).waited == 1
    it = await emu.slash(world.cleo, world.other_channel, "tournament standings", tournament="Second")
    shown = (await it.wait_done()).content
    assert "1 board of round 1 is waiting to start" in shown, shown
    # the name as shown in the posts, in any case, names the tournament; a name two share is refused
    it = await emu.slash(world.cleo, world.channel, "tournament standings", tournament="  first ")
    assert "First" in (await it.wait_done()).content and not it.ephemeral
    await resign(emu, user(world, t1.boards[0][0].second), t1.boards[0][0].channel)
    await wait_for(lambda: _phase(lambda: named("First"), Phase.FINISHED))
    clock.advance(11)  # the waiting round is tried again every 10 s
    t2 = await wait_for(lambda: _started(lambda: named("Second"), 1))
    assert len(emu.threads(world.other_channel)) == 1
    assert len([m for m in emu.messages(world.other_channel) if "these games wait" in m.content]) == 1
    await create(emu, world, game="hong", format="swiss", name="second")
    it = await emu.slash(world.cleo, world.channel, "tournament standings", tournament="SECOND")
    assert "2 tournaments in this server are called `SECOND`: pick the one you mean" in await refused(it)


async def _started(get, number):
    t = await get()
    if t.round != number:
        return None
    return t if all(b.game is not None for b in t.boards[-1] if b.result is None) else None


async def _board_result(get, r, i):
    t = await get()
    return t if t.boards[r][i].result is not None else None


async def _phase(get, phase):
    t = await get()
    return t if t.phase is phase else None


async def test_privacy_forget_waits_for_an_open_tournament(emu, world, bots, redis):
    await bots()
    post = await create(emu, world, game="hongkong", format="swiss", name="Autumn Cup")
    await join(emu, post, [world.ann])
    await join(emu, post, [world.ben, world.cleo])
    it = await emu.slash(world.ann, world.channel, "privacy export")  # her entry is data of hers too
    sent = await it.wait_done()
    assert sent.content == "Everything I keep about you, as JSON: 1 tournament entry."
    (entry,) = json.loads(sent.attachments[0].data)["tournaments"]
    assert entry["name"] == "Autumn Cup" and entry["status"] == "signup" and entry["entry"]["seed"] == 1
    it = await emu.slash(world.ann, world.channel, "privacy forget")
    assert await refused(it) == (
        "You're signed up for the tournament **Autumn Cup**: press **Leave** on its sign-up post "
        f"(https://discord.com/channels/{world.guild}/{world.channel}/{post.id}) first, then ask again."
    )
    click = await emu.click(world.ann, post, post.button("Leave")["custom_id"])
    await click.wait_done()
    # the sign-up list numbers those left 1, 2: no gap where Ann was
    await emu.wait_for_message(world.channel, lambda m: m.id == post.id and "2 players" in m.content)
    assert f"**2 players:** 1. {world.ben['username']}, 2. {world.cleo['username']}" in post.content
    it = await emu.slash(world.ann, world.channel, "privacy forget")
    question = await it.wait_done()
    assert it.ephemeral and question.content.startswith("Erase everything")


async def test_a_change_discord_no_longer_takes_is_not_stored(emu, world, bots, redis):
    """A create, or a Join, whose acknowledgement reaches Discord after its 3 s (10062): the player saw "did not
    respond", so nothing is stored — and doing it again works."""
    from prometheus_client import REGISTRY

    def expired() -> float:
        return REGISTRY.get_sample_value("hongbot_failures_total", {"reason": "expired"}) or 0.0

    await bots()
    callback = r"/interactions/\d+/[^/]+/callback"
    count = expired()
    fault = emu.faults.add(method="POST", path=callback, status=None, when="before", delay=3.5)
    it = await emu.slash(world.admin, world.channel, "tournament create", game="hongkong", format="swiss")
    await emu._wait_until(lambda: expired() > count, 30, lambda: "an expired interaction counted")
    assert it.responses == [] and await Tournaments(redis, lambda: 0.0).of_guild(world.guild) == []
    fault.remove()
    post = await create(emu, world, game="hongkong", format="swiss")
    count = expired()
    fault = emu.faults.add(method="POST", path=callback, status=None, when="before", delay=3.5)
    await emu.click(world.ann, post, post.button("Join")["custom_id"])
    await emu._wait_until(lambda: expired() > count, 30, lambda: "an expired interaction counted")
    assert (await stored(redis, world)).entrants == ()
    fault.remove()
    await join(emu, post, [world.ann])
    assert [e.id for e in (await stored(redis, world)).entrants] == [int(world.ann["id"])]


async def test_without_thread_permissions_nothing_is_created_and_a_round_waits(emu, world, bots, redis, clock):
    """The bot lacking Create Public Threads: /tournament create is refused naming it; a round due meanwhile (a start
    time) says so and waits — no game forfeited — and starts once the permission is back."""
    await bots()
    deny = PERMISSIONS["create_public_threads"]
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=deny)
    it = await emu.slash(world.admin, world.channel, "tournament create", game="hongkong", format="swiss")
    assert "Create Public Threads" in await refused(it)
    await emu.set_permission_overwrite(world.channel, emu.bot_user)
    post = await create(emu, world, game="hongkong", format="swiss", rounds=1, starts="1 hour")
    await join(emu, post, [world.ann, world.ben])
    await emu.set_permission_overwrite(world.channel, emu.bot_user, deny=deny)
    clock.advance(HOUR + 1)
    warning = await emu.wait_for_message(world.channel, lambda m: "couldn't open a thread" in m.content)
    assert "Create Public Threads" in warning.content
    t = await stored(redis, world)
    assert t.round == 1 and t.boards[0][0].result is None and t.boards[0][0].game is None
    clock.advance(61)  # still without the permission: the round tries again, its posts are not repeated
    await emu.wait_for_message(world.channel, lambda m: "couldn't open a thread" in m.content)
    await emu.set_permission_overwrite(world.channel, emu.bot_user)
    clock.advance(61)
    t = await round_started(redis, world, 1)
    assert len(emu.threads(world.channel)) == 1 and t.boards[0][0].result is None
    for said in ("— round 1 of 1", "couldn't open a thread"):
        assert len([m for m in emu.messages(world.channel) if said in m.content]) == 1


async def test_the_tournaments_channel_deleted_cancels_it(emu, world, bots, redis):
    """Its channel deleted (the games' threads with it): the games end without a result, and the tournament is
    cancelled when its next round is due — no thread opened anywhere else."""
    await bots()
    post = await create(emu, world, game="hongkong", format="round_robin")
    await join(emu, post, world.players[:3])
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    t = await round_started(redis, world, 1)
    await emu.delete_channel(world.channel)
    t = await wait_for(lambda: _phase(lambda: stored(redis, world), Phase.CANCELLED))
    assert t.round == 2 and t.boards[0][0].result == "--"
    assert all(b.game is None for b in t.boards[1])


async def test_a_tournament_game_has_its_watch_live_link_where_the_server_allows_it(emu, world, bots, redis):
    await bots(public_url="https://games.example.org")
    await (await emu.slash(world.admin, world.channel, "settings", web="link")).wait_done()
    post = await create(emu, world, game="hongkong", format="round_robin")
    await join(emu, post, world.players[:2])
    await (await emu.slash(world.admin, world.channel, "tournament start")).wait_done()
    t = await round_started(redis, world, 1)
    (board,) = t.boards[-1]
    first = await emu.wait_for_message(board.channel, lambda m: "the game begins" in m.content)
    links = [b for b in first.buttons() if b.get("style") == 5]  # a link button: Watch live
    assert len(links) == 1 and links[0]["url"].startswith("https://games.example.org/g/")
    assert str(board.game) not in links[0]["url"]  # a token, never the game id
    assert emu.errors == []
