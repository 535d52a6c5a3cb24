"""A job run every few seconds for as long as the service runs, on every copy.

For chores that are safe to run on several copies at once (idempotent deletes,
finishing half-done work whose next step is idempotent): no leader, no lease.
A failed round is logged and the next round tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from services.platform import logs


class Periodic:
    def __init__(self, name: str, every_seconds: float,
                 job: Callable[[], Awaitable[int]]) -> None:
        """``job`` returns how much it did; a round that did something is logged."""
        self.name, self.every, self.job = name, every_seconds, job
        self._log = logs.get(name)
        self._task: asyncio.Task[None] | None = None
        self._woken = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> None:
        while True:
            try:
                done = await self.job()
                if done:
                    self._log.info(f"{self.name}_done", count=done)
            except Exception as exc:  # Postgres or NATS away: try again next round
                self._log.warning(f"{self.name}_failed", error=repr(exc))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.every):
                    await self._woken.wait()
            self._woken.clear()

    def wake(self) -> None:
        """Run the job now rather than at the end of its wait (work just became due)."""
        self._woken.set()
