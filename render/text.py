"""Text in the board images: names in any script, cut by rendered width, drawn from a cache of small images.

A line of text is split into grapheme clusters (a letter with its marks, an emoji with its modifiers and joiners),
each cluster gets the first face of the fallback chain that has it (:mod:`render.fonts`), and the clusters are put in
visual order: right-to-left runs (Arabic, Hebrew) are shaped and reordered by libraqm where Pillow has it, or simply
reversed where it does not (letters then stand unjoined, but in the right order). Text is cut with "…" by its
rendered width, never by counting characters.

A drawn piece of text is a :class:`Label`: the text rendered once over its background colour, quantised to the
board's palette and kept (with a mask of the pixels it covers) in a cache, so a board draws its text by pasting.
"""

from __future__ import annotations

import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

from PIL import Image, ImageDraw, ImageFont

from render.fonts import BOLD, EMOJI, PRIMARY, RAQM, REGULAR, Face, face_for

if TYPE_CHECKING:
    from render.common import Palette

Colour = tuple[int, int, int]

ELLIPSIS = "…"
#: Longest input :func:`clean_name` looks at; Discord names are at most 32 characters.
_NAME_LIMIT = 200
#: Combining marks kept on one letter (more would stack out of the line: "Zalgo" text).
_MARKS_LIMIT = 4
_ZWJ = "\u200d"
#: Format characters a name may keep: joiners (emoji sequences, Persian, Indic) and tag characters (flags).
_KEEP_FORMAT = {"\u200c", _ZWJ}
#: Letters that draw as blank space, picked to look nameless: the Hangul fillers, the Braille blank, the combining
#: grapheme joiner and Khmer's invisible inherent vowels.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
_lock = threading.RLock()


@dataclass(frozen=True)
class Style:
    """How a piece of text is set: ``size`` in pixels, ``bold``, and an outline (``stroke`` px in ``stroke_colour``)."""

    size: int
    bold: bool = False
    stroke: int = 0
    stroke_colour: Colour | None = None

    @property
    def weight(self) -> int:
        return BOLD if self.bold else REGULAR


# --- names -----------------------------------------------------------------------------------------


def _continues(ch: str, cluster: str) -> bool:
    """Whether ``ch`` belongs to the grapheme cluster ``cluster`` rather than starting a new one."""
    code = ord(ch)
    if unicodedata.category(ch) in ("Mn", "Me", "Mc") or ch in _KEEP_FORMAT:
        return True
    if cluster.endswith(_ZWJ) and not unicodedata.category(cluster[0]).startswith("L"):
        return True  # the next emoji of a joined sequence
    if 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F:
        return True  # an emoji skin tone, a flag's tag characters
    # the second regional indicator of a flag
    return 0x1F1E6 <= code <= 0x1F1FF and len(cluster) == 1 and 0x1F1E6 <= ord(cluster) <= 0x1F1FF


def clusters(text: str) -> list[str]:
    """``text`` as grapheme clusters (approximately Unicode's: a base with its marks, joiners, modifiers)."""
    out: list[str] = []
    for ch in text:
        if out and _continues(ch, out[-1]):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _is_emoji_cluster(cluster: str) -> bool:
    """Whether ``cluster`` asks for an emoji: a variation selector 16, a keycap, a joiner, a skin tone or a flag."""
    for c in cluster:
        code = ord(c)
        if c in "\ufe0f\u20e3\u200d" or 0x1F3FB <= code <= 0x1F3FF or 0x1F1E6 <= code <= 0x1F1FF:
            return True
    return False


def _face(cluster: str) -> Face | None:
    return face_for(cluster[0], _is_emoji_cluster(cluster))


def clean_name(name: object, fallback: str) -> str:
    """A player's display name made fit to draw on one line.

    Letters of every script and emoji are kept (NFC-normalised); control characters, bidirectional overrides,
    other invisible formatting and letters that draw as blank space (Hangul fillers, the Braille blank) are
    dropped (joiners, which emoji and some scripts need, are kept); runs of whitespace become one space; at most 4
    combining marks stay on a letter; at most 200 characters are kept; a character no font of the chain has is
    dropped. Returns ``fallback`` if nothing drawable is left (``""``, ``None``, only controls, blanks or
    private-use characters). Never raises.
    """
    text = str(name)[: _NAME_LIMIT * 4] if name is not None else ""
    text = unicodedata.normalize("NFC", text)
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif (
            ch in _BLANK
            or unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn")
            or (unicodedata.category(ch) == "Cf" and ch not in _KEEP_FORMAT and not 0xE0020 <= ord(ch) <= 0xE007F)
        ):
            continue
        else:
            kept.append(ch)
    out = []
    for cluster in clusters(" ".join("".join(kept).split())):
        if cluster[0] in _KEEP_FORMAT or unicodedata.category(cluster[0]) in ("Mn", "Me", "Mc"):
            continue  # a mark or joiner with nothing to attach to
        if cluster != " " and _face(cluster) is None:
            continue
        marks = [c for c in cluster[1:] if unicodedata.category(c) in ("Mn", "Me")]
        if len(marks) > _MARKS_LIMIT:
            cluster = cluster[0] + "".join(c for c in cluster[1:] if c not in marks) + "".join(marks[:_MARKS_LIMIT])
        out.append(cluster)
    cleaned = " ".join("".join(out).split())[:_NAME_LIMIT]
    return cleaned or fallback


# --- bidirectional order and font runs --------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A run of text drawn with one face in one direction: ``text`` in logical order, ``rtl`` for right-to-left
    (shaped by raqm; without raqm the text is already reversed and ``rtl`` is False)."""

    face: Face
    text: str
    rtl: bool
    region: str = "zh-Hans"


def _bidi_type(cluster: str) -> str:
    """``"R"`` (right-to-left letter), ``"L"`` (left-to-right letter), ``"N"`` (number) or ``""`` (neutral)."""
    kind = unicodedata.bidirectional(cluster[0])
    if kind in ("R", "AL"):
        return "R"
    if kind == "L":
        return "L"
    return "N" if kind in ("EN", "AN") else ""


def _levels(types: list[str]) -> list[int]:
    """Embedding levels of clusters of bidirectional ``types`` (Unicode's algorithm without explicit embeddings):
    the paragraph takes the direction of its first letter; a number after a left-to-right letter (or at the start
    of a left-to-right paragraph) is a left-to-right letter; a neutral between two runs of one direction (a number
    counting as right-to-left) takes it, otherwise the paragraph's."""
    base = next((t for t in types if t in "LR" and t), "L")
    strong: list[str] = []
    last = base
    for t in types:
        if t == "N" and last == "L":
            t = "L"
        if t in ("L", "R"):
            last = t
        strong.append(t)
    direction = ["R" if t == "N" else t for t in strong]
    for i, t in enumerate(direction):
        if not t:
            before = next((d for d in reversed(direction[:i]) if d), base)
            after = next((d for d in direction[i + 1 :] if d), base)
            direction[i] = before if before == after else base
    levels = []
    for t, d in zip(strong, direction):
        level = 0 if base == "L" else 1
        if t == "N":
            level = 2
        elif d != base:
            level += 1
        levels.append(level)
    return levels


def _region(text: str) -> str:
    """Which regional face of Noto Sans CJK suits ``text``: Japanese with kana, Korean with Hangul, else Chinese."""
    for ch in text:
        code = ord(ch)
        if 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF:
            return "ja"
        if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
            return "ko"
    return "zh-Hans"


@lru_cache(maxsize=4096)
def pieces(text: str, shaping: bool = RAQM) -> tuple[Piece, ...]:
    """``text`` as pieces in visual order, left to right.

    The paragraph direction is that of the first strong letter (right-to-left for Arabic or Hebrew); neutral
    characters between two letters of one direction take it, others the paragraph's. With ``shaping`` (raqm)
    a right-to-left run is passed on in logical order for raqm to shape and reverse; without it its clusters are
    reversed here ("plain reordering"). Clusters no face has are left out.
    """
    faced = [(c, _face(c)) for c in clusters(text)]
    parts = [(c, f) for c, f in faced if f is not None]
    # a space or punctuation stays in the run of the face before it when that face has it (not the emoji face:
    # its space is an emoji's width)
    for i in range(1, len(parts)):
        c, f = parts[i]
        prev = parts[i - 1][1]
        if (
            f is not prev
            and prev is not EMOJI
            and unicodedata.category(c[0])[0] in "ZPS"
            and not _is_emoji_cluster(c)
            and prev.covers(c[0])
        ):
            parts[i] = (c, prev)
    levels = _levels([_bidi_type(c) for c, _ in parts])
    order = list(range(len(parts)))  # visual order: reverse every run at each level from the highest down
    odd = [lv for lv in levels if lv % 2]
    for level in range(max(levels, default=0), min(odd, default=max(levels, default=0) + 1) - 1, -1):
        i = 0
        while i < len(order):
            if levels[order[i]] < level:
                i += 1
                continue
            j = i
            while j < len(order) and levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j
    groups: list[tuple[Face, bool, list[str]]] = []  # (face, rtl, clusters in visual order)
    for k in order:
        c, f = parts[k]
        rtl = levels[k] % 2 == 1
        if groups and groups[-1][0] is f and groups[-1][1] == rtl:
            groups[-1][2].append(c)
        else:
            groups.append((f, rtl, [c]))
    out = []
    for f, rtl, items in groups:
        if rtl and shaping:  # raqm takes the run in logical order and lays it out right to left
            out.append(Piece(f, "".join(items[::-1]), True, _region("".join(items))))
        else:
            out.append(Piece(f, "".join(items), False, _region("".join(items))))
    return tuple(out)


# --- measuring and cutting --------------------------------------------------------------------------


def _piece_font(piece: Piece, style: Style) -> ImageFont.FreeTypeFont:
    return piece.face.font(style.size, style.weight, piece.region)


def _piece_length(piece: Piece, style: Style) -> float:
    f = _piece_font(piece, style)
    if piece.rtl:
        return f.getlength(piece.text, direction="rtl")
    return f.getlength(piece.text)


@lru_cache(maxsize=8192)
def text_width(text: str, style: Style) -> float:
    """Rendered width of ``text`` in ``style``, in pixels (the stroke not counted)."""
    with _lock:
        return sum(_piece_length(p, style) for p in pieces(text))


def fit_text(text: str, style: Style, max_width: float) -> str:
    """``text`` cut short with an ellipsis ("…") so it is at most ``max_width`` pixels wide in ``style``.

    Cuts between grapheme clusters (never inside an emoji or between a letter and its accent). Returns ``text``
    unchanged if it fits, ``"…"`` alone if not even one cluster does, and ``""`` if ``max_width`` is too small
    for the ellipsis itself. Spaces before the ellipsis are removed.
    """
    if text_width(text, style) <= max_width:
        return text
    if text_width(ELLIPSIS, style) > max_width:
        return ""
    parts = clusters(text)
    lo, hi = 0, len(parts)  # the longest prefix that fits has lo clusters, lo < hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if text_width("".join(parts[:mid]).rstrip() + ELLIPSIS, style) <= max_width:
            lo = mid
        else:
            hi = mid
    return "".join(parts[:lo]).rstrip() + ELLIPSIS


def fit_parts(
    parts: Sequence[tuple[str, bool]],
    styles: Sequence[Style],
    max_width: float,
    name_max: float | None = None,
    name_min: float | None = None,
    smaller: Sequence[Style] = (),
) -> tuple[Style, list[str]]:
    """A line made of ``parts`` (``(text, is_name)``), fitted into ``max_width`` pixels.

    Names are first cut to ``name_max`` pixels if given. Then the first of ``styles`` (largest first) at which the
    whole line fits is used — with ``name_min``, also the first at which it fits with each name cut to an equal
    share of the room the other parts leave, that share at least ``name_min`` pixels (so a long name is cut before
    the sentence shrinks, and the sentence shrinks only when its words leave a name too little room). If none
    does, the last style with each name cut to its share (so "… wins" or "… to move" stays readable) — at least an
    eighth of the line between them, so a name never vanishes — and the line's end cut if that is not enough.
    ``smaller`` styles are tried (in order, each taken as soon as the line's own words fit beside names of at least
    an eighth of the line) only when the line's own words would be cut in the last of ``styles``: a language whose
    words are longer than English's shrinks further rather than lose them.
    Returns the style and the texts of the parts: draw each on its own, so a right-to-left name does not turn the
    sentence around it (:meth:`render.common.Canvas.text_line`).
    """
    texts: list[str] = []
    names = max(1, sum(1 for _, is_name in parts if is_name))
    for style in styles:
        texts = [fit_text(t, style, name_max) if is_name and name_max is not None else t for t, is_name in parts]
        if sum(text_width(t, style) for t in texts) <= max_width:
            return style, texts
        fixed = sum(text_width(t, style) for t, (_, is_name) in zip(texts, parts) if not is_name)
        if name_min is not None and (max_width - fixed) / names >= name_min:
            break
    fixed = sum(text_width(t, style) for t, (_, is_name) in zip(texts, parts) if not is_name)
    share = max(max_width - fixed, max_width / 8) / names
    texts = [fit_text(t, style, share) if is_name else t for t, (_, is_name) in zip(texts, parts)]
    out, used = [], 0.0
    for t in texts:  # still too long (a tiny max_width): cut where the room ends
        t = fit_text(t, style, max_width - used)
        out.append(t)
        used += text_width(t, style)
    if smaller and any(t != given for t, (given, is_name) in zip(out, parts) if not is_name):
        return fit_parts(parts, smaller, max_width, name_max, max_width / 8 / names)
    return style, out


def _words_kept(parts: Sequence[tuple[str, bool]], texts: Sequence[str]) -> bool:
    """Whether :func:`fit_parts` kept every word of ``parts`` that is not a name (only names were cut)."""
    return all(t == given for t, (given, is_name) in zip(texts, parts) if not is_name)


def _breaks(parts: Sequence[tuple[str, bool]]) -> list[tuple[list[tuple[str, bool]], list[tuple[str, bool]]]]:
    """``parts`` broken in two lines at each space of a part that is not a name (the space dropped)."""
    out = []
    for i, (text, is_name) in enumerate(parts):
        if is_name:
            continue
        for j, ch in enumerate(text):
            if ch != " ":
                continue
            head, tail = text[:j].rstrip(), text[j:].lstrip()
            first = [*parts[:i], *([(head, False)] if head else [])]
            second = [*([(tail, False)] if tail else []), *parts[i + 1 :]]
            if first and second:
                out.append((first, second))
    return out


def fit_parts_lines(
    parts: Sequence[tuple[str, bool]],
    styles: Sequence[Style],
    max_width: float,
    name_max: float | None = None,
    smaller: Sequence[Style] = (),
) -> tuple[Style, list[list[str]]]:
    """A line of ``parts`` as :func:`fit_parts` fits it — on two lines where one would cut its words.

    One line in the first of ``styles`` (then ``smaller``) at which only names are cut; else two lines, broken at a
    space between words (never inside a name) where the wider line is narrowest, in the first of ``styles`` +
    ``smaller`` at which both keep their words; else one line as :func:`fit_parts` cuts it. Returns the style and
    the texts of each line's parts (draw each line with :meth:`render.common.Canvas.text_line`).
    """
    style, texts = fit_parts(parts, styles, max_width, name_max, smaller=smaller)
    if _words_kept(parts, texts):
        return style, [texts]
    for option in (*styles, *smaller):
        cut = [fit_text(t, option, name_max) if n and name_max is not None else t for t, n in parts]
        shown = [(c, n) for c, (_, n) in zip(cut, parts)]

        def wider(pair: tuple[list[tuple[str, bool]], list[tuple[str, bool]]], st: Style = option) -> float:
            return max(sum(text_width(t, st) for t, _ in line) for line in pair)

        pair = min(_breaks(shown), key=wider, default=None)
        if pair is not None and wider(pair) <= max_width:
            return option, [[t for t, _ in pair[0]], [t for t, _ in pair[1]]]
    return style, [texts]


def fit_line(text: str, styles: Sequence[Style], max_width: float) -> tuple[Style, str]:
    """``text`` (no names in it) in the first of ``styles`` (largest first) at which it is at most ``max_width``
    pixels wide; else in the last, cut with "…"."""
    style, (fitted,) = fit_parts([(text, False)], styles, max_width)
    return style, fitted


def wrap(text: str, style: Style, max_width: float) -> list[str]:
    """``text`` broken into lines at most ``max_width`` pixels wide in ``style``: at each ``"\n"``, then between
    words where a line is full; a word wider than a line (or a run of Chinese or Japanese, written without spaces)
    is broken between grapheme clusters. A single cluster wider than the line stays whole on its line."""
    lines: list[str] = []
    for given in text.split("\n"):
        line = ""
        for word in given.split(" "):
            joined = f"{line} {word}" if line else word
            if text_width(joined, style) <= max_width:
                line = joined
                continue
            if line:
                lines.append(line)
                line = ""
            for cluster in clusters(word):  # the word alone is too wide: break it where the line is full
                if line and text_width(line + cluster, style) > max_width:
                    lines.append(line)
                    line = ""
                line += cluster
        lines.append(line)
    return lines


def two_lines(text: str, style: Style) -> list[str]:
    """``text`` as one or two lines, broken where the wider line is narrowest: between words, or — for Chinese or
    Japanese, written without spaces — between any two characters; a single word of another script stays whole
    (one line)."""
    if " " in text.strip():
        words = text.split()
        breaks = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    elif any(unicodedata.east_asian_width(ch) in "WF" for ch in text):
        parts = clusters(text)
        breaks = [("".join(parts[:i]), "".join(parts[i:])) for i in range(1, len(parts))]
    else:
        return [text]
    best = min(breaks, key=lambda pair: max(text_width(pair[0], style), text_width(pair[1], style)), default=None)
    return list(best) if best else [text]


def fit_lines(text: str, styles: Sequence[Style], max_width: float, max_lines: int) -> tuple[Style, list[str]]:
    """``text`` wrapped (:func:`wrap`) in the first of ``styles`` (largest first) at which it takes at most
    ``max_lines`` lines of ``max_width`` pixels; else in the last, its first ``max_lines`` lines, the last of them
    ending in "…"."""
    for style in styles:
        lines = wrap(text, style, max_width)
        if len(lines) <= max_lines:
            return style, lines
    rest = " ".join(lines[max_lines - 1 :])  # too wide for one line: cut with "…"
    return style, [*lines[: max_lines - 1], fit_text(rest, style, max_width)]


@lru_cache(maxsize=64)
def metrics(style: Style) -> tuple[int, int]:
    """Ascent and descent (pixels, both positive) of the interface face in ``style``: the line the text sits in."""
    with _lock:
        return PRIMARY.font(style.size, style.weight).getmetrics()


# --- drawing ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """A piece of text rendered once: ``image`` (palette mode), the ``mask`` of the pixels it covers, and the
    offset ``(dx, dy)`` of the image's top-left corner from the point the text was anchored at; ``width`` is the
    text's advance width."""

    image: Image.Image
    mask: Image.Image
    dx: int
    dy: int
    width: float


def _anchor_offset(style: Style, width: float, anchor: str) -> tuple[float, float]:
    """Where the start of the baseline goes relative to the anchor point (as Pillow's text anchors)."""
    ascent, descent = metrics(style)
    h, v = anchor[0], anchor[1]
    x = {"l": 0.0, "m": -width / 2, "r": -width}[h]
    y = {"a": ascent, "m": (ascent - descent) / 2, "s": 0.0, "d": -descent}[v]
    return x, y


def render_label(text: str, style: Style, fg: Colour, bg: Colour, palette: "Palette", anchor: str = "la") -> Label:
    """``text`` rendered in ``style`` and colour ``fg`` over ``bg``, for pasting at an anchor point (see
    :meth:`render.common.Canvas.text`). Cached: the same arguments give the same (shared, read-only) Label."""
    return _label(text, style, fg, bg, palette, anchor)


@lru_cache(maxsize=4096)
def _label(text: str, style: Style, fg: Colour, bg: Colour, palette: "Palette", anchor: str) -> Label:
    with _lock:
        runs = pieces(text)
        width = sum(_piece_length(p, style) for p in runs)
        ox, oy = _anchor_offset(style, width, anchor)
        ascent, descent = metrics(style)
        pad = style.size + style.stroke  # room for tall scripts, marks and the stroke
        w = int(width + 2 * pad) + 2
        h = ascent + descent + 2 * pad
        rgb = Image.new("RGB", (w, h), bg)
        cover = Image.new("L", (w, h), 0)
        draw_rgb, draw_cover = ImageDraw.Draw(rgb), ImageDraw.Draw(cover)
        x, baseline = float(pad), pad + ascent
        for p in runs:
            f = _piece_font(p, style)
            direction = "rtl" if p.rtl else None
            draw_rgb.text(
                (x, baseline),
                p.text,
                font=f,
                fill=fg,
                anchor="ls",
                stroke_width=style.stroke,
                stroke_fill=style.stroke_colour,
                direction=direction,
            )
            draw_cover.text(
                (x, baseline),
                p.text,
                font=f,
                fill=255,
                anchor="ls",
                stroke_width=style.stroke,
                stroke_fill=255,
                direction=direction,
            )
            x += _piece_length(p, style)
        box = cover.getbbox()
        if box is None:
            empty = Image.new("P", (1, 1))
            return Label(empty, Image.new("L", (1, 1), 0), 0, 0, width)
        mask = cover.crop(box).point([0] + [255] * 255)
        image = palette.quantize(rgb.crop(box))
        # the anchor point sits at (pad - ox, baseline - oy) in the full image
        dx = box[0] - round(pad - ox)
        dy = box[1] - round(baseline - oy)
        return Label(image, mask, dx, dy, width)


__all__ = [
    "Style",
    "Label",
    "clean_name",
    "clusters",
    "pieces",
    "Piece",
    "text_width",
    "fit_text",
    "fit_parts",
    "fit_parts_lines",
    "fit_line",
    "wrap",
    "two_lines",
    "fit_lines",
    "metrics",
    "render_label",
    "ELLIPSIS",
]
