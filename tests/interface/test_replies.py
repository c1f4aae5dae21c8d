"""The one error path: which errors are the user's to fix (an ephemeral refusal with their message) and which are
ours (an apology, and a log line)."""

from __future__ import annotations

import discord
import pytest
import redis.exceptions
from discord import app_commands

from bot.core.errors import GameChanged, UserError
from bot.interface.replies import apology, refusal
from engine import IllegalMove


def _command() -> app_commands.Command:
    async def callback(interaction: discord.Interaction) -> None:
        pass

    return app_commands.Command(name="x", description="x", callback=callback)


def test_user_errors_and_illegal_moves_are_refused_with_their_message_even_when_wrapped():
    for error in (UserError("Not your turn."), GameChanged("Look again."), IllegalMove("B9 is off the board.")):
        assert refusal(error) == str(error)
        assert refusal(app_commands.CommandInvokeError(_command(), error)) == str(error)


def test_checks_keep_their_text_and_anything_else_is_ours():
    assert refusal(app_commands.CheckFailure("Servers only.")) == "Servers only."
    assert refusal(app_commands.CheckFailure()) == "You can't use this command here."
    assert refusal(RuntimeError("boom")) is None
    assert refusal(app_commands.CommandInvokeError(_command(), KeyError("players"))) is None


def test_the_apology_names_every_game_board_command():
    assert apology(["hongkong", "hong"]) == (
        "Something went wrong on our side. Please try again; `/hongkong board` or `/hong board` shows the game "
        "as it is stored."
    )


@pytest.mark.parametrize(
    "error",
    [
        redis.exceptions.ConnectionError("refused"),
        redis.exceptions.TimeoutError("slow"),
        redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"),
        redis.exceptions.TryAgainError("TRYAGAIN"),
        redis.exceptions.ClusterError("TTL exhausted."),
        redis.exceptions.SlotNotCoveredError("slot 5 not covered"),
    ],
)
def test_an_unreachable_store_or_a_cluster_failing_over_says_the_move_may_be_saved(error):
    wrapped = app_commands.CommandInvokeError(_command(), error)
    assert apology(["hongkong"], wrapped).startswith("I couldn't reach the game store just now. If your move was saved")
    assert apology(["hongkong"], redis.exceptions.ResponseError("WRONGTYPE")).startswith("Something went wrong")
