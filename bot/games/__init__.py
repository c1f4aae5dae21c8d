"""The games the bot hosts, found rather than listed: for every game in the engine registry
(:func:`engine.registry.games`), the module ``bot.games.<name>`` contributes its :class:`bot.core.kinds.GameKind` as
the constant ``KIND``. Adding a game adds a module here; nothing else names the games.
"""

from __future__ import annotations

import importlib

from engine import registry

from ..core.kinds import GameKind


def all_kinds() -> dict[str, GameKind]:
    """Every hosted game by command name, in the registry's order.

    Raises:
        ModuleNotFoundError: the engine has a game without a ``bot.games.<name>`` module.
        AttributeError: such a module has no ``KIND``.
    """
    return {name: importlib.import_module(f"{__name__}.{name}").KIND for name in registry.games()}


__all__ = ["all_kinds"]
