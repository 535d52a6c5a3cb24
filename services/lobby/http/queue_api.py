"""The lobby's routes for the ranked queue: where the caller stands, leaving, how busy.

Decode, call one ``Queue`` method, encode. Joining is a WebSocket frame
(``queue_join``): a ticket lives as long as the socket that joined.
"""

from __future__ import annotations

from litestar import Controller, delete, get

from schemas.queue import QueueState, QueueStats
from services.lobby.accounts.auth import Claims
from services.lobby.http.apidocs import BEARER, SIGNED_IN, STORE, answers
from services.lobby.http.deps import signed_in
from services.lobby.ranked.queue import Queue

TAGS = ["queue"]
STATE = {"state": "waiting", "players": ["p-7f3a"], "partner": None, "since": 1798700900000,
         "window": 200, "match_id": None, "cooldown_until": 0}
STATS = {"waiting_solo": 14, "waiting_pair": 6, "bands": [
    {"low": 1400, "solo": 5, "pair": 2}, {"low": 1500, "solo": 9, "pair": 4}],
    "matched_10m": 48, "median_wait_ms": 21000, "p90_wait_ms": 64000, "in_ready_check": 4}


class QueueController(Controller):
    """The ranked queue: the caller's place, leaving it, how busy it is."""

    @get("/v1/queue", summary="The caller's place in the ranked queue", tags=TAGS,
         security=BEARER, responses=answers(200, QueueState, STATE,
                                            *SIGNED_IN, *STORE))
    async def place(self, me: Claims, queue: Queue) -> QueueState:
        """`state` "none" when not queued; `cooldown_until` (ms) while a cooldown runs.
        Not queued, `blocked_by` names what `queue_join` would refuse now, and `until`
        (ms) when it ends: a cooldown, or a bar from ranked after a fair-play review
        (`ranked_barred`)."""
        return await queue.state(me.player_id, me.guest)

    @delete("/v1/queue", status_code=200, summary="Leave the ranked queue", tags=TAGS,
            security=BEARER, responses=answers(200, QueueState, {"state": "none"},
                                               *SIGNED_IN, "not_queued", *STORE))
    async def leave(self, me: Claims, queue: Queue) -> QueueState:
        """During a ready check this declines the match (and a cooldown follows).
        404 `not_queued`."""
        player = me.player_id
        await queue.leave(player)
        return await queue.state(player, me.guest)

    @get("/v1/queue/stats", summary="Who waits in the ranked queue, and for how long",
         guards=[signed_in], tags=TAGS, security=BEARER, responses=answers(200, QueueStats, STATS,
                                                       *SIGNED_IN, *STORE))
    async def stats(self, queue: Queue) -> QueueStats:
        """Waiting players by rating band (solo, in pairs), and the median and 90th
        percentile wait of the players matched in the last ten minutes."""
        return await queue.stats()



__all__ = ["QueueController"]
