"""Slash commands in every language: the command tree's :class:`CommandTranslator` gives Discord each command's,
group's and option's name and description, and each choice's name, from the message catalogs (:mod:`bot.i18n`);
:func:`command_strings` lists every one of them for the template (``python -m bot.i18n extract``: :mod:`bot.interface.extract`).

Discord shows each user the names and descriptions of their client's language (the ``name_localizations`` and
``description_localizations`` sent with the commands when they are synced; what a user types still reaches the
bot under the English names). In the catalogs a name is a message in the context ``"command name"``, a choice's
name in ``"choice"``, a description has no context. A translated name must follow Discord's rule for names
(:func:`valid_name`) and differ from the other names beside it in that language; a description or a choice's name
is 1–100 characters. A translation that breaks a rule is left out — Discord shows the English one — and logged
once: a bad catalog never makes Discord refuse the sync. Words that are the same in every language (a game's
title, a language's own name) are made with :func:`untranslated`: never asked of the catalogs, never extracted.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from typing import Iterable

import discord
import regex
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.app_commands import locale_str

from .. import i18n

log = logging.getLogger(__name__)

#: Discord's rule for the name of a slash command, group or option (Application Command Naming), in any language:
#: letters and digits of any script, ``-`` and ``_``, and Devanagari and Thai (whose vowel signs are marks); also
#: lowercase wherever a letter has a lowercase form (:func:`valid_name`).
NAME = regex.compile(r"[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}")
#: The longest description, and the longest choice name, Discord takes (characters).
TEXT_MAX = 100
#: The catalog context (``msgctxt``) of each kind of string Discord asks for; descriptions have none.
CONTEXTS = {
    Where.command_name: "command name",
    Where.group_name: "command name",
    Where.parameter_name: "command name",
    Where.choice_name: "choice",
    Where.command_description: None,
    Where.group_description: None,
    Where.parameter_description: None,
}
_NAMES = (Where.command_name, Where.group_name, Where.parameter_name)


def valid_name(name: str) -> bool:
    """Whether Discord takes ``name`` as a slash command's, group's or option's name: 1–32 of :data:`NAME`'s
    characters, none of them a letter with a lowercase form (``"ziehen"``, ``"配置"``, ``"स्थान"`` yes; ``"Ziehen"``,
    ``"zug machen"`` no)."""
    return bool(NAME.fullmatch(name)) and name == name.lower()


def untranslated(text: str) -> locale_str:
    """``text`` as a name or choice said the same in every language (a game's title "Hong Kong", "Deutsch"): the
    translator leaves it alone and the extraction skips it."""
    return locale_str(text, translate=False)


@functools.cache
def _refuse_once(code: str, context: str | None, message: str, translated: str, why: str) -> None:
    log.warning(
        "the %s translation %r of %r (%s) %s; Discord gets the English one",
        code,
        translated,
        message,
        context or "description",
        why,
    )


def _catalog(code: str, context: str | None, message: str) -> str | None:
    """The catalog's translation of ``message`` in ``context`` for language ``code``, or None if it has none."""
    catalog = i18n.translations(code)
    translated = catalog.pgettext(context, message) if context else catalog.gettext(message)
    return translated if translated and translated != message else None


def localised_names(code: str, names: Iterable[str]) -> dict[str, str]:
    """The names Discord gets in language ``code`` for ``names``, the English names of one level (a command's
    options, a group's subcommands, the top-level commands): each name's translation where it is a
    :func:`valid_name` unique at that level, else the English name. Returns English name → name in ``code``.

    A clash (two options translated alike, or one translated to another's English name) drops the translations
    involved, repeatedly, until every name is unique: English names are unique, so that ends."""
    names = list(names)
    chosen: dict[str, str | None] = {}
    for name in names:
        translated = _catalog(code, "command name", name)
        if translated is not None and not valid_name(translated):
            _refuse_once(
                code,
                "command name",
                name,
                translated,
                "is not a name Discord takes (1-32 lowercase letters, digits, - or _, no spaces)",
            )
            translated = None
        chosen[name] = translated
    while True:
        shown = {name: chosen[name] or name for name in names}
        counts = Counter(shown.values())
        clashing = [name for name in names if chosen[name] is not None and counts[shown[name]] > 1]
        if not clashing:
            return shown
        for name in clashing:
            _refuse_once(
                code, "command name", name, shown[name], "is also the name of another command or option beside it"
            )
            chosen[name] = None


class CommandTranslator(app_commands.Translator):
    """discord.py's translator for the command tree (installed by :meth:`bot.interface.client.HongBot.setup_hook`): each
    name, description and choice in a Discord locale, from the catalog of the language that locale resolves to
    (:func:`bot.i18n.resolve`: ``es-419`` and ``es-ES`` → ``es``), or None (Discord shows the English one) for
    English, an untranslated message, or a translation that breaks Discord's rules (see the module docstring).

    Args:
        tree: the tree whose top-level commands are siblings of each other (their names must differ in every
            language); None: top-level names are checked alone.
    """

    def __init__(self, tree: app_commands.CommandTree | None = None) -> None:
        self.tree = tree

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContext
    ) -> str | None:
        """The translation of ``string`` for ``locale`` at ``context.location``, or None (never raises for a bad
        catalog: see the class docstring)."""
        if string.extras.get("translate") is False or context.location not in CONTEXTS:
            return None
        code = i18n.resolve(locale)
        if code == i18n.SOURCE:
            return None
        message = string.message
        if context.location in _NAMES:
            shown = localised_names(code, self._level(context, message)).get(message, message)
            return shown if shown != message else None
        translated = _catalog(code, CONTEXTS[context.location], message)
        if translated is not None and not 1 <= len(translated) <= TEXT_MAX:
            _refuse_once(code, CONTEXTS[context.location], message, translated, f"is over {TEXT_MAX} characters")
            return None
        return translated

    def _level(self, context: app_commands.TranslationContext, message: str) -> list[str]:
        """The English names at the level of the name being translated (itself included)."""
        data = context.data
        if context.location is Where.parameter_name:
            return [p.display_name for p in data.command.parameters]
        parent = getattr(data, "parent", None)
        if parent is not None:
            return [c.name for c in parent.commands]
        if self.tree is not None:
            names = [c.name for c in self.tree.get_commands(type=discord.AppCommandType.chat_input)]
            if message in names:
                return names
        return [message]


# --- extraction -------------------------------------------------------------------------------------------------


class _Recorder(app_commands.Translator):
    """Notes every string discord.py asks a translator for, with its catalog context and where it is defined
    (``/hong/place``, an option ``/hong/place(square)``); translates nothing."""

    def __init__(self) -> None:
        self.found: dict[tuple[str | None, str], str] = {}
        self._option = ""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContext
    ) -> None:
        if string.extras.get("translate") is False or context.location not in CONTEXTS:
            return None
        data = context.data
        if context.location in (Where.parameter_name, Where.parameter_description):
            self._option = f"/{data.command.qualified_name.replace(' ', '/')}({data.display_name})"
            where = self._option
        elif context.location is Where.choice_name:
            where = self._option  # discord.py asks for an option's choices right after the option itself
        else:
            where = f"/{data.qualified_name.replace(' ', '/')}"
        self.found.setdefault((CONTEXTS[context.location], string.message), where)
        return None


async def command_strings(tree: app_commands.CommandTree) -> list[tuple[str | None, str, str]]:
    """Every string :class:`CommandTranslator` can be asked for in ``tree``'s global commands, as
    ``(context, message, where)`` for :func:`bot.i18n.extract`, in the order Discord gets them."""
    recorder = _Recorder()
    for command in tree.get_commands():
        await command.get_translated_payload(tree, recorder)
    return [(context, message, where) for (context, message), where in recorder.found.items()]


__all__ = [
    "NAME",
    "TEXT_MAX",
    "CONTEXTS",
    "valid_name",
    "untranslated",
    "localised_names",
    "CommandTranslator",
    "command_strings",
]
