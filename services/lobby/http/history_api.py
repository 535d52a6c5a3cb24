"""The lobby's routes for a player's own games: the list, and the replay of one.

Decode, call one method, encode. The list comes from the history projection
(``history/``); a replay is the operators' timeline (``operators.Operators``), which
shows every hand face up, served to a player who sat in the game once it has ended.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, get
from litestar.params import Parameter

from schemas import admin
from schemas.history import PlayerGames
from services.lobby.accounts import store
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.games.operators import Operators
from services.lobby.history.pages import History
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STORE, answers
from services.lobby.http.params import Before, EventsFolded, GameId, PlayerId, SeatView
from services.lobby.tournaments.unseen import Unseen

TAGS = ["players"]
PERSON = {"player_id": "p-7f3a", "name": "Ada"}


def _team(contract: int, counted: int, bags: int, total: int) -> dict[str, Any]:
    return {"contract": contract, "counted": counted, "made": True,
            "contract_points": 10 * contract, "overtricks": bags, "nil_points": 0,
            "failed_nil_tricks": 0, "failed_nil_points": 0, "boston": False,
            "boston_points": 0, "bags_gained": bags, "bag_penalty": 0,
            "delta": 10 * contract + bags, "bags_after": bags, "score_after": total}


HAND = {"hand_no": 1, "bids": [4, 3, 2, 3], "blind": [False, False, False, False],
        "tricks": [5, 3, 2, 3], "teams": [_team(6, 7, 1, 61), _team(6, 6, 0, 60)]}
GAMES = {"next": 311, "ratings_complete": True, "games": [{
    "game_id": "9c1d2e3f", "table_id": "0b6c8a52-1f0e-5c8d-9a61-3e2f7d4c1b90",
    "origin": "queue", "started_at": 1798700000000, "ended_at": 1798700900000,
    "rules": {"preset": "quick", "...": "the game's whole rules"},
    "players": [PERSON, {"player_id": "p-21c4", "name": "Cy"},
                {"player_id": "p-11b0", "name": "Ben"}, {"player_id": "p-9e02", "name": "Di"}],
    "seat": 0, "team": 0, "partner": {"player_id": "p-11b0", "name": "Ben"},
    "opponents": [{"player_id": "p-21c4", "name": "Cy"}, {"player_id": "p-9e02", "name": "Di"}],
    "result": "win", "reason": "target", "scores": [312, 254], "hands": [HAND],
    "rated": True, "rating": {"before": 1600, "after": 1612, "delta": 12},
    "tournament": None}]}
LOGGED = {"version": 1, "schema_version": 2, "occurred_at_ms": 1798700000000,
          "event": {"type": "GameStarted", "...": "every field of the event"}}


class PlayerGamesController(Controller):
    """A player's finished games, and the replay of one they played."""

    @get("/v1/players/{player_id:str}/games", summary="A player's finished games, newest "
         "first, with each hand's bids and tricks", tags=TAGS, security=BEARER,
         responses=answers(200, PlayerGames, GAMES,
                           *SIGNED_IN, "bad_request", "player_not_found", *STORE))
    async def games(
        self, me: Claims, pool: Pool, history: History, unseen: Unseen, player_id: PlayerId,
        before: Before = None,
        limit: Annotated[int, Parameter(ge=1, le=50)] = 20,
    ) -> PlayerGames:
        """Every game the player sat in to its end, from a table, the ranked queue or a
        tournament. Anyone sees a player's ranked, tournament and public tables' games
        (what `/ratings` shows them too); a private table's only those who played it,
        and a duplicate round's game not those still to play its deals. `rating` is the
        rated game's change; when the ratings service does not answer, the page still
        comes, with `ratings_complete` false. 404 `player_not_found`."""
        asker = me.player_id
        if await store.account(pool, player_id) is None:
            raise LobbyError("player_not_found", f"no player {player_id}")
        page = await history.page(player_id, before, limit, asker)
        if not any(g.origin == "tournament" for g in page.games):
            return page
        try:
            hidden = await unseen.games(me)
        except LobbyError:  # the tournament service away: none of its games, to be safe
            hidden = {g.game_id for g in page.games if g.origin == "tournament"}
        return msgspec.structs.replace(
            page, games=[g for g in page.games if g.game_id not in hidden])

    @get("/v1/games/{game_id:str}/replay", summary="A finished game's whole log, every hand "
         "face up, for those who played it", tags=TAGS, security=BEARER,
         responses=answers(200, admin.EventLog, {"game_id": "9c1d2e3f", "version": 57,
                                                 "over": True, "events": [LOGGED],
                                                 "names": ["Ada", "Cy", "Ben", "Di"]},
                           *SIGNED_IN, "bad_request", "game_not_found", "not_your_game",
                           "deal_not_finished", "tournaments_unavailable", "game_unavailable",
                           *STORE))
    async def replay(self, me: Claims, history: History, operators: Operators, unseen: Unseen,
                     game_id: GameId) -> admin.EventLog:
        """The operators' log (`/v1/admin/games/{id}/events`) for a player who sat in the
        game, once it has ended: 404 `game_not_found` before, 403 `not_your_game` for
        anyone else; 403 `deal_not_finished` first to one still to play its deals (a
        duplicate tournament's round)."""
        await unseen.check(me, game_id)
        await history.replayable(me.player_id, game_id)
        return await operators.log(game_id)

    @get("/v1/games/{game_id:str}/replay/state", summary="A finished game's state after "
         "event N, every hand face up, for those who played it", tags=TAGS, security=BEARER,
         responses=answers(200, admin.StateAt, {"game_id": "9c1d2e3f", "at": 1,
                                                "version": 57, "event": LOGGED, "seat": None,
                                                "state": {"...": "every hand face up"},
                                                "view": None},
                           *SIGNED_IN, "bad_request", "game_not_found", "not_your_game",
                           "deal_not_finished", "tournaments_unavailable", "game_unavailable",
                           "event_out_of_range", *STORE))
    async def state(
        self, me: Claims, history: History, operators: Operators, unseen: Unseen,
        game_id: GameId, at: EventsFolded = None, seat: SeatView = None,
    ) -> admin.StateAt:
        """As `/v1/admin/games/{id}/state`, for a player who sat in the finished game."""
        await unseen.check(me, game_id)
        await history.replayable(me.player_id, game_id)
        return await operators.state_at(game_id, at, seat)


__all__ = ["PlayerGamesController"]
