"""Tests for ``engine.hongkong`` against ``shared/rules/hongkong.md`` (the spec).

Positions are built by playing real turns (see :func:`setup`), never by editing the board, so every
test also exercises ``play``. Squares: columns A–E, rows 1–5 top to bottom; C3 is the centre.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from engine import IllegalMove, InvalidState
from engine.hongkong import HongKongGame, from_dict, new_game

SQUARES = [f"{col}{row}" for row in "12345" for col in "ABCDE"]  # index = plot = row * 5 + column
CENTRE = SQUARES.index("C3")
START = {"S": 20, "Q": 5, "R": 5}  # rules: "Pieces"
CANONICAL = re.compile(r"^(Q@[A-E][1-5] )?[SR]@[A-E][1-5]$")

#: Every syntactically possible turn: 50 singles and 25 × 50 quick-block doubles.
SINGLES = [f"{kind}@{sq}" for kind in "SR" for sq in SQUARES]
CANDIDATES = SINGLES + [f"Q@{q} {single}" for q in SQUARES for single in SINGLES]

#: Filler turns far from the plots the rule tests use (columns A–C, rows 1–4): each player stacks
#: standard blocks on its own corner plots, four to a plot.
FILLER = {
    0: [f"S@{sq}" for sq in ("E5", "D5") for _ in range(4)],
    1: [f"S@{sq}" for sq in ("E1", "D1") for _ in range(4)],
}


# --- helpers --------------------------------------------------------------------------------------


def plot(square: str) -> int:
    return SQUARES.index(square)


def play_all(game: HongKongGame, turns) -> HongKongGame:
    for turn in turns:
        game.play(turn)
    return game


def setup(mine=(), theirs=(), first=0) -> HongKongGame:
    """A game in which ``first`` played ``mine`` and the other player ``theirs`` (the shorter list is
    padded with filler), alternately; it is ``first``'s turn again."""
    mine, theirs = list(mine), list(theirs)
    mine += FILLER[first][: max(0, len(theirs) - len(mine))]
    theirs += FILLER[1 - first][: max(0, len(mine) - len(theirs))]
    assert len(mine) == len(theirs)
    game = new_game(first)
    for a, b in zip(mine, theirs):
        game.play(a)
        game.play(b)
    assert game.to_move == first
    return game


def snapshot(game: HongKongGame):
    """Everything observable about a game, for before/after comparisons."""
    return (
        game.to_dict(),
        [list(s) for s in game.stacks],
        [dict(r) for r in game.remaining],
        game.to_move,
        game.is_over,
    )


def refused(game: HongKongGame, turn, *fragments: str) -> str:
    """Assert ``turn`` raises IllegalMove naming every fragment and leaves the game untouched."""
    before = snapshot(game)
    with pytest.raises(IllegalMove) as info:
        game.play(turn)
    assert snapshot(game) == before
    message = str(info.value)
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message


def brute_force_moves(game: HongKongGame) -> set[str]:
    """The candidate turns ``play`` accepts, each tried on a copy. A refused candidate must leave its
    copy exactly as the original (so that copy is reused for the next candidate)."""
    legal, trial, before = set(), game.copy(), snapshot(game)
    for turn in CANDIDATES:
        try:
            trial.play(turn)
        except IllegalMove:
            assert snapshot(trial) == before, turn
            continue
        legal.add(turn)
        trial = game.copy()
    return legal


def expected_winner(game: HongKongGame):
    """Rules "Result": most buildings; equal → controller of C3; equal and C3 empty → draw (None)."""
    counts = Counter(stack[-1][0] for stack in game.stacks if stack)
    if counts[0] != counts[1]:
        return 0 if counts[0] > counts[1] else 1
    return game.stacks[CENTRE][-1][0] if game.stacks[CENTRE] else None


def random_turn(game: HongKongGame, rng: random.Random, stack_bias: float) -> str:
    """Play a random legal turn, proposing plots already built on with probability ``stack_bias``
    (so games get tall, capture and run out of pieces); falls back to ``legal_moves()``."""
    occupied = [sq for sq, stack in zip(SQUARES, game.stacks) if stack]

    def square():
        return rng.choice(occupied) if occupied and rng.random() < stack_bias else rng.choice(SQUARES)

    for _ in range(40):
        turn = f"{'R' if rng.random() < 0.25 else 'S'}@{square()}"
        if rng.random() < 0.3:
            turn = f"Q@{square()} {turn}"
        try:
            game.play(turn)
            return turn
        except IllegalMove:
            pass
    turn = rng.choice(game.legal_moves())
    game.play(turn)
    return turn


def random_game(seed: int, turns: int | None = None) -> HongKongGame:
    """A seeded random game, stopped after ``turns`` turns or at its end."""
    rng = random.Random(seed)
    game, bias = new_game(seed % 2), rng.choice((0.0, 0.4, 0.8))
    while not game.is_over and (turns is None or len(game.moves) < turns):
        random_turn(game, rng, bias)
    return game


# --- placement rule 1: the centre ban -------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("turn", ["S@C3", "R@C3", "Q@C3 S@A1", "Q@C3 R@C3", "Q@A1 S@C3", "Q@A1 R@C3"])
def test_centre_banned_for_both_pieces_of_starting_players_first_turn(first, turn):
    game = new_game(first)
    refused(game, turn, "C3")
    assert game.moves == [] and game.to_move == first
    assert not any("C3" in move for move in game.legal_moves())


@pytest.mark.parametrize("turn", ["S@C3", "R@C3", "Q@C3 S@C3", "Q@A2 R@C3"])
def test_second_players_first_turn_may_use_centre(turn):
    game = play_all(new_game(1), ["S@A1"])
    game.play(turn)
    assert game.controller(CENTRE) == 0
    assert game.moves[-1] == turn


@pytest.mark.parametrize("turn", ["S@C3", "Q@C3 R@C3", "Q@B3 S@C3"])
def test_starting_players_second_turn_may_use_centre(turn):
    game = play_all(new_game(0), ["S@A1", "S@E5"])
    game.play(turn)
    assert game.controller(CENTRE) == 0


# --- rules 2 and 3: roofs ---------------------------------------------------------------------------


def test_roof_on_empty_plot_allowed():
    game = new_game(0)
    game.play("R@A1")
    game.play("Q@E5 R@D5")
    assert game.stacks[plot("A1")] == [(0, "R")]
    assert game.stacks[plot("D5")] == [(1, "R")] and game.stacks[plot("E5")] == [(1, "Q")]
    assert (game.controller(plot("A1")), game.blocks(plot("A1")), game.roofed(plot("A1"))) == (0, 0, True)
    assert game.height(plot("A1")) == 1
    assert game.buildings() == (1, 2)


@pytest.mark.parametrize("turn", ["S@B2", "R@B2", "Q@B2 S@A1", "Q@B2 R@A1"])
@pytest.mark.parametrize("mover", ["owner", "opponent"])
def test_nothing_on_a_roof(turn, mover):
    # Player 0 roofs B2; player 1 has a 4-block building next to it, so rule 6 alone would allow them.
    game = setup(["R@B2"] + FILLER[0][:3], ["S@B3"] * 4)
    if mover == "opponent":
        game.play("S@E4")
    refused(game, turn, "roof", "B2")


# --- rule 4: at most 5 pieces ------------------------------------------------------------------


@pytest.mark.parametrize("turn", ["S@A1", "R@A1", "Q@A1 S@B1", "Q@A1 R@A1"])
def test_five_blocks_take_nothing_more(turn):
    game = setup(["S@A1"] * 5)
    assert game.blocks(plot("A1")) == 5 and not game.roofed(plot("A1"))
    refused(game, turn, "5 pieces", "A1")
    assert not any("A1" in move for move in game.legal_moves())


@pytest.mark.parametrize("build", [["S@A1"] * 4 + ["R@A1"], ["S@A1"] * 3 + ["Q@A1 R@A1"]])
def test_four_blocks_and_roof_is_the_tallest_roofed_building(build):
    game = setup(build)
    a1 = plot("A1")
    assert (len(game.stacks[a1]), game.blocks(a1), game.roofed(a1), game.height(a1)) == (5, 4, True, 9)
    refused(game, "S@A1", "roof")


def test_four_blocks_and_quick_block_then_roof_refused():
    game = setup(["S@A1"] * 4)
    refused(game, "Q@A1 R@A1", "5 pieces")
    assert "R@A1" in game.legal_moves() and "Q@A1 R@A1" not in game.legal_moves()


# --- rules 5 and 6: own buildings, opponent's buildings, height order ------------------------------


def test_own_building_always_allowed_even_next_to_taller_opponent():
    game = setup(["S@B2"], ["S@B3"] * 4)
    game.play("S@B2")
    game.play("S@E1")
    game.play("R@B2")
    assert game.blocks(plot("B2")) == 2 and game.roofed(plot("B2"))


# (own blocks, own roof, opponent's blocks, piece, allowed): the own building is B2, the opponent's B3.
HEIGHT_CASES = (
    [
        (n, True, n, "S", False)
        for n in (1, 2, 3)  # N + roof  <  N+1 blocks
    ]
    + [
        (n, True, n, "R", True)
        for n in (1, 2, 3)  # N + roof  >= N + roof (equal)
    ]
    + [
        (n + 1, False, n, "S", True)
        for n in (1, 2, 3)  # N+1 blocks >= N+1 blocks (equal)
    ]
    + [
        (n + 1, False, n, "R", True)
        for n in (1, 2, 3)  # N+1 blocks >  N + roof
    ]
    + [
        (n, False, n, "R", False)
        for n in (1, 2, 3)  # N blocks  <  N + roof
    ]
    + [
        (n, False, n, "S", False)
        for n in (1, 2, 3)  # N blocks  <  N+1 blocks
    ]
    + [
        (4, True, 4, "S", False),
        (4, True, 4, "R", True),
        (5, False, 4, "S", True),
        (5, False, 4, "R", True),
        (4, False, 4, "R", False),
        (0, True, 1, "R", False),
        (0, True, 1, "S", False),
    ]
)


@pytest.mark.parametrize("own, roof, theirs, piece, allowed", HEIGHT_CASES)
def test_height_order_blocks_beat_roofs(own, roof, theirs, piece, allowed):
    game = setup(["S@B2"] * own + ["R@B2"] * roof, ["S@B3"] * theirs)
    b3 = plot("B3")
    if allowed:
        game.play(f"{piece}@B3")
        assert game.controller(b3) == 0
        assert game.blocks(b3) == theirs + (piece == "S") and game.roofed(b3) == (piece == "R")
    else:
        roofed = f"{theirs} block{'s' if theirs > 1 else ''} + roof"
        needed = f"{theirs + 1} blocks" if piece == "S" else roofed
        message = refused(game, f"{piece}@B3", "B3", "opponent", "edge-adjacent", needed)
        assert f"at least {needed} high" in message
        assert f"{piece}@B3" not in game.legal_moves()


def test_refusal_names_the_height_needed():
    game = setup(["S@B2"], ["S@B3"] * 2)
    assert refused(game, "S@B3").endswith("at least 3 blocks high.")
    assert refused(game, "R@B3").endswith("at least 2 blocks + roof high.")
    assert refused(game, "Q@A1 S@B3", "3 blocks")


@pytest.mark.parametrize(
    "own, allowed",
    [
        ("C2", True),
        ("C4", True),
        ("B3", True),
        ("D3", True),  # edge-adjacent
        ("B2", False),
        ("D2", False),
        ("B4", False),
        ("D4", False),  # diagonal
        ("C1", False),
        ("A3", False),  # two plots away
    ],
)
def test_only_edge_adjacent_buildings_count(own, allowed):
    game = setup(["S@A1", "S@" + own, "S@" + own, "S@" + own], ["S@E1", "S@C3"])  # player 1 may use C3
    assert game.controller(CENTRE) == 1
    if allowed:
        game.play("S@C3")
        assert game.controller(CENTRE) == 0
    else:
        refused(game, "S@C3", "edge-adjacent", "2 blocks")


def test_control_is_the_top_piece_capture_by_placing_on_top():
    game = setup(["S@B2", "S@B2"], ["S@B3"])
    assert game.buildings() == (1, 2)  # player 0: B2; player 1: B3 and the filler E1
    game.play("S@B3")
    b3 = plot("B3")
    assert game.stacks[b3] == [(1, "S"), (0, "S")]
    assert game.controller(b3) == 0 and game.buildings() == (2, 1)
    # Player 1 now needs a 3-block building next to B3 to take it back: B4 with 1 block is not enough.
    refused(game, "S@B3", "3 blocks")
    game.play("S@B4")
    # …but may always build on B4 again; player 0 may raise B3 as its own building.
    game.play("S@B3")
    assert game.stacks[b3] == [(1, "S"), (0, "S"), (0, "S")]


def test_capture_with_a_roof():
    game = setup(["S@B2", "S@B2"], ["S@B3"])
    game.play("R@B3")
    assert game.stacks[plot("B3")] == [(1, "S"), (0, "R")] and game.controller(plot("B3")) == 0


# --- rule 7: double moves ------------------------------------------------------------------------------


def test_quick_block_raises_own_adjacent_building_to_allow_second_placement():
    game = setup(["S@B2"], ["S@B3"])
    refused(game, "S@B3", "2 blocks")
    game.play("Q@B2 S@B3")
    assert game.stacks[plot("B2")] == [(0, "S"), (0, "Q")]
    assert game.stacks[plot("B3")] == [(1, "S"), (0, "S")]
    assert game.moves[-1] == "Q@B2 S@B3"


def test_quick_block_captures_then_builds():
    # Player 0: B1 with 3 blocks. Player 1: B2 and B3 with 2 blocks each. B3 is not next to B1.
    game = setup(["S@B1"] * 3, ["S@B2", "S@B2", "S@B3", "S@B3"])
    refused(game, "S@B3", "3 blocks")
    game.play("Q@B2 S@B3")
    assert game.stacks[plot("B2")][-1] == (0, "Q") and game.blocks(plot("B2")) == 3
    assert game.stacks[plot("B3")][-1] == (0, "S") and game.blocks(plot("B3")) == 3
    assert game.controller(plot("B2")) == game.controller(plot("B3")) == 0


def test_quick_block_and_roof_capture_and_seal_in_one_turn():
    game = setup(["S@B2", "S@B2"], ["S@B3"])
    game.play("Q@B3 R@B3")
    b3 = plot("B3")
    assert game.stacks[b3] == [(1, "S"), (0, "Q"), (0, "R")]
    assert (game.controller(b3), game.blocks(b3), game.roofed(b3)) == (0, 2, True)
    assert game.remaining[0] == {"S": 18, "Q": 4, "R": 4}
    refused(game, "S@B3", "roof")  # sealed: player 1 can never take it back


def test_quick_block_and_roof_same_plot_of_four_pieces_refused():
    # A captured building of 4 pieces takes the quick block but then has no room for the roof.
    game = setup(["S@B2"] * 5, ["S@B3"] * 4)
    refused(game, "Q@B3 R@B3", "5 pieces")
    game.play("Q@B3 R@A1")
    assert game.blocks(plot("B3")) == 5 and game.controller(plot("B3")) == 0


@pytest.mark.parametrize(
    "turn, fragment",
    [
        ("Q@A1", "quick block"),
        ("Q@A1 Q@A2", "quick block"),
        ("Q@A1 Q@A1", "quick block"),
        ("R@A1 S@A2", "first piece must be a quick block"),
        ("R@A1 R@A1", "first piece must be a quick block"),
        ("R@A1 Q@A2", "first piece must be a quick block"),
        ("S@A1 S@A2", "first piece must be a quick block"),
        ("S@A1 Q@A2", "first piece must be a quick block"),
        ("Q@A1 S@A2 S@A3", ""),
    ],
)
def test_turn_shapes_outside_the_four_kinds_refused(turn, fragment):
    refused(new_game(0), turn, fragment)


# --- running out of pieces ------------------------------------------------------------------------


def test_out_of_roofs():
    game = setup([f"R@{sq}" for sq in ("A1", "B1", "C1", "A2", "B2")])
    assert game.remaining[0]["R"] == 0
    refused(game, "R@A3", "no roofs left: place a standard block instead")
    refused(game, "Q@A3 R@A3", "no roofs left")
    assert not any("R@" in move for move in game.legal_moves())
    game.play("S@A3")


def test_out_of_quick_blocks():
    game = setup([f"Q@{sq} S@{sq}" for sq in ("A1", "B1", "C1", "A2", "B2")])
    assert game.remaining[0] == {"S": 15, "Q": 0, "R": 5}
    refused(game, "Q@A3 S@A3", "no quick blocks left")
    assert not any(move.startswith("Q@") for move in game.legal_moves())
    # S and R on 18 empty plots, player 0's 5 buildings and player 1's D1 (1 block, next to C1's 2).
    assert len(game.legal_moves()) == 2 * 24 and "S@D1" in game.legal_moves()


def test_out_of_standard_blocks():
    game = setup(
        [f"S@{sq}" for sq in ("A1", "B1", "C1", "D1", "E1") for _ in range(4)],
        [f"S@{sq}" for sq in ("A5", "B5", "C5", "D5", "E5") for _ in range(4)],
    )
    assert game.remaining[0] == {"S": 0, "Q": 5, "R": 5}
    refused(game, "S@A3", "no standard blocks left: place a roof instead")
    refused(game, "Q@A3 S@A3", "no standard blocks left")
    moves = game.legal_moves()
    assert moves and all(move.split()[-1].startswith("R@") for move in moves)
    game.play("Q@A2 R@A1")


# --- end of the game and result ---------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
def test_board_full_ends_the_game(first):
    game = new_game(first)
    for square in SQUARES:  # one standard block per plot, A1 first (not the centre)
        assert not game.is_over and game.winner is None and game.outcome is None
        game.play(f"S@{square}")
    assert len(game.moves) == 25 and all(game.stacks)
    assert game.is_over and game.legal_moves() == []
    assert game.buildings() == ((13, 12) if first == 0 else (12, 13))
    assert game.winner == first
    outcome = game.outcome
    assert (outcome.winner, outcome.termination, outcome.centre_decided) == (first, "board full", False)
    assert game.remaining[first]["S"] == 20 - 13 and game.remaining[1 - first]["S"] == 20 - 12
    refused(game, "S@A1", "over")


def test_board_full_by_double_moves():
    game = new_game(0)
    pairs = [(SQUARES[i], SQUARES[i + 1]) for i in range(0, 20, 2)]  # A1…E4: 20 plots in 10 turns
    for a, b in pairs:
        game.play(f"Q@{a} S@{b}")
    for square in SQUARES[20:]:
        assert not game.is_over
        game.play(f"S@{square}")
    assert game.is_over and game.outcome.termination == "board full" and len(game.moves) == 15
    assert game.remaining[0] == {"S": 12, "Q": 0, "R": 5} and game.remaining[1] == {"S": 13, "Q": 0, "R": 5}
    assert game.buildings() == (13, 12) and game.winner == 0


def pieces_used_game(first: int, centre: int | None) -> HongKongGame:
    """Both players build five 4-blocks + roof buildings on their own row (first: row 1, other: row 5)
    and so use every S and R; if ``centre`` is a player, that player's fifth building is on C3."""
    plans = {}
    for player, row in ((first, "1"), (1 - first, "5")):
        squares = [f"{col}{row}" for col in "ABCD"] + ["C3" if player == centre else f"E{row}"]
        plans[player] = [f"{piece}@{sq}" for sq in squares for piece in "SSSSR"]
    return play_all(new_game(first), [t for pair in zip(plans[first], plans[1 - first]) for t in pair])


@pytest.mark.parametrize("first", [0, 1])
def test_pieces_used_ends_the_game_and_second_player_moves_last(first):
    game = pieces_used_game(first, centre=None)
    assert game.is_over and len(game.moves) == 50
    assert (len(game.moves) - 1 + first) % 2 == 1 - first  # the last turn was the second player's
    assert game.to_move == first
    assert sum(1 for stack in game.stacks if stack) == 10  # 15 plots still empty
    assert game.remaining == [{"S": 0, "Q": 5, "R": 0}, {"S": 0, "Q": 5, "R": 0}]
    assert game.outcome.termination == "pieces used"
    # One turn earlier the starting player was out of S and R but the game went on.
    earlier = from_dict({"game": "hongkong", "first": first, "moves": game.moves[:-1]})
    assert not earlier.is_over and earlier.to_move == 1 - first
    assert earlier.remaining[first] == {"S": 0, "Q": 5, "R": 0}
    assert earlier.remaining[1 - first] == {"S": 0, "Q": 5, "R": 1}
    assert "R@E5" in earlier.legal_moves() and "Q@A3 R@E5" in earlier.legal_moves()


@pytest.mark.parametrize("first", [0, 1])
def test_draw_on_equal_counts_and_empty_centre(first):
    game = pieces_used_game(first, centre=None)
    assert game.buildings() == (5, 5) and game.controller(CENTRE) is None
    assert game.winner is None
    assert (game.outcome.winner, game.outcome.centre_decided) == (None, False)


@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("centre", [0, 1])
def test_centre_controller_wins_on_equal_counts(first, centre):
    game = pieces_used_game(first, centre=centre)
    assert game.buildings() == (5, 5) and game.controller(CENTRE) == centre
    assert game.winner == centre
    assert (game.outcome.winner, game.outcome.centre_decided) == (centre, True)


def test_more_buildings_beats_the_centre():
    # Player 1 holds C3 but player 0 has more buildings when the board fills.
    game = play_all(new_game(0), ["S@A1", "S@C3"])
    for square in SQUARES[1:]:
        if square != "C3":
            game.play(f"S@{square}")
    assert game.is_over and game.controller(CENTRE) == 1
    assert game.buildings() == (13, 12) and game.winner == 0 and not game.outcome.centre_decided


# --- legal-move counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
def test_1200_legal_moves_at_the_start(first):
    game = new_game(first)
    moves = game.legal_moves()
    assert len(moves) == len(set(moves)) == 1200  # 48 singles + 24 × 48 doubles, C3 excluded
    assert set(moves) == brute_force_moves(game)


def test_the_turns_are_an_immutable_sequence_read_as_written():
    # the opening's sets are made once when the module loads: no caller can change them for another game
    game = new_game(0)
    turns = game.legal_moves()
    with pytest.raises(TypeError):
        turns[0] = "spoiled"
    assert not hasattr(turns, "clear") and not hasattr(turns, "append")
    written = list(turns)
    assert len(turns) == 1200 and turns[0] == "S@A1" == written[0] and turns[-1] == "Q@E5 R@E5" == written[-1]
    assert [turns[i] for i in range(1200)] == written and turns[10:13] == written[10:13]
    assert turns[-1200] == "S@A1"
    for bad in (1200, -1201):
        with pytest.raises(IndexError):
            turns[bad]
    assert "Q@A1 S@A1" in turns and "S@C3" not in turns and "nonsense" not in turns and 5 not in turns
    assert turns == written and written == turns and turns != written[:-1] and turns != "S@A1"
    assert turns.index("Q@A1 S@A1") == 48 and new_game(1).legal_moves() == turns
    game.play("Q@A1 S@A1")  # a turn from the kept sets needs no second check, and is the rules' turn
    assert game.stacks[0] == [(0, "Q"), (0, "S")] and game.pop() == "Q@A1 S@A1" and len(game.legal_moves()) == 1200


def test_every_turn_read_by_index_is_the_turn_written_out():
    rng = random.Random(5)
    for _ in range(30):
        game = new_game(rng.randrange(2))
        while turns := game.legal_moves():
            written = list(turns)
            assert len(turns) == len(written) and [turns[i] for i in range(len(turns))] == written
            assert all(turn in turns for turn in written)
            game.play(turns[rng.randrange(len(turns))])
        assert turns == [] and len(turns) == 0


@pytest.mark.parametrize(
    "opening, expected",
    [
        ("S@A1", 2 * 24 * 25),  # 24 empty plots: 2×24 singles + 24 quick plots × 2×(23 empty + own) doubles
        ("R@B2", 2 * 24 * 25),
        ("Q@A1 S@B1", 2 * 23 * 24),
        ("Q@D4 R@D4", 2 * 24 * 25),
    ],
)
def test_second_players_first_turn_matches_brute_force(opening, expected):
    game = play_all(new_game(0), [opening])
    moves = game.legal_moves()
    assert len(moves) == len(set(moves))
    assert set(moves) == brute_force_moves(game)
    assert len(moves) == expected
    assert any("C3" in move for move in moves)


@pytest.mark.parametrize("seed", range(250))
def test_legal_moves_match_brute_force_mid_game(seed):
    game = random_game(seed, turns=random.Random(seed).randrange(2, 50))
    moves = game.legal_moves()
    assert len(moves) == len(set(moves))
    assert all(CANONICAL.match(move) for move in moves)
    assert set(moves) == brute_force_moves(game)
    assert bool(moves) != game.is_over  # a legal move exists exactly while the game goes on


# --- notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("s@c3", "S@C3"),
        (" Q@B2   S@C3 ", "Q@B2 S@C3"),
        ("q @ b2 s @ c3", "Q@B2 S@C3"),
        ("r@E5", "R@E5"),
        ("\tQ@a1\nr@A1 ", "Q@A1 R@A1"),
    ],
)
def test_notation_is_case_and_whitespace_insensitive(text, canonical):
    game = play_all(new_game(0), ["S@A2"])
    game.play(text)
    assert game.moves[-1] == canonical
    assert game.to_dict()["moves"] == ["S@A2", canonical]


def test_legal_moves_and_turns_are_canonical():
    game = random_game(7, turns=12)
    assert all(CANONICAL.match(turn) for turn in game.moves)
    assert all(CANONICAL.match(move) for move in game.legal_moves())


MALFORMED = [
    "",
    "   ",
    "hello",
    "S@F1",
    "S@A6",
    "S@A0",
    "X@A1",
    "S@",
    "@A1",
    "SA1",
    "S@C33",
    "Q@A1 Q@A2",
    "S@A1 S@A2",
    "S@A1 Q@A2",
    "Q@A1 S@A2 R@A3",
    None,
    5,
    ["S@A1"],
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_input_refused_and_nothing_changes(text):
    game = random_game(3, turns=9)
    refused(game, text)


@pytest.mark.parametrize(
    "turn",
    [
        "Q@A1 R@C3",  # quick block is fine, the roof breaks the centre ban
        "Q@A1 S@C3",
        "Q@B2 S@A4",  # quick block is fine, A4 is player 1's and out of reach
        "Q@A3 S@A4",  # the quick block builds next to A4, but 1 block is not 3 blocks high
        "Q@B2 R@A4",
        "Q@B2 R@B3",  # B3 has a roof
    ],
)
def test_double_move_with_illegal_second_piece_leaves_everything_as_before(turn):
    game = new_game(0) if "C3" in turn else setup(["S@B2"], ["S@A4", "S@A4", "R@B3"])
    refused(game, turn)
    assert all(not stack or stack[-1][1] != "Q" for stack in game.stacks)


def test_illegal_moves_in_random_positions_change_nothing():
    for seed in range(30):
        game = random_game(1000 + seed, turns=20)
        for turn in random.Random(seed).sample(CANDIDATES, 150):
            try:
                game.copy().play(turn)
            except IllegalMove:
                refused(game, turn)  # the same refusal on the game itself changes nothing


# --- persistence ---------------------------------------------------------------------------------


def assert_same_game(a: HongKongGame, b: HongKongGame) -> None:
    assert snapshot(a) == snapshot(b)
    assert (a.first, a.moves, a.winner, a.outcome) == (b.first, b.moves, b.winner, b.outcome)
    assert a.legal_moves() == b.legal_moves()


@pytest.mark.parametrize("seed", range(40))
def test_to_dict_from_dict_round_trip(seed):
    rng = random.Random(seed)
    game = new_game(seed % 2)
    while True:
        record = json.loads(json.dumps(game.to_dict()))
        assert record == {"game": "hongkong", "first": seed % 2, "moves": game.moves}
        restored = from_dict(record)
        assert restored.to_dict() == game.to_dict()
        if rng.random() < 0.25 or game.is_over:
            assert_same_game(restored, game)
        if game.is_over:
            break
        random_turn(game, rng, stack_bias=0.5)


def test_copy_is_independent():
    game = random_game(11, turns=10)
    clone = game.copy()
    clone.play(clone.legal_moves()[0])
    assert len(game.moves) == 10 and len(clone.moves) == 11
    assert sum(map(len, game.stacks)) < sum(map(len, clone.stacks))


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        "hongkong",
        42,
        [],
        {},
        {"game": "hong", "first": 0, "moves": []},
        {"first": 0, "moves": []},
        {"game": "hongkong", "first": 2, "moves": []},
        {"game": "hongkong", "first": "0", "moves": []},
        {"game": "hongkong", "first": 0, "moves": ["S@C3"]},  # centre ban
        {"game": "hongkong", "first": 0, "moves": ["hello"]},
        {"game": "hongkong", "first": 0, "moves": ["S@A1", "S@A1"]},  # player 1 can't build on A1
        {"game": "hongkong", "first": 0, "moves": [f"S@{sq}" for sq in SQUARES] + ["S@A1"]},  # after the end
        {"game": "hongkong", "first": 0, "moves": [None]},
        {"game": "hongkong", "first": 0, "turns": ["S@A1"]},  # the old layout: the bot's migration renames it
    ],
)
def test_from_dict_of_garbage_raises_invalid_state(garbage):
    with pytest.raises(InvalidState):
        from_dict(garbage)


@pytest.mark.parametrize("moves", [None, 5, "S@A1"])
def test_from_dict_with_moves_not_a_list_raises_invalid_state(moves):
    with pytest.raises(InvalidState, match="'moves' must be a list"):
        from_dict({"game": "hongkong", "first": 0, "moves": moves})


def test_from_dict_names_the_illegal_turn():
    with pytest.raises(InvalidState, match=r"turn 2 \(S@A1\) is illegal: The building on A1 belongs"):
        from_dict({"game": "hongkong", "first": 0, "moves": ["S@A1", "S@A1"]})


# --- random playouts: invariants after every turn ---------------------------------------------


def check_invariants(game: HongKongGame, mover: int, remaining_before) -> None:
    for player in (0, 1):
        placed = Counter(kind for stack in game.stacks for owner, kind in stack if owner == player)
        for kind, count in START.items():
            assert placed[kind] + game.remaining[player][kind] == count
            assert game.remaining[player][kind] >= 0
    for index, stack in enumerate(game.stacks):
        assert len(stack) <= 5
        assert all(kind != "R" for _, kind in stack[:-1])  # a roof is only ever the top piece
        assert game.controller(index) == (stack[-1][0] if stack else None)
    # The turn used exactly one S or R of the mover, at most one Q, nothing of the other player.
    used = {kind: remaining_before[mover][kind] - game.remaining[mover][kind] for kind in START}
    assert used["S"] + used["R"] == 1 and used["Q"] in (0, 1)
    assert game.remaining[1 - mover] == remaining_before[1 - mover]
    assert len(game.moves) <= 50 and CANONICAL.match(game.moves[-1])
    assert game.to_move == 1 - mover
    board_full = all(game.stacks)
    pieces_used = all(r["S"] == r["R"] == 0 for r in game.remaining)
    assert game.is_over == (board_full or pieces_used)
    counts = Counter(stack[-1][0] for stack in game.stacks if stack)
    assert game.buildings() == (counts[0], counts[1])
    if game.is_over:
        assert game.winner == expected_winner(game) == game.outcome.winner
        assert game.outcome.termination == ("board full" if board_full else "pieces used")
        if not board_full:  # ended by pieces used: all 50 turns played, the second player's last
            assert len(game.moves) == 50 and mover == 1 - game.first
    else:
        assert game.winner is None and game.outcome is None


def test_random_playouts_keep_the_invariants():
    seen = Counter()
    for seed in range(2000):
        rng = random.Random(seed)
        game, bias = new_game(seed % 2), (0.0, 0.4, 0.8)[seed % 3]
        while not game.is_over:
            mover = game.to_move
            assert mover == (game.first + len(game.moves)) % 2  # turns alternate
            remaining_before = [dict(r) for r in game.remaining]
            random_turn(game, rng, bias)
            check_invariants(game, mover, remaining_before)
        outcome = game.outcome
        seen[outcome.termination] += 1
        seen["draw" if outcome.winner is None else "centre" if outcome.centre_decided else "count"] += 1
        seen["capture"] += any(len({owner for owner, _ in stack}) > 1 for stack in game.stacks)
        seen["5 pieces"] += any(len(stack) == 5 for stack in game.stacks)
    # The playouts reached every kind of ending and position the invariants are about.
    assert all(
        seen[key] >= 20 for key in ("board full", "pieces used", "draw", "centre", "count", "capture", "5 pieces")
    ), seen


# --- undo: pop and truncate ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_pop_restores_the_state_before_each_turn(seed):
    rng = random.Random(seed)
    game, bias = new_game(seed % 2), (0.0, 0.4, 0.8)[seed % 3]
    while not game.is_over:
        before = snapshot(game)
        turn = random_turn(game, rng, bias)
        after = snapshot(game)
        assert game.pop() == after[0]["moves"][-1]  # the turn as played, canonical
        assert snapshot(game) == before
        game.play(turn)
        assert snapshot(game) == after


@pytest.mark.parametrize("seed", range(10))
def test_truncate_equals_a_fresh_replay(seed):
    game = random_game(500 + seed)
    moves = list(game.moves)
    for n in sorted(random.Random(seed).sample(range(len(moves) + 1), 6), reverse=True):
        undone = game.truncate(n)
        fresh = play_all(new_game(game.first), moves[:n])
        assert_same_game(game, fresh)
        assert game.moves + undone == moves[: n + len(undone)]
    assert game.truncate(0) == moves[:n] and game.moves == []


def test_pop_and_truncate_refuse_what_was_not_played():
    game = new_game(1)
    with pytest.raises(IndexError, match="no turn has been played"):
        game.pop()
    game.play("S@A1")
    for n in (-1, 2, "1"):
        with pytest.raises(IndexError, match="1 moves have been played"):
            game.truncate(n)
    assert game.moves == ["S@A1"]
    assert game.truncate(1) == [] and game.truncate(0) == ["S@A1"] and game.to_move == 1


def test_pop_of_a_copy_leaves_the_original():
    game = random_game(12, turns=8)
    clone = game.copy()
    assert clone.pop() == game.moves[-1]
    assert len(game.moves) == 8 and len(clone.moves) == 7
    assert sum(map(len, game.stacks)) > sum(map(len, clone.stacks))


def test_pending_and_kind_are_the_contract_fields():
    game = new_game()
    assert game.pending is None and game.kind == "hongkong"


# --- generation order, the kept legal turns, and loading without the replay ------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_legal_moves_keep_their_documented_order(seed):
    # singles S then R by plot A1…E5, then doubles by quick-block plot, each like the singles: CANDIDATES' order
    game = random_game(2000 + seed, turns=random.Random(seed).randrange(0, 50))
    legal = brute_force_moves(from_dict(game.to_dict()))
    assert game.legal_moves() == [turn for turn in CANDIDATES if turn in legal]


@pytest.mark.parametrize("seed", range(40))
def test_play_after_legal_moves_accepts_and_refuses_as_the_rules_do(seed):
    # play() of a turn legal_moves() found is not checked again: it must agree with a game that checks every turn
    game = random_game(3000 + seed, turns=random.Random(seed).randrange(0, 45))
    found = game.legal_moves()
    checked = from_dict(game.to_dict())
    for turn in random.Random(seed).sample(CANDIDATES, 120) + found[:5] + found[-5:]:
        fast, slow = from_dict(game.to_dict()), from_dict(game.to_dict())
        fast.legal_moves()
        outcomes = []
        for trial in (fast, slow):
            try:
                trial.play(turn)
                outcomes.append(snapshot(trial))
            except IllegalMove as refusal:
                assert str(refusal) and str(refusal) != "None"  # a reason a player can read
                outcomes.append(None)
        assert outcomes[0] == outcomes[1], turn
        assert (outcomes[0] is not None) == (turn in found)
    assert snapshot(checked) == snapshot(game)


@pytest.mark.parametrize("seed", range(40))
def test_from_dict_without_replay_is_the_same_game(seed):
    game = random_game(4000 + seed)
    for n in sorted({0, len(game.moves), *random.Random(seed).sample(range(len(game.moves) + 1), 4)}):
        record = {"game": "hongkong", "first": game.first, "moves": game.moves[:n]}
        loaded, replayed = from_dict(record, replay=False), from_dict(record)
        assert_same_game(loaded, replayed)
        if n:
            assert loaded.pop() == replayed.pop() and snapshot(loaded) == snapshot(replayed)  # undo works too


def test_from_dict_without_replay_trusts_the_rules_but_not_the_shape():
    # a capture without a high enough neighbour breaks rule 6: only the replay sees it
    unchecked = {"game": "hongkong", "first": 0, "moves": ["S@A1", "S@A1"]}
    assert from_dict(unchecked, replay=False).stacks[0] == [(0, "S"), (1, "S")]
    with pytest.raises(InvalidState, match=r"turn 2 \(S@A1\) is illegal"):
        from_dict(unchecked)
    # what would make a broken position is refused either way
    for moves, reason in [
        (["R@A1", "S@A1"], r"turn 2 \(S@A1\) is illegal: The building on A1 has a roof"),
        (
            ["S@A1", "S@E5", "S@A1", "S@E5", "S@A1", "S@E4", "S@A1", "S@E4", "S@A1", "S@E3", "R@A1"],
            r"turn 11 \(R@A1\) is illegal: The building on A1 already has 5 pieces",
        ),
        (
            [turn for sq in SQUARES[:6] for turn in (f"R@{sq}", "S@E5")][:11],
            r"turn 11 \(R@A2\) is illegal: You have no roofs left",
        ),
        ([f"S@{sq}" for sq in SQUARES] + ["S@A1"], r"turn 26 \(S@A1\) is illegal: The game is over"),
        (["S@A1", "hello"], r"turn 2 \(hello\) is illegal: Can't read"),
        (["S@A1", "Q@B1"], r"turn 2 \(Q@B1\) is illegal: A quick block is never a turn on its own"),
    ]:
        for replay in (False, True):
            with pytest.raises(InvalidState, match=reason):
                from_dict({"game": "hongkong", "first": 0, "moves": moves}, replay=replay)


def test_the_turns_index_and_contain_like_a_list():
    """Found by a fresh tester: a float index read a turn (turns[0.5] was the first), an ``__index__`` object and
    a str subclass didn't work as with a list; old pickle protocols failed."""
    import pickle

    class Three:
        def __index__(self):
            return 3

    class Text(str):
        pass

    turns = new_game(0).legal_moves()
    written = list(turns)
    for bad in (0.5, -0.5, 1.0, "1"):
        with pytest.raises(TypeError):
            turns[bad]
    assert turns[Three()] == written[3] == "S@D1" and turns[True] == written[1]
    assert Text("Q@A1 S@A1") in turns and Text("S@C3") not in turns
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(turns, protocol)) == written
