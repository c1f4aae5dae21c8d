"""Hong in the bot: its words, and the options of ``/hong challenge``, ``/hong place`` and ``/hong dragon``.

:data:`KIND` is what :func:`bot.games.all_kinds` finds; the play feature builds the ``/hong`` commands from it.
"""

from __future__ import annotations

import random
from typing import Annotated, Callable, Literal

from babel.lists import format_list

import engine.hong as hong
from engine import N_, IllegalMove, squares
from render.hong import RENDERER

from .. import i18n
from ..core.errors import UserError
from ..core.kinds import GameKind, Length, MoveCommand
from ..core.lessons import Lesson, Step
from ..core.rules import Illustration, RulesPage
from ..i18n import _, n_, p_
from ..core import naming as mentions
from ..i18n.wording import translate

ROLE = Literal["emperor", "dragon_master", "random"]
BOARD = Literal["castle", "garden", "inner"]


def seat_options(options: dict, rng: random.Random) -> tuple[int, dict]:
    """Seat 0 is the emperor (moves first), seat 1 the dragon master; the seed is drawn now and stored."""
    role = options.get("role", "random")
    if role == "random":
        role = rng.choice(["emperor", "dragon_master"])
    engine_options = {
        "board": options.get("board", "castle"),
        "expansion": bool(options.get("expansion", False)),
        "seed": rng.randrange(2**31),
    }
    return (0 if role == "emperor" else 1), engine_options


def rematch(options: dict, rng: random.Random) -> tuple[bool, dict]:
    """Roles swapped (seat 0 is always the emperor); same board and lair option, new stones."""
    return True, {**options, "seed": rng.randrange(2**31)}


def score(game: hong.HongGame, names: tuple[str, str]) -> str:
    """ "Hongs 9 / 15 (castle, 40 spaces left)". (Why a count past the threshold doesn't end a game with the
    expansion is said once, by the move that reached it: :func:`describe_move`.)"""
    # TRANSLATORS: {hongs} and {threshold} are numbers; {board} is the board's name (castle, garden, inner).
    return n_(
        "Hongs {hongs} / {threshold} ({board}, {count} space left)",
        "Hongs {hongs} / {threshold} ({board}, {count} spaces left)",
        len(game.empty_squares()),
        hongs=game.hong_count(),
        threshold=game.threshold,
        board=game.board.name,
    )


def prompt(game: hong.HongGame, names: tuple[str, str]) -> str:
    """What a pending summon offers the player to move — each dragon, what it does and a legal example — or ""."""
    pending = game.pending
    if not pending:
        return ""
    legal = game.legal_moves()
    offers = []
    for size, action in sorted(pending.options.items()):
        example = next((m for m in legal if m.startswith(f"D{size} ")), "")
        # TRANSLATORS: D{size} {action} is notation (D2 rotate); {help} says what the action does; {example}
        # is a whole dragon action such as "D2 rotate C4".
        offers.append(
            _(
                "**D{size} {action}** — {help} e.g. `{example}`",
                size=size,
                action=action,
                help=action_help(action),
                example=example,
            )
        )
    dragon = mentions.command("hong dragon")
    if len(offers) == 1:
        # TRANSLATORS: {offer} is the dragon summoned, what it does and an example; {dragon} is the command
        # /hong dragon (a mention: Discord shows it in each reader's language).
        return _(
            "🐉 {name} summons a Great Dragon — carry out its action with {dragon}: {offer}",
            name=names[pending.player],
            dragon=dragon,
            offer=offers[0],
        )
    # TRANSLATORS: {offers} lists the dragons the player may choose, separated by "; ".
    # {dragon} is the command /hong dragon (a mention: Discord shows it in each reader's language).
    return _(
        "🐉 {name} summons a Great Dragon — choose one with {dragon}: {offers}",
        name=names[pending.player],
        dragon=dragon,
        offers="; ".join(offers),
    )


def action_help(action: str) -> str:
    """What a dragon's action does, in the current language, without an example (the bot gives a real one)."""
    return _(hong.ACTION_EXPLAINED[action])


def result(game: hong.HongGame, names: tuple[str, str]) -> str:
    """Who wins, in which role, and why: "Ben (dragon master) wins: 16 Hongs, 15 needed." — or, for a base game
    decided early (rules, ruling "Decided early"): "Ben (dragon master) wins. Decided: 15/15 Hongs with 8 spaces
    left — nothing can undo a Hong without the expansion."."""
    o = game.outcome
    if o is None:
        raise ValueError("the game goes on: it has no result yet")
    name, role = names[o.winner], translate(hong.ROLE_NAMES[o.winner])
    if o.spaces_left:
        # TRANSLATORS: {count} is the number of spaces left.
        return n_(
            "{name} ({role}) wins. Decided: {hongs} with {count} space left — nothing can undo a Hong without "
            "the expansion.",
            "{name} ({role}) wins. Decided: {hongs} with {count} spaces left — nothing can undo a Hong without "
            "the expansion.",
            o.spaces_left,
            name=name,
            role=role,
            # TRANSLATORS: {hongs} Hongs on the board out of {count} needed (a score, e.g. 15/15 Hongs).
            hongs=n_("{hongs}/{count} Hong", "{hongs}/{count} Hongs", o.threshold, hongs=o.hongs),
        )
    # TRANSLATORS: {hongs} is e.g. "16 Hongs"; {threshold} the number needed.
    return _(
        "{name} ({role}) wins: {hongs}, {threshold} needed.",
        name=name,
        role=role,
        hongs=n_("{count} Hong", "{count} Hongs", o.hongs),
        threshold=o.threshold,
    )


def describe_options(options: dict) -> str:
    """The engine options in words for the challenge message: the board, and the Lair if played with."""
    # TRANSLATORS: {board} is the board's name (castle, garden, inner).
    if options.get("expansion"):
        return _("{board} board, with the Lair of the Seven Great Dragons", board=options["board"])
    return _("{board} board", board=options["board"])


def turn_number(game: hong.HongGame) -> int:
    """Each turn holds exactly one placement (then any dragon actions, which hold a space: ``D2 rotate C4``), so the
    turn being played is the placements so far, plus one unless a summon is finishing the current turn."""
    placements = sum(" " not in move for move in game.moves)
    return placements + (0 if game.pending else 1)


def _spans(hongs: list[hong.Hong]) -> str:
    """ "3 at B4–D4" / "1 at C4, 2 at E4–F4 and 2 at D4–D5": each Hong's size and where it lies, listed as the
    current language lists things (CLDR, through Babel; English without the serial comma, as ``en_GB``)."""

    def where(h: hong.Hong) -> str:
        return h.cells[0] if h.size == 1 else f"{h.cells[0]}–{h.cells[-1]}"

    # TRANSLATORS: a Hong's size and where it lies: "3 at B4–D4" (part of "the Hong of 3 at B4–D4").
    spans = [_("{size} at {where}", size=h.size, where=where(h)) for h in hongs]
    code = i18n.current()
    return format_list(spans, locale="en_GB" if code == i18n.SOURCE else code)


def describe_move(game: hong.HongGame, names: tuple[str, str]) -> str:
    """What the last move did (:meth:`engine.hong.HongGame.last_move_events`): "broke the Hong of 1 at B1", "a new
    Hong of 2 at A2–A3: it summons the Great Dragon D2 (rotate)"; "" when it changed no Hong. The count itself is
    in the score line, and an early decision in the result. With the expansion, the move that takes the count to the
    target says (once, not every post after it) that dragons can still break Hongs until the board is full."""
    events = game.last_move_events()
    broken = [e.hong for e in events if e.kind == "broken" and e.hong is not None]
    made = [e for e in events if e.kind == "hong"]
    made_hongs = [e.hong for e in made if e.hong is not None]
    parts = []
    if broken:
        # TRANSLATORS: {spans} is e.g. "1 at C4" or "1 at C4 and 3 at B4–D4".
        parts.append(n_("broke the Hong of {spans}", "broke the Hongs of {spans}", len(broken), spans=_spans(broken)))
    if made:
        # TRANSLATORS: {spans} is e.g. "2 at A2–A3" or "1 at C4 and 3 at B4–D4".
        text = n_("a new Hong of {spans}", "new Hongs of {spans}", len(made), spans=_spans(made_hongs))
        dragons = sorted({(e.hong.size, e.dragon) for e in made if e.hong and e.dragon})
        if len(dragons) == 1:
            # TRANSLATORS: {hongs} is "a new Hong of 2 at A2–A3"; D{size} ({action}) is notation: D2 (rotate).
            text = _(
                "{hongs}: it summons the Great Dragon D{size} ({action})",
                hongs=text,
                size=dragons[0][0],
                action=dragons[0][1],
            )
        elif dragons:
            offered = [f"D{size} ({action})" for size, action in dragons]  # notation: D2 (rotate)
            choices = offered[0]
            for dragon in offered[1:]:
                # TRANSLATORS: two Great Dragons to choose from, e.g. "D2 (rotate) or D3 (flip)".
                choices = _("{first} or {second}", first=choices, second=dragon)
            # TRANSLATORS: {hongs} is "new Hongs of 1 at C4 and 3 at B4–D4"; {dragons} "D1 (swap) or D3 (flip)".
            text = _("{hongs}: they summon a Great Dragon, {dragons}", hongs=text, dragons=choices)
        parts.append(text)
    if events and game.expansion and not game.is_over:
        after, threshold = events[0].hongs, events[0].threshold
        if after >= threshold > after - len(made) + len(broken):  # this move took the count to the threshold: once
            parts.append(
                _(
                    "enough for the dragon master now, but Great Dragons can still break Hongs: the count "
                    "that decides is the one when the board is full"
                )
            )
    return "; ".join(parts)


def placement(square: str, rotate: bool = False) -> str:
    """``/hong place`` options → a placement (``"B3V"``). The square is read by :func:`engine.squares.parse` (as
    in every game: ``B 3``, ``b3``, ``ｂ３``); one typed with its orientation (``B3V``, as the bot's own posts
    show moves) is understood too.

    Raises:
        IllegalMove: not a square (with "Did you mean B3?" for a near miss), or an orientation typed in
            ``square`` that contradicts ``rotate``.
    """
    text = squares.fold(square)
    orientation = "V" if rotate else "H"
    if len(text) >= 3 and text[-1] in "HV" and text[-2].isdigit():
        if rotate and text[-1] == "H":
            # TRANSLATORS: {square} is what the player typed, e.g. B3H; {rotate} the command's option "rotate" as
            # Discord shows it in this language.
            raise IllegalMove(
                N_(
                    "`{square}` says H but `{rotate}:True` says V: give one of them.",
                    square=square.strip(),
                    rotate=mentions.option("hong place", "rotate"),
                )
            )
        square, orientation = text[:-1], text[-1]
    return squares.square_name(*squares.parse(square, example="C4")) + orientation


def challenge(board: BOARD = "castle", role: ROLE = "random", expansion: bool = False) -> dict:
    """``/hong challenge``'s own options → the challenge options."""
    return {"board": board, "role": role, "expansion": expansion}


def place(square: Annotated[str, Length(1, 10)], rotate: bool = False) -> str:
    """``/hong place``'s options → the placement (see :func:`placement`)."""
    return placement(square, rotate)


def dragon(action: Annotated[str, Length(1, 60)]) -> str:
    """``/hong dragon``'s option → the dragon action, as typed (the engine reads it).

    Raises:
        IllegalMove: it doesn't read as a dragon action (a placement such as ``D4H`` is refused, never placed).
    """
    return hong.dragon_action(action)


def square_choices(game: hong.HongGame, options) -> list[str]:
    """The empty spaces, unless a summoned dragon's action must come first.

    Raises:
        UserError: a summoned dragon's action comes first.
    """
    if game.pending:
        # TRANSLATORS: {dragon} is the command /hong dragon (a mention).
        raise UserError(
            _(
                "Carry out the summoned Great Dragon's action first, with {dragon}.",
                dragon=mentions.command("hong dragon"),
            )
        )
    return game.empty_squares()


def action_choices(game: hong.HongGame, options) -> list[str]:
    """The summoned dragon's legal actions.

    Raises:
        UserError: no dragon is being summoned.
    """
    if not game.pending:
        # TRANSLATORS: {place} is the command /hong place (a mention).
        raise UserError(
            _("No Great Dragon is being summoned now: place a tile with {place}.", place=mentions.command("hong place"))
        )
    return game.legal_moves()


# --- the rules as pages (/hong rules; rules: engine/rules/hong.md) ---------------------------------------------------


def _hongs_text() -> str:
    # TRANSLATORS: {place} is the command /hong place (a mention); {rotate} its option "rotate" as Discord shows it.
    return _(
        "The **emperor** wants few Hongs, the **dragon master** many. Three stones are set at random; the emperor "
        "moves first, then you take turns. A turn places one tile, dragon side up, on an empty space: `H` (body "
        "west–east, heads north and south) or `V` (body north–south, heads west and east). Play with {place} "
        "(`{rotate}` for `V`).\n\nA **Hong** is a straight line of one or more segments with a head at each end: "
        "a run of `H` tiles in a row between two `V` tiles, or a run of `V` tiles in a column between two `H` "
        "tiles. Its size is the number of segments: `V H V` is a Hong of size 1. A board edge, a missing or empty "
        "space or a stone never caps a run. One tile can be a segment of one Hong and a head of others.",
        place=mentions.command("hong place"),
        rotate=mentions.option("hong place", "rotate"),
    )


def _boards_text() -> str:
    boards = hong.BOARDS
    # TRANSLATORS: {castle}, {garden}, {inner}: how many Hongs the dragon master needs on each board; {challenge}
    # is the command /hong challenge (a mention). castle, garden and inner are the boards' names (an option's values).
    return _(
        "Three boards: **castle** (the dragon master needs **{castle}** Hongs), **garden** (a pond and two trees: "
        "**{garden}**) and **inner** (the castle's inner 7×7: **{inner}**). Choose one with {challenge}.\n\nThe "
        "game ends when the last space is filled; then all Hongs, across and down, are counted. The dragon master "
        "wins if the count reaches the board's target, otherwise the emperor wins: there are no draws.\n\n"
        "Without the expansion a Hong, once made, stays, so the game ends as soon as the count reaches the "
        "target: the dragon master wins with spaces left. With the expansion dragons can break Hongs, so the "
        "game always runs until the board is full.",
        castle=boards["castle"].threshold,
        garden=boards["garden"].threshold,
        inner=boards["inner"].threshold,
        challenge=mentions.command("hong challenge"),
    )


def _castle_balance_text() -> str:
    """The base castle's role balance as ``tests/bench/strength.py`` measured it: plain UCT against itself at 0.5 s a
    move, the dragon master won 22 of 24 games (92%, 95% interval 74–98%; issue 26's own run: 25 of 26)."""
    # TRANSLATORS: castle is the board's name (an option's value): keep it as in English.
    return _(
        "Between two equally strong computer players the dragon master wins most games on the **castle** without "
        "the expansion: there the emperor has the harder role."
    )


def _lair_text() -> str:
    # TRANSLATORS: {challenge} and {dragon} are the commands /hong challenge and /hong dragon (mentions).
    return _(
        "With the expansion (the Lair of the Seven Great Dragons, chosen in {challenge}) the seven Great Dragons, "
        "one for each action the next pages show, are dealt at random to the lair's spaces 1 to 7 when the game "
        "starts: one for each Hong size, drawn under the board.\n\nWhen your placement creates a Hong and "
        "the dragon of its size is still in the lair, you summon it and carry out its action at once with "
        "{dragon}; then it leaves the game. If several sizes have a dragon waiting, you choose one; the others "
        "stay. An action that creates Hongs summons one more dragon the same way. Summoning isn't optional, but a "
        "dragon whose action can't be carried out now stays in the lair. The game's end is checked when the "
        "whole turn is done.\n\nThe next pages show each dragon's action.",
        challenge=mentions.command("hong challenge"),
        dragon=mentions.command("hong dragon"),
    )


#: The Hongs page: the emperor's D2V caps C2 (across); the emperor's D3H then caps D2 (down).
_HONGS = ("B2V", "C2H", "D2V", "D1H", "D3H")
_STONES = ["E5", "A7", "G7"]
#: Every dragon page: the dragon master's C2H makes the Hong C2 of size 1, whose dragon (each page's) is summoned.
_SUMMON = ("B2V", "D2V", "F6H", "C2H")
#: Each dragon's example action after _SUMMON (stone on E5).
_EXAMPLES = {
    "rotate": "D1 rotate C2",
    "place": "D1 place E4V",
    "movestone": "D1 movestone E5 E2",
    "flip": "D1 flip B2",
    "move": "D1 move D2 D3",
    "stone": "D1 stone E2",
    "swap": "D1 swap C2 E5 V",
}


def _lair(first: str) -> dict[int, str]:
    """A lair with ``first``'s dragon at size 1 and the others after it in the rules' order."""
    return dict(enumerate((first, *(a for a in hong.ACTIONS if a != first)), start=1))


def _summoned() -> str:
    # TRANSLATORS: under a board on a rules page.
    return _("Before: `C2H` made a Hong of size 1, and its Great Dragon is summoned.")


def _after(move: str) -> Callable[[], str]:
    # TRANSLATORS: under a board on a rules page; {moves} is what was played last, in notation ("D1 rotate C2").
    return lambda: _("After `{moves}`", moves=move)


def _dragon_page(action: str) -> RulesPage:
    options = {"board": "inner", "expansion": True, "seed": 1, "stones": _STONES, "lair": _lair(action)}
    return RulesPage(
        # TRANSLATORS: a rules page's title; {action} is a Great Dragon's action in notation (rotate, place, …).
        lambda: p_("rules", "Great Dragon: {action}", action=action),
        # TRANSLATORS: {explained} is what the action does (one sentence, translated elsewhere); {move} its notation.
        lambda: _(
            "{explained}\n\nNotation: `{move}` (the dragon of size 1). The first board is the summon, the second "
            "the board after the action.",
            explained=action_help(action),
            move=_EXAMPLES[action],
        ),
        (
            Illustration(_SUMMON, _summoned, options),
            Illustration((*_SUMMON, _EXAMPLES[action]), _after(_EXAMPLES[action]), options),
        ),
    )


RULES = (
    RulesPage(
        lambda: p_("rules", "Tiles and Hongs"),
        _hongs_text,
        (
            Illustration(
                _HONGS,
                lambda: _(
                    "`C2` is a Hong of size 1 across (capped by `B2` and `D2`), and `D2` one down (capped by "
                    "`D1` and `D3`)."
                ),
                {"board": "inner", "seed": 1, "stones": _STONES},
                marks=("C2", "B2", "D2", "D1"),  # (D3: the last move, highlighted already)
            ),
        ),
    ),
    RulesPage(
        lambda: p_("rules", "Boards and the end"),
        lambda: _boards_text() + "\n\n" + _castle_balance_text(),
        (
            Illustration(
                ("B2V", "C2H", "D2V"),
                lambda: n_(
                    "The garden board: the dragon master needs {count} Hong.",
                    "The garden board: the dragon master needs {count} Hongs.",
                    hong.BOARDS["garden"].threshold,
                ),
                {"board": "garden", "seed": 1},
            ),
        ),
    ),
    RulesPage(
        lambda: p_("rules", "The Lair of the Seven Great Dragons"),
        _lair_text,
        (
            Illustration(
                _SUMMON,
                _summoned,
                {"board": "inner", "expansion": True, "seed": 1, "stones": _STONES, "lair": _lair("rotate")},
            ),
        ),
    ),
    *(_dragon_page(action) for action in hong.ACTIONS),
)


def _threats(game: hong.HongGame) -> int:
    """How many placements would make a Hong now (whoever plays them: a Hong counts for the dragon master)."""
    count = game.hong_count()
    found = 0
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        found += after.hong_count() > count
    return found


def _lesson_ending() -> str:
    thresholds = {name: hong.board_named(name).threshold for name in ("inner", "garden", "castle")}
    # TRANSLATORS: {inner}, {garden} and {castle} are the numbers of Hongs the dragon master needs on each board.
    return _(
        "That's Hong. Hongs the dragon master needs to win: {inner} on the inner board, {garden} on the garden, "
        "{castle} on the castle; if the board fills with fewer, the emperor wins.",
        **thresholds,
    )


#: ``/hong learn``: the learner is the dragon master on the inner board; the computer, the emperor, opens on D4.
LESSON = Lesson(
    options={"board": "inner", "seed": 1, "stones": ["C2", "E1", "F6"]},
    seat=1,
    opening=("D4H",),
    intro=N_(
        "A short game against the computer, just for you: you are the dragon master and want Hongs, the "
        "emperor wants few. H is a tile with its body across and heads north and south; V is turned, heads "
        "west and east. A Hong is a run of bodies with a head facing it at each end."
    ),
    steps=(
        Step(
            task=N_("The emperor opened with H on D4. Put a V tile on C4: its head faces the end of D4's body."),
            right="C4V",
            done=N_("C4's head caps the west end of D4: V on E4 would now make a Hong."),
            wrong={
                "C4H": N_("H on C4 only makes the run C4–D4 longer, with no head at either end."),
                "A5V": N_("Legal, but far away: a Hong needs heads at both ends of one run."),
            },
            reply="E4H",
            because=N_("The emperor covers E4 with H: the run D4–E4 is longer, but its east end F4 is still open."),
            check=lambda before, after: _threats(after) > _threats(before),
        ),
        Step(
            task=N_("Make your first Hong: a V tile on F4 caps the run D4–E4 from the east."),
            right="F4V",
            done=N_("A Hong of size 2: D4–E4, with heads on C4 and F4."),
            wrong={
                "F4H": N_("H on F4 makes the run longer again; still no head at its east end."),
                "G4V": N_("G4 is one space too far: F4 stays empty, so nothing caps the run."),
            },
            reply="F5V",
            because=N_(
                "The emperor puts V under your F4: the upright run F4–F5 now ends at the stone "
                "on F6, and a stone never caps a run."
            ),
            check=lambda before, after: after.hong_count() > before.hong_count(),
        ),
        Step(
            task=N_("Threaten another Hong: your V on C4 needs H heads above and below. Put H on C5."),
            right="C5H",
            done=N_("H on C3 would now make C4 a Hong of size 1."),
            wrong={
                "C5V": N_("V on C5 makes the upright run C4–C5 longer; its heads must be H tiles."),
                "C3V": N_("V on C3 runs up to the stone on C2: that run can never be capped."),
            },
            reply="C3V",
            because=N_("The emperor blocks: V on C3 runs the column up to the stone on C2."),
            check=lambda before, after: _threats(after) > _threats(before),
        ),
        Step(
            task=N_("The emperor can block only one Hong a turn. Put V on E3: then H on D3 or H on E2 makes a Hong."),
            right="E3V",
            done=N_("Two threats at once: D3 between C3 and E3, and E3 between E2 and E4."),
            wrong={
                "D3H": N_("H on D3 is one threat (V on E3); the emperor blocks it at once."),
                "E2H": N_("H on E2 is one threat (V on E3); the emperor blocks it at once."),
            },
            reply="E2V",
            because=N_(
                "The emperor blocks E2 against the stone on E1, but D3 is still open: H there is your next Hong."
            ),
            check=lambda before, after: _threats(after) >= 2,
        ),
    ),
    ending=_lesson_ending,
)


KIND = HONG = GameKind(
    name="hong",
    title="Hong",
    engine=hong,
    render=RENDERER,
    roles=hong.ROLE_NAMES,
    record_by_role=True,
    role_article="the ",
    seat_options=seat_options,
    score=score,
    prompt=prompt,
    result=result,
    describe_options=describe_options,
    describe_move=describe_move,
    turn_number=turn_number,
    rematch=rematch,
    challenge=challenge,
    challenge_help={
        "board": "castle (default, 15 Hongs to win), garden (13) or inner (11)",
        "role": "Your role: emperor (moves first, wants few Hongs), dragon_master (wants many), random (default)",
        "expansion": "Play with the Lair of the Seven Great Dragons (default False)",
    },
    moves=(
        MoveCommand(
            "place",
            "Place a tile on an empty space (H: body across, V: rotated)",
            place,
            help={
                "square": "An empty space, e.g. B3",
                "rotate": "True: turn the tile to V, body up–down (default False: H, body across)",
            },
            autocomplete={"square": square_choices},
        ),
        MoveCommand(
            "dragon",
            "Carry out a summoned Great Dragon's action (expansion)",
            dragon,
            help={"action": "D<size> <action> <squares>, e.g. D2 rotate C4 (lists your legal actions as you type)"},
            autocomplete={"action": action_choices},
        ),
    ),
    rules=RULES,
    lesson=LESSON,
)
