"""How the game layer names a slash command or one of its options in a message, without knowing Discord.

The game layer (:mod:`bot.core.session`) words refusals and hints that name commands ("start one with
/hong challenge"). How a command is best named depends on where the message is read: on Discord, by its mention with
the synced id (:mod:`bot.interface.mentions`, which installs itself here when imported); elsewhere (a web page, a
test without the Discord interface) as typed, in English. One process names commands one way: :func:`install`
replaces the way.
"""

from __future__ import annotations

from typing import Callable


def _as_typed(path: str) -> str:
    return f"`/{path}`"


def _name_as_given(path: str, name: str) -> str:
    return name


_command: Callable[[str], str] = _as_typed
_option: Callable[[str, str], str] = _name_as_given


def install(command: Callable[[str], str], option: Callable[[str, str], str]) -> None:
    """Name commands with ``command(path)`` (English names: ``"hong place"`` → the text for a message) and options
    with ``option(path, name)`` (the option ``name`` of the command at ``path``, as the reader is shown it)."""
    global _command, _option
    _command, _option = command, option


def command(path: str) -> str:
    """The command at ``path`` (English names: ``"hong place"``) for a message: as the installed way names it
    (by default as typed, in code quotes: ```/hong place```)."""
    return _command(path)


def option(path: str, name: str) -> str:
    """The option ``name`` (English) of the command at ``path`` for a message: as the installed way names it (by
    default its English name)."""
    return _option(path, name)


__all__ = ["install", "command", "option"]
