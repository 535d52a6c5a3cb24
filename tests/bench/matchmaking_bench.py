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

Then the queue through the lobby at a busy hour. ``--people``
registered players (default 10,000) arrive at ``--rate`` a second (Poisson), each on its
own WebSocket to one of two lobby gateways, and join the queue alone; one who is not
offered a match within its patience (exponential, mean ``--patience`` s) leaves the queue
and goes. One offered a match accepts at once and, once the game starts, goes. The
lobby runs as deployed: a matchmaker cycle every 5 s, the documented window (±100,
100 wider every 15 s, anyone after 90 s), a ready check of 15 s; two game workers and
the ratings service run beside it (a ranked game here is one hand whose first clock,
100 ms, forfeits it, so the games weigh little).

It prints the time from the fourth join of each match (the last of its four players'
``queue_join``) to its offer (the last of the four ``match_found`` notes) as p50/p99
beside the cycle, how many people waited at once at the peak, and checks that each
offer's four ratings sat within every one of its players' windows (each window as
documented, from the ``since`` the lobby gave the player and the offer's time: a
window only widens, so this is at least the matcher's) and that nobody was offered a
second match while an offer stood or after leaving.

The players' accounts and ratings are written straight into their tables before the
run (10,000 argon2 registrations would take the machine many minutes and are not what
is measured); every join, leave, offer and acceptance goes through the lobby.

``python -m tests.bench matchmaking_bench [--people 2000] [--rate 50] [--patience 60]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import argon2
import asyncpg
from websockets.asyncio.client import connect

from services import catalog
from services.lobby.accounts.auth import Tokens
from services.lobby.accounts.names import skeleton
from services.lobby.ranked.matching import Match, MatchRules, Ticket, match
from services.platform import dbadmin, migrations
from services.ratings.elo import expected
from tests.bench.platform_bench import processes_cpu
from tests.bench.servers import bench_servers, p50_p99_seconds
from tests.services.lobby.harness import SECRET, Service, lobby_env, start

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


GAME_RULES = json.dumps({"preset": "classic", "target": None, "max_hands": 1, "abandon": "forfeit",
                    "clocks": {"bid_ms": 100, "play_ms": 100, "single_card_ms": 100,
                               "bank_blocks": 0, "bank_block_ms": 0}})
ACCEPT_S = 15
CYCLE_S = RULES.cycle


@dataclass
class Person:
    player_id: str
    name: str
    rating: int
    arrive: float
    patience: float
    joined: float = 0.0  # monotonic time of its queue_join
    since_ms: int = 0  # the lobby's ``since``
    offers: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    cancelled: int = 0  # ready checks that failed and put it back
    left: float = 0.0
    started: float = 0.0
    errors: list[dict[str, Any]] = field(default_factory=list)


async def seed(url: str, n: int, rng: random.Random) -> list[Person]:
    """``n`` registered accounts with ratings from N(1500, 250), written into their tables."""
    tag = uuid.uuid4().hex[:5]
    people = [Person(str(uuid.uuid4()), f"rq{tag}{i}", int(rng.gauss(1500, 250)), 0.0,
                     rng.expovariate(1.0)) for i in range(n)]
    hashed = argon2.PasswordHasher().hash("bench-password")
    conn = await asyncpg.connect(url)
    try:
        await conn.copy_records_to_table(
            "accounts", schema_name="lobby",
            columns=["player_id", "name", "name_skeleton", "password_hash"],
            records=[(uuid.UUID(p.player_id), p.name, skeleton(p.name), hashed) for p in people])
        await conn.copy_records_to_table(
            "ratings", schema_name="ratings", columns=["player_id", "rating", "peak"],
            records=[(p.player_id, p.rating, p.rating) for p in people])
    finally:
        await conn.close()
    return people


async def visit(p: Person, ws_url: str, token: str, t0: float) -> None:
    """One person: arrive, join, wait (leaving when out of patience), accept, go."""
    await asyncio.sleep(max(0.0, t0 + p.arrive - time.monotonic()))
    async with connect(f"{ws_url}?token={token}", max_size=2**22) as ws:
        await ws.recv()  # welcome
        p.joined = time.monotonic()
        await ws.send(json.dumps({"type": "queue_join", "partner": None}))
        give_up = p.joined + p.patience
        while True:
            # Patience runs while no offer stands (none yet, or each one cancelled).
            left_s = give_up - time.monotonic() if len(p.offers) <= p.cancelled else None
            if left_s is not None and left_s <= 0:
                p.left = time.monotonic()
                await ws.send(json.dumps({"type": "queue_leave"}))
                return
            try:
                raw = await asyncio.wait_for(ws.recv(), left_s)
            except TimeoutError:
                continue
            frame = json.loads(raw)
            if frame["type"] == "error":
                p.errors.append(frame)
            if frame["type"] != "note":
                continue
            note = frame["note"]
            if note["kind"] == "queue_status" and note["state"] == "waiting":
                p.since_ms = p.since_ms or note["since"]
            elif note["kind"] == "match_found":
                p.offers.append((time.monotonic(), note))
                await ws.send(json.dumps({"type": "queue_accept", "match_id": note["match_id"]}))
            elif note["kind"] == "match_cancelled":
                p.cancelled += 1
            elif note["kind"] == "match_started":
                p.started = time.monotonic()
                return


def analyse(people: list[Person], t0: float, wall: float) -> None:
    by_id = {p.player_id: p for p in people}
    matches: dict[str, list[tuple[Person, float, dict[str, Any]]]] = {}
    for p in people:
        for at, note in p.offers:
            matches.setdefault(note["match_id"], []).append((p, at, note))
    latency, outside = [], 0
    for seats in matches.values():
        if len(seats) == 4:
            latency.append(max(at for _, at, _ in seats) - max(p.joined for p, _, _ in seats))
        note = seats[0][2]
        offered_ms = note["accept_by"] - ACCEPT_S * 1000
        players = [by_id[x["player_id"]] for team in note["teams"] for x in team
                   if x["player_id"] in by_id]
        windows = [RULES.window_after((offered_ms - q.since_ms) / 1000) for q in players]
        each = list(zip(players, windows, strict=True))
        if any(abs(a.rating - b.rating) > min(wa, wb) for a, wa in each for b, wb in each):
            outside += 1
    twice = sum(1 for p in people if len(p.offers) > p.cancelled + 1)
    after_leaving = sum(1 for p in people if p.left and p.offers and p.offers[-1][0] > p.left)
    left = sum(1 for p in people if p.left and not p.started)
    errors = Counter(e.get("code", "?") for p in people for e in p.errors)
    gone = [p.left or (p.offers[0][0] if p.offers else t0 + wall) for p in people if p.joined]
    events = sorted([(p.joined, 1) for p in people if p.joined] + [(g, -1) for g in gone])
    waiting = peak = 0
    for _, step in events:
        waiting += step
        peak = max(peak, waiting)
    print(f"{len(people)} people in {wall:.0f} s; {peak} waiting at once at the peak; "
          f"{len(matches)} matches offered, {sum(1 for p in people if p.started)} people "
          f"started a game, {left} left unmatched; error frames: {dict(errors) or 'none'}")
    print(f"  fourth join to offer: {p50_p99_seconds(latency)}  (a matchmaker cycle is "
          f"{CYCLE_S:g} s; {len(latency)} matches)")
    print(f"  offers outside the documented window: {outside} (of {len(matches)}); offered "
          f"a second match while one stood: {twice}; offered after leaving: {after_leaving}",
          flush=True)


async def run_lobby(db_url: str, nats_url: str, n: int, rate: float, patience: float,
              timeout: float) -> None:
    name = f"spades_qbench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(db_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, catalog.all_migrations())
    await conn.close()
    rng = random.Random(7)
    people = await seed(url, n, rng)
    arrive = 0.0
    for p in people:
        arrive += rng.expovariate(rate)
        p.arrive, p.patience = arrive, p.patience * patience
    logs = Path(tempfile.mkdtemp(prefix="spades-qbench-"))
    env = lobby_env(url, nats_url, f"qb{uuid.uuid4().hex[:6]}", SPADES_LOG_LEVEL="warning",
                    SPADES_RANKED_MIN_GAMES="0", SPADES_RANKED_RULES=GAME_RULES)
    procs: dict[str, Service] = {}
    try:
        for i in range(2):
            procs[f"worker-{i}"] = start("game", logs / f"worker-{i}.log", **env)
        procs["ratings"] = start("ratings", logs / "ratings.log", **env)
        for i in range(2):
            procs[f"lobby-{i}"] = start("lobby", logs / f"lobby-{i}.log", **env)
        lobbies = [procs["lobby-0"], procs["lobby-1"]]
        tokens = Tokens(SECRET, 24 * 3600)
        print(f"{n} people arriving at {rate:g}/s (patience mean {patience:g} s), two lobby "
              "gateways (the matchmaker on one), two game workers, ratings, NATS, Postgres",
              flush=True)
        before = processes_cpu(procs)
        t0 = time.monotonic() + 1.0
        visits = [visit(p, lobbies[i % 2].ws_url, tokens.issue(p.player_id, p.name, False).token,
                        t0) for i, p in enumerate(people)]
        results = await asyncio.wait_for(asyncio.gather(*visits, return_exceptions=True),
                                         timeout)
        wall = time.monotonic() - t0
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            print(f"  {len(failed)} visits failed, first: {failed[0]!r}")
        analyse(people, t0, wall)
        after = processes_cpu(procs)
        print("  CPU: " + ", ".join(f"{k} {after[k] - before.get(k, 0.0):.1f} s"
                                    for k in sorted(after)), flush=True)
        lines = [line for log in sorted(logs.glob("*.log"))
                 for line in log.read_text(errors="replace").splitlines()]
        print(f"  the services' logs: {sum('deadlock detected' in x for x in lines)} lines"
              f" with 'deadlock detected', {sum('batch_failed' in x for x in lines)}"
              " consumer batches applied again one message at a time", flush=True)
    finally:
        for svc in reversed(procs.values()):
            svc.stop()
        await dbadmin.drop(db_url, name)
        shutil.rmtree(logs, ignore_errors=True)


def main() -> None:
    print("matcher cycle, one call, one core")
    cycle()
    print("\nqueue simulation, 10 simulated minutes, a cycle every 5 s, everyone accepts")
    queue()
    parser = argparse.ArgumentParser(prog="matchmaking_bench")
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=100.0, help="arrivals a second")
    parser.add_argument("--patience", type=float, default=60.0,
                        help="mean seconds an unmatched person waits before leaving")
    parser.add_argument("--timeout", type=float, default=1800.0)
    args, _ = parser.parse_known_args(sys.argv[2:] if sys.argv[1:2] == ["matchmaking_bench"]
                                      else sys.argv[1:])
    print("\nthe ranked queue through the lobby")
    with bench_servers() as (db_url, nats_url):
        asyncio.run(run_lobby(db_url, nats_url, args.people, args.rate, args.patience,
                              args.timeout))


if __name__ == "__main__":
    main()
