"""NATS killed and back, then JetStream purged and resynced at once: every consumer
ends complete and nothing is counted twice.

The platform runs on a NATS server of this test's own (so it can be killed) and a
database of its own (no other test's game workers may publish its outbox to their
own bus). The test plays the game worker's part of ending games: it
appends rated ``GameEnded`` events to the game service's store, whose outbox relay
(in the game service process) publishes them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncpg
import nats
import pytest

from schemas import subjects
from schemas.events import GameEnded
from services.platform import servers
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from tests.services.lobby.harness import ROOT, Service, lobby_env, start

CONSUMERS = (("ratings", subjects.RATINGS_RESULTS), ("tournaments", subjects.TOURNAMENTS_RESULTS),
             ("lobby", subjects.LOBBY_GAMES_ENDED))


@pytest.fixture
async def own_db(make_database: Callable[[], Awaitable[str]]) -> str:
    return await make_database()


@pytest.fixture
async def store(own_db: str) -> AsyncIterator[EventStore]:
    pool = await asyncpg.create_pool(own_db, server_settings={"search_path": "game"})
    assert pool is not None
    yield EventStore(pool, game_registry())
    await pool.close()


async def _end(store: EventStore, tag: str, n: int) -> dict[str, tuple[str, ...]]:
    games = {}
    for i in range(n):
        stream = f"loss-{tag}-{i}"
        players = tuple(f"{stream}-p{s}" for s in range(4))
        await store.append(stream, 0, [GameEnded(
            winner=0, reason="target", scores=(500, 200), bags=(0, 0), hands_played=7,
            players=players, rated=True)], f"end-{stream}")  # type: ignore[arg-type]
        games[stream] = players
    return games


async def _complete(database_url: str, games: dict[str, tuple[str, ...]],
                    timeout: float = 60) -> None:
    """Every consumer applied every game's end, and each exactly once."""
    conn = await asyncpg.connect(database_url)
    try:
        async with asyncio.timeout(timeout):
            while True:
                done = []
                for service, durable in CONSUMERS:
                    done.append(await conn.fetchval(
                        f"SELECT count(*) FROM {service}.consumer_processed"
                        " WHERE consumer = $1 AND stream = ANY($2::text[])",
                        durable, list(games)))
                if done == [len(games)] * len(CONSUMERS):
                    break
                await asyncio.sleep(0.2)
        players = [p for ps in games.values() for p in ps]
        rows = await conn.fetch("SELECT player_id, rating, games FROM ratings.ratings"
                                " WHERE player_id = ANY($1::text[])", players)
        assert len(rows) == len(players)
        # Counted once: one game each, every winner moved up as much as every loser down.
        assert {r["games"] for r in rows} == {1}
        up, down = sorted({r["rating"] for r in rows}, reverse=True)
        assert up - 1500 == 1500 - down > 0
    finally:
        await conn.close()


async def test_nats_killed_and_back_then_purged_and_resynced_at_once(
        tmp_path: Path, own_db: str, nats_prefix: str, store: EventStore) -> None:
    database_url = own_db
    port = servers.free_port()
    bus_server = servers.NatsServer(tmp_path / "nats", port)
    bus_server.start()
    prefix = f"{nats_prefix}loss"
    env = lobby_env(database_url, bus_server.url, prefix, SPADES_JS_ACK_WAIT_SECONDS="2")
    started: list[Service] = []
    try:
        for name in ("game", "ratings", "tournaments", "lobby"):
            started.append(start(name, tmp_path / f"{name}.log", **env))
        tag = uuid.uuid4().hex[:6]
        before = await _end(store, f"{tag}a", 3)
        await _complete(database_url, before)

        assert bus_server.process is not None
        bus_server.process.send_signal(signal.SIGKILL)
        bus_server.process.wait()
        during = await _end(store, f"{tag}b", 3)  # committed while NATS is away
        bus_server.start()
        # Purged the moment it is back, and resynced at once: inside the duplicate
        # window of every message the outbox ever published.
        nc = await nats.connect(bus_server.url)
        names = subjects.Names(prefix)
        await nc.jetstream().purge_stream(names.game_events_stream)
        await nc.close()
        done = subprocess.run(
            [sys.executable, "-m", "services.cli", "resync"],
            env={**os.environ, **env, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "JetStream stored" in done.stdout
        await _complete(database_url, {**before, **during})
    finally:
        for svc in reversed(started):
            svc.stop()
        bus_server.stop()
