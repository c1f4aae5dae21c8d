"""Animated GIF replays: a finished game's move record → one frame per move, drawn by the live renderer.

The bot rebuilds every position by replaying the record through the engine from the opening
(``engine.<game>.new_game(**options)``; Hong's seed gives the same stones and lair) and draws each one with the
drawing code of the live boards: the game's :class:`render.contract.Renderer` (its ``image``, the board before PNG
encoding, in its ``palette``), so a replay frame is the live board of that position, built directly (never encoded
to PNG and decoded again). Each frame gets a caption strip underneath ("Move 12/38 · Ann: S@A1" and a progress bar), which also keeps
every frame distinct (a GIF encoder merges identical neighbouring frames, and there must be one frame per move).

Size: frames are scaled down (default 720 px wide) and mapped back to the renderer's fixed palette (so every frame
shares one palette), and only the pixels that changed are stored (Pillow's ``optimize``: unchanged pixels become
transparent). A full-length game is 1–2 MB, far under Discord's 10 MiB upload limit; if a GIF still came out over
``max_bytes`` it is rebuilt narrower (see :func:`build_gif`).

Every word (the captions and the boards') is in the language of the ``translations`` given (see :mod:`render.labels`;
English by default), the same for every frame and for the live boards of that language.

Pure: no Discord, no Redis. CPU-bound (about 20 ms per move on one core, most of it scaling frames down): run
it in a worker thread.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence, TypeVar

from PIL import Image

from engine.contract import Game
from engine.result import Ended
from render.common import BACKGROUND, INK, MUTED, PLAYER_COLOURS, TRACK, Canvas, Palette
from render.contract import Renderer
from render.text import Style, fit_parts
from render.labels import Translations, Words, parts, player_names, words

#: Discord's attachment limit for bots (bytes).
DISCORD_LIMIT = 10 * 1024 * 1024
#: How long each position is shown, and the opening and final positions (milliseconds).
FRAME_MS = 900
FIRST_MS = 1500
LAST_MS = 5000
#: Output width of a frame in pixels (the live boards are 940–1000 px; Discord shows them smaller anyway).
WIDTH = 720
#: Height of the caption strip under each frame, in output pixels.
CAPTION_H = 40
_CAPTION = Style(20)

G = TypeVar("G", bound=Game)


class ReplayTooLarge(ValueError):
    """The GIF could not be made to fit in the byte budget even at the smallest size tried."""


@dataclass(frozen=True)
class Replay:
    """A built replay.

    Attributes:
        gif: the GIF bytes.
        frames: number of frames (moves + 1 for the opening).
        width, height: frame size in pixels.
        duration_ms: total play time of one loop in milliseconds.
    """

    gif: bytes
    frames: int
    width: int
    height: int
    duration_ms: int


def positions(start: G, moves: Iterable[str]) -> Iterator[tuple[G, str | None, int | None]]:
    """Replay ``moves`` on ``start`` (a fresh engine game, changed in place), yielding after each step.

    Yields ``(game, move, mover)``: first ``(start, None, None)`` for the opening, then after every move
    the game, the move as recorded, and the seat (0/1) that played it.

    Raises:
        engine.IllegalMove: a move of the record is illegal in the replayed position (a damaged record).
    """
    yield start, None, None
    for move in moves:
        mover = start.to_move
        start.play(move)
        yield start, move, mover


def _checked(render: Renderer[G]) -> Renderer[G]:
    """``render``, if it is a :class:`Renderer` (the type checker says so; this says so at run time too).

    Raises:
        TypeError: it is not (a plain drawing function, say).
    """
    if not isinstance(render, Renderer):
        raise TypeError(f"{render!r} is no renderer: it needs palette, image and png (see render.contract.Renderer)")
    return render


def boards(
    start: G,
    moves: Sequence[str],
    render: Renderer[G],
    names: tuple[str, str],
    ended: Ended | None = None,
    translations: Translations | None = None,
) -> Iterator[tuple[Image.Image, int | None]]:
    """Every position of the game as the live renderer draws it (palette images, opening first; in the language of
    ``translations``), with the seat that made the move before it (None for the opening); the last is drawn with
    ``ended`` if given.

    Raises:
        engine.IllegalMove: the record does not replay (see :func:`positions`).
        TypeError: ``render`` is no :class:`~render.contract.Renderer`.
    """
    draw = _checked(render).image
    for i, (game, _, mover) in enumerate(positions(start, moves)):
        last = i == len(moves) and ended is not None
        yield draw(game, names, ended=ended if last else None, translations=translations), mover


def _scaled(board: Image.Image, palette: Palette, width: int) -> Image.Image:
    """``board`` scaled to ``width`` (area-averaged) and mapped back to ``palette``; unchanged if it is that wide."""
    if board.width == width:
        return board
    height = round(board.height * width / board.width)
    return palette.quantize(board.convert("RGB").resize((width, height), Image.Resampling.BOX))


def _caption(
    board: Image.Image,
    palette: Palette,
    index: int,
    total: int,
    move: str | None,
    mover: int | None,
    names: tuple[str, str],
    final_text: str,
    words: Words,
) -> Image.Image:
    """``board`` with a caption strip below: what was played (a long name cut first), and a progress bar in the
    mover's colour. Palette mode, ``palette``'s colours."""
    w, h = board.size
    out = palette.new((w, h + CAPTION_H), BACKGROUND)
    out.paste(board, (0, 0))
    c = Canvas(out, palette)
    if move is None:
        # TRANSLATORS: the caption of a replay's first frame.
        text = words.ngettext("Opening position · {count} move", "Opening position · {count} moves", total)
    else:
        who = words.name(player_names(names, words)[mover] if mover is not None else "?")
        # (no word "move" or "turn" before the count: the board above numbers turns, which a Hong turn's dragon
        # actions and the position's "turn 26" after move 25 would make seem to disagree)
        if index == total and final_text:
            # TRANSLATORS: a replay frame's caption: who played, the move in notation (S@B2), how far into the
            # replay ({index} of {total} moves), and how the game ended ({result}: "Ann won").
            text = words.gettext(
                "{name} played {move} · {index}/{total} · {result}",
                index=index,
                total=total,
                name=who,
                move=move,
                result=final_text,
            )
        else:
            # TRANSLATORS: a replay frame's caption: who played, the move in notation (S@B2), and how far into the
            # replay ({index} of {total} moves).
            text = words.gettext(
                "{name} played {move} · {index}/{total}", index=index, total=total, name=who, move=move
            )
    _, texts = fit_parts(parts(text), (_CAPTION,), w - 24)
    c.text_line((12, h + 15), texts, _CAPTION, INK, BACKGROUND, "lm")
    # progress bar along the bottom edge
    y0, y1 = h + CAPTION_H - 8, h + CAPTION_H - 3
    c.rectangle((12, y0, w - 12, y1), fill=TRACK)
    if total and index:
        colour = PLAYER_COLOURS[mover] if mover in (0, 1) else MUTED
        c.rectangle((12, y0, 12 + round((w - 24) * index / total), y1), fill=colour)
    return out


def encode_gif(
    frames: Iterable[tuple[Image.Image, int | None]],
    moves: Sequence[str],
    names: tuple[str, str],
    palette: Palette,
    *,
    width: int = WIDTH,
    final_text: str = "",
    translations: Translations | None = None,
) -> Replay:
    """Encode drawn positions as an animated GIF (looping, the last frame held :data:`LAST_MS`).

    Args:
        frames: ``len(moves) + 1`` boards in ``palette`` (opening first) with the seat that made the move before
            each (None for the opening), as :func:`boards` yields them.
        moves: the moves between them, as recorded (for the captions).
        names: display names of seat 0 and seat 1.
        palette: the renderer's palette (the GIF's one palette).
        width: output width in pixels (height keeps the aspect ratio; the caption adds :data:`CAPTION_H`).
        final_text: appended to the last frame's caption (e.g. "Ann wins 13–12"), in the captions' language.
        translations: the captions' language (see :func:`render.hongkong.render_board`); None for English.

    Raises:
        ValueError: not ``len(moves) + 1`` frames.
    """
    total = len(moves)
    w = words(translations)
    images, count = [], 0
    for i, (board, mover) in enumerate(frames):
        count += 1
        if i <= total:
            images.append(
                _caption(
                    _scaled(board, palette, width),
                    palette,
                    i,
                    total,
                    moves[i - 1] if i else None,
                    mover,
                    names,
                    final_text,
                    w,
                )
            )
    if count != total + 1:
        raise ValueError(f"need len(moves) + 1 = {total + 1} frames; got {count}")
    durations = [FIRST_MS] + [FRAME_MS] * total
    durations[-1] = LAST_MS
    buf = io.BytesIO()
    if len(images) == 1:
        images[0].save(buf, format="GIF")
    else:
        images[0].save(
            buf,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=durations,
            loop=0,
            optimize=True,
            disposal=1,
        )
    return Replay(buf.getvalue(), len(images), images[0].width, images[0].height, sum(durations))


def build_gif(
    start: G,
    moves: Sequence[str],
    render: Renderer[G],
    names: tuple[str, str],
    *,
    max_bytes: int = DISCORD_LIMIT,
    width: int = WIDTH,
    final_text: str = "",
    ended: Ended | None = None,
    translations: Translations | None = None,
) -> Replay:
    """Replay ``moves`` from ``start`` and make the animated GIF: one frame per move plus the opening.

    Args:
        start: a fresh engine game (``new_game(**options)`` of the recorded options); it is not changed (the moves
            are played on copies).
        moves: the move record (canonical notation), in order.
        render: the game's renderer (e.g. ``render.hongkong.RENDERER``); its ``image`` draws the frames, in its
            ``palette``.
        names: display names of seat 0 and seat 1.
        max_bytes: the GIF must be smaller than this (default Discord's 10 MiB); if it is not, it is
            rebuilt at 80 % of the width, up to three times.
        width: frame width in pixels before any shrinking.
        final_text: appended to the caption of the last frame.
        ended: how the game ended if not by play (resigned, out of time, aborted): the last frame is
            drawn with it, so it shows the result rather than whose turn it was.
        translations: the language of every word in the frames and captions: a
            :class:`gettext.NullTranslations`-like catalog (the bot's ``bot.i18n.translations(code)``); None for
            English.

    Returns:
        A :class:`Replay` (``frames == len(moves) + 1``).

    Raises:
        engine.IllegalMove: the record does not replay through the engine.
        ReplayTooLarge: still over ``max_bytes`` at the smallest size tried.
        TypeError: ``render`` is no :class:`~render.contract.Renderer`.
    """
    palette = _checked(render).palette
    moves = list(moves)
    for _ in range(4):
        replay = encode_gif(
            boards(start.copy(), moves, render, names, ended, translations),
            moves,
            names,
            palette,
            width=width,
            final_text=final_text,
            translations=translations,
        )
        if len(replay.gif) < max_bytes:
            return replay
        width = int(width * 0.8)
    raise ReplayTooLarge(f"the replay is {len(replay.gif)} bytes even at {replay.width} px; the limit is {max_bytes}")
