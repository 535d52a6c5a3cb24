"""The fair-play detector against a league of bots: detection and false accusations.

Series of quick matches (four hands each), every one written as an interchange
match record and weighed by ``engine.fairplay`` as a deployment would weigh it
after the game; after each game every pair is judged again on all its games so
far, as the online queue does, and the hand at which a pair was first flagged is
kept. Planted: partnerships whose expert search deals the partner's real cards on
100%, 50% or 25% of card decisions, against honest opponents that are a fixed
partnership or change each game; honest series of the strongest experts against
each other (a fixed partnership both sides); two accounts that trade wins (they
take turns throwing their meetings), each also playing games against others.

A planted pair's series ends when it is flagged (its opponents' hands then stop
there too). Printed: each series as it ends; then per kind, the share of planted
pairs flagged within the window (the targets beside them), the share of honest
pairs flagged at any time in the same window (partners, and opponents that met),
and the CPU one game's scoring took (mean and worst). Nothing is asserted, least of all on time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import partial
from random import Random
from typing import NamedTuple

from engine.fairplay import Game, judge, weigh_records
from engine.fairplay.pairs import MIN_MEETINGS
from engine.presets import resolve
from tests.bench.fairplay_league import Account, play_match

RULES = resolve("quick")
HONEST = (("expert", 32), ("expert", 16), ("expert", 8), ("basic", 0))


class Outcome(NamedTuple):
    """One series: when each pair was first flagged (hands, or None), per kind."""

    first_flag: dict[tuple[tuple[str, str], str], int | None]
    kinds: dict[tuple[tuple[str, str], str], str]
    hands_of: dict[tuple[tuple[str, str], str], int]  # hands each pair played
    cpu: list[float]  # scoring CPU per game
    hands: int


def _honest(name: str, rng: Random) -> Account:
    level, budget = HONEST[rng.randrange(len(HONEST))]
    return Account(name, level, budget or 16)


def _run(kind: str, peek: float, window: int, seed: int, fixed: bool) -> Outcome:
    """One series of games to ``window`` hands: a planted pair (``peek`` > 0) or the
    strongest honest pair, against a fixed partnership or new opponents each game."""
    rng = Random(seed)
    tag = f"s{seed}"
    cheat = (Account(f"{tag}.a", peek=peek), Account(f"{tag}.b", peek=peek))
    if kind == "strongest":
        cheat = (Account(f"{tag}.a", budget=32), Account(f"{tag}.b", budget=32))
    opp = (_honest(f"{tag}.o1", rng), _honest(f"{tag}.o2", rng))
    games: list[Game] = []
    kinds: dict[tuple[tuple[str, str], str], str] = {}
    first: dict[tuple[tuple[str, str], str], int | None] = {}
    played: dict[tuple[tuple[str, str], str], int] = {}
    cpu: list[float] = []
    hands = 0
    n = 0
    caught = False
    while hands < window and not caught:  # a planted pair's series ends at its flag
        if kind == "strongest":
            opp = (Account(f"{tag}.o1", budget=32), Account(f"{tag}.o2", budget=32))
        elif not fixed:
            opp = (_honest(f"{tag}.r{n}a", rng), _honest(f"{tag}.r{n}b", rng))
        seats = (cheat[0], opp[0], cheat[1], opp[1]) if n % 2 else (
            opp[0], cheat[0], opp[1], cheat[1])
        rec = play_match(RULES, seats, rng, f"{tag}-{n}", n)
        t = time.process_time()
        g = weigh_records(rec["game_id"], tuple(rec["players"]), n, [rec], seed=seed + n)
        games.append(g)
        cpu.append(time.process_time() - t)
        hands += g.hands
        n += 1
        for v in judge(games):
            key = (v.players, v.relation)
            planted = v.relation == "partners" and v.players == (cheat[0].name, cheat[1].name)
            kinds[key] = kind if planted and peek else "honest " + v.relation
            played[key] = v.hands
            if v.flagged and first.get(key) is None:
                first[key] = hands
                caught = caught or (planted and peek > 0)
            first.setdefault(key, None)
    return Outcome(first, kinds, played, cpu, hands)


def _trading(window_meetings: int, seed: int) -> Outcome:
    """Two accounts that take turns throwing their meetings, and games with others."""
    rng = Random(seed)
    tag = f"trade{seed}"
    x, y = Account(f"{tag}.x"), Account(f"{tag}.y")
    games: list[Game] = []
    first: dict[tuple[tuple[str, str], str], int | None] = {}
    kinds: dict[tuple[tuple[str, str], str], str] = {}
    played: dict[tuple[tuple[str, str], str], int] = {}
    cpu: list[float] = []
    meetings = 0
    n = 0
    caught = False
    while meetings < window_meetings and not caught:
        # A meeting, a game of each of the two with others, a game of others only.
        others = [_honest(f"{tag}.h{n}{i}", rng) for i in range(4)]
        thrower = ""
        if n % 4 == 0:
            seats = (x, y, others[0], others[1])
            thrower = (x, y)[meetings % 2].name
            meetings += 1
        elif n % 4 == 3:
            seats = (others[0], others[1], others[2], others[3])
        else:
            seats = ((x, y)[n % 4 - 1], others[0], others[1], others[2])
        rec = play_match(RULES, seats, rng, f"{tag}-{n}", n, thrower=thrower)
        t = time.process_time()
        games.append(weigh_records(rec["game_id"], tuple(rec["players"]), n, [rec],
                                   seed=seed + n))
        cpu.append(time.process_time() - t)
        n += 1
        for v in judge(games):
            key = (v.players, v.relation)
            traded = v.players == tuple(sorted((x.name, y.name))) and v.relation == "opponents"
            kinds[key] = "trades wins" if traded else "honest " + v.relation
            played[key] = v.hands
            if v.flagged and first.get(key) is None:
                first[key] = meetings if traded else sum(g.hands for g in games)
                caught = caught or traded
            first.setdefault(key, None)
    return Outcome(first, kinds, played, cpu, sum(g.hands for g in games))


CHECKPOINTS = (50, 100, 200, 500, 1000)
HONEST_PARTNERS = 40  # hands together before an honest partnership counts
HONEST_OPPONENTS = 4 * MIN_MEETINGS  # hands of meetings before honest opponents count
TARGETS = {"sees 100%": (200, 0.95), "sees 25%": (1000, 0.80)}


def _rate(firsts: list[int | None], within: int) -> str:
    if not firsts:
        return "-"
    hit = sum(1 for f in firsts if f is not None and f <= within)
    return f"{hit}/{len(firsts)} ({hit / len(firsts):.0%})"


def _report(outcomes: list[Outcome], windows: dict[str, int]) -> None:
    by_kind: dict[str, list[int | None]] = {}
    for o in outcomes:
        for key, f in o.first_flag.items():
            kind = o.kinds[key]
            # Honest pairs count once they played enough to be judged at all.
            if o.hands_of[key] >= (HONEST_PARTNERS if kind == "honest partners" else
                                   HONEST_OPPONENTS if kind == "honest opponents" else 0):
                by_kind.setdefault(kind, []).append(f)
    kinds = [k for k in ("sees 100%", "sees 50%", "sees 25%", "honest partners",
                         "honest opponents") if k in by_kind]
    print("pairs flagged within N hands (planted: detection; honest: false accusation)")
    print("hands  " + "  ".join(f"{k:>18}" for k in kinds))
    for c in CHECKPOINTS:
        print(f"{c:>5}  " + "  ".join(f"{_rate(by_kind[k], c):>18}" for k in kinds))
    for k, (w, want) in TARGETS.items():
        if k in by_kind:
            print(f"{k}: flagged within {w} hands: {_rate(by_kind[k], w)} (target >= {want:.0%})")
    honest = by_kind.get("honest partners", []) + by_kind.get("honest opponents", [])
    longest = max(windows.values(), default=0)
    print(f"honest pairs flagged within {longest} hands: {_rate(honest, longest)} "
          f"(target <= 1%); partners {_rate(by_kind.get('honest partners', []), longest)}, "
          f"opponents {_rate(by_kind.get('honest opponents', []), longest)}")
    trades = by_kind.get("trades wins", [])
    if trades:
        print(f"trades wins: flagged within 30 meetings: {_rate(trades, 30)} (target: all); "
              f"meetings at the flag: {sorted(f for f in trades if f is not None)}")
    cpu = [c for o in outcomes for c in o.cpu]
    hands = sum(o.hands for o in outcomes)
    print(f"scoring CPU per game of {RULES.preset} ({hands / len(cpu):.1f} hands): mean "
          f"{sum(cpu) / len(cpu):.2f} s, worst {max(cpu):.2f} s; per hand "
          f"{sum(cpu) / hands:.3f} s (target: at most 2 s a game)")


def cpu_classic(games: int, seed: int) -> None:
    """Scoring CPU per game of the longer ``classic`` matches (to 500) of experts."""
    rng = Random(seed)
    seats = tuple(Account(n, budget=16) for n in "abcd")
    cpu, hands = [], []
    for n in range(games):
        rec = play_match(resolve("classic"), seats, rng, f"c{n}", n)
        t = time.process_time()
        g = weigh_records(rec["game_id"], tuple(rec["players"]), n, [rec], seed=n)
        cpu.append(time.process_time() - t)
        hands.append(g.hands)
    per_hand = sum(cpu) / sum(hands)
    print(f"scoring CPU per classic game ({sum(hands) / games:.1f} hands, {min(hands)}-"
          f"{max(hands)}): mean {sum(cpu) / games:.2f} s, worst {max(cpu):.2f} s; per hand "
          f"{per_hand:.3f} s, so {12 * per_hand:.2f} s for a 12-hand game "
          f"(target: at most 2 s a game)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="fairplay_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, nargs=3, default=(3, 1, 1), metavar=("P100", "P50",
                    "P25"), help="planted partnerships peeking 100%%, 50%%, 25%%")
    ap.add_argument("--windows", type=int, nargs=3, default=(200, 500, 1000),
                    metavar=("H100", "H50", "H25"), help="hands each planted series plays")
    ap.add_argument("--strongest", type=int, nargs=2, default=(1, 400), metavar=("N", "HANDS"),
                    help="series of the strongest experts, fixed partnerships, honest")
    ap.add_argument("--trading", type=int, default=1, help="pairs that trade wins")
    ap.add_argument("--meetings", type=int, default=30, help="meetings of each such pair")
    ap.add_argument("--classic", type=int, default=3, help="classic games timed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    args, _ = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    windows = {"sees 100%": args.windows[0], "sees 50%": args.windows[1],
               "sees 25%": args.windows[2]}
    runs: list[Callable[[], Outcome]] = []
    seed = args.seed * 1000
    for (kind, w), n, peek in zip(windows.items(), args.pairs, (1.0, 0.5, 0.25), strict=True):
        for i in range(n):
            seed += 1
            runs.append(partial(_run, kind, peek, w, seed, i % 2 == 0))
    for _ in range(args.strongest[0]):
        seed += 1
        runs.append(partial(_run, "strongest", 0.0, args.strongest[1], seed, True))
    for _ in range(args.trading):
        seed += 1
        runs.append(partial(_trading, args.meetings, seed))
    t = time.time()
    outcomes = []
    with ProcessPoolExecutor(args.jobs) as pool:
        # The longest series first, so the jobs end together; each reported as it ends.
        for done in as_completed([pool.submit(_call, r) for r in reversed(runs)]):
            o = done.result()
            outcomes.append(o)
            flagged = sorted((o.kinds[k], f) for k, f in o.first_flag.items()
                             if f is not None)
            print(f"  series of {o.hands} hands: flagged (kind, at) {flagged}", flush=True)
    if runs:
        print(f"{len(runs)} series, {sum(o.hands for o in outcomes)} hands, "
              f"{time.time() - t:.0f} s wall, {args.jobs} jobs")
        _report(outcomes, windows)
    if args.classic:
        cpu_classic(args.classic, args.seed)


def _call(run: Callable[[], Outcome]) -> Outcome:
    return run()
