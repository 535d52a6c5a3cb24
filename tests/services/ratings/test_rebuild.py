"""`spades ratings rebuild`: ratings forgotten, every stored ending rated again in order."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from schemas.subjects import Names
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay
from services.ratings import results
from services.ratings.elo import Elo, KSchedule
from tests.services.ratings.conftest import SCHEDULE, ended

ROOT = Path(__file__).resolve().parents[3]


async def test_a_rebuild_replays_every_ending_with_todays_formula(
        make_database: Callable[[], Awaitable[str]], nats_url: str, nats_prefix: str) -> None:
    url = await make_database()
    game = await create_pool(url, "game")
    ratings = await create_pool(url, "ratings")
    prefix = f"{nats_prefix}rb{uuid.uuid4().hex[:8]}"
    names = Names(prefix)
    nc = await connection.connect(nats_url, "test")
    client = BusClient(nc)
    # A production-sized duplicate window: the rebuild runs well inside it.
    await bus.ensure_stream(client, bus.StreamSpec(names.game_events_stream,
                                                   (names.game_events_all,), duplicate_window=600))
    relay = OutboxRelay(game, client, names.game_event)
    spec = bus.ConsumerSpec(names.game_events_stream, "ratings-results",
                            names.game_events_of_type("GameEnded"), ack_wait=5, max_deliver=3)
    store = EventStore(game, game_registry())
    await store.append("g1", 0, [ended(("a", "b", "c", "d"), winner=0)])
    await store.append("g2", 0, [ended(("a", "b", "c", "d"), winner=0, rated=False)])
    await store.append("g3", 0, [ended(("a", "b", "c", "d"), winner=1)])

    async def rate_with(schedule: KSchedule, applied: int) -> list[int]:
        consumer = Consumer(client, ratings, spec, results.handler(Elo(1500, schedule)))
        await consumer.start()
        try:
            await relay.drain()
            async with asyncio.timeout(15):
                while await ratings.fetchval("SELECT count(*) FROM consumer_processed") < applied:
                    await asyncio.sleep(0.05)
        finally:
            await consumer.stop()
        rows = await ratings.fetch("SELECT rating FROM ratings ORDER BY player_id")
        return [r["rating"] for r in rows]

    try:
        # a, c: +20 then 40 * (0 - 1 / (1 + 10^-0.1)) = -22.3 -> -22
        assert await rate_with(SCHEDULE, 3) == [1498, 1502, 1498, 1502]
        env = {**os.environ, "DATABASE_URL": url, "NATS_URL": nats_url,
               "SPADES_NATS_PREFIX": prefix, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "rebuild"],
                              env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "republished 3 GameEnded event(s) in order, JetStream stored 3" in done.stdout
        assert await ratings.fetchval("SELECT count(*) FROM ratings") == 0
        # K 30 throughout: +15, then 30 * (0 - 1 / (1 + 10^(-30/400))) = -16.3 -> -16
        assert await rate_with(KSchedule(30, 30, 20), 3) == [1499, 1501, 1499, 1501]
        assert await ratings.fetchval("SELECT count(*) FROM rating_history") == 8
    finally:
        await nc.close()
        await game.close()
        await ratings.close()


async def test_a_rebuild_without_a_database_is_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "rebuild"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert done.stderr == "spades: setting DATABASE_URL is required\n"
