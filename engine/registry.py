"""The games the engines implement, discovered rather than listed (python-chess's ``chess.variant`` is the model).

A game is a module directly in the ``engine`` package that declares ``NAME`` (``engine.hongkong``:
``NAME = "hongkong"``; ``engine.hong``: ``NAME = "hong"``) and follows the game contract: it is a
:class:`engine.contract.GameModule` (checked by mypy in the module itself, and here when it is found).
Its game class carries ``kind = NAME``, so :func:`of` needs no ``isinstance`` chain. Its computer opponent is the
module ``engine.ai.<NAME>``, named here and imported by :mod:`engine.ai` only (this module never imports
``engine.ai``: ``engine.ai`` imports this one). Adding a game is adding its module (and its AI model); nothing
here or elsewhere in ``engine`` is edited.

Usage::

    from engine import registry
    registry.games()                      # {"hong": EngineEntry(...), "hongkong": EngineEntry(...)}
    game = registry.find("hongkong").new_game(first=1)
    registry.of(game).name                # "hongkong"
    registry.load(game.to_dict())         # the same game, restored by the module that made it

Pure: discovery imports the engine package's own modules, once.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, Mapping, cast

import engine
from engine import InvalidState
from engine.contract import Game, GameModule

__all__ = ["EngineEntry", "find", "games", "load", "of"]


@dataclass(frozen=True)
class EngineEntry:
    """One game the engines implement.

    Attributes:
        name: the module's ``NAME`` (``"hongkong"``): the stored ``kind`` and ``to_dict()["game"]``.
        module: the engine module (``engine.hongkong``), a :class:`~engine.contract.GameModule`:
            ``new_game(**options)``, ``from_dict(state, replay=True)``.
        ai_module_name: the dotted name of its computer opponent (``"engine.ai.hongkong"``), imported on demand
            by :mod:`engine.ai`.
    """

    name: str
    module: GameModule[Game]
    ai_module_name: str

    def new_game(self, **options: Any) -> Game:
        """``module.new_game(**options)``: a new game. Raises ``IllegalMove`` for bad options."""
        return self.module.new_game(**options)

    def load(self, state: Mapping[str, Any], *, replay: bool = True) -> Game:
        """``module.from_dict(state, replay=replay)``: the game ``state`` (a ``to_dict()``) describes (see
        :meth:`engine.contract.GameModule.from_dict`). Raises ``InvalidState``."""
        return self.module.from_dict(state, replay=replay)


@cache
def _discover() -> Mapping[str, EngineEntry]:
    """Import every plain module of the engine package (not packages such as ``engine.ai``, not ``_private``
    ones, not this one) and keep those that declare ``NAME``, in module-name order.

    Raises:
        RuntimeError: two modules declare the same ``NAME``.
        TypeError: a module declares ``NAME`` but lacks ``new_game`` or ``from_dict`` (it is no
            :class:`~engine.contract.GameModule`).
    """
    found: dict[str, EngineEntry] = {}
    for info in pkgutil.iter_modules(engine.__path__):
        if info.ispkg or info.name.startswith("_") or info.name == "registry":
            continue
        module = importlib.import_module(f"{engine.__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        if not isinstance(name, str):
            continue
        if name in found:
            raise RuntimeError(
                f"two engine modules declare NAME = {name!r}: {_module_name(found[name])}, {module.__name__}"
            )
        if not isinstance(module, GameModule):
            raise TypeError(
                f"{module.__name__} declares NAME = {name!r} but is no game module: it needs new_game "
                "and from_dict (see engine.contract.GameModule)"
            )
        found[name] = EngineEntry(name, cast(GameModule[Game], module), f"{engine.__name__}.ai.{name}")
    return MappingProxyType(found)


def _module_name(entry: EngineEntry) -> str:
    return str(getattr(entry.module, "__name__", entry.name))


def _entry(name: object) -> EngineEntry | None:
    return _discover().get(name) if isinstance(name, str) else None


def _names() -> str:
    return ", ".join(_discover())


def games() -> dict[str, EngineEntry]:
    """Every game, name → :class:`EngineEntry`, in module-name order (``hong``, ``hongkong``). A new dict each call."""
    return dict(_discover())


def find(name: str) -> EngineEntry:
    """The game called ``name`` (exactly, as stored: ``"hongkong"``).

    Raises:
        ValueError: no game has that name; the message lists the games.
    """
    entry = _entry(name)
    if entry is None:
        raise ValueError(f"unknown game {name!r}: the games are {_names()}")
    return entry


def of(game: object) -> EngineEntry:
    """The entry of a game object, read from its class's ``kind`` (``HongKongGame.kind == "hongkong"``).

    Raises:
        TypeError: ``game``'s class has no ``kind`` naming a game: it is not a game of any engine.
    """
    entry = _entry(getattr(type(game), "kind", None))
    if entry is None:
        raise TypeError(f"not a game of any engine ({_names()}): {type(game).__name__}")
    return entry


def load(state: object) -> Game:
    """The game a saved state (a ``to_dict()``, any object accepted) describes, restored by the engine its
    ``"game"`` field names.

    Raises:
        InvalidState: ``state`` is not a mapping, names no known game, or does not restore (see each engine's
            ``from_dict``).
    """
    name = state.get("game") if isinstance(state, Mapping) else None
    entry = _entry(name)
    if entry is None or not isinstance(state, Mapping):
        raise InvalidState(f"This saved state is not a game of any engine ({_names()}): its 'game' is {name!r}.")
    return entry.load(state)
