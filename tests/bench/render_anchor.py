"""The anchor the board renderers are measured against: what chess bots post, python-chess's SVG board turned into a
640 px PNG by cairosvg, timed in the same process as our boards.

Not a dependency of the project: install ``chess`` and ``cairosvg`` in the virtualenv to get the comparison
(``.venv/bin/pip install chess cairosvg``; cairosvg needs the Cairo library, ``libcairo2`` on Debian). Without them
:func:`anchor_ms` returns None and the benchmarks print their own numbers only.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Target: a board drawn and encoded in at most this fraction of the anchor's time.
TARGET_RATIO = 0.1


def anchor_ms(runs: int = 15) -> float | None:
    """Median milliseconds for python-chess SVG → cairosvg PNG at 640 px of a middle-game position (with the last
    move marked and the king in check, as a bot posts it), or None if chess or cairosvg is not installed."""
    try:
        import cairosvg
        import chess
        import chess.svg
    except (ImportError, OSError):  # OSError: cairosvg without the Cairo library
        return None
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d4", "exd4", "cxd4", "Bb4+"):
        board.push_san(san)
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        svg = chess.svg.board(board, size=640, lastmove=board.peek(), check=board.king(board.turn))
        png = cairosvg.svg2png(bytestring=svg.encode(), output_width=640, output_height=640)
        times.append((time.perf_counter() - start) * 1000)
        assert png[:4] == b"\x89PNG"
    return statistics.median(times[1:])  # the first run loads Cairo's fonts


def print_ratio(ours: dict[str, float], before: float | None, after: float | None) -> None:
    """Print our slowest median against the anchor measured before and after our runs (the mean of the two)."""
    if before is None or after is None:
        print("anchor: not measured (pip install chess cairosvg to compare with python-chess SVG → cairosvg PNG)")
        return
    anchor = (before + after) / 2
    label, worst = max(ours.items(), key=lambda kv: kv[1])
    verdict = "meets" if worst / anchor <= TARGET_RATIO else "misses"
    print(
        f"anchor: python-chess SVG → cairosvg PNG 640 px, median {anchor:.1f} ms (before {before:.1f}, after "
        f"{after:.1f}); our slowest median {worst:.1f} ms ({label}) = {worst / anchor:.3f}× the anchor "
        f"({verdict} the ≤ {TARGET_RATIO}× target)"
    )


def as_played(new_game, render, games: int = 3) -> str:
    """A line on drawing games as the bot does: every position once (so each new building, tile combination and
    line of text is drawn for the first time), ``games`` seeded random games with names in several scripts."""
    pool = ["Ann", "李小龙", "Борис", "محمد علي", "🐉 Drake", "Zoë", "김민준", "Αλέξανδρος"]
    times = []
    for seed in range(games):
        rng = random.Random(seed)
        names = tuple(rng.sample(pool, 2))
        game = new_game(seed)
        while True:
            start = time.perf_counter()
            render(game, names)
            times.append((time.perf_counter() - start) * 1000)
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
    times.sort()
    return (
        f"as played (each position drawn once, {games} games, {len(times)} boards): median "
        f"{statistics.median(times):.1f} ms, p95 {times[int(0.95 * len(times))]:.1f} ms"
    )


def first_render(game_module: str, setup: str, names: tuple[str, str]) -> float:
    """Milliseconds from importing ``render.<game_module>`` to the first PNG in a fresh interpreter (fonts opened,
    character maps read, labels drawn for the first time), for ``names``. ``setup`` makes ``game``."""
    code = (
        f"import time, sys\nsys.path.insert(0, {str(ROOT)!r})\n{setup}\n"
        f"t = time.perf_counter()\nfrom render.{game_module} import render_board\n"
        f"render_board(game, {names!r})\nprint((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())
