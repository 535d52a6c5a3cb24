"""The lobby's routes for the ranked queue: where the caller stands, leaving, how busy.

Decode, call one ``Queue`` method, encode. Joining is a WebSocket frame
(``queue_join``): a ticket lives as long as the socket that joined.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, delete, get

from schemas.queue import QueueState, QueueStats
from services.lobby.accounts.auth import Tokens
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STORE, answers
from services.lobby.ranked.queue import Queue

TAGS = ["queue"]
STATE = {"state": "waiting", "players": ["p-7f3a"], "partner": None, "since": 1798700900000,
         "window": 200, "match_id": None, "cooldown_until": 0}
STATS = {"waiting_solo": 14, "waiting_pair": 6, "bands": [
    {"low": 1400, "solo": 5, "pair": 2}, {"low": 1500, "solo": 9, "pair": 4}],
    "matched_10m": 48, "median_wait_ms": 21000, "p90_wait_ms": 64000}


def routes(tokens: Tokens, queue: Queue) -> list[Any]:
    def me(request: Request[Any, Any, Any]) -> str:
        return tokens.from_header(request.headers.get("authorization")).player_id

    @get("/v1/queue", summary="The caller's place in the ranked queue", tags=TAGS,
         security=BEARER, responses=answers(200, QueueState, STATE,
                                            *SIGNED_IN, *STORE))
    async def place(request: Request[Any, Any, Any]) -> QueueState:
        """`state` "none" when not queued; `cooldown_until` (ms) while a cooldown runs."""
        return await queue.state(me(request))

    @delete("/v1/queue", status_code=200, summary="Leave the ranked queue", tags=TAGS,
            security=BEARER, responses=answers(200, QueueState, {"state": "none"},
                                               *SIGNED_IN, "not_queued", *STORE))
    async def leave(request: Request[Any, Any, Any]) -> QueueState:
        """During a ready check this declines the match (and a cooldown follows).
        404 `not_queued`."""
        player = me(request)
        await queue.leave(player)
        return await queue.state(player)

    @get("/v1/queue/stats", summary="Who waits in the ranked queue, and for how long",
         tags=TAGS, security=BEARER, responses=answers(200, QueueStats, STATS,
                                                       *SIGNED_IN, *STORE))
    async def stats(request: Request[Any, Any, Any]) -> QueueStats:
        """Waiting players by rating band (solo, in pairs), and the median and 90th
        percentile wait of the players matched in the last ten minutes."""
        me(request)
        return await queue.stats()

    return [place, leave, stats]


__all__ = ["routes"]
