"""The ranked matcher: one cycle over a large queue, and a queue simulated for 10 minutes.

Queues are drawn from N(1500, 250) ratings with 20 % pairs. The cycle times one
call of ``services.lobby.ranked.matching.match`` (pure, one core) at 1k, 10k and
100k waiting tickets, waits spread over two minutes: the median wall time and
the least CPU time of five calls (one at 100k; CPU time is what a shared machine
disturbs least); "growth" divides CPU time by n log n relative to 1k, so 1.0x
means n log n. "matched" is the share of players seated. The simulation feeds
Poisson arrivals, runs a cycle every 5 s, and reports the waits of the tickets
matched and how even their games were: mean |P(win) - 0.5| by the Elo curve on
team means.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from services.lobby.ranked.matching import Match, MatchRules, Ticket, match
from services.ratings.elo import expected

RULES = MatchRules()


def _ticket(rng: random.Random, n: int, since: float) -> Ticket:
    size = 2 if rng.random() < 0.2 else 1
    ratings = tuple(int(rng.gauss(1500, 250)) for _ in range(size))
    return Ticket(ticket_id=f"t{n}", players=tuple(f"p{n}.{k}" for k in range(size)),
                  ratings=ratings, since=since)


def _evenness(matches: list[Match]) -> float:
    return statistics.fmean(abs(expected(*m.team_ratings) - 0.5) for m in matches) \
        if matches else 0.0


def cycle() -> None:
    print(f"{'tickets':>8}{'wall ms':>9}{'cpu ms':>8}{'growth':>8}{'matched':>9}"
          f"{'mean gap':>10}{'mean spread':>13}{'|P-0.5|':>9}")
    base = None
    for n in (1_000, 10_000, 100_000):
        rng = random.Random(n)
        now = 1_000.0
        queue = [_ticket(rng, i, now - rng.uniform(0, 120)) for i in range(n)]
        walls, cpus = [], []
        for _ in range(5 if n < 100_000 else 1):
            wall, cpu = time.perf_counter(), time.process_time()
            found = match(queue, now, RULES)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        cpu_ms = min(cpus) * 1000
        per = cpu_ms / (n * math.log(n))
        base = base or per
        players = sum(len(t.players) for t in queue)
        share = 4 * len(found) / players
        print(f"{n:>8}{statistics.median(walls) * 1000:>9.1f}{cpu_ms:>8.1f}{per / base:>7.1f}x"
              f"{share:>9.0%}{statistics.fmean(m.gap for m in found):>10.1f}"
              f"{statistics.fmean(m.spread for m in found):>13.1f}{_evenness(found):>9.3f}")


def simulate(rate: float, minutes: float = 10,
             seed: int = 7) -> tuple[int, list[float], list[Match]]:
    """Tickets that arrived, the waits of those matched, and their games."""
    rng = random.Random(seed)
    waiting: dict[str, Ticket] = {}
    waits: list[float] = []
    games: list[Match] = []
    now, next_arrival, n = 0.0, rng.expovariate(rate), 0
    while now < minutes * 60:
        now += RULES.cycle
        while next_arrival <= now:
            t = _ticket(rng, n, next_arrival)
            waiting[t.ticket_id] = t
            n += 1
            next_arrival += rng.expovariate(rate)
        for m in match(list(waiting.values()), now, RULES):
            games.append(m)
            for tid in m.tickets:
                waits.append(now - waiting.pop(tid).since)
    return n, waits, games


def queue() -> None:
    print(f"{'arrivals/s':>10}{'tickets':>9}{'matched':>9}{'median wait s':>15}"
          f"{'p90 wait s':>12}{'|P-0.5|':>9}")
    for rate in (0.5, 5, 50):
        arrived, waits, games = simulate(rate)
        ordered = sorted(waits) or [math.nan]
        print(f"{rate:>10}{arrived:>9}{len(waits):>9}{ordered[len(ordered) // 2]:>15.1f}"
              f"{ordered[int(len(ordered) * 0.9)]:>12.1f}{_evenness(games):>9.3f}")


def main() -> None:
    print("matcher cycle, one call, one core")
    cycle()
    print("\nqueue simulation, 10 simulated minutes, a cycle every 5 s, everyone accepts")
    queue()


if __name__ == "__main__":
    main()
