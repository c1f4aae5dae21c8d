"""The font fallback chain: which font draws which character, so a name is drawn in its own script.

The fonts are Noto faces (SIL Open Font License 1.1) from two PyPI packages that ``pyproject.toml`` installs with
the bot, so every host draws the same glyphs whatever fonts it has:

* ``manimgx-fonts``: Noto Sans (Latin, Greek, Cyrillic and the user interface), Noto Sans for Arabic, Hebrew,
  Devanagari and the other scripts Noto Sans lacks, Noto Emoji (monochrome) and Noto Sans Symbols;
* ``manimgx-fonts-cjk``: Noto Sans CJK (Chinese, Japanese, Korean; one variable collection with a face per region).

A character is drawn by the first face of :data:`CHAIN` whose character map has it (read once per face from the
font file's ``cmap`` table, see :class:`Face`); Pillow's built-in font is the last fallback, and a character no face
has (private use, unassigned) is left out. If the packages are missing, everything falls back to the built-in font.
"""

from __future__ import annotations

import bisect
import importlib.resources
import mmap
import struct
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont, features

#: Pillow's text layout: libraqm (bidirectional text, Arabic joining, Indic conjuncts) where Pillow has it.
RAQM: bool = bool(features.check_feature("raqm"))  # (None: Pillow was built without it)
_LAYOUT = ImageFont.Layout.RAQM if RAQM else ImageFont.Layout.BASIC

#: Faces of the fallback chain, in the order they are tried: (package, file name).
_CHAIN_FILES = (
    ("manimgx_fonts", "NotoSans[wght].ttf"),
    ("manimgx_fonts", "NotoSansArabic[wght].ttf"),
    ("manimgx_fonts", "NotoSansHebrew[wght].ttf"),
    ("manimgx_fonts", "NotoSansDevanagari[wght].ttf"),
    ("manimgx_fonts", "NotoSansBengali[wght].ttf"),
    ("manimgx_fonts", "NotoSansGurmukhi[wght].ttf"),
    ("manimgx_fonts", "NotoSansGujarati[wght].ttf"),
    ("manimgx_fonts", "NotoSansOriya[wght].ttf"),
    ("manimgx_fonts", "NotoSansTamil[wght].ttf"),
    ("manimgx_fonts", "NotoSansTelugu[wght].ttf"),
    ("manimgx_fonts", "NotoSansKannada[wght].ttf"),
    ("manimgx_fonts", "NotoSansMalayalam[wght].ttf"),
    ("manimgx_fonts", "NotoSansSinhala[wght].ttf"),
    ("manimgx_fonts", "NotoSansThai[wght].ttf"),
    ("manimgx_fonts", "NotoSansLao[wght].ttf"),
    ("manimgx_fonts", "NotoSansMyanmar[wght].ttf"),
    ("manimgx_fonts", "NotoSansKhmer[wght].ttf"),
    ("manimgx_fonts", "NotoSansGeorgian[wght].ttf"),
    ("manimgx_fonts", "NotoSansArmenian[wght].ttf"),
    ("manimgx_fonts", "NotoSansEthiopic[wght].ttf"),
    ("manimgx_fonts_cjk", "NotoSansCJK-VF.otf.ttc"),
    ("manimgx_fonts", "NotoEmoji[wght].ttf"),
    ("manimgx_fonts", "NotoSansSymbols[wght].ttf"),
)
#: Faces of the Noto Sans CJK collection by region; the coverage is the same in each.
CJK_FACES = {"ja": 0, "ko": 1, "zh-Hans": 2, "zh-Hant": 3, "zh-HK": 4}

REGULAR, BOLD = 400, 700


def _cmap_ranges(data: bytes, offset: int) -> list[tuple[int, int]]:
    """Sorted, merged ``(first, last)`` code point ranges that the sfnt font at ``offset`` in ``data`` maps to a
    glyph, read from its ``cmap`` table (format 12, else format 4). Empty if the font has neither."""
    num_tables = struct.unpack_from(">H", data, offset + 4)[0]
    cmap = None
    for i in range(num_tables):
        tag, _, table_offset, _ = struct.unpack_from(">4sIII", data, offset + 12 + 16 * i)
        if tag == b"cmap":
            cmap = table_offset
    if cmap is None:
        return []
    subtables: dict[int, tuple[int, int, int]] = {}  # format → (platform, encoding, offset)
    for i in range(struct.unpack_from(">H", data, cmap + 2)[0]):
        platform, encoding, sub = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        fmt = struct.unpack_from(">H", data, cmap + sub)[0]
        subtables.setdefault(fmt, (platform, encoding, cmap + sub))
    ranges: list[tuple[int, int]] = []
    if 12 in subtables:
        at = subtables[12][2]
        groups = struct.unpack_from(">I", data, at + 12)[0]
        for g in range(groups):
            first, last, _ = struct.unpack_from(">III", data, at + 16 + 12 * g)
            ranges.append((first, last))
    elif 4 in subtables:
        at = subtables[4][2]
        segs = struct.unpack_from(">H", data, at + 6)[0] // 2
        ends = struct.unpack_from(f">{segs}H", data, at + 14)
        starts = struct.unpack_from(f">{segs}H", data, at + 16 + 2 * segs)
        range_at = at + 16 + 6 * segs
        offsets = struct.unpack_from(f">{segs}H", data, range_at)
        for s in range(segs):
            if starts[s] == 0xFFFF:
                continue
            if offsets[s] == 0:
                ranges.append((starts[s], ends[s]))
                continue
            for code in range(starts[s], ends[s] + 1):  # glyph ids from the glyph array; 0 = missing
                glyph_at = range_at + 2 * s + offsets[s] + 2 * (code - starts[s])
                if struct.unpack_from(">H", data, glyph_at)[0] != 0:
                    ranges.append((code, code))
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for first, last in ranges:
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


@dataclass(eq=False)
class Face:
    """One font file of the chain (``path`` None for Pillow's built-in font).

    ``index`` picks a face of a collection (``.ttc``). Coverage is read lazily from the file's ``cmap``.
    """

    name: str
    path: Path | None
    _starts: list[int] | None = field(default=None, repr=False)
    _ends: list[int] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _load(self) -> None:
        assert self.path is not None
        with open(self.path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            offset = struct.unpack_from(">I", data, 12)[0] if data[:4] == b"ttcf" else 0
            ranges = _cmap_ranges(data, offset)  # type: ignore[arg-type]
        self._ends = [last for _, last in ranges]
        self._starts = [first for first, _ in ranges]

    def covers(self, ch: str) -> bool:
        """Whether the font maps the character ``ch`` to a glyph."""
        if self.path is None:
            return _builtin_covers(ch)
        if self._starts is None:
            with self._lock:
                if self._starts is None:
                    self._load()
        code = ord(ch)
        i = bisect.bisect_right(self._starts, code) - 1  # type: ignore[arg-type]
        return i >= 0 and code <= self._ends[i]

    def font(self, size: int, weight: int = REGULAR, region: str = "zh-Hans") -> ImageFont.FreeTypeFont:
        """This face at ``size`` pixels and ``weight`` (variable fonts), laid out with raqm where Pillow has it."""
        return _font(self, size, weight, CJK_FACES[region] if self.name.startswith("NotoSansCJK") else 0)


@lru_cache(maxsize=512)
def _font(face: Face, size: int, weight: int, index: int) -> ImageFont.FreeTypeFont:
    if face.path is None:
        return ImageFont.load_default(size=size)  # type: ignore[return-value]
    f = ImageFont.truetype(str(face.path), size, index=index, layout_engine=_LAYOUT)
    try:
        f.set_variation_by_axes([weight])
    except OSError:  # not a variable font
        pass
    return f


@lru_cache(maxsize=1)
def _builtin_missing() -> bytes:
    return bytes(ImageFont.load_default(size=24).getmask("\U0010fffd"))


@lru_cache(maxsize=4096)
def _builtin_covers(ch: str) -> bool:
    """Whether Pillow's built-in font draws ``ch`` rather than its empty "missing glyph" box."""
    return ch == " " or bytes(ImageFont.load_default(size=24).getmask(ch)) != _builtin_missing()


def _package_file(package: str, name: str) -> Path | None:
    try:
        path = Path(str(importlib.resources.files(package).joinpath(name)))
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def _chain() -> tuple[Face, ...]:
    faces = []
    for package, name in _CHAIN_FILES:
        path = _package_file(package, name)
        if path is not None:
            faces.append(Face(name.split("[")[0].split("-VF")[0].split(".")[0], path))
    faces.append(Face("built-in", None))
    return tuple(faces)


#: The fallback chain: the faces found, in order, then Pillow's built-in font.
CHAIN: tuple[Face, ...] = _chain()
#: The face the interface text is set in (Noto Sans, or the built-in font if the font packages are missing).
PRIMARY: Face = CHAIN[0]
EMOJI: Face | None = next((f for f in CHAIN if f.name == "NotoEmoji"), None)
BUILTIN: Face = CHAIN[-1]


@lru_cache(maxsize=8192)
def face_for(ch: str, emoji: bool = False) -> Face | None:
    """The first face of :data:`CHAIN` that has ``ch`` (the emoji face first if ``emoji``), or None if none has it."""
    if emoji and EMOJI is not None and EMOJI.covers(ch):
        return EMOJI
    return next((face for face in CHAIN if face.covers(ch)), None)


__all__ = ["CHAIN", "PRIMARY", "EMOJI", "BUILTIN", "Face", "face_for", "RAQM", "REGULAR", "BOLD", "CJK_FACES"]
