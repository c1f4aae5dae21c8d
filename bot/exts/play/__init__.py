"""Playing games on Discord (python-discord layout: the cog and its parts in private modules).

- :mod:`._cog` — :class:`Play`: challenges, moves, boards, threads, rematches, takebacks;
- :mod:`._groups` — the ``/<game>`` command groups, built from each game's :class:`~bot.core.kinds.GameKind`;
- :mod:`._buttons` — Accept/Decline, Rematch, Allow/Refuse takeback;
- :mod:`._computer` — the computer opponent's turns;
- :mod:`._timers` — due deadlines: expired challenges, reminders, forfeits on time;
- :mod:`._reach` — whether the bot can post a game where it is played (permissions, locked threads, deleted
  channels, removal from a server), and ending the games it can't reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._cog import Play
from ._reach import Reach

if TYPE_CHECKING:
    from ...interface.client import HongBot


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Play` cog (its commands, buttons, timers and computer opponent) and the :class:`Reach` cog
    (games in channels the bot can no longer reach) to ``bot``."""
    await bot.add_cog(Play(bot))
    await bot.add_cog(Reach(bot))


__all__ = ["Play", "Reach", "setup"]
