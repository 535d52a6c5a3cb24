"""A round's trace, on a real database with the SDK's in-memory exporter: the recording
of the result that completes a round, the next round's pairing when its timer fires,
and each call that asks the lobby to open one of its matches are one trace, parent by
parent; results that complete nothing keep nothing, and with tracing off nothing is
kept at all."""

from __future__ import annotations

import time
import uuid

import asyncpg
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemas.tournaments import commands as cmd
from services.platform import tracing
from services.tournaments.results import on_games_ended
from services.tournaments.state import MatchState, Tournament
from services.tournaments.store import TournamentStore

from .driver import STARTS
from .test_calls import Lobby, _ended
from .test_store import create, enter, store_on


def later() -> int:
    """Past the next round's interval: the results are stamped with the time they came."""
    return int(time.time() * 1000) + 3_600_000


class Asking(Lobby):
    """The lobby's answers, and the span each ask was made in (its request's parent)."""

    def __init__(self) -> None:
        super().__init__()
        self.within: dict[str, trace.SpanContext] = {}

    async def ask(self, state: Tournament, m: MatchState, now: int) -> cmd.TournamentCommand | None:
        self.within[m.pairing.match_id] = trace.get_current_span().get_span_context()
        return await super().ask(state, m, now)


async def round_one(store: TournamentStore, lobby: Lobby) -> tuple[str, list[str]]:
    """A Swiss tournament of four teams whose first round's two games have started; its
    id and those games."""
    tid = await create(store, 4, "swiss")
    for i in range(4):
        await enter(store, tid, f"t{i}")
    await store.fire_due(STARTS)  # the start, then round 1's pairing at once
    await store.fire_due(STARTS)
    state = await store.load(tid)
    lobby.state = {m: ("started", ()) for m in state.matches}
    await store.fire_calls(STARTS, lobby.ask)
    state = await store.load(tid)
    return tid, [state.matches[m].game_id for m in sorted(state.matches)]


async def record(pool: asyncpg.Pool, store: TournamentStore, game: str) -> ReadableSpan | None:
    """A game's end recorded in the consumer's span of its message (as the consumer makes
    it: ``tracing.CONSUMING``); that span, when traced."""
    handle = on_games_ended(store)
    with tracing.span("tournament result", tracing.SpanKind.CONSUMER) as span:
        token = tracing.CONSUMING.set({game: tracing.context_of(span)} if span else None)
        try:
            async with pool.acquire() as conn, conn.transaction():
                await handle(conn, [_ended(game, winner=0)])
        finally:
            tracing.CONSUMING.reset(token)
    return span  # type: ignore[return-value]


async def test_a_rounds_last_result_its_next_pairing_and_its_calls_are_one_trace(
        pool: asyncpg.Pool, spans: InMemorySpanExporter) -> None:
    store, lobby = store_on(pool), Asking()
    tid, games = await round_one(store, lobby)
    await record(pool, store, games[0])  # the round goes on: nothing is kept
    first = [s for s in spans.get_finished_spans() if s.name == "results recorded"]
    assert len(first) == 1 and "turned" not in (first[0].attributes or {})
    last = await record(pool, store, games[1])
    assert last is not None
    recorded = [s for s in spans.get_finished_spans() if s.name == "results recorded"][-1]
    assert recorded.parent is not None and recorded.parent.span_id == last.context.span_id
    assert (recorded.attributes or {})["turned"] == "RoundCompleted"

    assert await store.fire_due(later()) == 1  # round 2's pairing, later, on any copy
    paired = [s for s in spans.get_finished_spans() if s.name == "pair round"][-1]
    assert paired.context.trace_id == last.context.trace_id
    assert paired.parent is not None and paired.parent.span_id == recorded.context.span_id
    state = await store.load(tid)
    round_two = sorted(m for m, ms in state.matches.items() if ms.pairing.round_no == 2)
    assert len(round_two) == 2

    lobby.within.clear()
    await store.fire_calls(later(), lobby.ask)
    assert sorted(lobby.within) == round_two
    calls = {str((s.attributes or {})["match.id"]): s for s in spans.get_finished_spans()
             if s.name == "call match" and (s.attributes or {}).get("round") == 2}
    assert sorted(calls) == round_two
    for match_id, call in calls.items():
        assert call.parent is not None and call.parent.span_id == paired.context.span_id
        assert call.context.trace_id == last.context.trace_id
        # The ask (the lobby's request) is made inside its call's span.
        assert lobby.within[match_id].span_id == call.context.span_id


async def test_with_tracing_off_nothing_is_kept(pool: asyncpg.Pool) -> None:
    store, lobby = store_on(pool), Asking()
    tid, games = await round_one(store, lobby)
    for game in games:
        assert await record(pool, store, game) is None
    assert await store.fire_due(later()) == 1
    await store.fire_calls(later(), lobby.ask)
    assert not any(c.is_valid for c in lobby.within.values())
    assert await pool.fetchval("SELECT count(*) FROM tournament_traces WHERE tournament_id = $1",
                               uuid.UUID(tid)) == 0
