"""What every lobby copy does now and then for matches: finish the half-started ones
and publish unpublished outcomes (``Sweeper``), end lapsed ready checks (``Expiry``)."""

from __future__ import annotations

from services.lobby.matches.opening import Matches
from services.platform.periodic import Periodic


class Sweeper(Periodic):
    """Every lobby copy looks for matches left half-started, and for outcomes left
    unpublished, now and then. Two copies finishing the same match is harmless: the
    game's creation is idempotent, and so is an outcome's publication."""

    def __init__(self, matches: Matches, every_seconds: float) -> None:
        async def sweep() -> int:
            return (await matches.finish_unstarted(older_than_seconds=every_seconds)
                    + await matches.outcomes.republish(older_than_seconds=every_seconds))

        super().__init__("match_sweep", every_seconds, sweep)


class Expiry(Periodic):
    """Every lobby copy ends the ready checks whose deadline passed; the row locks
    let one copy end each."""

    def __init__(self, matches: Matches, every_seconds: float) -> None:
        super().__init__("ready_expiry", every_seconds, matches.expire)
