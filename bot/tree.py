"""The bot's command tree: every slash command's options are checked against its definition before discord.py
reads them.

Discord's own client only sends what a command declares, but an outdated client (a command changed since it
loaded them) or a broken one can send anything: a string for a whole number, ``"maybe"`` for True/False, a user id
that isn't resolved, a choice the command never offered (``scope:universe``), an option it doesn't have. discord.py
passes most of these through untouched (a wrong choice or boolean would be *accepted*; an unresolved user breaks
deep in a handler with an ``AttributeError``; a bad snowflake or number makes it raise before any handler runs, so
the user gets no answer at all). :meth:`Tree.interaction_check` is the one place that catches the whole kind: it
compares each option with the command's parameters (type, resolved value, choices, ranges, required) and raises
:class:`BadOption`, which the one error path (:func:`bot.replies.on_error`) shows as an ephemeral refusal naming
the option and what it accepts. Nothing runs, so nothing is stored.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import discord
from discord import AppCommandOptionType as T
from discord import app_commands

from .errors import UserError

#: Said when the request can only come from a client whose list of commands is out of date.
RELOAD = "(If Discord offered this, its list of commands is out of date: reload it with Ctrl+R or restart the app.)"

_WHAT = {
    T.string: "text", T.integer: "a whole number", T.number: "a number", T.boolean: "True or False",
    T.user: "a member of this server (pick one from the list)", T.channel: "a channel (pick one from the list)",
    T.role: "a role (pick one from the list)", T.mentionable: "a member or a role (pick one from the list)",
    T.attachment: "a file",
}
#: Where each snowflake type's value must be found in the interaction's ``resolved`` data.
_RESOLVED = {T.user: ("users",), T.channel: ("channels",), T.role: ("roles",), T.mentionable: ("users", "roles"),
             T.attachment: ("attachments",)}


class BadOption(UserError, app_commands.AppCommandError):
    """An option value the command can't take (or an option it doesn't have, or a missing one): the message says
    which option and what it accepts. A :class:`UserError`, so the one error path shows it ephemerally."""


def _quoted(value: Any) -> str:
    """A value as received, for a message: in code quotes (backticks replaced), at most 40 characters."""
    text = "nothing" if value is None else str(value).replace("`", "ˋ")
    return f"`{text[:40]}{'…' if len(text) > 40 else ''}`"


def accepts(param: app_commands.Parameter) -> str:
    """What a parameter takes, in words: its choices, or its type with its range."""
    if param.choices:
        values = [f"`{c.value}`" for c in param.choices]
        return "one of " + (", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0])
    lo, hi = param.min_value, param.max_value
    if param.type is T.string and (lo is not None or hi is not None):
        return f"text of {lo or 0} to {hi} characters" if hi is not None else f"text of at least {lo} characters"
    if param.type in (T.integer, T.number) and lo is not None and hi is not None:
        return f"{_WHAT[param.type]} from {lo} to {hi}"
    return _WHAT.get(param.type, "a value Discord offers in the list")


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
        return isinstance(value, str) and value.isdigit() and any(value in (resolved.get(k) or {}) for k in _RESOLVED[kind])
    return True


def value_problem(param: app_commands.Parameter, option: Mapping[str, Any], resolved: Mapping[str, Any]) -> str | None:
    """Why ``option`` (as Discord sent it) is not a value ``param`` takes, or None if it is."""
    value = option.get("value")
    if option.get("type") != param.type.value or not _of_type(param, value, resolved):
        return f"takes {accepts(param)}, not {_quoted(value)}."
    if param.choices and value not in [c.value for c in param.choices]:
        return f"takes {accepts(param)}, not {_quoted(value)}."
    lo, hi = param.min_value, param.max_value
    size = len(value) if param.type is T.string else value if param.type in (T.integer, T.number) else None
    if size is not None and ((lo is not None and size < lo) or (hi is not None and size > hi)):
        got = f"{size} characters" if param.type is T.string else _quoted(value)
        return f"takes {accepts(param)}, not {got}."
    return None


def options_problem(command: app_commands.Command, options: list[Mapping[str, Any]],
                    resolved: Mapping[str, Any], *, partial: bool = False) -> str | None:
    """Why the options Discord sent can't run ``command`` (an unknown, repeated, malformed or missing option), or
    None when they can. ``partial``: an autocomplete — the focused option (a value still being typed) is not
    checked, nor are required options not filled in yet."""
    where = f"`/{command.qualified_name}`"
    params = {p.display_name: p for p in command.parameters}
    seen: set[str] = set()
    for option in options:
        name = option.get("name")
        param = params.get(name) if isinstance(name, str) else None
        if param is None:
            known = ", ".join(f"`{n}`" for n in params) or "none"
            return f"{where} has no option {_quoted(name)} (its options: {known}). {RELOAD}"
        if name in seen:
            return f"{where} got the option `{name}` twice. {RELOAD}"
        seen.add(name)
        if option.get("focused"):
            continue
        problem = value_problem(param, option, resolved)
        if problem:
            return f"The option `{name}` of {where} {problem} {RELOAD}"
    missing = [p for p in command.parameters if p.required and p.display_name not in seen]
    if missing and not partial:
        return f"{where} needs the option `{missing[0].display_name}` ({accepts(missing[0])}). {RELOAD}"
    return None


class Tree(app_commands.CommandTree):
    """The command tree with every slash command's options checked first (see the module docstring)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """True to run the command. Raises :class:`BadOption` for options the command can't take (shown to the user
        as a refusal); an autocomplete with such options gets no choices."""
        data = interaction.data or {}
        if interaction.type not in (discord.InteractionType.application_command,
                                    discord.InteractionType.autocomplete) or data.get("type", 1) != 1:
            return True
        try:
            command, options = self._get_app_command_options(data)  # type: ignore[arg-type]
        except (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch):
            problem = f"This command has changed since Discord loaded it. {RELOAD}"
        else:
            problem = options_problem(command, options, data.get("resolved") or {},
                                      partial=interaction.type is discord.InteractionType.autocomplete)
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
