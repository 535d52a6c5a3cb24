"""Event append throughput and latency, next to plain asyncpg inserts of the same rows.

The raw ceiling inserts the same columns into a bare table with one statement
per append and no store logic (no stream lock, idempotency, outbox, notify).
Each runs on two pools: asyncpg's default, which sends a reset query on every
release, and the services' (``db.keep_session``), which sends none.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import asyncpg
import msgspec

from services.platform import db, dbadmin, eventstore, migrations
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
    reset = await asyncpg.create_pool(url, min_size=16, max_size=16,
                                      server_settings={"search_path": "bench"})
    kept = await db.create_pool(url, "bench", min_size=16, max_size=16)
    assert reset is not None
    encoder = msgspec.msgpack.Encoder()
    events = [Played(seat=i % 4, card="AS") for i in range(EVENTS_PER_APPEND)]

    def store_append(pool: asyncpg.Pool) -> Callable[[str, int], Awaitable[None]]:
        store = EventStore(pool, EventRegistry([Played]))

        async def append(stream: str, i: int) -> None:
            await store.append(stream, i * EVENTS_PER_APPEND, events, f"c{i}")
        return append

    def raw_append(pool: asyncpg.Pool) -> Callable[[str, int], Awaitable[None]]:
        return functools.partial(_raw, pool)

    async def _raw(pool: asyncpg.Pool, stream: str, i: int) -> None:
        base = i * EVENTS_PER_APPEND
        await pool.execute(
            "INSERT INTO raw_events (stream, version, type, schema_version, event_id,"
            " occurred_at, command_id, body)"
            " SELECT $1, $2 + v, 'Played', 1, e, $4, $5, b"
            " FROM unnest($3::bigint[], $6::uuid[], $7::bytea[]) AS t(v, e, b)",
            stream, base, list(range(1, EVENTS_PER_APPEND + 1)), datetime.now(UTC), f"c{i}",
            [uuid.uuid4() for _ in events], [encoder.encode(e) for e in events])

    variants = {"raw asyncpg, reset": raw_append(reset), "raw asyncpg, no reset":
                raw_append(kept), "event store, reset": store_append(reset),
                "event store, no reset": store_append(kept)}
    print(f"{APPENDS_PER_WRITER} appends of {EVENTS_PER_APPEND} events per writer,"
          f" median of {ROUNDS} alternating rounds, Postgres with fsync on")
    print(f"{'':30}{'appends/s':>12}{'events/s':>12}{'p50 ms':>10}{'p99 ms':>10}")
    for writers in (1, 16):
        await measure(writers, variants["raw asyncpg, reset"])  # warm-up
        # Alternate them, several rounds, and keep each one's median round:
        # fsync time on a shared disk drifts more than the difference measured.
        rounds: dict[str, list[dict[str, float]]] = {k: [] for k in variants}
        for _ in range(ROUNDS):
            for label, append in variants.items():
                rounds[label].append(await measure(writers, append))
        best = {k: median(v) for k, v in rounds.items()}
        for label, r in best.items():
            print(f"{label + f', {writers} w':30}{r['appends/s']:>12.0f}{r['events/s']:>12.0f}"
                  f"{r['p50 ms']:>10.2f}{r['p99 ms']:>10.2f}")
        for what in ("raw asyncpg", "event store"):
            gain = best[f"{what}, no reset"]["appends/s"] / best[f"{what}, reset"]["appends/s"]
            print(f"{what + ': no reset / reset':30}{gain:>12.0%}")
        ratio = (best["event store, no reset"]["appends/s"]
                 / best["raw asyncpg, no reset"]["appends/s"])
        print(f"{'store / raw (no reset)':30}{ratio:>12.0%}")
    await reset.close()
    await kept.close()
    await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, _):
        asyncio.run(run(db_url))


if __name__ == "__main__":
    main()
