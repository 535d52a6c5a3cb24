"""Leases with a fencing epoch: one holder at a time, and a stale holder writes nothing."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import asyncpg
import pytest

from services.platform.events import EventRegistry
from services.platform.eventstore import EventStore
from services.platform.lease import FencedError, LeaseHeld, Leases
from tests.services.platform.pausing import pause_until_adopted
from tests.services.platform.sample_events import Counted, Opened, Sample

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def leases(contract_pool: asyncpg.Pool) -> Leases:
    return Leases(contract_pool)


def new_name() -> str:
    return f"l-{uuid.uuid4().hex}"


async def lapse(leases: Leases, name: str) -> None:
    """As if the holder stopped renewing long ago."""
    await leases.pool.execute(
        "UPDATE leases SET until = now() - interval '1 second' WHERE name = $1", name)


async def test_a_live_lease_is_refused_to_another_holder(leases: Leases) -> None:
    name = new_name()
    first = await leases.claim(name, "a", 30)
    assert first.epoch == 1
    with pytest.raises(LeaseHeld):
        await leases.claim(name, "b", 30)


async def test_claiming_ones_own_lease_keeps_the_epoch(leases: Leases) -> None:
    name = new_name()
    first = await leases.claim(name, "a", 30)
    assert (await leases.claim(name, "a", 30)).epoch == first.epoch


async def test_a_lapsed_lease_goes_to_the_next_claimer_with_a_new_epoch(leases: Leases) -> None:
    name = new_name()
    first = await leases.claim(name, "a", 30)
    await lapse(leases, name)
    taken = await leases.claim(name, "b", 30)
    assert taken.epoch == first.epoch + 1
    assert await leases.renew("a", [name], 30) == set()  # the old holder finds it gone
    assert await leases.renew("b", [name], 30) == {name}


async def test_a_released_lease_is_claimable_at_once_and_still_fences(leases: Leases) -> None:
    name = new_name()
    first = await leases.claim(name, "a", 30)
    await leases.release("a", [name])
    taken = await leases.claim(name, "b", 30)
    assert taken.epoch == first.epoch + 1
    async with leases.pool.acquire() as conn:
        with pytest.raises(FencedError):
            await leases.check(conn, name, first.epoch)
        await leases.check(conn, name, taken.epoch)


async def test_lapsed_leases_are_claimed_only_among_the_candidates(leases: Leases) -> None:
    live, done, running = new_name(), new_name(), new_name()
    for name in (live, done, running):
        await leases.claim(name, "a", 30)
    for name in (live, done):
        await lapse(leases, name)
    candidates = f"SELECT unnest(ARRAY['{live}', '{running}'])"
    claimed = await leases.claim_lapsed("b", 30, 10, candidates)
    assert [(c.name, c.holder, c.epoch) for c in claimed] == [(live, "b", 2)]


async def test_a_check_without_a_lease_is_fenced(leases: Leases) -> None:
    async with leases.pool.acquire() as conn:
        with pytest.raises(FencedError):
            await leases.check(conn, new_name(), 1)


async def test_a_paused_holder_commits_nothing_once_its_lease_was_taken(
        contract_pool: asyncpg.Pool, leases: Leases, database_url: str) -> None:
    stream = new_name()
    store = EventStore(contract_pool, EventRegistry(Sample))
    env = {**os.environ, "DATABASE_URL": database_url, "STREAM": stream, "HOLDER": "paused",
           "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.services.platform.lease_holder", env=env, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    lines: list[dict[str, int]] = []

    async def read_lines() -> None:
        assert proc.stdout is not None
        async for raw in proc.stdout:
            lines.append(json.loads(raw))

    reader = asyncio.create_task(read_lines())
    try:
        while len(lines) < 3:  # it holds the lease and writes
            await asyncio.sleep(0.02)
        adopted_at: list[int] = []

        async def adopted() -> bool:
            try:
                lease = await leases.claim(stream, "adopter", 30)
            except LeaseHeld:
                return False
            adopted_at.append(lease.epoch)
            return True

        async def adopter_writes() -> None:
            await store.append(stream, None, [Opened(name="adopter")], epoch=adopted_at[0])

        async def fenced() -> bool:
            return any("fenced" in line for line in lines)

        await pause_until_adopted(proc.pid, adopted, adopter_writes, fenced)
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await reader
    assert adopted_at == [2] and lines[-1] == {"fenced": 1}
    events = [r.event for r in await store.read(stream)]
    # Everything before the adopter's write is the holder's; nothing of it after.
    assert events[-1] == Opened(name="adopter")
    assert all(isinstance(e, Counted) for e in events[:-1])
    assert [line["wrote"] for line in lines[:-1]] == list(range(1, len(events)))
