"""Which seats make a team, in one place: partners sit across the table.

Seats 0 and 2 are team 0, seats 1 and 3 team 1. A table's seats, a ranked match's
teams, a tournament pairing's home and away sides and a rated game's partners and
opponents all follow from these few functions, so no module counts seats itself.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

TEAM_SEATS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))


def team_of(seat: int) -> int:
    """The team (0 or 1) of a seat."""
    return seat % 2


def partner_of(seat: int) -> int:
    """The seat across the table: the partner's."""
    return (seat + 2) % 4


def opponents_of(seat: int) -> tuple[int, int]:
    """The seats either side: the other team's, the next to play first."""
    return (seat + 1) % 4, (seat + 3) % 4


def seated(team0: tuple[T, T], team1: tuple[T, T]) -> tuple[T, T, T, T]:
    """Two teams' members by seat: team 0 at seats 0 and 2, team 1 at 1 and 3."""
    return team0[0], team1[0], team0[1], team1[1]


def teams_of(seats: tuple[T, T, T, T] | list[T]) -> tuple[tuple[T, T], tuple[T, T]]:
    """The two teams of four seats: the inverse of ``seated``."""
    return (seats[0], seats[2]), (seats[1], seats[3])
