"""How a game ended, for everything downstream of the engines: the stored record, the renderers, the text record.

The engines know only results reached by play (a full board, the pieces used, the Hong count). A hosted game can
also end off the board: a resignation, a player running out of time, an administrator's abort. :class:`EndReason`
names all four; :class:`Ended` is what the renderers are given for the three that are not on the board.
Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine import N_, Term


class EndReason(str, Enum):
    """Why a game ended. The value is what records store (``"finished"`` …)."""

    FINISHED = "finished"  #: by play: the engine's own result (board full, pieces used, Hong count)
    RESIGNED = "resigned"  #: the loser resigned
    TIMEOUT = "timeout"  #: the loser ran out of time on the turn timer
    ABORTED = "aborted"  #: an administrator ended it: no result, unrated

    @property
    def off_board(self) -> bool:
        """True for every reason but :attr:`FINISHED`."""
        return self is not EndReason.FINISHED


@dataclass(frozen=True)
class Ended:
    """A game that ended off the board, for the renderers to show instead of "… to move".

    The bot passes an ``Ended`` with the final position so its image shows the result and not a turn nobody
    will play.

    Attributes:
        winner: the winning seat (0 or 1), or None for an aborted game (no result).
        reason: :attr:`EndReason.RESIGNED` (the other seat resigned), :attr:`EndReason.TIMEOUT` (the other seat
            ran out of time) or :attr:`EndReason.ABORTED`; the plain strings are accepted too.
    """

    winner: int | None
    reason: EndReason

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", EndReason(self.reason))

    def why(self, names: tuple[str, str]) -> Term:
        """What ended the game, in a few words: ``"Ann resigned"``, ``"Ann ran out of time"``, ``"aborted"`` (a
        :class:`engine.Term`: English, translatable)."""
        if self.winner is None:
            return N_("aborted")
        loser = names[1 - self.winner]
        if self.reason is EndReason.RESIGNED:
            return N_("{name} resigned", name=loser)
        return N_("{name} ran out of time", name=loser)

    @property
    def short(self) -> Term:
        """A tag for a corner of the image: ``"by resignation"``, ``"on time"`` or ``"aborted"`` (a
        :class:`engine.Term`)."""
        if self.reason is EndReason.RESIGNED:
            return N_("by resignation")
        return N_("on time") if self.reason is EndReason.TIMEOUT else N_("aborted")


__all__ = ["EndReason", "Ended"]
