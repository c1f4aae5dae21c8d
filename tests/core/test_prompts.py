"""Who a post addresses: what the player to move must do beyond a move (a game's ``prompt``: Hong's summon) is said
to that player when a person — never to the channel on the computer's behalf (issue 24)."""

from __future__ import annotations

import re

import pytest

import engine.hong as hong
from bot.core.record import Player, Record, Status
from bot.games.hong import HONG, action_help
from bot.interface.posts import status_line

from tests.e2e.test_hong import EXPANSION_SCRIPT, EXPANSION_SEED


def summoning(*, computer: bool) -> tuple[hong.HongGame, Record]:
    """A Hong game whose player to move has just summoned the swap dragon (D1) alone; that seat the computer's
    with ``computer``."""
    game = hong.new_game("inner", expansion=True, seed=EXPANSION_SEED)
    for move in EXPANSION_SCRIPT[: EXPANSION_SCRIPT.index("C3H") + 1]:
        game.play(move)
    assert game.pending is not None and sorted(game.pending.options) == [1]
    seat = game.to_move
    players = [Player(1, "Ann"), Player(2, "Ben")]
    players[seat] = Player(99, "Computer", bot=True, level="easy") if computer else players[seat]
    record = Record(
        id="abcdefgh",
        kind="hong",
        status=Status.ACTIVE,
        guild_id=5,
        channel_id=6,
        challenger=1,
        opponent=players[1].id,
        players=(players[0], players[1]),
        options={},
        state=game.to_dict(),
    )
    return game, record


def test_a_person_summoning_is_told_how_to_carry_out_the_one_dragon():
    game, record = summoning(computer=False)
    example = game.legal_moves()[0]
    name = record.player(game.to_move).shown
    lines = status_line(HONG, game, record).split("\n")
    assert lines[1] == (
        f"🐉 {name} summons a Great Dragon — carry out its action with `/hong dragon`: **D1 swap** — "
        f"{action_help('swap')} e.g. `{example}`"
    )
    assert lines[2] == f"<@{record.player(game.to_move).id}>, your turn ({HONG.role(game.to_move)})."


def test_the_computer_summoning_is_not_the_channels_to_act_on():
    game, record = summoning(computer=True)
    text = status_line(HONG, game, record)
    assert "🐉" not in text and "/hong dragon" not in text
    assert text.split("\n")[1] == f"Computer ({HONG.role(game.to_move)}) is thinking…"


def test_autocomplete_says_why_a_piece_has_nowhere_to_go():
    """The candidates of /hongkong place and /hong place and dragon raise the reason when there is nothing to
    offer (the completer shows it as its one choice)."""
    from types import SimpleNamespace

    import engine.hongkong as hk
    from bot.core.errors import UserError
    from bot.games import hong as hong_commands
    from bot.games import hongkong as hk_commands

    game = hk.new_game()
    block, roof = SimpleNamespace(piece=None, quick=None), SimpleNamespace(piece="roof", quick=None)
    assert len(hk_commands.square_choices(game, block)) == 24
    game.remaining[game.to_move].update(S=0, R=0, Q=0)
    for options, why in (
        (block, "You have no standard blocks left: set `piece` to roof."),
        (roof, "You have no roofs left: set `piece` to block."),
        (SimpleNamespace(piece=None, quick="A1"), "You have no standard blocks left: set `piece` to roof."),
    ):
        with pytest.raises(UserError, match=f"^{re.escape(why)}$"):
            hk_commands.square_choices(game, options)
    with pytest.raises(UserError, match="^You have no quick blocks left.$"):
        hk_commands.quick_choices(game, block)
    game.remaining[game.to_move].update(S=20, Q=5)
    with pytest.raises(UserError, match="^A quick block can't go on C3: choose another `quick`.$"):  # the centre
        hk_commands.square_choices(game, SimpleNamespace(piece=None, quick="C3"))

    summoning_game, _record = summoning(computer=False)
    with pytest.raises(UserError, match="^Carry out the summoned Great Dragon's action first, with `/hong dragon`.$"):
        hong_commands.square_choices(summoning_game, None)
    with pytest.raises(UserError, match="^No Great Dragon is being summoned now: place a tile with `/hong place`.$"):
        hong_commands.action_choices(hong.new_game("inner"), None)


def test_a_reason_is_one_plain_choice():
    from bot.interface.options import reason_choice

    choice = reason_choice("You're not playing in this game (**Ann** vs Ben). Watch with </hongkong board:123>.", "")
    assert (choice.name, choice.value) == ("You're not playing in this game (Ann vs Ben).", "?")
    choice = reason_choice("Carry out its action first, with </hong dragon:9>.", " b2 ")
    assert (choice.name, choice.value) == ("Carry out its action first, with /hong dragon.", "b2")
    assert len(reason_choice("x" * 300, "y" * 300).name) == 100 and len(reason_choice("x", "y" * 300).value) == 100


#: Found by random playouts on the inner board with the lair (seed 7): after these moves the count is at the
#: threshold (11) with spaces still empty — the game goes on, as it must with the expansion (rules, "Decided early").
AT_THRESHOLD = [
    "B2V",
    "F6H",
    "E1H",
    "F3H",
    "D2V",
    "D6V",
    "A6V",
    "E6H",
    "D5H",
    "D3H",
    "A2H",
    "D7H",
    "D1 movestone C2 D1",
    "G5V",
    "A7V",
    "A1H",
    "F5H",
    "C4H",
    "A3V",
    "B7H",
    "F7V",
    "G2H",
    "E5V",
    "G1H",
    "B4H",
    "B1V",
    "C1V",
    "F1V",
    "E7H",
    "C2H",
    "B6H",
    "D4V",
    "F4V",
    "G6V",
    "D2 flip B1",
    "B5H",
    "C3V",
    "C5H",
    "C6V",
    "G7V",
    "E3V",
    "B3V",
    "F2V",
    "A4V",
    "C7V",
]


def test_a_count_at_the_threshold_with_the_expansion_says_why_play_goes_on_once():
    from bot.games.hong import describe_move, score

    caveat = "Great Dragons can still break Hongs"
    game = hong.new_game("inner", expansion=True, seed=7)
    for move in AT_THRESHOLD[:-1]:
        game.play(move)
        assert caveat not in describe_move(game, ("Ann", "Ben"))
    game.play(AT_THRESHOLD[-1])
    assert not game.is_over and game.hong_count() >= game.threshold == 11
    said = describe_move(game, ("Ann", "Ben"))
    assert said.endswith(
        "; enough for the dragon master now, but Great Dragons can still break Hongs: the count that decides is the "
        "one when the board is full"
    )
    assert (
        score(game, ("Ann", "Ben"))
        == f"Hongs {game.hong_count()} / 11 (inner, {len(game.empty_squares())} spaces left)"
    )
    # every later move: said again only by a move that takes the count back up to the threshold
    seen = 0
    while not game.is_over:
        before = game.hong_count()
        game.play(game.legal_moves()[0])
        crossed = before < game.threshold <= game.hong_count()
        assert (caveat in describe_move(game, ("Ann", "Ben"))) == crossed
        assert caveat not in score(game, ("Ann", "Ben"))
        seen += game.hong_count() >= game.threshold and not crossed
    assert seen  # (posts at the threshold that don't repeat it)


def test_hongs_are_listed_as_the_language_lists_things():
    from bot import i18n
    from bot.games.hong import _spans

    hongs = [
        hong.Hong("H", ("C4",), 1, ("B4", "D4")),
        hong.Hong("H", ("E4", "F4"), 2, ("D4", "G4")),
        hong.Hong("V", ("D4", "D5"), 2, ("D3", "D6")),
    ]
    assert _spans(hongs[:1]) == "1 at C4"
    assert _spans(hongs[:2]) == "1 at C4 and 2 at E4–F4"
    assert _spans(hongs) == "1 at C4, 2 at E4–F4 and 2 at D4–D5"  # not "… and … and …"
    with i18n.language("de"):
        assert _spans(hongs) == "Größe 1 auf C4, Größe 2 auf E4–F4 und Größe 2 auf D4–D5"
