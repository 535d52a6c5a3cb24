"""Both servers together, and whether Docker could run them instead."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .natsserver import NatsServer
from .postgres import PostgresServer
from .process import free_port


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
