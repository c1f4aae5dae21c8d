"""The bot's command tree: every slash command's options are checked against its definition before discord.py
reads them.

Discord's own client only sends what a command declares, but an outdated client (a command changed since it
loaded them) or a broken one can send anything: a string for a whole number, ``"maybe"`` for True/False, a user id
that isn't resolved, a choice the command never offered (``scope:universe``), an option it doesn't have. discord.py
passes most of these through untouched (a wrong choice or boolean would be *accepted*; an unresolved user breaks
deep in a handler with an ``AttributeError``; a bad snowflake or number makes it raise before any handler runs, so
the user gets no answer at all). :meth:`Tree.interaction_check` is the one place that catches the whole kind: it
compares each option with the command's parameters (type, resolved value, choices, ranges, required) and raises
:class:`BadOption`, which the one error path (:func:`bot.interface.replies.on_error`) shows as an ephemeral refusal naming
the option and what it accepts. Nothing runs, so nothing is stored.

Every interaction the tree receives (a command, an autocomplete) is answered in the caller's language: the check
makes ``interaction.locale`` the current language first (:func:`bot.i18n.use`), so a refusal, an ephemeral answer
and every message built while handling it come from that language's catalog. Messages name commands by their
mentions and options as Discord shows them in that language (:mod:`bot.interface.mentions`).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import discord
from babel.lists import format_list
from discord import AppCommandOptionType as T
from discord import app_commands

from . import answers, mentions
from .. import i18n
from ..core.errors import UserError
from ..i18n import N_, _, n_, p_

#: Said when the request can only come from a client whose list of commands is out of date (a catalog message:
#: show it with ``_(RELOAD)``).
RELOAD = N_("(If Discord offered this, its list of commands is out of date: reload it with Ctrl+R or restart the app.)")

#: What an option of each type takes, in words (catalog messages).
_WHAT = {
    T.string: N_("text"),
    T.integer: N_("a whole number"),
    T.number: N_("a number"),
    T.boolean: N_("True or False"),
    T.user: N_("a member of this server (pick one from the list)"),
    T.channel: N_("a channel (pick one from the list)"),
    T.role: N_("a role (pick one from the list)"),
    T.mentionable: N_("a member or a role (pick one from the list)"),
    T.attachment: N_("a file"),
}
#: An option of a type not listed above.
_ANY = N_("a value Discord offers in the list")
#: A number option with both bounds, in words.
_WHAT_RANGE = {T.integer: N_("a whole number from {min} to {max}"), T.number: N_("a number from {min} to {max}")}
#: Where each snowflake type's value must be found in the interaction's ``resolved`` data.
_RESOLVED = {
    T.user: ("users",),
    T.channel: ("channels",),
    T.role: ("roles",),
    T.mentionable: ("users", "roles"),
    T.attachment: ("attachments",),
}


class BadOption(UserError, app_commands.AppCommandError):
    """An option value the command can't take (or an option it doesn't have, or a missing one): the message says
    which option and what it accepts. A :class:`UserError`, so the one error path shows it ephemerally."""


def _quoted(value: Any) -> str:
    """A value as received, for a message: in code quotes (backticks replaced), at most 40 characters."""
    text = _("nothing") if value is None else str(value).replace("`", "ˋ")
    return f"`{text[:40]}{'…' if len(text) > 40 else ''}`"


def _or_list(values: list[str]) -> str:
    """``a, b or c`` in the current language (CLDR's "or" list; English as en_GB: no comma before "or")."""
    code = i18n.current()
    return format_list(values, style="or", locale="en_GB" if code == i18n.SOURCE else code)


def _choice_shown(choice: app_commands.Choice) -> str:
    """A choice's name as Discord shows it in the current language (the catalog's, context "choice"; a name made
    with :func:`bot.interface.translator.untranslated`, like "Deutsch", as it is)."""
    name = getattr(choice, "_locale_name", None)
    if name is not None and name.extras.get("translate") is False:
        return choice.name
    return p_("choice", choice.name)


def accepts(param: app_commands.Parameter) -> str:
    """What a parameter takes, in words (current language): its choices, or its type with its range."""
    if param.choices:
        # TRANSLATORS: {choices} lists an option's choices in code quotes, e.g. `server` or `global`
        return _("one of {choices}", choices=_or_list([f"`{_choice_shown(c)}`" for c in param.choices]))
    lo, hi = param.min_value, param.max_value
    if param.type is T.string and (lo is not None or hi is not None):
        if hi is not None:
            return _("text of {min} to {max} characters", min=lo or 0, max=hi)
        return _("text of at least {min} characters", min=lo)
    if param.type in _WHAT_RANGE and lo is not None and hi is not None:
        return _(_WHAT_RANGE[param.type], min=lo, max=hi)
    what = _WHAT.get(param.type, _ANY)
    return _(what)


def _of_type(param: app_commands.Parameter, value: Any, resolved: Mapping[str, Any]) -> bool:
    kind = param.type
    if kind is T.string:
        return isinstance(value, str)
    if kind is T.integer:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is T.number:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is T.boolean:
        return isinstance(value, bool)
    if kind in _RESOLVED:
        return (
            isinstance(value, str)
            and value.isdigit()
            and any(value in (resolved.get(k) or {}) for k in _RESOLVED[kind])
        )
    return True


def _takes(param: app_commands.Parameter, got: str) -> str:
    # TRANSLATORS: {option} is an option's name as Discord shows it in this language and {command} a command (a
    # mention, /hong place); {accepts} says what the option takes ("a whole number from 1 to 5"), {got} what it got
    # (`maybe`, "41 characters")
    path = param.command.qualified_name
    return _(
        "The option `{option}` of {command} takes {accepts}, not {got}.",
        option=mentions.option(path, param.display_name),
        command=mentions.command(path),
        accepts=accepts(param),
        got=got,
    )


def value_problem(param: app_commands.Parameter, option: Mapping[str, Any], resolved: Mapping[str, Any]) -> str | None:
    """Why ``option`` (as Discord sent it) is not a value ``param`` takes, as a sentence in the current language
    naming the option and its command, or None if it is."""
    value = option.get("value")
    if option.get("type") != param.type.value or not _of_type(param, value, resolved):
        return _takes(param, _quoted(value))
    if param.choices and value not in [c.value for c in param.choices]:
        return _takes(param, _quoted(value))
    lo, hi = param.min_value, param.max_value
    size = (
        len(value)
        if param.type is T.string and isinstance(value, str)
        else value
        if param.type in (T.integer, T.number)
        else None
    )
    if size is not None and ((lo is not None and size < lo) or (hi is not None and size > hi)):
        got = n_("{count} character", "{count} characters", size) if param.type is T.string else _quoted(value)
        return _takes(param, got)
    return None


def options_problem(
    command: app_commands.Command,
    options: Sequence[Mapping[str, Any]],
    resolved: Mapping[str, Any],
    *,
    partial: bool = False,
) -> str | None:
    """Why the options Discord sent can't run ``command`` (an unknown, repeated, malformed or missing option), or
    None when they can (in the current language). ``partial``: an autocomplete — the focused option (a value still
    being typed) is not checked, nor are required options not filled in yet."""
    path = command.qualified_name
    where = mentions.command(path)
    params = {p.display_name: p for p in command.parameters}
    seen: set[str] = set()
    for option in options:
        name = option.get("name")
        param = params.get(name) if isinstance(name, str) else None
        if param is None:
            known = ", ".join(f"`{mentions.option(path, n)}`" for n in params) or _("none")
            # TRANSLATORS: {command} is a command (a mention, /hong place), {option} the unknown option's name,
            # {known} the command's options as Discord shows them in this language (`square`, `rotate`)
            return _reload(
                _(
                    "{command} has no option {option} (its options: {known}).",
                    command=where,
                    option=_quoted(name),
                    known=known,
                )
            )
        if param.display_name in seen:
            return _reload(
                _(
                    "{command} got the option `{option}` twice.",
                    command=where,
                    option=mentions.option(path, param.display_name),
                )
            )
        seen.add(param.display_name)
        if option.get("focused"):
            continue
        problem = value_problem(param, option, resolved)
        if problem:
            return _reload(problem)
    missing = [p for p in command.parameters if p.required and p.display_name not in seen]
    if missing and not partial:
        # TRANSLATORS: {accepts} says what the option takes, e.g. "a member of this server (pick one from the list)"
        return _reload(
            _(
                "{command} needs the option `{option}` ({accepts}).",
                command=where,
                option=mentions.option(path, missing[0].display_name),
                accepts=accepts(missing[0]),
            )
        )
    return None


def _reload(problem: str) -> str:
    """A problem only an out-of-date client can cause, and how to fix that (:data:`RELOAD`)."""
    return f"{problem} {_(RELOAD)}"


class Tree(app_commands.CommandTree):
    """The command tree with every slash command's options checked first (see the module docstring)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """True to run the command. First starts the interaction's watchdog (:func:`bot.interface.answers.watch`: answered
        within Discord's 3 s whatever the game store does; an autocomplete given up quietly) and makes the caller's
        language (``interaction.locale``) the current one, for everything said while handling it. Raises :class:`BadOption` for options the command can't take
        (shown to the user as a refusal); an autocomplete with such options gets no choices."""
        answers.watch(interaction)
        i18n.use(interaction.locale)
        data = interaction.data
        if (
            data is None
            or interaction.type
            not in (discord.InteractionType.application_command, discord.InteractionType.autocomplete)
            or data.get("type", 1) != 1
        ):
            return True
        try:
            command, options = self._get_app_command_options(data)  # type: ignore[arg-type]
        except (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch):
            problem: str | None = _reload(_("This command has changed since Discord loaded it."))
        else:
            resolved = data.get("resolved")
            problem = options_problem(
                command,
                options,
                resolved if isinstance(resolved, Mapping) else {},
                partial=interaction.type is discord.InteractionType.autocomplete,
            )
        if problem is None:
            return True
        if interaction.type is discord.InteractionType.autocomplete:
            try:
                await interaction.response.autocomplete([])
            except discord.HTTPException:
                pass
            return False
        raise BadOption(problem)


__all__ = ["Tree", "BadOption", "RELOAD", "accepts", "value_problem", "options_problem"]
