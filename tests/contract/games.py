"""The games the contract tests run over, found as the bot finds them: every game of :func:`engine.registry.games`,
with its bot module's :class:`bot.core.kinds.GameKind` (its renderer, its options). Nothing here names a game: a
game added by its four modules (ARCHITECTURE.md, "Adding a game") is tested by every test of this package.

A :class:`Setup` is a game with the options of one challenge: the default challenge, and one for each combination
of the values of the options of ``/<game> challenge`` that are a choice (a ``Literal``) or a ``bool`` — the boards,
the expansion, who moves first — as far as they give other engine options. Positions are reproducible: the challenge's
random choices (Hong's seed) are drawn by ``random.Random(seed)``, and games are played on by a seeded rng.
"""

from __future__ import annotations

import inspect
import itertools
import json
import random
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.core.kinds import GameKind
from bot.games import all_kinds
from engine import registry
from engine.contract import Game

#: Every game's name, in the registry's order.
GAMES: list[str] = list(registry.games())


@cache
def kinds() -> dict[str, GameKind]:
    """The bot's kinds by name (``bot.games.all_kinds()``, read once)."""
    return all_kinds()


def kind(name: str) -> GameKind:
    """The bot's kind of the game ``name``."""
    return kinds()[name]


@dataclass(frozen=True)
class Setup:
    """A game and the options of one challenge of it (``kind.challenge(**challenge)``).

    Attributes:
        name: the game's name (``engine.registry``).
        challenge: the keyword arguments of ``kind.challenge`` ({} for the default challenge).
    """

    name: str
    challenge: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        """``"<name>"`` or ``"<name>-<option>=<value>"``: a test id."""
        return "-".join([self.name, *(f"{k}={v}" for k, v in self.challenge)])

    def options(self, seed: int = 0) -> dict[str, Any]:
        """The engine options of this challenge, its random choices drawn by ``seed``."""
        k = kind(self.name)
        return k.seat_options(k.challenge(**dict(self.challenge)), random.Random(seed))[1]

    def new_game(self, seed: int = 0) -> Game:
        """A new game with :meth:`options` ``(seed)``."""
        return registry.find(self.name).new_game(**self.options(seed))


def _choices(annotation: Any) -> list[Any]:
    """The values a challenge option may take if it is a choice (``Literal``) or a ``bool``; [] otherwise."""
    if annotation is bool:
        return [False, True]
    if typing.get_origin(annotation) is typing.Literal:
        return list(typing.get_args(annotation))
    return []


def _chosen(setup: Setup) -> str:
    """The engine options ``setup`` chooses, its random draws (those that change with the seed) left out."""
    one, other = setup.options(0), setup.options(1)
    return json.dumps({k: v if other.get(k) == v else "(drawn)" for k, v in one.items()}, sort_keys=True)


def _setups(name: str) -> list[Setup]:
    challenge = kind(name).challenge
    hints = typing.get_type_hints(challenge)
    choices = [[(p, value) for value in _choices(hints.get(p))] for p in inspect.signature(challenge).parameters]
    found = [Setup(name)]
    seen = {_chosen(found[0])}
    for combination in itertools.product(*(c for c in choices if c)):
        setup = Setup(name, combination)
        if _chosen(setup) not in seen:
            seen.add(_chosen(setup))
            found.append(setup)
    return found


#: Every game with the options of its default challenge: the parameter of the tests that play whole games.
DEFAULTS: list[Setup] = [Setup(name) for name in GAMES]
#: Every game with the options of every challenge that gives other engine options (the default first).
SETUPS: list[Setup] = [setup for name in GAMES for setup in _setups(name)]


def ids(setups: list[Setup]) -> list[str]:
    """The test ids of ``setups``."""
    return [setup.id for setup in setups]


def play_on(game: Game, rng: random.Random, moves: int | None = None) -> Game:
    """``game`` played on by ``rng``'s choice of its legal moves: ``moves`` of them, or to the end (None)."""
    while not game.is_over and (moves is None or moves > 0):
        game.play(rng.choice(game.legal_moves()))
        moves = None if moves is None else moves - 1
    return game


def finished(setup: Setup, seed: int = 0) -> Game:
    """A game of ``setup`` played to its end by random legal moves (seeded)."""
    return play_on(setup.new_game(seed), random.Random(seed))


def midgame(setup: Setup, seed: int = 0) -> Game:
    """A game of ``setup`` about a third of the way through a random playout (seeded): not over."""
    length = len(finished(setup, seed).moves)
    game = play_on(setup.new_game(seed), random.Random(seed), max(1, length // 3))
    assert not game.is_over
    return game


def fresh(setup: Setup, seed: int = 0) -> Game:
    """A new game of ``setup`` (:meth:`Setup.new_game`)."""
    return setup.new_game(seed)


#: The games that declare a lesson (``/<game> learn``), by name.
LESSONS: list[str] = [name for name in GAMES if kind(name).lesson is not None]
