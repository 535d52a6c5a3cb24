"""The lobby's routes for a match one was offered: where it stands, confirm, decline.

The same answers as the socket's ``match_ready`` / ``match_decline`` frames, for a
client that reloaded during a ready check or does not keep a socket open.
"""

from __future__ import annotations

from litestar import Controller, get, post

from schemas.matches import MatchOpened
from services.lobby.accounts.auth import Claims
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STARTS, STORE, answers
from services.lobby.http.params import MatchId
from services.lobby.matches.opening import Matches

TAGS = ["matches"]
MATCH = {"match_id": "q-81", "table_id": "t-5e0a", "game_id": "g-77c2", "rated": True,
         "duplicate": False, "state": "ready_check", "ready_by": 1798700930000,
         "ready": [0, 2], "absent": [], "declined": []}


class MatchController(Controller):
    """A match one was offered: where it stands, confirm, decline."""

    @get("/v1/matches/{match_id:str}", summary="Where a match one sits in stands",
         tags=TAGS, security=BEARER, responses=answers(200, MatchOpened, MATCH,
                                                       *SIGNED_IN, "bad_request", "match_not_found",
                                                       "not_in_match", *STORE))
    async def status(self, me: Claims, matches: Matches, match_id: MatchId) -> MatchOpened:
        """`state`: `ready_check` (waiting for `ready` seats' people until `ready_by`, ms),
        `starting` (the game is being created: wait for `match_started`), `started` (the
        game exists: subscribe to `game_id`), `not_ready` (`absent`, `declined` seats) or
        `failed`."""
        return await matches.status(match_id, me.player_id)

    @post("/v1/matches/{match_id:str}/ready", status_code=200, summary="Confirm a match",
          tags=TAGS, security=BEARER, responses=answers(200, MatchOpened, MATCH,
                                                        *SIGNED_IN, "bad_request",
                                                        "match_not_found", "not_in_match",
                                                        "match_closed", *STARTS, *STORE))
    async def ready(self, me: Claims, matches: Matches, match_id: MatchId) -> MatchOpened:
        """Confirm one's seat; confirming again, even racing the last confirmation, is
        answered the same. The last person to confirm starts the game (`state` `started`,
        or `starting` while it is created). 409 `match_closed` once the check is over
        without this seat."""
        return await matches.ready(match_id, me.player_id)

    @post("/v1/matches/{match_id:str}/decline", status_code=200, summary="Decline a match",
          tags=TAGS, security=BEARER, responses=answers(200, MatchOpened, MATCH,
                                                        *SIGNED_IN, "bad_request",
                                                        "match_not_found", "not_in_match",
                                                        "match_closed", *STORE))
    async def decline(self, me: Claims, matches: Matches, match_id: MatchId) -> MatchOpened:
        """The match will not start (`state` `not_ready`, one's seats in `declined`)."""
        return await matches.decline(match_id, me.player_id)


__all__ = ["MatchController"]
