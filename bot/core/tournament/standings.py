"""Standings and tie-breaks (RULES.md, "Standings"): points, then — Swiss — Buchholz, Sonneborn-Berger, direct
encounter; — round robin — direct encounter, Sonneborn-Berger, Buchholz; then the pairing number.

Pure. Values are exact (:class:`fractions.Fraction`, in points: a win 1, a draw ½).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from .event import Format, Tournament

#: The tie-breaks in order, by format (names as in :class:`Row`).
ORDER = {
    Format.SWISS: ("buchholz", "sonneborn_berger", "direct"),
    Format.ROUND_ROBIN: ("direct", "sonneborn_berger", "buchholz"),
    Format.DOUBLE_ROUND_ROBIN: ("direct", "sonneborn_berger", "buchholz"),
}


@dataclass(frozen=True)
class Row:
    """One line of the standings: ``place`` (1-based; tied rows share it), the player, their points and
    tie-breaks, games won/drawn/lost (played games only), and ``withdrawn``."""

    place: int
    id: int
    name: str
    seed: int
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    direct: Fraction
    wins: int
    draws: int
    losses: int
    withdrawn: bool


def _half(value: int) -> Fraction:
    return Fraction(value, 2)


def standings(t: Tournament, after: int | None = None) -> list[Row]:
    """Every entrant ranked (RULES.md): boards still being played count nothing yet; with ``after``, only rounds
    1..``after`` count (the standings "after round N", posted when round N+1 — and its bye — is already paired).

    Buchholz: the sum of the points of the opponents met in played games. Sonneborn-Berger: the points of the
    opponents beaten plus half the points of those drawn with (played games). Direct encounter: among the players
    still tied when it applies, the points each scored in the played games between them — applied only when every
    two of them met.
    """
    if after is not None:
        t = t.replace(boards=t.boards[: max(after, 0)])
    scores = t.scores()
    points = {e.id: _half(scores.get(e.id, 0)) for e in t.entrants}
    buchholz: dict[int, Fraction] = {e.id: Fraction(0) for e in t.entrants}
    sb: dict[int, Fraction] = {e.id: Fraction(0) for e in t.entrants}
    record = {e.id: [0, 0, 0] for e in t.entrants}
    games: list[tuple[int, int, int]] = []  # (first, second, half points of first) for played games
    for boards in t.boards:
        for b in boards:
            if not b.played or b.second is None:
                continue
            games.append((b.first, b.second, b.points(b.first)))
            for me, other in ((b.first, b.second), (b.second, b.first)):
                mine = b.points(me)
                buchholz[me] += points[other]
                sb[me] += points[other] * Fraction(mine, 2)
                record[me][{2: 0, 1: 1, 0: 2}[mine]] += 1
    keys: dict[str, Callable[[int, list[int]], Fraction]] = {
        "buchholz": lambda p, group: buchholz[p],
        "sonneborn_berger": lambda p, group: sb[p],
        "direct": lambda p, group: direct.setdefault(p, _direct(p, group, games)),
    }
    direct: dict[int, Fraction] = {}  # a player's direct encounter, among those tied with them when it applied
    groups = [sorted((e.id for e in t.entrants), key=lambda p: -points[p])]
    groups = _split(groups, lambda p, group: points[p])
    for name in ORDER[t.format]:
        groups = _split(groups, keys[name])
    seeds = {e.id: e for e in t.entrants}
    rows: list[Row] = []
    for group in groups:
        place = len(rows) + 1
        for p in sorted(group, key=lambda p: seeds[p].seed):
            e = seeds[p]
            rows.append(
                Row(
                    place=place,
                    id=p,
                    name=e.name,
                    seed=e.seed,
                    points=points[p],
                    buchholz=buchholz[p],
                    sonneborn_berger=sb[p],
                    direct=direct.get(p, Fraction(0)),
                    wins=record[p][0],
                    draws=record[p][1],
                    losses=record[p][2],
                    withdrawn=e.withdrawn is not None,
                )
            )
    return rows


def podium(rows: list[Row]) -> list[tuple[int, Row]]:
    """The podium (RULES.md, "Podium"): ``(medal place 1–3, row)`` for the players who did not withdraw, in order.
    A withdrawn player takes no place: everyone below moves up. Tied players share a medal place (the place is 1 +
    the count of podium-eligible players ranked strictly above)."""
    out: list[tuple[int, Row]] = []
    eligible = [r for r in rows if not r.withdrawn]
    for row in eligible:
        place = 1 + sum(1 for other in eligible if other.place < row.place)
        if place > 3:
            break
        out.append((place, row))
    return out


def _split(groups: list[list[int]], key: Callable[[int, list[int]], Fraction]) -> list[list[int]]:
    """Each tied group split by ``key`` (higher first), in order."""
    out: list[list[int]] = []
    for group in groups:
        if len(group) == 1:
            out.append(group)
            continue
        values = {p: key(p, group) for p in group}
        for value in sorted(set(values.values()), reverse=True):
            out.append([p for p in group if values[p] == value])
    return out


def _direct(player: int, group: list[int], games: list[tuple[int, int, int]]) -> Fraction:
    """``player``'s points in the played games among ``group``, if every two of the group met; else 0 for all."""
    if len(group) < 2:
        return Fraction(0)
    members = set(group)
    met = {frozenset((a, b)) for a, b, _ in games if a in members and b in members}
    if len(met) < len(members) * (len(members) - 1) // 2:
        return Fraction(0)
    total = 0
    for a, b, first_points in games:
        if a == player and b in members:
            total += first_points
        elif b == player and a in members:
            total += 2 - first_points
    return _half(total)


def shown(value: Fraction) -> str:
    """Points as a player reads them: ``2``, ``2½``, ``½``; a quarter (Sonneborn-Berger) as ``1¼``, ``¾``."""
    whole, part = divmod(value, 1)
    mark = {Fraction(0): "", Fraction(1, 2): "½", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}.get(part)
    if mark is None:
        return f"{float(value):g}"
    if whole == 0 and mark:
        return mark
    return f"{int(whole)}{mark}"


__all__ = ["ORDER", "Row", "standings", "podium", "shown"]
