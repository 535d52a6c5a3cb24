"""A primary with a synchronous standby (``servers.PostgresPair``): a commit is on the
standby's disk before the client hears of it, and the one multi-host URL the services
use finds whichever server takes writes."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import asyncpg
import pytest
from prometheus_client import REGISTRY
from structlog.testing import capture_logs

from services.platform import db, servers
from services.platform.busclient import BusClient
from services.platform.connection import NatsClient
from services.platform.eventstore.outbox import OutboxRelay
from services.platform.servers.replication import STANDBY, base_backup, psql
from services.upkeep_cli import migrate
from tests.waiting import until


async def _one(url: str, sql: str, *args: object) -> object:
    conn = await asyncpg.connect(url, timeout=10)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


async def test_the_standby_is_synchronous_and_the_url_finds_the_writable_server(
        postgres_pair: servers.PostgresPair) -> None:
    assert psql(postgres_pair.primary, "SELECT sync_state FROM pg_stat_replication") == "sync"
    assert psql(postgres_pair.primary, "SHOW synchronous_commit") == "on"
    # The standby is listed first: the URL still lands on the primary.
    primary, standby = postgres_pair.primary, postgres_pair.standby
    backwards = (f"postgresql://{servers.PG_USER}@{standby.host}:{standby.port},"
                 f"{primary.host}:{primary.port}/postgres?target_session_attrs=read-write")
    assert await _one(backwards, "SELECT pg_is_in_recovery()") is False
    assert await _one(postgres_pair.url(), "SELECT pg_is_in_recovery()") is False
    # What the services meet mid-failover, the standby not yet promoted: "not now".
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
    lose(old, disk=True)
    conn.terminate()
    postgres_pair.promote()
    assert await _one(url, "SELECT count(*) FROM acknowledged") == 50
    assert await _one(url, "SELECT pg_is_in_recovery()") is False
    # A new standby is copied from the new primary, in the lost one's folder.
    postgres_pair.replace_standby()
    await _one(url, "INSERT INTO acknowledged VALUES (50)")
    await _replayed(postgres_pair, 51)
    # Stopped and started again on the same folders, each starts as what it now is.
    postgres_pair.stop()
    postgres_pair.primary, postgres_pair.standby = old, postgres_pair.primary
    postgres_pair.start()
    assert postgres_pair.primary is not old
    assert await _one(url, "SELECT count(*) FROM acknowledged") == 51


async def _replayed(pair: servers.PostgresPair, rows: int) -> None:
    """Wait until the standby shows ``rows`` acknowledged: a commit returns once the
    standby flushed it (``synchronous_commit = on``), its replay follows a moment later."""

    async def there() -> bool:
        return psql(pair.standby, "SELECT count(*) FROM acknowledged") == str(rows)

    await until(there, timeout=30)


def lose(server: servers.PostgresServer, disk: bool = False) -> None:
    """The server's machine goes: no clean stop, and with ``disk`` its folder too."""
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait()
    if disk:
        shutil.rmtree(server.data_dir)


async def _waiting_commit(pair: servers.PostgresPair) -> asyncio.Task[object]:
    """The standby lost, a commit made on the primary: waiting for a standby to have it."""
    url = pair.url()
    await _one(url, "CREATE TABLE acknowledged (n int PRIMARY KEY)")
    lose(pair.standby)
    commit = asyncio.create_task(_one(url, "INSERT INTO acknowledged VALUES (1) RETURNING n"))

    async def waits_for_the_standby() -> bool:
        return psql(pair.primary, "SELECT count(*) FROM pg_stat_activity "
                                  "WHERE wait_event = 'SyncRep'") == "1"

    await until(waits_for_the_standby, timeout=30)
    return commit


async def test_with_the_standby_lost_commits_wait_for_it_by_default(
        postgres_pair: servers.PostgresPair) -> None:
    commit = await _waiting_commit(postgres_pair)
    assert not commit.done()  # committed locally, not yet acknowledged
    await asyncio.to_thread(postgres_pair.start_standby)
    assert await asyncio.wait_for(commit, 30) == 1
    await _replayed(postgres_pair, 1)


async def test_a_new_standby_half_copied_confirms_no_commit(
        postgres_pair: servers.PostgresPair) -> None:
    """The copy of a lost standby streams WAL through the standby's slot, and a stream
    through a slot reports what it flushed: it must not do so as the standby the
    primary's commits wait for, or a half-made copy no one could promote would confirm
    them."""
    commit = await _waiting_commit(postgres_pair)
    # The copy starts in a later WAL segment, so the first flush it reports is past
    # the waiting commit.
    psql(postgres_pair.primary, "SELECT pg_switch_wal()")
    await asyncio.to_thread(base_backup, postgres_pair.primary,
                            postgres_pair.standby.data_dir)
    await asyncio.sleep(0.5)
    assert not commit.done()
    await asyncio.to_thread(postgres_pair.start_standby)
    assert await asyncio.wait_for(commit, 30) == 1

    await _replayed(postgres_pair, 1)


async def test_with_the_standby_lost_the_primary_may_carry_on_alone_and_says_so(
        postgres_pair: servers.PostgresPair) -> None:
    url = postgres_pair.url()
    await migrate(url)
    pool = await db.create_pool(url, "game")
    relay = OutboxRelay(pool, BusClient(NatsClient()), lambda stream, kind: "unused")
    try:
        await relay.sample()
        assert _gauge("spades_postgres_commits_unconfirmed") == 0
        lose(postgres_pair.standby)
        postgres_pair.carry_on_alone()
        await asyncio.wait_for(_one(url, "CREATE TABLE alone (n int)"), 30)
        with capture_logs() as said:
            await relay.sample()
        assert _gauge("spades_postgres_commits_unconfirmed") == 1
        assert [e["event"] for e in said] == ["commits_unconfirmed"]
        await asyncio.to_thread(postgres_pair.start_standby)  # synchronous again
        await relay.sample()
        assert _gauge("spades_postgres_commits_unconfirmed") == 0
        assert psql(postgres_pair.primary, "SELECT sync_state FROM pg_stat_replication "
                                           f"WHERE application_name = '{STANDBY}'") == "sync"
    finally:
        await pool.close()


def _gauge(name: str) -> float | None:
    return REGISTRY.get_sample_value(name)
