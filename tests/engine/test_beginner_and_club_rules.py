"""The beginner's guide (003) and the club rules (004), under their presets."""

from __future__ import annotations

from engine.scoring import score_team
from schemas import commands as cmd

from .helpers import (
    BEGINNER,
    CLUB,
    bid,
    cards,
    deal,
    fill,
    play,
    play_out,
    refusal,
    rules,
    step,
)

NO = (False, False)


def test_beginner_bid_7_take_7_scores_70_and_a_set_loses_70() -> None:
    """"Bid seven, take seven, score seventy. Fall short and you are set: the same
    seventy comes off your score instead"."""
    assert score_team(BEGINNER, (3, 4), NO, (4, 3), 0, 0).delta == 70
    assert score_team(BEGINNER, (3, 4), NO, (4, 2), 0, 0).delta == -70


def test_beginner_overtrick_is_one_point_and_a_bag() -> None:
    """"Every trick you win beyond your bid scores just one point and is called a
    bag"."""
    t = score_team(BEGINNER, (3, 4), NO, (5, 3), 0, 0)
    assert (t.delta, t.bags_gained) == (71, 1)


def test_beginner_tenth_bag_costs_100() -> None:
    """"When a team collects its tenth bag, the penalty lands: 100 points off"."""
    t = score_team(BEGINNER, (3, 4), NO, (5, 3), 0, 9)
    assert t.bag_penalty == 100 and t.delta == 71 - 100


def test_beginner_nil_is_100_made_or_failed() -> None:
    """"Succeed and your team collects a bonus, usually 100 points. Win even a single
    trick and the bonus becomes a penalty of the same size"."""
    assert score_team(BEGINNER, (0, 4), NO, (0, 4), 0, 0).nil_points == 100
    assert score_team(BEGINNER, (0, 4), NO, (1, 4), 0, 0).nil_points == -100


def test_beginner_bids_in_turn_from_the_dealers_left() -> None:
    """"Starting left of the dealer and moving clockwise, each player ... declares"."""
    s = deal(BEGINNER, fill(BEGINNER), dealer=2)
    assert s.waiting == 1 << 3
    assert refusal(s, cmd.PlaceBid(seat=0, bid=3)) == "not_your_turn"


def test_beginner_first_lead_is_not_a_spade() -> None:
    """"The player to the dealer's left leads the first trick with any card except a
    spade"."""
    hands = fill(BEGINNER, None, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H")
    s = bid(deal(BEGINNER, hands, dealer=0), [3, 3, 3, 3])
    assert refusal(s, cmd.PlayCard(seat=1, card="KS")) == "spades_not_broken"
    assert step(s, cmd.PlayCard(seat=1, card="2H"))[0].trick


def test_club_failed_nil_tricks_count_for_nothing() -> None:
    """Club: "the tricks of a player who bid nil do not help make their partner's
    positive bid and are not counted as its extra tricks"."""
    t = score_team(CLUB, (0, 4), NO, (3, 4), 0, 0)
    assert t.counted == 4 and t.made
    assert (t.delta, t.bags_gained) == (40 - 100, 0)
    assert not score_team(CLUB, (0, 5), NO, (3, 4), 0, 0).made


def test_club_bag_penalty_is_optional() -> None:
    """Club: "With the penalty enabled, collecting ten bags subtracts 100 points and
    the rest carry over" - and without it, bags only count."""
    on = score_team(CLUB, (3, 2), NO, (5, 4), 0, 8)
    assert (on.bag_penalty, on.bags_after, on.delta) == (100, 2, -46)
    off = score_team(rules("club", bag_penalty=0), (3, 2), NO, (5, 4), 0, 8)
    assert (off.bag_penalty, off.bags_after, off.delta) == (0, 12, 54)


def test_club_making_and_missing_the_bid() -> None:
    """Club: "Making the bid scores 10 points for each trick bid and 1 for each extra
    trick. Failing the bid subtracts 10 times the bid"."""
    assert score_team(CLUB, (3, 3), NO, (4, 4), 0, 0).delta == 62
    assert score_team(CLUB, (3, 3), NO, (2, 3), 0, 0).delta == -60


def test_club_bids_and_trick_count_reset_before_a_new_deal() -> None:
    """Club: "Before a new deal the bids and the trick count are reset"."""
    s, _ = play_out(bid(deal(CLUB, fill(CLUB), dealer=0), [3, 3, 3, 3]))
    s = step(s, cmd.DealHand(dealer=1, hands=fill(CLUB)))[0]
    assert s.bids == (-1, -1, -1, -1) and s.tricks == (0, 0, 0, 0)
    assert s.trick_winners == () and s.hand_no == 2


def test_club_two_of_spades_beats_an_ace_of_another_suit() -> None:
    """Club: "Spades are trumps: even the 2♠ beats an ace of another suit, here the
    A♥"."""
    hands = (cards("AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
             cards("2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),
             cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AD"),
             cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS AC"))
    s = play(bid(deal(CLUB, hands, dealer=3), [3, 3, 3, 3]), "AH", "2S", "2H", "AC")
    assert s.trick_winners == (1,)
