"""The ratings service: its GameEnded consumer's rate, and the leaderboard at 1M players.

Consumer: rated endings of quick games among 100k players are put on a
JetStream stream, then one ``Consumer`` with the service's handlers applies
them as one ratings copy does: a fetch of up to 64 endings in one transaction
(the applied-games record, every player's row locked, the changes worked out in
order, the rows and the history written: a few statements per fetch).

Leaderboard: a million rated players (ratings N(1500, 250), 0-120 games, last
game within 30 days) loaded with one INSERT, then the endpoints' own code
(``services.ratings.api.Ratings``) recompute the board once (what the service
does every ``leaderboard_refresh_seconds``), then are asked for the first page,
a deep page, the page around a player in the middle of the board, and a
player's page (its rank).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
import uuid

import asyncpg
import msgspec

from schemas import ratings as api
from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from services import catalog
from services.platform import bus, connection, dbadmin, migrations
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.ratings import results
from services.ratings.api import Ratings
from services.ratings.elo import Elo, KSchedule
from tests.bench.servers import bench_servers

GAMES = 5000
PLAYERS = 100_000
BOARD = 1_000_000
SYSTEM = Elo(1500, KSchedule())


async def _database(admin_url: str) -> tuple[str, str]:
    name = f"spades_bench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin_url, name)
    conn = await asyncpg.connect(url)
    try:
        await migrations.apply(conn, [catalog.MIGRATIONS["ratings"]])
    finally:
        await conn.close()
    return name, url


async def consumer(url: str, nats_url: str) -> None:
    rng = random.Random(1)
    registry = game_registry()
    now_ms = int(time.time() * 1000)
    nc = await connection.connect(nats_url, "ratings-bench")
    client = BusClient(nc)
    js = client.js
    tag = uuid.uuid4().hex[:8]
    subject, stream = f"bench{tag}.evt", f"BENCH_RATINGS_{tag}"
    await bus.ensure_stream(client, bus.StreamSpec(stream, (f"{subject}.>",), duplicate_window=60))
    for n in range(GAMES):
        players = tuple(f"p{p}" for p in rng.sample(range(PLAYERS), 4))
        event = GameEnded(winner=rng.randrange(2), reason="target", scores=(500, 300),
                          bags=(1, 2), hands_played=8, players=players, rated=True)  # type: ignore[arg-type]
        encoded = registry.encode(event)
        env = EventEnvelope(stream=f"g{n}", version=1, position=n + 1, type=encoded.type,
                            schema_version=encoded.schema_version, event_id=str(n),
                            occurred_at_ms=now_ms, correlation_id=None, causation_id=None,
                            body=encoded.body)
        await js.publish(f"{subject}.g{n}", msgspec.msgpack.encode(env))
    pool = await create_pool(url, "ratings", min_size=2, max_size=4)
    spec = bus.ConsumerSpec(stream, f"ratings{tag}", f"{subject}.>", ack_wait=30, max_deliver=5)
    worker = Consumer(client, pool, spec, results.handler(SYSTEM),  # as the service
                          batch_handler=results.batch_handler(SYSTEM))
    started = time.perf_counter()
    await worker.start()
    while await pool.fetchval("SELECT count(*) FROM consumer_processed") < GAMES:
        await asyncio.sleep(0.05)
    elapsed = time.perf_counter() - started
    await worker.stop()
    print(f"consumer, one copy: {GAMES} rated GameEnded among {PLAYERS:,} players in "
          f"{elapsed:.1f} s: {GAMES / elapsed:.0f} games/s")
    await pool.close()
    await js.delete_stream(stream)
    await nc.close()


async def leaderboard(url: str) -> None:
    pool = await create_pool(url, "ratings", min_size=1, max_size=2)
    started = time.perf_counter()
    await pool.execute(
        "INSERT INTO ratings (player_id, rating, games, wins, losses, peak, last_game_at)"
        " SELECT 'board' || i, r, g, g / 2, g - g / 2, r, now() - random() * interval '30 days'"
        " FROM (SELECT i, (1500 + 250 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())"
        "   )::int AS r, (random() * 120)::int AS g FROM generate_series(1, $1) i) x", BOARD)
    await pool.execute("VACUUM ANALYZE ratings")
    print(f"\n{BOARD:,} rated players loaded in {time.perf_counter() - started:.0f} s")
    ratings = Ratings(pool, SYSTEM, active_days=14)
    started = time.perf_counter()
    listed = await ratings.refresh(every=0)
    print(f"board recomputed ({listed:,} listed) in {time.perf_counter() - started:.1f} s")
    middle = await pool.fetchval(
        "SELECT player_id FROM ratings WHERE games >= 20 AND last_game_at > now() - interval"
        " '14 days' ORDER BY rating DESC OFFSET (SELECT count(*) / 2 FROM ratings"
        " WHERE games >= 20 AND last_game_at > now() - interval '14 days') LIMIT 1")
    calls = {
        "first page (50)": lambda: ratings.leaderboard(api.LeaderboardRequest()),
        "page at rank 10,001": lambda: ratings.leaderboard(api.LeaderboardRequest(offset=10_000)),
        "around a middle player": lambda: ratings.leaderboard(
            api.LeaderboardRequest(around=middle)),
        "a middle player's page": lambda: ratings.player(api.PlayerRequest(middle)),
    }
    print(f"{'':26}{'p50 ms':>8}{'max ms':>8}")
    for label, call in calls.items():
        await call()
        samples = []
        for _ in range(20):
            t = time.perf_counter()
            await call()
            samples.append((time.perf_counter() - t) * 1000)
        print(f"{label:26}{statistics.median(samples):>8.1f}{max(samples):>8.1f}")
    await pool.close()


async def run(admin_url: str, nats_url: str) -> None:
    name, url = await _database(admin_url)
    try:
        await consumer(url, nats_url)
        await leaderboard(url)
    finally:
        await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, nats_url):
        asyncio.run(run(db_url, nats_url))


if __name__ == "__main__":
    main()
