"""Benchmark Hong Kong move generation: random playouts with the engine against a naive reference.

Run on demand (not part of the tests)::

    python tests/bench/hongkong_movegen.py [--playouts 300] [--seed 1]

A random playout starts a new game and, until the game is over, plays a turn drawn uniformly from
``legal_moves()`` (the same ``random.Random`` sequence for both sides; the engine's is a lazy sequence, so a draw
writes out one turn, while the reference builds its list). The reference below is a straightforward
implementation written from ``engine/rules/hongkong.md`` alone: a board of stacks, one check per placement
following the placement rules in order, every turn built as text. It generates the same turns in the same order
as the engine, so both play exactly the same games; the bench checks that (same turns, same winner) before it
reports playouts per second of each, the ratio, and the cost of one ``legal_moves()`` at the start.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import hongkong  # noqa: E402

COLUMNS = "ABCDE"
SQUARES = [f"{c}{r}" for r in "12345" for c in COLUMNS]  # plot = row * 5 + column
START = {"S": 20, "Q": 5, "R": 5}


class Reference:
    """Hong Kong from the rules file, written plainly: ``stacks`` of ``(player, piece)`` per plot."""

    def __init__(self, first: int) -> None:
        self.stacks: list[list[tuple[int, str]]] = [[] for _ in range(25)]
        self.remaining = [dict(START), dict(START)]
        self.to_move = first
        self.turns = 0

    @staticmethod
    def neighbours(plot: int) -> list[int]:
        row, col = divmod(plot, 5)
        return [
            r * 5 + c
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < 5 and 0 <= c < 5
        ]

    def height(self, plot: int) -> int:
        """2 × blocks + 1 if roofed (blocks beat roofs)."""
        stack = self.stacks[plot]
        return 2 * sum(1 for _, k in stack if k != "R") + (1 if stack and stack[-1][1] == "R" else 0)

    def may_place(self, player: int, piece: str, plot: int) -> bool:
        """Placement rules 1–6, in order, against the board as it stands."""
        if self.remaining[player][piece] == 0:
            return False
        if self.turns == 0 and plot == 12:
            return False  # 1: nothing on C3 on the first turn
        stack = self.stacks[plot]
        if not stack:
            return True  # 2: an empty plot
        if stack[-1][1] == "R" or len(stack) >= 5:
            return False  # 3, 4: a roof, or five pieces
        if stack[-1][0] == player:
            return True  # 5: own building
        blocks = sum(1 for _, k in stack if k != "R")
        after = 2 * blocks + (1 if piece == "R" else 2)
        return any(
            self.stacks[n] and self.stacks[n][-1][0] == player and self.height(n) >= after
            for n in self.neighbours(plot)
        )  # 6: an adjacent own building at least as high

    def is_over(self) -> bool:
        return all(self.stacks) or all(r["S"] == 0 and r["R"] == 0 for r in self.remaining)

    def legal_turns(self) -> list[str]:
        """Singles (S then R, plots A1…E5), then doubles by quick-block plot — the engine's order."""
        if self.is_over():
            return []
        p = self.to_move
        turns = [f"{piece}@{SQUARES[x]}" for piece in "SR" for x in range(25) if self.may_place(p, piece, x)]
        for q in range(25):
            if self.may_place(p, "Q", q):
                self.stacks[q].append((p, "Q"))
                self.remaining[p]["Q"] -= 1
                turns += [
                    f"Q@{SQUARES[q]} {piece}@{SQUARES[x]}"
                    for piece in "SR"
                    for x in range(25)
                    if self.may_place(p, piece, x)
                ]
                self.stacks[q].pop()
                self.remaining[p]["Q"] += 1
        return turns

    def play(self, turn: str) -> None:
        """Apply a turn, each piece checked by the placement rules against the board as it stands."""
        for placement in turn.split():
            piece, square = placement.split("@")
            plot = SQUARES.index(square)
            if not self.may_place(self.to_move, piece, plot):
                raise ValueError(f"illegal placement {placement} in {turn}")
            self.stacks[plot].append((self.to_move, piece))
            self.remaining[self.to_move][piece] -= 1
        self.to_move = 1 - self.to_move
        self.turns += 1

    def winner(self) -> int | None:
        counts = [0, 0]
        for stack in self.stacks:
            if stack:
                counts[stack[-1][0]] += 1
        if counts[0] != counts[1]:
            return 0 if counts[0] > counts[1] else 1
        return self.stacks[12][-1][0] if self.stacks[12] else None


def playout_reference(rng: random.Random) -> tuple[list[str], int | None]:
    game, record = Reference(rng.randrange(2)), []
    while True:
        turns = game.legal_turns()
        if not turns:
            return record, game.winner()
        turn = rng.choice(turns)
        game.play(turn)
        record.append(turn)


def playout_engine(rng: random.Random) -> tuple[list[str], int | None]:
    game = hongkong.new_game(rng.randrange(2))
    while True:
        turns = game.legal_moves()
        if not turns:
            return game.moves, game.winner
        game.play(rng.choice(turns))


def timed(playouts: int, seed: int) -> tuple[float, float, list, list]:
    """CPU seconds spent in reference and engine playouts, and their games. The two alternate playout by playout
    and CPU time is counted (not wall-clock time), so other work on a shared machine skews the ratio little."""
    t_ref = t_eng = 0.0
    ref, eng = [], []
    for i in range(playouts):
        for playout, games in ((playout_reference, ref), (playout_engine, eng)):
            rng = random.Random(seed * 1_000_003 + i)
            start = time.process_time()
            games.append(playout(rng))
            elapsed = time.process_time() - start
            if playout is playout_reference:
                t_ref += elapsed
            else:
                t_eng += elapsed
    return t_ref, t_eng, ref, eng


def per_call(fn, seconds: float = 0.5) -> float:
    """CPU seconds per call of ``fn``, over about ``seconds`` of calls (three at least)."""
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds or n < 3:
        fn()
        n += 1
    return (time.process_time() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    t_ref, t_eng, ref, eng = timed(args.playouts, args.seed)
    if ref != eng:
        raise SystemExit("the engine and the reference played different games: they disagree on the rules or order")
    turns = sum(len(r[0]) for r in ref)
    print(
        f"{args.playouts} random playouts ({turns} turns, {turns / args.playouts:.1f} a game), seed {args.seed}:"
        " identical games"
    )
    print(f"  reference: {args.playouts / t_ref:8.1f} playouts/s  ({1e6 * t_ref / turns:7.1f} µs a turn)")
    print(f"  engine:    {args.playouts / t_eng:8.1f} playouts/s  ({1e6 * t_eng / turns:7.1f} µs a turn)")
    print(f"  ratio:     {t_ref / t_eng:8.1f}× the reference")
    start_ref, start_eng = Reference(0), hongkong.new_game(0)
    assert start_ref.legal_turns() == start_eng.legal_moves()
    ref_call, eng_call = per_call(start_ref.legal_turns), per_call(start_eng.legal_moves)
    written = per_call(lambda: list(start_eng.legal_moves()))
    print(
        f"legal_moves() at the start (1,200 turns): reference {1e3 * ref_call:.3f} ms, engine {1e3 * eng_call:.3f} ms"
        f" ({ref_call / eng_call:.1f}×; a lazy sequence), every turn written out {1e3 * written:.3f} ms"
        f" ({ref_call / written:.1f}×)"
    )


if __name__ == "__main__":
    main()
