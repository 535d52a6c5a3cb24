"""The relay as a running worker: woken by a store in its process, polling for others."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import msgspec
from nats.aio.msg import Msg

from schemas.bus import EventEnvelope
from services.platform import bus
from services.platform.busclient import BusClient
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from tests.services.platform.sample_events import Counted, Opened, Sample


async def lane(client: BusClient, subject: str, stream: str) -> tuple[str, str, str]:
    """A JetStream stream of the test's own: (tag, subject base, stream name)."""
    tag = uuid.uuid4().hex[:8]
    await bus.ensure_stream(client, bus.StreamSpec(f"{stream}{tag}", (f"{subject}{tag}.>",),
                                                   duplicate_window=60))
    return tag, f"{subject}{tag}", f"{stream}{tag}"


async def test_a_running_relay_carries_appends_to_jetstream_in_order(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    tag, base, _ = await lane(client, f"{nats_prefix}.relay", f"{nats_prefix}_RELAY")
    relay = OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}", poll_seconds=5.0)
    store = EventStore(contract_pool, EventRegistry(Sample), on_commit=relay.wake)
    stream = f"r{tag}"
    sub = await client.js.subscribe(f"{base}.{stream}.>", ordered_consumer=True)
    await relay.start()
    try:
        await store.append(stream, 0, [Opened(name="x")], correlation_id="corr-1")
        await store.append(stream, 1, [Counted(n=1), Counted(n=2)])
        got: list[tuple[Msg, EventEnvelope]] = []
        async with asyncio.timeout(3):  # far below the 5 s poll: the wake-up did it
            while len(got) < 3:
                msg = await sub.next_msg(timeout=3)
                got.append((msg, msgspec.msgpack.decode(msg.data, type=EventEnvelope)))
    finally:
        await relay.stop()
    assert [(e.stream, e.version, e.type) for _, e in got] == [
        (stream, 1, "Opened"), (stream, 2, "Counted"), (stream, 3, "Counted")]
    assert [m.headers["Nats-Msg-Id"] for m, _ in got] == [  # type: ignore[index]
        f"{stream}:1", f"{stream}:2", f"{stream}:3"]
    assert got[0][1].correlation_id == "corr-1"
    assert EventRegistry(Sample).decode("Counted", 1, got[2][1].body) == Counted(n=2)


async def test_two_relays_side_by_side_publish_each_event_once(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    """Copies of the game service each run a relay; SKIP LOCKED splits the rows."""
    tag, base, name = await lane(client, f"{nats_prefix}.pair", f"{nats_prefix}_PAIR")
    store = EventStore(contract_pool, EventRegistry(Sample))
    await contract_pool.execute("DELETE FROM outbox")  # earlier tests' rows, never relayed
    for i in range(40):
        await store.append(f"p{tag}-{i}", 0, [Counted(n=j) for j in range(5)])
    relays = [OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}", batch=7)
              for _ in range(2)]
    counts = await asyncio.gather(*(r.drain() for r in relays))
    assert sum(counts) == 200  # a row taken by both relays would count twice
    assert (await client.js.stream_info(name)).state.messages == 200


async def stored(client: BusClient, name: str, subjects: str) -> int:
    """Messages JetStream holds on ``subjects`` in stream ``name``: a relay's sweep also
    carries rows other tests left queued in the shared table, onto their own subjects."""
    info = await client.js.stream_info(name, subjects_filter=subjects)
    return sum((info.state.subjects or {}).values())


async def queued(pool: asyncpg.Pool, stream: str) -> int:
    return await pool.fetchval(
        "SELECT count(*) FROM outbox JOIN events USING (position) WHERE stream = $1", stream)


async def test_a_writer_publishes_its_events_after_commit_and_the_relay_deletes_their_rows(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    tag, base, _ = await lane(client, f"{nats_prefix}.direct", f"{nats_prefix}_DIRECT")
    relay = OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}", sweep_after=60.0)
    publisher = Publisher(client, lambda s, t: f"{base}.{s}.{t}", relay)
    store = EventStore(contract_pool, EventRegistry(Sample), publish=publisher)
    stream = f"d{tag}"
    sub = await client.js.subscribe(f"{base}.{stream}.>", ordered_consumer=True)
    await store.append(stream, 0, [Opened(name="x")], "c1", correlation_id="corr-1")
    await store.append(stream, 1, [Counted(n=1), Counted(n=2)], "c2")
    ids: list[str | None] = []
    got: list[EventEnvelope] = []
    for _ in range(3):  # no relay is running: the writer published them
        msg = await sub.next_msg(timeout=1)
        ids.append((msg.headers or {}).get("Nats-Msg-Id"))
        got.append(msgspec.msgpack.decode(msg.data, type=EventEnvelope))
    stored = await store.read(stream)
    assert ids == [f"{stream}:1", f"{stream}:2", f"{stream}:3"]
    assert [(e.version, e.position, e.type, e.event_id, e.body, e.causation_id)
            for e in got] == [
        (r.version, r.position, r.type, str(r.event_id), r.body, r.causation_id) for r in stored]
    assert got[0].correlation_id == "corr-1"
    assert got[0].occurred_at_ms == int(stored[0].occurred_at.timestamp() * 1000)
    await publisher.settled()
    assert await queued(contract_pool, stream) == 3
    await relay.drain()  # sweeps only rows older than a minute: not these
    assert await queued(contract_pool, stream) == 3
    assert await relay.forget_published() == 3
    assert await queued(contract_pool, stream) == 0


async def test_the_backstop_relay_publishes_only_rows_older_than_its_sweep_age(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    tag, base, name = await lane(client, f"{nats_prefix}.sweep", f"{nats_prefix}_SWEEP")
    store = EventStore(contract_pool, EventRegistry(Sample))  # a writer that never publishes
    stream, other = f"w{tag}", f"o{tag}"
    await store.append(stream, 0, [Counted(n=1), Counted(n=2)])
    await store.append(other, 0, [Counted(n=3)])  # another writer's, as other tests leave
    relay = OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}", sweep_after=0.5)
    await relay.drain()
    assert await queued(contract_pool, stream) == 2  # a live writer may still publish them
    await asyncio.sleep(0.6)
    await relay.drain()
    assert await queued(contract_pool, stream) == 0
    assert await stored(client, name, f"{base}.{stream}.>") == 2
    assert await stored(client, name, f"{base}.{other}.>") == 1


async def test_a_writer_whose_jetstream_stalls_sends_plainly_and_the_relay_stores_once(
        contract_pool: asyncpg.Pool, client: BusClient, nats_prefix: str) -> None:
    """JetStream answering none of ``stalled_at`` publishes (a stream's leader being
    elected, say): the next commits go out by plain delivery at once, so the games'
    followers miss nothing and the writer never waits for room; their rows stay queued
    and the relay's sweep stores each event once."""
    tag, base, name = await lane(client, f"{nats_prefix}.stall", f"{nats_prefix}_STALL")
    relay = OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}", sweep_after=0.5)
    publisher = Publisher(client, lambda s, t: f"{base}.{s}.{t}", relay, stalled_at=3)
    store = EventStore(contract_pool, EventRegistry(Sample), publish=publisher)
    stream = f"s{tag}"
    nowhere = f"{nats_prefix}.limbo{tag}"  # no stream's: a subscriber that never answers
    limbo = await client.nc.subscribe(nowhere)
    unanswered = await client.store([(nowhere, b"", f"x{i}") for i in range(3)], 60)
    assert client.storing == 3
    live = await client.nc.subscribe(f"{base}.{stream}.>")
    async with asyncio.timeout(2):  # no wait for JetStream's room
        await store.append(stream, 0, [Opened(name="x")], "c1")
        await store.append(stream, 1, [Counted(n=1), Counted(n=2)], "c2")
    got = [await live.next_msg(timeout=1) for _ in range(3)]
    assert [(m.headers or {}).get("Nats-Msg-Id") for m in got] == [
        f"{stream}:1", f"{stream}:2", f"{stream}:3"]
    await publisher.settled()
    assert await relay.forget_published() == 0 and await queued(contract_pool, stream) == 3
    await asyncio.sleep(0.6)
    await relay.drain()
    assert await queued(contract_pool, stream) == 0
    assert await stored(client, name, f"{base}.{stream}.>") == 3  # stored once each
    await limbo.unsubscribe()
    unanswered.cancel()
