"""The lobby's side of the bus to the ratings service, in the lobby's own terms.

Callers get ``schemas.ratings`` and ``schemas.fairplay`` Structs back (the ratings
service keeps fair play's review queue too); a refusal with a registered code
(``case_not_found``, ``case_decided``) stays that code, and a ratings service that
does not answer in time, or answers with another error, becomes
``ratings_unavailable`` (503) here and nowhere else.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from schemas import fairplay
from schemas import ratings as api
from schemas.errors import REGISTRY
from schemas.errors.codes import RATINGS_UNAVAILABLE
from schemas.subjects import Names
from services.lobby.base.errors import LobbyError
from services.platform import bus, logs
from services.platform.busclient import BusClient, Unavailable

T = TypeVar("T", bound=msgspec.Struct)
_log = logs.get("lobby")


class RatingsBus:
    def __init__(self, client: BusClient, names: Names, timeout: float) -> None:
        self.client, self.names, self.timeout = client, names, timeout

    async def _ask(self, endpoint: str, body: msgspec.Struct, reply: type[T],
                   timeout: float | None = None) -> T:
        try:
            return await self.client.request(self.names.endpoint("ratings", endpoint), body,
                                             reply, timeout=timeout or self.timeout)
        except bus.RemoteError as exc:
            if exc.code in REGISTRY:
                raise LobbyError(exc.code, exc.description) from None
            _log.warning("ratings_unavailable", endpoint=endpoint, error=repr(exc))
            raise LobbyError(RATINGS_UNAVAILABLE,
                             "the ratings service did not answer; try again") from None
        except Unavailable as exc:
            _log.warning("ratings_unavailable", endpoint=endpoint, error=repr(exc))
            raise LobbyError(RATINGS_UNAVAILABLE,
                             "the ratings service did not answer; try again") from None

    async def ratings(self, players: list[str]) -> list[api.PlayerRating]:
        """Each player's rating, in the order asked (the initial one if never rated): a
        queue ticket's at join, a tournament team's seed."""
        reply = await self._ask(api.RATINGS, api.RatingsRequest(players), api.RatingsReply)
        return reply.ratings

    async def player(self, player_id: str) -> api.PlayerRating:
        return await self._ask(api.PLAYER, api.PlayerRequest(player_id), api.PlayerRating)

    async def leaderboard(self, req: api.LeaderboardRequest) -> api.LeaderboardReply:
        return await self._ask(api.LEADERBOARD, req, api.LeaderboardReply)

    async def history(self, req: api.HistoryRequest) -> api.HistoryReply:
        return await self._ask(api.HISTORY, req, api.HistoryReply)

    # --- fair play (docs/fairplay.md) --------------------------------------------------

    async def barred(self, players: list[str]) -> list[fairplay.Bar]:
        """Those of ``players`` an upheld fair-play case bars from ranked now."""
        reply = await self._ask(fairplay.BARRED, fairplay.BarredRequest(players),
                                fairplay.BarredReply)
        return reply.bars

    async def cases(self, req: fairplay.ListCases) -> fairplay.CaseList:
        return await self._ask(fairplay.CASES, req, fairplay.CaseList)

    async def case(self, case_id: str) -> fairplay.CaseDetail:
        return await self._ask(fairplay.CASE, fairplay.GetCase(case_id=case_id),
                               fairplay.CaseDetail)

    async def decide(self, req: fairplay.Decide) -> fairplay.CaseDetail:
        """An upheld case rebuilds the ratings: it may take longer than a read."""
        return await self._ask(fairplay.DECIDE, req, fairplay.CaseDetail, 6 * self.timeout)

    async def report(self, req: fairplay.Report) -> fairplay.Reported:
        return await self._ask(fairplay.REPORT, req, fairplay.Reported)
