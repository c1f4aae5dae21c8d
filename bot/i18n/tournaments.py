"""What a tournament is called and how its standings' columns are named, in the current language — for the Discord
posts (:mod:`bot.exts.tournament._words`, which adds markdown) and the web companion's tournament page alike."""

from __future__ import annotations

from ..core.kinds import GameKind
from ..core.record import FORMER_NAME
from ..core.tournament.event import Format, Tournament
from ..core.tournament.standings import ORDER, Row, shown
from . import _


def plain_title(t: Tournament, kind: GameKind) -> str:
    """The tournament's name as plain text: its own, or "Hong Kong Swiss #abc123"."""
    if t.name:
        return t.name
    if t.format is Format.SWISS:
        # TRANSLATORS: a tournament's name when it has none; {game} is "Hong Kong" or "Hong", {id} its short id.
        return _("{game} Swiss #{id}", game=kind.title, id=t.id)
    if t.format is Format.DOUBLE_ROUND_ROBIN:
        # TRANSLATORS: a tournament's name when it has none (everyone plays everyone twice); {game} is "Hong Kong" or
        # "Hong", {id} its short id.
        return _("{game} double round robin #{id}", game=kind.title, id=t.id)
    # TRANSLATORS: a tournament's name when it has none; {game} is "Hong Kong" or "Hong", {id} its short id.
    return _("{game} round robin #{id}", game=kind.title, id=t.id)


def player_name(user_id: int, name: str) -> str:
    """An entrant's plain name: "a former player" (translated) for one erased by ``/privacy forget``."""
    return _(FORMER_NAME) if user_id < 0 else name


def tie_break_names(fmt: Format) -> list[str]:
    """The tie-breaks' short names in their order (column headings)."""
    names = {"buchholz": _("Buchholz"), "sonneborn_berger": _("SB"), "direct": _("DE")}
    return [names[key] for key in ORDER[fmt]]


def tie_break_values(fmt: Format, row: Row) -> tuple[str, ...]:
    """A row's tie-breaks in their order, as shown (``2½``)."""
    return tuple(shown(getattr(row, key)) for key in ORDER[fmt])


__all__ = ["plain_title", "player_name", "tie_break_names", "tie_break_values"]
