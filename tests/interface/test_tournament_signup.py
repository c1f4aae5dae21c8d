"""The sign-up post's options in words (bot/exts/tournament/_signup.py)."""

from __future__ import annotations

import random

from bot.core.tournament.event import Format, Tournament
from bot.exts.tournament._signup import options_text
from bot.games.hong import HONG


def test_a_hong_sign_up_puts_the_turn_timer_on_its_own_line():
    # Hong's options end "… castle board" (no full stop): run together they read "castle board Turn timer: …".
    t = Tournament("t", 1, 2, 3, "hong", Format.SWISS, 3, options={"board": "castle"}, turn_timer=3600.0)
    lines = options_text(HONG, t).split("\n")
    assert lines[-1] == "Turn timer: 1 hour."
    assert lines[0] == HONG.describe_options(HONG.seat_options(t.options, random.Random(0))[1])
