"""The share of telling decisions that follow the partner's real hand, for one planted
pair peeking on a share of its card decisions, against a new honest pair each match.

A reduced form of ``fairplay_bench``'s peeking series (docs/fairplay.md, "A quarter
of decisions peeked"): no series ends at its flag and no pair is judged after every
match, so a 1,000-hand series costs only its matches and their weighing. Printed at
each checkpoint: the peeking pair's telling decisions, their share and its score, and
the same for the honest pairs pooled. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import sys
from random import Random

from engine.fairplay import weigh_records
from engine.presets import resolve
from tests.bench.fairplay_league import Account, play_match

CHECKPOINTS = (200, 500, 1000, 2000)


def _line(counts: list[int]) -> str:
    a, b = counts
    z = (a - b - 1) / math.sqrt(a + b) if a + b else 0.0
    return f"{a / max(1, a + b):.1%} of {a + b}, score {z:.2f}"


def series(seed: int, peek: float, hands: int) -> None:
    rng = Random(seed)
    told = {0: [0, 0], 1: [0, 0]}  # team 0 peeks; team 1 is a new honest pair each match
    played, n, marks = 0, 0, [c for c in CHECKPOINTS if c <= hands]
    while played < hands:
        seats = (Account("peek.a", peek=peek), Account(f"o1.{n}"), Account("peek.b", peek=peek),
                 Account(f"o2.{n}", level=("expert", "basic")[n % 2]))
        rec = play_match(resolve("quick"), seats, rng, f"s{seed}-{n}", n)
        g = weigh_records(rec["game_id"], tuple(rec["players"]), n, [rec], seed=seed * 1000 + n)
        played, n = played + g.hands, n + 1
        for c in g.cards:
            if c.told:
                told[c.seat & 1][c.told < 0] += 1
        while marks and played >= marks[0]:
            print(f"  seed {seed}, {played} hands: peeking pair {_line(told[0])}; "
                  f"honest pairs {_line(told[1])}", flush=True)
            marks.pop(0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="fairplay_share_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--peek", type=float, default=0.25, help="share of card decisions peeked")
    ap.add_argument("--hands", type=int, default=1000, help="hands each series plays")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1], help="one series each")
    args, _ = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    print(f"a pair peeking on {args.peek:.0%} of card decisions, {args.hands} hands a series "
          "(flagged at a score of 4)")
    for seed in args.seeds:
        series(seed, args.peek, args.hands)
