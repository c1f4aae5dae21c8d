"""Pairing a round: round robin by Berger tables, Swiss by FIDE's Dutch system (C.04.3, the rules in force since
2017, as its endorsed engine bbpPairings implements them; the rules we follow, with every ruling of our own:
``RULES.md`` beside this module).

Pure: plain data in, boards out; no Discord, no Redis. Points are counted in *half points* (a win 2, a draw 1) so
that every sum stays an integer. A "colour" is an engine seat: 0 (Hong Kong: moves first; Hong: the emperor) or 1.
The hard part of the Swiss — choosing the best set of pairs — is networkx's maximum-weight matching (Edmonds' blossom
algorithm), with the Dutch system's criteria encoded, in their order, as the digits of one integer weight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx

#: Half points of a win, a draw, a loss; and of a bye in the Swiss (a win's).
WIN, DRAW, LOSS = 2, 1, 0
#: Up to this many players the Swiss round is one exact matching over every allowed pair (the bye a vertex of it);
#: above it, the Dutch procedure bracket by bracket (score group plus the players moved down to it), each bracket one
#: exact matching (see RULES.md).
EXACT_LIMIT = 100
#: A bracket of more players than this is paired in chunks, each the i-th slice of its top half (S1) with the i-th
#: slice of its bottom half (S2), :data:`CHUNK` players from each; then pairs are exchanged across chunks wherever
#: that grants more colour preferences.
BRACKET_LIMIT = 48
CHUNK = 12
#: A bracket and the next score group are matched together while they hold at most this many players.
JOINT_LIMIT = 40
#: How many of the next score group's top players a downfloater's cost looks at (its likely opponents there).
LOOKAHEAD = 16


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
        had_bye: the player has had the Swiss bye or won a board by forfeit (then never the bye: C.04.3 C.2).
        floated: how they were paired in the previous round: -1 down (against fewer points, or the bye), +1 up
            (against more), 0 neither.
        floated_before: the same for the round before that.
    """

    id: int
    seed: int
    score: int = 0
    colours: tuple[int, ...] = ()
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False
    floated: int = 0
    floated_before: int = 0

    @property
    def difference(self) -> int:
        """Games with seat 0 minus games with seat 1."""
        return self.colours.count(0) - self.colours.count(1)

    def preference(self) -> tuple[int | None, int]:
        """The colour this player should get next and how strongly (FIDE C.04.3 A.6): ``(colour, strength)`` with
        strength 3 absolute (difference beyond ±1, or the last two games in one colour), 2 strong (difference ±1),
        1 mild (level: the other colour than last time), 0 none (no game yet: colour None)."""
        return self._preference

    @cached_property
    def _preference(self) -> tuple[int | None, int]:
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


#: A pair's costs, lowest best, compared in this order (RULES.md, "Swiss"; FIDE C.04.3 C.1–C.19):
#: absolute colour rule broken (only when relaxed), squared score difference, score difference, topscorers' colour
#: difference beyond ±2, topscorers' colour three times running, colour preferences not granted, strong (or
#: absolute) ones not granted, downfloated again, upfloated again, downfloated as two rounds before, upfloated as
#: two rounds before, score difference of those floated again.
Cost = tuple[int, ...]


@dataclass(frozen=True)
class _Rules:
    """What one pairing of a round holds fixed: whether the absolute colour rule is kept (``strict``), whether it
    is the last round (its topscorers may break it: C.04.3 A.7, C.3) and how many rounds were played before it, and
    each player's place in pairing-number order (colour allocation E.5)."""

    strict: bool
    last: bool
    played: int
    number: dict[int, int]

    def topscorer(self, p: History) -> bool:
        """Pairing the last round, a player with over half the points that could be scored so far."""
        return self.last and p.score * 2 > self.played * WIN

    def compatible(self, a: History, b: History) -> bool:
        """Whether ``a`` and ``b`` may meet: not met before and, kept strict, not both with an absolute preference
        for the same colour unless one is a topscorer of the last round."""
        if b.id in a.opponents:
            return False
        if not self.strict:
            return True
        pa, sa = a.preference()
        pb, sb = b.preference()
        return not (sa == 3 and sb == 3 and pa == pb) or self.topscorer(a) or self.topscorer(b)

    def seat_of_higher(self, a: History, b: History) -> int:
        """The seat of ``a`` (the higher-ranked) against ``b``, by FIDE's colour allocation (C.04.3 E)."""
        pa, sa = a.preference()
        pb, sb = b.preference()
        if pa is None and pb is None:  # E.5: an odd pairing number takes seat 0
            return self.number.get(a.id, 0) % 2
        if pa is None:
            return 1 - pb  # type: ignore[operator]
        if pb is None or pa != pb:  # E.1: both preferences granted
            return pa
        if sa != sb:  # E.2: the stronger preference
            return pa if sa > sb else 1 - pa
        if sa == 3 and abs(a.difference) != abs(b.difference):  # E.2: both absolute, the wider difference
            return pa if abs(a.difference) > abs(b.difference) else 1 - pa
        for ca, cb in zip(reversed(a.colours), reversed(b.colours)):  # E.3: alternate from the last difference
            if ca != cb:
                return 1 - ca
        return pa  # E.4: the higher-ranked player's preference

    def cost(self, a: History, b: History) -> Cost:
        """The costs of pairing ``a`` with ``b`` (either order), seats given by :meth:`seat_of_higher`."""
        if (b.score, -b.seed) > (a.score, -a.seed):
            a, b = b, a
        seat = self.seat_of_higher(a, b)
        hard = wide = run = unmet = strong = 0
        exempt = self.topscorer(a) or self.topscorer(b)
        for p, s in ((a, seat), (b, 1 - seat)):
            want, strength = p.preference()
            if want is None or want == s:
                continue
            unmet += 1
            strong += strength >= 2
            if strength == 3:
                colours = p.colours + (s,)
                breaks_wide = abs(colours.count(0) - colours.count(1)) > 2
                breaks_run = len(colours) >= 3 and colours[-1] == colours[-2] == colours[-3]
                if exempt:
                    wide += breaks_wide
                    run += breaks_run
                else:
                    hard += 1
        d = a.score - b.score
        down, up = (a.floated == -1, b.floated == 1) if d else (False, False)
        down2, up2 = (a.floated_before == -1, b.floated_before == 1) if d else (False, False)
        return (hard, d * d, d, wide, run, unmet, strong, down, up, down2, up2, d * (down + up))

    def float_cost(self, p: History, below: int) -> Cost:
        """The costs of ``p`` leaving its bracket for one scoring ``below`` (the bye: an artificial score a win
        below the lowest, as the Dutch system measures a bye's score difference): a downfloat."""
        d = p.score - below
        down, down2 = p.floated == -1, p.floated_before == -1
        return (0, d * d, d, 0, 0, 0, 0, down, 0, down2, 0, d * down)


def pair_swiss(players: list[History], *, played: int = 0, last: bool = False) -> Pairing:
    """Pair one Swiss round among ``players`` (the active ones: joined, not withdrawn) by FIDE's Dutch system as
    RULES.md words it (``played``: rounds before this one; ``last``: this is the event's last round, whose
    topscorers may break the colour rule):

    1. absolute: no pair meets twice; nobody gets the bye after a bye or a forfeit win (``had_bye``); no two
       non-topscorers with an absolute preference for the same colour meet (relaxed only when no pairing exists
       otherwise: ``Pairing.relaxed``);
    2. score groups: the least sum of squared score differences (the bye counted as a game against a win less than
       the lowest score), then the least sum of differences;
    3. the last round's topscorers: fewest colour differences beyond ±2, then fewest colours three times running;
    4. colours: the most preferences granted, then the most strong ones;
    5. floats: fewest players floated down again, then up again, then as two rounds before, then the least score
       difference of those;
    6. order: the bye and downfloats to the lowest-ranked, each score group's top half against its bottom half.

    Up to :data:`EXACT_LIMIT` players this is one exact matching over the whole field; above it, bracket by
    bracket from the top (RULES.md). Returns the boards, best-ranked first, each with its seats assigned by FIDE's
    colour allocation (RULES.md, "Colours").

    Raises:
        NoPairing: fewer than 2 players, or no pairing meets the hard rules.
    """
    if len(players) < 2:
        raise NoPairing("fewer than 2 players")
    order = ranked(players)
    if len(order) % 2 and all(p.had_bye for p in order):
        raise NoPairing("everyone has had the bye")
    number = {p.id: i for i, p in enumerate(sorted(players, key=lambda p: p.seed))}
    for strict in (True, False):
        rules = _Rules(strict, last, played, number)
        found = _whole(order, rules) if len(order) <= EXACT_LIMIT else _descend(order, rules)
        if found is not None:
            pairs, bye = found
            return _boards(pairs, order, bye, rules)
    raise NoPairing("every remaining pairing repeats a game or a bye")


Pairs = list[tuple[History, History]]


def _whole(order: list[History], rules: _Rules) -> tuple[Pairs, History | None] | None:
    """The whole field as one exact matching, the bye one of its vertices."""
    slots = [_bye_slot(order, rules)] if len(order) % 2 else []
    found = _solve(order, slots, rules)
    if found is None:
        return None
    pairs, placed = found
    return pairs, (placed[0] if placed else None)


def _bye_slot(members: list[History], rules: _Rules) -> dict[int, Cost]:
    """The bye as a vertex: each eligible member's cost of taking it."""
    below = members[-1].score - WIN
    return {p.id: rules.float_cost(p, below) for p in members if not p.had_bye}


def _groups(order: list[History]) -> list[list[History]]:
    """Score groups of a ranked list, highest first."""
    groups: list[list[History]] = []
    for p in order:
        if groups and groups[-1][0].score == p.score:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


def _descend(order: list[History], rules: _Rules) -> tuple[Pairs, History | None] | None:
    """The Dutch procedure for a large field: score groups paired from the top, each bracket with the players moved
    down to it, its downfloaters chosen as part of its matching (among those who can still be paired below). If the
    last bracket can't be completed it is merged with the one above (and so on: FIDE's collapsed last bracket);
    a bracket that can't be paired even with every player floated is merged with the one below."""
    brackets = _groups(order)
    done: list[tuple[list[History], Pairs]] = []  # per bracket: the players moved into it, its pairs
    carry: list[History] = []
    k = 0
    while k < len(brackets):
        final = k == len(brackets) - 1
        below = [p for b in brackets[k + 1 :] for p in b]
        made = _bracket(ranked(carry + brackets[k]), below, rules)
        if made is not None:
            pairs, floaters = made
            done.append((carry, pairs))
            carry = floaters
            k += 1
            continue
        if not final:
            brackets[k : k + 2] = [brackets[k] + brackets[k + 1]]
            continue
        if k == 0:
            return None
        carry, _ = done.pop()
        brackets[k - 1 : k + 1] = [brackets[k - 1] + brackets[k]]
        k -= 1
    pairs = [pair for _, made_pairs in done for pair in made_pairs]
    return pairs, (carry[0] if carry else None)


def _bracket(members: list[History], below: list[History], rules: _Rules) -> tuple[Pairs, list[History]] | None:
    """Pair one bracket (ranked): ``(pairs, players left over)`` — the downfloaters, or in the last bracket the
    bye. None if it can't be paired. While the bracket and the next score group together hold at most
    :data:`JOINT_LIMIT` players they are matched together (so the downfloaters are those that pair the next group
    best, FIDE C.7) and only the bracket's own pairs are kept."""
    following = next((i for i, p in enumerate(below) if p.score != below[0].score), len(below)) if below else 0
    if below and len(members) + following <= JOINT_LIMIT:
        found = _bracket_alone(members + below[:following], below[following:], rules)
        if found is not None:
            ids = {p.id for p in members}
            pairs = [(a, b) for a, b in found[0] if a.id in ids and b.id in ids]
            paired = {p.id for pair in pairs for p in pair}
            return pairs, [p for p in members if p.id not in paired]
    return _bracket_alone(members, below, rules)


def _bracket_alone(members: list[History], below: list[History], rules: _Rules) -> tuple[Pairs, list[History]] | None:
    """:func:`_bracket` without the next group: its downfloaters chosen in its matching at the cost of pairing each
    with their best opponent at the top of the next group (:func:`_float_cost`)."""
    if not below:
        slots = [_bye_slot(members, rules)] if len(members) % 2 else []
        return _pair_bracket(members, slots, rules)
    ahead = [p for p in below if p.score == below[0].score][:LOOKAHEAD]
    movers = [p for p in members if p.score > members[-1].score]
    likely = members if len(members) <= BRACKET_LIMIT else movers + members[-2 * LOOKAHEAD :]
    can_float = {p.id: _float_cost(p, ahead, rules) for p in likely if any(rules.compatible(p, q) for q in below)}
    for floats in range(len(members) % 2, len(members) + 1, 2):
        if floats > len(can_float):
            return None
        found = _pair_bracket(members, [can_float] * floats, rules)
        if found is not None:
            return found
    return None


def _float_cost(p: History, ahead: list[History], rules: _Rules) -> Cost:
    """The cost of floating ``p`` down: as if paired with its best opponent among ``ahead`` (the top of the next
    score group), so that the choice of downfloaters looks at the next bracket (FIDE C.7, and its colours and
    upfloats); against nobody there, as a float to that score."""
    options = [rules.cost(p, q) for q in ahead if rules.compatible(p, q)]
    return min(options) if options else rules.float_cost(p, ahead[0].score)


def _pair_bracket(
    members: list[History], slots: list[dict[int, Cost]], rules: _Rules
) -> tuple[Pairs, list[History]] | None:
    """Pair ``members`` with ``slots`` (the bye or downfloats: each member's cost of taking one) all taken: one exact
    matching up to :data:`BRACKET_LIMIT` players, else the chunked pairing (:func:`_chunked`)."""
    if len(members) <= BRACKET_LIMIT:
        return _solve(members, slots, rules)
    rest = list(members)
    placed: list[History] = []
    for slot in slots:  # the floaters first: cheapest, then of the more common colour (a strong one), then lowest
        common = _common_colour(rest)
        best = min(
            (
                (slot[p.id], p.preference()[0] != common, p.preference()[1] < 2, -i)
                for i, p in enumerate(rest)
                if p.id in slot
            ),
            default=None,
        )
        if best is None:
            return None
        placed.append(rest.pop(-best[3]))
    pairs = _chunked(rest, rules)
    if pairs is None:
        return _solve(members, slots, rules)
    return _improve(pairs, rules), placed


def _common_colour(members: list[History]) -> int | None:
    """The colour more members of the bracket prefer (None if even)."""
    wants = [p.preference()[0] for p in members]
    zeros, ones = wants.count(0), wants.count(1)
    return None if zeros == ones else 0 if zeros > ones else 1


def _chunked(members: list[History], rules: _Rules) -> Pairs | None:
    """A large even bracket paired in chunks: the players moved down first, each with the best resident for it;
    then the residents' top half S1 and bottom half S2 cut into slices, the i-th slice of S1 paired with the i-th of
    S2 by one exact matching (a slice that can't be paired joins the next; the last joins the one before). A
    collapsed bracket (score groups merged because the lowest could not be completed) is cut into consecutive
    slices in pairing order instead, so that each group still pairs mostly within itself."""
    movers = [p for p in members if p.score > members[-1].score]
    residents = members[len(movers) :]
    pairs: Pairs = []
    chunks: list[list[History]] = []
    if len(movers) > CHUNK:
        chunks = [members[i : i + 2 * CHUNK] for i in range(0, len(members), 2 * CHUNK)]
        residents = []
    elif movers:
        candidates = residents[: max(2 * len(movers), 2 * CHUNK)]
        found = _solve(movers + candidates, [], rules, required={p.id for p in movers}, only_across=True)
        if found is None:
            return None
        pairs += found[0]
        taken = {p.id for pair in found[0] for p in pair}
        residents = [p for p in residents if p.id not in taken]
    if residents:
        half = len(residents) // 2
        s1, s2 = residents[:half], residents[half:]
        count = max(1, -(-len(residents) // (2 * CHUNK)))
        cuts = [half * i // count for i in range(count + 1)]
        chunks = [s1[cuts[i] : cuts[i + 1]] + s2[cuts[i] : cuts[i + 1]] for i in range(count)]
    solved: list[tuple[list[History], Pairs]] = []
    carry: list[History] = []
    for chunk in chunks:
        group = ranked(carry + chunk)
        found = _fold(group, rules) or _solve(group, [], rules)
        if found is None:
            carry = group
            continue
        solved.append((group, found[0]))
        carry = []
    while carry:
        if not solved:
            return None
        group = ranked(solved.pop()[0] + carry)
        found = _solve(group, [], rules)
        if found is None:
            carry = group
            continue
        solved.append((group, found[0]))
        carry = []
    return pairs + [pair for _, chunk_pairs in solved for pair in chunk_pairs]


def _fold(group: list[History], rules: _Rules) -> tuple[Pairs, list[History]] | None:
    """S1[i] against S2[i] for one even score group when every such pair may meet and costs nothing (no colour
    preference refused): then it is the best pairing, found without the matching's cost. None otherwise."""
    n = len(group)
    if n % 2 or group[0].score != group[-1].score:
        return None
    pairs = list(zip(group[: n // 2], group[n // 2 :]))
    for a, b in pairs:
        if not rules.compatible(a, b) or any(rules.cost(a, b)):
            return None
    return pairs, []


def _improve(pairs: Pairs, rules: _Rules) -> Pairs:
    """Pairs of one score exchanged (a–b, c–d into a–c, b–d or a–d, b–c) wherever that grants more colour
    preferences (or more strong ones) under the absolute rules: the chunks' seams repaired."""
    pairs = list(pairs)
    costs = [rules.cost(a, b) for a, b in pairs]
    same = [i for i, (a, b) in enumerate(pairs) if a.score == b.score]
    by_score: dict[int, list[int]] = {}
    for i in same:
        by_score.setdefault(pairs[i][0].score, []).append(i)
    for _ in range(3):
        changed = False
        for i in same:
            if not costs[i][5]:
                continue
            for j in by_score[pairs[i][0].score]:
                if j == i:
                    continue
                (a, b), (c, d) = pairs[i], pairs[j]
                now = _add(costs[i], costs[j])
                for x, y, z, w in ((a, c, b, d), (a, d, b, c)):
                    if not (rules.compatible(x, y) and rules.compatible(z, w)):
                        continue
                    one, two = rules.cost(x, y), rules.cost(z, w)
                    if _add(one, two) < now:
                        pairs[i], pairs[j], costs[i], costs[j] = (x, y), (z, w), one, two
                        changed = True
                        break
                if not costs[i][5]:
                    break
        if not changed:
            break
    return pairs


def _add(one: Cost, two: Cost) -> Cost:
    return tuple(x + y for x, y in zip(one, two))


def _solve(
    members: list[History],
    slots: list[dict[int, Cost]],
    rules: _Rules,
    required: set[int] | None = None,
    only_across: bool = False,
) -> tuple[Pairs, list[History]] | None:
    """The best pairing of ``members`` (ranked) with every one of ``slots`` taken (a slot: the bye or a downfloat,
    each member's cost of taking it; members not in it can't): a maximum-cardinality matching whose weight is the
    pairs' costs (:data:`Cost`) as the digits of one integer, then the Dutch order (the fold within a score group,
    the lowest-ranked floated). Returns ``(pairs, the members placed in the slots, in slot order)``, or None if
    someone (of ``required``, if given) is left out. ``only_across``: pairs only between ``required`` members and
    the others (the players moved down, each paired with a resident)."""
    n = len(members)
    if n == 0:
        return [], []
    place: dict[int, tuple[int, int]] = {}
    for group in _groups(members):
        for i, p in enumerate(group):
            place[p.id] = (i, len(group))
    edges: list[tuple[int, int, Cost]] = []
    for i, a in enumerate(members):
        ia, size_a = place[a.id]
        for j in range(i + 1, n):
            b = members[j]
            if only_across and ((a.id in required) == (b.id in required)):  # type: ignore[operator]
                continue
            if not rules.compatible(a, b):
                continue
            ib, size_b = place[b.id]
            if a.score == b.score:
                misfit = abs(ib - ia - size_a // 2)
            else:
                misfit = (size_a - 1 - ia) + ib
            edges.append((i, j, rules.cost(a, b) + (misfit,)))
    for k, slot in enumerate(slots):
        for i, a in enumerate(members):
            if a.id in slot:
                ia, size_a = place[a.id]
                edges.append((i, n + k, slot[a.id] + (size_a - 1 - ia,)))
    if not edges:
        return None
    levels = len(edges[0][2])
    top = [max(e[2][k] for e in edges) for k in range(levels)]
    pairs_count = (n + len(slots)) // 2 + 1
    units = [1] * levels
    for k in range(levels - 2, -1, -1):
        units[k] = units[k + 1] * (top[k + 1] * pairs_count + 1)
    base = units[0] * (top[0] * pairs_count + 1)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n + len(slots)))
    for i, j, cost in edges:
        weight = base + sum((top[k] - cost[k]) * units[k] for k in range(levels))
        graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    mate: dict[int, int] = {}
    for i, j in matching:
        mate[i], mate[j] = j, i
    must = range(n + len(slots)) if required is None else [i for i, p in enumerate(members) if p.id in required]
    if any(i not in mate for i in must):
        return None
    pairs = [(members[i], members[j]) for i, j in mate.items() if i < j < n]
    placed = [members[mate[n + k]] for k in range(len(slots))] if required is None else []
    return pairs, placed


def seats(a: History, b: History, number: dict[int, int] | None = None) -> tuple[int, int]:
    """Who takes seat 0 of ``a`` (the higher-ranked) and ``b``: ``(seat 0, seat 1)``, by FIDE's colour allocation
    (C.04.3 E): both preferences granted when they differ; else the stronger one (both absolute: the wider colour
    difference); else both alternate from the latest game in which they had different seats; else the
    higher-ranked player's preference; with no preference on either side, the higher-ranked player takes seat 0
    if their place in pairing-number order among the players paired (``number``, 0-based) is even."""
    seat = _Rules(True, False, 0, number or {}).seat_of_higher(a, b)
    return (a.id, b.id) if seat == 0 else (b.id, a.id)


def _boards(pairs: Pairs, order: list[History], bye: History | None, rules: _Rules) -> Pairing:
    """The pairs as boards: ordered by their better player's rank (then the other's), seats assigned, the bye
    last."""
    rank = {p.id: i for i, p in enumerate(order)}
    ordered = sorted(
        ((a, b) if rank[a.id] < rank[b.id] else (b, a) for a, b in pairs),
        key=lambda pair: (rank[pair[0].id], rank[pair[1].id]),
    )
    boards = [Pair(*seats(a, b, rules.number)) for a, b in ordered]
    if bye is not None:
        boards.append(Pair(bye.id, None))
    return Pairing(tuple(boards), relaxed=not rules.strict, bye=None if bye is None else bye.id)


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
