"""Erasing a player from a finished game's record (``/privacy forget``), keeping the game whole.

:meth:`bot.core.record.Record.forgetting` replaces the player's id and name with "a former player"
(:data:`~bot.core.record.FORMER_ID`, :data:`~bot.core.record.FORMER_NAME`); the result's stored words named them, so
:func:`forget` writes them again (in English, as every result is stored) from the forgotten record. The moves, options
and result stay: the game still loads, replays and shows in the other player's history.
"""

from __future__ import annotations

import dataclasses

from engine.result import EndReason

from .. import i18n
from ..i18n.names import escape
from .kinds import GameKind
from .record import FORMER_NAME, Record
from .session import result_text


def forget(kind: GameKind, record: Record, user_id: int) -> Record:
    """``record`` (a finished game of ``kind``) with ``user_id`` erased everywhere in it, its result's words rewritten.

    A record that does not involve ``user_id`` comes back unchanged. The words of an ending the bot can't word again
    (an abort by no one, e.g. a game the bot could no longer reach) are kept, the player's name replaced in them.

    A record whose game state no longer restores keeps its stored words too, the name replaced: forgetting is
    never stuck on one damaged record.
    """
    if not record.involves(user_id):
        return record
    names = {p.name for p in (*record.players, record.aborted_by) if p is not None and p.id == user_id and not p.bot}
    forgotten = record.forgetting(user_id)
    if forgotten.result is None:
        return forgotten
    worded_again = True
    with i18n.language(i18n.SOURCE):
        try:
            text = result_text(kind, forgotten)
        except Exception:  # a state that no longer restores: the stored words, the name replaced (never stuck here)
            text, worded_again = forgotten.result.text, False
    if not worded_again or (forgotten.result.reason is EndReason.ABORTED and forgotten.aborted_by is None):
        for name in sorted(filter(None, names), key=len, reverse=True):  # the longest first: no name inside another
            text = text.replace(escape(name), FORMER_NAME).replace(name, FORMER_NAME)
    return forgotten.replace(result=dataclasses.replace(forgotten.result, text=text))


__all__ = ["forget"]
