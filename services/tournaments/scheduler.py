"""The scheduler: fires due tournament timers (starts, next rounds) every tick.

Every copy of the service runs one; the timers' rows, taken with
``FOR UPDATE SKIP LOCKED``, make each timer fire once whichever copy gets it,
and a copy that dies mid-transaction leaves its timers for the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from services.platform.periodic import Periodic
from services.tournaments.store import TournamentStore


def wall_ms() -> int:
    return int(time.time() * 1000)


class Scheduler(Periodic):
    def __init__(self, store: TournamentStore, poll_seconds: float,
                 now_ms: Callable[[], int] = wall_ms) -> None:
        async def fire() -> int:
            fired = total = await store.fire_due(now_ms())
            while fired:  # a full batch may leave more due: take them before sleeping
                fired = await store.fire_due(now_ms())
                total += fired
            return total

        super().__init__("tournament_timers", poll_seconds, fire)
