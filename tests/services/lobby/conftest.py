"""One real lobby process (and a game service process) for the lobby's tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services.lobby.harness import Service, lobby_env, start


@pytest.fixture(scope="package")
def lobby_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lobby-logs")


@pytest.fixture(scope="package")
def lobby_prefix(nats_prefix: str) -> str:
    return f"{nats_prefix}lb"


@pytest.fixture(scope="package")
def lobby(lobby_logs: Path, database_url: str, nats_url: str,
          lobby_prefix: str) -> Iterator[Service]:
    svc = start("lobby", lobby_logs / "lobby-a.log",
                **lobby_env(database_url, nats_url, lobby_prefix,
                            SPADES_WS_ALLOWED_ORIGINS="https://spades.example",
                            SPADES_WS_FRAMES_PER_SECOND="10", SPADES_WS_FRAME_BURST="20",
                            SPADES_WS_SOCKETS_PER_PLAYER="2", SPADES_TOKEN_TTL_SECONDS="3600",
                            SPADES_DISCONNECT_GRACE_SECONDS="1"))
    yield svc
    svc.stop()


@pytest.fixture
def ratings(lobby: Service, lobby_logs: Path, database_url: str, nats_url: str,
            lobby_prefix: str) -> Iterator[Service]:
    """A ratings service beside the lobby, for the tests that need one (the others see
    it away); it recomputes the leaderboard every second."""
    svc = start("ratings", lobby_logs / "ratings.log",
                **lobby_env(database_url, nats_url, lobby_prefix,
                            SPADES_LEADERBOARD_REFRESH_SECONDS="1"))
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def tournaments(lobby: Service, lobby_logs: Path, database_url: str, nats_url: str,
                lobby_prefix: str) -> Iterator[Service]:
    """The tournament and ratings services beside the lobby (the ratings seed teams)."""
    env = lobby_env(database_url, nats_url, lobby_prefix)
    tag = uuid.uuid4().hex[:6]
    ratings = start("ratings", lobby_logs / f"ratings-{tag}.log", **env)
    svc = start("tournaments", lobby_logs / f"tournaments-{tag}.log", **env)
    yield svc
    svc.stop()
    ratings.stop()


@pytest.fixture(scope="module")
def game(lobby: Service, lobby_logs: Path, database_url: str, nats_url: str,
         lobby_prefix: str) -> Iterator[Service]:
    """A game worker beside the lobby, for a test that needs every service answering."""
    svc = start("game", lobby_logs / f"game-{uuid.uuid4().hex[:6]}.log",
                **lobby_env(database_url, nats_url, lobby_prefix))
    yield svc
    svc.stop()
