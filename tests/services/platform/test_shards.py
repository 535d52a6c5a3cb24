"""Streams over two event-store databases: each stream whole in one, every append checked
where its stream lives, a group commit written in each database it names."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.platform.events import EventRegistry
from services.platform.eventstore import Append, AppendResult, ConcurrencyError, EventStore
from services.platform.eventstore.groupcommit import GroupCommit
from services.platform.eventstore.shards import ShardedEventStore, shard_of
from services.platform.lease import FencedError, Leases
from tests.services.platform.sample_events import Counted, Opened, Sample


@pytest.fixture
async def pools(make_database: Callable[[], Awaitable[str]]
                ) -> AsyncIterator[list[asyncpg.Pool]]:
    made = []
    for _ in range(2):
        pool = await asyncpg.create_pool(await make_database(), min_size=1, max_size=8,
                                         server_settings={"search_path": "contract,public"})
        assert pool is not None
        made.append(pool)
    yield made
    for pool in made:
        await pool.close()


@pytest.fixture
def router(pools: list[asyncpg.Pool]) -> ShardedEventStore:
    return ShardedEventStore([EventStore(p, EventRegistry(Sample)) for p in pools])


def streams_on(shard: int, n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        s = f"s-{uuid.uuid4().hex}"
        if shard_of(s, 2) == shard:
            out.append(s)
    return out


async def held(pool: asyncpg.Pool, stream: str) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM events WHERE stream = $1", stream))


@given(st.text(min_size=1, max_size=80))
def test_a_stream_has_one_database_whatever_the_count(stream: str) -> None:
    for n in (1, 2, 3, 8):
        assert shard_of(stream, n) == shard_of(stream, n) and 0 <= shard_of(stream, n) < n
    assert shard_of(stream, 1) == 0


def test_streams_spread_over_both_databases() -> None:
    counts = [0, 0]
    for i in range(2000):
        counts[shard_of(f"game-{i}", 2)] += 1
    assert min(counts) > 900


async def test_each_stream_lives_whole_in_its_own_database(
        router: ShardedEventStore, pools: list[asyncpg.Pool]) -> None:
    (a,), (b,) = streams_on(0, 1), streams_on(1, 1)
    await router.append(a, 0, [Opened(name="a")], "c1")
    await router.append(a, 1, [Counted(n=1)], "c2")
    await router.append(b, 0, [Opened(name="b")], "c1")
    assert [await held(pools[0], a), await held(pools[1], a)] == [2, 0]
    assert [await held(pools[0], b), await held(pools[1], b)] == [0, 1]
    assert [e.event for e in await router.read(a)] == [Opened(name="a"), Counted(n=1)]
    assert await router.version(b) == 1
    again = await router.append(a, 0, [Opened(name="a")], "c1")
    assert again.duplicate and (again.first_version, again.last_version) == (1, 1)
    with pytest.raises(ConcurrencyError):
        await router.append(b, 0, [Counted(n=2)], "c3")
    feeds = [(await router.read_feed(k))[0] for k in (0, 1)]
    assert a in {e.stream for e in feeds[0]} and a not in {e.stream for e in feeds[1]}


async def test_the_epoch_is_checked_where_the_stream_lives(
        router: ShardedEventStore, pools: list[asyncpg.Pool]) -> None:
    (stream,) = streams_on(1, 1)
    leases = Leases(pools[1])
    first = await leases.claim(stream, "w1", 30)
    await router.append(stream, 0, [Opened(name="x")], epoch=first.epoch)
    await leases.release("w1", [stream])
    await leases.claim(stream, "w2", 30)
    with pytest.raises(FencedError):
        await router.append(stream, 1, [Counted(n=1)], epoch=first.epoch)


async def test_a_group_commit_over_both_databases_is_one_transaction_in_each(
        router: ShardedEventStore, pools: list[asyncpg.Pool]) -> None:
    zero, one = streams_on(0, 3), streams_on(1, 3)
    await router.append(one[2], 0, [Opened(name="late")])
    group = GroupCommit(router, window=0.05)
    results = await asyncio.gather(
        *(group.append(s, 0, [Opened(name=s)], f"c-{s}") for s in [*zero, *one]),
        return_exceptions=True)
    assert all(isinstance(r, AppendResult) for r in results[:5])
    assert isinstance(results[5], ConcurrencyError)
    assert group.batches == 1
    for pool, ours in ((pools[0], zero), (pools[1], one[:2])):
        txs = await pool.fetch("SELECT DISTINCT tx_id FROM events WHERE stream = ANY($1)", ours)
        assert len(txs) == 1


async def test_a_failed_database_fails_only_the_appends_it_holds(
        router: ShardedEventStore) -> None:
    (good,), (bad,) = streams_on(0, 1), streams_on(1, 1)
    # A command id longer than Postgres can index fails that database's transaction.
    out = await router.append_many([Append(good, 0, [Opened(name="g")], "ok"),
                                    Append(bad, 0, [Opened(name="b")], os.urandom(8000).hex())])
    assert isinstance(out[0], AppendResult) and not out[0].duplicate
    assert isinstance(out[1], asyncpg.PostgresError)
    assert await router.version(good) == 1 and await router.version(bad) == 0


async def test_a_database_added_later_moves_no_stream(pools: list[asyncpg.Pool]) -> None:
    alone = EventStore(pools[0], EventRegistry(Sample))
    old = streams_on(1, 3)  # where the hash over two would put them, were they new
    for s in old:
        await alone.append(s, 0, [Opened(name=s)], "c1")
    router = ShardedEventStore([alone, EventStore(pools[1], EventRegistry(Sample))])
    for s in old:
        assert await router.version(s) == 1
        await router.append(s, 1, [Counted(n=1)], "c2")
        assert [await held(pools[0], s), await held(pools[1], s)] == [2, 0]
    (new,) = streams_on(1, 1)
    outcomes = await router.append_many([Append(old[0], 2, (Counted(n=2),), "c3"),
                                         Append(new, 0, (Opened(name="n"),), "c1")])
    assert all(isinstance(o, AppendResult) for o in outcomes)
    assert [await held(pools[0], new), await held(pools[1], new)] == [0, 1]
    assert await held(pools[0], old[0]) == 3
