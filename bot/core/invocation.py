"""A move as a player types it: which of a game's move commands (``/<game> <command>``) and which options play it,
found the way a player finds them — the options' choices (a ``Literal``, a ``bool``) and the autocomplete's
candidates for the position — and checked by playing the command's notation on a copy of the game. Any game's, from
its :class:`bot.core.kinds.GameKind` alone: a hint gives the move as the command to type (:mod:`bot.exts.coach`), and
the tests play any game through Discord without knowing its notation and check that every legal move can be played by
some command.
"""

from __future__ import annotations

import inspect
import itertools
import types
import typing
from typing import Any, Iterator

from engine import IllegalMove
from engine.contract import Game

from .errors import UserError
from .kinds import GameKind, MoveCommand


def _fixed_choices(annotation: Any, default: Any) -> list[Any] | None:
    """The values of an option a player picks from a list (a ``Literal``, a ``bool``; ``None`` first when it may be
    left out), or None for an option typed in."""
    if annotation is bool:
        return [False, True]
    if typing.get_origin(annotation) is typing.Literal:
        return list(typing.get_args(annotation))
    return [None] if default is None else None


def _invocations(game: Game, command: MoveCommand) -> Iterator[dict[str, Any]]:
    """Every set of options of ``command`` a player could send in ``game``'s position: each picked option by its
    choices, each typed option by its autocomplete (given the options picked before it, in every order)."""
    parameters = inspect.signature(command.notation, eval_str=True).parameters.values()
    picked, typed = {}, []
    for p in parameters:
        fixed = _fixed_choices(p.annotation, p.default)
        if p.name in command.autocomplete:
            typed.append(p)
        elif fixed is not None:
            picked[p.name] = fixed
        else:
            return  # an option typed in without autocomplete: no way to find its values
    for values in itertools.product(*picked.values()):
        chosen = dict(zip(picked, values))
        for order in itertools.permutations(typed):
            yield from _typed(game, command, chosen, list(order))


def _typed(
    game: Game, command: MoveCommand, chosen: dict[str, Any], order: list[inspect.Parameter]
) -> Iterator[dict[str, Any]]:
    if not order:
        yield chosen
        return
    p, rest = order[0], order[1:]
    given = {q: None for q in inspect.signature(command.notation).parameters}
    namespace = types.SimpleNamespace(**{**given, **chosen})
    try:
        candidates = list(command.autocomplete[p.name](game, namespace))
    except (UserError, IllegalMove):  # nothing to offer here, and the autocomplete says why
        candidates = []
    for value in ([None] if p.default is None else []) + candidates:
        yield from _typed(game, command, {**chosen, p.name: value}, rest)


def _plays(game: Game, text: str) -> str | None:
    """The canonical move ``text`` is in ``game``'s position, or None if it is no legal move there."""
    copy = game.copy()
    try:
        copy.play(text)
    except IllegalMove:
        return None
    return copy.moves[-1]


def invocation(kind: GameKind, game: Game, move: str) -> tuple[str, dict[str, Any]]:
    """The command (its name: ``"place"``) and the options (those left out omitted, in the command's order:
    ``{"square": "C2", "quick": "E1"}``; an option at its default left out too) that play ``move`` in ``game``'s
    position.

    Raises:
        LookupError: no command of the game plays it.
    """
    found: list[tuple[str, dict[str, Any], str]] = []
    for command in kind.moves:
        parameters = inspect.signature(command.notation).parameters.values()
        for options in _invocations(game, command):
            sent = {p.name: options[p.name] for p in parameters if options.get(p.name) not in (None, p.default)}
            try:
                text = command.notation(**sent)
            except IllegalMove:
                continue
            if text == move:
                return command.name, sent
            found.append((command.name, sent, text))
    for name, sent, text in found:  # written otherwise than canonically: what does it play?
        if _plays(game, text) == move:
            return name, sent
    raise LookupError(f"no command of /{kind.name} plays {move!r} after {list(game.moves)}")


__all__ = ["invocation"]
