"""Several nats-server nodes in one JetStream cluster on this machine."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .natsserver import NatsServer
from .process import ServerError, free_port


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
