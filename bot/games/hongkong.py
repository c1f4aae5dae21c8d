"""Hong Kong in the bot: its words, and the options of ``/hongkong challenge`` and ``/hongkong place``.

:data:`KIND` is what :func:`bot.games.all_kinds` finds; the play feature builds the ``/hongkong`` commands from it.
"""

from __future__ import annotations

import random
from typing import Annotated, Callable, Literal


import engine.hongkong as hk
from render.common import PLAYER_COLOUR_NAMES
from render.hongkong import RENDERER

from ..core.errors import UserError
from ..core.kinds import GameKind, Length, MoveCommand
from ..core.lessons import Lesson, Step
from ..core.rules import Illustration, RulesPage
from ..i18n import N_, _, n_, p_
from ..i18n.wording import translate
from ..core import naming as mentions

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
    """ "Buildings: Ann 5 – Ben 4" (buildings each player controls now)."""
    b0, b1 = game.buildings()
    # TRANSLATORS: each player's name then how many buildings they control now: "Buildings: Ann 5 – Ben 4".
    return _(
        "Buildings: {first} {first_buildings} – {second} {second_buildings}",
        first=names[0],
        first_buildings=b0,
        second=names[1],
        second_buildings=b1,
    )


def result(game: hk.HongKongGame, names: tuple[str, str]) -> str:
    """E.g. "Ann wins 13–12 (board full)." / "12–12: Ben wins on the centre C3." / "Draw, 11–11"."""
    outcome = game.outcome
    if outcome is None:
        raise ValueError("the game goes on: it has no result yet")
    b0, b1 = outcome.buildings
    how = translate(outcome.termination)
    if outcome.winner is None:
        # TRANSLATORS: {how} is how the game ended: "board full" or "pieces used".
        return n_(
            "Draw: {first} and {second} have {count} building each, and the centre C3 is empty ({how}).",
            "Draw: {first} and {second} have {count} buildings each, and the centre C3 is empty ({how}).",
            b0,
            first=names[0],
            second=names[1],
            how=how,
        )
    w = outcome.winner
    if outcome.centre_decided:
        # TRANSLATORS: {first}–{second} is the score in buildings (12–12); {how}: "board full" or "pieces used".
        return _(
            "{name} wins on the centre C3: {first}–{second} buildings ({how}).",
            name=names[w],
            first=b0,
            second=b1,
            how=how,
        )
    # TRANSLATORS: {high}–{low} is the score in buildings (13–12); {how}: "board full" or "pieces used".
    return _(
        "{name} wins {high}–{low} in buildings ({how}).", name=names[w], high=max(b0, b1), low=min(b0, b1), how=how
    )


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
                parts.append(
                    _(
                        "captured {name}'s building on {square} and sealed it with a roof",
                        name=names[1 - seat],
                        square=e.square,
                    )
                )
            else:
                parts.append(_("captured {name}'s building on {square}", name=names[1 - seat], square=e.square))
        elif e.kind == "seal" and e.square not in captured:
            parts.append(_("sealed {square} with a roof", square=e.square))
        elif e.kind == "lead" and seat is not None and counts is not None:
            # TRANSLATORS: {mine}–{theirs} is the new score in buildings (6–5).
            parts.append(
                _(
                    "{name} takes the lead, {mine}–{theirs}",
                    name=names[seat],
                    mine=counts[seat],
                    theirs=counts[1 - seat],
                )
            )
        elif e.kind == "level" and counts is not None:
            if seat is not None:
                # TRANSLATORS: {score} is each player's buildings in a tie (5, as in 5–5).
                parts.append(
                    _(
                        "level at {score}–{score} ({name} holds the centre C3, which decides a tie)",
                        score=counts[0],
                        name=names[seat],
                    )
                )
            else:
                parts.append(
                    _("level at {score}–{score} (the centre C3 is empty: a tie would be a draw)", score=counts[0])
                )
        elif e.kind == "centre" and seat is not None and counts is not None:
            # TRANSLATORS: {first}–{second} is the tied score in buildings (12–12).
            parts.append(
                _(
                    "level at {first}–{second}: the centre C3 decides it for {name}",
                    first=counts[0],
                    second=counts[1],
                    name=names[seat],
                )
            )
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
    square: Annotated[str, Length(1, 10)],
    piece: Literal["block", "roof"] = "block",
    quick: Annotated[str, Length(1, 10)] | None = None,
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
        raise UserError(
            _("You have no standard blocks left: set `{option}` to {value}.", option=option, value=p_("choice", "roof"))
        )
    if left[piece] == 0:
        # TRANSLATORS: {option} is the option "piece" and {value} its choice "block", as Discord shows them.
        raise UserError(
            _("You have no roofs left: set `{option}` to {value}.", option=option, value=p_("choice", "block"))
        )
    if options.quick:
        quick_choices(game, options)  # none left: says so
    found = game.legal_squares(piece, options.quick or None)
    if not found and options.quick:
        # TRANSLATORS: {square} is what was chosen for the option {option} (the quick block's square).
        raise UserError(
            _(
                "A quick block can't go on {square}: choose another `{option}`.",
                square=options.quick,
                option=mentions.option("hongkong place", "quick"),
            )
        )
    return found


def quick_choices(game: hk.HongKongGame, options) -> list[str]:
    """Where a quick block may go.

    Raises:
        UserError: the player has no quick blocks left.
    """
    if game.remaining[game.to_move]["Q"] == 0:
        raise UserError(_("You have no quick blocks left."))
    return game.legal_squares("Q")


# --- the rules as pages (/hongkong rules; rules: engine/rules/hongkong.md) -------------------------------------------


def _turns_text() -> str:
    # TRANSLATORS: {place} is the command /hongkong place (a mention); {quick} its option "quick" as Discord shows it.
    return _(
        "Two players build on a 5×5 board of 25 plots (`A1` top left, `C3` the centre). A **building** is the "
        "stack of pieces on one plot; the player whose piece is on top **controls** it. Each player has 20 "
        "standard blocks, 5 quick blocks and 5 roofs.\n\nA turn is exactly one of: a standard block; a roof; a "
        "quick block, then a standard block; a quick block, then a roof. A quick block is never a turn on its "
        "own. On the starting player's first turn no piece may go on the centre `C3`.\n\nPlay with {place} "
        "(`{quick}` puts a quick block first). Notation: `S@C2` a standard block on C2, `R@B2` a roof, "
        "`Q@B2 S@C2` a quick block on B2 and then a block on C2.",
        place=mentions.command("hongkong place"),
        quick=mentions.option("hongkong place", "quick"),
    )


def _capture_text() -> str:
    return _(
        "Any piece may go on an empty plot, and you may always place on a building you control. Nothing may go "
        "on a roof, and a building has at most 5 pieces (a roof counts).\n\nTo place on a building your opponent "
        "controls (a **capture**), you must control a building next to it (sharing an edge) that is at least as "
        "high as that building will be after your piece.\n\nHere blue's `B2` has 2 blocks. `S@C2` is legal: "
        "`C2` will have 2 blocks, no higher than `B2`, and blue controls it then. `S@D4` is illegal: blue has "
        "no building next to `D4`."
    )


def _roof_text() -> str:
    return _(
        "A roof seals a building: nothing more goes on it. It may go on an empty plot too.\n\n**Height**: "
        "compare 2 × blocks, plus 1 for a roof, so 1 block < 1 block + roof < 2 blocks (quick blocks are "
        "blocks).\n\nHere blue's `B2` is 1 block + roof. `R@C2` is legal: `C2` becomes 1 block + roof, as high "
        "as `B2`, captured and sealed in one go. `S@C2` is illegal: 2 blocks are higher than 1 block + roof.\n\n"
        "In a double move the second piece is checked after the quick block: the quick block may first raise "
        "your own building next door, and a quick block and a roof on the same plot can capture and seal a "
        "building in one turn."
    )


def _end_text() -> str:
    return _(
        "The game ends at the end of a turn when all 25 plots are occupied, or when both players have used all "
        "their standard blocks and roofs (quick blocks may be left). So it lasts at most 50 turns. When it "
        "ends because the pieces run out, the second player has had the last turn; a full board can end it on "
        "either player's turn.\n\nWhoever controls more buildings wins. Equal counts: the "
        "player who controls the centre `C3` wins. Equal counts with `C3` empty: a draw (a full board can't "
        "tie).\n\nHere every block and roof is used and each player controls 12 buildings: blue controls `C3` "
        "and wins."
    )


_CAPTURE = ("S@B2", "S@C2", "S@B2", "S@D4")
_ROOF = ("S@B2", "S@C2", "R@B2", "S@D4")
#: A whole game (blue first) that ends with every standard block and roof used, 12–12, decided on the centre.
_CENTRE_TIE = (
    "S@A3",
    "R@C1",
    "R@B5",
    "R@A2",
    "R@A5",
    "S@D5",
    "R@C3",
    "S@C4",
    "R@A4",
    "R@E4",
    "S@E3",
    "S@E5",
    "R@D3",
    "S@A1",
    "S@B1",
    "S@C5",
    "S@E3",
    "S@E5",
    "S@D1",
    "S@D2",
    "S@B2",
    "S@C4",
    "S@B1",
    "R@E1",
    "S@A3",
    "R@C5",
    "S@B3",
    "S@A1",
    "S@A3",
    "S@E5",
    "S@E3",
    "S@C2",
    "S@B3",
    "S@A1",
    "S@B2",
    "S@B1",
    "S@B2",
    "S@A1",
    "S@B4",
    "S@C2",
    "S@D4",
    "S@B4",
    "S@E3",
    "S@D4",
    "S@B2",
    "S@C2",
    "S@B1",
    "S@D5",
    "S@C2",
    "S@D2",
)


def _after(moves: str) -> Callable[[], str]:
    # TRANSLATORS: under a board on a rules page; {moves} is what was played last, in notation ("S@C2").
    return lambda: _("After `{moves}`", moves=moves)


RULES = (
    RulesPage(
        lambda: p_("rules", "Pieces and turns"),
        _turns_text,
        (Illustration(("S@B2", "S@D4", "Q@B2 S@C2"), _after("Q@B2 S@C2")),),
    ),
    RulesPage(
        lambda: p_("rules", "Placing and capturing"),
        _capture_text,
        (
            Illustration(
                _CAPTURE,
                lambda: _("Blue to move: `S@C2` is legal, `S@D4` is not."),
                refused=("S@D4",),
                marks=("C2", "D4"),
            ),
            Illustration((*_CAPTURE, "S@C2"), _after("S@C2")),
        ),
    ),
    RulesPage(
        lambda: p_("rules", "Roofs and height"),
        _roof_text,
        (
            Illustration(
                _ROOF, lambda: _("Blue to move: `R@C2` is legal, `S@C2` is not."), refused=("S@C2",), marks=("C2",)
            ),
            Illustration((*_ROOF, "R@C2"), _after("R@C2")),
        ),
    ),
    RulesPage(
        lambda: p_("rules", "The end and the winner"),
        _end_text,
        (Illustration(_CENTRE_TIE, lambda: _("12–12: blue controls the centre `C3` and wins."), marks=("C3",)),),
    ),
)


def _captured(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move took the building on ``square`` from the other player."""
    return lambda before, after: (
        before.controller(hk.parse_square(square)) == after.to_move
        and after.controller(hk.parse_square(square)) == before.to_move
    )


def _built(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move put the first piece on ``square``, an empty plot."""
    return lambda before, after: (
        before.blocks(hk.parse_square(square)) == 0 and after.controller(hk.parse_square(square)) == before.to_move
    )


def _sealed(square: str) -> Callable[[hk.HongKongGame, hk.HongKongGame], bool]:
    """A lesson check: the move roofed the mover's building on ``square``."""
    return lambda before, after: (
        not before.roofed(hk.parse_square(square))
        and after.roofed(hk.parse_square(square))
        and after.controller(hk.parse_square(square)) == before.to_move
    )


def _lesson_ending() -> str:
    return _("That's Hong Kong: most buildings at the end wins, and a tie goes to whoever holds the centre C3.")


#: ``/hongkong learn``: the learner moves first (blue) against the computer.
LESSON = Lesson(
    options={"first": 0},
    seat=0,
    intro=N_(
        "A short game against the computer, just for you. S is a standard block, Q a quick block, R a roof; "
        "the taller building takes its neighbour."
    ),
    steps=(
        Step(
            task=N_("Your first turn: place a standard block. On the first turn nothing may go on the centre C3."),
            right="S@B2",
            done=N_("Your block stands on B2: a building of your own."),
            wrong={
                "S@C3": N_("Not on the first turn: the centre C3 stays empty until the second turn."),
                "Q@B2": N_("A quick block is never a turn on its own: it goes before a block or a roof."),
            },
            reply="S@B3",
            because=N_("The computer builds next to you, on B3."),
            check=_built("B2"),
        ),
        Step(
            task=N_(
                "Take B3. To build on the computer's building you need a neighbour of yours at least as high as "
                "it will be: put a quick block on B2 first, then a block on B3."
            ),
            right="Q@B2 S@B3",
            done=N_("Your quick block made B2 two high, so your block took B3."),
            wrong={
                "S@B3": N_("B3 would be two blocks high and your B2 is one: too low to take it."),
                "Q@B2 S@B2": N_("B2 grows to three blocks, but B3 stays the computer's."),
            },
            reply="S@A2",
            because=N_("The computer starts a new building on A2, next to your tower."),
            check=_captured("B3"),
        ),
        Step(
            task=N_(
                "Your B2 is two blocks high, the computer's A2 one. Place a block on A2: the taller neighbour takes."
            ),
            right="S@A2",
            done=N_("A2 is two high now, and B2 is as high: A2 is yours."),
            wrong={
                "S@A3": N_("A3 is empty: a new building, but nothing taken."),
                "S@B1": N_("B1 is empty: a new building, but A2 stays the computer's."),
            },
            reply="Q@C3 S@C3",
            because=N_("The computer builds two high on C3: one more quick block there and it could take your B3."),
            check=_captured("A2"),
        ),
        Step(
            task=N_("Nothing may go on a roof. Seal B3 with a roof so C3 can never take it."),
            right="R@B3",
            done=N_("B3 is sealed: it stays yours to the end."),
            wrong={
                "R@A3": N_("A roof on empty A3 seals an empty plot; B3 stays open to capture."),
                "S@D4": N_("D4 is a new building, but B3 stays open to capture."),
            },
            reply="S@D4",
            because=N_("The computer builds on D4: B3 is out of its reach now."),
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
            "place",
            "Place a block or roof (optionally after a quick block)",
            place,
            help={
                "square": "Where the block or roof goes, A1–E5 (columns A–E, rows 1–5)",
                "piece": "block (default) or roof",
                "quick": "Put a quick block on this square first, then the piece on `square` (default: none)",
            },
            autocomplete={"square": square_choices, "quick": quick_choices},
        ),
    ),
    rules=RULES,
    lesson=LESSON,
)
