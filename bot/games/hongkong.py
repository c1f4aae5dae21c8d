"""Hong Kong in the bot: its words, and the options of ``/hongkong challenge`` and ``/hongkong place``.

:data:`KIND` is what :func:`bot.games.all_kinds` finds; the play feature builds the ``/hongkong`` commands from it.
"""
from __future__ import annotations

import random
from typing import Callable, Literal

from discord import app_commands

import engine.hongkong as hk
from render.common import PLAYER_COLOUR_NAMES
from render.hongkong import RENDERER

from ..core.errors import UserError
from ..core.lessons import Lesson, Step
from ..core.kinds import GameKind, MoveCommand
from ..i18n import N_, _, n_, p_
from ..i18n.wording import translate
from ..interface import mentions

FIRST = Literal["me", "them", "random"]


def seat_options(options: dict, rng: random.Random) -> tuple[int, dict]:
    """The challenger sits as player 0 (blue); ``first`` (me|them|random) decides who moves first."""
    first = options.get("first", "me")
    if first == "random":
        first = rng.choice(["me", "them"])
    return 0, {"first": 0 if first == "me" else 1}


def rematch(options: dict, rng: random.Random) -> tuple[bool, dict]:
    """Same colours, the other player moves first."""
    return False, {"first": 1 - options["first"]}


def score(game: hk.HongKongGame, names: tuple[str, str]) -> str:
    """"Buildings: Ann 5 – Ben 4" (buildings each player controls now)."""
    b0, b1 = game.buildings()
    # TRANSLATORS: each player's name then how many buildings they control now: "Buildings: Ann 5 – Ben 4".
    return _("Buildings: {first} {first_buildings} – {second} {second_buildings}", first=names[0],
             first_buildings=b0, second=names[1], second_buildings=b1)


def result(game: hk.HongKongGame, names: tuple[str, str]) -> str:
    """E.g. "Ann wins 13–12 (board full)." / "12–12: Ben wins on the centre C3." / "Draw, 11–11"."""
    outcome = game.outcome
    if outcome is None:
        raise ValueError("the game goes on: it has no result yet")
    b0, b1 = outcome.buildings
    how = translate(outcome.termination)
    if outcome.winner is None:
        # TRANSLATORS: {how} is how the game ended: "board full" or "pieces used".
        return n_("Draw: {first} and {second} have {count} building each, and the centre C3 is empty ({how}).",
                  "Draw: {first} and {second} have {count} buildings each, and the centre C3 is empty ({how}).", b0,
                  first=names[0], second=names[1], how=how)
    w = outcome.winner
    if outcome.centre_decided:
        # TRANSLATORS: {first}–{second} is the score in buildings (12–12); {how}: "board full" or "pieces used".
        return _("{name} wins on the centre C3: {first}–{second} buildings ({how}).", name=names[w], first=b0,
                 second=b1, how=how)
    # TRANSLATORS: {high}–{low} is the score in buildings (13–12); {how}: "board full" or "pieces used".
    return _("{name} wins {high}–{low} in buildings ({how}).", name=names[w], high=max(b0, b1), low=min(b0, b1),
             how=how)


def describe_options(options: dict) -> str:
    """Nothing beyond the sides (colours and who moves first), which the challenge message words itself."""
    return ""


def turn_number(game: hk.HongKongGame) -> int:
    """One move a turn: the moves so far plus one."""
    return len(game.moves) + 1


def describe_move(game: hk.HongKongGame, names: tuple[str, str]) -> str:
    """What the last turn did (:meth:`engine.hongkong.HongKongGame.last_turn_events`): "captured Ben's building on B2
    and sealed it with a roof; Ann takes the lead, 6–5"; "" when the turn captured, sealed and changed nothing."""
    events = game.last_turn_events()
    captured = {e.square for e in events if e.kind == "capture"}
    sealed = {e.square for e in events if e.kind == "seal"}
    parts = []
    for e in events:
        seat, counts = e.player, e.buildings  # (each kind of event has the fields it needs: see TurnEvent)
        if e.kind == "capture" and seat is not None:
            if e.square in sealed:
                # TRANSLATORS: {name} is the player who lost the building; {square} a square such as B2.
                parts.append(_("captured {name}'s building on {square} and sealed it with a roof",
                               name=names[1 - seat], square=e.square))
            else:
                parts.append(_("captured {name}'s building on {square}", name=names[1 - seat], square=e.square))
        elif e.kind == "seal" and e.square not in captured:
            parts.append(_("sealed {square} with a roof", square=e.square))
        elif e.kind == "lead" and seat is not None and counts is not None:
            # TRANSLATORS: {mine}–{theirs} is the new score in buildings (6–5).
            parts.append(_("{name} takes the lead, {mine}–{theirs}", name=names[seat],
                           mine=counts[seat], theirs=counts[1 - seat]))
        elif e.kind == "level" and counts is not None:
            if seat is not None:
                # TRANSLATORS: {score} is each player's buildings in a tie (5, as in 5–5).
                parts.append(_("level at {score}–{score} ({name} holds the centre C3, which decides a tie)",
                               score=counts[0], name=names[seat]))
            else:
                parts.append(_("level at {score}–{score} (the centre C3 is empty: a tie would be a draw)",
                               score=counts[0]))
        elif e.kind == "centre" and seat is not None and counts is not None:
            # TRANSLATORS: {first}–{second} is the tied score in buildings (12–12).
            parts.append(_("level at {first}–{second}: the centre C3 decides it for {name}", first=counts[0],
                           second=counts[1], name=names[seat]))
    return "; ".join(parts)


def notation(square: str, piece: str = "block", quick: str | None = None) -> str:
    """``/hongkong place`` options → a turn in the rules' notation (``"Q@B2 S@C3"``).

    Raises:
        IllegalMove: a square that is not A1–E5, with what a square looks like.
    """
    kind = "R" if piece == "roof" else "S"
    turn = f"{kind}@{hk.square_name(hk.parse_square(square))}"
    if quick and quick.strip():
        return f"Q@{hk.square_name(hk.parse_square(quick))} {turn}"
    return turn


def challenge(first: FIRST = "me") -> dict:
    """``/hongkong challenge``'s own option → the challenge options."""
    return {"first": first}


def place(
    square: app_commands.Range[str, 1, 10],
    piece: Literal["block", "roof"] = "block",
    quick: app_commands.Range[str, 1, 10] | None = None,
) -> str:
    """``/hongkong place``'s options → the turn (see :func:`notation`)."""
    return notation(square, piece, quick)


def square_choices(game: hk.HongKongGame, options) -> list[str]:
    """Where the piece chosen so far (block or roof, after the quick block if one is given) may go
    (``options``: the command's options so far; one not given yet is None).

    Raises:
        UserError: nowhere — the player has none of that piece left (and which option to change), or the quick
            block chosen can't go where it is.
    """
    piece = "R" if options.piece == "roof" else "S"
    left = game.remaining[game.to_move]
    option = mentions.option("hongkong place", "piece")
    if left[piece] == 0 and piece == "S":
        # TRANSLATORS: {option} is the option "piece" and {value} its choice "roof", as Discord shows them.
        raise UserError(_("You have no standard blocks left: set `{option}` to {value}.", option=option,
                          value=p_("choice", "roof")))
    if left[piece] == 0:
        # TRANSLATORS: {option} is the option "piece" and {value} its choice "block", as Discord shows them.
        raise UserError(_("You have no roofs left: set `{option}` to {value}.", option=option,
                          value=p_("choice", "block")))
    if options.quick:
        quick_choices(game, options)  # none left: says so
    found = game.legal_squares(piece, options.quick or None)
    if not found and options.quick:
        # TRANSLATORS: {square} is what was chosen for the option {option} (the quick block's square).
        raise UserError(_("A quick block can't go on {square}: choose another `{option}`.", square=options.quick,
                          option=mentions.option("hongkong place", "quick")))
    return found


def quick_choices(game: hk.HongKongGame, options) -> list[str]:
    """Where a quick block may go.

    Raises:
        UserError: the player has no quick blocks left.
    """
    if game.remaining[game.to_move]["Q"] == 0:
        raise UserError(_("You have no quick blocks left."))
    return game.legal_squares("Q")


def _captured(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move took the building on ``square`` from the other player."""
    return lambda before, after: before.controller(hk.parse_square(square)) == after.to_move \
        and after.controller(hk.parse_square(square)) == before.to_move


def _built(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move put the first piece on ``square``, an empty plot."""
    return lambda before, after: before.blocks(hk.parse_square(square)) == 0 \
        and after.controller(hk.parse_square(square)) == before.to_move


def _sealed(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move roofed the mover's building on ``square``."""
    return lambda before, after: not before.roofed(hk.parse_square(square)) \
        and after.roofed(hk.parse_square(square)) and after.controller(hk.parse_square(square)) == before.to_move


def _lesson_ending() -> str:
    return _("That's Hong Kong: most buildings at the end wins, and a tie goes to whoever holds the centre C3.")


#: ``/hongkong learn``: the learner moves first (blue) against the computer.
LESSON = Lesson(
    options={"first": 0},
    seat=0,
    intro=N_("A short game against the computer, just for you. S is a standard block, Q a quick block, R a roof; "
             "the taller building takes its neighbour."),
    steps=(
        Step(
            task=N_("Your first turn: place a standard block. On the first turn nothing may go on the centre C3."),
            right="S@B2", done=N_("Your block stands on B2: a building of your own."),
            wrong={"S@C3": N_("Not on the first turn: the centre C3 stays empty until the second turn."),
                   "Q@B2": N_("A quick block is never a turn on its own: it goes before a block or a roof.")},
            reply="S@B3", because=N_("The computer builds next to you, on B3."),
            check=_built("B2"),
        ),
        Step(
            task=N_("Take B3. To build on the computer's building you need a neighbour of yours at least as high as "
                    "it will be: put a quick block on B2 first, then a block on B3."),
            right="Q@B2 S@B3", done=N_("Your quick block made B2 two high, so your block took B3."),
            wrong={"S@B3": N_("B3 would be two blocks high and your B2 is one: too low to take it."),
                   "Q@B2 S@B2": N_("B2 grows to three blocks, but B3 stays the computer's.")},
            reply="S@A2", because=N_("The computer starts a new building on A2, next to your tower."),
            check=_captured("B3"),
        ),
        Step(
            task=N_("Your B2 is two blocks high, the computer's A2 one. Place a block on A2: the taller neighbour takes."),
            right="S@A2", done=N_("A2 is two high now, and B2 is as high: A2 is yours."),
            wrong={"S@A3": N_("A3 is empty: a new building, but nothing taken."),
                   "S@B1": N_("B1 is empty: a new building, but A2 stays the computer's.")},
            reply="Q@C3 S@C3", because=N_("The computer builds two high on C3: one more quick block there and it "
                                          "could take your B3."),
            check=_captured("A2"),
        ),
        Step(
            task=N_("Nothing may go on a roof. Seal B3 with a roof so C3 can never take it."),
            right="R@B3", done=N_("B3 is sealed: it stays yours to the end."),
            wrong={"R@A3": N_("A roof on empty A3 seals an empty plot; B3 stays open to capture."),
                   "S@D4": N_("D4 is a new building, but B3 stays open to capture.")},
            reply="S@D4", because=N_("The computer builds on D4: B3 is out of its reach now."),
            check=_sealed("B3"),
        ),
    ),
    ending=_lesson_ending,
)


KIND = HONGKONG = GameKind(
    name="hongkong",
    title="Hong Kong",
    engine=hk,
    render=RENDERER,
    roles=PLAYER_COLOUR_NAMES,
    seat_options=seat_options,
    score=score,
    result=result,
    describe_options=describe_options,
    describe_move=describe_move,
    turn_number=turn_number,
    rematch=rematch,
    challenge=challenge,
    challenge_help={"first": "Who moves first: me, them or random (default: me)"},
    moves=(
        MoveCommand(
            "place", "Place a block or roof (optionally after a quick block)", place,
            help={
                "square": "Where the block or roof goes, A1–E5 (columns A–E, rows 1–5)",
                "piece": "block (default) or roof",
                "quick": "Put a quick block on this square first, then the piece on `square` (default: none)",
            },
            autocomplete={"square": square_choices, "quick": quick_choices},
        ),
    ),
    lesson=LESSON,
)
