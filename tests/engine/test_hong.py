"""Tests for engine.hong: the rules in shared/rules/hong.md, each with a concrete position."""

from __future__ import annotations

import json
import random

import pytest

from engine import IllegalMove, InvalidState
from engine import hong
from engine.hong import ACTION_HELP, ACTIONS, BOARDS, DRAGON_MASTER, EMPEROR, Hong, from_dict, new_game, parse_board

# --------------------------------------------------------------------------------------------------
# Helpers


def position(rows: list[str], *, threshold: int = 99, expansion: bool = False, lair=None, to_move: int = 0):
    """A game on a custom board shaped like ``rows`` holding exactly what ``rows`` shows.

    ``#`` is no space; every other character is a space holding ``.`` (empty), ``H``, ``V`` or ``S``.
    ``rows`` must show exactly three stones (they become the setup stones). The default ``threshold`` is out
    of reach, so a base-game position with Hongs is not already decided (ruling "Decided early").
    """
    text = "\n".join("".join("#" if ch == "#" else "." for ch in row) for row in rows)
    board = parse_board(text, name="test", threshold=threshold)
    w = len(rows[0])
    stones = [hong.square_name(i % w, i // w) for i, ch in enumerate("".join(rows)) if ch == "S"]
    assert len(stones) == 3, "a test position needs three stones"
    game = new_game(board, expansion=expansion, seed=0, stones=stones, lair=lair)
    d = game.to_dict()
    d["grid"] = "/".join(rows)
    d["to_move"] = to_move
    return from_dict(d, replay=False)


def naive_hongs(game) -> set[tuple[str, tuple[str, ...]]]:
    """The rules' Hong definition, written out independently of the engine, as (direction, cells)."""
    b = game.board
    cell = {}
    for r in range(b.height):
        for c in range(b.width):
            sq = hong.square_name(c, r)
            cell[(c, r)] = game.cell(sq) if b.is_space(sq) else "#"
    found = set()
    for seg, cap, (dc, dr) in (("H", "V", (1, 0)), ("V", "H", (0, 1))):
        for (c, r), ch in cell.items():
            if ch != seg or cell.get((c - dc, r - dr)) == seg:
                continue  # not the start of a run
            run = []
            cc, rr = c, r
            while cell.get((cc, rr)) == seg:
                run.append(hong.square_name(cc, rr))
                cc, rr = cc + dc, rr + dr
            if cell.get((c - dc, r - dr)) == cap and cell.get((cc, rr)) == cap:
                found.add((seg, tuple(run)))
    return found


def as_set(hongs) -> set[tuple[str, tuple[str, ...]]]:
    return {(h.direction, h.cells) for h in hongs}


LAIR = {1: "rotate", 2: "place", 3: "movestone", 4: "flip", 5: "move", 6: "stone", 7: "swap"}

# --------------------------------------------------------------------------------------------------
# Boards


@pytest.mark.parametrize("name,spaces,threshold", [("castle", 69, 15), ("garden", 66, 13), ("inner", 49, 11)])
def test_board_spaces_and_threshold(name, spaces, threshold):
    b = BOARDS[name]
    assert b.space_count == len(b.spaces) == spaces
    assert b.threshold == threshold
    assert new_game(name, seed=1).threshold == threshold


def test_castle_outline():
    b = BOARDS["castle"]
    assert (b.width, b.height) == (9, 9)
    for sq in ("A1", "B1", "H1", "I1", "A2", "I2", "A8", "I8", "A9", "B9", "H9", "I9"):
        assert not b.is_space(sq), sq
    for sq in ("C1", "G1", "B2", "A3", "I7", "C9", "G9", "E5"):
        assert b.is_space(sq), sq


def test_garden_has_pond_and_trees_as_no_spaces():
    b = BOARDS["garden"]
    assert dict(b.features) == {"E5": "pond", "D3": "tree", "F7": "tree"}
    assert not any(b.is_space(sq) for sq in ("D3", "E5", "F7"))
    assert b.spaces == BOARDS["castle"].spaces - {"D3", "E5", "F7"}


def test_inner_is_castle_b2_to_h8_relabelled():
    inner, castle = BOARDS["inner"], BOARDS["castle"]
    assert (inner.width, inner.height) == (7, 7)
    for r in range(7):
        for c in range(7):
            assert inner.is_space(hong.square_name(c, r)) == castle.is_space(hong.square_name(c + 1, r + 1))
    assert inner.is_space("A1") and inner.is_space("G7") and not inner.is_space("H1")


def test_parse_board_labelled_and_bare_agree_and_round_trip():
    labelled = parse_board("threshold: 2\n   ABC\n 1 .#.\n 2 ...\n", name="x")
    bare = parse_board(".#.\n...", name="x", threshold=2)
    assert labelled == bare
    assert labelled.space_count == 5 and not labelled.is_space("B1")
    for b in BOARDS.values():
        again = parse_board(b.to_text())
        assert again == b and dict(again.features) == dict(b.features)


@pytest.mark.parametrize(
    "text,needle",
    [
        ("threshold: 3\n..\n...", "row 2 has 3 squares"),
        ("...\n...", "no threshold"),
        ("threshold: 3\n.x.", "Cannot read board line"),
        ("threshold: 3\n###", "no space"),
        ("threshold: 3\npond: A1\n...", "pond at A1"),
    ],
)
def test_parse_board_errors(text, needle):
    with pytest.raises(IllegalMove, match=needle):
        parse_board(text)


def test_unknown_board_names_the_valid_ones():
    with pytest.raises(IllegalMove, match="castle, garden or inner"):
        new_game("moat")


# --------------------------------------------------------------------------------------------------
# The Hong definition


def test_size_one_hong_v_h_v():
    g = position(["VHV", "SSS"])
    assert g.hongs() == [Hong("H", ("B1",), 1, ("A1", "C1"))]
    assert g.hong_count() == 1
    assert g.hongs()[0].squares == ("A1", "B1", "C1")


def test_longer_horizontal_hong():
    g = position(["VHHHHV.", "SSS...."])
    assert g.hongs() == [Hong("H", ("B1", "C1", "D1", "E1"), 4, ("A1", "F1"))]


@pytest.mark.parametrize(
    "row",
    [
        "HHV....",  # west end at the board edge
        "VHH....",  # east end at the board edge
        "VH#V...",  # a missing space
        "VH.V...",  # an empty space
        "VHSV...",  # a stone
        "SHV....",  # a stone as the west cap
        "HHHHHHH",  # no caps at all
        "VVVVVVV",  # heads without segments
    ],
)
def test_uncapped_runs_are_no_hongs(row):
    stones = "SSS...." if row.count("S") == 0 else "SS....."
    g = position([row, stones])
    assert g.hongs() == [] and g.hong_count() == 0


def test_two_hongs_share_a_head():
    g = position(["VHVHHV.", "SSS...."])
    assert as_set(g.hongs()) == {("H", ("B1",)), ("H", ("D1", "E1"))}


def test_vertical_hong():
    g = position(["H.S", "V.S", "V.S", "H.."])
    assert g.hongs() == [Hong("V", ("A2", "A3"), 2, ("A1", "A4"))]


def test_vertical_run_needs_h_caps_not_v_or_edge():
    assert position(["V.S", "V.S", "H.S"]).hongs() == []  # north end at the edge
    assert position(["V.S", "V.S", "V.S", "H.."]).hongs() == []


def test_one_tile_heads_two_hongs_and_is_a_segment_of_a_third():
    g = position(
        [
            "S.H.S",
            "..V..",
            ".VHV.",
            "..V..",
            "S.H..",
        ]
    )
    assert as_set(g.hongs()) == {("H", ("C3",)), ("V", ("C2",)), ("V", ("C4",))}
    by_dir = {h.direction + h.cells[0]: h for h in g.hongs()}
    assert by_dir["VC2"].heads == ("C1", "C3") and by_dir["VC4"].heads == ("C3", "C5")
    assert by_dir["HC3"].heads == ("B3", "D3")


def test_hongs_order_rows_then_columns():
    g = position(["VHV.", "H.S.", "V.S.", "H.S."])
    assert [(h.direction, h.cells) for h in g.hongs()] == [("H", ("B1",)), ("V", ("A3",))]


# --------------------------------------------------------------------------------------------------
# Setup


def test_same_seed_same_setup():
    a, b = new_game("castle", seed=42), new_game("castle", seed=42)
    assert a.stones == b.stones and a.seed == 42
    assert len(set(a.stones)) == 3 and all(BOARDS["castle"].is_space(s) for s in a.stones)
    assert [a.cell(s) for s in a.stones] == ["S", "S", "S"]
    assert a.to_dict() == b.to_dict()
    assert len({new_game("castle", seed=s).stones for s in range(20)}) > 15


def test_stones_follow_random_random_sample():
    spaces = BOARDS["garden"].squares()
    rng = random.Random(7)
    assert new_game("garden", seed=7).stones == tuple(rng.sample(spaces, 3))


def test_seed_none_is_chosen_and_stored_for_replay():
    g = new_game("inner")
    assert isinstance(g.seed, int)
    assert new_game("inner", seed=g.seed).stones == g.stones


def test_stones_override():
    g = new_game("castle", seed=3, stones=["c4", " E5", "G6 "])
    assert g.stones == ("C4", "E5", "G6")
    assert {sq for sq, v in g.cells.items() if v == "S"} == {"C4", "E5", "G6"}
    assert len(g.legal_moves()) == 132


@pytest.mark.parametrize(
    "stones,needle",
    [
        (["C4", "E5"], "exactly three"),
        (["C4", "E5", "G6", "D4"], "exactly three"),
        (["C4", "C4", "G6"], "different"),
        (["C4", "E5", "A1"], "A1 is not a space"),
        (["C4", "E5", "J9"], "J9 is not a space"),
        (["C4", "E5", "xx"], "not a square"),
    ],
)
def test_stones_validated(stones, needle):
    with pytest.raises(IllegalMove, match=needle):
        new_game("castle", seed=1, stones=stones)


def test_stone_on_the_pond_refused():
    with pytest.raises(IllegalMove, match="E5"):
        new_game("garden", seed=1, stones=["C4", "E5", "G6"])


def test_lair_drawn_from_seed_and_overridable():
    a, b = new_game(expansion=True, seed=5), new_game(expansion=True, seed=5)
    assert a.lair == b.lair and sorted(a.lair) == list(range(1, 8)) and sorted(a.lair.values()) == sorted(ACTIONS)
    # The lair draw does not depend on whether the stones were overridden.
    assert new_game(expansion=True, seed=5, stones=["C4", "D4", "E4"]).lair == a.lair
    g = new_game(expansion=True, seed=5, lair=LAIR)
    assert g.lair == LAIR and g.lair_setup == LAIR and g.stones == a.stones
    assert new_game(seed=5).lair == {}


@pytest.mark.parametrize(
    "lair,needle",
    [
        ({**LAIR, 7: "rotate"}, "each of the seven actions once"),
        ({k: v for k, v in LAIR.items() if k != 7}, "sizes 1–7"),
        ({**{k: v for k, v in LAIR.items() if k != 7}, 8: "swap"}, "sizes 1–7"),
        ({**LAIR, 7: "fly"}, "each of the seven actions once"),
    ],
)
def test_lair_validated(lair, needle):
    with pytest.raises(IllegalMove, match=needle):
        new_game(expansion=True, seed=1, lair=lair)


def test_lair_without_expansion_refused():
    with pytest.raises(IllegalMove, match="expansion"):
        new_game(seed=1, lair=LAIR)


# --------------------------------------------------------------------------------------------------
# Legal moves and notation


@pytest.mark.parametrize("name,count", [("castle", 132), ("garden", 126), ("inner", 92)])
def test_legal_moves_at_start(name, count):
    g = new_game(name, seed=11)
    moves = g.legal_moves()
    assert len(moves) == count == (BOARDS[name].space_count - 3) * 2
    assert len(set(moves)) == count


def test_legal_moves_order_row_then_column_h_before_v():
    g = new_game("castle", seed=1, stones=["A3", "B3", "C3"])
    assert g.legal_moves()[:12] == ["C1H", "C1V", "D1H", "D1V", "E1H", "E1V", "F1H", "F1V", "G1H", "G1V", "B2H", "B2V"]
    assert "A3H" not in g.legal_moves() and "D3H" in g.legal_moves()


@pytest.mark.parametrize(
    "raw,canonical", [("b3h", "B3H"), (" B3 v ", "B3V"), ("B3H", "B3H"), ("\tb 3 H\n", "B3H"), ("B03V", "B3V")]
)
def test_notation_case_and_whitespace_insensitive(raw, canonical):
    g = new_game("castle", seed=1, stones=["C4", "D4", "E4"])
    g.play(raw)
    assert g.moves == [canonical]
    assert g.cell("B3") == canonical[-1]
    assert g.last_changed == ("B3",)
    assert g.to_move == DRAGON_MASTER


def test_cells_and_cell_accessor():
    g = new_game("inner", seed=1, stones=["A1", "B1", "C1"])
    g.play("D1V")
    assert g.cell("a1") == "S" and g.cell("D1") == "V" and g.cell("E1") is None
    assert len(g.cells) == 49 and g.cells["D1"] == "V"
    with pytest.raises(IllegalMove, match="H1 is not on the inner board"):
        g.cell("H1")


def _bad_inputs_game():
    g = new_game("castle", seed=1, stones=["C4", "D4", "E4"])
    g.play("B3H")
    return g


@pytest.mark.parametrize(
    "move,needle",
    [
        ("xyz", "is not a move"),
        ("", "is not a move"),
        ("H", "is not a move"),
        ("B3HV", "is not a move"),
        ("J9H", "J9 is not on the castle board (columns A–I, rows 1–9)"),
        ("A10V", "A10 is not on the castle board"),
        ("A1H", "A1 is outside the board's outline, not a space"),
        ("B3V", "B3 is already taken by a dragon tile"),
        ("C4H", "C4 is already taken by a stone"),
        ("F5X", "'X' is not an orientation"),
        ("F5", "Say which way the tile lies: F5H"),
        ("D2 rotate C4", "without the lair"),
    ],
)
def test_bad_input_leaves_game_unchanged(move, needle):
    g = _bad_inputs_game()
    before = g.to_dict()
    with pytest.raises(IllegalMove) as err:
        g.play(move)
    assert needle in str(err.value)
    assert g.to_dict() == before


@pytest.mark.parametrize("move", ["A1H", "B3V", "C4H"])
def test_refusals_suggest_an_empty_space(move):
    g = _bad_inputs_game()
    with pytest.raises(IllegalMove, match="pick an empty space such as ([A-I][1-9])") as err:
        g.play(move)
    suggested = str(err.value).rsplit(" ", 1)[-1].rstrip(".")
    assert g.cell(suggested) is None


def test_bad_input_non_string():
    g = _bad_inputs_game()
    before = g.to_dict()
    with pytest.raises(IllegalMove):
        g.play(None)  # type: ignore[arg-type]
    assert g.to_dict() == before


def test_pond_and_tree_are_named():
    g = new_game("garden", seed=1)
    with pytest.raises(IllegalMove, match="E5 is the pond"):
        g.play("E5V")
    with pytest.raises(IllegalMove, match="D3 is a tree"):
        g.play("d3h")


# --------------------------------------------------------------------------------------------------
# End of game


def test_dragon_master_wins_at_threshold():
    g = new_game(parse_board("......", name="row", threshold=1), seed=0, stones=["D1", "E1", "F1"])
    g.play("A1V")
    assert g.to_move == DRAGON_MASTER and not g.is_over and g.winner is None and g.outcome is None
    g.play("B1H")
    assert g.to_move == EMPEROR
    g.play("C1V")
    assert g.is_over and g.hong_count() == 1
    assert g.winner == DRAGON_MASTER
    assert g.outcome.describe() == "Dragon master wins: 1 Hong (needs 1)"
    assert g.legal_moves() == []
    before = g.to_dict()
    with pytest.raises(IllegalMove, match="The game is over — Dragon master wins"):
        g.play("A1H")
    assert g.to_dict() == before


def test_emperor_wins_below_threshold():
    g = new_game(parse_board("......", name="row", threshold=2), seed=0, stones=["D1", "E1", "F1"])
    for m in ("A1V", "B1H", "C1V"):
        g.play(m)
    assert g.is_over and g.hong_count() == 1 and g.winner == EMPEROR
    assert g.outcome.describe() == "Emperor wins: 1 Hong (needs 2)"


def test_inner_board_scripted_dragon_master_win():
    # Stones on A1–A3. Rows 1–3 read S H V H V H V (2 Hongs each), rows 4–7 V H V H V H V (3 each);
    # no vertical Hong: column C is all V from edge to edge, column A's V run is capped by a stone.
    # Without the expansion the game is decided when the count reaches 11 (ruling "Decided early"):
    # rows 1–3 give 6, row 4 gives 3 (9), row 5's C5 makes the 10th, its E5 the 11th (30 placements).
    g = new_game("inner", seed=0, stones=["A1", "A2", "A3"])
    played = []
    for r in range(1, 8):
        for c, o in zip("ABCDEFG", "VHVHVHV"):
            if not (c == "A" and r <= 3) and not g.is_over:
                mover = g.to_move
                g.play(f"{c}{r}{o}")
                played.append(f"{c}{r}{o}")
    assert g.is_over and played[-1] == "E5V" and len(g.moves) == 30
    assert g.hong_count() == 11 and g.winner == DRAGON_MASTER
    assert g.to_move == mover  # the turn that decided it stays the last
    assert len(g.empty_squares()) == 16 and g.outcome.spaces_left == 16
    assert g.outcome.describe() == "Dragon master wins: 11 Hongs (needs 11), decided with 16 spaces left"
    assert g.legal_moves() == []
    with pytest.raises(IllegalMove, match="decided with 16 spaces left"):
        g.play("A6V")


def test_decided_early_needs_the_threshold_reached_not_passed():
    # Row "......" with stones D1–F1, threshold 1: A1V B1H C1V makes the one Hong and fills the board; a longer
    # row shows the game ending with spaces left, on the very turn the count reaches the threshold.
    g = new_game(parse_board(".........", name="row9", threshold=1), seed=0, stones=["G1", "H1", "I1"])
    g.play("A1V")
    g.play("B1H")
    assert not g.is_over and g.to_move == EMPEROR
    g.play("C1V")
    assert g.is_over and g.winner == DRAGON_MASTER and g.outcome.spaces_left == 3
    assert g.to_move == EMPEROR


def test_decided_early_survives_copy_and_round_trip():
    g = new_game(parse_board(".........", name="row9", threshold=1), seed=0, stones=["G1", "H1", "I1"])
    for m in ("A1V", "B1H", "C1V"):
        g.play(m)
    assert g.copy().is_over
    again = from_dict(g.to_dict())
    assert again.is_over and again.outcome == g.outcome
    assert from_dict(g.to_dict(), replay=False).is_over


def test_with_the_expansion_the_game_runs_until_the_board_is_full():
    rng = random.Random("expansion-full")
    for _ in range(20):
        g = _random_playout("inner", rng, expansion=True)
        assert g.empty_squares() == [] and g.outcome.spaces_left == 0


def test_inner_board_scripted_emperor_win():
    g = new_game("inner", seed=0, stones=["A1", "A2", "A3"])
    for sq in g.empty_squares():
        g.play(sq + "H")
    assert g.is_over and g.hong_count() == 0 and g.winner == EMPEROR


MIXED_INNER = ["SHVHVHV", "SHVHVHV", "SHVHHHH", "HHHHHHH", "HHHHHHH", "VHVHVHH", "HHHHHHH"]
# Horizontal: D1 F1, D2 F2, B6 D6 (row 3's D–G run and row 6's F–G run end at the edge).
# Vertical: A6, C6, E6 (each capped by H in rows 5 and 7); C1–C3, E1–E2, G1–G2 start at the edge.
MIXED_INNER_HONGS = {
    ("H", ("D1",)),
    ("H", ("F1",)),
    ("H", ("D2",)),
    ("H", ("F2",)),
    ("H", ("B6",)),
    ("H", ("D6",)),
    ("V", ("A6",)),
    ("V", ("C6",)),
    ("V", ("E6",)),
}


def test_inner_board_scripted_mixed_game():
    g = new_game("inner", seed=0, stones=["A1", "A2", "A3"])
    for r, row in enumerate(MIXED_INNER, 1):
        for c, o in zip("ABCDEFG", row):
            if o != "S":
                assert not g.is_over and g.winner is None
                g.play(f"{c}{r}{o}")
    assert g.is_over
    assert as_set(g.hongs()) == MIXED_INNER_HONGS
    assert g.hong_count() == 9 and g.winner == EMPEROR  # needs 11


@pytest.mark.parametrize("threshold,winner", [(8, DRAGON_MASTER), (9, DRAGON_MASTER), (10, EMPEROR)])
def test_reaching_the_threshold_exactly_wins(threshold, winner):
    g = position(MIXED_INNER, threshold=threshold)
    assert g.is_over and g.hong_count() == 9 and g.winner == winner


# --------------------------------------------------------------------------------------------------
# Random playouts


def _random_playout(name: str, rng: random.Random, expansion: bool = False):
    g = new_game(name, seed=rng.randrange(10**9), expansion=expansion)
    filled_by = {}
    while not g.is_over:
        move = rng.choice(g.legal_moves())
        if not expansion:
            sq = move[:-1]
            assert g.cell(sq) is None and sq not in filled_by
            filled_by[sq] = len(g.moves)
        g.play(move)
    return g


@pytest.mark.parametrize("name", ["castle", "garden", "inner"])
def test_random_playouts_invariants(name):
    rng = random.Random(name)
    for _ in range(100):
        g = _random_playout(name, rng)
        b = g.board
        assert g.legal_moves() == []
        assert len(g.moves) == b.space_count - 3 - len(g.empty_squares())
        assert g.outcome.spaces_left == len(g.empty_squares())
        if g.empty_squares():  # decided early: the last placement brought the count up to the threshold
            before = new_game(name, seed=g.seed)
            for move in g.moves[:-1]:
                before.play(move)
            assert before.hong_count() < g.threshold <= g.hong_count() and g.winner == DRAGON_MASTER
        assert sum(v == "S" for v in g.cells.values()) == 3
        assert as_set(g.hongs()) == naive_hongs(g)
        assert g.hong_count() == len(g.hongs())
        assert g.winner in (EMPEROR, DRAGON_MASTER)
        assert g.winner == (DRAGON_MASTER if g.hong_count() >= g.threshold else EMPEROR)


def test_hong_detection_matches_definition_mid_game():
    rng = random.Random(99)
    for name in BOARDS:
        g = new_game(name, seed=1)
        while not g.is_over:
            g.play(rng.choice(g.legal_moves()))
            assert as_set(g.hongs()) == naive_hongs(g)
            assert g.hong_count() == len(g.hongs())


def test_last_created_is_the_new_hongs():
    g = position(["V.V....", "SSS...."])
    g.play("B1H")
    assert g.last_created == (Hong("H", ("B1",), 1, ("A1", "C1")),)
    g.play("D1H")
    assert g.last_created == ()


# --------------------------------------------------------------------------------------------------
# Serialisation


def test_round_trip_at_random_points():
    rng = random.Random(5)
    for name in BOARDS:
        for _ in range(10):
            g = new_game(name, seed=rng.randrange(1000))
            for _ in range(rng.randrange(g.board.space_count - 2)):
                if g.is_over:  # decided early
                    break
                g.play(rng.choice(g.legal_moves()))
            d = g.to_dict()
            again = from_dict(json.loads(json.dumps(d)))
            assert again.to_dict() == d
            assert again.hongs() == g.hongs() and again.legal_moves() == g.legal_moves()
            assert (again.to_move, again.is_over, again.winner, again.moves, again.stones, again.seed) == (
                g.to_move,
                g.is_over,
                g.winner,
                g.moves,
                g.stones,
                g.seed,
            )
            assert again.last_created == g.last_created and again.last_changed == g.last_changed


def test_round_trip_custom_board():
    g = position(["VHV.", "SSS.", "#..."], threshold=2)
    again = from_dict(json.loads(json.dumps(g.to_dict())), replay=False)
    assert again.board == g.board and again.to_dict() == g.to_dict()


def test_to_dict_is_compact():
    g = new_game("castle", seed=1)
    assert g.to_dict()["grid"].count("/") == 8
    assert len(json.dumps(g.to_dict())) < 400


def test_from_dict_rejects_damage():
    d = new_game("castle", seed=1).to_dict()
    with pytest.raises(InvalidState):
        from_dict({**d, "grid": "..."})
    with pytest.raises(InvalidState):
        from_dict({k: v for k, v in d.items() if k != "seed"})
    with pytest.raises(InvalidState, match="not a game of Hong"):
        from_dict({**d, "game": "hongkong"})
    for replay in (True, False):
        with pytest.raises(InvalidState):
            from_dict({**d, "board": "moon"}, replay=replay)


def test_copy_is_independent():
    g = new_game("inner", seed=2)
    c = g.copy()
    c.play(c.legal_moves()[0])
    assert g.moves == [] and len(c.moves) == 1 and g.to_dict() != c.to_dict()
    assert g.copy().to_dict() == g.to_dict()


def test_action_help_covers_every_action():
    assert set(ACTION_HELP) == set(ACTIONS) and len(ACTIONS) == 7
    assert all(isinstance(v, str) and "\n" not in v for v in ACTION_HELP.values())


# --------------------------------------------------------------------------------------------------
# Expansion: the Lair of the Seven Great Dragons


def lair_with(**sizes: int) -> dict[int, str]:
    """``LAIR`` rearranged so that each named action sits at the given size (the rest fill in)."""
    out = {size: action for action, size in sizes.items()}
    rest = iter(a for a in ACTIONS if a not in sizes)
    for s in range(1, 8):
        if s not in out:
            out[s] = next(rest)
    return out


def summoning(action: str, rows=("V.V..", ".....", "SSS.."), **kw):
    """A game where the emperor has just placed B1H between two V tiles (a size-1 Hong) and so
    summons the size-1 dragon, whose action is ``action``."""
    g = position(list(rows), expansion=True, lair=lair_with(**{action: 1}), **kw)
    g.play("B1H")
    return g


def test_placement_creating_a_hong_summons_its_dragon():
    g = summoning("rotate")
    assert g.pending is not None
    assert g.pending.player == EMPEROR and dict(g.pending.options) == {1: "rotate"} and g.pending.sizes == (1,)
    assert g.to_move == EMPEROR and not g.is_over
    assert g.last_created == (Hong("H", ("B1",), 1, ("A1", "C1")),)
    assert 1 in g.lair


def test_rotate():
    g = summoning("rotate")
    assert g.legal_moves() == ["D1 rotate A1", "D1 rotate B1", "D1 rotate C1"]
    g.play("d1  ROTATE a1")
    assert g.cell("A1") == "H" and g.moves == ["B1H", "D1 rotate A1"]
    assert g.last_changed == ("A1",) and 1 not in g.lair and g.lair_setup[1] == "rotate"
    assert g.pending is None and g.to_move == DRAGON_MASTER
    assert g.hongs() == []


def test_place():
    g = summoning("place")
    moves = g.legal_moves()
    assert len(moves) == 2 * 9 and moves[:4] == ["D1 place D1H", "D1 place D1V", "D1 place E1H", "D1 place E1V"]
    g.play("D1 place E2H")
    assert g.cell("E2") == "H" and g.moves[-1] == "D1 place E2H" and g.to_move == DRAGON_MASTER
    assert len(g.empty_squares()) == 8
    g2 = summoning("place")
    g2.play("D1 place e2 v")  # orientation may be written apart
    assert g2.moves[-1] == "D1 place E2V"


def test_movestone():
    g = summoning("movestone")
    assert len(g.legal_moves()) == 3 * 9 and g.legal_moves()[0] == "D1 movestone A3 D1"
    g.play("D1 movestone A3 E2")
    assert g.cell("A3") is None and g.cell("E2") == "S" and g.last_changed == ("A3", "E2")
    assert g.to_move == DRAGON_MASTER and len(g.empty_squares()) == 9


def test_flip():
    g = summoning("flip")
    assert g.legal_moves() == ["D1 flip A1", "D1 flip B1", "D1 flip C1"]
    g.play("D1 flip C1")
    assert g.cell("C1") == "S" and g.hongs() == [] and g.to_move == DRAGON_MASTER


def test_move():
    g = summoning("move")
    assert g.legal_moves() == ["D1 move A1 A2", "D1 move B1 B2", "D1 move C1 D1", "D1 move C1 C2"]
    before = g.to_dict()
    with pytest.raises(IllegalMove, match="E1 is not next to C1"):
        g.play("D1 move C1 E1")
    assert g.to_dict() == before
    g.play("D1 move C1 D1")
    assert g.cell("C1") is None and g.cell("D1") == "V" and g.last_changed == ("C1", "D1")
    assert g.to_move == DRAGON_MASTER


def test_stone():
    g = summoning("stone")
    assert len(g.legal_moves()) == 9 and g.legal_moves()[0] == "D1 stone D1"
    g.play("D1 stone E2")
    assert g.cell("E2") == "S" and g.to_move == DRAGON_MASTER and len(g.empty_squares()) == 8


def test_swap():
    g = summoning("swap")
    moves = g.legal_moves()
    assert len(moves) == 3 * 3 * 2 and moves[:3] == ["D1 swap A1 A3 H", "D1 swap A1 A3 V", "D1 swap A1 B3 H"]
    g.play("D1 swap B1 A3 V")
    assert g.cell("B1") == "S" and g.cell("A3") == "V" and g.moves[-1] == "D1 swap B1 A3 V"
    assert g.to_move == DRAGON_MASTER


@pytest.mark.parametrize(
    "move,needle",
    [
        (
            "C2H",
            "You are summoning a Great Dragon: carry out its action before placing a tile — "
            "D1 rotate <tile>, e.g. D1 rotate A1.",
        ),
        ("D2 rotate A1", "size 2 is not being summoned now — you can summon D1 rotate <tile>, e.g. D1 rotate A1."),
        ("D1 flip A1", "does rotate, not 'flip': D1 rotate <tile>, e.g. D1 rotate A1."),
        ("D1 rotate", "rotate takes <tile>: D1 rotate <tile>, e.g. D1 rotate A1."),
        ("D1 rotate A1 B1", "rotate takes <tile>"),
        ("D1 rotate A3", "A3 is a stone, not a dragon tile"),
        ("D1 rotate D1", "D1 is empty, not a dragon tile"),
        ("D1 rotate Z9", "Z9 is not on the test board"),
        ("D1 rotate ??", "'??' is not a square — D1 rotate <tile>, e.g. D1 rotate A1."),
        ("D1", "You are summoning a Great Dragon"),
        ("rotate A1", "Say which dragon first: D1 rotate <tile>, e.g. D1 rotate A1."),
        (
            "swap A1 A3 H",
            "'swap A1 A3 H' is not a dragon action: write D<size> <action> then its squares. "
            "You can summon D1 rotate <tile>, e.g. D1 rotate A1.",
        ),
    ],
)
def test_bad_actions_leave_game_unchanged(move, needle):
    g = summoning("rotate")
    before = g.to_dict()
    with pytest.raises(IllegalMove) as err:
        g.play(move)
    assert needle in str(err.value)
    assert g.to_dict() == before


@pytest.mark.parametrize(
    "action,move,needle",
    [
        ("movestone", "D1 movestone B1 D1", "B1 is a dragon tile, not a stone"),
        ("movestone", "D1 movestone A3 B3", "B3 is already taken"),
        ("swap", "D1 swap A3 B1 V", "A3 is a stone, not a dragon tile"),
        ("swap", "D1 swap B1 A3 X", "'X' is not an orientation"),
        ("place", "D1 place A1H", "A1 is already taken"),
        ("stone", "D1 stone C1", "C1 is already taken"),
        ("move", "D1 move A3 A2", "A3 is a stone"),
    ],
)
def test_bad_action_arguments(action, move, needle):
    g = summoning(action)
    before = g.to_dict()
    with pytest.raises(IllegalMove, match=needle):
        g.play(move)
    assert g.to_dict() == before


def test_action_refused_when_none_is_pending():
    g = position(["V.V..", ".....", "SSS.."], expansion=True, lair=LAIR)
    before = g.to_dict()
    with pytest.raises(IllegalMove, match="No Great Dragon is being summoned now — place a tile such as"):
        g.play("D1 rotate A1")
    assert g.to_dict() == before


def test_choice_between_two_sizes_the_other_stays_in_the_lair():
    g = position(["VH.HHV.", ".......", "SSS...."], expansion=True, lair=lair_with(rotate=1, place=2))
    g.play("C1V")  # creates B1 (size 1) and D1–E1 (size 2)
    assert dict(g.pending.options) == {1: "rotate", 2: "place"}
    moves = g.legal_moves()
    assert moves[0] == "D1 rotate A1" and "D2 place G1H" in moves and len(moves) == 6 + 2 * 12
    g.play("D2 place G3V")
    assert g.pending is None and g.to_move == DRAGON_MASTER
    assert 1 in g.lair and 2 not in g.lair
    # The size-1 dragon waits for a later Hong of size 1: the dragon master makes one below.
    g.play("B2V")
    g.play("C2H")
    assert g.pending is None and g.to_move == DRAGON_MASTER  # B2 V, C2 H, D2 empty: no Hong yet
    g.play("D2V")
    assert g.last_created == (Hong("H", ("C2",), 1, ("B2", "D2")),)
    assert g.pending is not None and g.pending.player == DRAGON_MASTER and dict(g.pending.options) == {1: "rotate"}


def test_chain_of_two_summons():
    g = position(["V.V..", "HHHV.", "....S", "...SS"], expansion=True, lair=lair_with(rotate=1, place=2))
    g.play("B1H")  # size-1 Hong B1 → summon rotate
    assert dict(g.pending.options) == {1: "rotate"}
    g.play("D1 rotate A2")  # A2 H→V: V H H V is a size-2 Hong → summon place
    assert g.last_created == (Hong("H", ("B2", "C2"), 2, ("A2", "D2")),)
    assert g.pending is not None and g.pending.player == EMPEROR and dict(g.pending.options) == {2: "place"}
    assert g.to_move == EMPEROR
    g.play("D2 place A4H")  # creates no Hong: the turn ends
    assert g.pending is None and g.to_move == DRAGON_MASTER
    assert g.moves == ["B1H", "D1 rotate A2", "D2 place A4H"]
    assert set(g.lair) == {3, 4, 5, 6, 7}


def test_an_action_summons_one_dragon_even_if_it_creates_two_sizes():
    # Rotating D1 from H to V caps B1–C1 (size 2) and E1 (size 1) at once.
    g = position(["VHHHHV.", "V.V....", "SSS...."], expansion=True, lair=lair_with(rotate=1, flip=2, stone=4))
    g.play("B2H")  # size-1 Hong B2 → summon rotate
    g.play("D1 rotate D1")  # V H H V H V: B1–C1 (2) and E1 (1); size 1 already used
    assert {h.size for h in g.last_created} == {1, 2}
    assert dict(g.pending.options) == {2: "flip"}
    g.play("D2 flip E1")
    assert g.pending is None and g.to_move == DRAGON_MASTER


def test_a_used_dragon_is_not_summoned_again():
    g = position(["V.V.V", ".....", "SSS.."], expansion=True, lair=lair_with(place=1))
    g.play("B1H")
    g.play("D1 place D1H")  # another size-1 Hong, but the size-1 dragon has left the game
    assert len(g.last_created) == 1 and g.pending is None and g.to_move == DRAGON_MASTER


@pytest.mark.parametrize("action", ["place", "movestone", "move", "stone"])
def test_dragon_needing_an_empty_space_is_not_summoned_on_a_full_board(action):
    g = position(["V.V", "SSS"], threshold=1, expansion=True, lair=lair_with(**{action: 1}))
    g.play("B1H")  # fills the board and creates a size-1 Hong
    assert g.pending is None and g.is_over and g.lair[1] == action
    assert g.winner == DRAGON_MASTER


def test_move_is_not_summoned_when_no_tile_has_an_empty_neighbour():
    g = position(["V.V", "SSS", "#.."], expansion=True, lair=lair_with(move=1))
    g.play("B1H")
    assert g.pending is None and not g.is_over and g.to_move == DRAGON_MASTER and g.lair[1] == "move"


def test_no_stone_to_move_or_swap():
    # Three setup stones can never leave the board, so this only arises from a crafted state:
    # the engine still follows the rule "an impossible action is not summoned".
    for action in ("movestone", "swap"):
        g = position(["V.V..", ".....", "SSS.."], expansion=True, lair=lair_with(**{action: 1}))
        d = g.to_dict()
        d["grid"] = d["grid"].replace("S", ".")
        g = from_dict(d, replay=False)
        g.play("B1H")
        assert g.pending is None and g.to_move == DRAGON_MASTER and g.lair[1] == action


def test_summon_on_the_turn_that_fills_the_board_and_end_checked_after_it():
    g = position(["V.V", "SSS"], expansion=True, lair=lair_with(rotate=1))
    g.play("B1H")  # the last space: 1 Hong, the threshold
    assert g.empty_squares() == [] and not g.is_over and g.winner is None
    assert g.legal_moves() == ["D1 rotate A1", "D1 rotate B1", "D1 rotate C1"]
    g.play("D1 rotate A1")  # breaks the Hong before the count
    assert g.is_over and g.hong_count() == 0 and g.winner == EMPEROR


def test_place_action_filling_the_last_space_ends_the_game():
    g = position(["V.VS", "SS.#"], threshold=1, expansion=True, lair=lair_with(place=1))
    g.play("B1H")
    assert not g.is_over and g.pending is not None
    g.play("D1 place C2H")
    assert g.is_over and g.winner == DRAGON_MASTER and len(g.moves) == 2


def test_pending_round_trip():
    g = position(["VH.HHV.", ".......", "SSS...."], expansion=True, lair=lair_with(rotate=1, place=2))
    g.play("C1V")
    d = json.loads(json.dumps(g.to_dict()))
    assert d["pending"] == {"player": 0, "sizes": [1, 2]}
    again = from_dict(d, replay=False)
    assert again.to_dict() == g.to_dict() and again.pending == g.pending
    assert again.legal_moves() == g.legal_moves()


@pytest.mark.parametrize("name", ["castle", "garden", "inner"])
def test_random_playouts_with_the_expansion(name):
    rng = random.Random("lair" + name)
    summons = 0
    for n in range(60):
        g = new_game(name, seed=rng.randrange(10**9), expansion=True)
        turn_player = g.to_move
        while not g.is_over:
            assert g.to_move == turn_player
            if g.pending is not None:
                assert g.pending.player == g.to_move
                assert all(g.lair[s] == a for s, a in g.pending.options.items())
            move = rng.choice(g.legal_moves())
            g.play(move)
            if g.pending is None and not g.is_over:
                turn_player = 1 - turn_player
            if rng.random() < 0.05:
                d = json.loads(json.dumps(g.to_dict()))
                assert from_dict(d).to_dict() == g.to_dict()
        actions = [m for m in g.moves if m.startswith("D") and " " in m]
        summons += len(actions)
        fills = sum(1 for m in g.moves if " " not in m) + sum(" place " in m or " stone " in m for m in actions)
        assert fills == g.board.space_count - 3
        assert g.empty_squares() == [] and g.pending is None
        used = {int(m.split()[0][1:]) for m in actions}
        assert len(used) == len(actions) and set(g.lair) == set(range(1, 8)) - used
        assert all(g.lair_setup[int(m.split()[0][1:])] == m.split()[1] for m in actions)
        assert as_set(g.hongs()) == naive_hongs(g)
        assert g.winner == (DRAGON_MASTER if g.hong_count() >= g.threshold else EMPEROR)
    assert summons > 60  # the lair is really exercised


@pytest.mark.parametrize(
    "change",
    [
        {"last_created": [["Q", []]]},
        {"to_move": 7},
        {"to_move": -1},
        {"expansion": "no"},
        {"moves": "C4H"},
        {"lair": {"1": "explode"}},
        {"seed": 1.5},
        {"moves": ["C4H"]},
        {"stones": ["A1"]},
        {"board": "moon"},
    ],
)
def test_from_dict_refuses_damaged_records_with_invalid_state(change):
    d = json.loads(json.dumps(new_game("castle", seed=5, expansion=True).to_dict()))
    with pytest.raises(InvalidState, match="saved"):
        from_dict({**d, **change})


def test_from_dict_replays_the_moves():
    g = new_game("inner", seed=9, expansion=True)
    rng = random.Random(9)
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    d = json.loads(json.dumps(g.to_dict()))
    assert from_dict(d).to_dict() == g.to_dict()
    i = d["grid"].index("H")
    d["grid"] = d["grid"][:i] + "V" + d["grid"][i + 1 :]  # a tile turned behind the record's back
    with pytest.raises(InvalidState, match="does not match its moves"):
        from_dict(d)


# ---- undo: pop and truncate ---------------------------------------------------------------------------


def full_state(g):
    """Every field of the game but its undo history, the lair with its order: equal means the same game."""
    fields = {slot: getattr(g, slot) for slot in hong.HongGame.__slots__ if slot != "_undo"}
    return tuple(
        list(v.items()) if isinstance(v, dict) else list(v) if isinstance(v, list) else v for v in fields.values()
    )


@pytest.mark.parametrize("board, expansion", [("inner", False), ("inner", True), ("garden", True), ("castle", False)])
@pytest.mark.parametrize("seed", range(6))
def test_pop_restores_the_state_before_each_move(board, expansion, seed):
    g = new_game(board, expansion=expansion, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        before, d = full_state(g), g.to_dict()
        move = rng.choice(g.legal_moves())
        g.play(move)
        after = full_state(g)
        assert g.pop() == move
        assert full_state(g) == before and g.to_dict() == d
        g.play(move)
        assert full_state(g) == after


def test_pop_undoes_summons_dragon_actions_and_an_early_decision():
    seen = {"summon": 0, "action": 0, "early": 0}
    for seed in range(40):
        g = new_game("inner", expansion=seed % 2 == 1, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            g.play(rng.choice(g.legal_moves()))
        states = []
        replay = new_game("inner", expansion=g.expansion, seed=seed)
        for move in g.moves:
            states.append((full_state(replay), replay.legal_moves()))
            replay.play(move)
        seen["early"] += bool(g.empty_squares())
        while g.moves:
            move = g.pop()
            seen["action"] += move.startswith("D")
            seen["summon"] += g.pending is not None
            assert (full_state(g), g.legal_moves()) == states[len(g.moves)]
    assert all(n >= 5 for n in seen.values()), seen


@pytest.mark.parametrize("expansion", [False, True])
def test_truncate_equals_a_fresh_replay(expansion):
    g = new_game("garden", expansion=expansion, seed=3)
    rng = random.Random(3)
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    moves = list(g.moves)
    for n in sorted(rng.sample(range(len(moves)), 8), reverse=True):
        undone = g.truncate(n)
        fresh = new_game("garden", expansion=expansion, seed=3)
        for move in moves[:n]:
            fresh.play(move)
        assert full_state(g) == full_state(fresh) and g.moves + undone == moves[: n + len(undone)]


def test_pop_refuses_without_history():
    g = new_game("inner", seed=1, stones=["A1", "A2", "A3"])
    with pytest.raises(IndexError, match="no move has been played"):
        g.pop()
    g.play("C4H")
    with pytest.raises(IndexError, match="loaded without its history"):
        from_dict(g.to_dict(), replay=False).pop()
    assert from_dict(g.to_dict()).pop() == "C4H"  # a replayed game has its history
    with pytest.raises(IndexError):
        g.truncate(2)


def test_copy_copies_the_history():
    g = new_game("inner", seed=2)
    first = g.legal_moves()[0]
    g.play(first)
    c = g.copy()
    c.play(c.legal_moves()[0])
    assert c.pop() and c.pop() == first and c.moves == []
    assert g.moves == [first] and g.pop() == first


def test_kind_and_pending_are_the_contract_fields():
    g = new_game("inner", seed=2)
    assert g.kind == "hong" and g.pending is None


def test_a_dragon_action_is_read_as_typed_and_anything_else_refused_with_its_syntax():
    """hong.dragon_action: what a command meant for dragon actions passes on (the position judges it later);
    a placement or anything else is refused there with the actions' syntax, never played as a tile."""
    for typed in ("D2 rotate C4", "d1 swap c3 c6 v", "ｄ１ ｓｗａｐ", "swap C3 C6 V", "rotate"):
        assert hong.dragon_action(typed) == typed
    for typed in ("D4H", "x", "C4 V", "", "D4 H"):
        with pytest.raises(IllegalMove) as refused:
            hong.dragon_action(typed)
        assert str(refused.value) == (
            f"{typed.strip()!r} is not a dragon action: write D<size> <action> then its "
            "squares, e.g. D2 rotate C4. The post that summons a Great Dragon lists the ones "
            "you can choose."
        )
