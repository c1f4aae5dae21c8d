"""The games the bot hosts: each module contributes one :class:`bot.kinds.GameKind`."""
from __future__ import annotations

from ..kinds import GameKind


def all_kinds() -> dict[str, GameKind]:
    """Every hosted game by command name."""
    from .hongkong import HONGKONG

    kinds = [HONGKONG]
    try:
        from .hong import HONG
    except ImportError:  # pragma: no cover - while the Hong engine is not there
        pass
    else:
        kinds.append(HONG)
    return {k.name: k for k in kinds}
