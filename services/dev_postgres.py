"""The PostgreSQL of `spades dev`: one server, or with ``SPADES_DEV_PG_STANDBY=1`` a
primary and its synchronous standby, and what `spades dev` does when one dies.

One server that dies is started again on its data. Of a pair, a dead primary is taken
for a lost machine, as Patroni or CloudNativePG take it: the standby is promoted at
once and a new standby is copied from it into the lost one's folder while play goes on;
a dead standby is started again (copied anew if its folder is gone). The services
connect with one multi-host URL and follow whichever server takes writes
(docs/operators.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from services.platform import servers
from services.platform.servers.backups import WalArchiver
from services.upkeep_cli import CliError

DEV_DATABASE = "spades"
DEV_PG_PORT = 15432
# Incremental backups read the server's own summaries of its WAL. A promoted standby
# has no slot for the WAL archive (slots are not copied to a standby): it keeps its
# recent WAL for the archiver to resume from the fork, where a checkpoint (the new
# standby's copy makes one at once) would otherwise remove it first.
SETTINGS = {"summarize_wal": "on", "wal_keep_size": "512MB"}

Postgres = servers.PostgresServer | servers.PostgresPair


def port(name: str, default: int) -> int:
    raw = os.environ.get(name, str(default))
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise CliError(f"setting {name} is invalid: {raw!r} is not a port")
    return int(raw)


def with_standby() -> bool:
    raw = os.environ.get("SPADES_DEV_PG_STANDBY", "0")
    if raw not in ("0", "1"):
        raise CliError(f"setting SPADES_DEV_PG_STANDBY is invalid: {raw!r} is not 0 or 1")
    return raw == "1"


def standby_lost() -> str:
    """What the primary does while its standby is away: ``wait`` (commits wait for it,
    nothing acknowledged is ever on one machine only) or ``alone`` (commits go on,
    said loudly, until it is back)."""
    raw = os.environ.get("SPADES_DEV_PG_STANDBY_LOST", "wait")
    if raw not in ("wait", "alone"):
        raise CliError(f"setting SPADES_DEV_PG_STANDBY_LOST is invalid: {raw!r} is not "
                       "wait or alone")
    return raw


def ports() -> dict[str, int]:
    """The ports of the servers `spades dev` would start, by what each is."""
    primary = port("SPADES_DEV_PG_PORT", DEV_PG_PORT)
    if not with_standby():
        return {"PostgreSQL": primary}
    standby_lost()  # a bad setting told before anything starts
    return {"PostgreSQL": primary,
            "the PostgreSQL standby": port("SPADES_DEV_PG_STANDBY_PORT", primary + 1)}


def make(root: Path) -> Postgres:
    primary, *standby = ports().values()
    if not standby:
        return servers.PostgresServer(root / "postgres", primary, settings=dict(SETTINGS))
    return servers.PostgresPair.in_folder(root, primary, standby[0], SETTINGS)


class DevDatabase:
    """What `spades dev` runs of PostgreSQL: its server or pair (none when
    ``DATABASE_URL`` is given) and, with ``SPADES_BACKUP_DIR`` set, the WAL archive."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pg: Postgres | None = None
        self.archive: WalArchiver | None = None
        self.tries = Tries()
        self.standby_away = StandbyAway()

    def start(self, given_url: str | None) -> str:
        """Start what is ours; the URL the services use."""
        import asyncio

        url = given_url
        if not url:
            self.pg = make(self.root)
            self.pg.start()
            admin = self.pg.url() if isinstance(self.pg, servers.PostgresPair) else self.pg.url
            url = asyncio.run(_ensure_database(admin))
        raw = os.environ.get("SPADES_BACKUP_DIR")
        if raw:
            self.archive = WalArchiver(url, Path(raw).resolve())
            self.keep_archiving()
        return url

    def lines(self, url: str) -> list[str]:
        """What `spades dev` prints of its PostgreSQL."""
        said = [f"  PostgreSQL   {url}"]
        if isinstance(self.pg, servers.PostgresServer):
            said.append(f"  data         {self.pg.data_dir}")
        elif self.pg:
            primary, standby = self.pg.primary, self.pg.standby
            said += [f"  primary      127.0.0.1:{primary.port}  (data {primary.data_dir})",
                     f"  standby      127.0.0.1:{standby.port}  (data {standby.data_dir}; "
                     "synchronous: a commit is on both before it is acknowledged)"]
        if self.archive:
            said.append(f"  WAL archive  {self.archive.folder / 'wal'}  "
                        "(spades backup; spades restore --to TIME)")
        return said

    def look_after(self) -> None:
        pg = self.pg
        if isinstance(pg, servers.PostgresPair) and pg.standby.exited and not pg.primary.exited:
            self.standby_away.attach(pg)
        elif pg:
            look_after(pg)
        if self.archive:
            self.keep_archiving()

    def keep_archiving(self) -> None:
        """Start the archiver, and again when it exits (its server went: a failover), at
        most once a second while the primary does not answer."""
        archive = self.archive
        if archive is None or (archive.process is not None and not archive.exited):
            return
        if self.tries.started(archive.start, "the WAL archive waits for the primary: {}"):
            say(f"archiving WAL into {archive.folder / 'wal'}")

    def stop(self) -> None:
        if self.archive:
            self.archive.stop()
        if self.pg:
            self.pg.stop()


class Tries:
    """Starting a server that may not start yet: at most one try a second, and each
    reason it fails said once rather than every second."""

    def __init__(self) -> None:
        self.last = 0.0
        self.why = ""

    def started(self, start: Callable[[], None], failed: str) -> bool:
        """Whether ``start`` ran now and succeeded (``failed``: the line, ``{}`` the why)."""
        if time.monotonic() - self.last < 1.0:
            return False
        self.last = time.monotonic()
        try:
            start()
        except servers.ServerError as exc:
            if str(exc) != self.why:
                say(failed.format(exc))
            self.why = str(exc)
            return False
        self.why = ""
        return True


class StandbyAway:
    """A lost standby (its process gone, its folder perhaps too): the policy is said once
    and applied (``alone``: the primary stops waiting for it), then a standby is started
    again, copied anew when its folder is gone, at most once a second until one streams.
    A standby that cannot start yet (its port taken, its disk full) is said, not fatal:
    the platform goes on under the policy meanwhile."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.tries = Tries()

    def attach(self, pg: servers.PostgresPair) -> None:
        if self.since is None:
            self.since = time.monotonic()
            if standby_lost() == "alone":
                pg.carry_on_alone()
                say(f"WARNING: the PostgreSQL standby (port {pg.standby.port}) is lost; the "
                    "primary carries on ALONE: commits are on one machine only until it is "
                    "back")
            else:
                say(f"the PostgreSQL standby (port {pg.standby.port}) is lost; commits wait "
                    "for it")
        if self.tries.started(pg.start_standby, "the PostgreSQL standby cannot start yet "
                                                "({}); trying every second"):
            say(f"the PostgreSQL standby is back and synchronous (away "
                f"{time.monotonic() - self.since:.1f}s)")
            self.since = None


def look_after(pg: Postgres) -> None:
    """Start again, or fail over from, a server of ours that died."""
    if isinstance(pg, servers.PostgresServer):
        if pg.exited:
            say("PostgreSQL exited; starting it again")
            pg.start()
            say("PostgreSQL is back")
    elif pg.primary.exited:
        fail_over(pg)


def fail_over(pg: servers.PostgresPair) -> None:
    lost = pg.primary
    began = time.monotonic()
    say(f"the PostgreSQL primary (port {lost.port}) is lost; promoting the standby "
        f"(port {pg.standby.port})")
    pg.promote()
    say(f"PostgreSQL primary is now port {pg.primary.port} "
        f"(promoted in {time.monotonic() - began:.2f}s)")
    say(f"copying a new standby into {lost.data_dir} (port {lost.port})")
    pg.replace_standby()
    say(f"the new PostgreSQL standby (port {pg.standby.port}) is synchronous")


async def _ensure_database(admin_url: str) -> str:
    import asyncpg

    from services.platform import dbadmin

    try:
        return await dbadmin.ensure_database(admin_url, DEV_DATABASE)
    except (OSError, asyncpg.PostgresError) as exc:
        raise CliError(f"cannot use PostgreSQL at {admin_url}: {exc}") from None


def say(line: str) -> None:
    print(f"spades dev: {line}", flush=True)
