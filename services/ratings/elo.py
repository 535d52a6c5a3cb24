"""Team Elo for partnership games: each partner moves by the team's result.

A team's strength is its partners' mean rating; both partners of a team gain
or lose the same amount, so a strong player is not punished twice for a weak
partner.
"""

from __future__ import annotations


def expected(team: float, opponents: float) -> float:
    return 1.0 / (1.0 + 10 ** ((opponents - team) / 400.0))


def update(ratings: tuple[int, int, int, int], winner: int | None,
           k: int) -> tuple[int, int, int, int]:
    """New ratings of seats 0..3; seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    teams = ((ratings[0] + ratings[2]) / 2, (ratings[1] + ratings[3]) / 2)
    out = []
    for seat, rating in enumerate(ratings):
        team = seat % 2
        score = 0.5 if winner is None else (1.0 if winner == team else 0.0)
        out.append(round(rating + k * (score - expected(teams[team], teams[1 - team]))))
    return (out[0], out[1], out[2], out[3])
