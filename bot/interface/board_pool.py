"""Board images drawn outside the event loop — in worker processes, so drawing never holds the event loop's GIL —
with bounded concurrency and people first.

:data:`renderer` is this process's one :class:`Renderer`, shared by every bot in it; the client sizes it from the
``render_workers`` setting (:func:`default_workers`: half the CPUs, at least one) at start-up. The workers are spawned
on the first board (or by :meth:`Renderer.warm_up`), die with the bot however it ends (a
:class:`bot.interface.computer_pool.WorkerPool`, as the computer's), and get only what a drawing needs — the engine's state, the names, how the game
ended, the language's code — so they import the engines, the renderers and the catalogs (:mod:`bot.i18n`), never the
rest of the bot. With 0 workers boards are drawn in a thread of the bot's process instead.

Language: a board is drawn in the language current where it is asked for (:func:`bot.i18n.current`, e.g. inside
``with i18n.language(server)`` while its post is built), so the image says what its post says; the code crosses the
queue and the process boundary, and the worker reads that language's catalog once (:func:`bot.i18n.translations` is
cached per process). :func:`build_replay` draws a ``/replay`` GIF the same way.

At most :attr:`Renderer.slots` drawings are handed to the workers at once; the others wait by priority —
:data:`PLAYER` (a board a person is waiting for: their move, a new game, ``/board``) before :data:`CHANNEL` (the
computer's reply, a timeout, a post the reconciler makes late) — and in arrival order within one. So a burst never
piles a hundred drawings on the workers, and the computer's boards never hold up a person's. :meth:`Renderer.busy`
says when a person's board would wait longer than :data:`BUSY_WAIT`: the move is then answered at once with "busy:
your move is saved, the board follows" instead of Discord's "thinking…" (see :func:`bot.interface.posts.post_turn`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import os
import random
import time
from pathlib import Path
from typing import Any, AsyncIterator, Sequence

from engine import registry
from engine.result import Ended
from render import contract as render_contract
from render.replay import DISCORD_LIMIT, WIDTH, Replay, build_gif

from .. import i18n
from .computer_pool import WorkerPool
from ..core.kinds import Game, GameKind
from .metrics import QUEUE_LENGTH

log = logging.getLogger(__name__)

#: Priorities, most urgent first.
PLAYER, CHANNEL = 0, 1
#: Seconds a person's board may be expected to wait before the move is answered "busy" instead.
BUSY_WAIT = 2.0


def default_workers() -> int:
    """Render workers when the setting is left unset: half the CPUs (the other half for the event loop, Redis and
    the computer), at least one."""
    return max(1, (os.cpu_count() or 2) // 2)


def _draw(
    render: render_contract.Renderer[Any],
    game_name: str,
    state: dict,
    names: tuple[str, str],
    ended,
    language: str = i18n.SOURCE,
    locales: Path | None = None,
    marks: Sequence[str] = (),
    then: str | None = None,
) -> bytes:
    """In a worker: the engine game (``game_name``: its name in :mod:`engine.registry`) restored from its position
    (no replay: the bot checked it) — and with ``then``, that move played on it (a preview) — drawn by ``render`` (the
    squares ``marks`` ringed) in
    ``language`` (a code of :func:`bot.i18n.languages`; its catalog read once per process) from the catalogs in
    ``locales`` — the bot's :data:`bot.i18n.LOCALES`, so a worker speaks the languages of the process it draws for.

    Raises:
        engine.IllegalMove: ``then`` is not legal in the position."""
    if locales is not None and locales != i18n.LOCALES:
        i18n.LOCALES = locales
        i18n.reload()
    game = registry.find(game_name).load(state, replay=False)
    if then is not None:
        game.play(then)
    return render.png(game, names, ended=ended, translations=i18n.translations(language), marks=marks)


def build_replay(
    kind: GameKind,
    start: Game,
    moves: Sequence[str],
    names: tuple[str, str],
    *,
    max_bytes: int = DISCORD_LIMIT,
    width: int = WIDTH,
    final_text: str = "",
    ended: Ended | None = None,
    language: str | None = None,
) -> Replay:
    """:func:`render.replay.build_gif` with ``kind``'s renderer, every frame and caption in ``language`` (default:
    the current language, :func:`bot.i18n.current` — a thread started with :func:`asyncio.to_thread` keeps its
    caller's). CPU-bound: call it in a worker thread. ``final_text`` is the bot's, in that language already.

    Raises:
        engine.IllegalMove: the record does not replay; render.replay.ReplayTooLarge: over ``max_bytes`` even at
            its smallest.
    """
    code = i18n.current() if language is None else language
    return build_gif(
        start,
        moves,
        kind.render,
        names,
        max_bytes=max_bytes,
        width=width,
        final_text=final_text,
        ended=ended,
        translations=i18n.translations(code),
    )


class Renderer(WorkerPool):
    """Draws boards in a pool of ``workers`` processes (0: in a thread), :attr:`slots` at a time.

    Args:
        workers: worker processes (≥ 0).
        busy_wait: seconds of expected wait past which :meth:`busy` is true.
    """

    def __init__(self, workers: int = 0, busy_wait: float = BUSY_WAIT) -> None:
        super().__init__(workers)
        self.busy_wait = busy_wait
        self.active = 0
        self._waiting: list[tuple[int, int, asyncio.Future]] = []  # a heap: (priority, arrival, future)
        self._queued = [0, 0]  # drawings waiting, by priority
        self._order = itertools.count()
        self._took = 0.01  # seconds a drawing holds its slot: a moving average
        self._loop: asyncio.AbstractEventLoop | None = None  # the queue's (a new loop starts a new queue: tests)

    @property
    def slots(self) -> int:
        """Drawings handed out at once: two per worker (one drawn, one on its way), two for the thread."""
        return 2 * max(1, self.workers)

    def configure(self, workers: int) -> None:
        """Use ``workers`` processes from now on (the pool is replaced when the number changes)."""
        if workers != self.workers:
            self.close()
            self.workers = workers

    # --- the queue ------------------------------------------------------------------------------------------------

    @property
    def waiting(self) -> int:
        """Drawings waiting for a slot."""
        return sum(self._queued)

    def expected_wait(self, priority: int = PLAYER) -> float:
        """Seconds a drawing of ``priority`` asked for now would wait for a slot: the drawings ahead of it × the
        time one holds a slot ÷ the slots."""
        ahead = sum(self._queued[: priority + 1])
        if self.active < self.slots and ahead == 0:
            return 0.0
        return (ahead + 1) * self._took / self.slots

    def busy(self) -> bool:
        """Whether a person's board asked for now would wait more than ``busy_wait`` seconds."""
        return self.expected_wait(PLAYER) > self.busy_wait

    @contextlib.asynccontextmanager
    async def slot(self, priority: int) -> AsyncIterator[None]:
        """Wait for a slot (by ``priority``, then arrival), hold it for the body, then hand it to the next."""
        if self._loop is not asyncio.get_running_loop():
            self._loop, self.active, self._waiting, self._queued = asyncio.get_running_loop(), 0, [], [0, 0]
        if self.active < self.slots and not self.waiting:
            self.active += 1
        else:
            fut = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, next(self._order), fut))
            self._queued[priority] += 1
            try:
                await fut  # the slot is handed over with the result
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():
                    self._release()  # handed over just as we were cancelled: pass it on
                else:
                    self._queued[priority] -= 1  # (its entry is skipped when it comes up)
                raise
        started = time.monotonic()
        try:
            yield
        finally:
            self._took = 0.9 * self._took + 0.1 * (time.monotonic() - started)
            self._release()

    def _release(self) -> None:
        while self._waiting:
            priority, _, fut = heapq.heappop(self._waiting)
            if not fut.done():
                self._queued[priority] -= 1
                fut.set_result(None)  # the slot goes to it: active stays the same
                return
        self.active -= 1

    # --- drawing ----------------------------------------------------------------------------------------------------

    async def png(
        self,
        kind: GameKind,
        game: Game,
        names: tuple[str, str],
        *,
        ended=None,
        priority: int = PLAYER,
        language: str | None = None,
        marks: Sequence[str] = (),
    ) -> bytes:
        """The board of ``game`` as PNG bytes (``kind.render.png``: the same bytes in a worker or here), drawn
        when a slot is free for ``priority``, every word in ``language`` (a code of :func:`bot.i18n.languages`;
        default: the language current when this is called — the post's, built ``with i18n.language(…)``), the
        squares ``marks`` ringed (a rules page's board).

        A worker that died is replaced and the board drawn once more (:meth:`bot.interface.computer_pool.WorkerPool.run`).

        Raises:
            BrokenProcessPool: the fresh pool broke too.
        """
        language = i18n.current() if language is None else language
        async with self.slot(priority):
            if self.workers <= 0:
                return await asyncio.to_thread(
                    kind.render.png, game, names, ended=ended, translations=i18n.translations(language), marks=marks
                )
            return await self.run(
                _draw, kind.render, kind.name, game.to_dict(), names, ended, language, i18n.LOCALES, tuple(marks)
            )

    async def preview(
        self,
        kind: GameKind,
        game: Game,
        move: str,
        names: tuple[str, str],
        *,
        priority: int = PLAYER,
        language: str | None = None,
    ) -> bytes:
        """The board of ``game`` after ``move`` (played on a copy: ``game`` is left as it is), as PNG bytes — the
        move's pieces marked as a last move is — drawn as :meth:`png` draws: a preview before a move is confirmed.
        It costs little next to the board it follows: the parts the move leaves unchanged are deflated already
        (:func:`render.common.to_png`).

        Raises:
            engine.IllegalMove: ``move`` is not legal in ``game``'s position.
            BrokenProcessPool: the fresh pool broke too.
        """
        language = i18n.current() if language is None else language
        async with self.slot(priority):
            if self.workers <= 0:
                after = game.copy()
                after.play(move)
                return await asyncio.to_thread(kind.render.png, after, names, translations=i18n.translations(language))
            return await self.run(
                _draw, kind.render, kind.name, game.to_dict(), names, None, language, i18n.LOCALES, (), move
            )

    async def warm_up(self, kinds) -> None:
        """Start the workers and draw a first board of every game in each (imports and fonts take ~0.5 s), so the
        first players' boards are not slower. Never raises (the first board tries again)."""
        if self.workers <= 0:
            return
        boards = [
            self.png(kind, kind.new_game(kind.seat_options({}, random.Random(0))[1]), ("", ""), priority=CHANNEL)
            for kind in kinds
            for _ in range(self.workers)
        ]
        try:
            await asyncio.gather(*boards)
        except Exception:
            log.warning("warming up the render workers failed", exc_info=True)


#: This process's renderer (see the module docstring).
renderer = Renderer()
QUEUE_LENGTH.labels("boards").set_function(lambda: renderer.waiting)

__all__ = ["Renderer", "renderer", "default_workers", "build_replay", "PLAYER", "CHANNEL", "BUSY_WAIT"]
