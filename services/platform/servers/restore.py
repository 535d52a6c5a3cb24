"""A restore to a moment: a fresh data folder rebuilt from a backup folder (``backups``).

The chain of base backups that ends last before the moment (the latest full one and
the incremental ones on it) is combined by ``pg_combinebackup`` into one data folder;
a server then replays the archived WAL up to the moment (``recovery_target_time``)
and is promoted there, on a port of its own, before `spades restore` returns: the
folder it leaves is an ordinary primary's, which ``spades dev`` starts as it is.
"""

from __future__ import annotations

import re
import shutil
import time
from datetime import datetime
from pathlib import Path

from .backups import WAL, Backup, backups, wal_reaches
from .postgres import PostgresServer
from .process import ServerError, free_port
from .replication import psql
from .tools import run_tool

# What the restored server must not keep from the primary it was copied from, and the
# settings of the replay, which end with it.
_FORGET = ("synchronous_standby_names", "restore_command", "recovery_target_time",
           "recovery_target_action", "primary_conninfo", "primary_slot_name")
_LAST_XACT = re.compile(r"last completed transaction was at log time (.+)$", re.MULTILINE)


def chain(folder: Path, moment: datetime) -> list[Backup]:
    """The backups a restore to ``moment`` starts from: the newest one finished before
    it and those it is incremental on, back to a full one."""
    before = [b for b in backups(folder) if b.ended_at < moment]
    if not before:
        raise ServerError(f"no backup in {folder} finished before {moment.isoformat()}")
    start = max(i for i, b in enumerate(before) if b.kind == "full")
    return before[start:]


def restore(folder: Path, moment: datetime, data_dir: Path) -> str:
    """Rebuild ``data_dir/postgres`` as it was at ``moment``; the time of the last
    transaction the replay applied (the restore's point, at or before the moment)."""
    pg_folder = data_dir / "postgres"
    if pg_folder.exists():
        raise ServerError(f"{pg_folder} exists; restore into a new data folder")
    used = chain(folder, moment)
    pgdata = pg_folder / "pgdata"
    pg_folder.mkdir(parents=True)
    run_tool("pg_combinebackup", "-o", str(pgdata), *(str(b.path(folder)) for b in used))
    archive = pg_folder / "archive"  # the server's own copy: it runs as another user
    shutil.copytree(folder / WAL, archive, ignore=shutil.ignore_patterns("*.partial"))
    for partial in (folder / WAL).glob("*.partial"):  # the segment being received
        shutil.copyfile(partial, archive / partial.name.removesuffix(".partial"))
    (pgdata / "standby.signal").unlink(missing_ok=True)
    (pgdata / "recovery.signal").touch()
    with open(pgdata / "postgresql.auto.conf", "a") as conf:
        conf.write(f"restore_command = 'cp \"{archive}/%f\" \"%p\"'\n"
                   f"recovery_target_time = '{moment.isoformat()}'\n"
                   "recovery_target_action = 'promote'\n"
                   "synchronous_standby_names = ''\n")
    server = PostgresServer(pg_folder, free_port())
    try:
        server.start(timeout=600)
        _until_promoted(server)
        for name in _FORGET:
            psql(server, f"ALTER SYSTEM RESET {name}")
    except ServerError as exc:
        server.stop()
        log = (pg_folder / "postgres.log").read_text(errors="replace")
        shutil.rmtree(pg_folder)  # nothing half made is left to start by mistake
        if "before configured recovery target" not in log:
            raise exc from None
        reaches = wal_reaches(folder)
        raise ServerError(f"the WAL archive ends before {moment.isoformat()} (it reaches "
                          f"{reaches.isoformat() if reaches else 'no later than the backups'}"
                          "): restore to an earlier moment") from None
    finally:
        server.stop()
    shutil.rmtree(archive)
    found = _LAST_XACT.findall((pg_folder / "postgres.log").read_text(errors="replace"))
    return found[-1].strip() if found else "none (no transaction after the backup)"


def _until_promoted(server: PostgresServer, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while server.exited or psql(server, "SELECT pg_is_in_recovery()") == "t":
        if server.exited or time.monotonic() > deadline:
            log = (server.data_dir / "postgres.log").read_text(errors="replace")
            fatal = [line for line in log.splitlines() if "FATAL" in line]
            raise ServerError(f"the replay did not reach the moment: "
                              f"{fatal[-1] if fatal else 'timed out'}")
        time.sleep(0.1)
