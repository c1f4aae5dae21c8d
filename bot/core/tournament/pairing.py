"""Pairing a round: round robin by Berger tables, Swiss by the Dutch system's principles (the rules we follow, with
every ruling: ``RULES.md`` beside this module).

Pure: plain data in, boards out; no Discord, no Redis. Points are counted in *half points* (a win 2, a draw 1) so
that every sum stays an integer. A "colour" is an engine seat: 0 (Hong Kong: moves first; Hong: the emperor) or 1.
The hard part of the Swiss — choosing the best set of pairs — is networkx's maximum-weight matching (Edmonds' blossom
algorithm), with the rules' priorities encoded as integer weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

#: Half points of a win, a draw, a loss; and of a bye in the Swiss (a win's).
WIN, DRAW, LOSS = 2, 1, 0
#: Up to this many players the Swiss round is one exact matching over every allowed pair; above it, the Dutch
#: procedure bracket by bracket (score group plus floaters) with brackets cut into slices (see RULES.md).
EXACT_LIMIT = 64
#: A bracket above this size is paired in slices of S1/S2 (:data:`SLICE` from each half).
SLICE = 12


class NoPairing(Exception):
    """No legal pairing exists for the round (every remaining pair has met, or nobody may take the bye): the
    tournament ends early (RULES.md, "When no pairing exists")."""


@dataclass(frozen=True)
class History:
    """What the pairing needs of one active player.

    Attributes:
        id: the player's id.
        seed: the pairing number (1 = strongest at the start: rating, then sign-up order); lower ranks first among
            equal scores.
        score: half points so far (byes and forfeit wins included).
        colours: the seat (0/1) of each *played* game, oldest first (byes and forfeits are not games).
        opponents: everyone this player has had a board with (played or forfeited): never paired again.
        had_bye: the player has had the Swiss bye (never a second one).
        floated: how they were paired in the previous round: -1 down (against fewer points, or the bye), +1 up
            (against more), 0 neither.
    """

    id: int
    seed: int
    score: int = 0
    colours: tuple[int, ...] = ()
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False
    floated: int = 0

    @property
    def difference(self) -> int:
        """Games with seat 0 minus games with seat 1."""
        return self.colours.count(0) - self.colours.count(1)

    def preference(self) -> tuple[int | None, int]:
        """The colour this player should get next and how strongly: ``(colour, strength)`` with strength 3 absolute
        (difference beyond ±1, or the last two games in one colour), 2 strong (difference ±1), 1 mild (level: the
        other colour than last time), 0 none (no game yet: colour None)."""
        if not self.colours:
            return None, 0
        d = self.difference
        last = self.colours[-1]
        if d > 1 or (len(self.colours) >= 2 and self.colours[-2:] == (0, 0)):
            return 1, 3
        if d < -1 or (len(self.colours) >= 2 and self.colours[-2:] == (1, 1)):
            return 0, 3
        if d == 1:
            return 1, 2
        if d == -1:
            return 0, 2
        return 1 - last, 1


@dataclass(frozen=True)
class Pair:
    """A board of the round: ``first`` takes seat 0, ``second`` seat 1; ``second`` None is the bye."""

    first: int
    second: int | None


@dataclass(frozen=True)
class Pairing:
    """A round's pairing: its boards in order (the bye, if any, last), and whether the absolute colour rule had
    to be relaxed to find one (RULES.md, "Colours"); ``bye`` the player given the bye."""

    pairs: tuple[Pair, ...]
    relaxed: bool = False
    bye: int | None = field(default=None)


# --- round robin --------------------------------------------------------------------------------------------------


def berger_rounds(count: int) -> int:
    """How many rounds a single round robin of ``count`` players has: ``count - 1``, or ``count`` if odd."""
    return count - 1 if count % 2 == 0 else count


def berger(count: int, round_no: int) -> list[tuple[int, int | None]]:
    """The Berger table's round ``round_no`` (1-based) for ``count`` players numbered 1..count: ``[(seat 0, seat 1)]``
    by board; with an odd count the player drawn against the dummy gets ``(player, None)`` (sits out), last.

    FIDE Handbook C.05 Annex 1: with n even and m = n − 1, in round r players i, j < n meet when i + j ≡ r + 1
    (mod m), and player n meets the i with 2i ≡ r + 1 (mod m); n has seat 1 in odd rounds, seat 0 in even ones;
    of i and j, seat 0 goes to the one whose (other − self) mod m is odd.

    Raises:
        ValueError: fewer than 2 players or a round out of 1..:func:`berger_rounds`.
    """
    if count < 2:
        raise ValueError("a round robin needs at least 2 players")
    if not 1 <= round_no <= berger_rounds(count):
        raise ValueError(f"round {round_no} is not in 1..{berger_rounds(count)}")
    n = count + count % 2
    m = n - 1
    target = (round_no + 1) % m
    boards: list[tuple[int, int]] = []
    fixed_partner = next(i for i in range(1, n) if (2 * i) % m == target)
    boards.append((n, fixed_partner) if round_no % 2 == 0 else (fixed_partner, n))
    for i in range(1, n):
        for j in range(i + 1, n):
            if (i + j) % m == target:
                boards.append((i, j) if (j - i) % m % 2 == 1 else (j, i))
    out: list[tuple[int, int | None]] = []
    rest: list[tuple[int, int | None]] = []
    for a, b in boards:
        if n != count and n in (a, b):
            rest.append((b if a == n else a, None))
        else:
            out.append((a, b))
    return out + rest


# --- Swiss --------------------------------------------------------------------------------------------------------


def ranked(players: list[History]) -> list[History]:
    """Players in pairing order: more points first, then the lower pairing number."""
    return sorted(players, key=lambda p: (-p.score, p.seed))


def pair_swiss(players: list[History]) -> Pairing:
    """Pair one Swiss round among ``players`` (the active ones: joined, not withdrawn), by RULES.md:

    1. hard: no pair meets twice; nobody gets a second bye; no absolute colour preference refused (relaxed only when
       no pairing exists otherwise: ``Pairing.relaxed``);
    2. the bye (an odd count) goes to the lowest-ranked player who has had none and without whom the rest can be
       paired;
    3. score groups: the least sum of squared score differences over the pairs;
    4. then the fewest players floated the same way as in the previous round (down again, or up again);
    5. then the most colour preferences granted (stronger ones first);
    6. then within a score group the top half against the bottom half (S1 against S2, the Dutch system's fold).

    Returns the boards, best-ranked first, each with its seats assigned (RULES.md, "Colours").

    Raises:
        NoPairing: fewer than 2 players, or no pairing meets the hard rules.
    """
    if len(players) < 2:
        raise NoPairing("fewer than 2 players")
    order = ranked(players)
    rank = {p.id: i for i, p in enumerate(order)}
    for strict in (True, False):
        if len(order) % 2 == 0:
            matched = _pair_all(order, strict)
            if matched is not None:
                return _boards(matched, order, rank, None, relaxed=not strict)
            continue
        for candidate in reversed(order):
            if candidate.had_bye:
                continue
            rest = [p for p in order if p.id != candidate.id]
            matched = _pair_all(rest, strict)
            if matched is not None:
                return _boards(matched, order, rank, candidate.id, relaxed=not strict)
    raise NoPairing("every remaining pairing repeats a game or a bye")


def _pair_all(order: list[History], strict: bool) -> list[tuple[History, History]] | None:
    """A perfect pairing of ``order`` (even, ranked), or None if the hard rules allow none."""
    if len(order) <= EXACT_LIMIT:
        return _match(order, strict)
    return _brackets(order, strict)


def _groups(order: list[History]) -> list[list[History]]:
    """Score groups of a ranked list, highest first."""
    groups: list[list[History]] = []
    for p in order:
        if groups and groups[-1][0].score == p.score:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


def _brackets(order: list[History], strict: bool) -> list[tuple[History, History]] | None:
    """The Dutch procedure for a large field: score groups paired from the top, each with the players floated down
    from above; an odd bracket floats its lowest-ranked player who leaves the rest pairable. If the last bracket can't
    be completed, the lowest brackets are merged (one more at a time) and paired again; last of all, one exact
    matching over the whole field."""
    groups = _groups(order)
    for merged_from in range(len(groups) - 1, 0, -1):
        brackets = groups[:merged_from] + [[p for g in groups[merged_from:] for p in g]]
        pairs: list[tuple[History, History]] = []
        floaters: list[History] = []
        for group in brackets:
            made, floaters = _pair_bracket(floaters + group, strict)
            pairs += made
        if not floaters:
            return pairs
    return _match(order, strict)


#: How many lowest-ranked players of an odd bracket are tried as its floater before a partial matching decides.
FLOAT_TRIES = 4


def _pair_bracket(bracket: list[History], strict: bool) -> tuple[list[tuple[History, History]], list[History]]:
    """Pair one bracket (ranked): ``(pairs, players left over to float down)``."""
    if len(bracket) % 2 == 1:
        for out in list(reversed(bracket))[:FLOAT_TRIES]:
            pairs = _pair_even([p for p in bracket if p is not out], strict)
            if pairs is not None:
                return pairs, [out]
    else:
        pairs = _pair_even(bracket, strict)
        if pairs is not None:
            return pairs, []
    matched = _match(bracket, strict, partial=True) or []
    paired = {p.id for pair in matched for p in pair}
    return matched, [p for p in bracket if p.id not in paired]


def _pair_even(bracket: list[History], strict: bool) -> list[tuple[History, History]] | None:
    """A perfect pairing of an even bracket, or None. Up to 3 × :data:`SLICE` players it is one matching; a larger
    bracket is cut into slices S1[k:k+SLICE] + S2[k:k+SLICE] (the fold pairs S1[i] with S2[i]), a slice that can't be
    completed joined to the next."""
    if len(bracket) <= 3 * SLICE:
        return _match(bracket, strict)
    half = len(bracket) // 2
    s1, s2 = bracket[:half], bracket[half:]
    starts = list(range(0, half, SLICE))
    chunks = [s1[k : k + SLICE] + (s2[k : k + SLICE] if k != starts[-1] else s2[k:]) for k in starts]
    pairs: list[tuple[History, History]] = []
    carry: list[History] = []
    for chunk in chunks:
        members = ranked(carry + chunk)
        matched = _match(members, strict)
        if matched is None:
            carry = members
            continue
        pairs += matched
        carry = []
    return None if carry else pairs


def _match(order: list[History], strict: bool, partial: bool = False) -> list[tuple[History, History]] | None:
    """The best pairing of ``order`` by the rules' priorities 3–6 under the hard rules: a maximum-cardinality,
    maximum-weight matching. None if it leaves anyone out (unless ``partial``: then the pairs it found)."""
    n = len(order)
    if n == 0:
        return []
    folded = _fold(order)
    if folded is not None:
        return folded
    position = {p.id: i for i, p in enumerate(order)}
    group_size: dict[int, int] = {}
    for p in order:
        group_size[p.score] = group_size.get(p.score, 0) + 1
    group_start: dict[int, int] = {}
    for i, p in enumerate(order):
        group_start.setdefault(p.score, i)
    max_d2 = (order[0].score - order[-1].score) ** 2
    fold_unit = n + 1
    colour_unit = fold_unit * (n * n + 1)
    float_unit = colour_unit * (4 * n + 1)
    score_unit = float_unit * (2 * n + 1)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, a in enumerate(order):
        pa, sa = a.preference()
        for j in range(i + 1, n):
            b = order[j]
            if b.id in a.opponents:
                continue
            pb, sb = b.preference()
            clash = pa is not None and pa == pb
            if strict and clash and sa == 3 and sb == 3:
                continue
            colour_good = 3 - (min(sa, sb) if clash else 0)
            d2 = (a.score - b.score) ** 2
            high, low = (a, b) if a.score >= b.score else (b, a)
            float_good = 2 if a.score == b.score else 2 - (high.floated == -1) - (low.floated == 1)
            if a.score == b.score:
                half = group_size[a.score] // 2
                fold = n - abs((position[b.id] - group_start[b.score]) - (position[a.id] - group_start[a.score]) - half)
            else:
                fold = n - abs(position[b.id] - position[a.id])
            weight = (
                (max_d2 - d2 + 1) * score_unit
                + float_good * float_unit
                + colour_good * colour_unit
                + max(fold, 0) * fold_unit
            )
            graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matching) * 2 < n and not partial:
        return None
    return [(order[min(i, j)], order[max(i, j)]) for i, j in matching]


def _fold(order: list[History]) -> list[tuple[History, History]] | None:
    """S1[i] against S2[i] for one even score group when every such pair is new and no two want the same colour:
    then it is the best matching (no score difference nor float, every colour preference granted, the fold exact), found
    without the matching's cost. None otherwise."""
    n = len(order)
    if n % 2 or order[0].score != order[-1].score:
        return None
    half = n // 2
    pairs = list(zip(order[:half], order[half:]))
    for a, b in pairs:
        pa, pb = a.preference()[0], b.preference()[0]
        if b.id in a.opponents or (pa is not None and pa == pb):
            return None
    return pairs


def seats(a: History, b: History, board: int) -> tuple[int, int]:
    """Who takes seat 0 of ``a`` (the higher-ranked) and ``b`` on board ``board`` (1-based): ``(seat 0, seat 1)``.

    Both preferences granted when they differ; else the stronger one; if equal, both alternate from the latest game
    in which they had different seats; else the higher-ranked player's preference. With no game yet for either,
    the higher-ranked player takes seat 0 on odd boards, seat 1 on even ones.
    """
    pa, sa = a.preference()
    pb, sb = b.preference()
    if pa is None and pb is None:
        return (a.id, b.id) if board % 2 == 1 else (b.id, a.id)
    if pa is None or pb is None or pa != pb:
        if pa is not None:
            return (a.id, b.id) if pa == 0 else (b.id, a.id)
        return (b.id, a.id) if pb == 0 else (a.id, b.id)
    if sa != sb:
        winner, colour = (a, pa) if sa > sb else (b, pb)
        other = b if winner is a else a
        return (winner.id, other.id) if colour == 0 else (other.id, winner.id)
    for ca, cb in zip(reversed(a.colours), reversed(b.colours)):
        if ca != cb:  # both take the other seat than then
            return (a.id, b.id) if ca == 1 else (b.id, a.id)
    return (a.id, b.id) if pa == 0 else (b.id, a.id)


def _boards(
    matched: list[tuple[History, History]], order: list[History], rank: dict[int, int], bye: int | None, relaxed: bool
) -> Pairing:
    """The pairs as boards: ordered by their better player's rank (then the other's), seats assigned, the bye
    last."""
    ordered = sorted(
        ((a, b) if rank[a.id] < rank[b.id] else (b, a) for a, b in matched),
        key=lambda pair: (min(rank[pair[0].id], rank[pair[1].id]), rank[pair[1].id]),
    )
    pairs = [Pair(*seats(a, b, board)) for board, (a, b) in enumerate(ordered, start=1)]
    if bye is not None:
        pairs.append(Pair(bye, None))
    return Pairing(tuple(pairs), relaxed=relaxed, bye=bye)


__all__ = [
    "WIN",
    "DRAW",
    "LOSS",
    "NoPairing",
    "History",
    "Pair",
    "Pairing",
    "berger",
    "berger_rounds",
    "ranked",
    "pair_swiss",
    "seats",
]
