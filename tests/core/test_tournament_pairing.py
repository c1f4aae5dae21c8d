"""The pairing of bot/core/tournament against RULES.md, checked by an independent checker: many seeded random
tournaments (hypothesis is not among the test dependencies), each round's pairing held to the absolute rules, and for
small fields compared with a brute force over every possible pairing (the bye and the score-group rule)."""

from __future__ import annotations

import random

import pytest

from bot.core.tournament.event import Board, Format, Phase, Tournament, TournamentError
from bot.core.tournament.pairing import History, NoPairing, berger, berger_rounds, pair_swiss


# --- the independent checker ----------------------------------------------------------------------------------------


def perfect_matchings(people: list[int], allowed) -> list[list[tuple[int, int]]]:
    """Every perfect matching of ``people`` using only ``allowed(a, b)`` pairs (brute force: for small fields)."""
    if not people:
        return [[]]
    first, rest = people[0], people[1:]
    out = []
    for i, other in enumerate(rest):
        if allowed(first, other):
            for m in perfect_matchings(rest[:i] + rest[i + 1 :], allowed):
                out.append([(first, other), *m])
    return out


def colour_state(colours: list[int]) -> tuple[int, bool]:
    """(colour difference, the same colour three times running somewhere)."""
    run = any(colours[i] == colours[i + 1] == colours[i + 2] for i in range(len(colours) - 2))
    return colours.count(0) - colours.count(1), run


class Field:
    """A simulated Swiss: the checker's own bookkeeping (not the tournament module's)."""

    def __init__(self, n: int, rng: random.Random) -> None:
        self.rng = rng
        self.score = {i: 0 for i in range(1, n + 1)}
        self.colours: dict[int, list[int]] = {i: [] for i in self.score}
        self.met: dict[int, set[int]] = {i: set() for i in self.score}
        self.byes = {i: 0 for i in self.score}
        self.active = set(self.score)

    def histories(self) -> list[History]:
        return [
            History(i, i, self.score[i], tuple(self.colours[i]), frozenset(self.met[i]), self.byes[i] > 0)
            for i in sorted(self.active)
        ]

    def play(self, pairing) -> None:
        for pair in pairing.pairs:
            if pair.second is None:
                self.byes[pair.first] += 1
                self.score[pair.first] += 2
                continue
            a, b = pair.first, pair.second
            self.met[a].add(b)
            self.met[b].add(a)
            self.colours[a].append(0)
            self.colours[b].append(1)
            r = self.rng.choice((0, 1, 2, 2))
            self.score[a] += r
            self.score[b] += 2 - r

    def check(self, pairing, exact: bool) -> None:
        """Hold one round's pairing to RULES.md."""
        seen = [p for pair in pairing.pairs for p in (pair.first, pair.second) if p is not None]
        assert sorted(seen) == sorted(self.active), "everyone active is paired exactly once"
        byes = [pair.first for pair in pairing.pairs if pair.second is None]
        assert len(byes) == len(self.active) % 2
        for pair in pairing.pairs:
            if pair.second is not None:
                assert pair.second not in self.met[pair.first], "no pair meets twice"
        for p in byes:
            assert self.byes[p] == 0, "at most one bye each"
        if not pairing.relaxed:
            trial = {p: list(c) for p, c in self.colours.items()}
            for pair in pairing.pairs:
                if pair.second is not None:
                    trial[pair.first].append(0)
                    trial[pair.second].append(1)
            for p in self.active:
                difference, run = colour_state(trial[p])
                assert abs(difference) <= 2 and not run, f"colour bounds for {p}: {trial[p]}"
        if exact:
            self.check_exact(pairing, byes)

    def check_exact(self, pairing, byes: list[int]) -> None:
        """Brute force: the bye is the lowest-ranked eligible player whose absence leaves a pairable field, and
        the pairs' squared score differences add up to the least any legal pairing reaches."""
        order = sorted(self.active, key=lambda p: (-self.score[p], p))

        def allowed(a: int, b: int) -> bool:
            if b in self.met[a]:
                return False
            if pairing.relaxed:
                return True
            return not (
                _absolute(self.colours[a]) is not None and _absolute(self.colours[a]) == _absolute(self.colours[b])
            )

        rest = [p for p in order if p not in byes]
        if byes:
            (bye,) = byes
            for lower in reversed(order[order.index(bye) + 1 :]):
                if self.byes[lower] == 0:
                    others = [p for p in order if p != lower]
                    assert not perfect_matchings(others, allowed), f"{lower} ranks below {bye} and could take the bye"
        best = min(sum((self.score[a] - self.score[b]) ** 2 for a, b in m) for m in perfect_matchings(rest, allowed))
        got = sum((self.score[p.first] - self.score[p.second]) ** 2 for p in pairing.pairs if p.second is not None)
        assert got == best, "score groups: the least sum of squared score differences"


def _absolute(colours: list[int]) -> int | None:
    """The colour a player must get (RULES.md: difference beyond ±1 or the last two alike), or None."""
    d = colours.count(0) - colours.count(1)
    if d > 1 or colours[-2:] == [0, 0]:
        return 1
    if d < -1 or colours[-2:] == [1, 1]:
        return 0
    return None


# --- Swiss ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_small_swiss_pairings_are_the_best_by_the_rules(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 10)
    field = Field(n, rng)
    for _ in range(rng.randint(1, n)):
        if rng.random() < 0.15 and len(field.active) > 2:  # a withdrawal
            field.active.discard(rng.choice(sorted(field.active)))
        try:
            pairing = pair_swiss(field.histories())
        except NoPairing:
            break
        field.check(pairing, exact=True)
        field.play(pairing)


@pytest.mark.parametrize("seed", range(12))
def test_larger_swiss_pairings_hold_the_absolute_rules(seed):
    rng = random.Random(1000 + seed)
    n = rng.choice((11, 30, 63, 64, 65, 90, 151))
    field = Field(n, rng)
    relaxed = 0
    for _ in range(7):
        if rng.random() < 0.3:  # a late joiner
            new = max(field.score) + 1
            field.score[new] = 0
            field.colours[new], field.met[new], field.byes[new] = [], set(), 0
            field.active.add(new)
        pairing = pair_swiss(field.histories())
        relaxed += pairing.relaxed
        field.check(pairing, exact=False)
        field.play(pairing)
    assert relaxed == 0


def test_the_first_round_folds_the_field_and_alternates_seats():
    pairing = pair_swiss([History(i, i) for i in range(1, 8)])
    assert [(p.first, p.second) for p in pairing.pairs] == [(1, 4), (5, 2), (3, 6), (7, None)]
    assert pairing.bye == 7


def test_the_bye_skips_a_player_who_had_one():
    players = [History(1, 1, 2), History(2, 2, 2), History(3, 3, 0, had_bye=True)]
    pairing = pair_swiss(players)
    assert pairing.bye == 2 and {pairing.pairs[0].first, pairing.pairs[0].second} == {1, 3}


def test_no_pairing_when_everyone_has_met():
    players = [History(1, 1, 2, (0,), frozenset({2})), History(2, 2, 0, (1,), frozenset({1}))]
    with pytest.raises(NoPairing):
        pair_swiss(players)


def test_an_absolute_colour_preference_is_granted():
    # 1 had seat 0 twice: must take seat 1; 2 has a mild wish for seat 1 (last was 0) and yields
    a = History(1, 1, 4, (0, 0), frozenset({3, 4}))
    b = History(2, 2, 4, (1, 0), frozenset({3, 4}))
    (pair,) = pair_swiss([a, b]).pairs
    assert (pair.first, pair.second) == (2, 1)


# --- round robin ------------------------------------------------------------------------------------------------------


def test_berger_table_for_six_is_fides():
    assert berger(6, 1) == [(1, 6), (2, 5), (3, 4)]
    assert sorted(berger(6, 2)) == sorted([(6, 4), (5, 3), (1, 2)])
    assert sorted(berger(6, 5)) == sorted([(3, 6), (4, 2), (5, 1)])


@pytest.mark.parametrize("n", range(2, 14))
def test_berger_meets_everyone_once_with_balanced_colours(n):
    met = set()
    whites = {i: 0 for i in range(1, n + 1)}
    rests = {i: 0 for i in range(1, n + 1)}
    for r in range(1, berger_rounds(n) + 1):
        boards = berger(n, r)
        seen = [p for a, b in boards for p in (a, b) if p is not None]
        assert sorted(seen) == list(range(1, n + 1))
        for a, b in boards:
            if b is None:
                rests[a] += 1
                continue
            assert frozenset((a, b)) not in met
            met.add(frozenset((a, b)))
            whites[a] += 1
    assert len(met) == n * (n - 1) // 2
    assert all(r == (n % 2) for r in rests.values())
    games = n - 1
    assert all(abs(2 * w - games) <= 1 + (n % 2 == 0) for w in whites.values())


# --- the event's steps ------------------------------------------------------------------------------------------------


def event(fmt: Format = Format.SWISS, n: int = 4, rounds: int = 3) -> Tournament:
    t = Tournament("t1", 1, 10, 99, "hongkong", fmt, rounds)
    for i in range(1, n + 1):
        t = t.join(i, f"P{i}")
    return t


def finish_round(t: Tournament, outcome) -> Tournament:
    for i, b in enumerate(t.boards[-1]):
        if b.result is None:
            t = t.with_board(len(t.boards) - 1, i, game=f"g{t.round}-{i}")
            t = t.record_result(f"g{t.round}-{i}", outcome(b))
    return t


def test_joining_twice_and_starting_with_one_are_refused():
    t = event(n=1)
    with pytest.raises(TournamentError) as e:
        t.join(1, "P1")
    assert e.value.reason == "joined"
    with pytest.raises(TournamentError) as e:
        t.start()
    assert e.value.reason == "too_few"


def test_a_round_robin_is_closed_once_started_a_swiss_takes_late_joiners():
    rr = event(Format.ROUND_ROBIN).start()
    with pytest.raises(TournamentError) as e:
        rr.join(9, "late")
    assert e.value.reason == "closed"
    swiss = event().start().join(9, "late")
    assert swiss.entrant(9).joined == 2
    swiss = finish_round(swiss, lambda b: 0).next_round()
    assert any(b.has(9) for b in swiss.boards[-1])


def test_next_round_waits_for_every_result_and_advances_once():
    t = event().start()
    with pytest.raises(TournamentError) as e:
        t.next_round()
    assert e.value.reason == "playing"
    t = finish_round(t, lambda b: 0).next_round()
    assert t.round == 2


def test_round_robin_forfeits_a_withdrawn_players_boards():
    t = event(Format.ROUND_ROBIN, n=4).start()
    assert t.rounds == 3
    t = finish_round(t, lambda b: 0).withdraw(4)
    t = t.next_round()
    board = next(b for b in t.boards[-1] if b.has(4))
    assert board.result in ("+-", "-+") and board.points(4) == 0 and board.points(board.opponent(4)) == 2


def test_withdrawing_before_the_game_starts_forfeits_the_board():
    t = event(n=4).start()
    board = t.boards[0][0]
    t = t.withdraw(board.first)
    assert t.boards[0][0].result == "-+"


def test_the_tournament_finishes_after_its_rounds_and_round_trips_json():
    t = event(n=3, rounds=2).start()
    t = finish_round(t, lambda b: None).next_round()
    t = finish_round(t, lambda b: 1).next_round()
    assert t.phase is Phase.FINISHED
    assert Tournament.from_dict(t.to_dict()) == t


def test_an_aborted_game_is_a_double_forfeit():
    t = event(n=2, rounds=1).start()
    t = t.with_board(0, 0, game="g")
    t = t.record_result("g", None, played=False)
    assert t.boards[0][0].result == "--" and t.score(1) == t.score(2) == 0
    assert isinstance(t.boards[0][0], Board) and not t.boards[0][0].played


def test_seeds_follow_ratings_then_sign_up_order():
    t = event(n=4).start({3: 25.0, 2: 25.0, 4: 10.0})  # 1 has no rating (0)
    assert [(e.id, e.seed) for e in sorted(t.entrants, key=lambda e: e.seed)] == [(2, 1), (3, 2), (4, 3), (1, 4)]
    assert [(b.first, b.second) for b in t.boards[0]] == [
        (2, 4),
        (1, 3),
    ]  # the fold by seed: 1–3, 4–2 (seats alternate)


def test_forgetting_keeps_pairings_and_results():
    t = finish_round(event(n=4).start(), lambda b: 0).next_round()
    gone = t.forgetting(1, "a former player")
    assert gone.entrant(1) is None and gone.entrant(-t.entrant(1).seed).name == "a former player"
    assert [b.result for r in gone.boards for b in r] == [b.result for r in t.boards for b in r]
    assert gone.score(-t.entrant(1).seed) == t.score(1)


def test_a_result_told_twice_counts_once_and_an_unknown_game_is_refused():
    t = event(n=4).start().with_board(0, 0, game="g")
    once = t.record_result("g", 0)
    assert once.record_result("g", 1) == once and once.boards[0][0].result == "1-0"
    with pytest.raises(TournamentError) as e:
        once.record_result("other", 0)
    assert e.value.reason == "no_board"


def test_a_player_floated_down_last_round_is_not_floated_down_again():
    # 4 points, two on 2, one on 0: pairing 1–3 and 2–4, or 1–2 and 3–4, costs the same in score differences; the
    # fold would pick 1–2 / 3–4 (neighbours in pairing order), floating 3 down again — so 1–3 / 2–4 it is
    a = History(1, 1, 4)
    b = History(2, 2, 2)
    c = History(3, 3, 2, floated=-1)
    d = History(4, 4, 0)
    pairs = {frozenset((p.first, p.second)) for p in pair_swiss([a, b, c, d]).pairs}
    assert pairs == {frozenset((1, 3)), frozenset((2, 4))}
    pairs = {frozenset((p.first, p.second)) for p in pair_swiss([a, b, History(3, 3, 2), d]).pairs}
    assert pairs == {frozenset((1, 2)), frozenset((3, 4))}  # (without the float, the fold decides)


def test_floats_are_read_from_the_previous_round():
    t = event(n=4, rounds=3).start()  # 1–3, 4–2
    t = finish_round(t, lambda b: 0).next_round()  # 1 and 4 won: 1–4 and 3–2 (or 2–3) in round 2
    t = finish_round(t, lambda b: 0)
    scores = t.scores()
    for b in t.boards[1]:
        expected = {b.first: 0, b.second: 0}
        assert t._floated(b.first, scores) == expected[b.first]
    bye = event(n=3, rounds=2).start()
    bye = finish_round(bye, lambda b: 0)
    assert bye._floated(3, bye.scores()) == -1  # the bye counts as floating down
