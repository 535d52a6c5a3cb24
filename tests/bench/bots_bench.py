"""Bot speed on one core, and bot strength measured duplicate style.

Speed: random playouts on the fast path (with and without dealing), ``basic``
rollouts, and whole bot hands through ``decide`` for each level. Rates are per
second of this process's CPU time, so a busy machine does not distort them;
wall time is printed beside.

Decisions: the CPU time of each bot decision (where there was more than one
legal move) of whole hands, as mean, median and p99 beside the targets (an
``expert`` decision at most 50 ms at p99, a ``basic`` one under 1 ms).

Blind nil: from 200 behind, per level and rules (with and without an exchange,
and one where it is made more often than not but worth too little), how often
the team behind bids it and makes it, beside the price the bots decide by.

Strength: every deal is played twice with the pairs swapping seats, so the
cards cancel and what is left is bidding and play. ``basic`` pairs against
uniformly random players: a match is one deal played both ways, won by the
higher total (a tie counts half). Then the levels players choose, each against
the next (``beginner`` vs ``basic``, ``basic`` vs ``expert``): the mean
difference of the pairs' totals per deal, with its 95% interval, so "harder"
is a measured claim. Each deal is a fresh hand from 0-0 under the house rules.
Deals, random players and the search are all seeded: the same seed prints the
same strength figures. OpenSpiel's ISMCTS bot is the outside yardstick, in
``ismcts_bench``.

    python -m tests.bench.bots_bench [--deals N] [--seed S] [--budget B] [--workers W]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from random import Random

from msgspec.structs import replace

from engine.bots import LEVELS, blind, choose
from engine.bots.arena import bot, deal, duplicate, play_hand, random_player
from engine.bots.basic import policy
from engine.bots.expert import rollout
from engine.bots.playout import Scorer, deal_random, fast_of, random_playout
from engine.bots.seen import contracts_of
from engine.decide import step
from engine.play import legal_cards
from engine.presets import PRESETS
from engine.state import PLAY, GameState
from schemas import commands as cmd

RULES = PRESETS["house"]
BENCH_BUDGET = 24  # sampled deals per expert decision: 2,000 deals in about five minutes


class _Clock:
    """CPU time of this process, CPU time of finished worker processes, and wall time."""

    def __enter__(self) -> _Clock:
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        self.children = _children_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.cpu
        self.wall = time.perf_counter() - self.wall
        self.children = _children_cpu() - self.children


def interval(diffs: Sequence[float]) -> tuple[float, float]:
    """The mean of per-deal differences and the half-width of its 95% interval."""
    mean = statistics.fmean(diffs)
    return mean, (1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bench_playouts(n: int = 40_000) -> None:
    f = fast_of(RULES)
    scorer = Scorer(RULES)
    rng = Random(1)
    rnd = rng.random
    with _Clock() as c:
        for _ in range(n):
            hands = deal_random(f, rng)
            t = random_playout(f, hands, [], 0, False, [0, 0, 0, 0], rnd)
            scorer.team(3, 3, False, False, t[0], t[2], 0)
            scorer.team(3, 3, False, False, t[1], t[3], 0)
    print(f"playout: random hands, deal+play+score {n / c.cpu:10.0f} hands/s  "
          f"(wall {n / c.wall:.0f})")
    fixed = deal_random(f, rng)
    with _Clock() as c:
        for _ in range(n):
            random_playout(f, fixed[:], [], 0, False, [0, 0, 0, 0], rnd)
    print(f"playout: random hands from a deal      {n / c.cpu:10.0f} hands/s  "
          f"(wall {n / c.wall:.0f})")
    bids = (3, 3, 3, 3)
    contracts = contracts_of(RULES.board, bids)
    m = n // 10
    with _Clock() as c:
        for _ in range(m):
            hands = deal_random(f, rng)
            first = policy(f, 0, hands[0], [], 0, 0, bids, [0] * 4, False, [0] * 4, contracts)
            rollout(f, 0, first, hands, [], 0, 0, bids, [0] * 4, False, [0] * 4, contracts)
    print(f"playout: basic-policy rollouts         {m / c.cpu:10.0f} hands/s  "
          f"(wall {m / c.wall:.0f})")


def bench_bot_hands(level: str, hands: int, budget: int) -> None:
    rng = Random(5)
    players = [bot(level, seed=i, budget=budget) for i in range(4)]
    with _Clock() as c:
        for i in range(hands):
            play_hand(RULES, i % 4, deal(rng, RULES), players)
    extra = f", budget {budget}" if level == "expert" else ""
    print(f"bots: {level:6} hands, four seats{extra:11} {hands / c.cpu:10.2f} hands/s  "
          f"(wall {hands / c.wall:.2f})")


def bench_decisions(level: str, hands: int, target_ms: float) -> None:
    """Per-decision CPU time of ``level`` at all four seats, where a choice was to make."""
    rng = Random(6)
    times: list[float] = []
    for i in range(hands):
        times += _timed_hand(level, i, deal(rng, RULES))
    times.sort()
    p99 = times[int(0.99 * (len(times) - 1))] * 1e3
    print(f"decisions: {level:8} {len(times):5} decisions: mean "
          f"{statistics.fmean(times) * 1e3:6.2f} ms, median {times[len(times) // 2] * 1e3:6.2f}"
          f" ms, p99 {p99:6.2f} ms (target p99 <= {target_ms:g} ms: "
          f"{'met' if p99 <= target_ms else 'MISSED'}), max {times[-1] * 1e3:.1f} ms")


def _timed_hand(level: str, i: int, hands: tuple[tuple[str, ...], ...]) -> list[float]:
    state = step(GameState(), cmd.StartGame(rules=RULES))[0]
    state = step(state, cmd.DealHand(dealer=i % 4, hands=hands))[0]
    out = []
    while state.hands_played == 0:
        seat = next(s for s in range(4) if state.waiting >> s & 1)
        many = state.phase != PLAY or legal_cards(state, seat).bit_count() > 1
        t0 = time.process_time()
        c = choose(state, seat, level, seed=i)
        if many:
            out.append(time.process_time() - t0)
        state = step(state, c)[0]
    return out


def bench_nils(expert_deals: int, seed: int) -> None:
    """The expert's ordinary nils: how often bid and made, beside the blind nils below."""
    nils = made = 0
    for i in range(expert_deals):
        final, _ = play_hand(RULES, i % 4, _deal(seed, i), [bot("expert", seed=i)] * 4)
        for s in range(4):
            if final.bids[s] == 0:
                nils += 1
                made += final.tricks[s] == 0
    print(f"nils: expert x4, {expert_deals} hands: nil bid on {nils / (4 * expert_deals):.1%} "
          f"of seats, made {made} of {nils} ({made / max(nils, 1):.0%})")


BLIND_RULES = (("house", RULES), ("house, 1-card exchange", replace(RULES, blind_nil_pass=1)),
               ("house, 2-card exchange", replace(RULES, blind_nil_pass=2)),
               ("house, 1-card exchange, worth 50",
                replace(RULES, blind_nil_pass=1, blind_nil_value=50)))


def _blind_hand(args: tuple[str, int, int, int, int]) -> tuple[int, int, int]:
    """(blind nils bid by seats 0 and 2 from 200 behind, made, the team's points less the
    other team's); a deal where nobody bids blind nil is not played out."""
    level, which, seed, i, behind = args
    rules = BLIND_RULES[which][1]
    state = step(GameState(), cmd.StartGame(rules=rules, scores=(0, behind)))[0]
    state = step(state, cmd.DealHand(dealer=i % 4, hands=_deal(seed, i)))[0]
    while state.hands_played == 0:
        if behind and state.phase == PLAY and not state.blind & 0b0101:
            return 0, 0, 0
        seat = next(x for x in range(4) if state.waiting >> x & 1)
        state = step(state, choose(state, seat, level, seed=i, budget=BENCH_BUDGET))[0]
    bids = [s for s in (0, 2) if state.blind >> s & 1]
    teams = state.sheet[-1].teams
    return len(bids), sum(state.tricks[s] == 0 for s in bids), teams[0].delta - teams[1].delta


def bench_blind_nil(deals: int, seed: int, workers: int) -> None:
    """Blind nil from 200 behind, by level and rules: how often the team behind bids it,
    how often it is made, and (``basic`` only: the expert would cost as much again) the
    points a bid gained against the same deal played at 0-0, where it is not offered.
    Beside it, the price the bots decide by (``engine.bots.blind``)."""
    for which, (name, rules) in enumerate(BLIND_RULES):
        p = blind.price(rules)
        print(f"blind nil: {name}: priced {p.gain:+.1f} +/- {p.error:.1f} points a deal, "
              f"made {p.made:.0%} ({'taken' if p.favourable else 'left alone'})")
        for level in ("basic", "expert"):
            with _Clock() as c, ProcessPoolExecutor(workers) as pool:
                res = list(pool.map(_blind_hand, [(level, which, seed, i, 200)
                                                  for i in range(deals)], chunksize=8))
            bids = sum(n for n, _, _ in res)
            made = sum(m for _, m, _ in res)
            extra = ""
            if level == "basic" and bids:
                with ProcessPoolExecutor(workers) as pool:
                    looked = list(pool.map(_blind_hand, [(level, which, seed, i, 0)
                                                         for i in range(deals)], chunksize=8))
                gain = sum(r[2] - q[2] for r, q in zip(res, looked, strict=True) if r[0])
                extra = f", {gain / bids:+.1f} points a bid against looking"
            print(f"blind nil: {name}: {level:6} x4, {deals} deals 200 behind: bid {bids}, "
                  f"made {made} ({made / max(bids, 1):.1%}){extra}  (wall {c.wall:.0f} s)",
                  flush=True)


def bench_basic_habits(deals: int, seed: int) -> None:
    """How ``basic`` bids and plays against itself: the habits the complaints are about."""
    made = teams = bags = nils = nils_made = 0
    players = [bot("basic")] * 4
    for i in range(deals):
        final, _ = play_hand(RULES, i % 4, _deal(seed, i), players)
        for t, ts in enumerate(final.sheet[-1].teams):
            if ts.contract:
                teams += 1
                made += ts.made
                bags += ts.overtricks if ts.made else 0
            for seat in (t, t + 2):
                if final.bids[seat] == 0:
                    nils += 1
                    nils_made += final.tricks[seat] == 0
    print(f"habits: basic x4, {deals} hands: contracts made {made / teams:.1%}, "
          f"{bags / max(made, 1):.2f} bags per made contract, nil bid in "
          f"{nils / (4 * deals):.1%} of seats, nils made {nils_made / max(nils, 1):.1%}")


def _deal(seed: int, i: int) -> tuple[tuple[str, ...], ...]:
    return deal(Random(f"{seed}:deal:{i}"), RULES)


def _basic_vs_random(args: tuple[int, int]) -> tuple[int, int]:
    seed, i = args
    rnd = random_player(Random(f"{seed}:random:{i}"))
    return duplicate(RULES, i % 4, _deal(seed, i), (bot("basic"),) * 2, (rnd, rnd))


def _ladder(args: tuple[str, str, int, int, int]) -> tuple[int, int]:
    """One deal both ways: the harder level's pair against the easier one's."""
    hard, easy, seed, i, budget = args
    h = bot(hard, seed=seed * 100_003 + i, budget=budget)
    e = bot(easy, seed=seed * 100_003 + i, budget=budget)
    return duplicate(RULES, i % 4, _deal(seed, i), (h, h), (e, e))


def bench_strength(deals: int, seed: int, budget: int, workers: int) -> None:
    with _Clock() as c, ProcessPoolExecutor(workers) as pool:
        res = list(pool.map(_basic_vs_random, [(seed, i) for i in range(deals)], chunksize=16))
    won = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a, b in res)
    print(f"strength: basic vs random, {deals} deals x2: basic wins {won / deals:.1%} of matches"
          f"  (mean totals per deal {statistics.fmean(a for a, _ in res):+.1f} vs "
          f"{statistics.fmean(b for _, b in res):+.1f}; wall {c.wall:.0f} s, "
          f"CPU {c.children:.0f} s)")
    sys.stdout.flush()
    for hard, easy in zip(LEVELS[1:], LEVELS, strict=False):
        with _Clock() as c, ProcessPoolExecutor(workers) as pool:
            res = list(pool.map(_ladder, [(hard, easy, seed, i, budget) for i in range(deals)],
                                chunksize=4))
        diffs = [a - b for a, b in res]
        mean, half = interval(diffs)
        won = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
        extra = f" (budget {budget})" if hard == "expert" else ""
        print(f"strength: {hard}{extra} vs {easy}, {deals} deals x2, seed {seed}: mean "
              f"difference {mean:+.1f} points per deal, 95% CI [{mean - half:+.1f}, "
              f"{mean + half:+.1f}]; {hard} wins {won / deals:.1%} of deal pairs  "
              f"(wall {c.wall:.0f} s, CPU {c.children:.0f} s, {workers} workers)", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="bots_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=BENCH_BUDGET)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    # Run from the shared bench entry point the argv is that runner's: take what is ours.
    args, _ = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    bench_playouts()
    bench_bot_hands("basic", 200, args.budget)
    bench_bot_hands("expert", 4, args.budget)
    bench_decisions("basic", 100, 1.0)
    bench_decisions("expert", 12, 50.0)
    bench_basic_habits(min(args.deals, 1000), args.seed)
    bench_nils(40, args.seed)
    bench_blind_nil(args.deals, args.seed, args.workers)
    sys.stdout.flush()
    bench_strength(args.deals, args.seed, args.budget, args.workers)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
