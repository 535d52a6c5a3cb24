"""A primary with a synchronous standby (``servers.PostgresPair``): a commit is on the
standby's disk before the client hears of it, and the one multi-host URL the services
use finds whichever server takes writes."""

from __future__ import annotations

import os
import shutil
import signal

import asyncpg
import pytest

from services.platform import db, servers
from services.platform.servers.replication import psql


async def _one(url: str, sql: str, *args: object) -> object:
    conn = await asyncpg.connect(url, timeout=10)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


async def test_the_standby_is_synchronous_and_the_url_finds_the_primary(
        postgres_pair: servers.PostgresPair) -> None:
    assert psql(postgres_pair.primary, "SELECT sync_state FROM pg_stat_replication") == "sync"
    assert psql(postgres_pair.primary, "SHOW synchronous_commit") == "on"
    # The standby is listed first: the URL still lands on the primary.
    primary, standby = postgres_pair.primary, postgres_pair.standby
    backwards = (f"postgresql://{servers.PG_USER}@{standby.host}:{standby.port},"
                 f"{primary.host}:{primary.port}/postgres?target_session_attrs=read-write")
    assert await _one(backwards, "SELECT pg_is_in_recovery()") is False
    assert await _one(postgres_pair.url(), "SELECT pg_is_in_recovery()") is False


async def test_no_writable_server_is_unavailable_not_a_failure(
        postgres_pair: servers.PostgresPair) -> None:
    """What the services meet mid-failover, the standby not yet promoted: "not now"."""
    standby = postgres_pair.standby
    only_standby = (f"postgresql://{servers.PG_USER}@{standby.host}:{standby.port}"
                    "/postgres?target_session_attrs=read-write")
    with pytest.raises(db.AWAY):
        await asyncpg.connect(only_standby)
    with pytest.raises(db.DatabaseUnavailable):
        await db.create_pool(only_standby, "public")


async def test_a_committed_write_survives_the_primary_machine_lost(
        postgres_pair: servers.PostgresPair) -> None:
    url = postgres_pair.url()
    await _one(url, "CREATE TABLE acknowledged (n int PRIMARY KEY)")
    conn = await asyncpg.connect(url)
    for n in range(50):
        await conn.execute("INSERT INTO acknowledged VALUES ($1)", n)
    # Told committed; at once the primary's machine goes: no clean stop, no disk.
    old = postgres_pair.primary
    assert old.process is not None
    os.kill(old.process.pid, signal.SIGKILL)
    old.process.wait()
    shutil.rmtree(old.data_dir)
    conn.terminate()
    postgres_pair.promote()
    assert await _one(url, "SELECT count(*) FROM acknowledged") == 50
    assert await _one(url, "SELECT pg_is_in_recovery()") is False
    # A new standby is copied from the new primary, in the lost one's folder.
    postgres_pair.replace_standby()
    await _one(url, "INSERT INTO acknowledged VALUES (50)")
    assert psql(postgres_pair.standby, "SELECT count(*) FROM acknowledged") == "51"
