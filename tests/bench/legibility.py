"""Measure how small the text on every game's boards is on a phone: every text size drawn, in pixels at the width
Discord shows a board at 1× on a phone (400 px by default).

Run on demand (tests/contract/test_legibility.py asserts the minimum)::

    python tests/bench/legibility.py [--width 400] [--save DIR] [--all]

Boards of every registered game (``engine.registry``, through the bot's kinds as tests/contract finds them), every
challenge that gives other engine options (Hong's castle, garden and inner boards, with and without the lair): the
opening, a midgame, the midgame resigned and aborted, a finished game; with short names and long ones, in English,
the long German and the Japanese test catalogs (tests/render/languages.py) and every shipped catalog.

Every piece of text goes through :meth:`render.common.Canvas.text` (legends and lines of parts too): the bench wraps
it and records each label's style size (the font's em, in px) and its text. A label drawn into a small cached image
(a plot, a lair space) is pasted 1:1, so each size is scaled by ``width / board width``; the renderers' caches are
cleared before each board so nothing drawn earlier is missed. Prints, per game and board, the smallest size and its
label, and at the end the smallest of all (with ``--all``, every size seen and its labels).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from engine.result import Ended  # noqa: E402
from render import common  # noqa: E402
from tests.contract.games import SETUPS, Setup, finished, fresh, kind, midgame  # noqa: E402
from tests.render.languages import GERMAN, JAPANESE, translations  # noqa: E402

#: The width (px) Discord shows a board at on a phone at 1×.
PHONE_WIDTH = 400
SHORT = ("Ann", "Ben")
LONG = ("W" * 32, "Benedict Cumberbatch-Smythe the Third")


@dataclass
class Sizes:
    """The text sizes (px, at the board's own width) drawn for one board, with a label of each size."""

    seen: dict[int, set[str]] = field(default_factory=dict)
    #: Labels that are not a name but were cut with "…" to fit (words lost).
    cut: set[str] = field(default_factory=set)

    def add(self, size: int, text: str, names: tuple[str, ...] = ()) -> None:
        self.seen.setdefault(size, set()).add(text)
        kept = text[:-1].strip()
        if text.endswith("…") and not (kept and any(name.startswith(kept) for name in names)):
            self.cut.add(text)


def _clear_caches(module: ModuleType) -> None:
    """Empty every ``lru_cache`` of ``module`` (its cached plots, lair spaces and backgrounds are drawn again)."""
    for value in vars(module).values():
        if hasattr(value, "cache_clear") and getattr(value, "__module__", None) == module.__name__:
            value.cache_clear()


def languages() -> list[tuple[str, Any]]:
    """(code, translations) of English, the long German and Japanese test catalogs and every shipped catalog."""
    found: list[tuple[str, Any]] = [
        ("en", None),
        ("de-test", translations("de", GERMAN)),
        ("ja-test", translations("ja", JAPANESE)),
    ]
    try:
        from bot import i18n
    except ImportError:  # pragma: no cover - the bench runs in the project's environment
        return found
    return found + [(code, i18n.translations(code)) for code in i18n.languages() if code != i18n.SOURCE]


def positions(setup: Setup) -> Iterator[tuple[str, Any, Ended | None]]:
    """``(what, game, ended)``: the opening, a midgame, resigned, aborted, a finished game."""
    middle = midgame(setup, 2)
    yield "opening", fresh(setup, 2), None
    yield "midgame", middle, None
    yield "resigned", middle, Ended(1, "resigned")
    yield "aborted", middle, Ended(None, "aborted")
    yield "end", finished(setup, 2), None


def measure(
    setup: Setup,
    game: Any,
    ended: Ended | None,
    names: tuple[str, str],
    tr: Any,
    save: Path | None = None,
    stem: str = "",
) -> tuple[int, Sizes]:
    """Draw one board with every cache of its renderer emptied: its width and the text sizes drawn."""
    render = kind(setup.name).render
    for name, module in list(sys.modules.items()):
        if name.startswith("render.") and name not in ("render.text", "render.fonts") and module is not None:
            _clear_caches(module)
    sizes = Sizes()
    original = common.Canvas.text

    @functools.wraps(original)
    def recording(self: common.Canvas, xy: Any, text: str, style: Any, *args: Any, **kwargs: Any) -> float:
        if text.strip():
            sizes.add(style.size, text, names)
        return original(self, xy, text, style, *args, **kwargs)

    common.Canvas.text = recording  # type: ignore[method-assign]
    try:
        image = render.image(game, names, ended=ended, translations=tr)
    finally:
        common.Canvas.text = original  # type: ignore[method-assign]
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        image.save(save / f"{stem}.png")
        small = image.convert("RGB").resize((PHONE_WIDTH, round(image.height * PHONE_WIDTH / image.width)), resample=3)
        small.save(save / f"{stem}-{PHONE_WIDTH}.png")
    return image.width, sizes


def survey(width: int = PHONE_WIDTH, save: Path | None = None) -> list[tuple[str, str, float, int, str]]:
    """Every board of every game: ``(setup id, board, smallest size at width, board width, its label)``, where board
    is ``"<position> <language> <names>"``; labels cut with "…" (not names) are collected in :data:`cut`."""
    rows = []
    for setup in SETUPS:
        for what, game, ended in positions(setup):
            for code, tr in languages():
                for label, names in (("short", SHORT), ("long", LONG)):
                    stem = f"{setup.id}-{what}-{code}-{label}"
                    keep = save if save is not None and code in ("en", "de-test", "ja-test") else None
                    board_width, sizes = measure(setup, game, ended, names, tr, keep, stem)
                    smallest = min(sizes.seen)
                    cut.update((setup.id, f"{what} {code} {label}", text) for text in sizes.cut)
                    rows.append(
                        (
                            setup.id,
                            f"{what} {code} {label}",
                            smallest * width / board_width,
                            board_width,
                            sorted(sizes.seen[smallest])[0],
                        )
                    )
                    all_sizes.setdefault(setup.id, {}).setdefault(board_width, Sizes())
                    for size, texts in sizes.seen.items():
                        for text in texts:
                            all_sizes[setup.id][board_width].add(size, text)
    return rows


#: Labels other than names cut with "…": (setup id, board, text) (filled by :func:`survey`).
cut: set[tuple[str, str, str]] = set()
#: Every size seen per setup and board width (filled by :func:`survey`).
all_sizes: dict[str, dict[int, Sizes]] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=PHONE_WIDTH, help="display width in px (default 400)")
    parser.add_argument("--save", type=Path, help="write the English, German and Japanese boards (full and scaled)")
    parser.add_argument("--all", action="store_true", help="list every size seen and its labels")
    args = parser.parse_args()
    rows = survey(args.width, args.save)
    print(f"Smallest text drawn, px at {args.width} px display width (font size; a digit's ink is ~0.7 of it)")
    print(f"{'game / challenge':48} {'smallest':>8}  {'where':28} label")
    for setup_id in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == setup_id]
        worst = min(mine, key=lambda r: r[2])
        print(
            f"{setup_id:48} {worst[2]:8.1f}  {worst[1]:28} {worst[4]!r} ({worst[2] * worst[3] / args.width:.0f} px"
            f" on {worst[3]} px)"
        )
    worst = min(rows, key=lambda r: r[2])
    print(f"\nMINIMUM {worst[2]:.1f} px at {args.width} px: {worst[0]} {worst[1]} {worst[4]!r}")
    texts = sorted({(setup_id.split("-")[0], text) for setup_id, _, text in cut})
    print(
        f"{len(texts)} labels (not names) cut with '…' to fit: "
        + ", ".join(f"{game}: {text!r}" for game, text in texts)
    )
    if args.all:
        for setup_id, by_width in all_sizes.items():
            for board_width, sizes in by_width.items():
                print(f"\n{setup_id} ({board_width} px wide)")
                for size in sorted(sizes.seen):
                    texts = sorted(sizes.seen[size])
                    print(
                        f"  {size:3} px -> {size * args.width / board_width:5.1f}: {', '.join(map(repr, texts[:6]))}"
                        f"{' …' if len(texts) > 6 else ''}"
                    )


if __name__ == "__main__":
    main()
