"""Hong in the bot: options, words and the ``/hong challenge``, ``/hong place`` and ``/hong dragon`` commands."""
from __future__ import annotations

import random
import re
from typing import Literal

import discord
from discord import app_commands

import engine.hong as hong
from engine import IllegalMove
from render.hong import render_board

from ..kinds import GameKind
from ..table import LEVEL, LEVEL_HELP, OPPONENT_HELP, choices

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
    pending = getattr(game, "pending", None)
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
    outcome = game.outcome
    return f"{outcome.describe()} — {names[outcome.winner]} wins."


def describe_options(options: dict) -> str:
    board = options["board"]
    lair = ", with the Lair of the Seven Great Dragons" if options.get("expansion") else ""
    return f"{board} board{lair}; the emperor moves first"


def placement(square: str, rotate: bool = False) -> str:
    """``/hong place`` options → a placement (``"B3V"``). A square typed with its orientation (``B3V``, as the
    bot's own posts show moves) is understood too.

    Raises:
        IllegalMove: the orientation typed in ``square`` contradicts ``rotate``.
    """
    text = "".join(square.split()).upper()
    orientation = "V" if rotate else "H"
    if len(text) >= 3 and text[-1] in "HV" and text[-2].isdigit():
        if rotate and text[-1] == "H":
            raise IllegalMove(f"`{square.strip()}` says H but `rotate:True` says V: give one of them.")
        text, orientation = text[:-1], text[-1]
    if not re.fullmatch(r"[A-Z][0-9]{1,2}", text):
        raise IllegalMove(f"'{square.strip()}' is not a square: give a column letter and a row number, like C4.")
    return text + orientation


def register(group: app_commands.Group, table) -> None:
    """Add ``challenge``, ``place`` and ``dragon`` to ``/hong``."""

    @group.command(name="challenge", description="Challenge someone to a game of Hong in this channel")
    @app_commands.describe(
        opponent=OPPONENT_HELP,
        board="castle (default, 15 Hongs to win), garden (13) or inner (11)",
        role="Your role: emperor (moves first, wants few Hongs), dragon_master (wants many), or random",
        expansion="Play with the Lair of the Seven Great Dragons",
        level=LEVEL_HELP,
    )
    async def challenge(
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        board: BOARD = "castle",
        role: ROLE = "random",
        expansion: bool = False,
        level: LEVEL | None = None,
    ) -> None:
        options = {"board": board, "role": role, "expansion": expansion}
        await table.guarded(interaction, table.challenge(interaction, HONG, opponent, options, level))

    @group.command(name="place", description="Place a tile on an empty space (H: body across, V: rotated)")
    @app_commands.describe(square="An empty space, e.g. B3", rotate="True: turn the tile to V (body up–down)")
    async def place(interaction: discord.Interaction, square: app_commands.Range[str, 1, 10], rotate: bool = False) -> None:
        async def work():
            await table.play(interaction, HONG, placement(square, rotate))

        await table.guarded(interaction, work())

    @place.autocomplete("square")
    async def square_choices(interaction: discord.Interaction, current: str):
        game = await table.legal_for_caller(interaction, HONG)
        if game is None or getattr(game, "pending", None):
            return []
        return choices(game.empty_squares(), current)

    @group.command(name="dragon", description="Carry out a summoned Great Dragon's action (expansion)")
    @app_commands.describe(action="e.g. D2 rotate C4, D5 place C4V, D6 swap C4 D5 V")
    async def dragon(interaction: discord.Interaction, action: app_commands.Range[str, 1, 60]) -> None:
        await table.guarded(interaction, table.play(interaction, HONG, action))

    @dragon.autocomplete("action")
    async def action_choices(interaction: discord.Interaction, current: str):
        game = await table.legal_for_caller(interaction, HONG)
        if game is None or not getattr(game, "pending", None):
            return []
        typed = " ".join((current or "").lower().split())
        moves = [m for m in game.legal_moves() if typed in m.lower()]
        return [app_commands.Choice(name=m, value=m) for m in moves[:25]]


HONG = GameKind(
    name="hong",
    title="Hong",
    engine=hong,
    render=render_board,
    roles=hong.ROLE_NAMES,
    seat_options=seat_options,
    score=score,
    result=result,
    describe_options=describe_options,
    rematch=rematch,
    register=register,
)
