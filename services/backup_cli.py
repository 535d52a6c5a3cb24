"""`spades backup | backup verify | restore`: base backups and the WAL archive of the
deployment's PostgreSQL in ``SPADES_BACKUP_DIR``, and a restore to any moment they
cover into a new data folder (docs/operators.md).

One backup of the server ``DATABASE_URL`` reaches covers every database on it: the
services' (lobby, ratings, tournaments, games) and the games' shard databases kept
there. `spades dev` streams the WAL archive itself while ``SPADES_BACKUP_DIR`` is set;
a deployment runs `spades backup wal` beside its database.
"""

from __future__ import annotations

import os
import shutil
import signal
from datetime import UTC, datetime
from pathlib import Path

from services import devdata
from services.upkeep_cli import CliError


def folder(given: str | None) -> Path:
    raw = given or os.environ.get("SPADES_BACKUP_DIR")
    if not raw:
        raise CliError("setting SPADES_BACKUP_DIR is required (or --dir)")
    return Path(raw).resolve()


def backup_cmd(given: str | None, full: bool) -> int:
    from services.platform.servers import backups

    where = folder(given)
    made = backups.take(devdata.database_url(), where, full=full)
    secret = devdata.root() / devdata.SECRET  # so a restored platform keeps its sign-ins
    if secret.exists():
        shutil.copyfile(secret, where / devdata.SECRET)
    print(f"{made.kind} backup {made.name} of {', '.join(made.databases)} "
          f"(consistent from {made.ended})")
    if backups.wal_reaches(where) is None:
        print("warning: no WAL archive in this folder: a restore reaches only the moments "
              "the backups ended at; run `spades backup wal` (spades dev does, with "
              "SPADES_BACKUP_DIR set)")
    return 0


def verify_cmd(given: str | None) -> int:
    from services.platform.servers import backups

    where = folder(given)
    found = backups.backups(where)
    if not found:
        raise CliError(f"no backup in {where}")
    for backup in found:
        backups.verify(where, backup)
        print(f"ok  {backup.name}  {backup.kind}, consistent from {backup.ended}, "
              f"databases {', '.join(backup.databases)}")
    reaches = backups.wal_reaches(where)
    print(f"restorable to any moment from {found[0].ended} to "
          f"{reaches.isoformat() if reaches else found[-1].ended}"
          + ("" if reaches else " (no WAL archive: only the backups' own moments)"))
    return 0


def wal_cmd(given: str | None) -> int:
    """Stream the WAL archive until stopped; started again whenever its server goes."""
    import time

    from services.platform import servers
    from services.platform.servers import backups

    archiver = backups.WalArchiver(devdata.database_url(), folder(given))
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    try:
        while not stop["now"]:
            if archiver.process is None or archiver.exited:
                try:
                    archiver.start()
                except servers.ServerError as exc:
                    print(f"spades backup wal: {exc}; trying again", flush=True)
            time.sleep(1)
    finally:
        archiver.stop()
    return 0


def restore_cmd(given: str | None, to: str, data_dir: str) -> int:
    from services.platform.servers import restore

    where = folder(given)
    moment = _moment(to)
    target = Path(data_dir).resolve()
    reached = restore.restore(where, moment, target)
    if (where / devdata.SECRET).exists():
        shutil.copyfile(where / devdata.SECRET, target / devdata.SECRET)
    print(f"restored to {moment.isoformat()} in {target}; last transaction at {reached}")
    print(f"start it with SPADES_DATA_DIR={target} make run, then run `spades resync`")
    return 0


def _moment(raw: str) -> datetime:
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise CliError(f"--to {raw!r} is not a time (ISO 8601, e.g. "
                       "2026-01-31T14:05:00Z)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
