"""Starting a match: the lobby's ``svc.lobby.open_match`` endpoint (msgpack).

A person's table, the ranked queue and a tournament's scheduler all start games
the same way: four reserved seats (people by player id, or bots by level), the
rules, whether the result is rated, and where the match comes from. The caller
chooses the ``match_id``; asking again with the same id (after a timeout, a
crash, from another copy) returns the same table and game, never a second one.
Errors come back as NATS service errors with a stable code (``docs/protocol.md``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

MatchId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
Origin = Literal["table", "queue", "tournament"]

# Endpoint name under ``svc.lobby``.
OPEN_MATCH = "open_match"


class MatchSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A person (``player_id`` of a lobby account) or a bot (``bot``: its level)."""

    player_id: str = ""
    bot: str = ""


class OpenMatch(msgspec.Struct, frozen=True, kw_only=True):
    match_id: MatchId
    seats: tuple[MatchSeat, MatchSeat, MatchSeat, MatchSeat]
    rules: str | dict[str, Any] = "house"  # a preset, or {"preset": ..., overrides}
    rated: bool = False  # needs four registered people
    origin: Origin
    origin_id: Annotated[str, msgspec.Meta(max_length=64)] = ""
    banter: bool = True
    ready_seconds: int = 0


class MatchOpened(msgspec.Struct, frozen=True, kw_only=True):
    match_id: str
    table_id: str
    game_id: str
    rated: bool
    duplicate: bool = False  # the match was opened by an earlier ask
    state: Literal["ready_check", "started", "not_ready", "failed"] = "started"
    ready_by: int = 0
    absent: tuple[int, ...] = ()
