from __future__ import annotations

from services.ratings import elo


def test_equal_teams_move_half_of_k() -> None:
    assert elo.update((1500, 1500, 1500, 1500), winner=0, k=32) == (1516, 1484, 1516, 1484)


def test_a_draw_between_equal_teams_moves_nothing() -> None:
    assert elo.update((1500, 1500, 1500, 1500), winner=None, k=32) == (1500,) * 4


def test_partners_move_by_the_same_amount() -> None:
    before = (1700, 1500, 1300, 1500)
    after = elo.update(before, winner=1, k=32)
    assert after[0] - before[0] == after[2] - before[2]
    assert after[1] - before[1] == after[3] - before[3]


def test_an_upset_moves_more_than_an_expected_win() -> None:
    favourite_wins = elo.update((1800, 1400, 1800, 1400), winner=0, k=32)
    upset = elo.update((1800, 1400, 1800, 1400), winner=1, k=32)
    assert upset[1] - 1400 > favourite_wins[0] - 1800 > 0
