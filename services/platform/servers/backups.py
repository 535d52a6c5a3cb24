"""Base backups and the WAL archive, with PostgreSQL's own tools.

A backup folder (``SPADES_BACKUP_DIR``) holds ``base/``: base backups taken with
``pg_basebackup``, the first full and each later one incremental on the one before
(the server summarizes its WAL: ``summarize_wal=on``), each with a line of JSON
beside it (its kind, when it began and ended, the databases it holds); and ``wal/``:
the WAL archive, streamed by ``pg_receivewal`` as it is written, so a restore can reach
a moment seconds before a loss (``restore.py``). docs/operators.md says how an operator
takes, checks and restores them.
"""

from __future__ import annotations

import json
import signal
import subprocess
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from .postgres import postgres_bin_dir
from .process import stop_process
from .tools import query, run_tool

BASE = "base"
WAL = "wal"
ARCHIVE_SLOT = "spades_archive"
# The archiver streams under its own name: commits never wait for it.
ARCHIVER = "spades_archiver"
# Archived WAL of a lost primary past the point its successor's timeline forked off.
DIVERGED = "wal-diverged"


@dataclass(frozen=True)
class Backup:
    """One base backup: ``base/<name>/``, its description ``base/<name>.json``."""

    name: str
    kind: str  # "full" or "incremental" (on the backup before it)
    began: str  # ISO 8601, UTC
    ended: str  # the backup is consistent from its end on
    databases: list[str]

    def path(self, folder: Path) -> Path:
        return folder / BASE / self.name

    @property
    def ended_at(self) -> datetime:
        return datetime.fromisoformat(self.ended)


def backups(folder: Path) -> list[Backup]:
    """The folder's base backups, oldest first (their names sort by time)."""
    return [Backup(**json.loads(kept.read_text()))
            for kept in sorted((folder / BASE).glob("*.json"))]


def take(url: str, folder: Path, full: bool = False) -> Backup:
    """A base backup of the server ``url`` reaches: incremental on the folder's latest
    one unless ``full`` or there is none. Its WAL comes with it (``-X stream``), so it
    restores on its own; the archive carries it on to later moments."""
    before = backups(folder)
    incremental = bool(before) and not full
    began = datetime.now(UTC)
    name = began.strftime("%Y%m%dT%H%M%S%fZ") + ("-incr" if incremental else "-full")
    target = folder / BASE / name
    target.parent.mkdir(parents=True, exist_ok=True)
    args = ["-d", url, "-D", str(target), "-X", "stream", "-c", "fast"]
    if incremental:
        args += ["--incremental", str(before[-1].path(folder) / "backup_manifest")]
    run_tool("pg_basebackup", *args)
    databases = query(url, "SELECT datname FROM pg_database WHERE NOT datistemplate "
                           "ORDER BY datname")
    made = Backup(name, "incremental" if incremental else "full", began.isoformat(),
                  datetime.now(UTC).isoformat(), databases)
    (folder / BASE / f"{name}.json").write_text(json.dumps(asdict(made)) + "\n")
    return made


def verify(folder: Path, backup: Backup) -> None:
    """``pg_verifybackup``: every file against the manifest's checksums, and the WAL the
    backup needs present and readable."""
    run_tool("pg_verifybackup", "-q", str(backup.path(folder)))


def wal_reaches(folder: Path) -> datetime | None:
    """When the archive last received WAL: a restore reaches about this far."""
    files = [p for p in (folder / WAL).glob("*") if p.is_file()]
    if not files:
        return None
    return datetime.fromtimestamp(max(p.stat().st_mtime for p in files), UTC)


def set_aside_diverged(replication_url: str, folder: Path) -> list[str]:
    """Move the archive's WAL of earlier timelines from the segment where the server's
    timeline forked off them into ``wal-diverged/``; the names moved.

    After a failover the archive may have received more of the lost primary's WAL than
    the promoted standby had, so its copy of the old timeline runs past the fork.
    ``pg_receivewal`` starts where its folder's newest segment ends, and the server
    refuses a start on the old timeline past the fork: the archive would stop for good.
    Without those segments it starts at the fork's segment, streams the old timeline up
    to the fork and follows the server onto the new one. What is set aside was never
    confirmed by the standby (a restore follows the new timeline, not it), and is kept."""

    def command(sql: str) -> str:
        return run_tool("psql", "-X", "-A", "-t", "-q", "-d", replication_url, "-c", sql,
                        timeout=60)

    timeline = int(command("IDENTIFY_SYSTEM").split("|")[1])
    if timeline == 1:
        return []
    size = _bytes(command("SHOW wal_segment_size").strip())
    history = command(f"TIMELINE_HISTORY {timeline}").split("|", 1)[1]
    moved: list[str] = []
    for line in history.splitlines():
        parent, _, fork = line.partition("\t")
        if not parent.strip().isdigit():
            continue
        high, low = fork.split("\t")[0].split("/")
        first = ((int(high, 16) << 32) + int(low, 16)) // size
        for kept in sorted((folder / WAL).glob(f"{int(parent):08X}" + "?" * 16 + "*")):
            segment = kept.name[8:24]
            if int(segment[:8], 16) * (2**32 // size) + int(segment[8:], 16) >= first:
                (folder / DIVERGED).mkdir(exist_ok=True)
                kept.rename(folder / DIVERGED / kept.name)
                moved.append(kept.name)
    return moved


def _bytes(shown: str) -> int:
    """A size as ``SHOW`` gives it (``16MB``)."""
    units = {"kB": 2**10, "MB": 2**20, "GB": 2**30}
    return int(shown[:-2]) * units[shown[-2:]]


class WalArchiver:
    """``pg_receivewal`` streaming the primary's WAL into ``wal/`` through its own slot,
    flushing each piece as it comes. It exits when its server goes (``-n``); started
    again, it makes its slot on whichever server is primary now."""

    def __init__(self, url: str, folder: Path) -> None:
        self.url, self.folder = url, folder
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        (self.folder / WAL).mkdir(parents=True, exist_ok=True)
        connect = f"{self.url}{'&' if '?' in self.url else '?'}application_name={ARCHIVER}"
        run_tool("pg_receivewal", "-d", connect, "-S", ARCHIVE_SLOT, "--create-slot",
                 "--if-not-exists", timeout=60)
        log = open(self.folder / "pg_receivewal.log", "ab")  # noqa: SIM115
        for name in set_aside_diverged(f"{connect}&replication=true", self.folder):
            log.write(f"set aside {name}: past the fork of the server's timeline\n".encode())
        log.flush()
        self.process = subprocess.Popen(
            [str(postgres_bin_dir() / "pg_receivewal"), "-d", connect, "-D",
             str(self.folder / WAL), "-S", ARCHIVE_SLOT, "-n", "--synchronous"],
            stdout=log, stderr=log, start_new_session=True)
        log.close()

    @property
    def exited(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def stop(self) -> None:
        stop_process(self.process, signal.SIGINT)
        self.process = None
