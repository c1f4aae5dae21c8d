"""End to end: the real bot, through the local Discord emulator, with a real Redis — Hong Kong."""

from __future__ import annotations

import random

import pytest

import engine.hongkong as hk
from bot.storage.store import GameStore
from render.common import PLAYER_COLOURS

from tests.bot.harness import decode_png, display, place_options, refused, resign, start_bot

pytestmark = pytest.mark.timeout(240)


async def challenge_and_accept(emu, world, first="me"):
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben, first=first)
    challenge = await it.wait_done()
    assert not it.ephemeral
    assert f"<@{world.ben['id']}>" in challenge.content and "Hong Kong" in challenge.content
    accept = challenge.button("Accept")
    click = await emu.click(world.ben, challenge, accept["custom_id"])
    first_board = (await click.wait_followups(1))[0]
    assert "the game begins" in first_board.content
    decode_png(first_board.attachments[0].data)
    # the challenge message lost its buttons once accepted
    assert challenge.buttons() == []
    return first_board


async def play_turn(emu, world, user, turn: str):
    it = await emu.slash(user, world.channel, "hongkong place", **place_options(turn))
    posted = (await it.wait_followups(1))[0]
    assert not it.ephemeral, posted.content
    assert f"`{turn}`" in posted.content
    image = decode_png(posted.attachments[0].data)
    assert image.width >= 600
    return posted


async def test_complete_game_to_the_end(emu, world, running):
    await challenge_and_accept(emu, world)
    game = hk.new_game(0)
    rng = random.Random(11)
    users = [world.ann, world.ben]
    posted = None
    while not game.is_over:
        turn = rng.choice(game.legal_moves())
        posted = await play_turn(emu, world, users[game.to_move], turn)
        game.play(turn)
        if not game.is_over:
            assert f"<@{users[game.to_move]['id']}>, your turn" in posted.content
    outcome = game.outcome
    assert "Game over" in posted.content
    b0, b1 = outcome.buildings
    if outcome.winner is None:
        assert "Draw" in posted.content
    else:
        assert f"{display(users[outcome.winner])} wins" in posted.content
        assert f"{max(b0, b1)}–{min(b0, b1)}" in posted.content
    # every board the bot posted in the channel decodes
    pngs = [a for m in emu.messages(world.channel) for a in m.attachments]
    assert len(pngs) == len(game.moves) + 1
    for attachment in pngs:
        decode_png(attachment.data)
    # the channel is free again
    it = await emu.slash(world.cleo, world.channel, "hongkong board")
    assert "no game running" in await refused(it)
    assert emu.errors == []


async def test_spectator_sees_the_board_but_cannot_move(emu, world, running, redis):
    await challenge_and_accept(emu, world)
    await play_turn(emu, world, world.ann, "Q@B2 S@B3")
    it = await emu.slash(world.cleo, world.channel, "hongkong board")
    shown = await it.wait_done()
    assert not it.ephemeral
    deadline = int((await GameStore(redis).get(world.channel)).record.deadline)
    assert shown.content.startswith(
        f"**Hong Kong**: {display(world.ann)} vs {display(world.ben)}, turn 2 — "
        f"{display(world.ben)} (orange) to move. Time runs out <t:{deadline}:R>.\n"
    )
    decode_png(shown.attachments[0].data)
    it = await emu.slash(world.cleo, world.channel, "hongkong place", square="A1")
    assert "not playing in this game" in await refused(it)
    assert emu.errors == []


async def test_bot_restart_continues_the_game(emu, world, redis_server, redis):
    first = await start_bot(emu, redis_server, guild=world.guild)
    await challenge_and_accept(emu, world)
    await play_turn(emu, world, world.ann, "S@A1")
    await play_turn(emu, world, world.ben, "R@E5")
    await first.stop()
    second = await start_bot(emu, redis_server, guild=world.guild)
    try:
        await play_turn(emu, world, world.ann, "Q@A2 S@A1")
        stored = await GameStore(redis).get(world.channel)
        assert stored.record.state["moves"] == ["S@A1", "R@E5", "Q@A2 S@A1"]
    finally:
        await second.stop()
    assert emu.errors == []


async def test_challenge_buttons_only_for_the_opponent_and_decline(emu, world, running):
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
    challenge = await it.wait_done()
    click = await emu.click(world.cleo, challenge, challenge.button("Accept")["custom_id"])
    assert f"Only {display(world.ben)} can accept" in await refused(click)
    click = await emu.click(world.ben, challenge, challenge.button("Decline")["custom_id"])
    await click.wait_done()
    assert "declined" in challenge.content and challenge.buttons() == []
    # a declined challenge frees the channel
    it = await emu.slash(world.cleo, world.channel, "hongkong challenge", opponent=world.ann)
    await it.wait_done()
    assert not it.ephemeral


async def test_challenge_expires_and_says_so(emu, world, redis_server, redis):
    bot = await start_bot(emu, redis_server, guild=world.guild, challenge_timeout=1.0)
    try:
        it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben)
        challenge = await it.wait_done()
        expires = int((await GameStore(redis).get(world.channel)).record.expires)
        assert f"This challenge expires <t:{expires}:R>." in challenge.content
        await emu.wait_for_message(world.channel, lambda m: m.id == challenge.id and "expired" in m.content, timeout=10)
        assert challenge.buttons() == []
        assert await GameStore(redis).get(world.channel) is None
    finally:
        await bot.stop()


async def test_autocomplete_offers_only_legal_squares(emu, world, running):
    await challenge_and_accept(emu, world)
    choices = await emu.autocomplete(world.ann, world.channel, "hongkong place", focused="square", square="")
    values = [c["value"] for c in choices]
    assert len(values) == 24 and "C3" not in values  # the centre ban on the first turn
    choices = await emu.autocomplete(world.ann, world.channel, "hongkong place", focused="square", square="c")
    assert [c["value"] for c in choices] == ["C1", "C2", "C4", "C5"]
    # nothing to offer → the one choice says why (picked anyway, the command refuses with the same reason)
    ann, ben = display(world.ann), display(world.ben)
    for user, typed, why in (
        (world.ben, "", f"It's not your turn: {ann} (blue) is to move."),
        (world.cleo, "b2", f"You're not playing in this game ({ann} vs {ben})."),
    ):
        choices = await emu.autocomplete(user, world.channel, "hongkong place", focused="square", square=typed)
        assert choices == [{"name": why, "value": typed or "?"}], choices
    it = await emu.slash(world.ben, world.channel, "hongkong place", square="?")
    assert await refused(it) == f"It's not your turn: {ann} (blue) is to move."


async def test_quick_block_autocomplete_after_roof(emu, world, running):
    await challenge_and_accept(emu, world)
    await play_turn(emu, world, world.ann, "R@A1")
    choices = await emu.autocomplete(
        world.ben, world.channel, "hongkong place", focused="square", square="a", piece="roof"
    )
    assert "A1" not in [c["value"] for c in choices]  # nothing goes on a roof


BAD_INPUT = [
    # (who, command, options, expected words)
    ("ben", "hongkong place", {"square": "A1"}, "not your turn"),
    ("cleo", "hongkong place", {"square": "A1"}, "not playing in this game"),
    ("ann", "hongkong place", {"square": "C3"}, "centre plot C3"),
    ("ann", "hongkong place", {"square": "Z9"}, "'Z9' is not a square"),
    ("ann", "hongkong place", {"square": "A1", "quick": "A9"}, "'A9' is not a square"),
    ("ann", "hongkong place", {"square": "B1", "piece": "roof", "quick": "C3"}, "centre plot C3"),
    ("cleo", "hongkong challenge", {"opponent": "ann"}, "already running in this channel"),
    ("ann", "hongkong challenge", {"opponent": "ann"}, "can't challenge yourself"),
]


@pytest.mark.parametrize("who, command, options, expected", BAD_INPUT)
async def test_bad_input_is_refused_ephemerally_and_changes_nothing(
    emu, world, running, redis, who, command, options, expected
):
    await challenge_and_accept(emu, world)
    before = await GameStore(redis).raw(world.channel)
    messages_before = len(emu.messages(world.channel))
    options = {k: (getattr(world, v) if k == "opponent" else v) for k, v in options.items()}
    it = await emu.slash(getattr(world, who), world.channel, command, **options)
    assert expected in await refused(it)
    assert await GameStore(redis).raw(world.channel) == before
    assert len(emu.messages(world.channel)) == messages_before
    assert emu.errors == []


async def test_no_game_here_and_no_quick_blocks_left(emu, world, running, redis):
    it = await emu.slash(world.ann, world.other_channel, "hongkong place", square="A1")
    assert "no game running in this channel" in await refused(it)
    it = await emu.slash(world.ann, world.other_channel, "hongkong resign")
    assert "no game running in this channel" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ann)
    assert "challenge yourself" in await refused(it)
    other_bot = emu.create_user("otherbot", bot=True)
    emu.add_member(world.guild, other_bot)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=other_bot)
    assert "is a bot" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "hongkong challenge", opponent=world.ben, level="hard")
    assert "`level` is for games against the computer" in await refused(it)
    await challenge_and_accept(emu, world)
    ann_plots, ben_plots = ["A1", "A2", "B1", "A3", "B2"], ["E5", "E4", "D5", "E3", "D4"]
    for a, b in zip(ann_plots, ben_plots):
        await play_turn(emu, world, world.ann, f"Q@{a} S@{a}")
        await play_turn(emu, world, world.ben, f"Q@{b} S@{b}")
    before = await GameStore(redis).raw(world.channel)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="C1", quick="C2")
    assert "no quick blocks left" in await refused(it)
    it = await emu.slash(world.ann, world.channel, "hongkong place", square="E5")
    assert "belongs to your opponent" in await refused(it)
    assert await GameStore(redis).raw(world.channel) == before
    assert emu.errors == []


async def test_resign_ends_the_game(emu, world, running, redis):
    await challenge_and_accept(emu, world)
    await play_turn(emu, world, world.ann, "S@A1")  # Ben to move: the board's band would be his orange
    posted = await resign(emu, world.ben, world.channel)
    assert "Game over" in posted.content and f"{display(world.ann)} wins" in posted.content
    assert await GameStore(redis).get(world.channel) is None
    # the final image shows the result ("Ann wins", her blue), not "Ben to move"
    band = decode_png(posted.attachments[0].data).convert("RGB").getpixel((4, 4))
    assert band == PLAYER_COLOURS[0]


async def test_the_token_never_reaches_the_logs(emu, world, redis_server, redis, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    bot = await start_bot(emu, redis_server, guild=world.guild)
    try:
        await challenge_and_accept(emu, world)
        await play_turn(emu, world, world.ann, "S@A1")
    finally:
        await bot.stop()
    assert len(caplog.records) > 20  # debug logging really was on
    secret = emu.token.split(".", 1)[1]
    assert secret not in caplog.text
