"""The scheduler: fires due tournament timers (starts, next rounds) every tick, and calls
due matches (opens them through the lobby, asks again after their ready check).

Every copy of the service runs both; the rows, taken with ``FOR UPDATE SKIP
LOCKED``, make each timer fire once whichever copy gets it, and a copy that dies
mid-transaction leaves its timers and calls for the others. A call asked twice is
one match: the lobby's match id is derived from the tournament and the match.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from schemas.tournaments import events as ev
from services.platform.periodic import Periodic
from services.tournaments.calls import Calls, asker, calls_to_send
from services.tournaments.state import Tournament
from services.tournaments.store import TournamentStore


def wall_ms() -> int:
    return int(time.time() * 1000)


class Scheduler(Periodic):
    def __init__(self, store: TournamentStore, poll_seconds: float,
                 now_ms: Callable[[], int] = wall_ms,
                 fired: Callable[[], None] = lambda: None) -> None:
        """``fired`` is told when timers fired (a round paired: its calls are due)."""
        async def fire() -> int:
            done = total = await store.fire_due(now_ms())
            while done:  # a full batch may leave more due: take them before sleeping
                done = await store.fire_due(now_ms())
                total += done
            if total:
                fired()
            return total

        super().__init__("tournament_timers", poll_seconds, fire)


class Caller(Periodic):
    def __init__(self, store: TournamentStore, lobby: Calls, poll_seconds: float,
                 now_ms: Callable[[], int] = wall_ms) -> None:
        ask = asker(lobby.open_match, lobby.last_event)

        async def tell(state: Tournament, events: list[ev.Event]) -> None:
            for player, note in calls_to_send(state, events):  # committed: tell the players
                await lobby.note(player, note)

        async def call() -> int:
            return len(await store.fire_calls(now_ms(), ask, recorded=tell))

        super().__init__("tournament_calls", poll_seconds, call)
