"""A guided first game: a game's short script against the computer (``/<game> learn``), with no discord and no store.

A game's bot module may declare a :class:`Lesson` (``GameKind.lesson``). Each :class:`Step` says what to try, offers
2–4 moves (one right, the others each with a one-line why) and scripts the computer's reply with its explanation.
The position of step ``n`` is the lesson's opening and every earlier step's right move and reply, replayed through
the engine (:func:`position`), so it is always legal and nothing needs storing: a button carrying the game, the step
and the choice is enough to go on, after a restart too. :func:`problems` checks a lesson against its engine.

Texts are English templates marked with ``N_`` (translated where they are shown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from engine import IllegalMove
from engine.contract import Game, GameModule

__all__ = ["Choice", "Step", "Lesson", "position", "problems", "MAX_STEPS"]

#: At most this many steps (a first game is short; a button's ``custom_id`` carries the step as one digit).
MAX_STEPS = 9


@dataclass(frozen=True)
class Choice:
    """One move offered as a button: ``move`` in the game's notation, ``why`` (an ``N_`` template) says what it
    does instead, for a wrong one; None for the right one."""

    move: str
    why: str | None = None


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    Attributes:
        task: what to try (an ``N_`` template).
        right: the move the step asks for, in the game's notation.
        done: what the right move did, said once it is played (``N_``).
        wrong: the other moves offered, each with why it is not this step's (1–3 of them; an illegal move may be
            one — its why says the rule it breaks).
        reply: the computer's scripted answer, in notation.
        because: why the computer answers so (``N_``).
        check: ``(before, after) -> bool``: does the right move do what ``task`` says (a capture captures, a Hong
            forms)? ``before`` and ``after`` are the engine games around the right move.
    """

    task: str
    right: str
    done: str
    wrong: Mapping[str, str]
    reply: str
    because: str
    check: Callable[[Any, Any], bool]

    def choices(self) -> list[Choice]:
        """The buttons, in notation order (so the right one is not always first)."""
        offered = [Choice(self.right), *(Choice(move, why) for move, why in self.wrong.items())]
        return sorted(offered, key=lambda choice: choice.move)


@dataclass(frozen=True)
class Lesson:
    """A game's guided first game.

    Attributes:
        options: the engine's ``new_game`` keyword arguments.
        seat: the learner's seat (0 or 1); the computer holds the other.
        opening: moves made before step 1 (the computer's first move when it moves first).
        intro: said above step 1 (``N_``).
        steps: the steps, in order.
        ending: ``() -> str``: said after the last step, in the current language (the caller adds where to play a
            real game).
    """

    options: Mapping[str, Any]
    seat: int
    intro: str
    steps: tuple[Step, ...]
    ending: Callable[[], str]
    opening: tuple[str, ...] = field(default=())


def position(engine: GameModule[Game], lesson: Lesson, step: int) -> Game:
    """The game as it stands at ``step`` (0-based; ``len(lesson.steps)`` is the end): the opening and every earlier
    step's right move and reply, played through ``engine``.

    Raises:
        IllegalMove: the script breaks the rules (:func:`problems` finds it first).
        IndexError: ``step`` is past the end.
    """
    if not 0 <= step <= len(lesson.steps):
        raise IndexError(f"step {step} of a {len(lesson.steps)}-step lesson")
    game = engine.new_game(**lesson.options)
    for move in lesson.opening:
        game.play(move)
    for earlier in lesson.steps[:step]:
        game.play(earlier.right)
        game.play(earlier.reply)
    return game


def problems(engine: GameModule[Game], lesson: Lesson) -> list[str]:
    """What is wrong with ``lesson`` for ``engine`` (empty: nothing): every step's right move and reply legal in
    order, at the learner's and the computer's turns, each right move doing what its step says (``check``), 2–4
    distinct choices, at most :data:`MAX_STEPS` steps, and the game not over before the end."""
    found: list[str] = []
    if not 1 <= len(lesson.steps) <= MAX_STEPS:
        found.append(f"{len(lesson.steps)} steps (1–{MAX_STEPS})")
    try:
        game = position(engine, lesson, 0)
    except IllegalMove as why:
        return [*found, f"opening: {why}"]
    for n, step in enumerate(lesson.steps, 1):
        moves = [choice.move for choice in step.choices()]
        if not 2 <= len(moves) <= 4 or len(set(moves)) != len(moves) or step.right in step.wrong:
            found.append(f"step {n}: {moves} are not 2–4 distinct choices")
        if game.is_over or game.to_move != lesson.seat:
            found.append(f"step {n}: not the learner's turn")
            break
        before = game.copy()
        try:
            game.play(step.right)
        except IllegalMove as why:
            found.append(f"step {n}: {step.right}: {why}")
            break
        if not step.check(before, game):
            found.append(f"step {n}: {step.right} does not do what the step says")
        if game.is_over or game.to_move == lesson.seat:
            found.append(f"step {n}: the computer has no turn to reply")
            break
        try:
            game.play(step.reply)
        except IllegalMove as why:
            found.append(f"step {n}: reply {step.reply}: {why}")
            break
    return found
