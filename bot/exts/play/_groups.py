"""The ``/<game>`` command groups, built from each game's :class:`~bot.core.kinds.GameKind`.

The one place the shape of a game's commands is written: ``challenge`` (the shared ``opponent`` first, the
game's own options, the shared ``level`` last), each of the game's move commands (its options → the game's
notation → a move, with autocomplete from the position), the shared ``board`` and ``resign``, and ``rules`` for a
game that declares its rules pages. A game module
gives only its options (as the keyword parameters of plain functions), their help and its notation.

Descriptions and help are plain English here: the command tree's translator gives Discord each language's (a
per-game description, e.g. "Play Hong Kong", is one message for each game).
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping, Optional

import discord
from discord import app_commands

from engine import IllegalMove

from ... import i18n
from ...core.errors import UserError
from ...core.kinds import GameKind, Length, MoveCommand
from ...i18n.wording import translate
from ...interface.options import (
    EPHEMERAL_HELP,
    RULES_EPHEMERAL_HELP,
    LEVEL,
    LEVEL_HELP,
    OPPONENT_HELP,
    choices,
    reason_choice,
)
from ...interface.translator import untranslated
from . import _learn

if TYPE_CHECKING:
    from ._cog import Play

_KEYWORD = inspect.Parameter.KEYWORD_ONLY
_INTERACTION = inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)
_OPPONENT = inspect.Parameter("opponent", _KEYWORD, default=None, annotation=Optional[discord.User])
_LEVEL = inspect.Parameter("level", _KEYWORD, default=None, annotation=Optional[LEVEL])


def game_group(kind: GameKind, play: "Play") -> app_commands.Group:
    """``/<kind.name>``: ``challenge``, the game's move commands, ``board``, ``rules`` (if the game has rules pages),
    ``learn`` (if it has a lesson) and ``resign``, run by ``play``."""
    group = app_commands.Group(name=untranslated(kind.name), description=f"Play {kind.title}", guild_only=True)

    async def challenge(interaction: discord.Interaction, *, opponent=None, level=None, **options) -> None:
        await play.challenge(interaction, kind, opponent, kind.challenge(**options), level)

    _add(
        group,
        "challenge",
        f"Challenge someone to a game of {kind.title} in this channel",
        challenge,
        [_OPPONENT, *_options(kind.challenge), _LEVEL],
        {"opponent": OPPONENT_HELP, **kind.challenge_help, "level": LEVEL_HELP},
    )
    for move in kind.moves:
        _add_move(group, kind, move, play)

    @group.command(name="board", description="Show the current board of this channel's game (anyone)")
    @app_commands.describe(ephemeral=EPHEMERAL_HELP)
    async def board(interaction: discord.Interaction, ephemeral: bool = False) -> None:
        await play.board(interaction, ephemeral)

    if kind.rules:

        @group.command(name="rules", description=f"The rules of {kind.title}, page by page with pictures")
        @app_commands.describe(ephemeral=RULES_EPHEMERAL_HELP)
        async def rules(interaction: discord.Interaction, ephemeral: bool = True) -> None:
            await play.rules(interaction, kind, ephemeral)

    @group.command(name="resign", description=f"Resign your {kind.title} game in this channel")
    async def resign(interaction: discord.Interaction) -> None:
        await play.resign(interaction, kind)

    if kind.lesson is not None:
        _add_learn(group, kind)
    return group


def _add_learn(group: app_commands.Group, kind: GameKind) -> None:
    """``/<game> learn``, for a game that declares a lesson (:mod:`._learn`)."""

    @group.command(
        name="learn", description=f"Learn {kind.title}: a short guided game against the computer, just for you"
    )
    async def learn(interaction: discord.Interaction) -> None:
        await _learn.start(interaction, kind)


def _add_move(group: app_commands.Group, kind: GameKind, move: MoveCommand, play: "Play") -> None:
    async def run(interaction: discord.Interaction, **options) -> None:
        try:
            typed = move.notation(**options)
        except IllegalMove:  # unreadable options; but if it isn't the caller's move at all, that is said first
            await play.caller_turn(interaction, kind)
            raise
        await play.play(interaction, kind, typed)

    command = _add(group, move.name, move.description, run, _options(move.notation), move.help)
    for option, candidates in move.autocomplete.items():
        command.autocomplete(option)(_completer(kind, candidates, play))


def _options(fn: Callable) -> list[inspect.Parameter]:
    """``fn``'s parameters (annotations evaluated in its own module) as keyword-only command options; a text option's
    :class:`bot.core.kinds.Length` (``Text(1, 10)``) becomes Discord's ``app_commands.Range[str, 1, 10]``."""
    return [
        p.replace(kind=_KEYWORD, annotation=_discord_type(p.annotation))
        for p in inspect.signature(fn, eval_str=True).parameters.values()
    ]


def _discord_type(annotation):
    """``Annotated[str, Length(a, b)]`` → ``app_commands.Range[str, a, b]`` (also inside ``… | None``); any other
    annotation as it is."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [_discord_type(a) for a in typing.get_args(annotation)]
        return typing.Optional[members[0]] if len(members) == 2 and type(None) in members else annotation
    if typing.get_origin(annotation) is typing.Annotated:
        length = next((m for m in annotation.__metadata__ if isinstance(m, Length)), None)
        if length is not None:
            return app_commands.Range[str, length.low, length.high]
    return annotation


def _add(
    group: app_commands.Group,
    name: str,
    description: str,
    run: Callable[..., Awaitable[None]],
    params: list[inspect.Parameter],
    help: Mapping[str, str],
) -> app_commands.Command:
    """Add ``/<group> <name>`` whose options are ``params``: discord.py reads a callback's signature, so the
    callback (which passes every option on to ``run``) is given the composed one."""

    async def callback(interaction: discord.Interaction, **options) -> None:
        await run(interaction, **options)

    callback.__signature__ = inspect.Signature([_INTERACTION, *params])  # type: ignore[attr-defined]
    callback.__qualname__ = callback.__name__ = f"{group.name}_{name}"
    return group.command(name=name, description=description)(app_commands.describe(**help)(callback))


def _completer(kind: GameKind, candidates: Callable, play: "Play"):
    """Autocomplete from the position: ``candidates(game, options so far)`` for the player to move, filtered by
    what was typed; in the caller's language (``interaction.locale``). Never empty without a reason: when there is
    nothing to suggest — no game here, a spectator, not their turn, or the position offers nothing for the options
    so far (``candidates`` raises :class:`UserError` or :class:`engine.IllegalMove` saying why) — the one choice
    says so (:func:`reason_choice`); picked anyway, the command refuses with the same reason (a move's options are
    read only once it is the caller's turn: :func:`_add_move`)."""

    async def complete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        i18n.use(interaction.locale)
        try:
            game = await play.caller_turn(interaction, kind)
            return choices(candidates(game, interaction.namespace), current)
        except UserError as why:
            return [reason_choice(str(why), current)]
        except IllegalMove as why:
            return [reason_choice(translate(why), current)]

    return complete


__all__ = ["game_group"]
