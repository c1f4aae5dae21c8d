"""End to end: the real bot, through the local Discord emulator, with a real Redis — Hong (and its expansion)."""

from __future__ import annotations

import random

import pytest

import engine.hong as hong
from bot.games.hong import action_help
from bot.storage.store import GameStore

from tests.bot.harness import decode_png, display, refused

pytestmark = pytest.mark.timeout(300)

# With the bot's rng seeded by random.Random(1), the first Hong challenge with role=emperor draws this seed;
# for it, EXPANSION_SCRIPT (found by a search of random playouts) summons three dragons, with a choice
# between two sizes and a chain of two summons.
EXPANSION_SEED = 577090037
EXPANSION_SCRIPT = [
    "E3V",
    "A4V",
    "G7V",
    "F2V",
    "F7V",
    "D3V",
    "D2H",
    "G3H",
    "B3V",
    "C2H",
    "E1V",
    "E7H",
    "D4V",
    "C5V",
    "B1V",
    "F4V",
    "A2H",
    "B7V",
    "D6V",
    "A6H",
    "A1H",
    "B4V",
    "E2V",
    "F1V",
    "G4H",
    "B6H",
    "G5V",
    "C3H",
    "D1 swap C3 C6 V",
    "F5H",
    "A5H",
    "D7V",
    "C7H",
    "G6H",
    "D5V",
    "E6H",
    "E4V",
    "C4V",
    "E5V",
    "B5H",
    "F6H",
    "C1V",
    "A3V",
    "D2 rotate D7",
    "D4 place A7V",
    "B2H",
    "F3V",
    "D1H",
]


async def start_hong(emu, world, **options):
    it = await emu.slash(world.ann, world.channel, "hong challenge", opponent=world.ben, role="emperor", **options)
    challenge = await it.wait_done()
    assert not it.ephemeral and "**Hong**" in challenge.content
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    first = (await click.wait_followups(1))[0]
    decode_png(first.attachments[0].data)
    assert f"<@{world.ann['id']}>, your turn (emperor)" in first.content
    return first


def is_action(move: str) -> bool:
    """A dragon action (``D2 rotate C4``) rather than a placement (``D7V``)."""
    return " " in move


async def send_move(emu, world, user, move: str):
    if is_action(move):
        it = await emu.slash(user, world.channel, "hong dragon", action=move)
    else:
        options = {"square": move[:-1]}
        if move[-1] == "V":
            options["rotate"] = True
        it = await emu.slash(user, world.channel, "hong place", **options)
    posted = (await it.wait_followups(1))[0]
    assert not it.ephemeral, posted.content
    assert f"`{move}`" in posted.content
    decode_png(posted.attachments[0].data)
    return posted


async def play_out(emu, world, redis, rng: random.Random):
    """Play random legal moves through slash commands until the game ends; returns the engine game and last post."""
    stored = await GameStore(redis).get(world.channel)
    game = hong.from_dict(stored.record.state)
    users = [world.ann, world.ben]
    posted = None
    while not game.is_over:
        move = rng.choice(game.legal_moves())
        posted = await send_move(emu, world, users[game.to_move], move)
        game.play(move)
    return game, posted


@pytest.mark.parametrize("board, spaces", [("castle", 69), ("garden", 66), ("inner", 49)])
async def test_complete_game_on_every_board(emu, world, running, redis, board, spaces):
    await start_hong(emu, world, board=board)
    game, posted = await play_out(emu, world, redis, random.Random(board))
    outcome = game.outcome
    assert len(game.moves) == spaces - 3 - outcome.spaces_left  # played to the end: board full, or decided early
    winner = [world.ann, world.ben][outcome.winner]
    role = hong.ROLE_NAMES[outcome.winner]
    assert f"**Game over.** {display(winner)} ({role}) wins" in posted.content
    if outcome.spaces_left:
        assert f"Decided: {outcome.hongs}/{outcome.threshold} Hongs with {outcome.spaces_left} space" in posted.content
    else:
        assert f"wins: {outcome.hongs} Hong" in posted.content and f", {outcome.threshold} needed." in posted.content
    assert await GameStore(redis).get(world.channel) is None
    assert emu.errors == []


async def test_spectator_board_and_refusals(emu, world, running, redis):
    await start_hong(emu, world, board="garden")
    store = GameStore(redis)
    game = hong.from_dict((await store.get(world.channel)).record.state)
    taken, free, stone = game.empty_squares()[0], game.empty_squares()[1], game.stones[0]
    await send_move(emu, world, world.ann, f"{taken}H")
    it = await emu.slash(world.cleo, world.channel, "hong board")
    shown = await it.wait_done()
    assert not it.ephemeral and "Hongs 0 / 13" in shown.content
    decode_png(shown.attachments[0].data)
    before = await store.raw(world.channel)
    cases = [
        (world.ben, {"square": taken}, taken),  # a filled square
        (world.ben, {"square": stone}, stone),  # a stone
        (world.ben, {"square": "D3"}, "D3"),  # a tree: no space there
        (world.ben, {"square": "A1"}, "A1"),  # a corner outside the outline
        (world.ben, {"square": "J9"}, "J9"),  # off the board
        (world.ben, {"square": "hello"}, "hello"),  # not a square
        (world.ann, {"square": free}, "not your turn"),
        (world.cleo, {"square": free}, "not playing in this game"),
    ]
    for user, options, expected in cases:
        it = await emu.slash(user, world.channel, "hong place", **options)
        assert expected in await refused(it)
    it = await emu.slash(world.ben, world.channel, "hong dragon", action=f"D2 rotate {taken}")
    assert "without the lair of the Great Dragons" in await refused(it)
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="A1")
    assert "The game in this channel is Hong" in await refused(it)
    assert await store.raw(world.channel) == before
    assert emu.errors == []


async def test_autocomplete_lists_empty_squares(emu, world, running):
    await start_hong(emu, world, board="inner")
    await send_move(emu, world, world.ann, "B2H")
    choices = await emu.autocomplete(world.ben, world.channel, "hong place", focused="square", square="b")
    values = [c["value"] for c in choices]
    assert "B2" not in values and values and all(v.startswith("B") for v in values)
    everything = await emu.autocomplete(world.ben, world.channel, "hong place", focused="square", square="")
    assert len(everything) == 25  # 45 empty spaces, capped at Discord's 25


async def test_scripted_expansion_game(emu, world, running, redis):
    await start_hong(emu, world, board="inner", expansion=True)
    stored = await GameStore(redis).get(world.channel)
    assert stored.record.options["seed"] == EXPANSION_SEED
    game = hong.from_dict(stored.record.state)
    users = [world.ann, world.ben]
    summoned, choices_seen, chains = [], 0, 0
    previous_was_action = False
    for move in EXPANSION_SCRIPT:
        user = users[game.to_move]
        if game.pending:
            # the player who summons is told what each available dragon does, and autocomplete offers the actions
            offered = await emu.autocomplete(user, world.channel, "hong dragon", focused="action", action="")
            assert move in [c["value"] for c in offered] or len(offered) == 25
            if len(game.pending.options) >= 2:
                choices_seen += 1
            before = await GameStore(redis).raw(world.channel)
            it = await emu.slash(user, world.channel, "hong place", square=game.empty_squares()[0])
            assert "summon" in (await refused(it)).lower()
            assert await GameStore(redis).raw(world.channel) == before
        posted = await send_move(emu, world, user, move)
        if is_action(move):
            summoned.append(move.split()[1])
            chains += previous_was_action
        previous_was_action = is_action(move)
        game.play(move)
        if game.pending:
            assert "summons a Great Dragon" in posted.content
            for size, action in game.pending.options.items():
                assert f"D{size} {action}" in posted.content and action_help(action) in posted.content
                assert f"`D{size} " in posted.content  # a real example with the right size
    assert game.is_over and "Game over" in posted.content
    assert len(set(summoned)) >= 3 and choices_seen >= 1 and chains >= 1
    assert emu.errors == []
