"""Contract of the event store: atomic, idempotent, fenced, upcasting, gap-free feed."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import pytest

from services.platform.events import EventRegistry, UpcastError
from services.platform.eventstore import (
    ConcurrencyError,
    EventStore,
    FeedPosition,
)
from services.platform.lease import FencedError, Leases
from tests.services.platform.sample_events import Counted, Opened, Renamed, RenamedV1, Sample


def registry() -> EventRegistry:
    reg = EventRegistry(Sample)

    @reg.upcaster("Renamed", 1)
    def split_name(data: dict[str, Any]) -> dict[str, Any]:
        first, _, last = data.pop("name").partition(" ")
        return {**data, "first": first, "last": last}

    return reg


@pytest.fixture
def store(contract_pool: asyncpg.Pool) -> EventStore:
    return EventStore(contract_pool, registry())


def new_stream() -> str:
    return f"s-{uuid.uuid4().hex}"


async def test_append_to_a_new_stream_numbers_events_from_one(store: EventStore) -> None:
    stream = new_stream()
    result = await store.append(stream, 0, [Opened(name="a"), Counted(n=1)], "cmd-1")
    assert (result.first_version, result.last_version, result.duplicate) == (1, 2, False)
    events = await store.read(stream)
    assert [e.event for e in events] == [Opened(name="a"), Counted(n=1)]
    assert [e.version for e in events] == [1, 2]
    assert events[0].type == "Opened" and events[0].schema_version == 1
    assert events[0].command_id == "cmd-1" and events[0].causation_id == "cmd-1"


async def test_append_records_correlation_and_causation(store: EventStore) -> None:
    stream = new_stream()
    await store.append(stream, 0, [Opened(name="a")], correlation_id="corr", causation_id="cause")
    (event,) = await store.read(stream)
    assert (event.correlation_id, event.causation_id) == ("corr", "cause")
    assert event.occurred_at.tzinfo is not None


async def test_read_from_a_version_returns_the_rest(store: EventStore) -> None:
    stream = new_stream()
    await store.append(stream, 0, [Counted(n=i) for i in range(5)])
    assert [e.event for e in await store.read(stream, 4)] == [Counted(n=3), Counted(n=4)]


async def test_wrong_expected_version_raises_and_writes_nothing(store: EventStore) -> None:
    stream = new_stream()
    await store.append(stream, 0, [Opened(name="a")])
    with pytest.raises(ConcurrencyError) as err:
        await store.append(stream, 0, [Counted(n=1)], "late")
    assert (err.value.expected, err.value.actual) == (0, 1)
    assert len(await store.read(stream)) == 1
    assert await store.version(stream) == 1


async def test_repeated_command_returns_the_first_result_and_writes_nothing(
        store: EventStore) -> None:
    stream = new_stream()
    first = await store.append(stream, 0, [Opened(name="a"), Counted(n=1)], "cmd")
    # The retry arrives after the stream moved on: still the first result, no error.
    await store.append(stream, 2, [Counted(n=2)], "other")
    again = await store.append(stream, 0, [Opened(name="a"), Counted(n=1)], "cmd")
    assert again.duplicate
    assert (again.first_version, again.last_version) == (first.first_version, first.last_version)
    assert again.first_position == first.first_position
    assert len(await store.read(stream)) == 3


async def test_the_same_command_id_on_another_stream_is_another_command(
        store: EventStore) -> None:
    a, b = new_stream(), new_stream()
    await store.append(a, 0, [Opened(name="a")], "cmd")
    result = await store.append(b, 0, [Opened(name="b")], "cmd")
    assert not result.duplicate


async def test_concurrent_writers_at_one_version_exactly_one_wins(store: EventStore) -> None:
    stream = new_stream()
    results = await asyncio.gather(
        *(store.append(stream, 0, [Counted(n=i)], f"c{i}") for i in range(10)),
        return_exceptions=True)
    wins = [r for r in results if not isinstance(r, BaseException)]
    losses = [r for r in results if isinstance(r, ConcurrencyError)]
    assert len(wins) == 1 and len(losses) == 9
    assert len(await store.read(stream)) == 1


async def test_concurrent_retries_of_one_command_write_once(store: EventStore) -> None:
    stream = new_stream()
    results = await asyncio.gather(
        *(store.append(stream, 0, [Counted(n=7)], "same") for _ in range(8)))
    assert {(r.first_version, r.last_version) for r in results} == {(1, 1)}
    assert sum(not r.duplicate for r in results) == 1
    assert len(await store.read(stream)) == 1


async def test_an_append_with_a_stale_lease_epoch_is_fenced_out(store: EventStore) -> None:
    stream = new_stream()
    leases = Leases(store.pool)
    held = await leases.claim(stream, "worker-a", 30)
    await store.append(stream, 0, [Opened(name="a")], epoch=held.epoch)
    await leases.release("worker-a", [stream])
    adopted = await leases.claim(stream, "worker-b", 30)
    with pytest.raises(FencedError):
        await store.append(stream, 1, [Counted(n=1)], epoch=held.epoch)
    await store.append(stream, 1, [Counted(n=1)], epoch=adopted.epoch)
    assert await store.version(stream) == 2


async def test_old_event_versions_are_upcast_on_read(contract_pool: asyncpg.Pool) -> None:
    stream = new_stream()
    old = EventStore(contract_pool, EventRegistry([RenamedV1]))
    await old.append(stream, 0, [RenamedV1(name="Ada Lovelace")])
    (event,) = await EventStore(contract_pool, registry()).read(stream)
    assert event.schema_version == 1
    assert event.event == Renamed(first="Ada", last="Lovelace")


async def test_a_missing_upcaster_is_a_clear_error(contract_pool: asyncpg.Pool) -> None:
    stream = new_stream()
    await EventStore(contract_pool, EventRegistry([RenamedV1])).append(
        stream, 0, [RenamedV1(name="x y")])
    with pytest.raises(UpcastError, match="Renamed v1 -> v2"):
        await EventStore(contract_pool, EventRegistry(Sample)).read(stream)


async def test_the_feed_never_skips_an_event_committed_late(store: EventStore) -> None:
    """Writers hold their transactions open for different times while a reader polls.

    Positions are taken before commit, so late commits land behind higher
    positions already visible; the feed must still deliver each exactly once.
    """
    prefix = f"feed-{uuid.uuid4().hex[:8]}-"
    start = await _checkpoint_at_end(store)
    expected: set[tuple[str, int]] = set()
    done = asyncio.Event()

    async def writer(w: int) -> None:
        for i in range(6):
            stream = f"{prefix}{w}"
            async with store.pool.acquire() as conn, conn.transaction():
                await store.append(stream, i, [Counted(n=i)], conn=conn)
                # Odd writers commit late, after others have committed higher positions.
                await conn.execute("SELECT pg_sleep($1)", 0.03 * (w % 3) if w % 2 else 0.0)
            expected.add((stream, i + 1))

    seen: list[tuple[str, int]] = []

    async def reader() -> None:
        position = start
        while True:
            finished = done.is_set()
            batch, position = await store.read_feed(position, limit=7)
            seen.extend((e.stream, e.version) for e in batch if e.stream.startswith(prefix))
            if finished and not batch:
                return
            await asyncio.sleep(0.002)

    reading = asyncio.create_task(reader())
    await asyncio.gather(*(writer(w) for w in range(12)))
    done.set()
    await asyncio.wait_for(reading, 20)
    assert len(seen) == len(set(seen)), "an event was delivered twice"
    assert set(seen) == expected, "an event was skipped"
    for stream in {s for s, _ in seen}:
        versions = [v for s, v in seen if s == stream]
        assert versions == sorted(versions)


async def _checkpoint_at_end(store: EventStore) -> FeedPosition:
    position = FeedPosition()
    while True:
        batch, position = await store.read_feed(position, limit=10_000)
        if not batch:
            return position
