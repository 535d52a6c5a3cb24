"""Fair play's routes: operators' review queue under ``/v1/admin/fairplay`` and a
player's report of a game (docs/fairplay.md).

The queue lives in the ratings service; each admin route checks the caller's role
now (``auth.role_now``, through ``require_operator``) once the parameters are read,
then asks it. A report is taken from one who could see the game (its summary, with
every rule of watching, is read first), for a rated game, within the per-player
limit.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.params import Parameter

from schemas import fairplay as api
from services.lobby.accounts.auth import Claims, require_operator
from services.lobby.base.store import Pool
from services.lobby.clients.ratings import RatingsBus
from services.lobby.edge.gateway import Gateway
from services.lobby.games.reports import Reports
from services.lobby.http.apidocs import BEARER, BODY, SIGNED_IN, STORE, answers
from services.lobby.http.params import GameId

TAGS = ["fair play"]
CASE = {"case_id": "c-5e1f0a9b2c3d", "players": ["p-7f3a", "p-11b0"], "relation": "partners",
        "status": "open", "score": 6.41, "hands": 212, "games": 31,
        "why": "402 of 650 telling decisions (62%) followed the partner's real hand rather "
               "than a plausible one; honest play is near 50%",
        "opened_at_ms": 1798700900000, "decided_at_ms": None}
DETAIL = {"case": CASE, "games": ["g-9c1d"],
          "telling": [{"game_id": "g-9c1d", "hand": 3, "seat": 0, "player_id": "p-7f3a",
                       "card": "QH", "followed": "real"}],
          "scores": [{"players": ["p-7f3a", "p-11b0"], "relation": "partners", "hands": 212,
                      "score": 6.41, "flagged": True, "why": CASE["why"]}],
          "events": [{"type": "opened", "at_ms": 1798700900000, "score": 6.41,
                      "game_id": "g-9c1d"}]}
CaseId = Annotated[str, Parameter(pattern=r"^[A-Za-z0-9_-]{1,64}$",
                                  description="a case id, as the list gives it")]
OPERATOR = (*SIGNED_IN, "operators_only", "ratings_unavailable", *STORE)


class FairPlayController(Controller):
    """The review queue for operators, and players' reports."""

    @get("/v1/admin/fairplay", summary="Operators: fair-play cases, open first (highest "
         "score first), then decided, newest first", tags=TAGS, security=BEARER,
         responses=answers(200, api.CaseList, {"cases": [CASE]}, *OPERATOR, "bad_request"))
    async def cases(
        self, me: Claims, pool: Pool, ratings: RatingsBus,
        status: Annotated[api.Status | None, Parameter(
            description="open, cleared or upheld; every case when not given")] = None,
        limit: Annotated[int, Parameter(ge=1, le=500)] = 50,
    ) -> api.CaseList:
        """403 `operators_only` for a player's token (the role as it is now)."""
        await require_operator(pool, me)
        return await ratings.cases(api.ListCases(status=status, limit=limit))

    @get("/v1/admin/fairplay/{case_id:str}", summary="Operators: one fair-play case: its "
         "games, the decisions that weigh most, the scores, what happened to it", tags=TAGS,
         security=BEARER, responses=answers(200, api.CaseDetail, DETAIL, *OPERATOR,
                                            "bad_request", "case_not_found"))
    async def case(self, me: Claims, pool: Pool, ratings: RatingsBus,
                   case_id: CaseId) -> api.CaseDetail:
        """`scores`: each pair of the case's players judged over their recent rated games;
        `telling`: decisions whose card only the partner's real hand (or only a plausible
        one) explains, the real hand's first."""
        await require_operator(pool, me)
        return await ratings.case(case_id)

    @post("/v1/admin/fairplay/{case_id:str}/decision", status_code=200,
          summary="Operators: decide a fair-play case: cleared, or upheld (its games' "
                  "rating changes voided, its accounts barred from ranked)", tags=TAGS,
          security=BEARER, responses=answers(200, api.CaseDetail, DETAIL, *OPERATOR, *BODY,
                                             "case_not_found", "case_decided"))
    async def decide(self, me: Claims, pool: Pool, ratings: RatingsBus, case_id: CaseId,
                     data: api.DecisionBody) -> api.CaseDetail:
        """`upheld` rebuilds the ratings without the case's games (every player of those
        games gets back what they moved) and bars the case's accounts from ranked for
        `bar_days` (SPADES_FAIRPLAY_BAR_DAYS of the ratings service, 30, when not given).
        409 `case_decided`: a decision stands."""
        await require_operator(pool, me)
        return await ratings.decide(api.Decide(case_id=case_id, by=me.player_id,
                                               decision=data.decision, note=data.note,
                                               bar_days=data.bar_days))

    @post("/v1/games/{game_id:str}/report", status_code=202, summary="Report a rated game "
          "for fair play: its players go to the review queue", tags=TAGS, security=BEARER,
          responses=answers(202, api.ReportTaken, {"game_id": "g-9c1d", "received": True},
                            *SIGNED_IN, *BODY, "rate_limited", "game_not_found",
                            "room_code_required", "deal_not_finished",
                            "tournaments_unavailable", "game_unavailable", "game_not_rated",
                            "ratings_unavailable", *STORE))
    async def report(self, me: Claims, gateway: Gateway, reports: Reports, game_id: GameId,
                     data: api.ReportBody) -> api.ReportTaken:
        """For one who could see the game (as `GET /v1/games/{id}` answers them), while
        it is played or after. 429 `rate_limited` past SPADES_REPORTS_PER_PLAYER;
        409 `game_not_rated`: fair play reviews ranked games."""
        reports.count(me.player_id)
        game = await gateway.summary(game_id, me, None)
        return await reports.report(me.player_id, game, data.reason)


__all__ = ["FairPlayController"]
