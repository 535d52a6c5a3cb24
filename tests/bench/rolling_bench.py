"""A rolling upgrade under play: what the people noticed.

People play one-hand games against bots at a person's pace (a few seconds a move),
each through ``spades_client`` given both lobby copies' addresses. After a quiet
period, every copy of every service (two lobby copies, two game workers, ratings,
tournaments) is restarted one at a time: SIGTERM, the copy drains, the new process
starts on its port. Printed: commands that failed (goal 0: one sent again under its
own id after ``unavailable`` or a moved socket, then answered, worked), games lost
(goal 0: every game ends and verifies), the p99 command latency during the roll
against before it (goal: at most 1 s more), the longest a person waited for a command
to be accepted, and how long each restart took. Figures, not assertions.

    python -m tests.bench rolling_bench --people 100 --pace 1,4 --before 30
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.bench.servers import bench_servers
from tests.e2e.rolling import Tally, deployment, person, roll, unverified


async def _run(people: int, pace: tuple[float, float], before: float, gap: float,
               database_url: str, nats_url: str, logs: Path) -> None:
    tally, done = Tally(), asyncio.Event()
    with deployment(logs, database_url, nats_url, f"rb{uuid.uuid4().hex[:6]}",
                    drain_seconds=1.0) as d:
        tasks = [asyncio.create_task(person(d, f"Roller{i}", pace, done, tally, i))
                 for i in range(people)]
        while len(tally.latencies) < people:  # everyone seated and playing first
            await asyncio.sleep(0.5)
        await asyncio.sleep(before)
        rolled_at = time.monotonic()
        took = await roll(d, gap)
        rolled_until = time.monotonic()
        await asyncio.sleep(gap)
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    lost = sorted(set(tally.unfinished) | set(await unverified(database_url, tally.games)))
    during = [s for at, s in tally.latencies if rolled_at <= at < rolled_until]
    p99_before, p99_during = tally.p99(0, rolled_at), tally.p99(rolled_at, rolled_until)
    print(f"rolling upgrade, {people} people at {pace[0]}-{pace[1]} s a move, "
          f"{len(took)} restarts in {rolled_until - rolled_at:.1f} s")
    print(f"  commands {len(tally.latencies)}, failed {len(tally.failed)} (goal 0) "
          f"{tally.failed[:5]}")
    print(f"  games {len(tally.games)}, lost {len(lost)} (goal 0) {lost[:5]}")
    print(f"  p99 command latency: before {p99_before * 1000:.0f} ms, during the roll "
          f"{p99_during * 1000:.0f} ms (goal: at most 1000 ms more)")
    print(f"  longest wait for a command to be accepted during the roll: "
          f"{max(during, default=0.0) * 1000:.0f} ms")
    print(f"  sockets resumed {tally.resumes}, commands sent again {tally.retries}")
    print("  restart, SIGTERM to the new copy ready: "
          + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()))


def main() -> None:
    parser = argparse.ArgumentParser(prog="rolling_bench")
    parser.add_argument("--people", type=int, default=100)
    parser.add_argument("--pace", default="1,4", help="seconds a person thinks, min,max")
    parser.add_argument("--before", type=float, default=30.0)
    parser.add_argument("--gap", type=float, default=2.0)
    args, _ = parser.parse_known_args(sys.argv[2:] if sys.argv[1:2] == ["rolling_bench"]
                                      else sys.argv[1:])
    low, high = (float(x) for x in args.pace.split(","))
    with bench_servers() as (database_url, nats_url), \
            tempfile.TemporaryDirectory(prefix="spades-roll-") as logs:
        asyncio.run(_run(args.people, (low, high), args.before, args.gap, database_url,
                         nats_url, Path(logs)))


if __name__ == "__main__":
    main()
