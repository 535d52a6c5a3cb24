"""The games projection: two durable consumers of ``GameStarted`` and ``GameEnded``
(idempotent by stream and version, like every consumer of game events) keep the
``games`` rows the operators' search and a player's running games read. A game's end
closes its table and records a ranked game's leavers in the same transaction.

Both consumers apply a fetch in the order of its games' ids, not as delivered: each
upserts the ``games`` row of every game in its fetch and holds the lock to its commit,
so a fetch of starts (in the order games began) and a fetch of ends (in the order they
ended) took the same rows in opposite orders and Postgres broke the cycle with
``deadlock detected`` when thousands of short ranked games began and ended at once
(docs/scaling.md, "Ranked at a busy hour"). In one order, one waits for the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from schemas import events as ev
from schemas.bus import EventEnvelope
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.games import store
from services.lobby.matches import store as matchstore
from services.lobby.ranked import leavers
from services.lobby.tables import store as tablestore
from services.platform.events import game_registry

Handler = Callable[[Any, EventEnvelope], Awaitable[None]]
BatchHandler = Callable[[Any, list[EventEnvelope]], Awaitable[None]]
AfterCommit = Callable[[list[EventEnvelope]], Awaitable[None]]


@dataclass(frozen=True)
class Projection:
    """The games projection's consumers of GameStarted and GameEnded, and what follows
    the GameEnded consumer's commit."""
    started: Handler
    ended: Handler
    ended_committed: AfterCommit

    def in_game_order(self, handler: Handler) -> BatchHandler:
        """``handler`` over a whole fetch, game by game in the order of their ids (one
        game's events in version order): the one order both consumers lock rows in."""
        async def handle(conn: Any, envs: list[EventEnvelope]) -> None:
            for env in sorted(envs, key=lambda e: (e.stream, e.version)):
                await handler(conn, env)

        return handle


def projection_handlers(leaver_seconds: float, broadcasts: Broadcasts) -> Projection:
    """The games projection's consumers. A game's end closes its table in the same
    transaction (whether or not any gateway followed the game), then tells the
    gateways' table feeds. A rated game's leavers (not their partners) may not queue for
    ``leaver_seconds``: the seats a bot played at the end, and the seat whose leaving (or
    clock) forfeited."""
    registry = game_registry()
    closed: dict[str, str] = {}  # game id -> the table its end closed, until the commit

    async def started(conn: Any, env: EventEnvelope) -> None:
        e = registry.decode(env.type, env.schema_version, env.body)
        if isinstance(e, ev.GameStarted):
            table = await matchstore.table_of_game(conn, env.stream)
            await store.game_started(
                conn, env.stream, list(e.players), env.occurred_at_ms,
                None if table is None else table.table_id,
                None if table is None else [s.name for s in table.seats])
            if await matchstore.origin_of(conn, env.stream) is None \
                    and not await store.has_ended(conn, env.stream):
                await tablestore.seat_unmatched(conn, env.stream, list(e.players))

    async def ended(conn: Any, env: EventEnvelope) -> None:
        e = registry.decode(env.type, env.schema_version, env.body)
        if isinstance(e, ev.GameEnded):
            await store.game_ended(conn, env.stream, list(e.players), env.occurred_at_ms,
                                   e.winner, list(e.scores), e.reason, e.hands_played)
            table_id = await tablestore.close_table_of(conn, env.stream)
            await tablestore.unseat(conn, env.stream)
            if table_id is not None:
                closed[env.stream] = table_id
            await leavers.game_ended(conn, env.stream, e, leaver_seconds)

    async def ended_committed(applied: list[EventEnvelope]) -> None:
        for env in applied:
            table_id = closed.pop(env.stream, None)
            if table_id is not None:
                await broadcasts.table_changed(table_id, env.stream)

    return Projection(started, ended, ended_committed)


__all__ = ["Projection", "projection_handlers"]
