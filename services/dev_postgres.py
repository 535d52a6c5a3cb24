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
from pathlib import Path

from services.platform import servers
from services.upkeep_cli import CliError

DEV_PG_PORT = 15432

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


def ports() -> dict[str, int]:
    """The ports of the servers `spades dev` would start, by what each is."""
    primary = port("SPADES_DEV_PG_PORT", DEV_PG_PORT)
    if not with_standby():
        return {"PostgreSQL": primary}
    return {"PostgreSQL": primary,
            "the PostgreSQL standby": port("SPADES_DEV_PG_STANDBY_PORT", primary + 1)}


def make(root: Path) -> Postgres:
    primary, *standby = ports().values()
    if not standby:
        return servers.PostgresServer(root / "postgres", primary)
    return servers.PostgresPair.in_folder(root, primary, standby[0])


def admin_url(pg: Postgres) -> str:
    return pg.url() if isinstance(pg, servers.PostgresPair) else pg.url


def describe(pg: Postgres) -> list[str]:
    """The lines `spades dev` prints for its PostgreSQL servers."""
    if isinstance(pg, servers.PostgresServer):
        return [f"  data         {pg.data_dir}"]
    return [f"  primary      127.0.0.1:{pg.primary.port}  (data {pg.primary.data_dir})",
            f"  standby      127.0.0.1:{pg.standby.port}  (data {pg.standby.data_dir}; "
            "synchronous: a commit is on both before it is acknowledged)"]


def look_after(pg: Postgres) -> None:
    """Start again, or fail over from, a server of ours that died."""
    if isinstance(pg, servers.PostgresServer):
        if pg.exited:
            say("PostgreSQL exited; starting it again")
            pg.start()
            say("PostgreSQL is back")
        return
    if pg.primary.exited:
        fail_over(pg)
    elif pg.standby.exited:
        say(f"the PostgreSQL standby (port {pg.standby.port}) exited; starting it again")
        pg.start_standby()
        say("the PostgreSQL standby is back and synchronous")


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


def say(line: str) -> None:
    print(f"spades dev: {line}", flush=True)
