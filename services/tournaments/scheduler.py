"""The scheduler: fires due tournament timers (starts, next rounds) every tick.

Every copy of the service runs one; the timers' rows, taken with
``FOR UPDATE SKIP LOCKED``, make each timer fire once whichever copy gets it,
and a copy that dies mid-transaction leaves its timers for the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from services.platform import logs
from services.tournaments.store import TournamentStore

_log = logs.get("tournaments.scheduler")


def wall_ms() -> int:
    return int(time.time() * 1000)


class Scheduler:
    def __init__(self, store: TournamentStore, poll_seconds: float,
                 now_ms: Callable[[], int] = wall_ms) -> None:
        self.store, self.poll_seconds, self.now_ms = store, poll_seconds, now_ms
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tournament-scheduler")

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
                while await self.store.fire_due(self.now_ms()):
                    pass  # a full batch may leave more due: take them before sleeping
            except Exception:
                _log.exception("timers_failed")
            await asyncio.sleep(self.poll_seconds)
