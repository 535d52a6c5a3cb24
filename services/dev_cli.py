"""`spades dev`: Postgres, NATS and every service on this machine, until Ctrl-C.

Postgres and NATS come from pip-installed binaries unless ``DATABASE_URL`` /
``NATS_URL`` point elsewhere; a server of ours that dies is started again on its
data. One lock per data folder keeps a second `spades dev` from starting beside
the first, and the running one announces its servers there for the commands run
beside it (``devdata``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from services import catalog, dev_postgres, devdata
from services.dev_postgres import port as _port
from services.platform import servers
from services.platform.settings import load
from services.upkeep_cli import CliError, migrate

DEV_NATS_PORT = 14222
DEV_NATS_MONITOR_PORT = 18222
DEV_NATS_CLUSTER_PORT = 16222


def hold_lock(root: Path) -> int:
    """Hold the data folder's lock for as long as this process lives (the file descriptor
    is returned): a second `spades dev` on the same folder fails here, naming the first."""
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


def dev() -> int:
    import asyncio

    root = devdata.root()
    lock = hold_lock(root)
    stop = {"signal": 0}

    def on_signal(signum: int, _frame: object) -> None:
        stop["signal"] = signum

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    http_ports = _http_ports()
    started: list[servers.NatsServer] = []
    database = dev_postgres.DevDatabase(root)
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        database_url = database.start(os.environ.get("DATABASE_URL"))
        nats_url, replicas = _nats(root, os.environ.get("NATS_URL"), started)
        applied = asyncio.run(migrate(database_url))
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
        _say_where(http_ports, database.lines(database_url), started, nats_url, replicas)
        while not stop["signal"]:
            for name, child in children.items():
                if child.poll() is not None:
                    raise CliError(f"service {name} exited with code {child.returncode}")
            database.look_after()
            _restart_exited(started)
            time.sleep(0.2)
        print("\nspades dev: stopping", flush=True)
        return 0
    finally:
        _stop_children(children)
        for server in reversed(started):
            server.stop()
        database.stop()
        devdata.withdraw(root)
        os.close(lock)


def _http_ports() -> dict[str, int]:
    """Each service's HTTP port, checked free and each service's settings checked now:
    one line here beats four failing children."""
    http_ports = {name: _port(f"SPADES_DEV_{name.upper()}_PORT", port)
                  for name, port in catalog.DEV_HTTP_PORTS.items()}
    _no_port_twice(http_ports)
    for name, port in http_ports.items():
        if servers.port_in_use(port):
            raise CliError(f"port {port} ({name} HTTP) is in use")
        load(catalog.manifest(name).settings, {"DATABASE_URL": "-", "NATS_URL": "-", **os.environ},
             http_port=port)
    return http_ports


def _nats(root: Path, nats_url: str | None,
          started: list[servers.NatsServer]) -> tuple[str, dict[str, str]]:
    """The NATS the services use: ``nats_url`` when given (reached once, now), else
    nodes of our own, added to ``started``; with the settings a cluster of them asks."""
    import asyncio

    from services.platform import connection

    if nats_url:
        asyncio.run(connection.probe(nats_url, "spades-dev-probe"))
        return nats_url, {}
    nodes = _nats_nodes(root)
    started.extend(nodes)
    replicas = {"SPADES_JS_REPLICAS": os.environ.get("SPADES_JS_REPLICAS", str(len(nodes)))} \
        if len(nodes) > 1 else {}
    return ",".join(node.url for node in nodes), replicas


def _say_where(http_ports: dict[str, int], database_lines: list[str],
               started: list[servers.NatsServer], nats_url: str,
               replicas: dict[str, str]) -> None:
    """What is up and where, once everything answers."""
    lobby = f"http://127.0.0.1:{http_ports['lobby']}"
    print("\nspades dev is up; Ctrl-C stops everything.", flush=True)
    print(f"  web client   {lobby}/  (sign in as a guest, open a table, play with bots)")
    print(f"  API          {lobby}/v1  (status: {lobby}/api/v1/platform)")
    print(f"  API docs     {lobby}/schema")
    for name, port in http_ports.items():
        print(f"  {name:<12} http://127.0.0.1:{port}/metrics  /healthz  /readyz")
    print(*database_lines, sep="\n")
    for server in started:
        print(f"  NATS {server.server_name:<7} {server.url}  "
              f"(monitor http://127.0.0.1:{server.monitor_port}/jsz"
              + (f", cluster port {server.cluster_port})" if server.cluster_port
                 else ")"))
    if not started:
        print(f"  NATS         {nats_url}")
    if replicas:
        print(f"  JetStream    every stream with {replicas['SPADES_JS_REPLICAS']} replicas")
    sys.stdout.flush()


def _no_port_twice(http_ports: dict[str, int]) -> None:
    """Each port this command would listen on, told once: the services' HTTP and the
    servers it starts (Postgres unless DATABASE_URL is set, NATS unless NATS_URL is),
    so that one set twice is a line here, not a service that never comes up."""
    owners: dict[int, str] = {}

    def claim(port: int, what: str) -> None:
        if port in owners:
            raise CliError(f"port {port} is set for both {owners[port]} and {what}")
        owners[port] = what

    for name, port in http_ports.items():
        claim(port, f"{name} HTTP")
    if not os.environ.get("DATABASE_URL"):
        for what, port in dev_postgres.ports().items():
            claim(port, what)
    if not os.environ.get("NATS_URL"):
        nodes = _nats_node_count()
        for i in range(nodes):
            claim(_port("SPADES_DEV_NATS_PORT", DEV_NATS_PORT) + i, f"NATS node {i + 1}")
            claim(_port("SPADES_DEV_NATS_MONITOR_PORT", DEV_NATS_MONITOR_PORT) + i,
                  f"NATS node {i + 1}'s monitor")
            if nodes > 1:
                claim(_port("SPADES_DEV_NATS_CLUSTER_PORT", DEV_NATS_CLUSTER_PORT) + i,
                      f"NATS node {i + 1}'s cluster routes")


def _nats_node_count() -> int:
    raw = os.environ.get("SPADES_DEV_NATS_NODES", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= 5:
        raise CliError(f"setting SPADES_DEV_NATS_NODES is invalid: {raw!r} is not 1 to 5")
    return int(raw)


def _nats_nodes(root: Path) -> list[servers.NatsServer]:
    """One NATS server, or with SPADES_DEV_NATS_NODES=N a cluster of N nodes on
    consecutive ports from the single server's ports (client, monitor, cluster)."""
    count = _nats_node_count()
    port = _port("SPADES_DEV_NATS_PORT", DEV_NATS_PORT)
    monitor = _port("SPADES_DEV_NATS_MONITOR_PORT", DEV_NATS_MONITOR_PORT)
    if count == 1:
        single = servers.NatsServer(root / "nats", port, monitor)
        single.start()
        return [single]
    cluster = servers.nats_cluster(root / "nats-cluster", count, port, monitor,
                                   _port("SPADES_DEV_NATS_CLUSTER_PORT", DEV_NATS_CLUSTER_PORT))
    cluster.start()
    return cluster.nodes


def _restart_exited(started: list[servers.NatsServer]) -> None:
    """A NATS server of ours that died (killed, out of memory) is started again on its
    data; the services ride out the gap and are ready again without a restart. A cluster
    node rejoins its cluster and catches up from the others."""
    for server in started:
        if server.exited:
            what = "NATS" if server.cluster_port is None else f"NATS node {server.server_name}"
            print(f"spades dev: {what} exited; starting it again", flush=True)
            server.start()
            print(f"spades dev: {what} is back", flush=True)


def _wait_ready(children: dict[str, subprocess.Popen[bytes]], ports: dict[str, int],
                stop: dict[str, int], timeout: float = 60.0) -> None:
    from http.client import HTTPException  # pulls in http and ssl: only `spades dev` waits
    from urllib.request import urlopen

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
            # Not HTTP at all (another server took the port): not ready, as unanswered.
            with contextlib.suppress(OSError, HTTPException), urlopen(url, timeout=1) as answer:
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
