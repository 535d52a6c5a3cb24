"""Operators' HTTP routes under ``/v1/admin`` and the replay viewer page.

Every ``/v1/admin`` route is handed the caller (401 without a token); it decodes,
checks the role, calls one ``Operators`` method, encodes.
The viewer page itself is plain code with no data in it, so it is served to
anyone; everything it shows comes from these routes with an operator token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from litestar import Controller, Response, get
from litestar.handlers import HTTPRouteHandler
from litestar.params import Parameter

from schemas.admin import EventLog, GameSearch, StateAt, Verification
from schemas.subjects import ID_PATTERN
from services.lobby.accounts.auth import Claims, require_operator
from services.lobby.base.store import Pool
from services.lobby.games.operators import Operators
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STORE, answers
from services.lobby.http.params import (
    ID_HELP,
    LAST_MS,
    PLAYER_PATTERN,
    EventsFolded,
    GameId,
    SeatView,
)

STATIC = Path(__file__).parents[1] / "static"  # services/lobby/static
TAGS = ["operators"]
FOUND = {"games": [{"game_id": "g-9c1d", "table_id": "t-1a2b3c",
                    "players": ["p-7f3a", "bot:basic", "p-11b0", "bot:expert"],
                    "names": ["Ada", None, "Ben", None], "started_at_ms": 1798700000000,
                    "ended_at_ms": 1798700900000, "winner": 0, "scores": [512, 301],
                    "reason": "target", "hands_played": 9}]}
LOGGED = {"version": 1, "schema_version": 1, "occurred_at_ms": 1798700000000,
          "event": {"type": "GameStarted", "...": "the event's fields"}}


# Every admin route: a signed-in operator, whose role is read from the store.
OPERATOR = (*SIGNED_IN, "operators_only", *STORE)


class OperatorController(Controller):
    """Operators' routes: the caller (``me``, 401 without a token) must be an operator
    now (403 ``operators_only``), checked once the parameters are (a guard would come
    first, and make a malformed request 403 for a non-operator instead of 400)."""

    @get("/v1/admin/games", summary="Operators: search games by player, table, start time "
         "and outcome (newest first)", tags=TAGS, security=BEARER,
         responses=answers(200, GameSearch, FOUND,
                           *OPERATOR, "bad_request", "bad_outcome"))
    async def search(
        self, me: Claims, pool: Pool, operators: Operators,
        player: Annotated[str | None, Parameter(
            pattern=PLAYER_PATTERN, max_length=64,
            description="a player id, or a name seated at the game's table")] = None,
        table: Annotated[str | None, Parameter(
            pattern=ID_PATTERN, max_length=64, description=f"a table id: {ID_HELP}")] = None,
        started_after: Annotated[int | None, Parameter(
            ge=0, le=LAST_MS,
            description="games started at or after this time (ms since the epoch)")] = None,
        started_before: Annotated[int | None, Parameter(
            ge=0, le=LAST_MS,
            description="games started before this time (ms since the epoch)")] = None,
        outcome: Annotated[str | None, Parameter(
            description="playing, over, team0, team1, draw, or an end reason: target, "
                        "floor, hands, boston, forfeit")] = None,
        limit: Annotated[int, Parameter(ge=1, le=500)] = 50,
    ) -> GameSearch:
        """403 `operators_only` for a player's token; `spades operator grant NAME` makes an
        operator, who then signs in again."""
        await require_operator(pool, me)
        return await operators.search(player=player, table_id=table,
                                      started_after_ms=started_after,
                                      started_before_ms=started_before, outcome=outcome,
                                      limit=limit)

    @get("/v1/admin/games/{game_id:str}/events", summary="Operators: a game's whole event "
         "log, every event with its version, hands included", tags=TAGS, security=BEARER,
         responses=answers(200, EventLog, {"game_id": "g-9c1d", "version": 57, "over": False,
                                           "events": [LOGGED]},
                             *OPERATOR, "bad_request", "game_not_found",
                             "game_unavailable"))
    async def events(self, me: Claims, pool: Pool, operators: Operators,
                     game_id: GameId) -> EventLog:
        """Versions count from 1; the log of an older event version is served upcast."""
        await require_operator(pool, me)
        return await operators.log(game_id)

    @get("/v1/admin/games/{game_id:str}/state", summary="Operators: the state after event "
         "N (every hand face up), or what one seat saw then", tags=TAGS, security=BEARER,
         responses=answers(200, StateAt, {"game_id": "g-9c1d", "at": 1, "version": 57,
                                          "event": LOGGED, "seat": None,
                                          "state": {"...": "the operator view"}, "view": None},
                             *OPERATOR, "bad_request", "game_not_found",
                             "game_unavailable", "event_out_of_range"))
    async def state(
        self, me: Claims, pool: Pool, operators: Operators, game_id: GameId,
        at: EventsFolded = None, seat: SeatView = None,
    ) -> StateAt:
        """`at` counts events folded, as `spades replay --at` does: 0 is before the first."""
        await require_operator(pool, me)
        return await operators.state_at(game_id, at, seat)

    @get("/v1/admin/games/{game_id:str}/verification", summary="Operators: does today's "
         "engine reproduce the stored log? Else the first divergence", tags=TAGS,
         security=BEARER, responses=answers(200, Verification, {
             "game_id": "g-9c1d", "events": 57, "verified": True, "divergence": None},
                             *OPERATOR, "bad_request", "game_not_found",
                             "game_unavailable"))
    async def verification(self, me: Claims, pool: Pool, operators: Operators,
                           game_id: GameId) -> Verification:
        """Exit status of `spades replay` in HTTP form: verified, or where it diverged."""
        await require_operator(pool, me)
        return await operators.verification(game_id)



def replay_pages() -> list[HTTPRouteHandler]:
    """The replay viewer's page and script (plain code, no data: served to anyone), for
    operators and for a player replaying a finished game of theirs."""
    page, code = (STATIC / "replay.html").read_bytes(), (STATIC / "replay.js").read_bytes()

    @get("/admin/replay", include_in_schema=False, sync_to_thread=False)
    def search_page() -> Response[bytes]:
        """The same page without a game: it opens on the search of games."""
        return Response(page, media_type="text/html; charset=utf-8")

    @get(["/admin/replay/{game_id:str}", "/replay/{game_id:str}"], include_in_schema=False,
         sync_to_thread=False)
    def viewer(game_id: GameId) -> Response[bytes]:
        """One game: an operator's (``/admin/replay/``) or a player's own (``/replay/``)."""
        return Response(page, media_type="text/html; charset=utf-8")

    @get("/admin/replay.js", include_in_schema=False, sync_to_thread=False)
    def viewer_script() -> Response[bytes]:
        return Response(code, media_type="text/javascript; charset=utf-8")

    return [search_page, viewer, viewer_script]


__all__ = ["OperatorController", "replay_pages"]
