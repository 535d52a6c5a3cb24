"""What a rating system is to the rest of the service: one protocol, so the consumer, the
store and the API compute through it without knowing the formula.

Elo (``elo.py``) is the one implementation; a Glicko-2 or TrueSkill would be a file beside
it and a line where the service builds its system (``service.py``). A system rates one
partnership game at a time, from each seat's rating and its count of rated games, and
says how much each seat moved and with what weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from schemas.seats import team_of

Result = Literal["win", "loss", "draw", "left"]
Ratings4 = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Change:
    """One seat's move: the game's weight for it (Elo's K, stored as ``k`` in the
    history), what it scored, and by how much its rating changed."""

    k: int
    result: Result
    delta: int


class RatingSystem(Protocol):
    """A rating formula for partnership games: seats 0 and 2 are team 0, 1 and 3 team 1."""

    @property
    def initial(self) -> int:
        """The rating of a player before its first rated game."""
        ...

    @property
    def provisional_games(self) -> int:
        """Rated games a player stays provisional for (the leaderboard hides it until then)."""
        ...

    def provisional(self, games: int) -> bool:
        """Whether a player with ``games`` rated games is still provisional."""
        ...

    def expected(self, team: float, opponents: float) -> float:
        """The chance a team of strength ``team`` beats one of ``opponents``."""
        ...

    def rate(self, ratings: Ratings4, games: Ratings4, winner: int | None,
             abandoned: tuple[int, ...]) -> list[Change]:
        """The change of seats 0..3, given each seat's rating and rated games before
        this game, the winning team (None: a draw) and the seats that left."""
        ...


def result_of(seat: int, winner: int | None, abandoned: tuple[int, ...]) -> Result:
    """What a seat scored: a leaver lost whatever the table's result."""
    if seat in abandoned:
        return "left"
    if winner is None:
        return "draw"
    return "win" if winner == team_of(seat) else "loss"
