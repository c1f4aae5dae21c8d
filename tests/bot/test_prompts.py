"""Who a post addresses: what the player to move must do beyond a move (a game's ``prompt``: Hong's summon) is said
to that player when a person — never to the channel on the computer's behalf (issue 24)."""
from __future__ import annotations

import engine.hong as hong
from bot.core.record import Player, Record, Status
from bot.games.hong import HONG, action_help
from bot.interface.posts import status_line

from .test_e2e_hong import EXPANSION_SCRIPT, EXPANSION_SEED


def summoning(*, computer: bool) -> tuple[hong.HongGame, Record]:
    """A Hong game whose player to move has just summoned the swap dragon (D1) alone; that seat the computer's
    with ``computer``."""
    game = hong.new_game("inner", expansion=True, seed=EXPANSION_SEED)
    for move in EXPANSION_SCRIPT[:EXPANSION_SCRIPT.index("C3H") + 1]:
        game.play(move)
    assert game.pending is not None and sorted(game.pending.options) == [1]
    seat = game.to_move
    players = [Player(1, "Ann"), Player(2, "Ben")]
    players[seat] = Player(99, "Computer", bot=True, level="easy") if computer else players[seat]
    record = Record(id="abcdefgh", kind="hong", status=Status.ACTIVE, guild_id=5, channel_id=6, challenger=1,
                    opponent=players[1].id, players=(players[0], players[1]), options={}, state=game.to_dict())
    return game, record


def test_a_person_summoning_is_told_how_to_carry_out_the_one_dragon():
    game, record = summoning(computer=False)
    example = game.legal_moves()[0]
    name = record.player(game.to_move).shown
    lines = status_line(HONG, game, record).split("\n")
    assert lines[1] == (f"🐉 {name} summons a Great Dragon — carry out its action with `/hong dragon`: **D1 swap** — "
                        f"{action_help('swap')} e.g. `{example}`")
    assert lines[2] == f"<@{record.player(game.to_move).id}>, your turn ({HONG.role(game.to_move)})."


def test_the_computer_summoning_is_not_the_channels_to_act_on():
    game, record = summoning(computer=True)
    text = status_line(HONG, game, record)
    assert "🐉" not in text and "/hong dragon" not in text
    assert text.split("\n")[1] == f"Computer ({HONG.role(game.to_move)}) is thinking…"
