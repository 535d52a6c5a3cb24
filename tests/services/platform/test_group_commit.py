"""Group commit: many streams' appends in one transaction, each checked and failing alone."""

from __future__ import annotations

import asyncio
import os
import uuid

import asyncpg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.platform.events import EventRegistry
from services.platform.eventstore import Append, AppendResult, ConcurrencyError, EventStore
from services.platform.eventstore.groupcommit import GroupCommit
from services.platform.lease import FencedError, Leases
from tests.services.platform.sample_events import Counted, Opened, Sample


def new_stream() -> str:
    return f"g-{uuid.uuid4().hex}"


async def tx_ids(pool: asyncpg.Pool, streams: list[str]) -> set[int]:
    rows = await pool.fetch("SELECT DISTINCT tx_id::text::bigint AS tx FROM events"
                            " WHERE stream = ANY($1::text[])", streams)
    return {r["tx"] for r in rows}


async def test_each_append_in_a_batch_is_checked_alone_and_the_rest_commit_together(
        contract_pool: asyncpg.Pool) -> None:
    store = EventStore(contract_pool, EventRegistry(Sample))
    leases = Leases(contract_pool)
    fresh, repeat, late, fenced, other = (new_stream() for _ in range(5))
    await store.append(repeat, 0, [Opened(name="r")], "first")
    await store.append(late, 0, [Opened(name="l")])
    stale = await leases.claim(fenced, "worker-a", 30)
    await leases.release("worker-a", [fenced])
    await leases.claim(fenced, "worker-b", 30)  # bumps the epoch: worker-a is fenced out
    held = await leases.claim(other, "worker-a", 30)

    out = await store.append_many([
        Append(fresh, 0, [Opened(name="f"), Counted(n=1)], "c-fresh"),
        Append(repeat, 0, [Opened(name="again")], "first"),
        Append(late, 0, [Counted(n=9)], "c-late"),
        Append(fenced, 0, [Opened(name="x")], "c-fenced", epoch=stale.epoch),
        Append(other, 0, [Opened(name="o")], "c-other", epoch=held.epoch),
    ])

    assert isinstance(out[0], AppendResult) and (out[0].first_version, out[0].last_version,
                                                 out[0].duplicate) == (1, 2, False)
    assert isinstance(out[1], AppendResult) and out[1].duplicate
    assert (out[1].first_version, out[1].last_version) == (1, 1)
    assert isinstance(out[2], ConcurrencyError) and (out[2].expected, out[2].actual) == (0, 1)
    assert isinstance(out[3], FencedError)
    assert isinstance(out[4], AppendResult) and not out[4].duplicate
    assert [e.event for e in await store.read(repeat)] == [Opened(name="r")]
    assert [e.event for e in await store.read(late)] == [Opened(name="l")]
    assert await store.read(fenced) == []
    assert await contract_pool.fetchval(
        "SELECT count(*) FROM commands WHERE command_id = ANY($1::text[])",
        ["c-late", "c-fenced"]) == 0
    # The two fresh appends were one transaction.
    assert len(await tx_ids(contract_pool, [fresh, other])) == 1


async def test_a_batch_publishes_what_it_appended_after_the_commit(
        contract_pool: asyncpg.Pool) -> None:
    published: list[tuple[str, int, int]] = []

    async def publish(envelopes: object) -> None:
        for e in envelopes:  # type: ignore[attr-defined]
            published.append((e.stream, e.version, e.position))

    store = EventStore(contract_pool, EventRegistry(Sample), publish=publish)
    a, b, late = new_stream(), new_stream(), new_stream()
    await store.append(late, 0, [Opened(name="l")])
    published.clear()
    await store.append_many([Append(a, 0, [Opened(name="a"), Counted(n=1)]),
                             Append(late, 0, [Counted(n=2)]),
                             Append(b, 0, [Opened(name="b")])])
    stored = {(e.stream, e.version, e.position)
              for s in (a, b) for e in await store.read(s)}
    assert set(published) == stored and len(published) == 3


# Each drawn append: which stream (of three), whether it names the stream's real
# version, whether it carries the current lease epoch, and a command id (of four, so
# some repeat).
APPENDS = st.lists(st.tuples(st.integers(0, 2), st.booleans(), st.booleans(),
                             st.integers(0, 3)), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=APPENDS)
async def test_a_batch_ends_as_the_same_appends_made_one_by_one(
        contract_pool: asyncpg.Pool, drawn: list[tuple[int, bool, bool, int]]) -> None:
    store = EventStore(contract_pool, EventRegistry(Sample))
    leases = Leases(contract_pool)

    async def setup() -> tuple[list[str], list[int]]:
        streams = [new_stream() for _ in range(3)]
        epochs = []
        for i, s in enumerate(streams):
            epochs.append((await leases.claim(s, "w", 30)).epoch)
            if i:  # streams 1 and 2 start with events
                await store.append(s, 0, [Opened(name="s")] * i)
        return streams, epochs

    def appends(streams: list[str], epochs: list[int], versions: list[int]) -> list[Append]:
        out = []
        for k, (i, right_version, right_epoch, cid) in enumerate(drawn):
            expected = versions[i] if right_version else versions[i] + 5
            if right_version:
                versions[i] += 1
            out.append(Append(streams[i], expected, [Counted(n=k)], f"c{cid}-{i}",
                              epoch=epochs[i] if right_epoch else epochs[i] + 1))
        return out

    def kind(o: object) -> object:
        if isinstance(o, AppendResult):
            return ("dup" if o.duplicate else "new", o.first_version, o.last_version)
        return type(o).__name__

    # The same drawn appends, once as a batch and once one by one on fresh streams.
    one_streams, one_epochs = await setup()
    one_by_one: list[object] = []
    for a in appends(one_streams, one_epochs, [0, 1, 2]):
        try:
            one_by_one.append(await store.append(a.stream, a.expected_version, a.events,
                                                 a.command_id, epoch=a.epoch))
        except (ConcurrencyError, FencedError) as exc:
            one_by_one.append(exc)
    batch_streams, batch_epochs = await setup()
    together = await store.append_many(appends(batch_streams, batch_epochs, [0, 1, 2]))

    assert [kind(o) for o in together] == [kind(o) for o in one_by_one]
    for s1, s2 in zip(one_streams, batch_streams, strict=True):
        assert [e.event for e in await store.read(s1)] == [e.event for e in await store.read(s2)]


async def test_appends_arriving_together_are_written_in_one_transaction(
        contract_pool: asyncpg.Pool) -> None:
    group = GroupCommit(EventStore(contract_pool, EventRegistry(Sample)), window=0.05, most=64)
    streams = [new_stream() for _ in range(6)]
    results = await asyncio.gather(*(group.append(s, 0, [Opened(name=s)], f"c-{s}")
                                     for s in streams))
    assert all(r.first_version == 1 and not r.duplicate for r in results)
    assert group.batches == 1 and group.appends == 6
    assert len(await tx_ids(contract_pool, streams)) == 1


async def test_a_full_batch_is_written_without_waiting_for_the_window(
        contract_pool: asyncpg.Pool) -> None:
    group = GroupCommit(EventStore(contract_pool, EventRegistry(Sample)), window=30, most=4)
    streams = [new_stream() for _ in range(8)]
    results = await asyncio.wait_for(asyncio.gather(
        *(group.append(s, 0, [Opened(name=s)]) for s in streams)), 10)
    assert len(results) == 8 and group.batches == 2


async def test_one_appends_conflict_is_raised_to_its_caller_alone(
        contract_pool: asyncpg.Pool) -> None:
    store = EventStore(contract_pool, EventRegistry(Sample))
    group = GroupCommit(store, window=0.05)
    ok, late = new_stream(), new_stream()
    await store.append(late, 0, [Opened(name="l")])
    results = await asyncio.gather(group.append(ok, 0, [Opened(name="o")]),
                                   group.append(late, 0, [Counted(n=1)]),
                                   return_exceptions=True)
    assert isinstance(results[0], AppendResult) and results[0].last_version == 1
    assert isinstance(results[1], ConcurrencyError)
    assert group.batches == 1


async def test_a_failed_transaction_fails_every_append_in_it_and_writes_nothing(
        contract_pool: asyncpg.Pool) -> None:
    store = EventStore(contract_pool, EventRegistry(Sample))
    group = GroupCommit(store, window=0.05)
    good = new_stream()
    # A command id longer than Postgres can index fails the whole statement.
    results = await asyncio.gather(group.append(good, 0, [Opened(name="g")], "ok"),
                                   group.append(new_stream(), 0, [Opened(name="b")],
                                                os.urandom(8000).hex()),
                                   return_exceptions=True)
    assert all(isinstance(r, Exception) for r in results)
    assert await store.read(good) == []
    # The next batch is written as usual.
    assert (await group.append(good, 0, [Opened(name="g")])).last_version == 1


async def test_batches_and_their_holders_heartbeats_never_deadlock(
        contract_pool: asyncpg.Pool) -> None:
    store = EventStore(contract_pool, EventRegistry(Sample))
    leases = Leases(contract_pool)
    streams = sorted(new_stream() for _ in range(60))
    epochs = {s: (await leases.claim(s, "w", 30)).epoch for s in streams}
    versions = dict.fromkeys(streams, 0)
    for round_no in range(15):
        # The batch names the streams in the reverse of the renewal's order.
        batch = [Append(s, versions[s], [Counted(n=round_no)], epoch=epochs[s])
                 for s in reversed(streams)]
        out, held, _ = await asyncio.gather(store.append_many(batch),
                                            leases.renew("w", streams, 30),
                                            leases.renew("w", streams[::-1], 30))
        assert all(isinstance(o, AppendResult) for o in out) and held == set(streams)
        versions = {s: v + 1 for s, v in versions.items()}
