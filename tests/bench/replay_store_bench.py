"""Reading and verifying stored games: 1,000 bot games in the event store, then every one
read back and verified, the way ``spades replay --verify-all`` walks the store.

Printed, not asserted. The games are written in bulk (one append per game) since
what is measured is the read and the verification, not the writing. Reads go
one game at a time, as the command does, and also with several readers at once
while verifying stays on one core, to show which of the two is the limit.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from concurrent.futures import ProcessPoolExecutor

import asyncpg

from engine.replay import verify
from schemas import events as ev
from services.platform import dbadmin, eventstore, migrations
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.migrations import MigrationSet
from tests.bench.replay_bench import bot_game
from tests.bench.servers import bench_servers

GAMES = 1000
HANDS = 4
WRITERS = 16


def _games(seeds: range) -> list[list[ev.Event]]:
    return [bot_game(seed, hands=HANDS) for seed in seeds]


def generate() -> list[list[ev.Event]]:
    """The games, dealt out over the machine's cores (bots take most of the time)."""
    workers = max(1, min(8, os.cpu_count() or 1))
    chunks = [range(i, GAMES, workers) for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        return [g for part in pool.map(_games, chunks) for g in part]


async def run(admin_url: str) -> None:
    t0 = time.perf_counter()
    games = generate()
    events = sum(len(g) for g in games)
    print(f"{GAMES} {HANDS}-hand bot games ({events} events) made in "
          f"{time.perf_counter() - t0:.1f} s")

    bench_set = MigrationSet("bench", eventstore.MIGRATIONS)
    name = f"spades_bench_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, [bench_set])
    await conn.close()
    pool = await asyncpg.create_pool(url, min_size=WRITERS, max_size=WRITERS,
                                     server_settings={"search_path": "bench"})
    assert pool is not None
    store = EventStore(pool, game_registry())
    streams = [f"game-{i:04d}-{uuid.uuid4().hex[:8]}" for i in range(GAMES)]

    t0 = time.perf_counter()
    queue = list(zip(streams, games, strict=True))

    async def writer() -> None:
        while queue:
            stream, game = queue.pop()
            await store.append(stream, 0, game, f"bench:{stream}")

    await asyncio.gather(*(writer() for _ in range(WRITERS)))
    dt = time.perf_counter() - t0
    print(f"stored with {WRITERS} writers, one append per game   {GAMES / dt:8.0f} games/s")

    # What `spades replay --verify-all` does: one game at a time, read then verify.
    t0 = time.perf_counter()
    read_time = 0.0
    for stream in streams:
        r0 = time.perf_counter()
        log: list[ev.Event] = [r.event for r in await store.read(stream)]  # type: ignore[misc]
        read_time += time.perf_counter() - r0
        assert verify(log) is None
    dt = time.perf_counter() - t0
    print(f"read + verify, one game at a time              {GAMES / dt:8.0f} games/s "
          f"({events / dt:.0f} events/s; reading {read_time / dt:.0%} of the time)")

    # Reads overlapped (8 readers ahead), verification on this one core.
    t0 = time.perf_counter()
    reads: asyncio.Queue[list[ev.Event] | None] = asyncio.Queue(maxsize=64)
    pending = list(streams)

    async def reader() -> None:
        while pending:
            stream = pending.pop()
            await reads.put([r.event for r in await store.read(stream)])  # type: ignore[misc]

    async def readers() -> None:
        await asyncio.gather(*(reader() for _ in range(8)))
        await reads.put(None)

    feeding = asyncio.create_task(readers())
    verified = 0
    while (got := await reads.get()) is not None:
        assert verify(got) is None
        verified += 1
    await feeding
    dt = time.perf_counter() - t0
    print(f"read (8 readers) + verify on one core          {verified / dt:8.0f} games/s")

    t0 = time.perf_counter()
    for g in games:
        assert verify(g) is None
    dt = time.perf_counter() - t0
    print(f"verify only, logs already in memory            {GAMES / dt:8.0f} games/s")
    await pool.close()
    await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, _):
        asyncio.run(run(db_url))


if __name__ == "__main__":
    main()
