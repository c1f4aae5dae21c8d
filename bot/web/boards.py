"""Board images of the web pages: the bot's renderer (:mod:`render`), one PNG per (game, ply, moves so far,
language), drawn in a thread and kept in this process's memory only — a bounded cache, never Redis.

Why not Redis (as before): the game store runs with ``noeviction`` (the bot requires it), so whatever the page
traffic writes there competes with the players' moves for its memory — one finished 67-move game, its boards
asked in every language, grew it by 31 MB, and a full Redis refuses the next move. The web must never cost a player
a move, so it writes nothing at all to the store. A board takes about 5 ms to draw; a process keeps the
:data:`BYTES` most recently used ones (a live game's newest board is drawn once for all its viewers), each at most
:data:`AGE` seconds, and draws at most :data:`DRAWS` at a time. Nothing is shared between web processes, nothing
outlives one, and a board that showed a name since erased (``/privacy forget``) or a move since taken back is
unreachable at once (its URL's hash no longer matches: :func:`bot.web.views.frame_hash`) and gone from memory within
:data:`AGE`.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Callable

from .. import i18n
from ..core.kinds import GameKind
from ..core.record import Record

#: Bytes of PNGs a web process keeps (most recently used first kept): about 1,500 boards.
BYTES = 64 * 1024 * 1024
#: Seconds a kept PNG is served from memory before it is drawn again.
AGE = 15 * 60.0
#: Boards drawn at once in a process (each in a thread): a flood of new URLs queues, it doesn't take every core.
DRAWS = 2


def draw(kind: GameKind, record: Record, ply: int, language: str) -> bytes:
    """The board of ``record`` after its first ``ply`` moves as PNG bytes, its words in ``language``; a finished
    game's last board shows how it ended off the board (resigned, on time, aborted). CPU-bound.

    Raises:
        engine.IllegalMove: the record does not replay; IndexError: ``ply`` is past its moves.
    """
    moves = list(kind.load(record.game_state, replay=False).moves)
    if not 0 <= ply <= len(moves):
        raise IndexError(f"ply {ply} is past the end of the game (its last is {len(moves)})")
    game = kind.new_game(record.options)
    for move in moves[:ply]:
        game.play(move)
    ended = record.ended_off_board if record.finished and ply == len(moves) else None
    return kind.render.png(game, record.plain_names, ended=ended, translations=i18n.translations(language))


class Boards:
    """Board PNGs by name (``<game id>:<language>:<ply>:<hash>``): from this process's memory, else drawn (once per
    name at a time) and kept.

    Args:
        limit: bytes kept at most (:data:`BYTES`); the least recently used go first.
        age: seconds one is kept at most (:data:`AGE`).
        draws: boards drawn at once (:data:`DRAWS`).
        clock: monotonic seconds (a test's own).
    """

    def __init__(
        self, limit: int = BYTES, age: float = AGE, draws: int = DRAWS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.age, self.clock = limit, age, clock
        self.size = 0
        self._kept: OrderedDict[str, tuple[bytes, float]] = OrderedDict()
        self._drawing: dict[str, asyncio.Future[bytes]] = {}
        self._draws = asyncio.Semaphore(draws)

    def __len__(self) -> int:
        return len(self._kept)

    def _drop(self, name: str) -> None:
        data, _at = self._kept.pop(name)
        self.size -= len(data)

    def _keep(self, name: str, data: bytes) -> None:
        if name in self._kept:
            self._drop(name)
        if len(data) > self.limit:
            return
        now = self.clock()
        self._kept[name] = (data, now)
        self.size += len(data)
        while self.size > self.limit:
            self._drop(next(iter(self._kept)))
        stale = [kept for kept, (_data, at) in self._kept.items() if now - at > self.age]
        for kept in stale:  # (a sweep at each new board: nothing stays past its age because nobody asked again)
            self._drop(kept)

    def cached(self, name: str) -> bytes | None:
        """The PNG called ``name`` if this process keeps it (and it isn't older than :attr:`age`)."""
        found = self._kept.get(name)
        if found is None:
            return None
        if self.clock() - found[1] > self.age:
            self._drop(name)
            return None
        self._kept.move_to_end(name)
        return found[0]

    async def png(self, name: str, kind: GameKind, record: Record, ply: int, language: str) -> bytes:
        """The PNG called ``name``: kept, or drawn (:func:`draw`, in a thread) and kept.

        Raises:
            engine.IllegalMove / IndexError: as :func:`draw`.
        """
        data = self.cached(name)
        if data is not None:
            return data
        if name in self._drawing:
            return await asyncio.shield(self._drawing[name])
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._drawing[name] = future
        try:
            async with self._draws:
                data = await asyncio.to_thread(draw, kind, record, ply, language)
            self._keep(name, data)
            future.set_result(data)
            return data
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # (retrieved: no "never retrieved" warning when nobody else waited)
            raise
        finally:
            del self._drawing[name]


__all__ = ["Boards", "draw", "BYTES", "AGE", "DRAWS"]
