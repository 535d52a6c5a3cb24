"""A tournament's timers, as data: which ones it needs now, and the command each kind
fires when due.

A timer is a row (kind, due time) the store rewrites with every command and the
scheduler fires (``TournamentStore.fire_due``). The start is every tournament's; what
it needs while running is its format's (``Format.timers``: a round format's ``pair``),
so a format with a timer of its own adds its kind here and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas.tournaments import commands as cmd
from services.tournaments import formats
from services.tournaments.state import Tournament

# Timer kind -> its command, given the time it fires and a maker of fresh round seeds.
TIMER_COMMANDS: dict[str, Callable[[int, Callable[[], str]], cmd.TournamentCommand]] = {
    "start": lambda at, new_seed: cmd.Start(at=at),
    "pair": lambda at, new_seed: cmd.PairRound(at=at, seed=new_seed()),
}


def due_timers(state: Tournament) -> dict[str, int]:
    """The timers a tournament needs now: its start while registering; while running,
    what its format asks for (the next round's pairing, ``round_interval_seconds``
    after the start or the last round)."""
    s = state.settings
    if s is None:
        return {}
    if state.status == "registering":
        return {"start": s.starts_at}
    if state.status == "running":
        return formats.of(s.format.kind).timers(state)
    return {}
