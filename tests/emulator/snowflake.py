"""Snowflake ids that look like Discord's (time-based, strictly increasing)."""

from __future__ import annotations

import threading
import time

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeGenerator:
    def __init__(self, worker: int = 1) -> None:
        self._worker = worker & 0x1F
        self._last = 0
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
            value = (ms << 22) | (self._worker << 17)
            if value <= self._last:
                value = self._last + 1
            self._last = value
            return value

    def on_shard(self, shard_id: int, num_shards: int) -> int:
        """The next id whose shard is ``shard_id`` of ``num_shards`` (``(id >> 22) % num_shards``): its time is
        moved up by at most ``num_shards - 1`` milliseconds (later ids stay larger)."""
        with self._lock:
            ms = max(int(time.time() * 1000) - DISCORD_EPOCH_MS, (self._last >> 22) + 1)
            ms += (shard_id - ms) % num_shards
            self._last = value = (ms << 22) | (self._worker << 17)
            return value


def snowflake_time(snowflake: int) -> float:
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000
