"""The engine contract (engine/contract.py) over every registered game: the module and its game object, play and
pop, truncate, to_dict/from_dict with and without the replay, legal moves as a sequence, copies, pickling, and
refusals that change nothing."""

from __future__ import annotations

import json
import pickle
import random
import re
from collections.abc import Sequence

import pytest

from engine import IllegalMove, InvalidState, Term, registry
from engine.contract import GameModule
from tests.contract.games import GAMES, SETUPS, Setup, finished, fresh, ids, midgame, play_on


def snapshot(game) -> tuple:
    """What the contract lets one observe of a game: its state, whose turn, the end, the pending part of a turn and
    the legal moves."""
    return game.to_dict(), game.to_move, game.is_over, game.winner, game.pending, list(game.legal_moves())


# --- the module and its game ------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_the_module_is_a_game_module_and_its_games_say_so(name):
    module = registry.find(name).module
    assert isinstance(module, GameModule)
    assert module.NAME == name and re.fullmatch(r"[a-z]{1,32}", name)  # a slash command's name
    game = module.new_game()  # every option has a default
    assert game.kind == type(game).kind == name
    assert registry.of(game).module is module
    assert game.moves == [] and game.to_move in (0, 1) and not game.is_over
    assert game.winner is None and game.outcome is None
    assert game.to_dict()["game"] == name and game.to_dict()["moves"] == []
    assert json.loads(json.dumps(game.to_dict())) == game.to_dict()


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_played_to_its_end(setup, seed):
    """While playing: no outcome, no winner, legal moves. At the end: no legal move, an outcome whose winner is the
    game's, and a refused move."""
    game, rng = fresh(setup, seed), random.Random(seed)
    while not game.is_over:
        assert game.outcome is None and game.winner is None and len(game.legal_moves()) > 0
        mover = game.to_move
        game.play(rng.choice(game.legal_moves()))
        assert game.to_move in (0, 1) and (game.pending is None or game.to_move == mover)
    assert len(game.legal_moves()) == 0 and list(game.legal_moves()) == []
    assert game.outcome is not None and game.winner == game.outcome.winner and game.winner in (0, 1, None)
    before = snapshot(game)
    with pytest.raises(IllegalMove):
        game.play(game.moves[-1])
    assert snapshot(game) == before


# --- play and pop -----------------------------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("seed", [3, 4])
def test_pop_undoes_each_move_exactly(setup, seed):
    game, rng = fresh(setup, seed), random.Random(seed)
    with pytest.raises(IndexError):
        game.pop()
    while not game.is_over:
        before = snapshot(game)
        move = rng.choice(game.legal_moves())
        game.play(move)
        assert game.moves[-1] == move  # legal moves are in canonical notation: recorded as they are
        after = snapshot(game)
        assert game.pop() == move
        assert snapshot(game) == before
        game.play(move)
        assert snapshot(game) == after
    history = []
    while game.moves:  # and back to the start from the end
        history.append(game.pop())
    assert snapshot(game) == snapshot(fresh(setup, seed))
    assert history[::-1] == finished(setup, seed).moves


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_truncate_goes_back_to_any_move(setup):
    game = finished(setup, 5)
    moves = list(game.moves)
    states = [snapshot(play_on(fresh(setup, 5), random.Random(5), n)) for n in range(len(moves) + 1)]
    assert states[-1] == snapshot(game)
    for n in sorted({len(moves), len(moves) - 1, len(moves) // 2, 1, 0}, reverse=True):
        undone = game.truncate(n)
        assert undone == moves[n:] and game.moves == moves[:n] and snapshot(game) == states[n]
        for move in undone:
            game.play(move)
        assert snapshot(game) == states[-1]
    for bad in (-1, len(moves) + 1, "0", 1.0, None):
        with pytest.raises(IndexError):
            game.truncate(bad)
        assert snapshot(game) == states[-1]


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_refused_input_changes_nothing_and_says_why(setup):
    game = midgame(setup, 6)
    before = snapshot(game)
    for bad in ("", "   ", "zz", "\U0001f600", "@@@@", "A1 " * 40):
        with pytest.raises(IllegalMove) as refused:
            game.play(bad)
        assert isinstance(refused.value, ValueError) and isinstance(refused.value.message, Term)
        assert str(refused.value) == str(refused.value.message) != ""
        assert snapshot(game) == before


# --- legal moves ------------------------------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("when", ["opening", "midgame"])
def test_legal_moves_are_a_sequence_of_moves_that_play(setup, when):
    game = fresh(setup, 7) if when == "opening" else midgame(setup, 7)
    legal = game.legal_moves()
    written = list(legal)
    assert isinstance(legal, Sequence) and len(legal) == len(written) > 0
    assert legal == written and legal[0] == written[0] and legal[-1] == written[-1]
    assert all(move in legal for move in written[:: max(1, len(written) // 50)])
    assert "no move at all" not in legal and len(set(written)) == len(written)
    assert all(isinstance(move, str) for move in written)
    assert list(game.legal_moves()) == written  # reading changed nothing
    for move in random.Random(7).sample(written, min(20, len(written))):
        copy = game.copy()
        copy.play(move)
        assert copy.moves[-1] == move


# --- copies, saved states, pickles ------------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_a_copy_is_independent_and_keeps_its_history(setup):
    game = midgame(setup, 8)
    before = snapshot(game)
    copy = game.copy()
    assert type(copy) is type(game) and snapshot(copy) == before
    play_on(copy, random.Random(8), 3)
    assert snapshot(game) == before
    while copy.moves:
        copy.pop()
    assert snapshot(copy) == snapshot(fresh(setup, 8))


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("when", ["opening", "midgame", "end"])
def test_to_dict_and_from_dict_with_and_without_the_replay(setup, when):
    game = {"opening": fresh, "midgame": midgame, "end": finished}[when](setup, 9)
    saved = json.loads(json.dumps(game.to_dict()))  # as stored: JSON
    module = registry.find(setup.name).module
    replayed, loaded = module.from_dict(saved), module.from_dict(saved, replay=False)
    assert snapshot(replayed) == snapshot(loaded) == snapshot(game)
    assert registry.load(saved).to_dict() == saved
    if game.moves:  # the replay rebuilds the undo history; without it, pop works or says it can't
        assert replayed.pop() == game.moves[-1]
        try:
            assert loaded.pop() == game.moves[-1] and snapshot(loaded) == snapshot(replayed)
        except IndexError:
            assert snapshot(loaded) == snapshot(game)


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("replay", [True, False])
def test_from_dict_refuses_what_is_not_this_game(setup, replay):
    """Without the replay the shape is checked (not this game, a field missing or of the wrong type); with it the
    moves too, against the rules."""
    module = registry.find(setup.name).module
    saved = finished(setup, 10).to_dict()
    other = next((g for g in GAMES if g != setup.name), "chess")
    damaged = [
        None,
        [],
        "text",
        {},
        {**saved, "game": other},
        {**saved, "game": None},
        {k: v for k, v in saved.items() if k != "moves"},
        {**saved, "moves": "S@A1"},
        {**saved, "moves": [1, 2]},
    ]
    if replay:
        moves = saved["moves"]
        damaged += [
            {**saved, "moves": moves + ["not a move"]},
            {**saved, "moves": moves + moves[-1:]},  # a move after the end
            {**saved, "moves": _a_move_played_twice(setup, moves)},
        ]
    for state in damaged:
        with pytest.raises(InvalidState):
            module.from_dict(state, replay=replay)


def _a_move_played_twice(setup: Setup, moves: list[str]) -> list[str]:
    """The first ``moves[:i + 1] + [moves[i]]`` (of a game of ``setup`` with seed 10) whose last move the rules
    refuse."""
    for i in range(len(moves)):
        game = fresh(setup, 10)
        for move in moves[: i + 1]:
            game.play(move)
        if moves[i] not in game.legal_moves():
            return moves[: i + 1] + [moves[i]]
    raise AssertionError("every move could be played twice")


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
@pytest.mark.parametrize("when", ["opening", "midgame", "end"])
def test_a_game_pickles_with_its_history(setup, when):
    """Games cross to worker processes (the computer, the boards): pickled by every protocol, a game is the same
    game, undo history included."""
    game = {"opening": fresh, "midgame": midgame, "end": finished}[when](setup, 11)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(game, protocol))
        assert type(back) is type(game) and snapshot(back) == snapshot(game)
        if game.moves:
            assert back.pop() == game.moves[-1]
            copy = game.copy()
            copy.pop()
            assert snapshot(back) == snapshot(copy)
        back.legal_moves()
        assert pickle.loads(pickle.dumps(back.legal_moves(), protocol)) == back.legal_moves()


@pytest.mark.parametrize("setup", SETUPS, ids=ids(SETUPS))
def test_a_refusal_pickles_with_its_template(setup):
    game = midgame(setup, 12)
    with pytest.raises(IllegalMove) as refused:
        game.play("zz")
    back = pickle.loads(pickle.dumps(refused.value))
    assert str(back) == str(refused.value) and back.message.template == refused.value.message.template
    assert back.message.params == refused.value.message.params
