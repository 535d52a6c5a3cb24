"""The lobby's side of the bus to the ratings service, in the lobby's own terms.

Callers get ``schemas.ratings`` Structs back; a ratings service that does not
answer in time, or answers with an error, becomes ``ratings_unavailable`` (503)
here and nowhere else.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from schemas import ratings as api
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

    async def _ask(self, endpoint: str, body: msgspec.Struct, reply: type[T]) -> T:
        try:
            return await self.client.request(self.names.endpoint("ratings", endpoint), body,
                                             reply, timeout=self.timeout)
        except (Unavailable, bus.RemoteError) as exc:
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
