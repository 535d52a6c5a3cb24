"""The whole platform for end-to-end tests: two lobby gateways and two game workers,
each in its own process, on the session's real Postgres and NATS."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.services.lobby.harness import Service, lobby_env, start

if TYPE_CHECKING:
    from tests.e2e.otlp import Collector
    from tests.e2e.ranked import Ranked


@dataclass
class Platform:
    gateways: list[Service]
    workers: list[Service]
    logs: Path

    @property
    def a(self) -> Service:
        return self.gateways[0]

    @property
    def b(self) -> Service:
        return self.gateways[1]


@pytest.fixture(scope="package")
def platform(tmp_path_factory: pytest.TempPathFactory, database_url: str, nats_url: str,
             nats_prefix: str) -> Iterator[Platform]:
    logs = tmp_path_factory.mktemp("e2e-logs")
    env = lobby_env(database_url, nats_url, f"{nats_prefix}e2e", SPADES_LOG_LEVEL="debug")
    started: list[Service] = []
    try:
        workers = [start("game", logs / f"game-{i}.log", SPADES_BOT_THINK_MS="0", **env)
                   for i in range(2)]
        started += workers
        gateways = [start("lobby", logs / f"lobby-{i}.log", SPADES_DISCONNECT_GRACE_SECONDS="1",
                          SPADES_WS_FRAMES_PER_SECOND="200", SPADES_WS_FRAME_BURST="400",
                          **env) for i in range(2)]
        started += gateways
        yield Platform(gateways, workers, logs)
    finally:
        for svc in reversed(started):
            svc.stop()


@pytest.fixture
def platform_env(platform: Platform, database_url: str, nats_url: str,
                 nats_prefix: str) -> dict[str, str]:
    """The environment the platform's services run with, for one more beside them."""
    return lobby_env(database_url, nats_url, f"{nats_prefix}e2e")


@pytest.fixture
def ratings_beside(platform: Platform, platform_env: dict[str, str]) -> Iterator[Service]:
    """A ratings service beside the platform, for the test that needs one."""
    svc = start("ratings", platform.logs / f"ratings-{uuid.uuid4().hex[:4]}.log",
                **platform_env)
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def collector() -> Iterator[Collector]:
    """An OTLP trace collector of the test file's own (``tests/e2e/otlp.py``)."""
    from tests.e2e.otlp import collecting

    with collecting() as server:
        yield server


@pytest.fixture(scope="module")
async def ranked(tmp_path_factory: pytest.TempPathFactory,
                 make_database: Callable[[], Awaitable[str]], nats_url: str,
                 nats_prefix: str) -> AsyncIterator[Ranked]:
    """A ranked platform of the test file's own (its database and its NATS names): two
    lobby copies, game workers and ratings, with the queue's short test timings."""
    from tests.e2e.ranked import ranked_platform  # it reads this module's Platform

    async with ranked_platform(tmp_path_factory.mktemp("queue-logs"), await make_database(),
                               nats_url, f"{nats_prefix}q{uuid.uuid4().hex[:4]}") as platform:
        yield platform
