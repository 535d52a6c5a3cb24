"""Keeping the leaderboard fresh: a task that recomputes it every so often.

Every copy of the service runs one; the store's advisory lock and the time of
the last refresh make one copy do the work per period, so adding copies adds
no load on Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib

from services.platform import logs
from services.ratings.api import Ratings

_log = logs.get("ratings")


class BoardRefresher:
    def __init__(self, ratings: Ratings) -> None:
        self.ratings = ratings
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="ratings-board")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> None:
        # Several times a period, so a copy notices soon when the one that refreshed left.
        pause = max(self.ratings.refresh_seconds / 4, 0.5)
        while True:
            try:
                listed = await self.ratings.refresh()
                if listed is not None:
                    _log.info("board_refreshed", listed=listed)
            except Exception as exc:  # Postgres away: the old board stays, try again
                _log.warning("board_refresh_failed", error=repr(exc))
            await asyncio.sleep(pause)
