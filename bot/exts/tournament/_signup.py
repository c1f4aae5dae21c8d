"""The sign-up post's parts: its buttons while the tournament can be joined, its options in words, and the game
options a tournament offers (a challenge's, less those choosing seats)."""

from __future__ import annotations

import inspect
import random

import discord

from ...core.kinds import GameKind
from ...core.tournament.event import Format, Phase, Tournament
from ...i18n import _
from ...i18n.wording import describe_duration
from ...interface.buttons import view
from ._buttons import signup_buttons

#: The options that choose seats in a challenge, and the value that puts the challenger in seat 0 moving first:
#: a tournament assigns seats by its colour rules (RULES.md), so it never offers them.
SEAT_CHOICES = {"first": "me", "role": "emperor"}


def signup_view(t: Tournament) -> discord.ui.View | None:
    """Join/Leave while the tournament can be joined (sign-up, or a Swiss with rounds to come), else none."""
    open_ = t.phase is Phase.SIGNUP or (t.phase is Phase.RUNNING and t.format is Format.SWISS and t.round < t.rounds)
    return view(*signup_buttons(t.guild_id, t.channel_id, t.id)) if open_ else None


def game_options(kind: GameKind) -> list[inspect.Parameter]:
    """A game's own challenge options but those choosing seats (:data:`._runner.SEAT_CHOICES`)."""
    return [
        p for p in inspect.signature(kind.challenge, eval_str=True).parameters.values() if p.name not in SEAT_CHOICES
    ]


def options_text(kind: GameKind, t: Tournament) -> str:
    """The tournament's game options and turn timer in words, one line each (for the sign-up post)."""
    parts = []
    described = kind.describe_options(kind.seat_options(t.options, random.Random(0))[1])
    if described:
        parts.append(described)
    if t.turn_timer:
        parts.append(_("Turn timer: {duration}.", duration=describe_duration(t.turn_timer)))
    return "\n".join(parts)  # one line each: a game's options may not end with a full stop


__all__ = ["SEAT_CHOICES", "signup_view", "game_options", "options_text"]
