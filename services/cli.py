"""`spades dev | serve SERVICE | migrate | resync | ratings rebuild | settings`.

Every failure an operator can cause (a port in use, a server that does not
answer, a bad setting, a second `spades dev`) ends in one line on stderr and a
non-zero exit, never a traceback.

The clients of NATS and Postgres and the event loop are imported by the
commands that connect, not here: `spades --help` and `spades record verify`
start without them.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from services import catalog, devdata, registry
from services.game.settings import GameSettings, game_databases
from services.platform import servers
from services.platform.settings import SettingsError, StartupError, describe, load
from services.tournaments import cli as tournament_cli

if TYPE_CHECKING:
    from services.platform.outbox import Republished

DEV_DATABASE = "spades"
DEV_PG_PORT = 15432
DEV_NATS_PORT = 14222
DEV_NATS_MONITOR_PORT = 18222
DEV_NATS_CLUSTER_PORT = 16222


class CliError(Exception):
    """One line for the operator; exit 1."""


Handler = Callable[[argparse.Namespace], int]


def parser() -> argparse.ArgumentParser:
    """Every command, each with its handler (``func``): the exit status it returns."""
    top = argparse.ArgumentParser(prog="spades", description="Spades platform")
    sub = top.add_subparsers(dest="command", required=True)

    def command(name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help)
        p.set_defaults(func=handler)
        return p

    command("dev", lambda _: dev(),
            help="start Postgres, NATS and the four services on this machine")
    command("serve", lambda a: serve_one(a.service),
            help="run one service (for deployment)").add_argument(
        "service", choices=catalog.SERVICES)
    command("migrate", lambda _: migrate_cmd(),
            help="apply every service's migrations to DATABASE_URL "
                 "(or the running `spades dev`'s database)")
    resync = command("resync", lambda a: resync_cmd(a.from_position, a.stream),
                     help="publish stored game events to JetStream again "
                          "(after JetStream lost or purged them)")
    resync.add_argument("--from-position", type=int, default=0,
                        help="first global position to republish (default: all)")
    resync.add_argument("--stream", help="only this game's stream")
    ratings_p = sub.add_parser("ratings", help="the ratings service's tables")
    ratings_sub = ratings_p.add_subparsers(dest="ratings_command", required=True)
    ratings_sub.add_parser("rebuild", help="forget every rating and rate every stored "
                                           "GameEnded again, in order (after a formula change)"
                           ).set_defaults(func=lambda _: ratings_rebuild_cmd())
    command("settings", lambda a: settings_cmd(a.service),
            help="list a service's settings: default, value in "
                 "force (from the environment), meaning").add_argument(
        "service", choices=catalog.SERVICES)
    _operator_commands(command)
    for role, what in (("operator", "give a registered account the operator role, or take "
                                    "it away"),
                       ("organizer", "let a registered account organize tournaments, "
                                     "or stop it")):
        role_p = command(role, lambda a: role_cmd(a.command, a.action == "grant", a.name),
                         help=what)
        role_p.add_argument("action", choices=("grant", "revoke"))
        role_p.add_argument("name", help="a registered account's name")
    tournament_cli.add_parser(sub).set_defaults(
        func=lambda a: tournament_cli.run(a, devdata.database_url()))
    return top


def _operator_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """`record`, `replay` and `events`: run by ``operator_cli``, imported when one runs."""

    def run(args: argparse.Namespace) -> int:
        from services import operator_cli

        return operator_cli.run(args)

    record = command("record", run,
                     help="game records: check them, or export a game's hands")
    record_sub = record.add_subparsers(dest="record_command", required=True)
    verify_p = record_sub.add_parser("verify", help="judge JSON Lines game records")
    verify_p.add_argument("file", help="a JSON Lines file, or - for standard input")
    record_export = record_sub.add_parser("export", help="a stored game's hands as records")
    record_export.add_argument("game_id")
    replay_p = command("replay", run, help="replay and verify a game's event log")
    replay_p.add_argument("game_id", nargs="?", help="a stored game, read from DATABASE_URL "
                          "or the database of the `spades dev` running beside it")
    replay_p.add_argument("--file", help="an exported log (JSON Lines); no database needed")
    replay_p.add_argument("--at", type=int, help="stop after N events (event N is version N; "
                                                 "0: before the first) and show the board")
    replay_p.add_argument("--seat", type=int, choices=range(4), help="show what seat S saw")
    replay_p.add_argument("--json", action="store_true",
                          help="machine-readable: the timeline, the state and the verdict")
    replay_p.add_argument("--verify-all", action="store_true",
                          help="verify every stored game and summarize")
    events_p = command("events", run, help="a stored game's event log")
    events_sub = events_p.add_subparsers(dest="events_command", required=True)
    events_export = events_sub.add_parser("export", help="write the log as JSON Lines")
    events_export.add_argument("game_id")


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        code = args.func(args)
    except _one_line_errors() as exc:  # evaluated only once something was raised
        print(f"spades: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)


def _one_line_errors() -> tuple[type[Exception], ...]:
    """The failures an operator causes, each told in one line."""
    from services.platform import bus, db, migrations

    return (CliError, SettingsError, StartupError, servers.ServerError, db.DatabaseUnavailable,
            bus.BusUnavailable, migrations.MigrationError, tournament_cli.TournamentCliError)


def settings_cmd(service: str) -> int:
    """A service's settings as tab-separated columns under a header: the environment name,
    the default, the value in force (from this environment) and what it means."""
    print("setting\tdefault\tin force\tmeaning")
    for row in describe(registry.spec(service).settings):
        print("\t".join(row))
    return 0


def serve_one(name: str) -> int:
    import asyncio

    from services.platform import runtime

    spec = registry.spec(name)
    settings = load(spec.settings)
    asyncio.run(runtime.run(name, settings, spec.setup, spec.migrations))
    return 0


def migrate_cmd() -> int:
    import asyncio

    url = devdata.database_url()
    applied = asyncio.run(_migrate(url))
    print(f"applied {len(applied)} migration(s)" + (": " + ", ".join(applied) if applied else ""))
    return 0


async def _migrate(url: str) -> list[str]:
    import asyncpg

    from services.platform import db, migrations

    try:
        conn = await asyncpg.connect(url, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        raise CliError(f"cannot reach PostgreSQL at {db._safe(url)}: {exc}") from None
    try:
        return await migrations.apply(conn, catalog.all_migrations())
    finally:
        await conn.close()


def role_cmd(role: str, grant: bool, name: str) -> int:
    import asyncio

    from services.lobby.accounts import roles
    from services.lobby.base.errors import LobbyError

    url = devdata.database_url()
    change = roles.set_role if role == "operator" else roles.set_organizer
    try:
        print(asyncio.run(change(url, name, grant)))
    except LobbyError as exc:
        raise CliError(exc.message) from None
    return 0


def resync_cmd(from_position: int, stream: str | None) -> int:
    """Publish stored events again and say what JetStream stored, not what was sent."""
    import asyncio

    settings = _game_settings()
    done = asyncio.run(_republish(settings, from_position, stream))
    print(f"republished {done.sent} event(s); JetStream stored {done.stored}; "
          "consumers skip what they already applied")
    return 0


def _game_settings() -> GameSettings:
    settings = load(registry.spec("game").settings, devdata.environ())
    assert isinstance(settings, GameSettings)
    return settings


async def _republish(settings: GameSettings, from_position: int, stream: str | None,
                     event_type: str | None = None) -> Republished:
    """Republish from every database the games live in (each its own positions, so
    ``from_position`` counts in each, and their events interleaved by the time they
    occurred); a single stream from whichever holds it."""
    import nats.errors

    from schemas.subjects import Names
    from services.platform import bus, db
    from services.platform.outbox import republish

    urls = game_databases(settings.database_url, settings.shard_database_urls)
    pools = [await db.create_pool(url, "game", min_size=1, max_size=1) for url in urls]
    try:
        nc = await bus.connect_once(settings.nats_url, "spades-resync")
        try:
            return await republish(pools, nc.jetstream(),
                                   Names(settings.nats_prefix).game_event,
                                   from_position=from_position, stream=stream,
                                   event_type=event_type)
        except (nats.errors.Error, TimeoutError) as exc:
            raise CliError(f"JetStream did not take every event: {exc!r}; run it again"
                           ) from None
        finally:
            await nc.close()
    finally:
        for pool in pools:
            await pool.close()


def ratings_rebuild_cmd() -> int:
    """Forget every rating, then publish every stored ending again in order (under new
    message ids, as resync does): the running ratings service rates them anew."""
    import asyncio

    from schemas import subjects

    settings = _game_settings()
    asyncio.run(_forget_ratings(settings.database_url))
    done = asyncio.run(_republish(settings, 0, None, subjects.GAME_ENDED))
    print(f"ratings emptied; republished {done.sent} GameEnded event(s) in order, "
          f"JetStream stored {done.stored}: the ratings service rates them again")
    return 0


async def _forget_ratings(url: str) -> None:
    """Empty the ratings and the record of applied games in one transaction."""
    from schemas import subjects
    from services.platform import db
    from services.ratings import store

    ratings = await db.create_pool(url, "ratings", min_size=1, max_size=1)
    try:
        async with ratings.acquire() as conn, conn.transaction():
            await store.reset(conn, subjects.RATINGS_RESULTS)
    finally:
        await ratings.close()


# --- spades dev ------------------------------------------------------------------------


def _lock(root: Path) -> int:
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / devdata.LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = os.read(fd, 32).decode().strip() or "?"
        os.close(fd)
        raise CliError(f"spades dev is already running (pid {pid}); stop it first") from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def _port(name: str, default: int) -> int:
    raw = os.environ.get(name, str(default))
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise CliError(f"setting {name} is invalid: {raw!r} is not a port")
    return int(raw)


def dev() -> int:
    import asyncio

    root = devdata.root()
    lock = _lock(root)
    stop = {"signal": 0}

    def on_signal(signum: int, _frame: object) -> None:
        stop["signal"] = signum

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    http_ports = {name: _port(f"SPADES_DEV_{name.upper()}_PORT", port)
                  for name, port in catalog.DEV_HTTP_PORTS.items()}
    for name, port in http_ports.items():
        if servers.port_in_use(port):
            raise CliError(f"port {port} ({name} HTTP) is in use")
        # Check each service's settings now: one line here beats four failing children.
        load(registry.spec(name).settings, {"DATABASE_URL": "-", "NATS_URL": "-", **os.environ},
             http_port=port)
    database_url = os.environ.get("DATABASE_URL")
    nats_url = os.environ.get("NATS_URL")
    started: list[servers.PostgresServer | servers.NatsServer] = []
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        if not database_url:
            pg = servers.PostgresServer(root / "postgres", _port("SPADES_DEV_PG_PORT", DEV_PG_PORT))
            pg.start()
            started.append(pg)
            database_url = asyncio.run(_ensure_database(pg.url))
        replicas: dict[str, str] = {}
        if not nats_url:
            nodes = _nats_nodes(root)
            started.extend(nodes)
            nats_url = ",".join(node.url for node in nodes)
            if len(nodes) > 1:
                replicas = {"SPADES_JS_REPLICAS":
                            os.environ.get("SPADES_JS_REPLICAS", str(len(nodes)))}
        else:
            asyncio.run(_probe_nats(nats_url))
        applied = asyncio.run(_migrate(database_url))
        print(f"spades dev: database ready ({len(applied)} migration(s) applied)", flush=True)
        devdata.announce(root, database_url, nats_url)
        # A secret kept in the data folder: a restart must not sign everyone out.
        secret = os.environ.get("SPADES_TOKEN_SECRET") or devdata.token_secret(root)
        for name in catalog.SERVICES:
            env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": nats_url,
                   "SPADES_TOKEN_SECRET": secret,
                   "SPADES_HTTP_PORT": str(http_ports[name]), "SPADES_MIGRATE_ON_START": "false",
                   "SPADES_INSTANCE_ID": f"dev-{name}", **replicas}
            children[name] = subprocess.Popen(
                [sys.executable, "-m", "services.cli", "serve", name], env=env,
                start_new_session=True, preexec_fn=servers.die_with_parent(signal.SIGTERM))
        _wait_ready(children, http_ports, stop)
        lobby = f"http://127.0.0.1:{http_ports['lobby']}"
        print("\nspades dev is up; Ctrl-C stops everything.", flush=True)
        print(f"  web client   {lobby}/  (sign in as a guest, open a table, play with bots)")
        print(f"  API          {lobby}/v1  (status: {lobby}/api/v1/platform)")
        print(f"  API docs     {lobby}/schema")
        for name, port in http_ports.items():
            print(f"  {name:<12} http://127.0.0.1:{port}/metrics  /healthz  /readyz")
        print(f"  PostgreSQL   {database_url}")
        for server in started:
            if isinstance(server, servers.NatsServer):
                print(f"  NATS {server.server_name:<7} {server.url}  "
                      f"(monitor http://127.0.0.1:{server.monitor_port}/jsz"
                      + (f", cluster port {server.cluster_port})" if server.cluster_port
                         else ")"))
        if not any(isinstance(server, servers.NatsServer) for server in started):
            print(f"  NATS         {nats_url}")
        if replicas:
            print(f"  JetStream    every stream with {replicas['SPADES_JS_REPLICAS']} replicas")
        sys.stdout.flush()
        while not stop["signal"]:
            for name, child in children.items():
                if child.poll() is not None:
                    raise CliError(f"service {name} exited with code {child.returncode}")
            _restart_exited(started)
            time.sleep(0.2)
        print("\nspades dev: stopping", flush=True)
        return 0
    finally:
        _stop_children(children)
        for server in reversed(started):
            server.stop()
        devdata.withdraw(root)
        os.close(lock)


def _nats_nodes(root: Path) -> list[servers.NatsServer]:
    """One NATS server, or with SPADES_DEV_NATS_NODES=N a cluster of N nodes on
    consecutive ports from the single server's ports (client, monitor, cluster)."""
    raw = os.environ.get("SPADES_DEV_NATS_NODES", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= 5:
        raise CliError(f"setting SPADES_DEV_NATS_NODES is invalid: {raw!r} is not 1 to 5")
    port = _port("SPADES_DEV_NATS_PORT", DEV_NATS_PORT)
    monitor = _port("SPADES_DEV_NATS_MONITOR_PORT", DEV_NATS_MONITOR_PORT)
    if int(raw) == 1:
        single = servers.NatsServer(root / "nats", port, monitor)
        single.start()
        return [single]
    cluster = servers.nats_cluster(root / "nats-cluster", int(raw), port, monitor,
                                   _port("SPADES_DEV_NATS_CLUSTER_PORT", DEV_NATS_CLUSTER_PORT))
    cluster.start()
    return cluster.nodes


def _restart_exited(started: list[servers.PostgresServer | servers.NatsServer]) -> None:
    """A server of ours that died (killed, out of memory) is started again on its data;
    the services ride out the gap and are ready again without a restart. A cluster
    node rejoins its cluster and catches up from the others."""
    for server in started:
        if server.exited:
            what = ("PostgreSQL" if isinstance(server, servers.PostgresServer)
                    else "NATS" if server.cluster_port is None
                    else f"NATS node {server.server_name}")
            print(f"spades dev: {what} exited; starting it again", flush=True)
            server.start()
            print(f"spades dev: {what} is back", flush=True)


async def _ensure_database(admin_url: str) -> str:
    import asyncpg

    from services.platform import dbadmin

    try:
        return await dbadmin.ensure_database(admin_url, DEV_DATABASE)
    except (OSError, asyncpg.PostgresError) as exc:
        raise CliError(f"cannot use PostgreSQL at {admin_url}: {exc}") from None


async def _probe_nats(url: str) -> None:
    from services.platform import bus

    nc = await bus.connect_once(url, "spades-dev-probe", timeout=1.0)
    await nc.close()


def _wait_ready(children: dict[str, subprocess.Popen[bytes]], ports: dict[str, int],
                stop: dict[str, int], timeout: float = 60.0) -> None:
    from urllib.request import urlopen  # pulls in http and ssl: only `spades dev` waits

    pending = dict(ports)
    deadline = time.monotonic() + timeout
    while pending:
        if stop["signal"]:
            raise CliError("interrupted while starting")
        if time.monotonic() > deadline:
            raise CliError(f"services not ready after {timeout:.0f}s: {', '.join(pending)}")
        for name in list(pending):
            if children[name].poll() is not None:
                raise CliError(f"service {name} exited with code {children[name].returncode}")
            url = f"http://127.0.0.1:{pending[name]}/readyz"
            with contextlib.suppress(OSError), urlopen(url, timeout=1) as answer:
                if answer.status == 200:
                    del pending[name]
        time.sleep(0.1)


def _stop_children(children: dict[str, subprocess.Popen[bytes]], grace: float = 15.0) -> None:
    for child in children.values():
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in children.values():
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()
