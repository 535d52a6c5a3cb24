"""A primary with a synchronous standby, made and moved with PostgreSQL's own tools.

The standby is a copy of the primary taken with ``pg_basebackup -R``: it knows its
primary, streams its WAL through a replication slot (the primary keeps what a standby
that is away has not yet received) and answers read-only queries. The primary names
any standby in ``synchronous_standby_names`` and runs ``synchronous_commit=on``, so a
commit returns only once the standby has the commit on its disk: losing the primary's
machine loses nothing anyone was told had happened (docs/operators.md).

The standby names are set with ``ALTER SYSTEM`` rather than on the command line, so
that a promotion (``pg_promote()``) and the lost-standby policy can change them on a
running server. A standby whose primary is gone is promoted; the lost primary's folder
then receives a fresh copy of the new primary and becomes its standby.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .postgres import PG_USER, PostgresServer
from .process import ServerError
from .tools import query, run_tool

# The standby's slot on its primary, and the name it streams under (which
# ``synchronous_standby_names`` lists; a WAL archiver streams under another name, and
# commits never wait for it).
SLOT = STANDBY = "spades_standby"
# The name a standby's copy (``pg_basebackup``) streams under while it is made.
COPY = "spades_standby_copy"
# What a commit waits for: the standby has written and flushed it.
SYNCHRONOUS = {"synchronous_commit": "on"}


def psql(server: PostgresServer, sql: str) -> str:
    """One statement run on ``server``; its output."""
    return "\n".join(query(server.url, sql))


def require_standby(server: PostgresServer, names: str) -> None:
    """Make ``server``'s commits wait for the standbys ``names`` (empty: for none)."""
    psql(server, f"ALTER SYSTEM SET synchronous_standby_names = '{names}'")
    psql(server, "SELECT pg_reload_conf()")


def standbys(server: PostgresServer, synchronous: bool) -> int:
    """How many standbys stream from ``server`` now (``synchronous``: of those, how many
    its commits wait for)."""
    which = "sync_state IN ('sync', 'quorum')" if synchronous else "state = 'streaming'"
    return int(psql(server, f"SELECT count(*) FROM pg_stat_replication WHERE {which}"))


def base_backup(primary: PostgresServer, data_dir: Path) -> None:
    """A fresh standby in ``data_dir``: a copy of ``primary`` streaming from it through
    the slot, which is made anew (a stale one of a lost standby is dropped first).

    The copy streams the WAL it needs through the slot too, and a stream through a slot
    reports what it flushed: under the standby's own name it would confirm the
    primary's commits while the copy is half made, a folder no one could promote. So
    the copy goes under a name commits never wait for, and the standby is told its own
    name (and its primary and slot) once the copy is whole."""
    psql(primary, f"SELECT pg_drop_replication_slot('{SLOT}') FROM pg_replication_slots "
                  f"WHERE slot_name = '{SLOT}'")
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    pgdata = data_dir / "pgdata"
    conninfo = f"host={primary.host} port={primary.port} user={PG_USER}"
    run_tool("pg_basebackup", "-D", str(pgdata), "-d", f"{conninfo} application_name={COPY}",
             "-X", "stream", "-c", "fast", "-C", "-S", SLOT)
    (pgdata / "standby.signal").touch()
    with open(pgdata / "postgresql.auto.conf", "a") as conf:
        conf.write(f"primary_conninfo = '{conninfo} application_name={STANDBY}'\n"
                   f"primary_slot_name = '{SLOT}'\n")


def _is_standby(server: PostgresServer) -> bool:
    return (server.data_dir / "pgdata" / "standby.signal").exists()


@dataclass
class PostgresPair:
    """Two servers, one the primary and the other its synchronous standby; after a
    promotion they swap parts."""

    primary: PostgresServer
    standby: PostgresServer
    promotions: int = field(default=0)

    @classmethod
    def in_folder(cls, root: Path, primary_port: int, standby_port: int,
                  settings: dict[str, str] | None = None) -> PostgresPair:
        """Each server's folder named for its first part; ``settings`` beside the
        synchronous commit."""
        both = {**(settings or {}), **SYNCHRONOUS}
        return cls(PostgresServer(root / "postgres", primary_port, settings=dict(both)),
                   PostgresServer(root / "postgres-standby", standby_port, settings=dict(both)))

    def url(self, database: str = "postgres") -> str:
        """Both servers in one URL: a client connects to whichever takes writes."""
        hosts = ",".join(f"{s.host}:{s.port}" for s in (self.primary, self.standby))
        return f"postgresql://{PG_USER}@{hosts}/{database}?target_session_attrs=read-write"

    def start(self) -> None:
        """Start both; after a failover the folders' parts are swapped (a standby's
        folder holds ``standby.signal``), so each starts as what it was."""
        if _is_standby(self.primary) and not _is_standby(self.standby):
            self.primary, self.standby = self.standby, self.primary
        self.primary.start()
        self.start_standby()

    def start_standby(self) -> None:
        """Start the standby on its folder, copying the primary first when it has none;
        once it streams, the primary's commits wait for it (not before: the writes of a
        running platform go on while a new standby is copied)."""
        if not (self.standby.data_dir / "pgdata" / "PG_VERSION").exists():
            base_backup(self.primary, self.standby.data_dir)
        self.standby.start()
        self._until(lambda: standbys(self.primary, synchronous=False), "stream")
        require_standby(self.primary, STANDBY)
        self._until(lambda: standbys(self.primary, synchronous=True), "stream synchronously")

    def _until(self, check: Callable[[], int], what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline or self.standby.exited:
                raise ServerError(f"the standby on port {self.standby.port} did not "
                                  f"{what} within {timeout:.0f}s")
            time.sleep(0.05)

    def carry_on_alone(self) -> None:
        """Commits stop waiting for the standby (lost): they are on one machine only until
        ``start_standby`` has a standby streaming again and makes them wait for it."""
        require_standby(self.primary, "")

    def promote(self) -> None:
        """The standby takes writes, alone: the old primary is gone, so nothing can
        confirm its commits until a new standby is attached (``replace_standby``)."""
        psql(self.standby, "SELECT pg_promote(true, 60)")
        require_standby(self.standby, "")
        self.primary, self.standby = self.standby, self.primary
        self.promotions += 1

    def replace_standby(self) -> None:
        """A new standby in the old one's folder and on its port, copied from the primary."""
        self.standby.stop()
        base_backup(self.primary, self.standby.data_dir)
        self.start_standby()

    def stop(self) -> None:
        self.standby.stop()
        self.primary.stop()
