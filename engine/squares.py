"""Squares as players type them — one reader for every game, so both games accept the same spellings.

A square is a column letter then a row number: ``"B3"`` is column B (the second from the left), row 3 (the third
from the top). What a player types is folded first (:func:`fold`): Unicode compatibility forms become plain
letters and digits (full-width ``"ｂ３"`` is ``"B3"``), any script's decimal digits become ASCII ones, white space
goes (``"B 3"``) and letters are upper-cased. A row may be zero-padded (``"B03"``).

When the text is no square but one square is plainly what was meant — the digits first (``"3B"``), punctuation in
between (``"B-3"``), a letter O for a zero or an I or L for a one (``"BI"``), or letters after the row (``"B3X"``) —
the refusal ends with "Did you mean B3?" (:func:`suggest`). Nothing is ever guessed silently.

Pure: no I/O. Raises :class:`engine.IllegalMove` with a message fit to show a player.
"""

from __future__ import annotations

import re
import unicodedata

from engine import N_, IllegalMove

__all__ = ["normal", "fold", "square_name", "split", "suggest", "parse"]

_SQUARE = re.compile(r"([A-Z])([0-9]{1,2})")
_REVERSED = re.compile(r"([0-9]{1,2})([A-Z])")
_TRAILING = re.compile(r"([A-Z])([0-9]{1,2})[A-Z]+")
#: Letters typed for the digits they look like, in a row number.
_LOOKALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def normal(text: str) -> str:
    """Typed text in the form the engines read: NFKC (full-width forms → ASCII: ``"ｓ＠ｃ３"`` → ``"S@C3"``),
    every decimal digit of any script → ASCII, upper case; white space kept. Non-text → ``""``."""
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFKC", text)
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text).upper()


def fold(text: str) -> str:
    """:func:`normal` without white space: ``"ｂ ３"`` → ``"B3"``."""
    return "".join(normal(text).split())


def square_name(col: int, row: int) -> str:
    """The square at 0-based ``col``/``row``: ``square_name(1, 2) == "B3"``."""
    return f"{chr(65 + col)}{row + 1}"


def split(text: str) -> tuple[int, int] | None:
    """A square as 0-based ``(col, row)``, or None when ``text`` (folded here) is not one. Row 0 is no square."""
    m = _SQUARE.fullmatch(fold(text))
    if not m or int(m.group(2)) == 0:
        return None
    return ord(m.group(1)) - 65, int(m.group(2)) - 1


def _on(pos: tuple[int, int] | None, columns: int, rows: int) -> bool:
    return pos is not None and pos[0] < columns and pos[1] < rows


def suggest(text: str, columns: int = 26, rows: int = 99) -> str | None:
    """The one square a near miss plainly meant (see the module docstring), if it lies within ``columns`` ×
    ``rows``; None when no reading gives a square, or two readings give different ones (``"B1O"``: B1 or B10)."""
    t = fold(text)
    candidates = set()
    bare = re.sub(r"[^A-Z0-9]", "", t)
    m = _REVERSED.fullmatch(bare)
    if m:
        candidates.add(m.group(2) + m.group(1))
    m = _TRAILING.fullmatch(bare)
    if m:
        candidates.add(m.group(1) + m.group(2))
    if len(bare) >= 2 and bare[0].isalpha():
        candidates.add(bare[0] + bare[1:].translate(_LOOKALIKES))
    candidates.add(bare)
    found = {pos for pos in map(split, candidates) if pos is not None}
    if len(found) != 1:  # nothing, or two readings ("B1O": B1 or B10?): no guess
        return None
    pos = found.pop()
    return square_name(*pos) if _on(pos, columns, rows) else None


def parse(text: str, columns: int = 26, rows: int = 99, *, example: str = "C3") -> tuple[int, int]:
    """A typed square → 0-based ``(col, row)`` within ``columns`` × ``rows`` (default: any letter, rows 1–99,
    for a game whose board checks the square itself).

    Raises:
        IllegalMove: not a square, or outside the grid: "'3b' is not a square: use a column A–E and a row 1–5,
            like C3. Did you mean B3?" (the hint only for an unambiguous near miss).
    """
    pos = split(text)
    if _on(pos, columns, rows):
        return pos  # type: ignore[return-value]
    shown = " ".join(str(text).split()) if isinstance(text, str) else repr(text)
    near = suggest(text, columns, rows)
    if columns < 26 or rows < 99:
        column = chr(64 + columns)
        if near:
            # TRANSLATORS: {text} is what the player typed; {column} the last column letter (E), {rows} the last
            # row number (5); {example} and {near} are squares such as C3.
            raise IllegalMove(
                N_(
                    "'{text}' is not a square on the board: use a column A–{column} and a row "
                    "1–{rows}, like {example}. Did you mean {near}?",
                    text=shown,
                    column=column,
                    rows=rows,
                    example=example,
                    near=near,
                )
            )
        # TRANSLATORS: {text} is what the player typed; {column} the last column letter (E), {rows} the last row
        # number (5); {example} is a square such as C3.
        raise IllegalMove(
            N_(
                "'{text}' is not a square on the board: use a column A–{column} and a row 1–{rows}, like {example}.",
                text=shown,
                column=column,
                rows=rows,
                example=example,
            )
        )
    if near:
        # TRANSLATORS: {text} is what the player typed; {example} and {near} are squares such as C3.
        raise IllegalMove(
            N_(
                "'{text}' is not a square: give a column letter and a row number, like {example}. Did you mean {near}?",
                text=shown,
                example=example,
                near=near,
            )
        )
    # TRANSLATORS: {text} is what the player typed; {example} is a square such as C3.
    raise IllegalMove(
        N_(
            "'{text}' is not a square: give a column letter and a row number, like {example}.",
            text=shown,
            example=example,
        )
    )
