"""Hong Kong in the bot: options, words and the ``/hongkong challenge`` and ``/hongkong place`` commands."""
from __future__ import annotations

import random
from typing import Literal

import discord
from discord import app_commands

import engine.hongkong as hk
from render.common import PLAYER_COLOUR_NAMES
from render.hongkong import render_board

from ..kinds import GameKind
from ..table import LEVEL, LEVEL_HELP, OPPONENT_HELP, choices

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
    b0, b1 = game.buildings()
    return f"Buildings: {names[0]} {b0} – {names[1]} {b1}"


def result(game: hk.HongKongGame, names: tuple[str, str]) -> str:
    """E.g. "Ann wins 13–12 (board full)." / "12–12: Ben wins on the centre C3." / "Draw, 11–11"."""
    outcome = game.outcome
    b0, b1 = outcome.buildings
    how = outcome.termination
    if outcome.winner is None:
        return f"Draw: {names[0]} {b0} – {names[1]} {b1} buildings, centre C3 empty ({how})."
    w = outcome.winner
    if outcome.centre_decided:
        return f"{names[w]} wins on the centre C3: {b0}–{b1} buildings ({how})."
    return f"{names[w]} wins {max(b0, b1)}–{min(b0, b1)} in buildings ({how})."


def describe_options(options: dict) -> str:
    return f"challenger plays {PLAYER_COLOUR_NAMES[0]}, opponent {PLAYER_COLOUR_NAMES[1]}"


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


def register(group: app_commands.Group, table) -> None:
    """Add ``challenge`` and ``place`` to ``/hongkong``."""

    @group.command(name="challenge", description="Challenge someone to a game of Hong Kong in this channel")
    @app_commands.describe(
        opponent=OPPONENT_HELP,
        first="Who moves first (default: you)",
        level=LEVEL_HELP,
    )
    async def challenge(
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        first: FIRST = "me",
        level: LEVEL | None = None,
    ) -> None:
        await table.guarded(interaction, table.challenge(interaction, HONGKONG, opponent, {"first": first}, level))

    @group.command(name="place", description="Place a block or roof (optionally after a quick block)")
    @app_commands.describe(
        square="Where the block or roof goes, A1–E5 (columns A–E, rows 1–5)",
        piece="block (default) or roof",
        quick="Put a quick block on this square first, then the piece on `square`",
    )
    async def place(
        interaction: discord.Interaction,
        square: app_commands.Range[str, 1, 10],
        piece: Literal["block", "roof"] = "block",
        quick: app_commands.Range[str, 1, 10] | None = None,
    ) -> None:
        async def work():
            await table.play(interaction, HONGKONG, notation(square, piece, quick))

        await table.guarded(interaction, work())

    @place.autocomplete("square")
    async def square_choices(interaction: discord.Interaction, current: str):
        game = await table.legal_for_caller(interaction, HONGKONG)
        if game is None:
            return []
        ns = interaction.namespace
        kind = "R" if getattr(ns, "piece", None) == "roof" else "S"
        return choices(game.legal_squares(kind, getattr(ns, "quick", None) or None), current)

    @place.autocomplete("quick")
    async def quick_choices(interaction: discord.Interaction, current: str):
        game = await table.legal_for_caller(interaction, HONGKONG)
        if game is None:
            return []
        return choices(game.legal_squares("Q"), current)


HONGKONG = GameKind(
    name="hongkong",
    title="Hong Kong",
    engine=hk,
    render=render_board,
    roles=PLAYER_COLOUR_NAMES,
    seat_options=seat_options,
    score=score,
    result=result,
    describe_options=describe_options,
    rematch=rematch,
    register=register,
)
