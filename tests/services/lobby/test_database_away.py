"""While Postgres is away (stopped, then restarting) every route that needs it answers
503 ``unavailable`` with a Retry-After, and a socket's frame an ``unavailable`` error:
"not now", never a 500. Once Postgres is back the same requests succeed.

The lobby runs on a Postgres of this test's own, which the test stops outright."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services.platform import servers
from tests.services.lobby.harness import Player, Service, lobby_env, start


@pytest.fixture
def own_postgres(server_folder: Path) -> Iterator[servers.PostgresServer]:
    pg = servers.PostgresServer(server_folder / "pg", servers.free_port())
    pg.start()
    yield pg
    pg.stop()


@pytest.fixture
def lobby_alone(own_postgres: servers.PostgresServer, tmp_path: Path, nats_url: str,
                nats_prefix: str) -> Iterator[Service]:
    """A lobby that migrates its own schema on the test's Postgres."""
    env = lobby_env(own_postgres.url, nats_url, f"{nats_prefix}pa{uuid.uuid4().hex[:4]}",
                    SPADES_MIGRATE_ON_START="true")
    svc = start("lobby", tmp_path / "lobby-away.log", None, **env)
    yield svc
    svc.stop()


def unavailable(r: httpx.Response) -> bool:
    return (r.status_code == 503 and r.json()["code"] == "unavailable"
            and int(r.headers["retry-after"]) > 0)


async def test_a_database_that_is_away_is_503_with_retry_after_then_back(
        own_postgres: servers.PostgresServer, lobby_alone: Service) -> None:
    ada = await Player.guest(lobby_alone.url, "Ada")
    table = await ada.ok("POST", "/v1/tables", {"rules": "quick", "private": True})
    sock = await ada.socket(lobby_alone.ws_url)
    requests = [("GET", "/v1/me", None), ("POST", "/v1/matches/m-1/ready", None),
                ("GET", f"/v1/tables/{table['table_id']}", None),
                ("POST", "/v1/tables", {"rules": "quick"}), ("GET", "/v1/tables", None)]
    own_postgres.stop()
    try:
        for method, path, body in requests:
            r = await ada.http.request(method, path, json=body)
            assert unavailable(r), (method, path, r.status_code, r.text)
        async with httpx.AsyncClient(base_url=lobby_alone.url) as anon:
            r = await anon.post("/v1/auth/guest", json={"name": "Bea"})
            assert unavailable(r), r.text
        await sock.send({"type": "subscribe", "table_id": table["table_id"]})
        error = await sock.of_type("error")
        assert error["code"] == "unavailable", error
    finally:
        own_postgres.start()
    assert (await ada.ok("GET", "/v1/me"))["player_id"] == ada.player_id
    status, err = await ada.call("POST", "/v1/matches/m-1/ready")
    assert (status, err["code"]) == (404, "match_not_found")
    await sock.close()
    await ada.aclose()
