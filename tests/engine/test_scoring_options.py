"""Scoring options where the rule texts disagree: each choice is an option."""

from engine.presets import PRESETS, resolve
from engine.scoring import score_team


def test_beginner_bag_count_starts_over_at_the_tenth_bag() -> None:
    """Beginner's guide: "When a team collects its tenth bag, the penalty lands: 100
    points off, and the bag count starts over." Bid 5, take 8 on 8 old bags."""
    t = score_team(PRESETS["beginner"], (3, 2), (False, False), (4, 4), 0, 8)
    assert (t.bags_gained, t.bag_penalty, t.bags_after, t.delta) == (3, 100, 0, 53 - 100)


def test_house_bags_past_ten_carry_over() -> None:
    """House: "a team sitting on 8 bags that picks up 4 more pays 100 and keeps 2"."""
    t = score_team(PRESETS["house"], (3, 2), (False, False), (5, 4), 0, 8)
    assert (t.bags_gained, t.bag_penalty, t.bags_after) == (4, 100, 2)


def test_ten_for_200_is_a_flat_200_and_overtricks_are_still_bags() -> None:
    """ "a team contract of 10 or more, if made, scores 200 instead of 100-something
    ... Overtricks still count as bags." Bid 10, take 12."""
    r = resolve({"preset": "house", "ten_for_200": True})
    t = score_team(r, (6, 4), (False, False), (7, 5), 0, 0)
    assert (t.contract_points, t.overtricks, t.bags_gained, t.delta) == (200, 2, 2, 200)
    assert score_team(r, (6, 4), (False, False), (5, 4), 0, 0).delta == -200


def test_bag_penalty_off_still_counts_bags() -> None:
    r = resolve({"preset": "club", "bag_penalty": 0})
    t = score_team(r, (3, 2), (False, False), (5, 4), 0, 8)
    assert (t.bag_penalty, t.bags_after, t.delta) == (0, 12, 54)
