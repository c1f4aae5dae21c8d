"""Standings and tie-breaks (bot/core/tournament/standings.py) against values worked out by hand (RULES.md,
"Standings and tie-breaks")."""

from __future__ import annotations

from fractions import Fraction as F

from bot.core.tournament.event import Board, Entrant, Format, Phase, Tournament
from bot.core.tournament.standings import podium, shown, standings


def made(fmt: Format, n: int, rounds) -> Tournament:
    entrants = tuple(Entrant(i, f"P{i}", i) for i in range(1, n + 1))
    boards = tuple(tuple(Board(*b) for b in r) for r in rounds)
    return Tournament("t", 1, 2, 3, "hong", fmt, len(rounds), phase=Phase.FINISHED, entrants=entrants, boards=boards)


def table(t: Tournament):
    return [(r.place, r.id, r.points, r.buchholz, r.sonneborn_berger, r.direct) for r in standings(t)]


def test_swiss_of_seven_by_hand():
    # R1: 1–4 1-0, 5–2 draw, 3–6 1-0, 7 bye; R2: 2–1 0-1, 7–3 1-0, 4–5 0-1, 6 bye; R3: 1–7 0-1, 5–3 0-1, 6–2 draw, 4 bye
    t = made(
        Format.SWISS,
        7,
        [
            [(1, 4, "1-0"), (5, 2, "="), (3, 6, "1-0"), (7, None, "bye")],
            [(2, 1, "0-1"), (7, 3, "1-0"), (4, 5, "0-1"), (6, None, "bye")],
            [(1, 7, "0-1"), (5, 3, "0-1"), (6, 2, "="), (4, None, "bye")],
        ],
    )
    # points: P7 3 (bye, beat P3, beat P1); P1 2 and P3 2; P5 1½, P6 1½; P2 1, P4 1.
    # Buchholz (played opponents' points): P3 = P6 1½ + P7 3 + P5 1½ = 6; P1 = P4 1 + P2 1 + P7 3 = 5 → P3 above P1.
    # P5 = P2 1 + P4 1 + P3 2 = 4; P6 = P3 2 + P2 1 = 3. P2 = P5 1½ + P1 2 + P6 1½ = 5; P4 = P1 2 + P5 1½ = 3½.
    # Sonneborn-Berger: P7 = 2 + 2 = 4; P3 = 1½ + 1½ = 3; P1 = 1 + 1 = 2; P5 = ½·1 + 1 = 1½; P6 = ½·1 = ½;
    # P2 = ½·1½ + ½·1½ = 1½; P4 = 0.
    assert [row[:5] for row in table(t)] == [
        (1, 7, F(3), F(4), F(4)),
        (2, 3, F(2), F(6), F(3)),
        (3, 1, F(2), F(5), F(2)),
        (4, 5, F(3, 2), F(4), F(3, 2)),
        (5, 6, F(3, 2), F(3), F(1, 2)),
        (6, 2, F(1), F(5), F(3, 2)),
        (7, 4, F(1), F(7, 2), F(0)),
    ]


def test_round_robin_of_four_direct_encounter_first():
    # Berger rounds: 1–4 1-0, 2–3 draw; 4–3 0-1, 1–2 0-1; 2–4 draw, 3–1 0-1.
    t = made(
        Format.ROUND_ROBIN,
        4,
        [[(1, 4, "1-0"), (2, 3, "=")], [(4, 3, "0-1"), (1, 2, "0-1")], [(2, 4, "="), (3, 1, "0-1")]],
    )
    # P1 2 and P2 2: P2 beat P1 (direct encounter 1–0) though P1's... SB: P1 = ½ + 1½ = 2, P2 = ¾ + 2 + ¼ = 3.
    # Buchholz is the field's 6 points less one's own: 4, 4, 4½, 5½.
    assert table(t) == [
        (1, 2, F(2), F(4), F(3), F(1)),
        (2, 1, F(2), F(4), F(2), F(0)),
        (3, 3, F(3, 2), F(9, 2), F(3, 2), F(0)),
        (4, 4, F(1, 2), F(11, 2), F(1), F(0)),
    ]


def test_direct_encounter_splits_a_swiss_tie_only_when_all_met():
    # 1 beats 2 and 3 beats 4 in R1; in R2, 1–3 draw and 2–4 draw: P1 and P3 tie on 1½, Buchholz 1½+... equal?
    # P1: opponents P2 (½) and P3 (1½) → 2; P3: P4 (½) and P1 (1½) → 2. SB: P1 = ½ + ½·1½ = 1¼; P3 the same.
    # They met (a draw): direct encounter ½ each → still tied, place shared; pairing number orders them.
    t = made(Format.SWISS, 4, [[(1, 2, "1-0"), (3, 4, "1-0")], [(1, 3, "="), (2, 4, "=")]])
    rows = standings(t)
    assert [(r.place, r.id, r.buchholz, r.sonneborn_berger, r.direct) for r in rows[:2]] == [
        (1, 1, F(2), F(5, 4), F(1, 2)),
        (1, 3, F(2), F(5, 4), F(1, 2)),
    ]
    assert [(r.place, r.id) for r in rows[2:]] == [(3, 2), (3, 4)]


def test_a_bye_and_a_forfeit_add_nothing_to_tie_breaks():
    t = made(Format.SWISS, 3, [[(1, 2, "+-"), (3, None, "bye")]])
    rows = {r.id: r for r in standings(t)}
    assert rows[1].points == 1 and rows[1].buchholz == 0 and rows[1].wins == 0
    assert rows[3].points == 1 and rows[3].sonneborn_berger == 0


def test_points_are_shown_with_fractions():
    assert [shown(F(x, 4)) for x in (0, 2, 4, 5, 10, 3)] == ["0", "½", "1", "1¼", "2½", "¾"]


def test_standings_after_a_round_leave_out_the_next_rounds_bye():
    # R1: 1 beats 2, 3 beats 4; R2 paired at once: 1–3 not played yet, 2 has the bye (RULES.md, "Standings").
    t = made(Format.SWISS, 5, [[(1, 2, "1-0"), (3, 4, "1-0"), (5, None, "bye")], [(1, 3, None), (2, None, "bye")]])
    after_one = {r.id: r.points for r in standings(t, after=1)}
    assert after_one == {1: F(1), 2: F(0), 3: F(1), 4: F(0), 5: F(1)}
    assert {r.id: r.points for r in standings(t)}[2] == F(1)  # (the live standings count the bye)


def test_a_withdrawn_player_takes_no_podium_place():
    # R1 1–2 1-0, 3–4 1-0; R2 1–3 draw, 2–4 1-0: P1 1½ (Buchholz 2½), P3 1½ (Buchholz 1½), P2 1, P4 0; P3 withdrew.
    t = made(Format.SWISS, 4, [[(1, 2, "1-0"), (3, 4, "1-0")], [(1, 3, "="), (2, 4, "1-0")]])
    t = t.replace(entrants=tuple(e if e.id != 3 else e.__class__(3, "P3", 3, withdrawn=2) for e in t.entrants))
    rows = standings(t)
    assert [(r.place, r.id, r.withdrawn) for r in rows] == [(1, 1, False), (2, 3, True), (3, 2, False), (4, 4, False)]
    assert [(place, row.id) for place, row in podium(rows)] == [(1, 1), (2, 2), (3, 4)]


def test_tied_players_share_a_medal_and_the_next_medal_counts_them():
    # R1: 1–2 1-0, 3–4 1-0: P1 and P3 tied on everything, as are P2 and P4.
    t = made(Format.SWISS, 4, [[(1, 2, "1-0"), (3, 4, "1-0")]])
    rows = standings(t)
    assert [(r.place, r.id) for r in rows] == [(1, 1), (1, 3), (3, 2), (3, 4)]
    assert [(place, row.id) for place, row in podium(rows)] == [(1, 1), (1, 3), (3, 2), (3, 4)]
