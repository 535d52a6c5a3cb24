"""A periodic job runs every period, and at once when woken: work that just became due
(a round paired: its tables to call) need not wait out the period."""

from __future__ import annotations

import asyncio
import time

from services.platform.periodic import Periodic
from tests.waiting import until


async def test_a_woken_job_runs_at_once_and_otherwise_waits_its_period() -> None:
    runs: list[float] = []

    async def job() -> int:
        runs.append(time.monotonic())
        return 0

    chore = Periodic("chore", 60.0, job)
    await chore.start()
    try:
        await until(lambda: _at_least(runs, 1), timeout=5, every=0.01)
        await asyncio.sleep(0.2)
        assert len(runs) == 1  # the period is a minute
        for n in (2, 3):
            chore.wake()
            await until(lambda n=n: _at_least(runs, n), timeout=5, every=0.01)  # type: ignore[misc]
        await asyncio.sleep(0.2)
        assert len(runs) == 3  # one run per wake, then the period again
    finally:
        await chore.stop()
    assert not chore.running


async def _at_least(runs: list[float], n: int) -> bool:
    return len(runs) >= n
