"""Team Elo for partnership games: each partner moves by the team's result.

A team's strength is its partners' mean rating (WoCG's team calculator): the
partner's strength is in the prediction, so a strong player is not punished
twice for a weak partner, and partners who finish alike move alike. Each
player's own K applies: 40 while provisional (the first 20 rated games), then 20
(FIDE). A rating gap above 400 counts as 400 (FIDE), so beating a far weaker
team still earns a point or two. A player who abandoned the game scores 0
whatever happened (a quit is a loss); partner and opponents get the real result.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas.seats import team_of
from services.ratings.system import Change, Ratings4, result_of

MAX_GAP = 400


@dataclass(frozen=True, slots=True)
class KSchedule:
    provisional: int = 40
    established: int = 20
    provisional_games: int = 20  # rated games played before the established K applies

    def k(self, games: int) -> int:
        return self.provisional if games < self.provisional_games else self.established


def expected(team: float, opponents: float) -> float:
    """The chance ``team`` wins, by the Elo curve, with the gap capped at 400."""
    gap = max(-MAX_GAP, min(MAX_GAP, opponents - team))
    return 1.0 / (1.0 + 10 ** (gap / 400.0))


def rate(ratings: Ratings4, games: Ratings4, winner: int | None, abandoned: tuple[int, ...],
         schedule: KSchedule) -> list[Change]:
    """The change of seats 0..3 (seats 0 and 2 are team 0, seats 1 and 3 team 1), given
    each seat's rating and rated games before this one.

    Team 1's surprise is team 0's negated, not recomputed, and rounding is half to
    even: with equal K and no leaver the two teams' changes cancel exactly.
    """
    e0 = expected((ratings[0] + ratings[2]) / 2, (ratings[1] + ratings[3]) / 2)
    real0 = 0.5 if winner is None else 1.0 - winner
    surprise0 = real0 - e0
    out = []
    for seat in range(4):
        k = schedule.k(games[seat])
        result = result_of(seat, winner, abandoned)
        if result == "left":
            surprise = -(e0 if team_of(seat) == 0 else 1.0 - e0)
        else:
            surprise = surprise0 if team_of(seat) == 0 else -surprise0
        out.append(Change(k=k, result=result, delta=round(k * surprise)))
    return out


@dataclass(frozen=True, slots=True)
class Elo:
    """Team Elo as the service's ``RatingSystem``."""

    initial: int = 1500
    schedule: KSchedule = KSchedule()

    @property
    def provisional_games(self) -> int:
        return self.schedule.provisional_games

    def provisional(self, games: int) -> bool:
        return games < self.schedule.provisional_games

    def expected(self, team: float, opponents: float) -> float:
        return expected(team, opponents)

    def rate(self, ratings: Ratings4, games: Ratings4, winner: int | None,
             abandoned: tuple[int, ...]) -> list[Change]:
        return rate(ratings, games, winner, abandoned, self.schedule)
