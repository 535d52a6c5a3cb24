"""Reading and verifying stored games: 1,000 bot games in the event store, then every one
read back and verified, the way ``spades replay --verify-all`` walks the store; then the
same games backed up and restored to a moment (``backup_and_restore``).

Printed, not asserted. The games are written in bulk (one append per game) since
what is measured is the read and the verification, not the writing. Reads go
one game at a time, as the command does, and also with several readers at once
while verifying stays on one core, to show which of the two is the limit.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import asyncpg

from engine.replay import verify
from schemas import events as ev
from services.platform import dbadmin, eventstore, migrations, servers
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.migrations import MigrationSet
from services.platform.servers import backups, replication, restore
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


async def run(admin_url: str) -> list[list[ev.Event]]:
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
    return games


async def _store(url: str, games: list[list[ev.Event]]) -> None:
    pool = await asyncpg.create_pool(url, min_size=WRITERS, max_size=WRITERS,
                                     server_settings={"search_path": "bench"})
    assert pool is not None
    store = EventStore(pool, game_registry())
    queue = [(f"game-{uuid.uuid4().hex}", g) for g in games]

    async def writer() -> None:
        while queue:
            stream, game = queue.pop()
            await store.append(stream, 0, game)

    await asyncio.gather(*(writer() for _ in range(WRITERS)))
    await pool.close()


async def _lag(url: str, receiver: str, samples: int = 50) -> list[float]:
    """Seconds from a commit's return to ``receiver`` (the WAL archive, or a standby the
    commits do not wait for) having it on disk: what losing the primary then loses."""
    conn = await asyncpg.connect(url)
    lags = []
    try:
        await conn.execute("CREATE TABLE IF NOT EXISTS lag (n int)")
        for n in range(samples):
            await conn.execute("INSERT INTO lag VALUES ($1)", n)
            committed, at = await conn.fetchval("SELECT pg_current_wal_lsn()"), time.perf_counter()
            while not await conn.fetchval(
                    "SELECT flush_lsn >= $1 FROM pg_stat_replication WHERE application_name = $2",
                    committed, receiver):
                await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - at)
    finally:
        await conn.close()
    return sorted(lags)


def _print_lag(what: str, lags: list[float]) -> None:
    print(f"{what} behind a commit: median {lags[len(lags) // 2] * 1000:.1f} ms, "
          f"most {lags[-1] * 1000:.1f} ms", flush=True)


async def standby_lag(root: Path) -> None:
    """A standby the commits do not wait for (the primary carrying on alone): how far
    behind it is, the recovery point of a failover to it."""
    pair = servers.PostgresPair.in_folder(root, *_two_ports())
    pair.start()
    try:
        pair.carry_on_alone()
        _print_lag("asynchronous standby", await _lag(pair.url(), replication.STANDBY))
    finally:
        pair.stop()


def _two_ports() -> tuple[int, int]:
    base = servers.free_ports(2)
    return base, base + 1


def _timed(what: str, began: float) -> None:
    print(f"{what:<52} {time.perf_counter() - began:6.1f} s", flush=True)


async def backup_and_restore(root: Path, games: list[list[ev.Event]]) -> None:
    """Backups and a restore to a moment, timed for these games (docs/operators.md,
    "Recovery point and time"): a server of the bench's own whose WAL is archived as
    `spades dev` archives it; a full backup, a fifth more games, an incremental backup,
    a tenth more, then a restore to a moment after them, and how far behind a commit
    the WAL archive is (the recovery point when the standby is lost too)."""
    server = servers.PostgresServer(root / "pg", servers.free_port(),
                                     settings={"summarize_wal": "on", "full_page_writes": "on"})
    server.start()
    archive = backups.WalArchiver(server.url, root / "backup")
    try:
        url = await dbadmin.ensure_database(server.url, "spades")
        conn = await asyncpg.connect(url)
        await migrations.apply(conn, [MigrationSet("bench", eventstore.MIGRATIONS)])
        await conn.close()
        archive.url = url
        archive.start()
        t0 = time.perf_counter()
        await _store(url, games)
        _timed(f"{GAMES} games stored", t0)
        t0 = time.perf_counter()
        full = await asyncio.to_thread(backups.take, url, root / "backup")
        _timed(f"full backup ({_size(full.path(root / 'backup'))})", t0)
        await _store(url, games[: GAMES // 5])
        t0 = time.perf_counter()
        incr = await asyncio.to_thread(backups.take, url, root / "backup")
        _timed(f"incremental backup after {GAMES // 5} more games "
               f"({_size(incr.path(root / 'backup'))})", t0)
        await _store(url, games[: GAMES // 10])
        moment = datetime.now(UTC)
        await _store(url, games[:10])
        _print_lag("WAL archive", await _lag(url, backups.ARCHIVER))
        t0 = time.perf_counter()
        for b in backups.backups(root / "backup"):
            await asyncio.to_thread(backups.verify, root / "backup", b)
        _timed("both backups verified (pg_verifybackup)", t0)
        t0 = time.perf_counter()
        await asyncio.to_thread(restore.restore, root / "backup", moment, root / "restored")
        _timed(f"restore to a moment {GAMES // 10} games after the incremental", t0)
    finally:
        archive.stop()
        server.stop()


def _size(folder: Path) -> str:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return f"{total / 1e6:.0f} MB"


def main() -> None:
    with bench_servers() as (db_url, _):
        games = asyncio.run(run(db_url))
    print(f"\nbackups of those games, then {GAMES // 5} and {GAMES // 10} more:")
    root = Path(tempfile.mkdtemp(prefix="spades-bench-restore-"))
    try:
        asyncio.run(backup_and_restore(root, games))
        asyncio.run(standby_lag(root / "pair"))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
