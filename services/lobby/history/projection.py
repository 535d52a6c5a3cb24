"""The history projection: at a game's end, fold its log once and record the row a
player's list of games shows.

The log comes from the game's worker (``EventsSince``), decoded with the registry
every reader uses, and folded by the engine, so the score sheet is the engine's own
(``GameState.sheet``), the one a seat saw during the game. When no worker answers, the
handler raises and the consumer redelivers the ``GameEnded`` later; a redelivered one
finds its row and changes nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine.evolve import evolve
from engine.state import GameState
from engine.timeline import seat_names
from schemas import events as ev
from schemas.bus import EventEnvelope
from services.lobby.clients.gameworkers import GameClient
from services.lobby.history import store as history
from services.lobby.matches import store as matches
from services.lobby.tables import store
from services.platform.events import game_registry


class HistoryProjection:
    """The projection's handler, and its ``before``: the logs of a fetch's ended games
    are asked of their workers ahead of the consumer's transaction, which then folds
    them without holding a connection through a request. A log the ``before`` could not
    get is asked for inside, as a last try before the redelivery."""

    def __init__(self, games: GameClient) -> None:
        self.games, self.registry = games, game_registry()
        self._logs: dict[str, list[EventEnvelope]] = {}

    async def before(self, envs: list[EventEnvelope]) -> None:
        """The fetch's logs, asked of the workers all at once; one that fails is left to
        its handler. Only this fetch's are kept: a duplicate's log is not asked again."""
        ended = list(dict.fromkeys(e.stream for e in envs if e.type == "GameEnded"))
        got = await asyncio.gather(*(self.games.events_after(g, 0) for g in ended),
                                   return_exceptions=True)
        self._logs = {g: r.events for g, r in zip(ended, got, strict=True)
                      if not isinstance(r, BaseException)}

    async def ended(self, conn: Any, env: EventEnvelope) -> None:
        end = self.registry.decode(env.type, env.schema_version, env.body)
        if not isinstance(end, ev.GameEnded) or end.rules is None:
            return
        match = await matches.origin_of(conn, env.stream)
        if match is None:  # not a game the lobby started: nobody's list shows it
            return
        log = self._logs.pop(env.stream, None)
        if log is None:
            log = (await self.games.events_after(env.stream, 0)).events
        state = GameState()
        for e in log:
            state = evolve(state, self.registry.decode(e.type, e.schema_version, e.body))  # type: ignore[arg-type]
        table = await matches.table_of_game(conn, env.stream)
        known = [s.name for s in table.seats] if table is not None else []
        started = log[0].occurred_at_ms if log else env.occurred_at_ms
        await history.record(conn, env.stream, end, list(seat_names(end.players, known)),
                             started, env.occurred_at_ms, state.sheet, match["origin"],
                             match["match_id"], match["table_id"],
                             _private(match["origin"], table))



def _private(origin: str, table: store.TableRow | None) -> bool:
    """Only a person's private table hides its games from strangers; a ranked or
    tournament match's table row is private (no room code) but its games are not: they
    are rated and listed with the player's ratings to anyone (docs/protocol.md)."""
    return origin == "table" and table is not None and table.private


__all__ = ["HistoryProjection"]
