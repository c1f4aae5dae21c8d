"""Slash-command options shared by every game: the computer's level, the help texts, autocomplete choices,
and a Discord user as the game layer's :class:`~bot.core.session.Person`.

A leaf of the Discord side: it imports discord.py and the game layer's plain types, no feature.
"""

from __future__ import annotations

import re
from typing import Literal

import discord
from discord import app_commands

from engine import squares

from ..i18n import p_
from ..core.session import Person
from ..i18n.wording import user_name
from ..core.errors import UserError
from ..i18n import _

#: The computer's levels, as a slash-command option (Discord shows them as choices).
LEVEL = Literal["easy", "medium", "hard"]
#: Help of every challenge command's ``opponent`` option.
OPPONENT_HELP = "Who you want to play: the bot itself plays as the computer (default: anyone may accept)"
#: Help of the ``ephemeral`` option of the commands that show something (boards, stats).
EPHEMERAL_HELP = "True: show the answer only to you (default False: everyone in the channel sees it)"
#: Help of the ``ephemeral`` option of ``/<game> rules``, private by default.
RULES_EPHEMERAL_HELP = "False: show the rules to everyone in the channel (default True: only you see them)"
#: Help of every challenge command's ``level`` option.
LEVEL_HELP = "Against the computer: easy, medium (default) or hard"
#: Discord's limit on autocomplete choices.
MAX_CHOICES = 25


def choices(values: list[str], typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete choices: ``values`` starting with (then containing) what was typed, read as the games read
    squares (:func:`engine.squares.fold`: case, white space and full-width forms ignored — "b 3" and "ｂ３" find
    B3), at most :data:`MAX_CHOICES`."""
    typed = squares.fold(typed or "")
    folded = {v: squares.fold(v) for v in values}
    first = [v for v in values if folded[v].startswith(typed)]
    rest = [v for v in values if typed in folded[v] and v not in first]
    return [app_commands.Choice(name=v, value=v) for v in (first + rest)[:MAX_CHOICES]]


#: Discord's limit on a choice's name and value (characters).
CHOICE_MAX = 100
_MARKUP = re.compile(r"</([^:>]+):\d+>|\*\*|`")


def reason_choice(reason: str, typed: str) -> app_commands.Choice[str]:
    """Why an autocomplete has no suggestions, as its one choice: Discord shows a choice's name as plain text (no
    Markdown, no mentions), so ``reason``'s first sentence is given bare — a command mention as ``/hong dragon`` —
    within :data:`CHOICE_MAX`. Its value is what was typed (or ``?``): picked anyway, the command gives the same
    reason as a refusal."""
    plain = _MARKUP.sub(lambda m: f"/{m[1]}" if m[1] else "", reason)
    first = re.split(r"(?<=[.!?。！？])\s", plain, maxsplit=1)[0]
    name = first if len(first) <= CHOICE_MAX else first[: CHOICE_MAX - 1] + "…"
    return app_commands.Choice(name=name, value=(typed.strip() or "?")[:CHOICE_MAX])


def level_name(level: str) -> str:
    """A computer level (``"easy"``, ``"medium"``, ``"hard"``: :data:`LEVEL`) as a word in the current language, as
    the ``level`` option's choices are shown."""
    names = {"easy": p_("choice", "easy"), "medium": p_("choice", "medium"), "hard": p_("choice", "hard")}
    return names.get(level, level)


def person(user: discord.abc.User) -> Person:
    """A Discord user or member as the game layer's :class:`Person`, with its plain, visible name
    (:func:`bot.i18n.wording.user_name`)."""
    return Person(user.id, user_name(user))


def channel_id(interaction: discord.Interaction) -> int:
    """The id of the channel ``interaction`` was made in: Discord names one with every command, button and
    autocomplete (only its PING, which discord.py answers itself, has none).

    Raises:
        RuntimeError: the interaction names no channel.
    """
    if interaction.channel_id is None:
        raise RuntimeError(f"interaction {interaction.id} names no channel")
    return interaction.channel_id


def guild_id(interaction: discord.Interaction) -> int:
    """The id of the server ``interaction`` was made in (the games' commands are for servers only, and their buttons
    are on posts in servers).

    Raises:
        UserError: it was made in a direct message.
    """
    if interaction.guild_id is None:
        raise UserError(_("Games are played in server channels, not in direct messages."))
    return interaction.guild_id


__all__ = [
    "LEVEL",
    "OPPONENT_HELP",
    "LEVEL_HELP",
    "EPHEMERAL_HELP",
    "RULES_EPHEMERAL_HELP",
    "MAX_CHOICES",
    "choices",
    "level_name",
    "person",
    "channel_id",
    "guild_id",
]
