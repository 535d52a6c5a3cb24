"""Rating changes, row by row as computed by hand.

E = 1 / (1 + 10^((opponents' mean - team's mean) / 400)), gap capped at 400;
delta = round(K * (score - E)), K = 40 for a player's first 20 rated games, then 20.
"""

from __future__ import annotations

import pytest

from services.ratings.elo import KSchedule, rate
from services.ratings.system import Change

SCHEDULE = KSchedule(provisional=40, established=20, provisional_games=20)
NEW, SEASONED = (0, 0, 0, 0), (50, 50, 50, 50)


def deltas(ratings: tuple[int, int, int, int], games: tuple[int, int, int, int],
           winner: int | None, abandoned: tuple[int, ...] = ()) -> tuple[int, ...]:
    return tuple(c.delta for c in rate(ratings, games, winner, abandoned, SCHEDULE))


@pytest.mark.parametrize(("ratings", "games", "winner", "abandoned", "expected"), [
    # four 1500s, provisional: E = 0.5, 40 * 0.5 = 20
    ((1500, 1500, 1500, 1500), NEW, 0, (), (20, -20, 20, -20)),
    # four 1500s, established: 20 * 0.5 = 10
    ((1500, 1500, 1500, 1500), SEASONED, 1, (), (-10, 10, -10, 10)),
    # the 20th rated game is still provisional (19 before it), the 21st is not
    ((1500, 1500, 1500, 1500), (19, 20, 20, 19), 0, (), (20, -10, 10, -20)),
    # draw, 1600s v 1400s: E = 1 / (1 + 10^-0.5) = 0.7597; 20 * (0.5 - 0.7597) = -5.19
    ((1600, 1400, 1600, 1400), SEASONED, None, (), (-5, 5, -5, 5)),
    # 2000s v 1400s: the 600 gap counts as 400, E = 10/11 = 0.9091;
    # the favourites win 20 * 0.0909 = 1.82 -> 2, or lose 20 * 0.9091 = 18.18 -> 18
    ((2000, 1400, 2000, 1400), SEASONED, 0, (), (2, -2, 2, -2)),
    ((2000, 1400, 2000, 1400), SEASONED, 1, (), (-18, 18, -18, 18)),
    # a leaver on the winning team scores 0: 40 * (0 - 0.5); the partner still wins
    ((1500, 1500, 1500, 1500), NEW, 0, (0,), (-20, -20, 20, -20)),
    # a leaver whose team lost anyway loses what a loss costs, no more
    ((1500, 1500, 1500, 1500), NEW, 0, (3,), (20, -20, 20, -20)),
    # team means: 1700/1300 v 1500/1500 is an even game, partners move alike
    ((1700, 1500, 1300, 1500), SEASONED, 0, (), (10, -10, 10, -10)),
])
def test_rating_rows(ratings: tuple[int, int, int, int], games: tuple[int, int, int, int],
                     winner: int | None, abandoned: tuple[int, ...],
                     expected: tuple[int, ...]) -> None:
    assert deltas(ratings, games, winner, abandoned) == expected


def test_each_seat_says_its_k_and_result() -> None:
    changes = rate((1500,) * 4, (0, 25, 3, 40), 1, (2,), SCHEDULE)
    assert changes == [Change(40, "loss", -20), Change(20, "win", 10),
                       Change(40, "left", -20), Change(20, "win", 10)]


def test_a_draw_is_half_a_point() -> None:
    assert [c.result for c in rate((1500,) * 4, NEW, None, (), SCHEDULE)] == ["draw"] * 4
    assert deltas((1500,) * 4, NEW, None) == (0, 0, 0, 0)


@pytest.mark.parametrize("gap", range(0, 900, 7))
@pytest.mark.parametrize("winner", [0, 1, None])
def test_with_equal_k_and_no_leaver_the_changes_sum_to_zero(gap: int, winner: int | None) -> None:
    assert sum(deltas((1500 + gap, 1500, 1400 + gap, 1600), SEASONED, winner)) == 0


def test_an_upset_moves_more_than_an_expected_win() -> None:
    favourite_wins = deltas((1800, 1400, 1800, 1400), SEASONED, 0)
    upset = deltas((1800, 1400, 1800, 1400), SEASONED, 1)
    assert upset[1] > favourite_wins[0] > 0
