"""How the tournament service is watched: Prometheus metrics, served on its ``/metrics``,
and a round's trace.

A round's turnaround is what players between rounds wait for: from the moment the
round's last result made it complete to the next round's pairing. It includes the
tournament's own ``round_interval_seconds``; anything well past that is the scheduler
being late (a copy down, Postgres slow), which the dashboards and alerts watch.

A round's trace (services/platform/tracing.py; docs/operators.md, "Following a slow
round") says where that time went: from recording the result that ends a round to the
next round's pairing and the calls that open its games, one trace.

The results of a fetch are recorded per tournament in a ``results recorded`` span, the
child of the last game's ``tournament result`` (the consumer's span of its
``GameEnded``, itself in the trace of the game's last card), linked to the others'.
When they complete a round, or pair elimination matches, that span's ``traceparent``
is kept in ``tournament_traces``: the ``pair round`` span of the round's pairing timer,
whenever it fires and on whichever copy, is its child (and is kept in turn), and each
``call match`` span, whose request opens a match in the lobby (the lobby's match and
its game's start continue it), is the child of what is kept then. Nothing of this is
done, read or written while tracing is off.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence

import asyncpg
from prometheus_client import Counter, Histogram

from schemas.tournaments import events as ev
from services.platform import tracing
from services.tournaments.state import MatchState, Tournament

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

ROWS = Counter(
    "spades_tournament_projection_rows_total",
    "Projection rows an append compared with what the tables hold (``compared``: the rows "
    "it may have changed, or every row when those are not known) and wrote because they "
    "differed (``written``), by table",
    ["table", "step"])


# --- a round's trace ------------------------------------------------------------------

TURNS = (ev.RoundCompleted, ev.MatchesPaired)  # what makes new matches to call


async def keep_trace(conn: asyncpg.Connection, tournament_id: str) -> None:
    """The running span's trace as the one the tournament's next calls continue."""
    found = tracing.traceparent()
    if found:
        await conn.execute(
            "INSERT INTO tournament_traces (tournament_id, trace) VALUES ($1, $2)"
            " ON CONFLICT (tournament_id) DO UPDATE SET trace = EXCLUDED.trace",
            uuid.UUID(tournament_id), found)


async def round_trace(pool: asyncpg.Pool | asyncpg.Connection, tournament_id: str) -> str | None:
    if not tracing.on():
        return None
    return await pool.fetchval("SELECT trace FROM tournament_traces WHERE tournament_id = $1",
                               uuid.UUID(tournament_id))


@contextlib.contextmanager
def recording(tournament_id: str, games: Sequence[str]) -> Iterator[None]:
    """A batch's results of one tournament (the streams of their games, in order)."""
    if not tracing.on():
        yield
        return
    spans = [tracing.consuming(g) for g in games]
    with tracing.span("results recorded", parent=spans[-1], links=spans[:-1], attrs={
            "tournament.id": tournament_id, "results": len(games)}):
        yield


async def recorded(conn: asyncpg.Connection, tournament_id: str,
                   events: Sequence[ev.Event]) -> None:
    """Inside ``recording``: what the results made, and the trace kept when they turned
    the tournament over (a round completed, matches paired)."""
    if not tracing.on():
        return
    turned = [type(e).__name__ for e in events if isinstance(e, TURNS)]
    if turned:
        tracing.annotate({"turned": ",".join(turned)})
        await keep_trace(conn, tournament_id)


@contextlib.asynccontextmanager
async def pairing(conn: asyncpg.Connection, tournament_id: str,
                  kind: str) -> AsyncIterator[None]:
    """A ``pair`` timer's command, in the trace of the round that ended before it."""
    if not tracing.on() or kind != "pair":
        yield
        return
    parent = tracing.of(await round_trace(conn, tournament_id))
    with tracing.span("pair round", parent=parent, attrs={"tournament.id": tournament_id}):
        yield
        await keep_trace(conn, tournament_id)


@contextlib.contextmanager
def calling(trace: str | None, tournament_id: str, m: MatchState) -> Iterator[None]:
    """An ask of the lobby to open ``m`` (not the look at a started game's end)."""
    if trace is None or m.call == "started":
        yield
        return
    with tracing.span("call match", tracing.SpanKind.CLIENT, tracing.of(trace), attrs={
            "tournament.id": tournament_id, "match.id": m.pairing.match_id,
            "round": m.pairing.round_no, "call": m.call}):
        yield
