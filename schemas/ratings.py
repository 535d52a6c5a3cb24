"""Requests and replies of the ratings service's endpoints (``svc.ratings.*``, msgpack).

The lobby asks these for the queue (ratings at join), the leaderboard and the
player pages; it adds names from its own accounts, since ratings knows players
only by id.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Result = Literal["win", "loss", "draw", "left"]

# Endpoint names under ``svc.ratings``.
RATINGS = "ratings"
LEADERBOARD = "leaderboard"
PLAYER = "player"
HISTORY = "history"


class RatingsRequest(msgspec.Struct, frozen=True):
    """Current ratings of several players at once (a queue ticket's players)."""

    players: Annotated[list[PlayerId], msgspec.Meta(min_length=1, max_length=100)]


class PlayerRating(msgspec.Struct, frozen=True, kw_only=True):
    """One player's standing. A player never rated has the initial rating, no games,
    and is provisional; ``rank`` is its place on the leaderboard, or None when the
    board does not list it (provisional, or no rated game for two weeks)."""

    player_id: str
    rating: int
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    left: int = 0
    peak: int
    provisional: bool
    last_game_at_ms: int | None = None
    rank: int | None = None


class RatingsReply(msgspec.Struct, frozen=True):
    ratings: list[PlayerRating]  # in the order asked


class LeaderboardRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A page of the board, or (with ``around``) the page centred on a player's place.

    ``provisional`` also lists players still in their first rated games."""

    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 50
    offset: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 0
    around: PlayerId | None = None
    provisional: bool = False


class LeaderboardRow(msgspec.Struct, frozen=True, kw_only=True):
    rank: int
    player_id: str
    rating: int
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool


class LeaderboardReply(msgspec.Struct, frozen=True, kw_only=True):
    rows: list[LeaderboardRow]
    offset: int  # the rank of the first row, minus one


class PlayerRequest(msgspec.Struct, frozen=True):
    player_id: PlayerId


class HistoryRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rated games, newest first; ``before`` is the previous page's ``next``."""

    player_id: PlayerId
    before: Annotated[int, msgspec.Meta(ge=1)] | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20
    # Only these games (a page of the lobby's list of a player's games); None: all.
    games: Annotated[list[str], msgspec.Meta(max_length=100)] | None = None


class RatedGame(msgspec.Struct, frozen=True, kw_only=True):
    """How one rated game moved one player's rating."""

    id: int
    game_id: str
    rated_at_ms: int
    rating_before: int
    rating_after: int
    delta: int
    k: int
    result: Result


class HistoryEntry(RatedGame, frozen=True, kw_only=True):
    partner: str
    opponents: list[str]


class HistoryReply(msgspec.Struct, frozen=True, kw_only=True):
    entries: list[HistoryEntry]
    next: int | None = None  # ``before`` of the next page; None on the last
