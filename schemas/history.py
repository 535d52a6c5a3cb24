"""A player's own games, as ``GET /v1/players/{id}/games`` answers them.

Every finished game a player sat in, newest first: who sat where, the rules, each
hand's bids and tricks (the score sheet), the result from the player's side, and,
where it applies, how it moved the player's rating and which tournament round it
was. A client builds a "your games" page from this alone.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from schemas.matches import Origin
from schemas.rules import Rules
from schemas.views import HandSheet


class Person(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's holder: a player id and name, or a bot (``bot:<level>``, "Expert bot")."""

    player_id: str
    name: str


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    before: int
    after: int
    delta: int


class TournamentRound(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    name: str  # empty when the tournament service did not answer
    round_no: int  # 0 when the tournament service did not answer
    round_name: str = ""  # as the format calls it: "Semi-finals", "Final", "Round 3"
    home: str = ""  # the teams' names (home at seats 0 and 2)
    away: str = ""


class PlayedGame(msgspec.Struct, frozen=True, kw_only=True):
    """One finished game from the asking player's seat. ``scores`` and each hand's
    ``teams`` are by team (team 0 sits at seats 0 and 2); ``team`` is the player's."""

    game_id: str
    table_id: str
    origin: Origin  # a table, the ranked queue or a tournament
    started_at: int  # ms since the epoch
    ended_at: int
    rules: Rules
    players: list[Person]  # by seat
    seat: int
    team: int
    partner: Person
    opponents: list[Person]
    result: Literal["win", "loss", "draw", "left"]  # left: a bot finished the seat
    reason: str  # how the game ended: target, floor, hands, boston, forfeit
    scores: tuple[int, int]
    hands: list[HandSheet]
    rated: bool
    rating: RatingChange | None = None  # a rated game, once the ratings service has it
    tournament: TournamentRound | None = None


class PlayerGames(msgspec.Struct, frozen=True, kw_only=True):
    games: list[PlayedGame]
    next: int | None = None  # ``before`` of the next page; None on the last
    # False when the ratings service did not answer: rated games show no ``rating``.
    ratings_complete: bool = True


__all__ = ["Person", "PlayedGame", "PlayerGames", "RatingChange", "TournamentRound"]
