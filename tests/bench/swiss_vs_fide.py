"""Our Swiss pairing (bot/core/tournament/pairing.py) side by side with the FIDE-endorsed Dutch-system engine
bbpPairings, given the same history every round.

Random events of each size are played through the real :class:`~bot.core.tournament.event.Tournament` (random
results with draws, a few withdrawals and late joiners between rounds). Before each round the history so far is
written as a TRF file (FIDE's tournament report format, as bbpPairings reads it) and paired twice: by us
(``Tournament.next_round``) and by the reference (``bbpPairings --dutch``). Both pairings are measured by this file's
own bookkeeping (not the pairing module's); the event then goes on with our pairing.

Per size it prints, per round on average, for us and for the reference:
  hard        hard-rule violations: a rematch, a second bye, a colour difference beyond ±2 or a colour three times
              running (for anyone but a topscorer of the last round, whom FIDE's C.3 exempts)
  top         the same colour breaches for last-round topscorers and their opponents (allowed, counted apart)
  diff        the sum of the pairs' score differences (points), the bye left out
  diff²       the sum of their squares
  float2      players floated the same way as in the previous round (down again: against fewer points or the bye;
              up again)
  unmet       colour preferences not granted (mild, strong or absolute)
  strong      strong or absolute colour preferences not granted
  ms          the pairing's time per round (ms; the reference's includes its process start)
and the percentage by which we are worse (+) or better (−) than the reference on each quality measure.

The reference is the ``bbpPairings`` executable named by the environment variable ``BBP_PAIRINGS``, or
``bbpPairings`` / ``bbpPairings.exe`` on PATH. It is not part of this repository (Apache-2.0, built from its public
source with g++); without it the script pairs and measures our side only and says so.

    BBP_PAIRINGS=/path/to/bbpPairings.exe .venv/bin/python tests/bench/swiss_vs_fide.py \\
        [--sizes 6,10,16,33,64,100,200,1000] [--events 20] [--rounds 0 (by size)] [--seed 1] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.core.tournament.event import Format, Phase, Tournament  # noqa: E402
from tests.core.test_tournament_pairing import wish  # noqa: E402  (the tests' own colour preferences)

MEASURES = ("hard", "top", "diff", "diff2", "float2", "unmet", "strong")
QUALITY = ("diff", "diff2", "float2", "unmet", "strong")


def reference() -> str | None:
    """The reference engine's path, or None."""
    named = os.environ.get("BBP_PAIRINGS")
    if named:
        return named if Path(named).is_file() else None
    return shutil.which("bbpPairings") or shutil.which("bbpPairings.exe")


def default_rounds(players: int) -> int:
    """Rounds for an event of ``players``: a few more than a knockout would need, fewer than a round robin."""
    return max(3, min(players - 1, math.ceil(math.log2(players)) + 3))


# --- history as TRF ---------------------------------------------------------------------------------------------------


def trf(t: Tournament) -> str:
    """The tournament's played rounds as TRF (one ``001`` line a player, pairing number = seed), with every player
    who may not be paired in the next round marked absent for it (a zero-point bye), so the reference pairs exactly
    our active players."""
    next_no = t.round + 1
    active = {e.id for e in t.active(next_no)}
    by_id = {e.id: e for e in t.entrants}
    lines = ["012 swiss_vs_fide", f"XXR {t.rounds}", "XXC white1"]
    for e in sorted(t.entrants, key=lambda e: e.seed):
        blocks = []
        points = 0
        for boards in t.boards:
            board = next((b for b in boards if b.has(e.id)), None)
            if board is None:
                blocks.append("0000 - Z")
            elif board.second is None:
                blocks.append("0000 - U")
                points += 2
            else:
                other = board.opponent(e.id)
                assert other is not None and board.played, "the simulation has no forfeits"
                mine = board.points(e.id)
                points += mine
                colour = "w" if board.first == e.id else "b"
                blocks.append(f"{by_id[other].seed:4d} {colour} {'1' if mine == 2 else '=' if mine == 1 else '0'}")
        if e.id not in active:
            blocks.append("0000 - Z")
        head = (
            f"001 {e.seed:4d}  {'':3} {('P' + str(e.seed)):<33} {'':4} {'':3} {'':11} {'':10} {points / 2:4.1f} {'':4}"
        )
        assert len(head) == 89
        lines.append(head + "  " + "  ".join(blocks))
    return "\n".join(lines) + "\n"


def run_reference(engine: str, t: Tournament, work: Path) -> tuple[list[tuple[int, int | None]] | None, float]:
    """The reference's pairing of the next round as ``[(seat 0 id, seat 1 id or None)]`` (None: it found none) and
    its time in seconds."""
    source, out = work / "in.trf", work / "out.txt"
    source.write_text(trf(t))
    out.unlink(missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run([engine, "--dutch", str(source), "-p", str(out)], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode == 1:
        return None, elapsed
    if done.returncode != 0:
        raise RuntimeError(f"the reference failed ({done.returncode}): {done.stderr.strip()}\n{source.read_text()}")
    by_seed = {e.seed: e.id for e in t.entrants}
    rows = out.read_text().split()[1:]
    pairs = []
    for white, black in zip(rows[::2], rows[1::2]):
        pairs.append((by_seed[int(white)], None if int(black) == 0 else by_seed[int(black)]))
    return pairs, elapsed


# --- the measures (this file's own bookkeeping) -------------------------------------------------------------------


@dataclass
class State:
    """Each active player's history before the round: half points, seats of played games, opponents, byes, and how
    they floated in the previous round (-1 down or the bye, +1 up, 0)."""

    score: dict[int, int] = field(default_factory=dict)
    colours: dict[int, list[int]] = field(default_factory=dict)
    met: dict[int, set[int]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)
    floated: dict[int, int] = field(default_factory=dict)


def state(t: Tournament) -> State:
    s = State()
    before: dict[int, int] = {}
    for e in t.entrants:
        s.score[e.id], s.colours[e.id], s.met[e.id], s.byes[e.id], s.floated[e.id] = 0, [], set(), 0, 0
    for r, boards in enumerate(t.boards):
        before = dict(s.score)
        for b in boards:
            if b.second is None:
                s.byes[b.first] += 1
                s.score[b.first] += b.points(b.first)
                continue
            s.met[b.first].add(b.second)
            s.met[b.second].add(b.first)
            if b.played:
                s.colours[b.first].append(0)
                s.colours[b.second].append(1)
            s.score[b.first] += b.points(b.first)
            s.score[b.second] += b.points(b.second)
    if t.boards:
        for b in t.boards[-1]:
            if b.second is None:
                s.floated[b.first] = -1
            else:
                d = before[b.first] - before[b.second]
                s.floated[b.first] = -1 if d > 0 else 1 if d < 0 else 0
                s.floated[b.second] = -s.floated[b.first]
    return s


def breaches(colours: list[int]) -> bool:
    d = colours.count(0) - colours.count(1)
    return abs(d) > 2 or any(colours[i] == colours[i + 1] == colours[i + 2] for i in range(len(colours) - 2))


def measure(s: State, pairs: list[tuple[int, int | None]], last_round: bool, played: int) -> dict[str, float]:
    """The measures of one round's pairing ``pairs`` (seat 0, seat 1 or None for the bye) against ``s``."""
    m = dict.fromkeys(MEASURES, 0.0)
    top = {p for p in s.score if last_round and s.score[p] > played}  # over 50% of the points so far (C.04.3 A.7)
    for a, b in pairs:
        if b is None:
            m["hard"] += s.byes[a] > 0
            m["float2"] += s.floated[a] == -1
            continue
        m["hard"] += b in s.met[a]
        d = s.score[a] - s.score[b]
        m["diff"] += abs(d) / 2
        m["diff2"] += (d / 2) ** 2
        if d:
            high, low = (a, b) if d > 0 else (b, a)
            m["float2"] += (s.floated[high] == -1) + (s.floated[low] == 1)
        exempt = bool(top & {a, b})
        for p, seat in ((a, 0), (b, 1)):
            want, strength = wish(s.colours[p])
            if want is not None and want != seat:
                m["unmet"] += 1
                m["strong"] += strength >= 2
            if not breaches(s.colours[p]) and breaches(s.colours[p] + [seat]):
                m["top" if exempt else "hard"] += 1
    return m


# --- the events ---------------------------------------------------------------------------------------------------


def play(t: Tournament, rng: random.Random) -> Tournament:
    r = len(t.boards) - 1
    for i, board in enumerate(t.boards[r]):
        if board.result is None:
            t = t.with_board(r, i, game=f"g{r}x{i}")
            t = t.record_result(f"g{r}x{i}", rng.choice((0, 0, 1, 1, None)))
    return t


def active_ids(t: Tournament) -> list[int]:
    return [e.id for e in t.active(t.round + 1)]


def one_event(args: tuple[int, int, int, str | None, bool]) -> dict:
    """One event of ``players`` over ``rounds``: per round both sides' measures and times (``verbose``: each round
    in which we are worse than the reference on any measure printed)."""
    players, rounds, seed, engine, verbose = args
    rng = random.Random(seed)
    t = Tournament(f"e{seed}", 1, 2, 3, "hongkong", Format.SWISS, rounds)
    for i in range(players):
        t = t.join(i + 1, f"P{i + 1}")
    t = t.start({e.id: rng.random() for e in t.entrants}).replace(boards=())
    out: dict = {
        "ours": [],
        "ref": [],
        "ms_ours": [],
        "ms_ref": [],
        "ref_none": 0,
        "ours_none": 0,
        "ours_none_ref_paired": 0,
    }
    late = 10**6
    with tempfile.TemporaryDirectory() as work:
        while t.phase is Phase.RUNNING and t.round < t.rounds:
            if t.round:  # between rounds: withdrawals and late joiners
                for _ in range(max(1, players // 50) if rng.random() < 0.5 else 0):
                    active = [e for e in t.entrants if e.withdrawn is None]
                    if len(active) > 3:
                        t = t.withdraw(rng.choice(active).id)
                for _ in range(max(1, players // 50) if rng.random() < 0.4 else 0):
                    late += 1
                    t = t.join(late, "Late")
            s = state(t)
            last = t.round + 1 == t.rounds
            theirs = None
            if engine:
                theirs, took = run_reference(engine, t, Path(work))
                out["ms_ref"].append(took * 1000)
            start = time.perf_counter()
            paired = t.next_round()
            out["ms_ours"].append((time.perf_counter() - start) * 1000)
            out["ref_none"] += bool(engine) and theirs is None
            if paired.phase is not Phase.RUNNING:  # no pairing: the event ends early
                out["ours_none"] += 1
                out["ours_none_ref_paired"] += theirs is not None
                break
            mine = [(b.first, b.second) for b in paired.boards[-1]]
            if theirs is not None:
                out["ref"].append(measure(s, theirs, last, t.round))
                out["ours"].append(measure(s, mine, last, t.round))
                if verbose and any(out["ours"][-1][k] > out["ref"][-1][k] for k in MEASURES):
                    cells = " ".join(f"{k} {out['ours'][-1][k]:g}|{out['ref'][-1][k]:g}" for k in MEASURES)
                    print(f"  event {seed} round {t.round + 1} ({len(active_ids(t))} players): {cells}", flush=True)
            elif not engine:
                out["ours"].append(measure(s, mine, last, t.round))
            t = play(paired, rng)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,10,16,33,64,100,200,1000")
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=0, help="rounds per event (0: by size)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each round in which we are worse on a measure")
    args = parser.parse_args()
    engine = reference()
    if engine is None:
        print("reference not installed (set BBP_PAIRINGS or put bbpPairings on PATH): our side only")
    else:
        print(f"reference: {engine}")
    header = "  ".join(f"{m:>15}" for m in MEASURES)
    print(f"{'players':>7} {'events':>6} {'rounds':>6}  {header}  {'ms ours':>9} {'ms ref':>9}")
    for players in (int(s) for s in args.sizes.split(",")):
        rounds = args.rounds or default_rounds(players)
        jobs = [
            (players, rounds, args.seed * 100_003 + players * 1009 + k, engine, args.verbose)
            for k in range(args.events)
        ]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(one_event, jobs))
        ours = [m for r in results for m in r["ours"]]
        ref = [m for r in results for m in r["ref"]]
        n = max(len(ours), 1)
        cells = []
        for key in MEASURES:
            mine = sum(m[key] for m in ours) / n
            if ref:
                theirs = sum(m[key] for m in ref) / len(ref)
                cells.append(f"{mine:7.2f}|{theirs:7.2f}")
            else:
                cells.append(f"{mine:15.2f}")
        ms_ours = sum(x for r in results for x in r["ms_ours"]) / max(sum(len(r["ms_ours"]) for r in results), 1)
        ms_ref = sum(x for r in results for x in r["ms_ref"]) / max(sum(len(r["ms_ref"]) for r in results), 1)
        print(f"{players:7} {args.events:6} {len(ours):6}  {'  '.join(cells)}  {ms_ours:9.1f} {ms_ref:9.1f}")
        if ref:
            worse = []
            for key in QUALITY:
                mine = sum(m[key] for m in ours)
                theirs = sum(m[key] for m in ref)
                worse.append(f"{key} {100 * (mine - theirs) / theirs:+.1f}%" if theirs else f"{key} {mine:g} vs 0")
            ref_none, ours_none, only_ours = (
                sum(r[key] for r in results) for key in ("ref_none", "ours_none", "ours_none_ref_paired")
            )
            print(
                f"{'':22}ours vs ref: " + ", ".join(worse) + f"; rounds with no pairing (the event ends): ref "
                f"{ref_none}, ours {ours_none} (of which the reference paired {only_ours})"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
