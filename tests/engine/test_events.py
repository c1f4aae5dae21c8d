"""What a turn did, as the engines report it (``HongKongGame.last_turn_events``, ``HongGame.last_move_events``):
derived from the positions before and after, so the bot can say it in words."""

from __future__ import annotations

import random

import engine.hong as hong
import engine.hongkong as hk

from .test_hong import lair_with, position


def kinds(events) -> list[tuple]:
    return [(e.kind, e.player, e.square, e.buildings) for e in events]


# --- Hong Kong -------------------------------------------------------------------------------------------


def test_hongkong_nothing_before_the_first_turn_and_a_first_lead():
    game = hk.new_game(0)
    assert game.last_turn_events() == []
    game.play("S@A1")
    assert kinds(game.last_turn_events()) == [("lead", 0, None, (1, 0))]
    game.play("S@E5")
    assert kinds(game.last_turn_events()) == [("level", None, None, (1, 1))]  # C3 empty: no centre holder


def test_hongkong_capture_and_seal_in_one_turn():
    game = hk.new_game(0)
    game.play("S@B2")  # Ann: one block on B2
    game.play("Q@C2 S@C2")  # Ben: two blocks on C2, next to it
    game.play("S@E5")
    before = game.buildings()
    game.play("Q@B2 R@B2")  # Ben: a quick block takes B2 (two blocks, as high as C2), the roof seals it
    assert kinds(game.last_turn_events()) == [
        ("capture", 1, "B2", None),
        ("seal", 1, "B2", None),
        ("lead", 1, None, (1, 2)),
    ]
    assert game.buildings() == (before[0] - 1, before[1] + 1)


def test_hongkong_roof_on_own_building_seals_without_capture():
    game = hk.new_game(0)
    game.play("S@A1")
    game.play("S@E5")
    game.play("R@A1")
    assert kinds(game.last_turn_events()) == [("seal", 0, "A1", None)]


def test_hongkong_level_names_the_centre_holder_and_the_centre_decides_at_the_end():
    game = hk.new_game(0)
    game.play("S@A1")
    game.play("S@C3")  # Ben holds the centre
    assert kinds(game.last_turn_events()) == [("level", 1, None, (1, 1))]
    # a random game (seed found by search) that ends level and is decided by the centre
    game, rng = hk.new_game(), random.Random(24)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    assert game.outcome.centre_decided
    last = game.last_turn_events()
    assert last[-1].kind == "centre" and last[-1].player == game.winner and last[-1].square == "C3"
    assert not any(e.kind in ("lead", "level") for e in last)


def test_hongkong_events_leave_the_game_unchanged():
    game, rng = hk.new_game(), random.Random(3)
    for _ in range(20):
        game.play(rng.choice(game.legal_moves()))
        state = game.to_dict()
        game.last_turn_events()
        assert game.to_dict() == state and len(game.legal_moves()) > 0


# --- Hong ------------------------------------------------------------------------------------------------


def test_hong_a_new_hong_with_the_dragon_it_summons():
    g = position(["V.V..", ".....", "SSS.."], expansion=True, lair=lair_with(rotate=1))
    g.play("B1H")
    (event,) = g.last_move_events()
    assert (event.kind, event.hong.size, event.hong.direction, event.dragon) == ("hong", 1, "H", "rotate")
    assert (event.hongs, event.threshold, event.spaces_left) == (1, 99, 9)


def test_hong_without_the_expansion_no_dragon_and_decided_early():
    g = position(["V.V..", ".....", "SSS.."], threshold=1)
    g.play("B1H")
    events = g.last_move_events()
    assert [(e.kind, e.dragon) for e in events] == [("hong", None), ("decided", None)]
    assert events[-1].hongs == 1 and events[-1].spaces_left == 9 and g.is_over


def test_hong_a_dragon_action_breaks_and_makes_hongs():
    g = position(["V.V..", ".....", "SSS.."], expansion=True, lair=lair_with(rotate=1))
    g.play("B1H")
    g.play("D1 rotate B1")  # B1 turns V: the Hong V-H-V is broken
    assert [(e.kind, e.hong.cells) for e in g.last_move_events()] == [("broken", ("B1",))]


def test_hong_a_move_that_changes_no_hong_has_no_event():
    g = hong.new_game("castle", seed=3)
    assert g.last_move_events() == []
    g.play(g.legal_moves()[0])
    assert g.last_move_events() == []
