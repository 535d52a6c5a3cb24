"""Prometheus metrics of the tournament service, served on its ``/metrics``.

A round's turnaround is what players between rounds wait for: from the moment the
round's last result made it complete to the next round's pairing. It includes the
tournament's own ``round_interval_seconds``; anything well past that is the scheduler
being late (a copy down, Postgres slow), which the dashboards and alerts watch.
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import Counter, Histogram

from schemas.tournaments import events as ev
from services.tournaments.state import Tournament

TURNAROUND = Histogram(
    "spades_tournament_round_turnaround_seconds",
    "Time from a round's completion (its last result) to the next round's pairing",
    buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800))


def observe_rounds(state: Tournament, events: Iterable[ev.Event]) -> None:
    """Count the turnaround of every round after the first that ``events`` pair; ``state``
    is the tournament after them, whose ``turned_at`` is when the round before completed
    (a round is paired by a command of its own, never with the results of the last)."""
    for event in events:
        if isinstance(event, ev.RoundPaired) and event.round_no > 1:
            TURNAROUND.observe(max(0, event.at - state.turned_at) / 1000)

FOLDS = Counter(
    "spades_tournament_folds_total",
    "How a command found its tournament's fold: kept in memory, kept and caught up with "
    "another copy's events, or folded from the whole stream (a start, or a rollback)",
    ["how"])
