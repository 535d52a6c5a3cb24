"""Operators' side of the lobby: a game's log, its state at any event, its verdict, search.

The lobby never reads the game service's tables (docs/architecture.md, rule 2): a
game's log comes from its worker over the bus (``EventsSince`` from version 0), decoded
with the same registry and upcasters as every other reader. What an operator
sees of a state is what ``engine.views`` makes of it, never a fold of our own,
so the replay viewer shows the engine's truth. Logs are cached: a finished
game's log never changes, and a live one only grows, so a cached log is only
ever topped up with the events after its last version.

The search runs over a small projection in the lobby's own schema (``projection``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import msgspec

from engine.evolve import evolve
from engine.replay import verify
from engine.state import GameState
from engine.timeline import seat_names
from engine.views import operator_view, redact, view
from schemas import admin
from schemas import events as ev
from schemas.bus import EventEnvelope
from schemas.errors.codes import GAME_UNAVAILABLE
from services.lobby.base.errors import LobbyError
from services.lobby.clients.gameworkers import GameClient, GameUnavailable
from services.lobby.games import store
from services.lobby.matches import store as matchstore
from services.platform.events import game_registry

OUTCOMES = ("playing", "over", "team0", "team1", "draw", "target", "floor", "hands", "boston",
            "forfeit")


# A folded state is kept every this many events; any other is at most that many evolves away.
CHECKPOINT_EVERY = 16


@dataclass
class _Game:
    logged: list[admin.LoggedEvent] = field(default_factory=list)
    checkpoints: list[GameState] = field(default_factory=lambda: [GameState()])
    verdict: tuple[int, admin.Verification] | None = None

    @property
    def over(self) -> bool:
        return bool(self.logged) and isinstance(self.logged[-1].event, ev.GameEnded)

    def state(self, at: int) -> GameState:
        """The state after ``at`` events, from the nearest checkpoint at or before it."""
        k = at // CHECKPOINT_EVERY
        while len(self.checkpoints) <= k:
            base = (len(self.checkpoints) - 1) * CHECKPOINT_EVERY
            state = self.checkpoints[-1]
            for logged in self.logged[base:base + CHECKPOINT_EVERY]:
                state = evolve(state, logged.event)
            self.checkpoints.append(state)
        state = self.checkpoints[k]
        for logged in self.logged[k * CHECKPOINT_EVERY:at]:
            state = evolve(state, logged.event)
        return state


class Operators:
    def __init__(self, pool: store.Pool, games: GameClient, cache_games: int = 64) -> None:
        self.pool, self.games, self.cache_games = pool, games, cache_games
        self.registry = game_registry()
        self._cache: OrderedDict[str, _Game] = OrderedDict()

    async def _game(self, game_id: str) -> _Game:
        game = self._cache.get(game_id) or _Game()
        if not game.over:
            try:
                reply = await self.games.events_after(game_id, len(game.logged))
            except GameUnavailable:
                raise LobbyError(GAME_UNAVAILABLE, "no game worker answered") from None
            for env in reply.events:
                if env.version == len(game.logged) + 1:
                    game.logged.append(self._logged(env))
            if not game.logged:
                raise LobbyError("game_not_found", f"no game {game_id!r}")
        self._cache[game_id] = game
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_games:
            self._cache.popitem(last=False)
        return game

    def _logged(self, env: EventEnvelope) -> admin.LoggedEvent:
        event = self.registry.decode(env.type, env.schema_version, env.body)
        return admin.LoggedEvent(version=env.version, schema_version=type(event).VERSION,  # type: ignore[attr-defined]
                                 occurred_at_ms=env.occurred_at_ms, event=event)  # type: ignore[arg-type]

    async def log(self, game_id: str) -> admin.EventLog:
        game = await self._game(game_id)
        first = game.logged[0].event
        players = first.players if isinstance(first, ev.GameStarted) else ("",) * 4
        table = await matchstore.table_of_game(self.pool, game_id)
        known = [s.name for s in table.seats] if table is not None else []
        return admin.EventLog(game_id=game_id, version=len(game.logged), over=game.over,
                              events=game.logged, names=list(seat_names(players, known)))

    async def state_at(self, game_id: str, at: int | None, seat: int | None) -> admin.StateAt:
        """The operator view after ``at`` events (the last when None), or ``seat``'s view."""
        game = await self._game(game_id)
        n = len(game.logged)
        at = n if at is None else at
        if not 0 <= at <= n:
            raise LobbyError("event_out_of_range", f"the game has events 0 to {n}")
        state = game.state(at)
        event = game.logged[at - 1] if at else None
        if seat is None:
            return admin.StateAt(game_id=game_id, at=at, version=n, event=event,
                                 state=operator_view(state))
        if event is not None:  # as the seat received it, if it did
            sent = redact(event.event, state, seat)
            event = None if sent is None else msgspec.structs.replace(event, event=sent)
        return admin.StateAt(game_id=game_id, at=at, version=n, event=event, seat=seat,
                             view=view(state, seat))

    async def verification(self, game_id: str) -> admin.Verification:
        game = await self._game(game_id)
        n = len(game.logged)
        if game.verdict is None or game.verdict[0] != n:
            d = verify([e.event for e in game.logged])
            body = None if d is None else admin.Divergence(
                index=d.index, reason=d.reason, stored=list(d.stored),
                produced=list(d.produced), error=d.error)
            game.verdict = n, admin.Verification(game_id=game_id, events=n,
                                                 verified=d is None, divergence=body)
        return game.verdict[1]

    async def search(self, *, player: str | None, table_id: str | None,
                     started_after_ms: int | None, started_before_ms: int | None,
                     outcome: str | None, limit: int) -> admin.GameSearch:
        if outcome and outcome not in OUTCOMES:
            raise LobbyError("bad_outcome", f"outcome is one of {', '.join(OUTCOMES)}")
        rows = await store.search_games(
            self.pool, player=player, table_id=table_id, started_after_ms=started_after_ms,
            started_before_ms=started_before_ms, outcome=outcome, limit=limit)
        return admin.GameSearch(games=[admin.GameFound(
            game_id=r.game_id, table_id=r.table_id, players=list(r.players),
            names=list(r.names), started_at_ms=r.started_at_ms, ended_at_ms=r.ended_at_ms,
            winner=r.winner, scores=list(r.scores) if r.scores is not None else None,
            reason=r.reason, hands_played=r.hands_played) for r in rows])


__all__ = ["OUTCOMES", "Operators"]
