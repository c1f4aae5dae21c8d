"""Board images of the web pages: the bot's renderer (:mod:`render`), one PNG per (game, ply, moves so far,
language), drawn in a thread and kept in the web processes' shared cache (:class:`bot.storage.weblinks.WebCache`)
and in a small cache of this process. Their URLs never change meaning (:func:`bot.web.views.frame_hash`), so they
are served as immutable.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from .. import i18n
from ..core.kinds import GameKind
from ..core.record import Record
from ..storage.weblinks import WebCache

#: PNGs kept in this process (most recently used).
LOCAL = 512


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
    """Board PNGs by name (``<game id>:<language>:<ply>:<hash>``): this process's cache, then the shared one, then
    drawn (once per name at a time in this process)."""

    def __init__(self, cache: WebCache) -> None:
        self.cache = cache
        self._local: OrderedDict[str, bytes] = OrderedDict()
        self._drawing: dict[str, asyncio.Future[bytes]] = {}

    def _keep(self, name: str, data: bytes) -> None:
        self._local[name] = data
        self._local.move_to_end(name)
        while len(self._local) > LOCAL:
            self._local.popitem(last=False)

    async def cached(self, name: str) -> bytes | None:
        """The PNG called ``name`` if this process or the shared cache has it."""
        if name in self._local:
            self._local.move_to_end(name)
            return self._local[name]
        data = await self.cache.get(f"png:{name}")
        if data is not None:
            self._keep(name, data)
        return data

    async def png(self, name: str, kind: GameKind, record: Record, ply: int, language: str) -> bytes:
        """The PNG called ``name``: cached, or drawn (:func:`draw`, in a thread) and cached.

        Raises:
            engine.IllegalMove / IndexError: as :func:`draw`.
        """
        data = await self.cached(name)
        if data is not None:
            return data
        if name in self._drawing:
            return await asyncio.shield(self._drawing[name])
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._drawing[name] = future
        try:
            data = await asyncio.to_thread(draw, kind, record, ply, language)
            self._keep(name, data)
            await self.cache.put(f"png:{name}", data)
            future.set_result(data)
            return data
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # (retrieved: no "never retrieved" warning when nobody else waited)
            raise
        finally:
            del self._drawing[name]


__all__ = ["Boards", "draw"]
