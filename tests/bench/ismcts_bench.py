"""The bots against OpenSpiel's generic ISMCTS bot on OpenSpiel's own ``spades`` game.

An independent check of strength: the same deals played both ways round (our pair
in seats 0/2, then in 1/3), under OpenSpiel's rules and scoring (classic, failed
nil helping the partner, which the engine's ``help_partner`` option scores alike:
every hand's returns are checked against the engine's sheet). The figure is the
mean over deals of our pair's two totals less the ISMCTS pair's, with its 95%
interval; beside it the CPU milliseconds per decision of each side, so "16 times
the time" is read off, not assumed. Deals and the ISMCTS bot are seeded: the same
arguments print the same match. OpenSpiel is an optional extra (``.venv/bin/pip
install open_spiel``); without it this bench says so and stops.

    python -m tests.bench ismcts_bench [--deals N] [--seed S] [--sims 40,640,...]
        [--levels expert,basic] [--uct-c C] [--workers W] [--every N] [--first I]

Only decisions with more than one legal move are timed (and asked of ISMCTS);
choose ``--sims`` so the printed ratio is the time multiple wanted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from random import Random

from engine.bots.arena import bot, deal
from engine.presets import PRESETS
from tests.bench import openspiel_side
from tests.bench.bots_bench import interval

UCT_C = 2.0  # OpenSpiel's examples' exploration constant


def _deal(seed: int, i: int) -> tuple[tuple[str, ...], ...]:
    return deal(Random(f"{seed}:ismcts:{i}"), PRESETS["classic"])


def one_deal(args: tuple[str, int, int, int, float]) -> tuple[float, list[float], list[float]]:
    """Our pair's two totals less ISMCTS's on deal ``i``, and the CPU seconds per decision."""
    import pyspiel

    level, sims, seed, i, uct_c = args
    game = pyspiel.load_game("spades")
    hands = _deal(seed, i)
    diff = 0.0
    ours: list[float] = []
    theirs: list[float] = []
    for team in (0, 1):
        them = openspiel_side.ismcts_bot(game, sims, seed * 1_000_003 + i * 2 + team, uct_c)
        returns, o, t = openspiel_side.play_deal(hands, bot(level, seed=seed * 7919 + i),
                                                 them, team)
        diff += returns[team] - returns[1 - team]
        ours += o
        theirs += t
    return diff, ours, theirs


def match(level: str, sims: int, deals: int, seed: int, uct_c: float, workers: int,
          every: int, first: int = 0) -> None:
    """Play deals ``first`` to ``first + deals - 1``; print the running figure every
    ``every`` deals, then the final one. Deals are seeded by their number, so a match
    split into ranges (on several machines) is the same match."""
    jobs = [(level, sims, seed, i, uct_c) for i in range(first, first + deals)]
    res: list[tuple[float, list[float], list[float]]] = []
    with ProcessPoolExecutor(workers) as pool:
        for r in pool.map(one_deal, jobs, chunksize=1):
            res.append(r)
            if len(res) % every == 0 and len(res) < deals:
                _report(level, sims, uct_c, seed, res, f"so far from deal {first}")
    _report(level, sims, uct_c, seed, res, f"from deal {first}" if first else "")


def _report(level: str, sims: int, uct_c: float, seed: int,
            res: list[tuple[float, list[float], list[float]]], note: str) -> None:
    diffs = [d for d, _, _ in res]
    ours = sorted(x for _, o, _ in res for x in o)
    theirs = [x for _, _, t in res for x in t]
    mean, half = interval(diffs)
    mine, other = statistics.fmean(ours) * 1e3, statistics.fmean(theirs) * 1e3
    print(f"ismcts: {level} vs ISMCTS {sims} simulations (uct_c {uct_c:g}), {len(res)} deals "
          f"x2{' ' + note if note else ''}, seed {seed}: {mean:+.1f} points per deal, 95% CI "
          f"[{mean - half:+.1f}, {mean + half:+.1f}]; ms per decision ours {mine:.1f} (p99 "
          f"{ours[int(0.99 * (len(ours) - 1))] * 1e3:.1f}) / ISMCTS {other:.1f} "
          f"= {other / mine:.1f}x our time", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="ismcts_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sims", default="640")
    ap.add_argument("--levels", default="expert")
    ap.add_argument("--uct-c", type=float, default=UCT_C)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--every", type=int, default=50, help="print the running figure")
    ap.add_argument("--first", type=int, default=0, help="number of the first deal")
    args, _ = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    if not openspiel_side.available():
        print("ismcts: OpenSpiel is not installed (.venv/bin/pip install open_spiel): skipped")
        return
    for level in args.levels.split(","):
        for sims in map(int, args.sims.split(",")):
            match(level, sims, args.deals, args.seed, args.uct_c, args.workers, args.every,
                  args.first)


if __name__ == "__main__":
    main()
