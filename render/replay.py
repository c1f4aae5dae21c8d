"""Animated GIF replays: a finished game's move record → one frame per move, drawn by the live renderer.

The bot rebuilds every position by replaying the record through the engine from the opening
(``engine.<game>.new_game(**options)``; Hong's seed gives the same stones and lair) and draws each one with
the same ``render_board`` that drew the live boards, so a replay looks exactly like the game did. Each frame
gets a caption strip underneath ("Move 12/38 · Ann: S@A1" and a progress bar), which also keeps every frame
distinct (a GIF encoder merges identical neighbouring frames, and there must be one frame per move).

Size: frames are downscaled (default 720 px wide), share one 255-colour palette taken from the opening,
middle and final positions, and only the pixels that changed are stored (Pillow's ``optimize``: unchanged
pixels become transparent). A full-length game is 0.5–2 MB, far under Discord's 10 MiB upload limit; if a
GIF still came out over ``max_bytes`` it is rebuilt smaller (see :func:`build_gif`).

Pure: no Discord, no Redis. CPU-bound (about 30 ms per move on one core): run it in a worker thread.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from PIL import Image, ImageDraw

from engine.result import Ended
from render.common import BACKGROUND, INK, MUTED, PLAYER_COLOURS, clean_name, fit_text, font

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

#: A live renderer: ``(game, names, *, ended=None) -> PNG bytes`` (see ``render.hongkong.render_board``).
Render = Callable[..., bytes]


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


def positions(start: Any, moves: Iterable[str]) -> Iterable[tuple[Any, str | None, int | None]]:
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


def _caption(frame: Image.Image, index: int, total: int, move: str | None, mover: int | None,
             names: tuple[str, str], final_text: str) -> Image.Image:
    """``frame`` with a caption strip below: what was played, and a progress bar in the mover's colour."""
    w, h = frame.size
    out = Image.new("RGB", (w, h + CAPTION_H), BACKGROUND)
    out.paste(frame, (0, 0))
    d = ImageDraw.Draw(out)
    f = font(20)
    if move is None:
        text = f"Opening position · {total} move{'s' if total != 1 else ''}"
    else:
        who = clean_name(names[mover], f"Player {mover + 1}") if mover is not None else "?"
        text = f"Move {index}/{total} · {who}: {move}"
        if index == total and final_text:
            text += f" · {final_text}"
    d.text((12, h + 15), fit_text(text, f, w - 24), font=f, anchor="lm", fill=INK)
    # progress bar along the bottom edge
    y0, y1 = h + CAPTION_H - 8, h + CAPTION_H - 3
    d.rectangle((12, y0, w - 12, y1), fill=(225, 216, 198))
    if total and index:
        colour = PLAYER_COLOURS[mover] if mover in (0, 1) else MUTED
        d.rectangle((12, y0, 12 + round((w - 24) * index / total), y1), fill=colour)
    return out


def _scaled(png: bytes, width: int) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im = im.convert("RGB")
    if im.width != width:
        height = round(im.height * width / im.width)
        im = im.resize((width, height), Image.Resampling.BILINEAR, reducing_gap=2.0)
    return im


def render_positions(start: Any, moves: Sequence[str], render: Render, names: tuple[str, str]) -> list[bytes]:
    """Every position of the game as the live renderer draws it: ``len(moves) + 1`` PNGs, opening first.

    Raises:
        engine.IllegalMove: the record does not replay (see :func:`positions`).
    """
    return [render(game, names) for game, _, _ in positions(start, moves)]


def encode_gif(pngs: Sequence[bytes], moves: Sequence[str], movers: Sequence[int | None], names: tuple[str, str], *,
               width: int = WIDTH, colours: int = 255, final_text: str = "") -> Replay:
    """Encode rendered positions as an animated GIF (looping, the last frame held :data:`LAST_MS`).

    Args:
        pngs: ``len(moves) + 1`` PNG images, the opening first (see :func:`render_positions`).
        moves: the moves between them, as recorded (for the captions).
        movers: ``len(pngs)`` seats: None for the opening, then the seat that played each move.
        names: display names of seat 0 and seat 1.
        width: output width in pixels (height keeps the aspect ratio; the caption adds :data:`CAPTION_H`).
        colours: palette size, at most 255 (one index stays free for transparency).
        final_text: appended to the last frame's caption (e.g. "Ann wins 13–12").

    Raises:
        ValueError: ``pngs`` empty or lengths that do not match.
    """
    if not pngs or len(pngs) != len(moves) + 1 or len(movers) != len(pngs):
        raise ValueError(f"need len(moves) + 1 images and movers; got {len(pngs)}, {len(moves)}, {len(movers)}")
    total = len(moves)

    def frame(i: int) -> Image.Image:
        return _caption(_scaled(pngs[i], width), i, total, moves[i - 1] if i else None, movers[i], names, final_text)

    # one palette for every frame, from positions far apart (opening, middle, end)
    samples = {i: frame(i) for i in sorted({0, total // 2, total})}
    fw, fh = samples[0].size
    montage = Image.new("RGB", (fw, fh * len(samples)))
    for k, im in enumerate(samples.values()):
        montage.paste(im, (0, fh * k))
    palette = montage.quantize(colors=min(255, colours), method=Image.Quantize.MEDIANCUT)
    frames = [(samples.pop(i) if i in samples else frame(i)).quantize(palette=palette, dither=Image.Dither.NONE)
              for i in range(total + 1)]
    durations = [FIRST_MS] + [FRAME_MS] * total
    durations[-1] = LAST_MS
    buf = io.BytesIO()
    if len(frames) == 1:
        frames[0].save(buf, format="GIF")
    else:
        frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                       optimize=True, disposal=1)
    return Replay(buf.getvalue(), len(frames), fw, fh, sum(durations))


def build_gif(start: Any, moves: Sequence[str], render: Render, names: tuple[str, str], *,
              max_bytes: int = DISCORD_LIMIT, width: int = WIDTH, final_text: str = "",
              ended: Ended | None = None) -> Replay:
    """Replay ``moves`` from ``start`` and make the animated GIF: one frame per move plus the opening.

    Args:
        start: a fresh engine game (``new_game(**options)`` of the recorded options); it is played on.
        moves: the move record (canonical notation), in order.
        render: the live renderer, ``(game, names) -> PNG bytes`` (e.g. ``render.hongkong.render_board``).
        names: display names of seat 0 and seat 1.
        max_bytes: the GIF must be smaller than this (default Discord's 10 MiB); if it is not, it is
            rebuilt at 80 % of the width with fewer colours, up to three times.
        width: frame width in pixels before any shrinking.
        final_text: appended to the caption of the last frame.
        ended: how the game ended if not by play (resigned, out of time, aborted): the last frame is
            drawn with it, so it shows the result rather than whose turn it was.

    Returns:
        A :class:`Replay` (``frames == len(moves) + 1``).

    Raises:
        engine.IllegalMove: the record does not replay through the engine.
        ReplayTooLarge: still over ``max_bytes`` at the smallest size tried.
    """
    movers: list[int | None] = []
    pngs: list[bytes] = []
    for i, (game, _, mover) in enumerate(positions(start, moves)):
        movers.append(mover)
        last = i == len(moves) and ended is not None
        pngs.append(render(game, names, ended=ended) if last else render(game, names))
    colours = 255
    for _ in range(4):
        replay = encode_gif(pngs, list(moves), movers, names, width=width, colours=colours, final_text=final_text)
        if len(replay.gif) < max_bytes:
            return replay
        width, colours = int(width * 0.8), max(64, colours // 2)
    raise ReplayTooLarge(f"the replay is {len(replay.gif)} bytes even at {replay.width} px; the limit is {max_bytes}")
