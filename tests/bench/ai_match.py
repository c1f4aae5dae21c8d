"""Benchmark engine.ai: the computer levels against each other and against a uniformly random player.

Run on demand (not part of the tests; on a shared machine use ``nice``):

    nice -n 19 python tests/bench/ai_match.py [--games 200] [--workers 1] [--game hongkong|hong|both]
                                               [--pairs hard-random,hard-easy,...] [--boards castle,garden,inner]
                                               [--lair both|on|off]

Every pairing plays ``--games`` games. Hong Kong: the first player alternates. Hong: the roles alternate and
each setup (board, lair on/off, seed) is played twice, once with each side as emperor; the games cycle through
the chosen boards and lair settings. Hong's roles are not balanced, so each role is reported separately next
to the random-vs-random win rate for that role on the same setups.

Reported per pairing: games, wins of each side (draws for Hong Kong), the first-named side's win rate; per level:
moves timed, median and worst wall-clock seconds per move (and CPU seconds, which other work on a shared
machine does not inflate). The targets of the issue are checked at the end.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import engine.hong as hong  # noqa: E402
import engine.hongkong as hongkong  # noqa: E402
from engine.ai import LEVELS, choose_move  # noqa: E402

PLAYERS = ("random",) + LEVELS
DEFAULT_PAIRS = [
    "random-random",
    "easy-random",
    "medium-random",
    "hard-random",
    "medium-easy",
    "hard-easy",
    "hard-medium",
]


def _move(game, player: str, seed: int, rng: random.Random) -> str:
    if player == "random":
        return rng.choice(game.legal_moves())
    return choose_move(game, player, seed=seed)


def play_one(task: tuple) -> dict:
    """Play one game. ``task``: (kind, setup, a, b, a_side, seed). ``a_side`` is the player number that
    side ``a`` plays (Hong Kong: 0 moves first iff ``first`` == 0; Hong: 0 is the emperor)."""
    kind, setup, a, b, a_side, seed = task
    if kind == "hongkong":
        game = hongkong.new_game(first=setup["first"])
    else:
        game = hong.new_game(setup["board"], expansion=setup["lair"], seed=setup["seed"])
    players = {a_side: a, 1 - a_side: b}
    rng = random.Random(seed)
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    n = 0
    while not game.is_over:
        who = players[game.to_move]
        w0, c0 = time.perf_counter(), time.process_time()
        move = _move(game, who, seed * 1000 + n, rng)
        times[who].append((time.perf_counter() - w0, time.process_time() - c0))
        game.play(move)
        n += 1
    margin = game.hong_count() - game.threshold if kind == "hong" else None
    return {
        "kind": kind,
        "setup": setup,
        "a": a,
        "b": b,
        "a_side": a_side,
        "winner": game.winner,
        "margin": margin,
        "times": dict(times),
    }


def tasks_for(kind: str, a: str, b: str, games: int, boards: list[str], lairs: list[bool]) -> list[tuple]:
    out = []
    for i in range(games):
        if kind == "hongkong":
            setup = {"first": i % 2}
            out.append((kind, setup, a, b, 0, i))  # a is player 0; who moves first alternates
        else:
            k = i // 2
            board = boards[k % len(boards)]
            lair = lairs[(k // len(boards)) % len(lairs)]
            setup = {"board": board, "lair": lair, "seed": k}
            out.append((kind, setup, a, b, i % 2, i))  # same setup, a as emperor then as dragon master
    return out


def pct(wins: int, games: int) -> str:
    return f"{100.0 * wins / games:5.1f}%" if games else "   -  "


def report_hongkong(results: list[dict], pairs: list[tuple[str, str]]) -> dict:
    print("\nHong Kong — who moves first alternates")
    print(f"{'pairing':<18}{'games':>6}{'A wins':>8}{'B wins':>8}{'draws':>7}{'A win rate':>12}")
    rates = {}
    for a, b in pairs:
        rs = [r for r in results if r["kind"] == "hongkong" and (r["a"], r["b"]) == (a, b)]
        wins_a = sum(1 for r in rs if r["winner"] == r["a_side"])
        draws = sum(1 for r in rs if r["winner"] is None)
        wins_b = len(rs) - wins_a - draws
        rates[(a, b)] = wins_a / len(rs) if rs else 0.0
        print(f"{a + ' vs ' + b:<18}{len(rs):>6}{wins_a:>8}{wins_b:>8}{draws:>7}{pct(wins_a, len(rs)):>12}")
    return rates


def report_hong(results: list[dict], pairs: list[tuple[str, str]]) -> dict:
    rs_all = [r for r in results if r["kind"] == "hong"]
    setups = sorted({(r["setup"]["board"], r["setup"]["lair"]) for r in rs_all})
    print(
        "\nHong — roles alternate on the same setups; boards/lair: "
        + ", ".join(f"{bd}{' + lair' if lr else ''}" for bd, lr in setups)
    )
    base = [r for r in rs_all if (r["a"], r["b"]) == ("random", "random")]
    base_emp = sum(1 for r in base if r["winner"] == hong.EMPEROR) / len(base) if base else None

    def baseline(role: int) -> str:
        if base_emp is None:
            return "(no random-vs-random run)"
        return f"random vs random: {100 * (base_emp if role == hong.EMPEROR else 1 - base_emp):.1f}%"

    print("(Hongs - threshold: the mean final count minus the board's threshold; the dragon master wins at >= 0)")
    print(
        f"{'pairing':<18}{'role of A':<15}{'games':>6}{'A wins':>8}{'A win rate':>12}{'Hongs-thr':>11}"
        "   baseline for that role"
    )
    rates, edges = {}, {}
    for a, b in pairs:
        rs = [r for r in rs_all if (r["a"], r["b"]) == (a, b)]
        total = 0
        margins = {}
        for role, name in ((hong.EMPEROR, "emperor"), (hong.DRAGON_MASTER, "dragon master")):
            sub = [r for r in rs if r["a_side"] == role]
            wins = sum(1 for r in sub if r["winner"] == role)
            total += wins
            margins[role] = statistics.mean(r["margin"] for r in sub) if sub else None
            margin = "-" if margins[role] is None else f"{margins[role]:+.2f}"
            print(
                f"{a + ' vs ' + b:<18}{name:<15}{len(sub):>6}{wins:>8}{pct(wins, len(sub)):>12}{margin:>11}"
                f"   {baseline(role)}"
            )
        rates[(a, b)] = total / len(rs) if rs else 0.0
        edge = None if None in margins.values() else margins[hong.DRAGON_MASTER] - margins[hong.EMPEROR]
        edges[(a, b)] = edge
        edge_text = "" if edge is None else f"   A's edge: {edge:+.2f} Hongs"
        print(f"{'':<18}{'both roles':<15}{len(rs):>6}{total:>8}{pct(total, len(rs)):>12}{'':>11}{edge_text}")
    print(
        "(A's edge: the mean count with A as dragon master minus the mean count with A as emperor, on the same\n"
        " setups; 0 for equal players, positive when A gets more out of both roles than B does)"
    )
    if len(setups) > 1:
        print("\nHong per board (A win rate as emperor / as dragon master; random vs random emperor win rate)")
        for bd, lr in setups:
            cells = []
            for a, b in pairs:
                rs = [
                    r
                    for r in rs_all
                    if (r["a"], r["b"]) == (a, b) and (r["setup"]["board"], r["setup"]["lair"]) == (bd, lr)
                ]
                e = [r for r in rs if r["a_side"] == 0]
                d = [r for r in rs if r["a_side"] == 1]
                cells.append(
                    f"{a}-{b} {pct(sum(r['winner'] == 0 for r in e), len(e)).strip()}/"
                    f"{pct(sum(r['winner'] == 1 for r in d), len(d)).strip()} (n={len(rs)})"
                )
            print(f"  {bd + (' + lair' if lr else ''):<14}" + "; ".join(cells))
    return rates, edges


def report_times(results: list[dict], kind: str) -> dict:
    per: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in results:
        if r["kind"] == kind:
            for who, ts in r["times"].items():
                per[who].extend(ts)
    print(f"{'level':<10}{'moves':>8}{'median s':>10}{'worst s':>9}{'median cpu':>12}{'worst cpu':>11}")
    out = {}
    for who in LEVELS:
        ts = per.get(who)
        if not ts:
            continue
        wall = [t[0] for t in ts]
        cpu = [t[1] for t in ts]
        out[who] = (statistics.median(wall), max(wall))
        print(
            f"{who:<10}{len(ts):>8}{statistics.median(wall):>10.3f}{max(wall):>9.3f}"
            f"{statistics.median(cpu):>12.3f}{max(cpu):>11.3f}"
        )
    return out


def check(name: str, ok: bool | None, detail: str) -> None:
    mark = "n/a " if ok is None else ("PASS" if ok else "FAIL")
    print(f"  [{mark}] {name}: {detail}")


def targets(label: str, rates: dict, times: dict, edges: dict | None = None) -> None:
    print(f"\nTargets ({label})")
    r = rates.get
    hr, he, hm = r(("hard", "random")), r(("hard", "easy")), r(("hard", "medium"))
    me, mr, er = r(("medium", "easy")), r(("medium", "random")), r(("easy", "random"))

    def f(x: float | None) -> str:
        return "not run" if x is None else f"{x:.1%}"

    check("hard beats random in >= 98%", None if hr is None else hr >= 0.98, f(hr))
    check("hard beats easy in >= 75%", None if he is None else he >= 0.75, f(he))
    if edges is None:
        check(
            "medium between: beats easy, loses to hard",
            None if me is None or hm is None else (me > 0.5 and hm > 0.5),
            f"medium vs easy {f(me)}, hard vs medium {f(hm)}",
        )
    else:
        # Hong's unbalanced roles push win rates between close players towards 50%: also ask that the
        # stronger side gets more Hongs out of both roles (a positive edge)
        e_me, e_hm = edges.get(("medium", "easy")), edges.get(("hard", "medium"))
        ok = None if None in (me, hm, e_me, e_hm) else (me >= 0.5 and hm >= 0.5 and e_me > 0 and e_hm > 0)
        check(
            "medium between: beats easy, loses to hard (win rate >= 50% and a positive edge)",
            ok,
            f"medium vs easy {f(me)} (edge {e_me if e_me is None else round(e_me, 2)}), "
            f"hard vs medium {f(hm)} (edge {e_hm if e_hm is None else round(e_hm, 2)})",
        )
    check(
        "against random: easy <= medium <= hard",
        None if None in (er, mr, hr) else er <= mr <= hr,
        f"easy {f(er)}, medium {f(mr)}, hard {f(hr)}",
    )
    if "hard" in times:
        med, worst = times["hard"]
        check("hard median <= 1.5 s per move", med <= 1.5, f"{med:.3f} s")
        check("hard worst <= 3 s per move", worst <= 3.0, f"{worst:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--game", choices=("hongkong", "hong", "both"), default="both")
    parser.add_argument(
        "--pairs", default=",".join(DEFAULT_PAIRS), help="comma-separated A-B pairings of random, easy, medium, hard"
    )
    parser.add_argument("--boards", default="castle,garden,inner", help="Hong boards to cycle through")
    parser.add_argument("--lair", choices=("both", "on", "off"), default="both", help="Hong expansion")
    args = parser.parse_args()
    pairs = []
    for p in args.pairs.split(","):
        a, b = p.strip().split("-")
        if a not in PLAYERS or b not in PLAYERS:
            parser.error(f"unknown player in {p!r}: use {', '.join(PLAYERS)}")
        pairs.append((a, b))
    boards = [b.strip() for b in args.boards.split(",")]
    lairs = {"both": [False, True], "on": [True], "off": [False]}[args.lair]
    kinds = ["hongkong", "hong"] if args.game == "both" else [args.game]
    tasks = []
    for kind in kinds:
        for a, b in pairs:
            if kind == "hongkong" and (a, b) == ("random", "random"):
                continue
            tasks.extend(tasks_for(kind, a, b, args.games, boards, lairs))
    # slowest first, so the pool ends together
    tasks.sort(key=lambda t: -sum(LEVELS.index(p) + 1 for p in (t[2], t[3]) if p in LEVELS))
    print(
        f"{len(tasks)} games on {args.workers} worker(s); python {sys.version.split()[0]}; {os.cpu_count()} CPUs",
        flush=True,
    )
    started = time.perf_counter()
    results = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play_one, tasks, chunksize=1), 1):
            results.append(r)
            if i % 50 == 0 or i == len(tasks):
                print(f"  {i}/{len(tasks)} games, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print(f"done in {time.perf_counter() - started:.0f} s")
    if "hongkong" in kinds:
        rates = report_hongkong(results, [p for p in pairs if p != ("random", "random")])
        print("Time per move, Hong Kong")
        times = report_times(results, "hongkong")
        targets("Hong Kong", rates, times)
    if "hong" in kinds:
        rates, edges = report_hong(results, pairs)
        print("Time per move, Hong")
        times = report_times(results, "hong")
        targets("Hong, both roles together", rates, times, edges)


if __name__ == "__main__":
    main()
