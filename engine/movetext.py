"""A finished game's move record as plain text (a ``.txt`` attachment), and back.

Format (UTF-8, one item a line; modelled on PGN's tag pairs + movetext)::

    [Game "Hong Kong"]
    [Id "k3x9q2ab"]
    [Options "challenger plays blue, opponent orange; orange moves first"]
    [Setup "first=1"]
    [Seat0 "Ann (blue)"]
    [Seat1 "Ben (orange)"]
    [First "Ben (orange)"]
    [Result "Ann wins 13–12 in buildings (board full)."]
    [Termination "finished"]
    [Winner "0"]
    [Started "2025-01-02T18:04:11Z"]
    [Ended "2025-01-02T18:31:40Z"]
    [Guild "123"]
    [Channel "456"]

    1. Ben (orange): S@C3
    2. Ann (blue): Q@B2 S@B3
    ...

``Setup`` is the engine's ``new_game`` keyword arguments as ``name=value`` pairs (``first=1``, ``board=castle
expansion=true seed=577090037``: each value in JSON, a string bare where that reads back the same; :func:`setup_text`),
so :func:`parse_record` gives back everything needed to rebuild any position: ``engine.<game>.new_game(**setup)``
then ``play`` the moves in order. (Records written before kept the whole as a JSON object, ``{"first": 1}``: still
read.)
Each numbered line is one entry of the engine's move list (for Hong, a Great Dragon's action is its own line,
played by the same player as the placement before it). ``Termination`` is an :class:`engine.result.EndReason`
value. Pure: no I/O (the caller reads and writes the text).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any, Sequence

from engine.result import EndReason

_TAG = re.compile(r'^\[(\w+) "(.*)"\]$')
_MOVE = re.compile(r"^(\d+)\.\s+(.*):\s+([^:]+)$")  # moves never contain ":"; names may


def _esc(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unesc(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def iso(ts: float | None) -> str:
    """Unix seconds → ``2025-01-02T18:04:11Z`` (UTC), or ``"?"`` for None."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts)) if ts is not None else "?"


def record_text(
    doc: dict[str, Any],
    *,
    title: str,
    roles: Sequence[str],
    options_text: str,
    movers: Sequence[int],
    first: int | None = None,
) -> str:
    """The record of a finished game as text (see the module docstring for the format).

    Args:
        doc: the finished game record: ``id``, ``players`` (two dicts with ``name``), ``options`` (the ``new_game``
            keyword arguments), ``state`` (the engine's ``to_dict()``, its list under ``"moves"``), ``result``
            (``{"winner", "reason", "text"}`` or None; ``reason`` an :class:`EndReason` value), ``started`` and
            ``ended`` (Unix seconds), ``guild_id``, ``channel_id``.
        title: the game's name (``"Hong Kong"``).
        roles: what seat 0 and seat 1 are called (``("blue", "orange")``).
        options_text: the options in words.
        movers: the seat that played each move of the record (same length as the move list).
        first: the seat that moves first; None → the first mover (no ``First`` line for a game without moves).

    Raises:
        ValueError: ``movers`` does not match the move list, or the result's reason is not an :class:`EndReason`.
        KeyError: a field the format needs is missing.
    """
    moves = doc["state"]["moves"]
    if len(movers) != len(moves):
        raise ValueError(f"{len(moves)} moves but {len(movers)} movers")
    players = doc["players"]
    result = doc.get("result") or {}
    tags: list[tuple[str, object]] = [
        ("Game", title),
        ("Id", doc["id"]),
        ("Options", options_text),
        ("Setup", setup_text(doc["options"])),
        ("Seat0", f"{players[0]['name']} ({roles[0]})"),
        ("Seat1", f"{players[1]['name']} ({roles[1]})"),
    ]
    first = movers[0] if first is None and movers else first
    if first is not None:
        tags.append(("First", f"{players[first]['name']} ({roles[first]})"))
    tags += [
        ("Result", result.get("text", "")),
        ("Termination", EndReason(result["reason"]).value if result.get("reason") else ""),
        ("Winner", "draw" if result.get("winner") is None else result["winner"]),
        ("Started", iso(doc.get("started"))),
        ("Ended", iso(doc.get("ended"))),
        ("Guild", doc.get("guild_id", "")),
        ("Channel", doc.get("channel_id", "")),
        ("Moves", len(moves)),
    ]
    lines = [f'[{k} "{_esc(v)}"]' for k, v in tags]
    lines.append("")
    for n, (move, seat) in enumerate(zip(moves, movers), start=1):
        lines.append(f"{n}. {players[seat]['name']} ({roles[seat]}): {move}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ParsedRecord:
    """What :func:`parse_record` reads back.

    Attributes:
        tags: every header tag, by name (values unescaped).
        setup: the engine ``new_game`` keyword arguments.
        moves: the moves in order, as written.
    """

    tags: dict[str, str]
    setup: dict[str, Any]
    moves: list[str]

    @property
    def termination(self) -> EndReason | None:
        """How the game ended (the ``Termination`` tag), or None when the record does not say.

        Raises:
            ValueError: the tag is not an :class:`EndReason` value.
        """
        value = self.tags.get("Termination")
        return EndReason(value) if value else None


def parse_record(text: str) -> ParsedRecord:
    """Read a record made by :func:`record_text`.

    Raises:
        ValueError: no ``Setup`` tag, a line that is neither a tag nor a numbered move, or moves out of order.
    """
    tags: dict[str, str] = {}
    moves: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        tag = _TAG.match(line)
        if tag:
            tags[tag[1]] = _unesc(tag[2])
            continue
        move = _MOVE.match(line)
        if not move:
            raise ValueError(f'line {number} is neither a [Tag "value"] nor a numbered move: {line!r}')
        if int(move[1]) != len(moves) + 1:
            raise ValueError(f"line {number}: move {move[1]} where move {len(moves) + 1} was expected")
        moves.append(move[3].strip())
    if "Setup" not in tags:
        raise ValueError('the record has no [Setup "..."] line')
    return ParsedRecord(tags, parse_setup(tags["Setup"]), moves)


_PAIR = re.compile(r'\s*(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def setup_text(options: dict[str, Any]) -> str:
    """The ``new_game`` keyword arguments as ``name=value`` pairs, sorted by name, for the ``Setup`` tag: each value
    in compact JSON (``1``, ``true``, ``["A3","A4"]``), a string bare (``castle``) unless it would read back as
    something else or holds a space or a quote (then JSON-quoted). :func:`parse_setup` reads it back."""

    def value(v: Any) -> str:
        if isinstance(v, str) and v and not any(c in v for c in ' "=\\') and _json_or(v) == v:
            return v
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    return " ".join(f"{name}={value(options[name])}" for name in sorted(options))


def parse_setup(text: str) -> dict[str, Any]:
    """The ``Setup`` tag's value (:func:`setup_text`; or a JSON object, as records written before hold) as the
    ``new_game`` keyword arguments.

    Raises:
        ValueError: neither form.
    """
    if text.lstrip().startswith("{"):
        found = json.loads(text)
        if not isinstance(found, dict):
            raise ValueError("the Setup tag is not a JSON object")
        return found
    setup: dict[str, Any] = {}
    at = 0
    while at < len(text.rstrip()):
        pair = _PAIR.match(text, at)
        if pair is None:
            raise ValueError(f"the Setup tag is not name=value pairs: {text!r}")
        setup[pair[1]] = _json_or(pair[2])
        at = pair.end()
    return setup


def _json_or(text: str) -> Any:
    """``text`` read as JSON, or the text itself where it is no JSON (a bare string)."""
    try:
        return json.loads(text)
    except ValueError:
        return text
