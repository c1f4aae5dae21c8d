"""End to end: what a player reads — issue 13's points, each through the emulator with the exact message.

Sides and who moves first in challenges and start posts, option help that states its default, Confirm/Cancel on
resign, takeback requests that close themselves, the dragon-action help, a Hong game decided early, one square
reader, posts that say what a move did, one board per round against the computer, and answers shown only to the
caller. (Rematch asking once, and one takeback a turn: test_e2e_lifecycle; every string's wording: test_wording.)
"""

from __future__ import annotations

import asyncio
import re

import pytest

import engine.hong as hong
from bot.games import all_kinds
import engine.hongkong as hk
from bot.storage.finished_games import GAME_INDEX
from bot.storage.store import GameStore
from bot.i18n import n_

from tests.bot.harness import decode_png, display, refused, resign
from tests.e2e.test_lifecycle import bots  # noqa: F401  (bots started on demand, on the test clock)

pytestmark = pytest.mark.timeout(300)


def mention(user) -> str:
    return f"<@{user['id']}>"


async def challenge(emu, world, command: str, opponent=None, **options):
    it = await emu.slash(world.ann, world.channel, command, **({"opponent": opponent} if opponent else {}), **options)
    message = await it.wait_done()
    assert not it.ephemeral, message.content
    return message


async def accept(emu, world, message, by=None):
    """``by`` (Ben) presses Accept; returns the first board's post."""
    click = await emu.click(by or world.ben, message, message.button("Accept")["custom_id"])
    return (await click.wait_followups(1))[0]


async def hongkong_game(emu, world):
    return await accept(emu, world, await challenge(emu, world, "hongkong challenge", world.ben))


async def play(emu, world, user, command: str, **options):
    it = await emu.slash(user, world.channel, command, **options)
    posted = (await it.wait_followups(1))[0]
    assert not it.ephemeral, posted.content
    return posted


# --- 1. who plays which side, and who moves first ----------------------------------------------------------------


async def test_challenges_and_start_posts_name_each_side_and_who_moves_first(emu, world, running, redis):
    ann, ben = display(world.ann), display(world.ben)
    message = await challenge(emu, world, "hongkong challenge", world.ben, first="them")
    expires = int((await GameStore(redis).get(world.channel)).record.expires)
    assert message.content == (
        f"{mention(world.ben)}, {mention(world.ann)} challenges you to **Hong Kong**. "
        f"{ann} plays blue; you play orange and move first. "
        f"This challenge expires <t:{expires}:R>."
    )
    assert message.pinged == {int(world.ben["id"])}  # the challenged member only, never the challenger
    # the member challenged, challenging back, is told to press Accept; anyone else to wait
    it = await emu.slash(world.ben, world.channel, "hong challenge", opponent=world.ann)
    assert await refused(it) == (
        f"{ann} has already challenged you to Hong Kong in this channel: press **Accept** "
        "under their challenge to play."
    )
    it = await emu.slash(world.cleo, world.channel, "hong challenge")
    assert (await refused(it)).startswith("There is already an open Hong Kong challenge in this channel. Wait")
    first = await accept(emu, world, message)
    assert (
        message.content == f"**Hong Kong**: challenge accepted. {ann} plays blue; {ben} plays orange and moves first."
    )
    assert first.content.startswith(
        f"**Hong Kong** — the game begins! {ann} plays blue; {ben} plays orange and moves first.\nBuildings: "
    )
    deadline = int((await GameStore(redis).get(world.channel)).record.deadline)
    assert first.content.endswith(f"\n{mention(world.ben)}, your turn (orange). Time runs out <t:{deadline}:R>.")
    await resign(emu, world.ann, world.channel)
    # Hong: the challenged player learns their role before accepting
    message = await challenge(emu, world, "hong challenge", world.ben, role="dragon_master", board="garden")
    expires = int((await GameStore(redis).get(world.channel)).record.expires)
    assert message.content == (
        f"{mention(world.ben)}, {mention(world.ann)} challenges you to **Hong** (garden board). "
        f"You play the emperor and move first; {ann} plays the dragon master. "
        f"This challenge expires <t:{expires}:R>."
    )
    first = await accept(emu, world, message)
    assert first.content.startswith(
        f"**Hong** — the game begins! {ben} plays the emperor and moves first; {ann} "
        "plays the dragon master.\nHongs 0 / 13 (garden, 63 spaces left)"
    )
    await resign(emu, world.ann, world.channel, "hong")
    # an open challenge with a random role: decided now, and said
    message = await challenge(emu, world, "hong challenge", expansion=True)
    record = (await GameStore(redis).get(world.channel)).record
    sides = (
        f"{ann} plays the emperor and moves first; whoever accepts plays the dragon master."
        if record.players[0]
        else f"Whoever accepts plays the emperor and moves first; {ann} plays the dragon master."
    )
    assert message.content == (
        f"{mention(world.ann)} is looking for an opponent for **Hong** (castle board, with the "
        f"Lair of the Seven Great Dragons): anyone may accept. {sides} "
        f"This challenge expires <t:{int(record.expires)}:R>."
    )
    assert message.pinged == set()  # an open challenge pings no one
    it = await emu.slash(world.ben, world.channel, "hongkong challenge")  # anyone may accept it: told how
    assert (
        await refused(it)
        == f"There is an open Hong challenge by {ann} in this channel: press **Accept** under it to play."
    )
    assert emu.errors == []


async def test_the_bot_shows_how_to_start_a_game_in_the_member_list(emu, running):
    """Whoever sees the bot in the member list sees its games' commands (``presence``: config)."""
    shown = " · ".join(f"/{name}" for name in sorted(all_kinds()))  # "/hong · /hongkong", and any game added
    assert [(a["name"], a["type"]) for a in emu.presence["activities"]] == [(shown, 0)]  # Playing …


async def test_every_optional_option_says_its_default(emu, world, running):
    commands = emu.commands + emu.guild_commands.get(world.guild, [])
    seen, missing = 0, []

    def walk(options, path):
        nonlocal seen
        for option in options or []:
            if option["type"] in (1, 2):  # a subcommand (group)
                walk(option.get("options"), f"{path} {option['name']}")
            elif not option.get("required"):
                seen += 1
                if "default" not in option["description"].lower():
                    missing.append(f"/{path} {option['name']}: {option['description']}")

    for command in commands:
        walk(command.get("options"), command["name"])
    assert seen >= 20 and missing == []


async def test_the_computer_game_names_its_sides_without_doubled_brackets(emu, world, running):
    it = await emu.slash(
        world.ann, world.channel, "hong challenge", opponent=emu.bot_user, role="emperor", board="inner", level="hard"
    )
    start = (await it.wait_followups(1))[0]
    assert start.content.startswith(
        f"**Hong** against the computer (hard, unrated): {display(world.ann)} plays the "
        "emperor and moves first; Computer plays the dragon master.\n"
    )
    assert ") (" not in start.content
    assert emu.errors == []


# --- 2. resign asks first ------------------------------------------------------------------------------------------


async def test_resign_asks_confirm_or_cancel_and_an_old_confirm_expires(emu, world, bots, clock, redis):
    await bots()
    await hongkong_game(emu, world)
    store = GameStore(redis)
    before = await store.raw(world.channel)
    it = await emu.slash(world.ben, world.channel, "hongkong resign")
    question = await it.wait_done()
    assert it.ephemeral and question.content == (
        f"Resign your **Hong Kong** game against {display(world.ann)}? It ends the game as a loss and counts for "
        f"the ratings. This question closes <t:{int(clock()) + 60}:R>."
    )
    assert [b["label"] for b in question.buttons()] == ["Confirm", "Cancel"]
    click = await emu.click(world.ben, question, question.button("Cancel")["custom_id"])
    await click.wait_done()
    assert question.content == "Resignation cancelled: play on." and question.buttons() == []
    assert await store.raw(world.channel) == before
    # a spectator can't even ask
    it = await emu.slash(world.cleo, world.channel, "hongkong resign")
    assert "not playing in this game" in await refused(it)
    # a Confirm pressed after its minute does nothing but say so
    it = await emu.slash(world.ben, world.channel, "hongkong resign")
    old = await it.wait_done()
    clock.advance(61)
    click = await emu.click(world.ben, old, old.button("Confirm")["custom_id"])
    await click.wait_done()
    command = emu.mention(world.guild, "hongkong resign")
    assert (
        old.content
        == (
            f"This confirmation expired after 1 minute: nothing happened. Use {command} again if "
            "you still want to resign."
        )
        and old.buttons() == []
    )
    assert (await store.get(world.channel)).record.status == "active"
    final = await resign(emu, world.ben, world.channel)
    assert f"**Game over.** {display(world.ben)} resigned: {display(world.ann)} wins." in final.content
    assert emu.errors == []


async def test_a_confirm_survives_a_restart_but_never_resigns_a_newer_game(emu, world, bots, redis):
    first = await bots()
    await hongkong_game(emu, world)
    it = await emu.slash(world.ann, world.channel, "hongkong resign")
    kept = await it.wait_done()  # Ann asks, and leaves the question open
    await first.stop()
    second = await bots()
    await resign(emu, world.ben, world.channel)  # the game ends otherwise; a new one starts
    await hongkong_game(emu, world)
    click = await emu.click(world.ann, kept, kept.button("Confirm")["custom_id"])
    assert await refused(click) == "That game has already ended: there is nothing to resign."
    assert (await GameStore(redis).get(world.channel)).record.status == "active"
    # a question asked before a restart is answered by the new process
    it = await emu.slash(world.ann, world.channel, "hongkong resign")
    asked = await it.wait_done()
    await second.stop()
    await bots()
    click = await emu.click(world.ann, asked, asked.button("Confirm")["custom_id"])
    final = (await click.wait_followups(1))[0]
    assert f"{display(world.ann)} resigned: {display(world.ben)} wins." in final.content
    assert asked.content == "You resigned." and await GameStore(redis).get(world.channel) is None


# --- 12. answers only for the caller --------------------------------------------------------------------------------


async def test_board_and_stats_can_answer_only_the_caller(emu, world, running, redis):
    await hongkong_game(emu, world)
    it = await emu.slash(world.cleo, world.channel, "hongkong board", ephemeral=True)
    shown = await it.wait_done()
    assert it.ephemeral and shown.ephemeral and shown.attachments
    it = await emu.slash(world.cleo, world.channel, "hongkong board")
    assert not (await it.wait_done()).ephemeral  # public by default: spectating is a feature
    await resign(emu, world.ben, world.channel)
    await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))  # recorded and rated
    for command, options in (("stats", {"user": world.ann}), ("history", {}), ("leaderboard", {"game": "hongkong"})):
        it = await emu.slash(world.cleo, world.channel, command, ephemeral=True, **options)
        answer = await it.wait_done()
        assert it.ephemeral and answer.embeds, command
        it = await emu.slash(world.cleo, world.channel, command, **options)
        await it.wait_done()
        assert not it.ephemeral, command
    game_id = (await GameStore(redis).redis.zrange("hongbot:finished", 0, -1))[0].split(":")[1]
    for command in ("record", "replay"):
        it = await emu.slash(world.cleo, world.channel, command, game=game_id, ephemeral=True)
        await it.wait_response()
        assert it.ephemeral, command
        await it.wait_done()
    assert emu.errors == []


# --- 9. wording ---------------------------------------------------------------------------------------------------


async def test_stats_of_the_bot_and_a_waiting_challenge(emu, world, running):
    it = await emu.slash(world.ann, world.channel, "stats", user=emu.bot_user)
    assert "plays as the computer, but games against the computer are unrated" in await refused(it)
    await challenge(emu, world, "hongkong challenge", world.ben)
    it = await emu.slash(world.ann, world.channel, "hongkong board")
    assert await refused(it) == (
        f"The Hong Kong challenge here hasn't been accepted yet: the game starts when {display(world.ben)} accepts it."
    )


def test_plural():
    """Counts agree with their nouns (English: the plural for 0 and 2, the singular for 1)."""
    assert [n_("{count} space", "{count} spaces", n) for n in (0, 1, 2)] == ["0 spaces", "1 space", "2 spaces"]
    assert n_("{count} loss", "{count} losses", 1) == "1 loss" and n_("{count} loss", "{count} losses", 3) == "3 losses"


# --- 3. takeback requests close themselves; one a turn ------------------------------------------------------------


async def ask_takeback(emu, world, user):
    it = await emu.slash(user, world.channel, "takeback")
    request = await it.wait_done()
    assert not it.ephemeral and request.buttons(), request.content
    return request


async def test_a_takeback_request_closes_when_the_opponent_moves_the_game_ends_or_time_runs_out(
    emu, world, bots, clock, redis
):
    await bots()
    await hongkong_game(emu, world)
    ann, ben = display(world.ann), display(world.ben)
    await play(emu, world, world.ann, "hongkong place", square="A1")
    request = await ask_takeback(emu, world, world.ann)
    assert request.content == (
        f"{mention(world.ben)}, {ann} asks to take back their last turn, move 1: `S@A1`. "
        f"Allow it? (This request closes <t:{int(clock()) + 300}:R>.)"
    )
    await play(emu, world, world.ben, "hongkong place", square="E5")  # Ben moves instead of answering
    await emu.wait_for_message(world.channel, lambda m: m.id == request.id and not m.buttons())
    assert request.content == f"~~Takeback request~~ — closed: {ben} moved instead."
    # nobody answers: closed when its time runs out
    await play(emu, world, world.ann, "hongkong place", square="A2")
    request = await ask_takeback(emu, world, world.ann)
    clock.advance(5 * 60 + 1)
    await emu.wait_for_message(world.channel, lambda m: m.id == request.id and not m.buttons())
    assert request.content == f"~~Takeback request~~ — expired: {ben} didn't answer within 5 minutes."
    it = await emu.slash(world.ann, world.channel, "takeback")
    assert await refused(it) == (
        f"You have already asked for a takeback this turn, and {ben} didn't answer in time. "
        "Play on: you can ask again after your next turn."
    )
    # the game ends while a request is open
    await play(emu, world, world.ben, "hongkong place", square="E4")
    await play(emu, world, world.ann, "hongkong place", square="A3")
    request = await ask_takeback(emu, world, world.ann)
    await resign(emu, world.ben, world.channel)
    await emu.wait_for_message(world.channel, lambda m: m.id == request.id and not m.buttons())
    assert request.content == "~~Takeback request~~ — closed: the game has ended."
    assert emu.errors == []


async def test_a_move_whose_board_is_posted_late_leaves_the_request_made_after_it_open(emu, world, bots, redis):
    """Found when a CI run was slow: Ann moved, asked for a takeback before her move's board was posted, and the
    late board's clean-up (a move was made: close the turn's stale request) closed her new request as "ann moved
    instead". The clean-up judges the request by the game as it is now."""
    from bot.exts.play import _takebacks as takebacks

    running = await bots()
    await hongkong_game(emu, world)
    await play(emu, world, world.ann, "hongkong place", square="A1")
    after_move = (await GameStore(redis).get(world.channel)).record  # what Ann's move's post had in hand
    request = await ask_takeback(emu, world, world.ann)
    assert after_move.takeback is None
    for _ in range(200):  # the request's message is noted just after it is posted
        if await GameStore(redis).takeback_message(world.channel, after_move.id) is not None:
            break
        await asyncio.sleep(0.01)
    assert (await GameStore(redis).takeback_message(world.channel, after_move.id))[1] == request.id
    layer = running.bot.layer
    assert not await takebacks.close_stale(running.bot, layer, after_move, 0)  # the late clean-up of Ann's move
    assert request.buttons() and "asks to take back" in request.content
    await play(emu, world, world.ben, "hongkong place", square="E5")  # Ben's move does close it
    await emu.wait_for_message(world.channel, lambda m: m.id == request.id and not m.buttons())
    assert request.content == f"~~Takeback request~~ — closed: {display(world.ben)} moved instead."
    assert emu.errors == []


# --- 4. the dragon action's help; 8. one square reader ------------------------------------------------------------


async def hong_game(emu, world, **options):
    """Ann (emperor, first) vs Ben on the inner board. The running bot's rng is seeded: the setup seed is that of
    test_e2e_hong.EXPANSION_SEED."""
    await accept(
        emu, world, await challenge(emu, world, "hong challenge", world.ben, role="emperor", board="inner", **options)
    )
    return world.ann, world.ben


async def hong_move(emu, world, user, move: str):
    if " " in move:
        return await play(emu, world, user, "hong dragon", action=move)
    return await play(emu, world, user, "hong place", square=move[:-1], rotate=move[-1] == "V")


async def test_dragon_actions_get_their_syntax_and_a_legal_example(emu, world, running, redis):
    from tests.e2e.test_hong import EXPANSION_SCRIPT

    users = await hong_game(emu, world, expansion=True)
    game = hong.from_dict((await GameStore(redis).get(world.channel)).record.state)
    summon = EXPANSION_SCRIPT.index("C3H")  # makes a Hong of 1, which summons the swap dragon (D1)
    for move in EXPANSION_SCRIPT[: summon + 1]:
        posted = await hong_move(emu, world, users[game.to_move], move)
        game.play(move)
    summoner = users[game.to_move]
    assert posted.content.startswith(
        f"{display(summoner)} played `C3H`: a new Hong of 1 at C3: it summons the Great Dragon D1 (swap).\n"
    )
    example = game.legal_moves()[0]
    usage = f"D1 swap <tile> <stone> <H|V>, e.g. {example}."
    before = await GameStore(redis).raw(world.channel)
    for action, answer in (
        ("swap C3 C6 V", f"Say which dragon first: {usage}"),
        ("D1 swap C3", f"swap takes <tile> <stone> <H|V>: {usage}"),
        ("D2 rotate C3", f"The dragon of size 2 is not being summoned now — you can summon {usage}"),
        ("D1 swap 3C C6 V", f"'3C' is not a square — {usage} Did you mean C3?"),
        # not an action at all, a placement included: the dragon's syntax, never a tile placed
        *(
            (
                typed,
                f"'{typed}' is not a dragon action: write D<size> <action> then its squares, "
                "e.g. D2 rotate C4. The post that summons a Great Dragon lists the ones you can "
                "choose.",
            )
            for typed in ("x", "D4H", game.empty_squares()[0] + "V")
        ),
    ):
        it = await emu.slash(summoner, world.channel, "hong dragon", action=action)
        assert await refused(it) == answer, action
    it = await emu.slash(summoner, world.channel, "hong place", square=game.empty_squares()[0])
    assert await refused(it) == (
        f"You are summoning a Great Dragon: carry out its action before placing a tile — {usage}"
    )
    assert await GameStore(redis).raw(world.channel) == before
    posted = await hong_move(emu, world, summoner, "ｄ１ ｓｗａｐ ｃ３ ｃ６ ｖ")  # full-width, as a phone may type it
    assert posted.content.startswith(f"{display(summoner)} played `D1 swap C3 C6 V`: broke the Hong of 1 at C3.\n")
    assert emu.errors == []


async def test_both_place_commands_read_squares_alike(emu, world, running, redis):
    await hongkong_game(emu, world)
    posted = await play(emu, world, world.ann, "hongkong place", square="B 3")
    assert posted.content.startswith(f"{display(world.ann)} played `S@B3`")
    offered = await emu.autocomplete(world.ben, world.channel, "hongkong place", focused="square", square="ｃ ２")
    assert [c["value"] for c in offered] == ["C2"]  # autocomplete reads what is typed as the commands do
    posted = await play(emu, world, world.ben, "hongkong place", square="ｄ４", quick="d 4")
    assert posted.content.startswith(f"{display(world.ben)} played `Q@D4 S@D4`")
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="3b")
    assert await refused(it) == (
        "'3b' is not a square on the board: use a column A–E and a row 1–5, like C3. Did you mean B3?"
    )
    # a bidi override typed in front would reverse the rest of the refusal on screen: the refusal drops it
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="\u202e3b\u2066")
    assert await refused(it) == (
        "'3b' is not a square on the board: use a column A–E and a row 1–5, like C3. Did you mean B3?"
    )
    await resign(emu, world.ann, world.channel)
    await hong_game(emu, world)
    free = hong.from_dict((await GameStore(redis).get(world.channel)).record.state).empty_squares()[3]
    wide = "".join(chr(ord(ch) + 0xFEE0) for ch in free.lower())
    posted = await play(emu, world, world.ann, "hong place", square=wide)
    assert posted.content.startswith(f"{display(world.ann)} played `{free}H`")
    it = await emu.slash(world.ben, world.channel, "hong place", square=free[1] + free[0])
    assert await refused(it) == (
        f"'{free[1] + free[0]}' is not a square: give a column letter and a row number, like C4. Did you mean {free}?"
    )
    assert emu.errors == []


# --- 6. a Hong base game decided early ----------------------------------------------------------------------------

#: On the inner board with the seed the running bot draws first (577090037), the dragon master reaches the 11 Hongs
#: with 22 spaces left (found by a search of playouts; without the expansion nothing can undo a Hong after that).
DECIDED = [
    "G3V",
    "C3H",
    "D4V",
    "C1H",
    "E3V",
    "F3H",
    "C2V",
    "E2V",
    "D7H",
    "D2H",
    "B3V",
    "D3V",
    "A2H",
    "D5H",
    "B7V",
    "D6V",
    "F5H",
    "F4V",
    "C5H",
    "C4V",
    "B5V",
    "E5V",
    "E4H",
    "E6H",
]


async def test_a_decided_hong_game_ends_and_says_why(emu, world, running, redis):
    users = await hong_game(emu, world)
    for n, move in enumerate(DECIDED):
        posted = await hong_move(emu, world, users[n % 2], move)
    assert posted.content.split("\n")[1:] == [
        f"**Game over.** {display(world.ben)} (dragon master) wins. Decided: 11/11 Hongs with 22 spaces left — "
        "nothing can undo a Hong without the expansion.",
        f"{mention(world.ann)} {mention(world.ben)} — thanks for playing!",
    ]
    assert await GameStore(redis).get(world.channel) is None
    assert emu.errors == []


# --- 10. posts say what happened --------------------------------------------------------------------------------


async def test_a_post_names_the_capture_the_seal_and_the_lead(emu, world, running):
    await hongkong_game(emu, world)
    ann, ben = display(world.ann), display(world.ben)
    posted = await play(emu, world, world.ann, "hongkong place", square="B2")
    assert posted.content.startswith(f"{ann} played `S@B2`: {ann} takes the lead, 1–0.\nBuildings: {ann} 1 – {ben} 0\n")
    posted = await play(emu, world, world.ben, "hongkong place", square="C2", quick="C2")
    assert posted.content.startswith(
        f"{ben} played `Q@C2 S@C2`: level at 1–1 (the centre C3 is empty: a tie would be a draw).\n"
    )
    posted = await play(emu, world, world.ann, "hongkong place", square="E5")
    posted = await play(emu, world, world.ben, "hongkong place", square="B2", piece="roof", quick="B2")
    assert posted.content.startswith(
        f"{ben} played `Q@B2 R@B2`: captured {ann}'s building on B2 and sealed it with a "
        f"roof; {ben} takes the lead, 2–1.\n"
    )
    posted = await play(emu, world, world.ann, "hongkong place", square="A5")
    assert posted.content.startswith(
        f"{ann} played `S@A5`: level at 2–2 (the centre C3 is empty: a tie would be a draw).\n"
    )
    assert emu.errors == []


# --- 11. against the computer, one board a round ----------------------------------------------------------------


async def test_one_board_a_round_against_the_computer(emu, world, running, redis):
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=emu.bot_user, level="easy")
    start = (await it.wait_followups(1))[0]
    assert start.attachments  # the empty board, Ann to move
    store = GameStore(redis)
    for square in ("A1", "A2", "A3"):
        replies = len([m for m in emu.messages(world.channel) if m.interaction_id is None])
        posted = await play(emu, world, world.ann, "hongkong place", square=square)
        assert posted.attachments == []  # the move as text: its board comes with the computer's reply
        assert posted.content.startswith(f"{display(world.ann)} played `S@{square}`")
        assert posted.content.endswith("\nComputer (orange) is thinking…")
        reply = await emu.wait_for_message(
            world.channel,
            lambda m: (
                m.interaction_id is None
                and len([x for x in emu.messages(world.channel) if x.interaction_id is None]) > replies
            ),
        )
        assert reply.content.startswith("Computer played `") and reply.attachments
        deadline = (await store.get(world.channel)).record.deadline
        turn = re.search(r"\n(<@\d+>), your turn \(blue\)\. Time runs out <t:(\d+):R>\.$", reply.content)
        assert turn and turn[1] == mention(world.ann) and abs(int(turn[2]) - deadline) <= 2, reply.content
        decode_png(reply.attachments[0].data)
    boards = [m for m in emu.messages(world.channel) if m.attachments]
    assert len(boards) == 1 + 3  # the start, then one a round
    assert len(hk.from_dict((await store.get(world.channel)).record.state).moves) == 6
    assert emu.errors == []


async def test_help_says_how_to_start_lists_every_command_and_invites(emu, world, running):
    """/help, privately: what the bot does, how to start a game, every command the tree has (by its mention, with
    its description in the reader's language), and the invite link with the permissions README.md lists."""
    it = await emu.slash(world.cleo, world.channel, "help")
    shown = await it.wait_done()
    assert shown.ephemeral and shown.visible_to == int(world.cleo["id"])
    embed = shown.embeds[0]
    assert embed["title"] == "How to play here"
    games = sorted(all_kinds().items())  # every hosted game, however many
    titles = [f"**{kind.title}**" for _, kind in games]
    starts = [emu.mention(world.guild, f"{name} challenge") for name, _ in games]
    assert embed["description"].startswith(
        f"I host board games for two players here: {', '.join(titles[:-1])} and {titles[-1]}."
    )
    assert f"**Start a game** with {', '.join(starts[:-1])} or {starts[-1]}: name an `opponent`" in embed["description"]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert list(fields)[: len(games)] == [f"/{name}" for name, _ in games]  # the games first
    listed = "\n".join(fields.values())
    synced = emu.commands + emu.guild_commands.get(world.guild, [])
    paths = [f"{c['name']} {o['name']}" for c in synced for o in c.get("options", []) if o["type"] == 1]
    paths += [c["name"] for c in synced if not any(o["type"] == 1 for o in c.get("options", []))]
    assert len(paths) >= 18 and "help" in paths and "game abort" in paths
    for path in paths:
        assert emu.mention(world.guild, path) + " — " in listed, path
    assert f"{emu.mention(world.guild, 'hong place')} — Place a tile on an empty space" in fields["/hong"]
    # 1024 (View Channel) + 2048 (Send Messages) + 16384 (Embed Links) + 32768 (Attach Files) + 65536 (Read Message
    # History) + 2**34 (Manage Threads) + 2**35 (Create Public Threads) + 2**38 (Send Messages in Threads)
    permissions = 1024 + 2048 + 16384 + 32768 + 65536 + 2**34 + 2**35 + 2**38
    assert fields["Invite"] == (
        f"[Add me to another server](https://discord.com/oauth2/authorize?client_id="
        f"{emu.application_id}&scope=bot+applications.commands&permissions={permissions})"
    )
    # in the reader's language: German names and descriptions
    emu.set_locale(world.cleo, "de")
    it = await emu.slash(world.cleo, world.channel, "help")
    german = (await it.wait_done()).embeds[0]
    assert german["title"] == "So wird hier gespielt" and german["fields"][-1]["name"] == "Einladen"
    assert (
        f"{emu.mention(world.guild, 'hong board')} — Aktuelles Spielbrett der Partie in diesem Kanal zeigen (für alle)"
    ) in german["fields"][0]["value"]
    assert emu.errors == []


async def test_every_image_has_alt_text(emu, world, running, redis):
    """A screen reader (or a client that can't show the image) reads what the board shows: the game, the turn, the
    score, whose turn it is — or how the game ended; a replay says what it replays."""
    await hongkong_game(emu, world)
    ann, ben = display(world.ann), display(world.ben)
    posted = await play(emu, world, world.ann, "hongkong place", square="A1")
    assert posted.attachments[0].description == (
        f"Hong Kong board, turn 2. Buildings: {ann} 1 – {ben} 0. {ben} (orange) to move."
    )
    it = await emu.slash(world.cleo, world.channel, "hongkong board", ephemeral=True)
    assert (await it.wait_done()).attachments[0].description == posted.attachments[0].description
    final = await resign(emu, world.ben, world.channel)
    assert final.attachments[0].description == (
        f"Hong Kong board, turn 2. Buildings: {ann} 1 – {ben} 0. {ben} resigned: {ann} wins."
    )
    gid = final.button("Replay")["custom_id"].split(":")[-1]
    await emu.wait_for_message(world.channel, lambda m: m.content.startswith("📈"))  # recorded and rated
    it = await emu.slash(world.cleo, world.channel, "replay", game=gid)
    replay = (await it.wait_followups(1))[0]
    assert replay.attachments[0].description == (
        f"Animated replay of Hong Kong, {ann} vs {ben}, 1 move. {ben} resigned: {ann} wins."
    )
    # the Replay button works at once, before the index that finds a game in any channel is written (here: removed)
    await redis.hdel(GAME_INDEX, gid)
    click = await emu.click(world.cleo, final, final.button("Replay")["custom_id"])
    assert (await click.wait_followups(1))[0].attachments[0].filename.endswith(".gif")
    assert emu.errors == []


async def test_a_double_click_on_accept_starts_one_game_and_refuses_nothing(emu, world, running, redis):
    """Two presses of Accept by the same person, the second before the first is answered: one game, one board, and
    no "changed at the same moment" for the press that lost the race."""
    message = await challenge(emu, world, "hongkong challenge", world.ben)
    accept_id = message.button("Accept")["custom_id"]
    first, second = await asyncio.gather(
        emu.click(world.ben, message, accept_id), emu.click(world.ben, message, accept_id)
    )
    await asyncio.sleep(1.0)
    boards = [m for m in emu.messages(world.channel) if "the game begins" in m.content]
    assert len(boards) == 1 and (await GameStore(redis).get(world.channel)).record.status.value == "active"
    told = [m.content for it in (first, second) for m in it.messages if m.ephemeral]
    assert told == [], told
    assert emu.errors == []
