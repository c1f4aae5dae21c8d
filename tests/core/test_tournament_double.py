"""A double round robin (bot/core/tournament/event.py, RULES.md "Round robin"): every two players meet twice, the
seats swapped the second time; the first cycle's last two rounds exchanged (FIDE Handbook C.05 Annex 1), so nobody
has the same seat three games running; a withdrawn player's later boards are forfeits; standings as a round robin's.
"""

from __future__ import annotations

import pytest

from bot.core.tournament.event import Format, Phase, Tournament, TournamentError, berger_cycle
from bot.core.tournament.pairing import berger, berger_rounds
from bot.core.tournament.standings import ORDER, standings


def event(n: int) -> Tournament:
    t = Tournament("d1", 1, 10, 99, "hong", Format.DOUBLE_ROUND_ROBIN, 3)
    for i in range(1, n + 1):
        t = t.join(i, f"P{i}")
    return t


def play_round(t: Tournament, outcome) -> Tournament:
    for i, b in enumerate(t.boards[-1]):
        if b.result is None:
            t = t.with_board(len(t.boards) - 1, i, game=f"g{t.round}-{i}")
            t = t.record_result(f"g{t.round}-{i}", outcome(b))
    return t


@pytest.mark.parametrize("n", range(2, 15))
def test_every_pair_meets_twice_with_the_seats_swapped_never_three_in_a_row(n):
    per_cycle = berger_rounds(n)
    seats: dict[int, list[int]] = {p: [] for p in range(1, n + 1)}
    meetings: dict[frozenset, list[tuple[int, int]]] = {}
    for number in range(1, 2 * per_cycle + 1):
        for a, b in berger_cycle(n, number, 2):
            if b is None:
                continue
            meetings.setdefault(frozenset((a, b)), []).append((a, b))
            seats[a].append(0)
            seats[b].append(1)
    assert len(meetings) == n * (n - 1) // 2
    assert all(len(m) == 2 and m[1] == (m[0][1], m[0][0]) for m in meetings.values())
    for played in seats.values():
        assert all(len(set(played[i : i + 3])) == 2 for i in range(len(played) - 2)), played
    # the second cycle is the first again, seats swapped; the first has its last two rounds exchanged
    assert berger_cycle(n, per_cycle + 1, 2) == [(b, a) if b else (a, b) for a, b in berger(n, 1)]
    if per_cycle >= 3:
        assert berger_cycle(n, per_cycle, 2) == berger(n, per_cycle - 1)
        assert berger_cycle(n, per_cycle - 1, 2) == berger(n, per_cycle)
    assert berger_cycle(n, 1, 1) == berger(n, 1)
    with pytest.raises(ValueError):
        berger_cycle(n, 2 * per_cycle + 1, 2)


def test_a_double_round_robin_of_four_plays_six_rounds_to_its_end():
    t = event(4).start()
    assert t.rounds == 6 and t.phase is Phase.RUNNING
    with pytest.raises(TournamentError) as refused:
        t.join(9, "late")
    assert refused.value.reason == "closed" and t.joining_round == 0
    while t.phase is Phase.RUNNING:
        t = play_round(t, lambda b: 0).next_round()  # seat 0 always wins
    assert t.round == 6 and t.phase is Phase.FINISHED
    # each player had seat 0 three times out of six, so scored 3 points
    assert {r.id: r.points for r in standings(t)} == {1: 3, 2: 3, 3: 3, 4: 3}
    assert ORDER[Format.DOUBLE_ROUND_ROBIN] == ORDER[Format.ROUND_ROBIN]
    assert Tournament.from_dict(t.to_dict()) == t


def test_an_odd_field_rests_twice_and_a_withdrawal_forfeits_the_rest():
    t = event(3).start()
    assert t.rounds == 6
    t = play_round(t, lambda b: 1).withdraw(3).next_round()
    rests = {}
    while t.phase is Phase.RUNNING:
        t = play_round(t, lambda b: 1).next_round()
    for number, boards in enumerate(t.boards, 1):
        for b in boards:
            if b.result == "rest":
                rests[b.first] = rests.get(b.first, 0) + 1
            elif b.has(3) and number > 1:  # withdrawn after round 1: every later game of theirs a forfeit loss
                assert b.result in ("+-", "-+") and not b.played and b.points(3) == 0
    assert rests == {1: 2, 2: 2, 3: 2}


def test_joining_round_follows_the_phase():
    t = Tournament("s1", 1, 10, 99, "hong", Format.SWISS, 2)
    assert t.joining_round == 1
    t = t.join(1, "a").join(2, "b").start()
    assert t.joining_round == 2
    t = play_round(t, lambda b: 0).next_round()
    assert t.joining_round == 0  # the last round is paired
