"""Rebuilding consumers after JetStream lost messages: republish from Postgres, apply once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import nats
import pytest
from nats.js import JetStreamContext

from schemas.bus import EventEnvelope
from services.platform import bus
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.outbox import OutboxRelay
from tests.services.platform.sample_events import Counted, Sample

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def js(nats_url: str) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(nats_url)
    yield nc.jetstream()
    await nc.close()


async def test_after_jetstream_is_purged_requeue_brings_consumers_back_without_doubles(
        contract_pool: asyncpg.Pool, js: JetStreamContext, nats_prefix: str) -> None:
    tag = uuid.uuid4().hex[:8]
    base, name, stream = f"{nats_prefix}.resync{tag}", f"{nats_prefix}_RESYNC{tag}", f"rs{tag}"
    await bus.ensure_stream(js, bus.StreamSpec(name, (f"{base}.>",), duplicate_window=1))
    store = EventStore(contract_pool, EventRegistry(Sample))
    relay = OutboxRelay(contract_pool, js, lambda s, t: f"{base}.{s}.{t}")
    applied: list[int] = []

    async def handler(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        applied.append(env.version)

    spec = bus.ConsumerSpec(name, f"d{tag}", f"{base}.{stream}.>", ack_wait=2, max_deliver=3)
    consumer = bus.Consumer(js, contract_pool, spec, handler)
    await consumer.start()
    try:
        await store.append(stream, 0, [Counted(n=1), Counted(n=2)])
        await relay.drain()
        await _until(lambda: len(applied) == 2)
        await store.append(stream, 2, [Counted(n=3)])
        await js.purge_stream(name)  # JetStream loses what the consumer has not seen yet
        await relay.drain()
        await js.purge_stream(name)
        await asyncio.sleep(1.1)  # past the duplicate window, as after a long outage
        assert await store.requeue(stream=stream) == 3
        await relay.drain()
        await _until(lambda: len(applied) == 3)
        await asyncio.sleep(0.3)
    finally:
        await consumer.stop()
    assert applied == [1, 2, 3]


async def test_spades_resync_queues_the_game_events(database_url: str) -> None:
    pool = await asyncpg.create_pool(database_url, server_settings={"search_path": "game"})
    assert pool is not None
    store = EventStore(pool, EventRegistry(Sample))
    stream = f"resync-cli-{uuid.uuid4().hex[:8]}"
    await store.append(stream, 0, [Counted(n=1), Counted(n=2)])
    ours = "SELECT position FROM events WHERE stream = $1"
    await pool.execute(f"DELETE FROM outbox WHERE position IN ({ours})", stream)
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "services.cli", "resync", "--stream", stream],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("queued 2 event(s)")
    assert await pool.fetchval(
        f"SELECT count(*) FROM outbox WHERE position IN ({ours})", stream) == 2
    await pool.close()


async def _until(condition: object, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)
