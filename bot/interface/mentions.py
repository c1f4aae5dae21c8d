"""How a message names a slash command or one of its options: as each reader's Discord client shows it.

Discord shows every user the commands' names in their own client's language (the names the catalogs give each
language, see :mod:`bot.interface.translator`), so a message must not spell a command the English way. A command is named by
its **mention** (:func:`command`: ``</hong place:1234>``), which Discord draws as a chip with the command's name in
the *reader's* language — right for a public post read by players of several languages too — and which fills the
chat box with the command on a click. A mention needs the command's id, which Discord gives when the commands are
synced; :func:`bot.interface.client.sync_commands` keeps the ids in Redis and installs them here (:func:`install`) at start.
Until they are known (a failed fetch), and where Discord draws no mentions (an embed's footer, an image:
:func:`typed`), a command is written as typed in the current language (``/hong setzen``).

An option can't be mentioned: :func:`option` gives its name as Discord shows it in the current language (the
message's), e.g. ``drehen`` for ``rotate`` in German — the same rule as the translator's, so a translation Discord
would refuse (and so shows in English) is named in English here too.

One process serves one application, so the ids and the tree are this module's (:func:`install` replaces them).
Importing this module makes it the way the Discord-free game layer names commands (:mod:`bot.core.naming`).
"""

from __future__ import annotations

from typing import Mapping

import discord
from discord import app_commands

from .. import i18n
from ..core import naming
from .translator import localised_names

#: Posts that must not ping anyone.
NO_MENTIONS = discord.AllowedMentions.none()
#: Posts that ping the players they name (never @everyone or roles).
MENTION_PLAYERS = discord.AllowedMentions(everyone=False, roles=False, users=True)

_ids: dict[str, int] = {}
_tree: app_commands.CommandTree | None = None


def install(tree: app_commands.CommandTree | None, ids: Mapping[str, int]) -> None:
    """Name commands from now on with ``ids`` (top-level command name → its id on Discord, in the scope the
    commands were synced to: one server with ``dev_guild_id``, else global) and options from ``tree``'s
    definitions. An empty mapping: commands are written as typed (:func:`typed`)."""
    global _tree
    _ids.clear()
    _ids.update({name: int(snowflake) for name, snowflake in ids.items()})
    _tree = tree


def installed_ids() -> dict[str, int]:
    """The command ids installed (top-level name → id); empty before :func:`install`."""
    return dict(_ids)


def _find(path: str) -> app_commands.Command | app_commands.Group | None:
    """The command or group at ``path`` (``"hong place"``) in the installed tree, or None."""
    if _tree is None:
        return None
    top, *rest = path.split()
    found = _tree.get_command(top)
    for name in rest:
        if not isinstance(found, app_commands.Group):
            return None
        found = found.get_command(name)
    return found


def _level(path: str) -> list[str]:
    """The English names beside the last name of ``path`` (its siblings, itself included)."""
    top, *rest = path.split()
    if not rest:
        return (
            [c.name for c in _tree.get_commands(type=discord.AppCommandType.chat_input)] if _tree is not None else [top]
        )
    parent = _find(" ".join([top, *rest[:-1]]))
    return [c.name for c in parent.commands] if isinstance(parent, app_commands.Group) else [rest[-1]]


def _shown(path: str) -> str:
    """``path`` (English names, ``"hong place"``) as Discord shows it in the current language (``"hong setzen"``)."""
    code = i18n.current()
    names = path.split()
    if code == i18n.SOURCE:
        return path
    shown = []
    for i, name in enumerate(names):
        level = _level(" ".join(names[: i + 1]))
        shown.append(localised_names(code, level if name in level else [name])[name])
    return " ".join(shown)


def typed(path: str) -> str:
    """The command at ``path`` (English names: ``"hong place"``, ``"settings"``) as typed in the current language,
    with its slash: ``"/hong place"``, in German ``"/hong setzen"``. For text that can't hold a mention."""
    return "/" + _shown(path)


def command(path: str) -> str:
    """The command at ``path`` (English names: ``"hong place"``) for a message: its mention
    (``</hong place:1234>``, shown in each reader's language) when its id is known, else :func:`typed` in code
    quotes (```/hong setzen```)."""
    snowflake = _ids.get(path.split()[0])
    if snowflake is None:
        return f"`{typed(path)}`"
    return f"</{path}:{snowflake}>"


def option(path: str, name: str) -> str:
    """The option ``name`` (English) of the command at ``path`` as Discord shows it in the current language:
    ``option("hong place", "rotate")`` → ``"rotate"``, in German ``"drehen"``. An option the installed tree
    doesn't have (or no tree) is named by the catalog alone."""
    code = i18n.current()
    if code == i18n.SOURCE:
        return name
    found = _find(path)
    siblings = [p.display_name for p in found.parameters] if isinstance(found, app_commands.Command) else [name]
    if name not in siblings:
        siblings = [name]
    return localised_names(code, siblings)[name]


def invoked(path: str, options: Mapping[str, object]) -> str:
    """The command at ``path`` (English names) with ``options`` (English option names → values, in order) for a
    message, as a player would type it in the current language: its mention and the options in code quotes
    (``</hongkong place:1234> `square:C2 quick:E1```; in German ``…`feld:C2 extra:E1```), a choice by its name as
    Discord shows it (``teil:Dach``), a bool as ``True``/``False``; unknown ids: the whole of it as typed
    (```/hongkong setzen feld:C2 extra:E1```)."""
    shown = " ".join(f"{option(path, name)}:{_value(path, name, value)}" for name, value in options.items())
    if _ids.get(path.split()[0]) is None:
        return f"`{' '.join(filter(None, (typed(path), shown)))}`"
    return " ".join(filter(None, (command(path), f"`{shown}`" if shown else "")))


def _value(path: str, name: str, value: object) -> str:
    """An option's value as Discord shows it in the current language: a choice's name from the catalogs (the
    translator's, :mod:`bot.interface.translator`), anything else as it is."""
    found = _find(path)
    if isinstance(found, app_commands.Command):
        for parameter in found.parameters:
            if parameter.name == name:
                for choice in parameter.choices:
                    if choice.value == value:
                        return i18n.p_("choice", str(getattr(choice.name, "message", choice.name)))
    return str(value)


naming.install(command, option)  # the game layer (bot.core) names commands as Discord shows them

__all__ = ["NO_MENTIONS", "MENTION_PLAYERS", "install", "installed_ids", "typed", "command", "option", "invoked"]
