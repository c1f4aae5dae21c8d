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
seed: the same call gives the same move on any machine. Each level also has a wall-clock cap (``seconds``, which
the bot shortens to what is left of its reply's deadline) as a safety net for a machine much slower or busier than
the one the budgets were measured on: it stops the search, even within its first depth once a short grace has
passed (:func:`engine.ai.search.iterative_deepening`); while the node budget runs out first (always, on the reference
machine) the result is reproducible.

Levels:

* ``easy``: looks one turn ahead and plays a random move among the near-best ones: plausible, fast, and
  beatable.
* ``medium``: a short search.
* ``hard``: the full budget. Measured on a 2-core machine (``tests/bench/ai_match.py --games 200``):
  Hong Kong median 0.64 s, worst 1.07 s per move; Hong median 0.37 s, worst 2.68 s (the wall-clock cap).

Each game's model is the module ``engine.ai.<NAME>`` named by :mod:`engine.registry` (a third game adds
its own; nothing here is edited): an :class:`engine.contract.Opponent`, which provides ``SETTINGS`` (level →
``nodes``, ``depth``, ``naive``, ``seconds``) and ``choose(game, rng, *, nodes, depth, naive, deadline) -> str``.

The functions are pure (no I/O, the game is never changed) and take picklable arguments, so they can run
in a process pool: every game pickles, and :func:`choose_move_from_dict` takes a game as its ``to_dict()``
(smaller, and checked again by the replay).
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any, cast

from engine import N_, IllegalMove, registry
from engine.contract import Game, Opponent, Settings

__all__ = ["LEVELS", "SETTINGS", "choose_move", "choose_move_from_dict"]

#: The levels, weakest first.
LEVELS: tuple[str, ...] = ("easy", "medium", "hard")


def _model(entry: registry.EngineEntry) -> Opponent[Any]:
    """The computer opponent of a game: its module ``engine.ai.<NAME>`` (each such module checks that it is an
    :class:`~engine.contract.Opponent` of its game, under ``TYPE_CHECKING``)."""
    return cast(Opponent[Any], importlib.import_module(entry.ai_module_name))


#: Per game and level, from each model's ``SETTINGS``: ``nodes`` (search budget: positions visited or
#: scored), ``depth`` (most plies: turns for Hong Kong, placements or dragon actions for Hong), ``naive`` (look
#: one turn ahead and count only buildings / Hongs on the board now, random among the best) and ``seconds``
#: (wall-clock safety cap).
SETTINGS: dict[str, dict[str, Settings]] = {name: _model(entry).SETTINGS for name, entry in registry.games().items()}


def choose_move(
    game: Game, level: str = "medium", seed: int = 0, *, budget: int | None = None, seconds: float | None = None
) -> str:
    """The computer's move for the player to move in ``game``.

    Args:
        game: a game of any engine in :mod:`engine.registry` that is not over. It is not
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
        TypeError: not a game of any engine.
        IllegalMove: the game is over (there is no move to choose).
    """
    entry = registry.of(game)
    kind = entry.name
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    if game.is_over:
        raise IllegalMove(N_("The game is over: there is no move to choose."))
    settings = SETTINGS[kind][level]
    nodes = settings["nodes"] if budget is None else max(0, int(budget))
    cap = settings["seconds"] if seconds is None else float(seconds)
    rng = random.Random(f"{kind}:{level}:{seed}:{len(game.moves)}")
    return _model(entry).choose(
        game, rng, nodes=nodes, depth=settings["depth"], naive=settings["naive"], deadline=time.perf_counter() + cap
    )


def choose_move_from_dict(
    kind: str,
    state: dict[str, Any],
    level: str = "medium",
    seed: int = 0,
    *,
    budget: int | None = None,
    seconds: float | None = None,
) -> str:
    """:func:`choose_move` for a game saved with ``to_dict()``.

    Args:
        kind: the game's name in :mod:`engine.registry` (``"hongkong"``, ``"hong"``).
        state: the game's ``to_dict()`` output.
        level, seed, budget, seconds: as for :func:`choose_move`.

    Raises:
        ValueError: unknown kind or level.
        InvalidState: a state that does not restore (an ``IllegalMove``, so a ``ValueError`` too).
    """
    game = registry.find(kind).load(state)
    return choose_move(game, level, seed, budget=budget, seconds=seconds)
