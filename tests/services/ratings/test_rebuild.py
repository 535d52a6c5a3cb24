"""`spades ratings rebuild`: ratings forgotten, every stored ending rated again in order."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from services.platform.consumer import Consumer
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay
from services.ratings import results
from services.ratings.elo import Elo, KSchedule
from tests.services.ratings.conftest import SCHEDULE, RatedGames, ended

ROOT = Path(__file__).resolve().parents[3]


async def test_a_rebuild_replays_every_ending_with_todays_formula(
        rated_games: RatedGames, nats_url: str) -> None:
    game, ratings, client, spec = (rated_games.games, rated_games.ratings, rated_games.client,
                                   rated_games.spec)
    relay = OutboxRelay(game, client, rated_games.names.game_event)
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
        return await rated_games.rated()

    # a, c: +20 then 40 * (0 - 1 / (1 + 10^-0.1)) = -22.3 -> -22
    assert await rate_with(SCHEDULE, 3) == [1498, 1502, 1498, 1502]
    env = {**os.environ, "DATABASE_URL": rated_games.url, "NATS_URL": nats_url,
           "SPADES_NATS_PREFIX": rated_games.names.prefix, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "rebuild"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "republished 3 GameEnded event(s) in order, JetStream stored 3" in done.stdout
    assert await ratings.fetchval("SELECT count(*) FROM ratings") == 0
    # K 30 throughout: +15, then 30 * (0 - 1 / (1 + 10^(-30/400))) = -16.3 -> -16
    assert await rate_with(KSchedule(30, 30, 20), 3) == [1499, 1501, 1499, 1501]
    assert await ratings.fetchval("SELECT count(*) FROM rating_history") == 8


async def test_a_rebuild_without_a_database_is_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "services.cli", "ratings", "rebuild"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert done.stderr == "spades: setting DATABASE_URL is required\n"
