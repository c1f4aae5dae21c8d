"""Tournaments on Discord (python-discord layout: the cog and its parts in private modules).

- :mod:`._cog` — :class:`TournamentCog`: ``/tournament create|start|standings|withdraw|cancel``, results of games;
- :mod:`._runner` — the steps due (rounds, their games in threads, standings, the podium), once each;
- :mod:`._buttons` — Join/Leave under the sign-up post; :mod:`._signup` — the post's buttons and options in words;
- :mod:`._words` — what the feature says; :mod:`._picture` — the standings picture for a post.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._cog import TournamentCog

if TYPE_CHECKING:
    from ...interface.client import HongBot


async def setup(bot: "HongBot") -> None:
    """Add the :class:`TournamentCog` to ``bot``."""
    await bot.add_cog(TournamentCog(bot))


__all__ = ["TournamentCog", "setup"]
