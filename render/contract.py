"""The renderer contract: what a game's renderer offers the bot and the replays, in one place.

A renderer draws one game's position as a palette image in a fixed palette (:meth:`Renderer.image`; the replay's
frames, :mod:`render.replay`) and as PNG bytes (:meth:`Renderer.png`; the live boards), every word in the language
of the ``translations`` given (:mod:`render.labels`; English by default). A game's renderer module offers one as
``RENDERER``, most simply a :class:`BoardRenderer` made of its drawing function and its palette::

    RENDERER: Renderer[HongKongGame] = BoardRenderer(board_image, PALETTE)

(the annotation makes mypy check it against the Protocol), and the bot's ``bot/games/<NAME>.py`` hands it to its
``GameKind``. A renderer is pure (no I/O), deterministic (the same position, names, ending and language give the
same bytes), safe in worker threads, and it pickles (it crosses to the bot's drawing processes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, Sequence, TypeVar, runtime_checkable

from PIL import Image

from engine.contract import Game
from engine.result import Ended
from render.common import PNG_LEVEL, Palette, to_png
from render.labels import Translations

__all__ = ["BoardRenderer", "Draw", "Renderer"]

G = TypeVar("G", bound=Game)
G_contra = TypeVar("G_contra", bound=Game, contravariant=True)


class Draw(Protocol[G_contra]):
    """A drawing function: ``(game, names, *, ended=None, translations=None, marks=()) -> palette image`` (see
    :meth:`Renderer.image`)."""

    def __call__(
        self,
        game: G_contra,
        names: tuple[str, str],
        /,
        *,
        ended: Ended | None = None,
        translations: Translations | None = None,
        marks: Sequence[str] = (),
    ) -> Image.Image: ...


@runtime_checkable
class Renderer(Protocol[G_contra]):
    """A game's board drawing: its palette, the board as a palette image, the board as PNG bytes."""

    @property
    def palette(self) -> Palette:
        """The fixed palette of every image :meth:`image` draws (a replay's GIF shares it across frames)."""
        ...

    def image(
        self,
        game: G_contra,
        names: tuple[str, str],
        /,
        *,
        ended: Ended | None = None,
        translations: Translations | None = None,
        marks: Sequence[str] = (),
    ) -> Image.Image:
        """The position of ``game`` (only read) as a palette image in :attr:`palette` (mode ``"P"``), before PNG
        encoding.

        Args:
            names: display names of seat 0 and seat 1; any text (every script and emoji is drawn, control
                characters dropped, a long name cut with "…", an empty one shown as "Player 1"/"Player 2").
            ended: how the game ended if it ended off the board (resigned, out of time, aborted), shown instead
                of whose turn it is; ignored once the engine has an outcome.
            translations: the language of every word drawn (:class:`render.labels.Translations`, e.g. the bot's
                ``bot.i18n.translations(code)``); None for English.
            marks: squares to ring, in the game's notation (``"C2"``): what a rules page's caption names; a square
                the board doesn't have is left out.
        """
        ...

    def png(
        self,
        game: G_contra,
        names: tuple[str, str],
        /,
        *,
        ended: Ended | None = None,
        translations: Translations | None = None,
        marks: Sequence[str] = (),
    ) -> bytes:
        """:meth:`image` as PNG bytes (8-bit palette): the live board the bot posts, under Discord's limits."""
        ...


@dataclass(frozen=True)
class BoardRenderer(Generic[G]):
    """A :class:`Renderer` made of a game's drawing function and its palette; :meth:`png` encodes what ``draw``
    draws (:func:`render.common.to_png`).

    Attributes:
        draw: ``(game, names, *, ended=None, translations=None, marks=()) -> palette image`` (:class:`Draw`).
        palette: the palette ``draw`` draws in.
        level: the zlib level of the PNGs (0–9; :data:`render.common.PNG_LEVEL` by default).
    """

    draw: Draw[G]
    palette: Palette
    level: int = PNG_LEVEL

    def image(
        self,
        game: G,
        names: tuple[str, str],
        /,
        *,
        ended: Ended | None = None,
        translations: Translations | None = None,
        marks: Sequence[str] = (),
    ) -> Image.Image:
        """``draw(game, names, ended=ended, translations=translations, marks=marks)`` (see :meth:`Renderer.image`)."""
        return self.draw(game, names, ended=ended, translations=translations, marks=marks)

    def png(
        self,
        game: G,
        names: tuple[str, str],
        /,
        *,
        ended: Ended | None = None,
        translations: Translations | None = None,
        marks: Sequence[str] = (),
    ) -> bytes:
        """:meth:`image` as PNG bytes (see :meth:`Renderer.png`)."""
        return to_png(self.image(game, names, ended=ended, translations=translations, marks=marks), self.level)
