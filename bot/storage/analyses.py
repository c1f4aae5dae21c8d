"""The computer's analyses of finished games and the hints asked for in games against it, kept in Redis.

- ``hongbot:analysis:<game id>`` (:meth:`bot.storage.keys.Keys.analysis`): the game's analysis as JSON
  (:meth:`engine.ai.analysis.Analysis.to_dict`), kept :data:`ANALYSIS_TTL` seconds, so a second ``/analyse`` of the
  game is answered at once. Moves and numbers only: nothing personal (a game's players are in its record).
- ``hongbot:hints:<game id>`` (:meth:`bot.storage.keys.Keys.hints`): hash seat (0 or 1) → hints that seat's player
  asked for, kept :data:`HINTS_TTL` seconds (by seat, not user id: like the game's moves it says nothing about a person
  once the record forgets them, :mod:`bot.storage.privacy`). Hints exist only in games against the computer, which are never rated
  (:mod:`bot.storage.ratings`); the count is shown with each hint and in the game's analysis ("hints used: 2"), so a
  hinted game is marked wherever it is judged.
"""

from __future__ import annotations

import json
from typing import Any

from .decoding import RedisClient, decoded, decoded_hash
from .keys import Keys

#: Seconds an analysis is kept (30 days; a finished record is kept longer, and analysing it again is only slower).
ANALYSIS_TTL = 30 * 24 * 3600
#: Seconds a game's hint count is kept after its last hint (a year: longer than any game).
HINTS_TTL = 365 * 24 * 3600


class Analyses:
    """Analyses and hint counts on ``redis`` (a plain or Cluster client: every operation is on one key)."""

    def __init__(self, redis: RedisClient) -> None:
        self.redis = redis

    async def get(self, game_id: str) -> dict[str, Any] | None:
        """The kept analysis of ``game_id`` (the JSON's dict), or None (never made, expired, or unreadable)."""
        raw = decoded(await self.redis.get(Keys.analysis(game_id)))
        if raw is None:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def put(self, game_id: str, analysis: dict[str, Any]) -> None:
        """Keep ``analysis`` (a JSON-serialisable dict) for ``game_id`` for :data:`ANALYSIS_TTL` seconds."""
        await self.redis.set(Keys.analysis(game_id), json.dumps(analysis, separators=(",", ":")), ex=ANALYSIS_TTL)

    async def remember(self, interaction_id: int, entry: dict[str, Any]) -> None:
        """Keep an analysis promised to an interaction (``entry``: JSON-serialisable, with ``until``, the epoch
        second its interaction token expires) until :meth:`forget`: a bot restarted before answering finds it
        (:meth:`claim`). Tokens are kept at most until ``until`` (≤ 15 minutes: README's privacy table)."""
        await self.redis.hset(Keys.ANALYSES_PENDING, str(interaction_id), json.dumps(entry, separators=(",", ":")))

    async def forget(self, interaction_id: int) -> None:
        """The promised analysis is answered (or given up): not to be resumed."""
        await self.redis.hdel(Keys.ANALYSES_PENDING, str(interaction_id))

    async def claim(self, now: float) -> list[dict[str, Any]]:
        """Every promised analysis still answerable at ``now`` (epoch seconds), each taken by this caller alone
        (HDEL answers 1 to one process only); the expired and unreadable ones are dropped."""
        claimed = []
        for field, raw in decoded_hash(await self.redis.hgetall(Keys.ANALYSES_PENDING)).items():
            if not await self.redis.hdel(Keys.ANALYSES_PENDING, field):
                continue  # another process took it
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and float(entry.get("until", 0)) > now:
                claimed.append(entry)
        return claimed

    async def add_hint(self, game_id: str, seat: int) -> int:
        """Count one hint for the player in ``seat`` (0 or 1) of ``game_id``; returns their hints in that game so
        far."""
        key = Keys.hints(game_id)
        count = int(await self.redis.hincrby(key, str(seat), 1))
        await self.redis.expire(key, HINTS_TTL)
        return count

    async def hints(self, game_id: str) -> dict[int, int]:
        """Hints asked for in ``game_id``: seat → count (empty: none)."""
        return {int(k): int(v) for k, v in decoded_hash(await self.redis.hgetall(Keys.hints(game_id))).items()}


__all__ = ["ANALYSIS_TTL", "HINTS_TTL", "Analyses"]
