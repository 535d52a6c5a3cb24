"""Rebuilding consumers after JetStream lost messages: republish from Postgres, apply once.

JetStream drops a message whose id it saw within its duplicate window, so a
resync that reused the outbox's ids would restore nothing right after a purge,
which is exactly when it is run. These tests purge and resync at once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
from nats.js.api import RawStreamMsg

from schemas.bus import EventEnvelope
from schemas.subjects import Names
from services.platform import bus
from services.platform.busclient import BusClient
from services.platform.consumer import Consumer
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, republish
from tests.services.platform.sample_events import Counted, Sample

ROOT = Path(__file__).resolve().parents[3]


async def test_right_after_a_purge_republish_brings_consumers_back_without_doubles(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    tag = uuid.uuid4().hex[:8]
    base, name, stream = f"{nats_prefix}.resync{tag}", f"{nats_prefix}_RESYNC{tag}", f"rs{tag}"
    await bus.ensure_stream(client, bus.StreamSpec(name, (f"{base}.>",), duplicate_window=600))
    store = EventStore(contract_pool, EventRegistry(Sample))

    def subject(s: str, t: str) -> str:
        return f"{base}.{s}.{t}"

    relay = OutboxRelay(contract_pool, client, subject)
    applied: list[int] = []

    async def handler(conn: asyncpg.Connection, env: EventEnvelope) -> None:
        applied.append(env.version)

    spec = bus.ConsumerSpec(name, f"d{tag}", f"{base}.{stream}.>", ack_wait=2, max_deliver=3)
    consumer = Consumer(client, contract_pool, spec, handler)
    await consumer.start()
    try:
        await store.append(stream, 0, [Counted(n=1), Counted(n=2)])
        await relay.drain()
        await _until(lambda: len(applied) == 2)
        await store.append(stream, 2, [Counted(n=3)])
        await client.js.purge_stream(name)  # JetStream loses what the consumer has not seen yet
        await relay.drain()
        await client.js.purge_stream(name)
        # At once, well inside the 600 s duplicate window.
        result = await republish([contract_pool], client, subject, stream=stream)
        assert (result.sent, result.stored) == (3, 3)
        await _until(lambda: len(applied) == 3)
        # Twice in a row: a new generation is stored again, and consumers skip it.
        result = await republish([contract_pool], client, subject, stream=stream)
        assert (result.sent, result.stored) == (3, 3)
        await asyncio.sleep(0.5)
    finally:
        await consumer.stop()
    assert applied == [1, 2, 3]


async def test_republish_over_two_databases_sends_events_in_the_order_they_occurred(
        contract_pool: asyncpg.Pool, make_database: Callable[[], Awaitable[str]],
        client: BusClient, nats_prefix: str) -> None:
    tag = uuid.uuid4().hex[:8]
    base, name = f"{nats_prefix}.order{tag}", f"{nats_prefix}_ORDER{tag}"
    await bus.ensure_stream(client, bus.StreamSpec(name, (f"{base}.>",), duplicate_window=600))
    other = await asyncpg.create_pool(await make_database(), min_size=1, max_size=2,
                                      server_settings={"search_path": "contract,public"})
    assert other is not None
    here, there = EventStore(contract_pool, EventRegistry(Sample)), EventStore(
        other, EventRegistry(Sample))
    # Streams ended alternately in the two databases: the second database's first.
    order = [(there, f"o1{tag}"), (here, f"o2{tag}"), (there, f"o3{tag}"),
             (here, f"o4{tag}")]
    for store, stream in order:
        await store.append(stream, 0, [Counted(n=1)])

    def subject(s: str, t: str) -> str:
        return f"{base}.{s}.{t}"

    try:
        for pools in ([contract_pool, other], [other, contract_pool]):
            result = await republish(pools, client, subject, event_type="Counted",
                                     batch=1)  # pages of one: the merge spans pages
            assert result.sent >= 4
            seen: list[str] = []
            for m in await _last(client, name, result.sent):
                assert m.subject is not None
                seen.append(m.subject.split(".")[-2])
            assert [s for s in seen if s.endswith(tag)] == [s for _, s in order]
    finally:
        await other.close()


async def _last(client: BusClient, stream_name: str, n: int) -> list[RawStreamMsg]:
    """The last ``n`` messages the stream holds, oldest first."""
    info = await client.js.stream_info(stream_name)
    last = info.state.last_seq
    return [await client.js.get_msg(stream_name, seq) for seq in range(last - n + 1, last + 1)]


async def test_spades_resync_reports_what_jetstream_stored(
        database_url: str, nats_url: str, client: BusClient, nats_prefix: str) -> None:
    prefix = f"{nats_prefix}rs{uuid.uuid4().hex[:6]}"
    names = Names(prefix)
    await bus.ensure_stream(client, bus.StreamSpec(names.game_events_stream,
                                                   (names.game_events_all,), duplicate_window=600))
    pool = await asyncpg.create_pool(database_url, server_settings={"search_path": "game"})
    assert pool is not None
    store = EventStore(pool, EventRegistry(Sample))
    stream = f"resync-cli-{uuid.uuid4().hex[:8]}"
    await store.append(stream, 0, [Counted(n=1), Counted(n=2)])
    env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": nats_url,
           "SPADES_NATS_PREFIX": prefix, "PYTHONPATH": str(ROOT)}
    for _ in range(2):  # the second run is inside the duplicate window of the first
        done = subprocess.run([sys.executable, "-m", "services.cli", "resync", "--stream",
                               stream], env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("republished 2 event(s); JetStream stored 2"), done.stdout
    info = await client.js.stream_info(names.game_events_stream)
    assert info.state.messages == 4
    await pool.close()


async def test_spades_resync_fails_when_nats_does_not_answer(database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url, "NATS_URL": "nats://127.0.0.1:1",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "services.cli", "resync"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "cannot reach NATS" in done.stderr, done.stderr


async def _until(condition: object, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)
