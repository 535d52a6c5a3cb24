"""Tournament formats on one core: a Swiss round's pairing at 1,024 and 16,384 teams
(mid-tournament, after five rounds of random results), a double-elimination bracket
for 4,096 teams drawn and played out, and standings of 16,384 teams after 11 rounds.

Figures are printed, never asserted: wall time, and the process's CPU time in
brackets (the two differ when the machine is shared).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from schemas.tournaments.events import Outcome
from services.tournaments import formats
from services.tournaments.formats import bracket, double_elimination
from services.tournaments.formats.swiss import EXACT_LIMIT, SwissTeam, pair
from services.tournaments.standings import Result, standings
from tests.services.tournaments.driver import swiss_history


def timed(fn: Callable[[], Any]) -> tuple[Any, str]:
    """Run ``fn``; its result and "wall ms (cpu ms)"."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, (f"{(time.perf_counter() - w0) * 1e3:9.1f} ms "
                 f"({(time.process_time() - c0) * 1e3:.1f} ms cpu)")


def swiss_field(n: int, rounds: int, rng: random.Random) -> list[SwissTeam]:
    """The standings of an ``n``-team Swiss after ``rounds`` randomly decided rounds."""
    return swiss_history(n, rounds + 1, rng, EXACT_LIMIT)[-1][0]


def bench_swiss(n: int) -> None:
    field = swiss_field(n, 5, random.Random(n))
    drawn, took = timed(lambda: pair(field, "ab" * 16))
    print(f"swiss: round 6 pairing, {n:6d} teams          {took}  ({len(drawn.pairs)} pairs)")


def bench_swiss_exact() -> None:
    field = swiss_field(100, 5, random.Random(100))
    _, took = timed(lambda: pair(field, "ab" * 16))
    print(f"swiss: round 6 pairing,    100 teams (exact)  {took}")


def bench_double_elimination(n: int = 4096) -> None:
    rng = random.Random(n)
    seeds = [f"t{i:05d}" for i in range(n)]
    matches, took = timed(lambda: double_elimination.draw(n))
    print(f"double elimination, {n} teams: draw         {took}  ({len(matches)} matches)")
    outcomes: dict[str, Outcome] = {}

    def play_out() -> int:
        waves = 0
        while True:
            slots = bracket.resolve(matches, seeds, outcomes)
            ready = [m.match_id for m in matches if slots[m.match_id].ready]
            if not ready:
                assert bracket.champion(matches, slots)
                return waves
            waves += 1
            for match_id in ready:
                outcomes[match_id] = rng.choice(("home", "away"))

    waves, took = timed(play_out)
    print(f"double elimination, {n} teams: played out   {took}  ({waves} waves)")
    _, took = timed(lambda: bracket.resolve(matches, seeds, outcomes))
    print(f"double elimination, {n} teams: one resolve  {took}  (what each result costs)")


def bench_standings(n: int = 16_384, rounds: int = 11) -> None:
    rng = random.Random(n)
    seeds = [f"t{i:05d}" for i in range(n)]
    results = []
    for r in range(1, rounds + 1):
        order = seeds[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=True):
            home, away = rng.randrange(200, 600), rng.randrange(200, 600)
            outcome: Outcome = "home" if home > away else "away" if away > home else "draw"
            results.append(Result(r, a, b, outcome, scores=(home, away),
                                  bags_taken=(rng.randrange(8), rng.randrange(8))))
    for kind in ("swiss", "round_robin"):
        breaks = formats.of(kind).tiebreak_order(())
        _, took = timed(lambda: standings(seeds, results, tiebreaks=breaks))  # noqa: B023
        print(f"standings ({kind:11s}): {n} teams x {rounds} rounds  {took}")


def main() -> None:
    bench_swiss_exact()
    for n in (1024, 16_384):
        bench_swiss(n)
    bench_double_elimination()
    bench_standings()


if __name__ == "__main__":
    main()
