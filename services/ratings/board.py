"""Keeping the leaderboard fresh: a task that recomputes it every so often.

Every copy of the service runs one; the store's advisory lock and the time of
the last refresh make one copy do the work per period, so adding copies adds
no load on Postgres.
"""

from __future__ import annotations

from services.platform.periodic import Periodic
from services.ratings.api import Ratings


class BoardRefresher(Periodic):
    def __init__(self, ratings: Ratings) -> None:
        async def refresh() -> int:
            return await ratings.refresh() or 0  # None: another copy refreshed this period

        # Often enough to show a rated game within ``fresh_seconds``, and several times a
        # period, so a copy notices soon when the one that refreshed left.
        super().__init__("board_refresh", max(min(ratings.fresh_seconds / 2,
                                                  ratings.refresh_seconds / 4), 0.25), refresh)
