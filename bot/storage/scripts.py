"""The Lua scripts of ``bot/storage/lua/``, called with their keys and arguments by name.

Each ``lua/<name>.lua`` declares its keys and arguments in two comment lines, then reads each into a local of that
name, and its body uses only those names::

    -- KEYS: game, done
    -- ARGV: expected, doc, effects...
    local game = KEYS[1]
    local done = KEYS[2]
    local expected = ARGV[1]
    local doc = ARGV[2]
    local effects = 3 -- ARGV[effects...]

A last name ending in ``...`` is a *tail*: any number of values from that position on; its local holds the position
of the first, and the body reads them by index (``ARGV[effects]``, ``ARGV[effects + 1]`` …). A :class:`Script`
checks on load that the locals say what the declaration says (the same names at the same positions, and no other
``KEYS[n]``/``ARGV[n]`` anywhere), so the two can't drift; called, it maps ``keys={name: …}`` and ``args={name: …}``
to the positions, refusing a missing or unknown name.

A script made with ``marked=True`` (every script that writes) is sent with ``lua/marker_check.lua`` before it: called
with one more key than its own — ``keys={"marker": …}``, the identity marker of the slot
(:func:`bot.storage.store.marker`; None: none, nothing checked) — it refuses before anything is read or written when
that key is gone (:data:`LOST_REPLY`).
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any, Mapping, Sequence

from redis.commands.core import AsyncScript

from .decoding import RedisClient

#: The start of the error reply of a script that refused because the store's identity marker is gone (written in
#: ``lua/marker_check.lua`` and ``lua/guarded.lua``).
LOST_REPLY = "HONGBOT_STORE_LOST"
#: The extra key of a ``marked`` script (the identity marker, after its own keys).
MARKER = "marker"

#: The names of the files of ``lua/`` read so far (:func:`source`), for the test that every file is used.
LOADED: set[str] = set()

_NAME = re.compile(r"[a-z_][a-z0-9_]*(\.\.\.)?")
_LOCAL = re.compile(r"^local ([a-z_][a-z0-9_]*) = (KEYS|ARGV)\[(\d+)\]$")
_TAIL = re.compile(r"^local ([a-z_][a-z0-9_]*) = (\d+) -- (KEYS|ARGV)\[([a-z_][a-z0-9_]*)\.\.\.\]$")
_POSITIONAL = re.compile(r"\b(KEYS|ARGV)\[\d+\]")


class ScriptMismatch(ValueError):
    """A script's file contradicts itself: its declared keys or arguments and the locals reading them disagree, or
    the body reads a key or argument by its number."""


def source(name: str) -> str:
    """The text of ``lua/<name>.lua`` (packaged with the bot).

    Raises:
        FileNotFoundError: there is no such script.
    """
    text = (resources.files(__package__) / "lua" / f"{name}.lua").read_text(encoding="utf-8")
    LOADED.add(name)
    return text


def declared(name: str, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The key names and argument names ``text`` (the script ``name``) declares in its ``-- KEYS:`` and ``-- ARGV:``
    lines, in order (a tail's name ending in ``...``), checked against its locals.

    Raises:
        ScriptMismatch: a declaration is missing, repeated or malformed, or the locals disagree with it (a name
            missing, extra, at another position, or a ``KEYS[n]``/``ARGV[n]`` outside them).
    """
    lines = [line.rstrip() for line in text.splitlines()]
    found: dict[str, tuple[str, ...]] = {}
    for table in ("KEYS", "ARGV"):
        heads = [line for line in lines if line.startswith(f"-- {table}:")]
        if len(heads) != 1:
            raise ScriptMismatch(f"{name}.lua: {len(heads)} '-- {table}:' lines, not one")
        listed = heads[0].split(":", 1)[1].strip()  # (nothing listed: the script takes none)
        names = tuple(part.strip() for part in listed.split(",")) if listed else ()
        bad = [n for i, n in enumerate(names, 1) if not _NAME.fullmatch(n) or n.endswith("...") and i < len(names)]
        if bad or len({n.removesuffix("...") for n in names}) != len(names):
            raise ScriptMismatch(f"{name}.lua: the {table} declared are malformed or repeated: {', '.join(names)}")
        found[table] = names
    overlap = {n.removesuffix("...") for n in found["KEYS"]} & {n.removesuffix("...") for n in found["ARGV"]}
    if overlap:
        raise ScriptMismatch(f"{name}.lua: {', '.join(sorted(overlap))} named both a key and an argument")
    expected = {
        line
        for table, names in found.items()
        for position, n in enumerate(names, 1)
        for line in (
            [f"local {n[:-3]} = {position} -- {table}[{n}]"]
            if n.endswith("...")
            else [f"local {n} = {table}[{position}]"]
        )
    }
    locals_ = {line for line in lines if _LOCAL.match(line) or _TAIL.match(line)}
    if locals_ != expected:
        raise ScriptMismatch(
            f"{name}.lua: the locals disagree with the declared keys and arguments: missing "
            f"{sorted(expected - locals_)}, not declared {sorted(locals_ - expected)}"
        )
    positional = [line for line in lines if _POSITIONAL.search(line) and not _LOCAL.match(line)]
    if positional:
        raise ScriptMismatch(f"{name}.lua: reads a key or argument by its number, not its name: {positional}")
    return found["KEYS"], found["ARGV"]


class Script:
    """The script ``lua/<name>.lua``: its names, the source sent to Redis, and the positions of named values.

    Args:
        name: the file's name without ``.lua``.
        marked: prepend ``lua/marker_check.lua`` (its ``OWN_KEYS`` replaced by the script's key count), and take the
            identity marker as the extra key :data:`MARKER`.

    Raises:
        FileNotFoundError: there is no such script.
        ScriptMismatch: its declaration and its locals disagree (:func:`declared`), or a marked script has a tail of
            keys (its marker could not be told from them).
    """

    def __init__(self, name: str, *, marked: bool = False) -> None:
        text = source(name)
        self.name = name
        self.keys, self.args = declared(name, text)
        self.marked = marked
        if marked and self.keys[-1].endswith("..."):
            raise ScriptMismatch(f"{name}.lua: a marked script takes a fixed number of keys, not {self.keys[-1]}")
        check = source("marker_check").replace("#KEYS > OWN_KEYS", f"#KEYS > {len(self.keys)}") if marked else ""
        self.source = check + text

    def __repr__(self) -> str:
        return f"Script({self.name!r}, keys={self.keys}, args={self.args}, marked={self.marked})"

    def positions(self, keys: Mapping[str, Any], args: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
        """``keys`` and ``args`` (name → value; a tail's value a sequence) as the positional KEYS and ARGV: each
        declared name's value at its position, a tail's values from there on, and for a marked script the
        :data:`MARKER` key last unless it is None.

        Raises:
            TypeError: a name missing, a name the script doesn't declare, or a tail's value not a list or tuple.
        """
        names = (*self.keys, MARKER) if self.marked else self.keys
        return self._ordered("key", names, keys), self._ordered("argument", self.args, args)

    def _ordered(self, what: str, names: Sequence[str], values: Mapping[str, Any]) -> list[Any]:
        plain = [n.removesuffix("...") for n in names]
        missing, unknown = [n for n in plain if n not in values], [n for n in values if n not in plain]
        if missing or unknown:
            raise TypeError(
                f"{self.name}.lua: "
                + "; ".join(
                    part
                    for part in (
                        missing and f"missing {what}(s) {', '.join(missing)}",
                        unknown and f"unknown {what}(s) {', '.join(unknown)}",
                    )
                    if part
                )
            )
        out: list[Any] = []
        for name, key in zip(names, plain):
            if name.endswith("..."):
                if not isinstance(values[key], (list, tuple)):
                    raise TypeError(f"{self.name}.lua: the {what}s {name} are a list, not {values[key]!r}")
                out += values[key]
            elif not (self.marked and name == MARKER and values[key] is None):
                out.append(values[key])
        return out

    def register(self, redis: RedisClient) -> Registered:
        """The script registered with the client ``redis`` (loaded into Redis on its first call)."""
        return Registered(self, redis.register_script(self.source))


class Registered:
    """A :class:`Script` registered with a client: called with names, run by its SHA (loaded when Redis lacks it).

    Attributes:
        script: the script.
        lua: redis-py's script object (``sha``: what ``EVALSHA`` names).
    """

    def __init__(self, script: Script, lua: AsyncScript) -> None:
        self.script = script
        self.lua = lua

    @property
    def sha(self) -> str:
        """The SHA1 of the source, as ``EVALSHA`` names it."""
        return self.lua.sha

    async def __call__(self, *, keys: Mapping[str, Any], args: Mapping[str, Any]) -> Any:
        """Run the script with ``keys`` and ``args`` by name (:meth:`Script.positions`); returns its reply.

        Raises:
            TypeError: a name missing or unknown (nothing was sent).
            redis.RedisError: Redis refused (e.g. the script's error reply) or did not answer.
        """
        positional_keys, positional_args = self.script.positions(keys, args)
        return await self.lua(keys=positional_keys, args=positional_args)


#: The compare-and-set commit of a record with its effects (:meth:`bot.storage.store.GameStore.commit`).
COMMIT = Script("commit", marked=True)
#: Moves an unreadable record aside (:meth:`bot.storage.store.GameStore.set_aside`).
SET_ASIDE = Script("set_aside", marked=True)
#: Leases the due members of a due set (:meth:`bot.storage.store.DueSet.claim`).
CLAIM = Script("claim", marked=True)
#: Removes a claimed member of a due set unless it was scheduled anew (:meth:`bot.storage.store.DueSet.settle`).
SETTLE = Script("settle", marked=True)
#: A few plain writes run atomically, refused when the identity marker is gone (:func:`bot.storage.store.guarded`).
GUARDED = Script("guarded")
#: The compare-and-set commit of a tournament's document with its new games and next step (:mod:`bot.storage.tournaments`).
TOURNAMENT = Script("tournament", marked=True)
#: One board's result, written once; the round's last schedules its step (:mod:`bot.storage.tournaments`).
TOURNAMENT_RESULT = Script("tournament_result", marked=True)
#: One entrant joining or leaving (:mod:`bot.storage.tournaments`).
TOURNAMENT_PLAYER = Script("tournament_player", marked=True)
#: One board's thread, then its game (:mod:`bot.storage.tournaments`).
TOURNAMENT_BOARD = Script("tournament_board", marked=True)
#: A tournament and its parts read at one moment (:mod:`bot.storage.tournaments`).
TOURNAMENT_READ = Script("tournament_read")
