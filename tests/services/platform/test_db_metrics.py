"""What a service reports of Postgres: its pools' use, and a real standby's lag."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from services.platform import db, servers
from tests.waiting import until


def sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


async def test_a_pool_s_busy_and_idle_connections_are_served_until_it_closes(
        database_url: str) -> None:
    pool = await db.create_pool(database_url, "poolprobe", min_size=2, max_size=3)
    async with pool.acquire():
        assert sample("spades_db_pool_connections", pool="poolprobe", state="busy") == 1
        assert sample("spades_db_pool_connections", pool="poolprobe", state="idle") == 1
        assert sample("spades_db_pool_max_connections", pool="poolprobe") == 3
    assert sample("spades_db_pool_connections", pool="poolprobe", state="busy") == 0
    await pool.close()
    assert sample("spades_db_pool_max_connections", pool="poolprobe") is None


def _standby_of(primary: servers.PostgresServer, folder: Path) -> servers.PostgresServer:
    """A streaming standby of ``primary``, copied by PostgreSQL's own pg_basebackup."""
    (folder / "pgdata").parent.mkdir(parents=True)
    done = subprocess.run(
        [str(servers.postgres_bin_dir() / "pg_basebackup"), "-h", primary.host,
         "-p", str(primary.port), "-U", servers.PG_USER, "-D", str(folder / "pgdata"), "-R",
         "-X", "stream", "--no-sync"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return servers.PostgresServer(folder, servers.free_port())


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder outside pytest's own, which pytest makes private again (0700) whenever
    any run starts: the servers' user must stay able to reach it while they run."""
    with tempfile.TemporaryDirectory(prefix="spades-standby-") as made:
        yield Path(made)


async def test_a_standby_s_lag_is_sampled_from_the_primary_and_gone_when_it_leaves(
        folder: Path) -> None:
    primary = servers.PostgresServer(folder / "primary", servers.free_port())
    primary.start()
    standby: servers.PostgresServer | None = None
    pool = await db.create_pool(primary.url, "public", max_size=2)
    chore = db.replication(pool)
    try:
        await chore.job()
        assert sample("spades_postgres_standbys") == 0
        standby = _standby_of(primary, folder / "standby")
        standby.start()

        async def streaming() -> bool:
            await chore.job()
            return sample("spades_postgres_standbys") == 1

        await until(streaming, timeout=30, every=0.2)
        (series,) = [s for m in REGISTRY.collect() for s in m.samples
                     if s.name == "spades_postgres_replication_lag_bytes"]
        assert series.labels["standby"].startswith("walreceiver@") and series.value >= 0
        assert sample("spades_postgres_replication_lag_seconds", **series.labels) is not None
        assert sample("spades_postgres_sync_standbys") == 0  # asynchronous by default
        standby.stop()

        async def left() -> bool:
            await chore.job()
            return sample("spades_postgres_standbys") == 0

        await until(left, timeout=30, every=0.2)
        assert sample("spades_postgres_replication_lag_bytes", **series.labels) is None
    finally:
        await pool.close()
        if standby is not None:
            standby.stop()
        primary.stop()
