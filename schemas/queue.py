"""The ranked queue over HTTP: ``GET /v1/queue``, ``DELETE /v1/queue``, ``GET /v1/queue/stats``.

Joining happens over ``/v1/ws`` (``queue_join``), since a ticket lives as long as
the socket that joined; these routes let a page (or a second device) see where a
player stands, leave, and see how busy the queue is.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class QueueState(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's place: ``state`` ``none`` when not queued. ``since`` (ms) is when the
    wait began; ``window`` the rating distance accepted now (None: anyone);
    ``cooldown_until`` (ms) when a cooldown keeps the caller out of the queue.
    Not queued, ``blocked_by`` is the error code ``queue_join`` would answer now
    (``registered_only``, ``more_games_needed``, ``queue_cooldown``, ``ranked_barred``;
    empty: the caller may join), ``games_needed`` the finished games still missing, and
    ``until`` (ms) when a cooldown or a fair-play bar from ranked ends (0: no end to
    wait for)."""

    state: Literal["none", "inviting", "waiting", "matched"]
    players: list[str] = msgspec.field(default_factory=list)
    partner: str | None = None
    since: int = 0
    window: int | None = None
    match_id: str | None = None
    cooldown_until: int = 0
    blocked_by: Literal["", "registered_only", "more_games_needed", "queue_cooldown",
                        "ranked_barred"] = ""
    games_needed: int = 0
    until: int = 0


class Band(msgspec.Struct, frozen=True, kw_only=True):
    """Waiting players whose ticket rating lies in [low, low + 100)."""

    low: int
    solo: int
    pair: int


class QueueStats(msgspec.Struct, frozen=True, kw_only=True):
    """Who waits now, by rating band, and how long the players matched in the last
    ten minutes waited (ms; 0 when nobody was matched)."""

    waiting_solo: int
    waiting_pair: int  # players in pairs
    bands: list[Band]
    matched_10m: int
    median_wait_ms: int
    p90_wait_ms: int
    # Players matched and answering their match's ready check now: queued, no longer
    # waiting for a match (a declined check sends the others back to waiting).
    in_ready_check: int = 0
