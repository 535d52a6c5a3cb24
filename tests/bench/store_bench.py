"""Event append throughput and latency, next to plain asyncpg inserts of the same rows.

The raw ceiling inserts the same columns into a bare table with one statement
per append and no store logic (no stream lock, idempotency, outbox, notify).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import asyncpg
import msgspec

from services.platform import dbadmin, eventstore, migrations
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.migrations import MigrationSet
from tests.bench.servers import bench_servers, percentiles

APPENDS_PER_WRITER = 300
ROUNDS = 3
EVENTS_PER_APPEND = 2


class Played(msgspec.Struct, frozen=True, tag=True, kw_only=True):
    seat: int
    card: str


RAW_TABLE = """
CREATE TABLE IF NOT EXISTS raw_events (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream text NOT NULL, version bigint NOT NULL, type text NOT NULL,
    schema_version integer NOT NULL, event_id uuid NOT NULL, occurred_at timestamptz NOT NULL,
    command_id text, body bytea NOT NULL, UNIQUE (stream, version))
"""


async def measure(writers: int, append: Callable[[str, int], Awaitable[None]]) -> dict[str, float]:
    latencies: list[float] = []

    async def writer(w: int) -> None:
        stream = f"bench-{uuid.uuid4().hex}-{w}"
        for i in range(APPENDS_PER_WRITER):
            started = time.perf_counter()
            await append(stream, i)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(writer(w) for w in range(writers)))
    elapsed = time.perf_counter() - started
    p50, p99 = percentiles(latencies)
    return {"appends/s": len(latencies) / elapsed,
            "events/s": len(latencies) * EVENTS_PER_APPEND / elapsed, "p50 ms": p50,
            "p99 ms": p99}


def median(rounds: list[dict[str, float]]) -> dict[str, float]:
    return sorted(rounds, key=lambda r: r["appends/s"])[len(rounds) // 2]


async def run(admin_url: str) -> None:
    bench_set = MigrationSet("bench", eventstore.MIGRATIONS)
    name = f"spades_bench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, [bench_set])
    await conn.execute(f"SET search_path TO bench; {RAW_TABLE}")
    await conn.close()
    pool = await asyncpg.create_pool(url, min_size=16, max_size=16,
                                     server_settings={"search_path": "bench"})
    assert pool is not None
    store = EventStore(pool, EventRegistry([Played]))
    encoder = msgspec.msgpack.Encoder()
    events = [Played(seat=i % 4, card="AS") for i in range(EVENTS_PER_APPEND)]

    async def store_append(stream: str, i: int) -> None:
        await store.append(stream, i * EVENTS_PER_APPEND, events, f"c{i}")

    async def raw_append(stream: str, i: int) -> None:
        base = i * EVENTS_PER_APPEND
        await pool.execute(
            "INSERT INTO raw_events (stream, version, type, schema_version, event_id,"
            " occurred_at, command_id, body)"
            " SELECT $1, $2 + v, 'Played', 1, e, $4, $5, b"
            " FROM unnest($3::bigint[], $6::uuid[], $7::bytea[]) AS t(v, e, b)",
            stream, base, list(range(1, EVENTS_PER_APPEND + 1)), datetime.now(UTC), f"c{i}",
            [uuid.uuid4() for _ in events], [encoder.encode(e) for e in events])

    print(f"{APPENDS_PER_WRITER} appends of {EVENTS_PER_APPEND} events per writer,"
          f" median of {ROUNDS} alternating rounds, Postgres with fsync on")
    print(f"{'':24}{'appends/s':>12}{'events/s':>12}{'p50 ms':>10}{'p99 ms':>10}")
    for writers in (1, 16):
        await measure(writers, raw_append)  # warm-up
        # Alternate the two, several rounds, and keep each one's median round:
        # fsync time on a shared disk drifts more than the difference measured.
        raws, stores = [], []
        for _ in range(ROUNDS):
            raws.append(await measure(writers, raw_append))
            stores.append(await measure(writers, store_append))
        raw, ours = median(raws), median(stores)
        for label, r in ((f"raw asyncpg, {writers} w", raw), (f"event store, {writers} w", ours)):
            print(f"{label:24}{r['appends/s']:>12.0f}{r['events/s']:>12.0f}"
                  f"{r['p50 ms']:>10.2f}{r['p99 ms']:>10.2f}")
        print(f"{'store / raw':24}{ours['appends/s'] / raw['appends/s']:>12.0%}")
    await pool.close()
    await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, _):
        asyncio.run(run(db_url))


if __name__ == "__main__":
    main()
