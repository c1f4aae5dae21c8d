"""Finished games on Discord (python-discord layout: the cog and its parts in private modules).

- :mod:`._cog` — :class:`Stats`: ``/leaderboard``, ``/stats``, ``/history``, ``/replay``, ``/record``, and the
  ``on_game_finished`` listener that records and rates each game and posts the rating change;
- :mod:`._buttons` — Replay (on every final board), Previous/Next on a leaderboard;
- :mod:`._phrases` — what these commands say (rating changes, streaks, game labels, leaderboard pages).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...storage.ratings import Ratings
from ...storage.finished_games import Records
from ._cog import Stats
from ._phrases import game_label, leaderboard_embed, rating_change_line

if TYPE_CHECKING:
    from ...interface.client import HongBot


async def setup(bot: "HongBot") -> None:
    """Add the :class:`Stats` cog to ``bot``, on the Redis of its game layer; at load it records and rates any
    finished game left over from an earlier run."""
    layer = bot.layer
    ratings = Ratings(layer.store.redis)
    records = Records(layer.store, ratings, clock=layer.clock)
    await bot.add_cog(Stats(bot, records, ratings, layer.kinds))


__all__ = ["Stats", "game_label", "leaderboard_embed", "rating_change_line", "setup"]
