"""Hong in the bot: its words, and the options of ``/hong challenge``, ``/hong place`` and ``/hong dragon``.

:data:`KIND` is what :func:`bot.games.all_kinds` finds; the play feature builds the ``/hong`` commands from it.
"""
from __future__ import annotations

import random
from typing import Literal

from discord import app_commands

import engine.hong as hong
from engine import IllegalMove, squares
from render.hong import render_board

from ..kinds import GameKind, MoveCommand

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
    """"Hongs 9 / 15", plus what a pending summon offers."""
    line = f"Hongs {game.hong_count()} / {game.threshold} ({game.board.name}, {len(game.empty_squares())} spaces left)"
    pending = game.pending
    if pending:
        who = names[pending.player]
        legal = game.legal_moves()
        offers = []
        for size, action in sorted(pending.options.items()):
            example = next((m for m in legal if m.startswith(f"D{size} ")), "")
            offers.append(f"**D{size} {action}** — {action_help(action)} e.g. `{example}`")
        line += f"\n🐉 {who} summons a Great Dragon — choose one with `/hong dragon`: " + "; ".join(offers)
    return line


def action_help(action: str) -> str:
    """The engine's explanation of a dragon's action without its fixed-size example (the bot gives a real one)."""
    return hong.ACTION_HELP[action].split(" Example:")[0]


def result(game: hong.HongGame, names: tuple[str, str]) -> str:
    """The outcome in words and who wins, e.g. "… — Ann wins."."""
    outcome = game.outcome
    return f"{outcome.describe()} — {names[outcome.winner]} wins."


def describe_options(options: dict) -> str:
    """The engine options in words for the challenge message: the board, and the Lair if played with."""
    board = options["board"]
    lair = ", with the Lair of the Seven Great Dragons" if options.get("expansion") else ""
    return f"{board} board{lair}; the emperor moves first"


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
            raise IllegalMove(f"`{square.strip()}` says H but `rotate:True` says V: give one of them.")
        square, orientation = text[:-1], text[-1]
    return squares.square_name(*squares.parse(square, example="C4")) + orientation


def challenge(board: BOARD = "castle", role: ROLE = "random", expansion: bool = False) -> dict:
    """``/hong challenge``'s own options → the challenge options."""
    return {"board": board, "role": role, "expansion": expansion}


def place(square: app_commands.Range[str, 1, 10], rotate: bool = False) -> str:
    """``/hong place``'s options → the placement (see :func:`placement`)."""
    return placement(square, rotate)


def dragon(action: app_commands.Range[str, 1, 60]) -> str:
    """``/hong dragon``'s option → the dragon action, as typed (the engine reads it)."""
    return action


def square_choices(game: hong.HongGame, options) -> list[str]:
    """The empty spaces, unless a summoned dragon's action must come first."""
    return [] if game.pending else game.empty_squares()


def action_choices(game: hong.HongGame, options) -> list[str]:
    """The summoned dragon's legal actions (none without a summon)."""
    return game.legal_moves() if game.pending else []


KIND = HONG = GameKind.from_module(
    __name__,
    name="hong",
    title="Hong",
    engine=hong,
    render=render_board,
    roles=hong.ROLE_NAMES,
    record_by_role=True,
    challenge_help={
        "board": "castle (default, 15 Hongs to win), garden (13) or inner (11)",
        "role": "Your role: emperor (moves first, wants few Hongs), dragon_master (wants many), or random",
        "expansion": "Play with the Lair of the Seven Great Dragons",
    },
    moves=(
        MoveCommand(
            "place", "Place a tile on an empty space (H: body across, V: rotated)", place,
            help={"square": "An empty space, e.g. B3", "rotate": "True: turn the tile to V (body up–down)"},
            autocomplete={"square": square_choices},
        ),
        MoveCommand(
            "dragon", "Carry out a summoned Great Dragon's action (expansion)", dragon,
            help={"action": "D<size> <action> <squares>, e.g. D2 rotate C4 (lists your legal actions as you type)"},
            autocomplete={"action": action_choices},
        ),
    ),
)
