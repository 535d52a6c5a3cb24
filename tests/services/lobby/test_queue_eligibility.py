"""Who may queue for ranked games, and what ``GET /v1/queue`` tells one who may not yet.

By default a registered account plays rated at once (provisionally); a deployment that
asks for finished games first says how many are missing, and the join answers
``more_games_needed``, not the guests' ``registered_only``. A fair-play bar from ranked
is named with its end, and takes the tickets of players already queued out.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from tests.services.lobby.harness import Player, Service, Socket, lobby_env, start

ROOT = Path(__file__).resolve().parents[3]

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
        "games_needed": 0, "until": 0}
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


async def _status(sock: Socket, state: str) -> dict[str, Any]:
    """The player's next ``queue_status`` note in ``state`` (the matchmaker's round comes
    within ``SPADES_QUEUE_CYCLE_SECONDS``, 5)."""
    frame = await sock.until(lambda f: f["type"] == "note" and f["note"]["kind"] == "queue_status"
                             and f["note"]["state"] == state, timeout=20)
    return dict(frame["note"])


async def _uphold(database_url: str, players: list[str], bus: dict[str, str]) -> int:
    """An open case of ``players`` upheld on the command line, as an operator does it
    (told the deployment's bus, ``bus``, it tells the matchmaker): when their bar from
    ranked ends (ms)."""
    case_id = f"c-{tag()}"
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "ratings"})
    try:
        await conn.execute("INSERT INTO fairplay_cases (case_id, players, relation)"
                           " VALUES ($1, $2, 'partners')", case_id, sorted(players))
    finally:
        await conn.close()
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.cli", "fairplay", "decide", case_id,
                         "upheld", "--bar-days", "3"],
        env={**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT), **bus},
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert ("the bus was not told" in done.stderr) == (not bus), done.stderr
    return int(json.loads(done.stdout)["events"][-1]["barred_until_ms"])  # the answer alone


async def test_a_bar_from_ranked_takes_queued_tickets_out_and_is_named_until_it_ends(
        lobby: Service, ratings: Service, database_url: str, nats_url: str,
        lobby_prefix: str) -> None:
    """The matchmaker trusts a player found clear for a minute (the lobby's default
    ``SPADES_QUEUE_BAR_RECHECK_SECONDS``): the bar reaches the queue within a round
    because the command line that decided it told the bus."""
    ann, bob, cy = [await Player.registered(lobby.url, f"{n}{tag()}", PASSWORD)
                    for n in ("ann", "bob", "cy")]
    socks = [await p.socket(lobby.ws_url) for p in (ann, bob, cy)]
    await socks[0].send({"type": "queue_join", "partner": bob.player_id})
    await _status(socks[0], "inviting")
    await socks[1].send({"type": "queue_join", "partner": ann.player_id})
    await socks[2].send({"type": "queue_join", "partner": None})
    for s in socks:
        await _status(s, "waiting")
    # Ann (queued as a pair with Bob) and Cy (alone) are barred while they wait.
    until = await _uphold(database_url, [ann.player_id, cy.player_id],
                          {"NATS_URL": nats_url, "SPADES_NATS_PREFIX": lobby_prefix})
    assert until > int(time.time() * 1000) + 2 * 86_400_000
    gone = [await _status(s, "none") for s in socks]
    assert [(n["reason"], n["partner"]) for n in gone] == [
        ("ranked_barred", bob.player_id), ("partner_unavailable", ann.player_id),
        ("ranked_barred", None)]
    for p in (ann, cy):
        state = await p.ok("GET", "/v1/queue")
        assert (state["state"], state["blocked_by"], state["until"]) == (
            "none", "ranked_barred", until)
    # A bar is named before a cooldown (it is the longer), by the join and the state alike.
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "lobby"})
    try:
        await conn.execute("INSERT INTO queue_penalties (player_id, until)"
                           " VALUES ($1, now() + interval '1 hour')", cy.player_id)
    finally:
        await conn.close()
    state = await cy.ok("GET", "/v1/queue")
    assert (state["blocked_by"], state["until"]) == ("ranked_barred", until)
    assert state["cooldown_until"] > 0
    await socks[2].send({"type": "queue_join", "partner": None})
    assert (await socks[2].of_type("error"))["code"] == "ranked_barred"
    state = await bob.ok("GET", "/v1/queue")  # Bob may queue: the bar is not his
    assert (state["state"], state["blocked_by"], state["until"]) == ("none", "", 0)
    await socks[0].send({"type": "queue_join", "partner": None})
    error = await socks[0].of_type("error")
    assert (error["code"], error["until"]) == ("ranked_barred", until)
    for s in socks:
        await s.close()
    for p in (ann, bob, cy):
        await p.aclose()
