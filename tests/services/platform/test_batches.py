"""Game events travel one batch per game per commit; consumers still apply each event once."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections import Counter
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest
from nats.aio.client import Client

from schemas.bus import EventBatch, EventEnvelope
from services.platform import connection
from services.platform.busclient import BusClient
from services.platform.consumer import CONSUMED
from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.eventstore.batches import cut, events_of, messages
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from tests.services.platform.sample_events import Counted, Opened, Sample
from tests.services.platform.test_bus import Lane
from tests.services.platform.test_outbox import lane as stream_lane


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await connection.connect(nats_url, "batch-test")
    yield client
    await client.drain()


def env(stream: str, version: int, kind: str = "CardPlayed", at: int = 0) -> EventEnvelope:
    return EventEnvelope(stream=stream, version=version, position=version, type=kind,
                         schema_version=1, event_id=str(uuid.uuid4()), occurred_at_ms=at,
                         correlation_id=None, causation_id=None, body=b"")


def versions(runs: list[tuple[EventEnvelope, ...]]) -> list[list[tuple[str, int]]]:
    return [[(e.stream, e.version) for e in run] for run in runs]


def test_a_commit_is_cut_into_one_batch_per_stream() -> None:
    commit = [env("a", 4), env("a", 5), env("b", 9), env("c", 1), env("c", 2), env("c", 3)]
    assert versions(cut(commit)) == [[("a", 4), ("a", 5)], [("b", 9)],
                                     [("c", 1), ("c", 2), ("c", 3)]]


def test_a_batch_holds_only_consecutive_versions_of_one_commit_and_at_most_most() -> None:
    rows = [env("a", 1, at=10), env("a", 2, at=10), env("a", 3, at=11), env("a", 5, at=11),
            env("a", 6, at=11), env("a", 7, at=11)]
    assert versions(cut(rows, most=2)) == [[("a", 1), ("a", 2)], [("a", 3)],
                                           [("a", 5), ("a", 6)], [("a", 7)]]


def test_the_start_and_the_end_of_a_game_travel_alone_on_their_own_subjects() -> None:
    commit = [env("g", 1, "GameStarted"), env("g", 2, "HandDealt"), env("h", 50, "CardPlayed"),
              env("h", 51, "HandScored"), env("h", 52, "GameEnded")]
    out = messages(commit, lambda s, t: f"evt.{s}.{t}", batched=True)
    assert [(m.subject, m.msg_id, m.events) for m in out] == [
        ("evt.g.GameStarted", "g:1", 1), ("evt.g.HandDealt", "g:2", 1),
        ("evt.h.CardPlayed", "h:50-51", 2), ("evt.h.GameEnded", "h:52", 1)]
    batch = msgspec.msgpack.decode(out[2].data, type=EventBatch)
    assert batch.events == tuple(commit[2:4])


def test_unbatched_is_one_message_per_event_under_its_old_id() -> None:
    out = messages([env("t", 1), env("t", 2)], lambda s, t: f"evt.{s}.{t}", batched=False,
                   generation="r1")
    assert [(m.msg_id, m.events) for m in out] == [("t:1:r1", 1), ("t:2:r1", 1)]
    assert msgspec.msgpack.decode(out[0].data, type=EventEnvelope).version == 1


async def test_a_writer_publishes_one_batch_per_stream_per_commit_and_a_sweep_adds_none(
        contract_pool: asyncpg.Pool, nc: Client, nats_prefix: str) -> None:
    client = BusClient(nc)
    await contract_pool.execute("DELETE FROM outbox")  # earlier tests' rows, never relayed
    tag, base, name = await stream_lane(client, f"{nats_prefix}.batch", f"{nats_prefix}_BT")
    relay = OutboxRelay(contract_pool, client, lambda s, t: f"{base}.{s}.{t}",
                        sweep_after=0.0, batched=True)
    publisher = Publisher(client, lambda s, t: f"{base}.{s}.{t}", relay)
    store = EventStore(contract_pool, EventRegistry(Sample), publish=publisher)
    stream = f"b{tag}"
    await store.append(stream, 0, [Opened(name="x"), Counted(n=1), Counted(n=2)])
    await store.append(stream, 3, [Counted(n=3)])
    await publisher.settled()
    info = await client.js.stream_info(name)
    assert info.state.messages == 2
    stored = (await client.js.get_msg(name, 1)).data
    assert stored is not None
    first = msgspec.msgpack.decode(stored, type=EventBatch)
    assert [e.version for e in first.events] == [1, 2, 3]
    # The sweep publishes what the writer did again (its rows not deleted yet): cut
    # the same way, under the same ids, JetStream drops every one.
    await relay.drain()
    assert (await client.js.stream_info(name)).state.messages == 2


async def batched_lane(nc: Client, pool: asyncpg.Pool, prefix: str, whole: bool) -> Lane:
    made = Lane(nc, pool, prefix, whole)
    made.spec = dataclasses.replace(made.spec, batched=True)
    await made.setup()
    return made


def batch(stream: str, *vs: int) -> bytes:
    return msgspec.msgpack.encode(EventBatch(events=tuple(env(stream, v) for v in vs)))


async def test_batches_redelivered_or_cut_differently_apply_each_event_once_in_order(
        nc: Client, contract_pool: asyncpg.Pool, nats_prefix: str) -> None:
    for whole in (False, True):
        lane = await batched_lane(nc, contract_pool, nats_prefix, whole)
        subject = f"{lane.base}.g1"
        await lane.js.publish(subject, batch("g1", 1, 2, 3))
        await lane.js.publish(subject, batch("g1", 1, 2, 3))  # published again
        await lane.js.publish(subject, batch("g1", 3, 4))  # a sweep that cut it otherwise
        await lane.js.publish(subject, batch("g1", 5))
        await lane.run_until(lambda lane=lane: lane.has_applied(5))  # type: ignore[misc]
        await asyncio.sleep(0.1)
        assert lane.applied == [("g1", v) for v in range(1, 6)], whole


async def test_a_failing_event_retries_its_whole_batch_and_the_rest_apply_once(
        nc: Client, contract_pool: asyncpg.Pool, nats_prefix: str) -> None:
    lane = await batched_lane(nc, contract_pool, nats_prefix, whole=False)
    lane.failures[2] = 1
    await lane.js.publish(f"{lane.base}.g1", batch("g1", 1, 2, 3))
    await lane.run_until(lambda: lane.has_applied(3))
    await asyncio.sleep(0.1)
    assert Counter(lane.applied) == {("g1", 1): 1, ("g1", 2): 1, ("g1", 3): 1}
    assert CONSUMED.labels(lane.spec.durable, "retry")._value.get() == 1  # the whole message
    assert CONSUMED.labels(lane.spec.durable, "applied")._value.get() == 1  # then all of it


async def test_an_empty_batch_is_dead_lettered(nc: Client, contract_pool: asyncpg.Pool,
                                               nats_prefix: str) -> None:
    lane = await batched_lane(nc, contract_pool, nats_prefix, whole=True)
    await lane.js.publish(f"{lane.base}.g1", msgspec.msgpack.encode(EventBatch(events=())))
    await lane.js.publish(f"{lane.base}.g1", batch("g1", 1))
    await lane.run_until(lambda: lane.has_applied(1))
    letters = await lane.dead_letters()
    assert len(letters) == 1 and "without events" in letters[0]["reason"]


def test_a_lone_envelope_from_before_batches_still_reads_as_one_event() -> None:
    old = env("g", 7)
    assert events_of(msgspec.msgpack.encode(old)) == (old,)
    assert events_of(msgspec.msgpack.encode(EventBatch(events=(old,)))) == (old,)
    for junk in (b"\xc1", msgspec.msgpack.encode(EventBatch(events=())),
                 msgspec.msgpack.encode(["not", "an", "event"])):
        try:
            events_of(junk)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        raise AssertionError(junk)
