"""The computer's strength against a standard: each level of :mod:`engine.ai` against a plain UCT.

The standard (:class:`PlainUCT`) is the project's own and independent of ``engine/ai``: it knows the games only
through the contract (:mod:`engine.contract`: ``legal_moves``, ``play``, ``copy``, ``to_move``, ``is_over``,
``winner``) and is textbook UCT (Kocsis & Szepesvári 2006; the UCB1 rule of Auer, Cesa-Bianchi & Fischer 2002):
selection by UCB1 with c = √2, one child expanded per iteration, a uniformly random playout to the end of the game,
the result (1 win, ½ draw, 0 loss for the player who made each move) backed up; no heuristic anywhere; it plays the
most visited move when its wall-clock budget per move is spent.

Run on demand (not part of the tests; on a shared machine use ``nice``)::

    nice -n 10 python tests/bench/strength.py [--games 8] [--levels easy,medium,hard] [--factor 1,4]
        [--configs hongkong,castle,castle+lair,garden,garden+lair,inner,inner+lair] [--baseline-games 8]
        [--baseline-seconds 0.4] [--scale 1.0] [--seed 1] [--jobs 1]

Pairings, per configuration (Hong Kong; Hong on each board, with and without the lair):

* each level against UCT, once for each ``--factor`` F: UCT's budget for each of its moves is F times the mean
  wall-clock time the level has taken per move so far in that game (before the level's first move: the time the
  level takes to choose a move in the starting position, measured and discarded), so both sides get the same time
  in total at F = 1 and they share whatever CPU the host gives equally;
* UCT against itself at ``--baseline-seconds`` per move: the configuration's balance between the roles.

``--games`` games per pairing and configuration, in pairs: Hong Kong plays the same seeds once with the level
moving first and once with UCT first; Hong plays the same setup (board, stones, lair drawn from one seed) once
with the level as emperor and once as dragon master. The seeds follow from ``--seed`` alone (:func:`tasks`), so a
run is reproduced by repeating its command (up to the wall-clock budgets: UCT's playouts per move depend on the
machine). ``--scale`` multiplies every level's node budget and wall-clock cap (below 1: a faster, weaker level,
and so a faster run; 1 is the bot's own setting).

Printed: win rates with 95% Wilson score intervals per game, configuration and role (seat), the time per move of
each side (median, p95, max), and the targets of issue 26: hard ≥ 90% at equal time in every configuration and
role; at 4× time ≥ 75% wherever UCT against itself is balanced (each role wins 35–65%); and the base castle's role
balance.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import engine.hong as hong  # noqa: E402
import engine.hongkong as hongkong  # noqa: E402
from engine.ai import LEVELS, SETTINGS, choose_move  # noqa: E402
from engine.contract import Game  # noqa: E402

#: The exploration constant of UCB1 (Auer et al. 2002): √2 for rewards in [0, 1].
C = math.sqrt(2)
#: z for a two-sided 95% interval.
Z95 = 1.959963984540054


# ---------------------------------------------------------------------------------------------------------------
# The standard: plain UCT


@dataclass(eq=False)
class _Node:
    """One node of the UCT tree: the position after ``move``, played by ``mover`` (players need not alternate: a
    Hong Kong quick block or a Hong dragon summon gives the same player another move)."""

    move: str | None
    mover: int
    parent: _Node | None
    untried: list[str]
    children: list[_Node] = field(default_factory=list)
    visits: int = 0
    reward: float = 0.0  # sum of results for ``mover``: 1 win, 0.5 draw, 0 loss


def _result(game: Game, player: int) -> float:
    """1.0 if ``player`` won the finished ``game``, 0.5 for a draw, 0.0 for a loss."""
    w = game.winner
    return 0.5 if w is None else (1.0 if w == player else 0.0)


class PlainUCT:
    """Plain UCT over any :class:`engine.contract.Game`: UCB1 (c = √2), uniform random playouts, no heuristics.

    Args:
        rng: the source of every random choice (expansion order, playouts).
        c: the exploration constant (default √2).

    After :meth:`choose`, :attr:`iterations` is the number of playouts the last search ran.
    """

    def __init__(self, rng: random.Random, c: float = C) -> None:
        self.rng = rng
        self.c = c
        self.iterations = 0

    def choose(self, game: Game, seconds: float | None = None, iterations: int | None = None) -> str:
        """The most visited move at the root after searching from ``game`` (left unchanged) for ``seconds`` of wall
        clock and/or ``iterations`` playouts, whichever runs out first (at least one playout each way).

        Raises:
            ValueError: the game is over, or neither ``seconds`` nor ``iterations`` is given.
        """
        if game.is_over:
            raise ValueError("the game is over: no move to choose")
        if seconds is None and iterations is None:
            raise ValueError("give a time (seconds) or an iteration budget")
        moves = list(game.legal_moves())
        if len(moves) == 1:
            self.iterations = 0
            return moves[0]
        rng = self.rng
        root = _Node(None, 1 - game.to_move, None, moves)
        rng.shuffle(root.untried)
        deadline = None if seconds is None else time.perf_counter() + seconds
        n = 0
        log, sqrt, c = math.log, math.sqrt, self.c
        while True:
            g = game.copy()
            node = root
            # selection: UCB1 among fully expanded children
            while not node.untried and node.children:
                k = c * sqrt(log(node.visits))
                node = max(node.children, key=lambda ch: ch.reward / ch.visits + k / sqrt(ch.visits))
                g.play(node.move)  # type: ignore[arg-type]
            # expansion: one untried move (the list was shuffled when the node was made)
            if node.untried:
                move = node.untried.pop()
                mover = g.to_move
                g.play(move)
                child = _Node(move, mover, node, [] if g.is_over else list(g.legal_moves()))
                rng.shuffle(child.untried)
                node.children.append(child)
                node = child
            # simulation: uniformly random moves to the end
            while not g.is_over:
                g.play(rng.choice(g.legal_moves()))
            # backpropagation
            w = g.winner
            cur: _Node | None = node
            while cur is not None:
                cur.visits += 1
                cur.reward += 0.5 if w is None else (1.0 if w == cur.mover else 0.0)
                cur = cur.parent
            n += 1
            if iterations is not None and n >= iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations = n
        return max(root.children, key=lambda ch: ch.visits).move  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------------------------
# Statistics


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (Wilson 1927) for a win rate of ``wins`` out of ``games``: ``(low, high)`` in
    [0, 1]; ``(0.0, 1.0)`` for no games. ``z`` = 1.96 gives the 95% interval."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    d = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / d
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) of ``values`` by linear interpolation between order statistics."""
    s = sorted(values)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# ---------------------------------------------------------------------------------------------------------------
# Configurations and games


@dataclass(frozen=True)
class Config:
    """A game configuration: its name, the engine's kind, and how to set up a game from a seed."""

    name: str
    kind: str
    make: Callable[[int], Game]
    #: what seat 0 / seat 1 are called in the tables
    seats: tuple[str, str]


def _hong(board: str, lair: bool) -> Callable[[int], Game]:
    return lambda seed: hong.new_game(board, expansion=lair, seed=seed)


CONFIGS: dict[str, Config] = {"hongkong": Config("hongkong", "hongkong", lambda seed: hongkong.new_game(0), ("", ""))}
for _board in ("castle", "garden", "inner"):
    for _lair in (False, True):
        _name = _board + ("+lair" if _lair else "")
        CONFIGS[_name] = Config(_name, "hong", _hong(_board, _lair), ("emperor", "dragon master"))
DEFAULT_CONFIGS = tuple(CONFIGS)


@dataclass(frozen=True)
class Task:
    """One game to play. ``a`` is a level or ``"uct"``; ``b`` is always UCT. ``a_seat``: the seat ``a`` plays (0
    or 1; Hong: 0 is the emperor). ``first``: the seat that moves first (Hong Kong; Hong's emperor always does).
    ``factor``: UCT's time as a multiple of the level's (``a`` a level), else ``seconds`` per move for both."""

    config: str
    a: str
    factor: float
    a_seat: int
    first: int
    setup_seed: int
    seed: int
    scale: float = 1.0
    seconds: float = 0.0


def tasks(
    configs: Iterable[str],
    levels: Iterable[str],
    factors: Iterable[float],
    games: int,
    seed: int,
    baseline_games: int = 0,
    baseline_seconds: float = 0.4,
    scale: float = 1.0,
) -> list[Task]:
    """Every game of a run, in a fixed order; game ``i`` of a pairing uses setup ``i // 2`` (so the two games of
    a pair share their setup) and swaps sides with ``i % 2``: Hong Kong's first player, Hong's roles. Seeds depend
    only on ``seed``, the configuration, the pairing and ``i``."""
    out: list[Task] = []
    for ci, name in enumerate(configs):
        kind = CONFIGS[name].kind
        pairings = [(lv, f, games) for lv in levels for f in factors] + [("uct", 1.0, baseline_games)]
        for pi, (a, factor, n) in enumerate(pairings):
            for i in range(n):
                setup = seed * 1_000_003 + ci * 10_007 + i // 2
                s = ((seed * 1_000_003 + ci) * 101 + pi) * 10_007 + i
                if kind == "hongkong":
                    out.append(Task(name, a, factor, 0, i % 2, setup, s, scale, baseline_seconds))
                else:
                    out.append(Task(name, a, factor, i % 2, 0, setup, s, scale, baseline_seconds))
    return out


def _level_move(game: Game, level: str, seed: int, scale: float) -> str:
    if scale == 1.0:
        return choose_move(game, level, seed=seed)
    s = SETTINGS[game.kind][level]
    return choose_move(game, level, seed=seed, budget=int(s["nodes"] * scale), seconds=s["seconds"] * scale)


def play(task: Task) -> dict[str, Any]:
    """Play one game of ``task``; return its result: ``winner`` (seat or None), ``a_seat``, ``moves`` and the
    wall-clock seconds per move of each side (``"a"``, ``"b"``) and UCT's playouts per move."""
    cfg = CONFIGS[task.config]
    game = cfg.make(task.setup_seed)
    if cfg.kind == "hongkong":
        game = hongkong.new_game(task.first)
    rng = random.Random(task.seed)
    uct = PlainUCT(rng)
    times: dict[str, list[float]] = {"a": [], "b": []}
    playouts: list[int] = []
    level = task.a if task.a in LEVELS else None
    n = 0
    while not game.is_over:
        side = "a" if game.to_move == task.a_seat else "b"
        t0 = time.perf_counter()
        if side == "a" and level is not None:
            move = _level_move(game, level, task.seed * 1000 + n, task.scale)
        else:
            if level is None:
                budget = task.seconds
            else:
                if not times["a"]:  # the level has not moved yet: time it on this position, discard its move
                    t1 = time.perf_counter()
                    _level_move(game, level, task.seed * 1000 + n, task.scale)
                    times["probe"] = [time.perf_counter() - t1]
                    t0 = time.perf_counter()
                spent = times["a"] or times["probe"]
                budget = task.factor * sum(spent) / len(spent)
            move = uct.choose(game, seconds=budget)
            playouts.append(uct.iterations)
        times[side].append(time.perf_counter() - t0)
        game.play(move)
        n += 1
    times.pop("probe", None)
    return {"task": task, "winner": game.winner, "moves": n, "times": times, "playouts": playouts}


def run(all_tasks: list[Task], jobs: int = 1, progress: bool = False) -> list[dict[str, Any]]:
    """Play ``all_tasks`` in ``jobs`` processes (1: in this one); results in the order of ``all_tasks``."""
    started = time.perf_counter()
    results: list[dict[str, Any] | None] = [None] * len(all_tasks)
    order = sorted(range(len(all_tasks)), key=lambda i: -_cost(all_tasks[i]))  # slowest first: the pool ends together

    def note(done: int) -> None:
        if progress and (done % 10 == 0 or done == len(all_tasks)):
            print(
                f"  {done}/{len(all_tasks)} games, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True
            )

    if jobs <= 1:
        for done, i in enumerate(order, 1):
            results[i] = play(all_tasks[i])
            note(done)
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for done, (i, r) in enumerate(pool.imap_unordered(_play_indexed, [(i, all_tasks[i]) for i in order]), 1):
                results[i] = r
                note(done)
    return [r for r in results if r is not None]


def _play_indexed(item: tuple[int, Task]) -> tuple[int, dict[str, Any]]:
    return item[0], play(item[1])


def _cost(t: Task) -> float:
    if t.a == "uct":
        return 2 * t.seconds
    return (1 + t.factor) * {"easy": 0.01, "medium": 0.05, "hard": 0.5}.get(t.a, 0.5) * t.scale


# ---------------------------------------------------------------------------------------------------------------
# Report


def _rate(wins: int, games: int) -> str:
    if not games:
        return f"{'-':>6} {'':>13}"
    lo, hi = wilson(wins, games)
    return f"{100 * wins / games:5.1f}% [{100 * lo:3.0f}–{100 * hi:3.0f}%]"


#: The roles in the tables' order.
ROLES = ("moves first", "moves second", "emperor", "dragon master")


def _role_name(cfg: Config, seat: int, first: int) -> str:
    if cfg.kind == "hongkong":
        return "moves first" if seat == first else "moves second"
    return cfg.seats[seat]


def _factor_text(f: float) -> str:
    return f"{f:g}×"


def report(results: list[dict[str, Any]], out: Callable[[str], None] = print) -> dict[str, Any]:
    """Print the tables; return the numbers the targets read: ``rates[(level, factor, config, role)] =
    (wins, games)`` (role ``"all"`` too, and config ``"hong"`` for all of Hong's) and ``balance[(config,
    role)] = (wins, games)`` for UCT against itself."""
    rates: dict[tuple[str, float, str, str], list[int]] = defaultdict(lambda: [0, 0])
    balance: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    draws: dict[tuple[str, float, str], int] = defaultdict(int)
    times: dict[tuple[str, float, str, str], list[float]] = defaultdict(list)
    playouts: dict[tuple[str, float, str], list[int]] = defaultdict(list)
    for r in results:
        t: Task = r["task"]
        cfg = CONFIGS[t.config]
        if t.a == "uct":
            for seat in (0, 1):
                role = _role_name(cfg, seat, t.first)
                cell = balance[(t.config, role)]
                cell[0] += r["winner"] == seat
                cell[1] += 1
            if r["winner"] is None:
                draws[("uct", 1.0, t.config)] += 1
        else:
            role = _role_name(cfg, t.a_seat, t.first)
            for c in (t.config, cfg.kind if cfg.kind == "hong" else None, "all games"):
                if c is None:
                    continue
                for ro in (role, "all"):
                    cell = rates[(t.a, t.factor, c, ro)]
                    cell[0] += r["winner"] == t.a_seat
                    cell[1] += 1
            if r["winner"] is None:
                draws[(t.a, t.factor, t.config)] += 1
        kindkey = "hongkong" if cfg.kind == "hongkong" else "hong"
        times[(t.a, t.factor, kindkey, "a")].extend(r["times"]["a"])
        times[(t.a, t.factor, kindkey, "b")].extend(r["times"]["b"])
        playouts[(t.a, t.factor, kindkey)].extend(r["playouts"])

    pairings = sorted({(k[0], k[1]) for k in rates}, key=lambda p: (LEVELS.index(p[0]), p[1]))
    configs = [c for c in CONFIGS if any(k[2] == c for k in rates) or any(k[0] == c for k in balance)]
    for a, f in pairings:
        out(f"\n{a} against UCT given {_factor_text(f)} {a}'s time — {a}'s win rate [95% Wilson interval]")
        out(f"{'configuration':<16}{'role of ' + a:<16}{'games':>6}{'wins':>6}{'draws':>6}   win rate")
        for c in [*configs, "hong", "all games"]:
            roles = [ro for ro in ROLES if (a, f, c, ro) in rates]
            if not roles:
                continue
            for ro in [*roles, "all"]:
                w, n = rates[(a, f, c, ro)]
                d = draws.get((a, f, c), 0) if ro == "all" and c in CONFIGS else ""
                label = c if ro == roles[0] else ""
                out(f"{label:<16}{'both' if ro == 'all' else ro:<16}{n:>6}{w:>6}{d!s:>6}   {_rate(w, n)}")

    if balance:
        out("\nUCT against itself — each role's win rate [95% Wilson interval] (balanced: 35–65% for each role)")
        out(f"{'configuration':<16}{'role':<16}{'games':>6}{'wins':>6}   win rate        balanced?")
        for c in configs:
            roles = [ro for ro in ROLES if (c, ro) in balance]
            for ro in roles:
                w, n = balance[(c, ro)]
                out(
                    f"{(c if ro == roles[0] else ''):<16}{ro:<16}{n:>6}{w:>6}   {_rate(w, n)}   {_balanced_text(balance, c)}"
                )

    out("\nTime per move, wall clock (s): the level's and UCT's, and UCT's playouts per move")
    out(f"{'pairing':<18}{'game':<10}{'side':<7}{'moves':>6}{'median':>8}{'p95':>8}{'max':>8}")
    keys = sorted({k[:3] for k in times}, key=lambda k: ((LEVELS + ("uct",)).index(k[0]), k[1], k[2]))
    for a, f, kind in keys:
        for side in ("a", "b"):
            ts = times[(a, f, kind, side)]
            if not ts:
                continue
            name = (a if side == "a" else "uct") if a != "uct" else f"uct {side.upper()}"
            pairing = f"{a}/uct {_factor_text(f)}" if a != "uct" else "uct/uct"
            out(
                f"{pairing:<18}{kind:<10}{name:<7}{len(ts):>6}{statistics.median(ts):>8.3f}"
                f"{percentile(ts, 95):>8.3f}{max(ts):>8.3f}"
            )
        ps = playouts[(a, f, kind)]
        if ps:
            out(f"{'':<18}{'':<10}{'uct playouts per move: median ' + str(int(statistics.median(ps))):<40}")
    return {"rates": {k: tuple(v) for k, v in rates.items()}, "balance": {k: tuple(v) for k, v in balance.items()}}


def _balanced(balance: dict, config: str) -> bool | None:
    cells = [v for k, v in balance.items() if k[0] == config]
    if not cells or not all(n for _, n in cells):
        return None
    return all(0.35 <= w / n <= 0.65 for w, n in cells)


def _balanced_text(balance: dict, config: str) -> str:
    b = _balanced(balance, config)
    return "not run" if b is None else ("yes" if b else "no")


def targets(numbers: dict[str, Any], out: Callable[[str], None] = print) -> None:
    """Print issue 26's targets against the measured ``numbers`` (from :func:`report`): PASS/FAIL on the point
    estimate, and whether the 95% interval alone shows it."""
    rates, balance = numbers["rates"], numbers["balance"]

    def verdict(w: int, n: int, target: float) -> str:
        lo, hi = wilson(w, n)
        mark = "PASS" if w / n >= target else "FAIL"
        sure = "shown at 95%" if lo >= target else ("refuted at 95%" if hi < target else "not shown at 95%")
        return f"[{mark}] {w}/{n} = {_rate(w, n).strip()} ({sure})"

    out("\nTargets (issue 26)")
    cells = [(k, v) for k, v in rates.items() if k[0] == "hard" and k[1] == 1.0 and k[2] in CONFIGS]
    if not cells:
        out("  hard at equal time: not run")
    for (a, f, c, ro), (w, n) in sorted(cells):
        out(f"  hard ≥ 90% at equal time, {c}, {'both roles' if ro == 'all' else ro}: {verdict(w, n, 0.90)}")
    cells = [(k, v) for k, v in rates.items() if k[0] == "hard" and k[1] == 4.0 and k[2] in CONFIGS]
    for (a, f, c, ro), (w, n) in sorted(cells):
        b = _balanced(balance, c)
        where = (
            "UCT vs UCT balanced" if b else ("UCT vs UCT not balanced: no target" if b is False else "no balance run")
        )
        role = "both roles" if ro == "all" else ro
        out(f"  hard ≥ 75% at 4× UCT time, {c}, {role} ({where}): " + (verdict(w, n, 0.75) if b else f"{w}/{n}"))
    if ("castle", "emperor") in balance:
        w, n = balance[("castle", "dragon master")]
        lo, hi = wilson(w, n)
        favoured = lo > 0.5 and w / n > 0.65
        out(
            f"  base castle, UCT vs UCT: the dragon master wins {w}/{n} = {_rate(w, n).strip()}: "
            + ("the dragon master is clearly favoured" if favoured else "no clear advantage shown")
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games per level, factor and configuration (even)")
    parser.add_argument("--levels", default="hard", help="comma-separated levels, or 'none' (default hard)")
    parser.add_argument("--configs", default=",".join(DEFAULT_CONFIGS), help="comma-separated configurations")
    parser.add_argument("--factor", default="1,4", help="UCT's time as multiples of the level's (default 1,4)")
    parser.add_argument("--baseline-games", type=int, default=8, help="UCT-vs-UCT games per configuration")
    parser.add_argument("--baseline-seconds", type=float, default=0.4, help="UCT-vs-UCT seconds per move")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the levels' node budgets and caps")
    parser.add_argument("--seed", type=int, default=1, help="seeds every setup and player (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="games in parallel processes (default 1)")
    args = parser.parse_args(argv)
    levels = [] if args.levels == "none" else [s.strip() for s in args.levels.split(",")]
    for lv in levels:
        if lv not in LEVELS:
            parser.error(f"unknown level {lv!r}: choose from {', '.join(LEVELS)}")
    configs = [s.strip() for s in args.configs.split(",")]
    for c in configs:
        if c not in CONFIGS:
            parser.error(f"unknown configuration {c!r}: choose from {', '.join(CONFIGS)}")
    factors = [float(x) for x in args.factor.split(",")]
    all_tasks = tasks(
        configs, levels, factors, args.games, args.seed, args.baseline_games, args.baseline_seconds, args.scale
    )
    print(
        f"{len(all_tasks)} games, {args.jobs} job(s); python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
        f"levels at {args.scale:g}× their node budget"
        + (f"; UCT vs UCT at {args.baseline_seconds:g} s per move" if args.baseline_games else ""),
        flush=True,
    )
    print("command: " + " ".join(sys.argv if argv is None else ["strength.py", *argv]), flush=True)
    started = time.perf_counter()
    results = run(all_tasks, args.jobs, progress=True)
    print(f"done in {time.perf_counter() - started:.0f} s")
    targets(report(results))


if __name__ == "__main__":
    main()
