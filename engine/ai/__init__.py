"""Computer opponents for both games: one entry point, three levels.

Usage::

    from engine.ai import choose_move, LEVELS
    move = choose_move(game, level="hard", seed=1234)   # a legal move for game.to_move
    game.play(move)

Technique (details in each game's module):

* Hong Kong (:mod:`engine.ai.hongkong`): alpha-beta search over single placements (a quick block is a
  half-move that costs no depth) with an evaluation of controlled, sealed and threatened buildings,
  height, the centre and pieces in hand.
* Hong (:mod:`engine.ai.hong`): alpha-beta search over placements and dragon actions, evaluated by the
  dragon master's chance to reach the threshold, computed line by line from the exact mean and variance
  of each row's and column's Hongs under a random completion.

Both search with a *node budget*, so a move depends only on the position, the level (or budget) and the
seed: the same call gives the same move on any machine. Each level also has a wall-clock cap as a safety
net for a machine much slower than the one the budgets were measured on; while the node budget runs out
first (always, on the reference machine) the result is reproducible.

Levels:

* ``easy``: looks one turn ahead and plays a random move among the near-best ones: plausible, fast, and
  beatable.
* ``medium``: a short search.
* ``hard``: the full budget. Measured on a 2-core machine (``tests/bench/ai_match.py --games 200``):
  Hong Kong median 0.64 s, worst 1.07 s per move; Hong median 0.37 s, worst 2.68 s (the wall-clock cap).

The functions are pure (no I/O, the game is never changed) and take picklable arguments, so they can run
in a process pool. Hong Kong games pickle; Hong games do not (their board holds a ``mappingproxy``), so
pass a Hong game as ``game.to_dict()`` to :func:`choose_move_from_dict`.
"""
from __future__ import annotations

import random
import time
from typing import Any

from engine import IllegalMove
from engine import hong as _hong
from engine import hongkong as _hongkong
from engine.ai import hong as _hong_ai
from engine.ai import hongkong as _hongkong_ai

__all__ = ["LEVELS", "SETTINGS", "choose_move", "choose_move_from_dict"]

#: The levels, weakest first.
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

#: Per game and level: ``nodes`` (search budget: positions visited or scored), ``depth`` (most plies:
#: turns for Hong Kong, placements or dragon actions for Hong), ``naive`` (look one turn ahead and count
#: only buildings / Hongs on the board now, random among the best) and ``seconds`` (wall-clock safety cap).
SETTINGS: dict[str, dict[str, dict[str, Any]]] = {
    "hongkong": {
        "easy": {"nodes": 0, "depth": 1, "naive": True, "seconds": 1.0},
        "medium": {"nodes": 3_000, "depth": 2, "naive": False, "seconds": 1.5},
        "hard": {"nodes": 80_000, "depth": 10, "naive": False, "seconds": 2.5},
    },
    "hong": {
        "easy": {"nodes": 0, "depth": 1, "naive": True, "seconds": 1.0},
        "medium": {"nodes": 2_000, "depth": 2, "naive": False, "seconds": 1.5},
        "hard": {"nodes": 150_000, "depth": 10, "naive": False, "seconds": 2.5},
    },
}

_KINDS = {"hongkong": (_hongkong, _hongkong_ai), "hong": (_hong, _hong_ai)}


def _kind_of(game: Any) -> str:
    if isinstance(game, _hongkong.HongKongGame):
        return "hongkong"
    if isinstance(game, _hong.HongGame):
        return "hong"
    raise TypeError(f"choose_move needs a Hong Kong or Hong game, not {type(game).__name__}")


def choose_move(game: Any, level: str = "medium", seed: int = 0, *, budget: int | None = None,
                seconds: float | None = None) -> str:
    """The computer's move for the player to move in ``game``.

    Args:
        game: an ``engine.hongkong.HongKongGame`` or ``engine.hong.HongGame`` that is not over. It is not
            changed. Any state works, including a pending dragon summon in the Hong expansion (the move
            is then one of the dragon's actions).
        level: ``"easy"``, ``"medium"`` or ``"hard"`` (see :data:`LEVELS` and :data:`SETTINGS`).
        seed: any int; the same game, level, budget and seed always give the same move.
        budget: overrides the level's node budget (positions the search visits; about 10–30 µs each).
            The easy level looks one turn ahead whatever the budget.
        seconds: overrides the level's wall-clock cap (a float, seconds); ``None`` keeps the level's.

    Returns:
        A move in canonical notation, one of ``game.legal_moves()``.

    Raises:
        ValueError: unknown level.
        TypeError: not a game of either kind.
        IllegalMove: the game is over (there is no move to choose).
    """
    kind = _kind_of(game)
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    if game.is_over:
        raise IllegalMove("The game is over: there is no move to choose.")
    settings = SETTINGS[kind][level]
    nodes = settings["nodes"] if budget is None else max(0, int(budget))
    cap = settings["seconds"] if seconds is None else float(seconds)
    rng = random.Random(f"{kind}:{level}:{seed}:{len(game.moves)}")
    module = _KINDS[kind][1]
    return module.choose(game, rng, nodes=nodes, depth=settings["depth"], naive=settings["naive"],
                         deadline=time.perf_counter() + cap)


def choose_move_from_dict(kind: str, state: dict, level: str = "medium", seed: int = 0, *,
                          budget: int | None = None, seconds: float | None = None) -> str:
    """:func:`choose_move` for a game saved with ``to_dict()``.

    Args:
        kind: ``"hongkong"`` or ``"hong"`` (the engine module's name).
        state: the game's ``to_dict()`` output.
        level, seed, budget, seconds: as for :func:`choose_move`.

    Raises:
        ValueError: unknown kind or level, or a state that does not restore (``IllegalMove`` is a
            ``ValueError``).
    """
    if kind not in _KINDS:
        raise ValueError(f"unknown game kind {kind!r}: use 'hongkong' or 'hong'")
    game = _KINDS[kind][0].from_dict(state)
    return choose_move(game, level, seed, budget=budget, seconds=seconds)
