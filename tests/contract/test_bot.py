"""Every game in the bot (its bot/games/<NAME>.py): a GameKind that pairs the engine module with its renderer, whose
functions answer for any position, whose commands can play every legal move; and, through the local Discord emulator
with a real Redis, a game played to its end by slash commands (then its replay and its record), and a game resigned.
Nothing here names a game (tests/contract/games.py finds them)."""

from __future__ import annotations

import inspect
import io
import pickle
import random

import pytest
from PIL import Image

from bot.storage.store import GameStore
from engine import registry
from engine.movetext import parse_record
from render.contract import Renderer
from tests.bot.harness import decode_png, display, resign
from tests.bot.shared import emu, redis, running, world  # noqa: F401  (one emulator and bot for the module)
from bot.core.invocation import invocation
from tests.contract.games import DEFAULTS, GAMES, LESSONS, SETUPS, Setup, fresh, ids, kind, play_on

NAMES = ("Ann", "Ben")


# --- the kind ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LESSONS)
def test_a_lessons_script_is_legal_and_each_right_move_does_what_its_step_says(name):
    from bot.core.lessons import problems

    assert problems(kind(name).engine, kind(name).lesson) == []


@pytest.mark.parametrize("name", GAMES)
def test_every_game_has_a_kind_that_pairs_its_engine_and_renderer(name):
    k = kind(name)
    assert k.name == name == k.engine.NAME and k.engine is registry.find(name).module
    assert (
        isinstance(k.render, Renderer)
        and pickle.loads(pickle.dumps(k.render)).palette.colours == k.render.palette.colours
    )
    assert k.title and len(k.roles) == 2 and all(k.roles) and k.role(0) != k.role(1)
    assert k.moves and len({m.name for m in k.moves}) == len(k.moves)
    for command in k.moves:  # every option explained, autocomplete only for options there are
        options = set(inspect.signature(command.notation).parameters)
        assert set(command.help) == options and set(command.autocomplete) <= options, command.name
    assert set(k.challenge_help) == set(inspect.signature(k.challenge).parameters)


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_the_kinds_functions_answer_for_any_position(setup):
    k = kind(setup.name)
    seat, options = k.seat_options(k.challenge(**dict(setup.challenge)), random.Random(1))
    assert seat in (0, 1) and k.new_game(options).to_dict() == setup.new_game(1).to_dict()
    assert isinstance(k.describe_options(options), str)
    swap, again = k.rematch(options, random.Random(2))
    assert isinstance(swap, bool) and k.new_game(again).moves == []
    game = fresh(setup, 1)
    assert k.turn_number(game) == 1 and isinstance(k.score(game, NAMES), str)
    rng, turns = random.Random(1), [1]
    while not game.is_over:
        play_on(game, rng, 1)
        assert isinstance(k.describe_move(game, NAMES), str) and isinstance(k.score(game, NAMES), str)
        turns.append(k.turn_number(game))
        assert k.turn_number(k.load(game.to_dict(), replay=False)) == turns[-1]  # from the move list alone
    assert turns == sorted(turns) and turns[-1] > 1
    assert k.result(game, NAMES) and isinstance(k.result(game, NAMES), str)


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_every_legal_move_can_be_played_by_a_command(setup):
    """The move commands' options, picked from their choices and the autocomplete, reach every legal move (a sample
    of each position of a game)."""
    k, game, rng = kind(setup.name), fresh(setup, 2), random.Random(2)
    while not game.is_over:
        legal = list(game.legal_moves())
        for move in rng.sample(legal, min(8, len(legal))):
            name, options = invocation(k, game, move)
            command = next(c for c in k.moves if c.name == name)
            copy = game.copy()
            copy.play(command.notation(**options))
            assert copy.moves[-1] == move
        play_on(game, rng, 1)


# --- through Discord --------------------------------------------------------------------------------


async def challenge_and_accept(emu, world, redis, setup: Setup):
    """Ann challenges Ben to ``setup``'s game; Ben accepts. Returns the game (as the engine has it, from the
    store), its id, and the players by seat."""
    it = await emu.slash(
        world.ann, world.channel, f"{setup.name} challenge", opponent=world.ben, **dict(setup.challenge)
    )
    challenge = await it.wait_done()
    assert not it.ephemeral and kind(setup.name).title in challenge.content
    click = await emu.click(world.ben, challenge, challenge.button("Accept")["custom_id"])
    first = (await click.wait_followups(1))[0]
    decode_png(first.attachments[0].data)
    record = (await GameStore(redis).get(world.channel)).record
    users = {int(world.ann["id"]): world.ann, int(world.ben["id"]): world.ben}
    seats = [users[record.player(seat).id] for seat in (0, 1)]
    game = registry.load(record.state)
    assert f"<@{seats[game.to_move]['id']}>, your turn" in first.content
    return game, record.id, seats


async def play(emu, world, setup: Setup, game, seats, move: str):
    """The player to move plays ``move`` by the command that writes it; returns the post."""
    name, options = invocation(kind(setup.name), game, move)
    it = await emu.slash(seats[game.to_move], world.channel, f"{setup.name} {name}", **options)
    posted = (await it.wait_followups(1))[0]
    assert not it.ephemeral, posted.content
    assert f"`{move}`" in posted.content
    decode_png(posted.attachments[0].data)
    game.play(move)
    return posted


@pytest.mark.timeout(300)
@pytest.mark.asyncio(loop_scope="module")  # each game in a channel of its own, against the module's one bot
@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
async def test_a_game_played_to_its_end_through_discord(emu, world, running, redis, setup):
    game, game_id, seats = await challenge_and_accept(emu, world, redis, setup)
    rng, posted = random.Random(3), None
    while not game.is_over:
        posted = await play(emu, world, setup, game, seats, rng.choice(game.legal_moves()))
        if not game.is_over:
            assert f"<@{seats[game.to_move]['id']}>, your turn" in posted.content
    names = (display(seats[0]), display(seats[1]))
    assert f"**Game over.** {kind(setup.name).result(game, names)}" in posted.content  # the game's own words
    if game.winner is not None:
        assert display(seats[game.winner]) in kind(setup.name).result(game, names)
    assert await GameStore(redis).get(world.channel) is None  # the channel is free again
    boards = [a for m in emu.messages(world.channel) for a in m.attachments]
    assert len(boards) == len(game.moves) + 1 and all(decode_png(a.data) for a in boards)
    # the final board's Replay: one frame per move and the opening
    click = await emu.click(world.cleo, posted, posted.button("Replay")["custom_id"])
    gif = (await click.wait_followups(1, timeout=60))[0].attachments[0]
    assert Image.open(io.BytesIO(gif.data)).n_frames == len(game.moves) + 1
    # the record, played again through the engine, is the game
    it = await emu.slash(world.cleo, world.channel, "record", game=game_id)
    parsed = parse_record((await it.wait_done()).attachments[0].data.decode("utf-8"))
    replayed = registry.find(setup.name).new_game(**parsed.setup)
    for move in parsed.moves:
        replayed.play(move)
    assert replayed.to_dict() == game.to_dict()
    assert emu.errors == []


@pytest.mark.timeout(300)
@pytest.mark.asyncio(loop_scope="module")  # each game in a channel of its own, against the module's one bot
@pytest.mark.parametrize("setup", DEFAULTS, ids=ids(DEFAULTS))
async def test_a_game_resigned_through_discord(emu, world, running, redis, setup):
    game, game_id, seats = await challenge_and_accept(emu, world, redis, setup)
    rng = random.Random(4)
    for _ in range(3):
        await play(emu, world, setup, game, seats, rng.choice(game.legal_moves()))
    it = await emu.slash(world.cleo, world.channel, f"{setup.name} board")  # a spectator's look
    shown = await it.wait_done()
    names = (display(seats[0]), display(seats[1]))
    assert (
        not it.ephemeral
        and decode_png(shown.attachments[0].data).tobytes()
        == decode_png(kind(setup.name).render.png(game, names)).tobytes()
    )  # the position as the engine has it
    loser = seats[game.to_move]
    final = await resign(emu, loser, world.channel, game=setup.name)
    assert "resigned" in final.content and decode_png(final.attachments[0].data)
    assert await GameStore(redis).get(world.channel) is None
    assert emu.errors == []
