"""Who may queue for ranked games, and what ``GET /v1/queue`` tells one who may not yet.

By default a registered account plays rated at once (provisionally); a deployment that
asks for finished games first says how many are missing, and the join answers
``more_games_needed``, not the guests' ``registered_only``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from tests.services.lobby.harness import Player, Service, lobby_env, start

PASSWORD = "correct horse battery"


def tag() -> str:
    return uuid.uuid4().hex[:6]


@pytest.fixture(scope="module")
def strict(lobby: Service, lobby_logs: Path, database_url: str, nats_url: str,
           lobby_prefix: str) -> Iterator[Service]:
    """A second lobby copy of the same deployment that asks for two finished games."""
    svc = start("lobby", lobby_logs / "lobby-strict.log",
                **lobby_env(database_url, nats_url, lobby_prefix,
                            SPADES_RANKED_MIN_GAMES="2"))
    yield svc
    svc.stop()


async def test_a_new_account_may_queue_at_once_and_a_guest_is_told_why_not(
        lobby: Service, ratings: Service) -> None:
    guest = await Player.guest(lobby.url, "Visitor")
    assert await guest.ok("GET", "/v1/queue") == {
        "state": "none", "players": [], "partner": None, "since": 0, "window": None,
        "match_id": None, "cooldown_until": 0, "blocked_by": "registered_only",
        "games_needed": 0}
    new = await Player.registered(lobby.url, f"fresh{tag()}", PASSWORD)
    state = await new.ok("GET", "/v1/queue")
    assert (state["state"], state["blocked_by"], state["games_needed"]) == ("none", "", 0)
    sock = await new.socket(lobby.ws_url)
    await sock.send({"type": "queue_join", "partner": None})
    status = await sock.until(lambda f: f["type"] == "note"
                              and f["note"]["kind"] == "queue_status")
    assert status["note"]["state"] == "waiting", status
    assert (await new.ok("GET", "/v1/queue"))["state"] == "waiting"
    assert (await new.ok("DELETE", "/v1/queue"))["state"] == "none"
    await sock.close()
    for p in (guest, new):
        await p.aclose()


async def test_a_deployment_asking_for_finished_games_counts_down_to_the_queue(
        strict: Service, database_url: str) -> None:
    new = await Player.registered(strict.url, f"count{tag()}", PASSWORD)
    state = await new.ok("GET", "/v1/queue")
    assert (state["blocked_by"], state["games_needed"]) == ("more_games_needed", 2)
    sock = await new.socket(strict.ws_url)
    await sock.send({"type": "queue_join", "partner": None})
    error = await sock.of_type("error")
    assert error["code"] == "more_games_needed" and "2 more games" in error["message"]
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "lobby"})
    try:  # the games projection records one finished game and one still running
        await conn.execute(
            "INSERT INTO games (game_id, players, started_at, ended_at) VALUES"
            " ($1, $3, now(), now()), ($2, $3, now(), NULL)",
            f"g-{tag()}", f"g-{tag()}", [new.player_id, "b", "c", "d"])
        assert (await new.ok("GET", "/v1/queue"))["games_needed"] == 1
        assert await conn.fetchval("SELECT count(*) FROM queue_members WHERE player_id = $1",
                                   new.player_id) == 0
    finally:
        await conn.close()
    await sock.close()
    await new.aclose()
