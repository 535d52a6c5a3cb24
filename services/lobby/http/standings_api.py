"""The lobby's routes for ratings: the leaderboard, a player's page, a player's history.

Decode, call one ``Standings`` method, encode. The numbers come from the
ratings service (``svc.ratings.*``); 503 ``ratings_unavailable`` when it does not
answer in time (a player's page still answers, with ``ranked`` null).
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import Parameter

from schemas.api import Leaderboard, Named, PlayerPage, RatingHistory
from schemas.subjects import ID_PATTERN
from services.lobby.accounts.standings import Standings
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STORE, answers
from services.lobby.http.deps import signed_in
from services.lobby.http.params import ID_HELP, Before, PlayerId, line

TAGS = ["ratings"]
RANKED = {"player_id": "p-7f3a", "rating": 1612, "games": 57, "wins": 31, "losses": 24,
          "draws": 1, "left": 1, "peak": 1650, "provisional": False,
          "last_game_at_ms": 1798700900000, "rank": 41}
BOARD = {"offset": 0, "entries": [
    {"rank": 1, "player_id": "p-7f3a", "name": "Ada", "rating": 1812, "games": 120,
     "wins": 80, "losses": 39, "draws": 1, "provisional": False}]}
HISTORY = {"next": 311, "entries": [
    {"id": 312, "game_id": "g-9c1d", "rated_at_ms": 1798700900000, "rating_before": 1600,
     "rating_after": 1612, "delta": 12, "k": 20, "result": "win",
     "partner": {"player_id": "p-11b0", "name": "Ben"},
     "opponents": [{"player_id": "p-21c4", "name": "Cy"},
                   {"player_id": "p-9e02", "name": "Di"}]}]}


class StandingsController(Controller):
    """Ratings and players, for anyone signed in (the guard)."""

    guards = [signed_in]

    @get("/v1/leaderboard", summary="The ranked leaderboard, a page at a time or around a "
         "player", tags=TAGS, security=BEARER,
         responses=answers(200, Leaderboard, BOARD,
                           *SIGNED_IN, "bad_request", "ratings_unavailable", *STORE))
    async def leaderboard(
        self, standings: Standings,
        limit: Annotated[int, Parameter(ge=1, le=200)] = 50,
        offset: Annotated[int, Parameter(ge=0, le=1_000_000)] = 0,
        around: Annotated[str | None, Parameter(
            pattern=ID_PATTERN, max_length=64,
            description=f"a player id ({ID_HELP}): the page with its place in the middle, "
                        "offset ignored")] = None,
        provisional: Annotated[bool, Parameter(
            description="also list players in their first 20 rated games")] = False,
    ) -> Leaderboard:
        """Established players with a rated game in the last two weeks, highest rating
        first; recomputed every minute. 503 `ratings_unavailable` (retry)."""
        return await standings.leaderboard(limit, offset, around, provisional)

    @get("/v1/players", summary="Find a registered player by name", tags=["players"],
         security=BEARER, responses=answers(200, Named, {"player_id": "p-7f3a", "name": "Ada"},
                                            *SIGNED_IN, "bad_request", "player_not_found", *STORE))
    async def find(self, standings: Standings, name: Annotated[str, line(
            "a registered name, as written or in any case", 32)]) -> Named:
        """The id behind a registered name (to queue with a partner, say): names are
        unique, whatever the case or look-alike letters. 404 `player_not_found`."""
        return await standings.find(name)

    @get("/v1/players/{player_id:str}", summary="A player's name and rated record",
         tags=["players"], security=BEARER,
         responses=answers(200, PlayerPage, {"player_id": "p-7f3a", "name": "Ada",
                                             "ranked": RANKED},
                             *SIGNED_IN, "bad_request", "player_not_found",
                             "ratings_unavailable", *STORE))
    async def player(self, standings: Standings, player_id: PlayerId) -> PlayerPage:
        """404 `player_not_found` for an id no account has. `ranked` is null when the
        ratings service did not answer; a player never rated has the initial rating,
        no games, and is provisional."""
        return await standings.player(player_id)

    @get("/v1/players/{player_id:str}/ratings", summary="A player's rated games, newest "
         "first", tags=TAGS, security=BEARER,
         responses=answers(200, RatingHistory, HISTORY,
                           *SIGNED_IN, "bad_request", "player_not_found", "ratings_unavailable",
                           *STORE))
    async def history(
        self, standings: Standings, player_id: PlayerId,
        before: Before = None,
        limit: Annotated[int, Parameter(ge=1, le=100)] = 20,
    ) -> RatingHistory:
        """404 `player_not_found`; 503 `ratings_unavailable` (retry)."""
        return await standings.history(player_id, before, limit)


__all__ = ["StandingsController"]
