"""The WAL archive follows a failover, on servers set up as `spades dev` sets them up.

Two things stood in its way. The archive may have received more of the lost primary's
WAL than the standby promoted in its place: its copy of the old timeline then runs past
the point where the new one forks off, and the archiver must start again at that fork,
not where its old copy ends. And the new primary has no slot keeping WAL for the
archiver (slots are not copied to a standby), so a checkpoint made before the archiver
is back would remove the WAL it resumes from, but for ``wal_keep_size``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from services.dev_postgres import SETTINGS
from services.platform import servers
from services.platform.servers import backups
from services.platform.servers.backups import ARCHIVER, WalArchiver
from services.platform.servers.replication import psql
from services.platform.servers.restore import restore
from services.platform.servers.tools import query
from tests.services.platform.test_standby import lose
from tests.waiting import until


async def _archived(url: str) -> bool:
    """Whether the archive has flushed every byte the primary has written."""
    return query(url, "SELECT flush_lsn >= pg_current_wal_lsn() FROM pg_stat_replication "
                      f"WHERE application_name = '{ARCHIVER}'") == ["t"]


def _cut_off(standby: servers.PostgresServer) -> None:
    """The standby stops receiving the primary's WAL (its link is down)."""
    psql(standby, "ALTER SYSTEM SET primary_conninfo = ''")
    psql(standby, "SELECT pg_reload_conf()")


@pytest.fixture
def pair(server_folder: Path) -> Iterator[servers.PostgresPair]:
    """A primary and its synchronous standby set up as `spades dev` sets them up."""
    first = servers.free_ports(2)
    made = servers.PostgresPair.in_folder(server_folder, first, first + 1, SETTINGS)
    try:
        made.start()
        yield made
    finally:
        made.stop()


@pytest.mark.parametrize("past_a_segment", [False, True])
async def test_the_archive_follows_a_failover_when_it_was_ahead_of_the_standby(
        pair: servers.PostgresPair, server_folder: Path, past_a_segment: bool) -> None:
    folder = server_folder / "backup"
    url = pair.url()
    archive = WalArchiver(url, folder)
    archive.start()
    try:
        query(url, "CREATE TABLE moves (n int PRIMARY KEY)")
        await asyncio.to_thread(backups.take, url, folder, True)
        query(url, "INSERT INTO moves SELECT generate_series(1, 10)")
        # The standby's link goes down; the primary writes on, acknowledging locally (as it
        # would with the standby lost under the carry-on-alone policy), and the archive
        # receives what the standby never will.
        _cut_off(pair.standby)
        async def unlinked() -> bool:
            return psql(pair.standby, "SELECT count(*) FROM pg_stat_wal_receiver") == "0"

        await until(unlinked, timeout=30)
        unconfirmed = "SET synchronous_commit = local; "
        query(url, unconfirmed + "INSERT INTO moves SELECT generate_series(11, 20)")
        if past_a_segment:
            query(url, "SELECT pg_switch_wal()")
            query(url, unconfirmed + "INSERT INTO moves SELECT generate_series(21, 30)")
        await until(lambda: _archived(url), timeout=30)
        # The primary's machine is lost; the standby, behind it, is promoted.
        lose(pair.primary, disk=True)
        pair.promote()
        # The new primary writes on and checkpoints (a new standby's copy makes one at
        # once) before the archiver is back: it has no slot there to keep WAL for it.
        for n in range(3):
            query(url, f"INSERT INTO moves VALUES ({91 + n}); SELECT pg_switch_wal()")
        query(url, "CHECKPOINT")
        redo = query(url, "SELECT redo_lsn FROM pg_control_checkpoint()")[0]

        async def summarized() -> bool:  # WAL not yet summarized is kept for the summaries
            return query(url, f"SELECT summarized_lsn >= '{redo}'::pg_lsn "
                              "FROM pg_get_wal_summarizer_state()") == ["t"]

        await until(summarized, timeout=30)
        query(url, "CHECKPOINT")

        async def exited() -> bool:
            return archive.exited

        await until(exited, timeout=30)
        archive.start()  # as spades dev does when its archiver exits
        query(url, "INSERT INTO moves SELECT generate_series(101, 105)")
        await until(lambda: _archived(url), timeout=30)
        moment = datetime.now(UTC)
        query(url, "INSERT INTO moves VALUES (106)")  # after the moment: not restored
        await until(lambda: _archived(url), timeout=30)
    finally:
        archive.stop()
    # A restore to a moment after the failover holds what the new primary had by then.
    await asyncio.to_thread(restore, folder, moment, server_folder / "restored")
    server = servers.PostgresServer(server_folder / "restored" / "postgres", servers.free_port())
    server.start()
    try:
        assert query(server.url, "SELECT string_agg(n::text, ',' ORDER BY n) FROM moves") == [
            ",".join(map(str, [*range(1, 11), *range(91, 94), *range(101, 106)]))]
    finally:
        server.stop()
