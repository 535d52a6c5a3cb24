"""The house rules text (000): bids, board, nil, blind nil, double nil and scoring.

Scoring rules are checked with ``score_team`` on the numbers the text uses, and
the worked example once more end to end through a played hand.
"""

from __future__ import annotations

import pytest

from engine.cards import card_id
from engine.presets import RulesError
from engine.records import judge
from engine.scoring import contract_of, score_hand, score_team
from engine.state import BIDDING, PLAY
from schemas import commands as cmd
from schemas import events as ev

from .helpers import (
    HOUSE,
    bid,
    deal,
    fill,
    find_deal,
    hand_record,
    play_out,
    refusal,
    rules,
    start,
    step,
)

NO = (False, False)


def team(r, bids, tricks, blind=NO, score=0, bags=0):
    return score_team(r, bids, blind, tricks, score, bags)


def test_team_contract_is_the_sum_of_partners_bids() -> None:
    """"If you bid 4 and your partner bids 3, your team needs 7 books between you. It
    does not matter which of you takes them"."""
    assert contract_of(HOUSE, 4, 3) == 7
    assert team(HOUSE, (4, 3), (7, 0)).made
    assert team(HOUSE, (4, 3), (0, 7)).delta == team(HOUSE, (4, 3), (3, 4)).delta == 70


def test_board_raises_contract_to_four() -> None:
    """"a team contract of less than 4 is raised to 4 automatically. If you bid 1 and
    your partner bids 2, your team plays for 4"."""
    t = team(HOUSE, (1, 2), (2, 1))
    assert t.contract == 4 and not t.made and t.delta == -40
    assert team(HOUSE, (1, 2), (2, 2)).delta == 40


def test_board_not_applied_when_both_partners_bid_nil() -> None:
    """"Board does not apply when both partners bid nil"."""
    t = team(HOUSE, (0, 0), (0, 0))
    assert t.contract == 0 and t.made and t.contract_points == 0
    assert t.delta == 200


def test_board_applies_to_partner_alone_when_one_partner_bids_nil() -> None:
    """"if you bid nil and your partner bids 2, your partner is playing for 4 books
    alone"."""
    t = team(HOUSE, (0, 2), (0, 3))
    assert t.contract == 4 and not t.made
    assert t.delta == -40 + 100
    assert team(HOUSE, (0, 2), (0, 4)).delta == 40 + 100


def test_bid_out_of_range_is_refused() -> None:
    """"A bid can be any number from 1 to 13, or nil"."""
    s = deal(HOUSE, fill(HOUSE))
    for bad in (-1, 14):
        assert refusal(s, cmd.PlaceBid(seat=0, bid=bad)) == "bid_out_of_range"
    for good in (0, 1, 13):
        assert step(s, cmd.PlaceBid(seat=0, bid=good))[0].bids[0] == good


def test_rules_without_nil_refuse_a_zero_bid() -> None:
    """A profile without nil takes bids of 1 to 13 only."""
    s = deal(rules("house", nil=False, blind_nil=False), fill(HOUSE))
    assert refusal(s, cmd.PlaceBid(seat=0, bid=0)) == "nil_not_allowed"


def test_simultaneous_bids_in_any_order_flip_over_together() -> None:
    """"all four players bid at the same time ... and the bids flip over together once
    all four are in"."""
    s = deal(HOUSE, fill(HOUSE), dealer=0)
    assert s.waiting == 0b1111
    for seat, b in ((3, 2), (0, 4), (2, 1)):
        s, events = step(s, cmd.PlaceBid(seat=seat, bid=b))
        assert not s.revealed and not any(isinstance(e, ev.BidsRevealed) for e in events)
    s, events = step(s, cmd.PlaceBid(seat=1, bid=3))
    revealed = [e for e in events if isinstance(e, ev.BidsRevealed)]
    assert revealed and revealed[0].bids == (4, 3, 1, 2)
    assert s.phase == PLAY and s.waiting == 1 << 1


def test_a_seat_bids_once() -> None:
    """"the bidding goes around the table once"; a second bid is refused."""
    s = step(deal(HOUSE, fill(HOUSE)), cmd.PlaceBid(seat=2, bid=3))[0]
    assert refusal(s, cmd.PlaceBid(seat=2, bid=4)) == "already_bid"


def test_house_worked_example_bid_7_take_8_scores_71_and_1_bag() -> None:
    """"Your team takes 8 books: 70 + 1 = 71, and 1 bag"."""
    t = team(HOUSE, (4, 3), (5, 3))
    assert (t.contract, t.delta, t.bags_gained, t.bags_after) == (7, 71, 1, 1)


def test_house_nil_partner_contract_worked_example_scores_minus_59() -> None:
    """"Their nil player takes 1 book. Their other player takes 4. The contract of 4 is
    made: +40. The nil fails: -100. The nil player's book becomes a bag: +1. Total -59,
    and 1 bag"."""
    t = team(HOUSE, (0, 4), (1, 4))
    assert t.contract == 4 and t.made and t.contract_points == 40
    assert t.nil_points == -100 and t.failed_nil_points == 1
    assert (t.delta, t.bags_after) == (-59, 1)


def test_house_worked_example_through_a_played_hand() -> None:
    """The whole scored hand of the text, replayed as a game record: bids 4 + 3
    against nil + 4, tricks 8 / 1 + 4, giving +71 and -59, one bag each."""
    hands, tricks = find_deal(HOUSE, lambda t: t[0] + t[2] == 8 and t[1] == 1 and t[3] == 4)
    got = judge(hand_record("house", 3, hands, [4, 0, 3, 4]))
    assert got["ok"], got
    assert got["tricks_taken"] == list(tricks)
    assert got["score_delta"] == [71, -59] and got["bags_after"] == [1, 1]


def test_nil_made_scores_plus_100_and_failed_minus_100() -> None:
    """"Make it and your team scores +100. Take even one book and it's -100"."""
    assert team(HOUSE, (0, 5), (0, 5)).nil_points == 100
    assert team(HOUSE, (0, 5), (1, 5)).nil_points == -100
    assert team(HOUSE, (0, 5), (3, 5)).nil_points == -100


def test_failed_nil_tricks_do_not_count_toward_partner_contract() -> None:
    """"When a nil fails, the tricks the nil player took do not count toward the
    partner's contract. At our table they count as bags"."""
    t = team(HOUSE, (0, 5), (2, 4))
    assert t.contract == 5 and t.counted == 4 and not t.made
    assert t.delta == -50 - 100 + 2 and t.bags_gained == 2


@pytest.mark.parametrize("mode,counted,delta,bags", [
    ("bags_scored", 4, 40 - 100 + 2, 2),  # house: "they count as bags", a point each
    ("bags_unscored", 4, 40 - 100, 2),  # classic: "counts as a bag; no extra trick points"
    ("nothing", 4, 40 - 100, 0),  # club: "do not help ... and are not counted"
    ("help_partner", 6, 40 + 2 - 100, 2),  # "Some tables let them help the partner's bid"
])
def test_failed_nil_modes(mode: str, counted: int, delta: int, bags: int) -> None:
    """Nil + 4, the nil seat takes 2 books and its partner 4, under each failed-nil
    accounting the texts describe; helping the partner turns the 2 into overtricks."""
    t = team(rules("house", failed_nil=mode), (0, 4), (2, 4))
    assert t.contract == 4 and t.made and t.nil_points == -100
    assert (t.counted, t.delta, t.bags_gained) == (counted, delta, bags)


def test_failed_nil_helping_partner_can_make_the_contract() -> None:
    """With "Failed nil helps the partner", the nil seat's book turns a set into a
    made contract."""
    t = team(rules("house", failed_nil="help_partner"), (0, 5), (1, 4))
    assert t.made and t.delta == 50 - 100 and t.bags_gained == 0
    assert not team(HOUSE, (0, 5), (1, 4)).made


def test_blind_nil_scores_double() -> None:
    """"It pays double: +200 made, -200 broken"."""
    assert team(HOUSE, (0, 4), (0, 4), blind=(True, False)).nil_points == 200
    assert team(HOUSE, (0, 4), (1, 4), blind=(True, False)).nil_points == -200


def test_double_nil() -> None:
    """"If both partners bid nil, the team has no contract at all. Each nil is scored on
    its own (+100 or -100 each), board does not apply, and any trick the pair takes is
    a bag"."""
    t = team(HOUSE, (0, 0), (0, 3))
    assert t.contract == 0 and t.contract_points == 0
    assert t.nil_points == 100 - 100
    assert t.bags_gained == 3
    t = team(HOUSE, (0, 0), (2, 1))
    assert t.nil_points == -200 and t.bags_gained == 3


def test_blind_nil_only_when_trailing_by_100() -> None:
    """"at Spades Night it is only offered when your team is behind by 100 points or
    more"."""
    s = deal(HOUSE, fill(HOUSE), scores=(0, 100))
    assert step(s, cmd.BidBlindNil(seat=0))[0].blind == 1
    assert step(s, cmd.BidBlindNil(seat=2))[0].blind == 4
    assert refusal(s, cmd.BidBlindNil(seat=1)) == "blind_nil_not_offered"
    s = deal(HOUSE, fill(HOUSE), scores=(0, 99))
    assert refusal(s, cmd.BidBlindNil(seat=0)) == "blind_nil_not_offered"


def test_blind_nil_offered_always_even_when_ahead() -> None:
    """The beginner's guide: "Most houses reserve it for a team trailing badly", so some
    do not: with ``blind_nil_margin: null`` every seat that has not looked is offered
    blind nil whatever the score, the team far ahead included."""
    always = rules("house", blind_nil_margin=None)
    s = deal(always, fill(always), scores=(450, -100))
    assert s.looked == 0  # every seat is offered it, so none has seen its cards
    assert step(s, cmd.BidBlindNil(seat=0))[0].blind == 1  # 550 ahead
    assert step(s, cmd.BidBlindNil(seat=1))[0].blind == 2
    s, _ = step(s, cmd.LookAtCards(seat=2))
    assert refusal(s, cmd.BidBlindNil(seat=2)) == "blind_nil_not_offered"  # it looked
    margin_0 = rules("house", blind_nil_margin=0)
    s = deal(margin_0, fill(margin_0), scores=(10, 0))
    assert refusal(s, cmd.BidBlindNil(seat=0)) == "blind_nil_not_offered"


def test_blind_nil_margin_is_zero_or_more_or_null() -> None:
    """A negative margin is a contradiction; ``null`` is the way to say "always"."""
    with pytest.raises(RulesError, match="blind_nil_margin must be between 0 and"):
        rules("house", blind_nil_margin=-1)


def test_blind_nil_gone_after_looking() -> None:
    """"The offer appears at the deal while your cards are still face down. Look at
    them and it's gone"."""
    s = deal(HOUSE, fill(HOUSE), scores=(300, 100))
    s, events = step(s, cmd.LookAtCards(seat=1))
    assert events == [ev.CardsLooked(seat=1)]
    assert refusal(s, cmd.BidBlindNil(seat=1)) == "blind_nil_not_offered"
    assert step(s, cmd.BidBlindNil(seat=3))[0].bids[3] == 0


def test_blind_nil_is_not_in_rules_without_it() -> None:
    """Classic has no blind nil: "blind nil, card exchanges and elevated twos are not"
    included."""
    s = deal(rules("classic"), fill(rules("classic")), scores=(0, 400))
    assert refusal(s, cmd.BidBlindNil(seat=0)) == "blind_nil_not_offered"


def test_blind_nil_bid_is_scored_double_in_a_played_hand() -> None:
    """A blind nil bid through the engine is marked blind and scored at 200."""
    hands, _ = find_deal(HOUSE, lambda t: t[0] == 0)
    s = deal(HOUSE, hands, scores=(0, 150))
    s = step(s, cmd.BidBlindNil(seat=0))[0]
    for seat, b in ((1, 3), (2, 4), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b))[0]
    s, _ = play_out(s)
    assert s.sheet[0].teams[0].nil_points == 200


def test_blind_nil_passing_exchange() -> None:
    """"Passing cards on blind nil. The blind nil bidder and partner swap one or two
    cards" - an option: each gives the other the chosen cards before the play."""
    r = rules("house", blind_nil_pass=2)
    hands = fill(r)
    s = deal(r, hands, dealer=3, scores=(0, 200))
    s = step(s, cmd.BidBlindNil(seat=0))[0]
    for seat, b in ((1, 3), (2, 4), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b))[0]
    assert s.phase == "passing" and s.waiting == 0b0101
    give0, give2 = hands[0][:2], hands[2][-2:]
    assert refusal(s, cmd.PassCards(seat=0, cards=give0[:1])) == "wrong_pass_count"
    assert refusal(s, cmd.PassCards(seat=1, cards=hands[1][:2])) == "not_your_turn"
    s = step(s, cmd.PassCards(seat=0, cards=give0))[0]
    assert refusal(s, cmd.PassCards(seat=0, cards=give0)) == "already_passed"
    s, events = step(s, cmd.PassCards(seat=2, cards=give2))
    assert any(isinstance(e, ev.CardsExchanged) for e in events)
    assert s.phase == PLAY
    for c in give0:
        assert s.hands[2] >> card_id(c) & 1
    for c in give2:
        assert s.hands[0] >> card_id(c) & 1
    assert [h.bit_count() for h in s.hands] == [13] * 4


def test_bid_5_take_7_scores_52_and_2_bags() -> None:
    """"Bid 5, take 7: 50 points for the contract plus 2 for the overtricks, 52 in
    total, and 2 bags"."""
    t = team(HOUSE, (3, 2), (4, 3))
    assert (t.contract_points, t.overtricks, t.delta, t.bags_gained) == (52, 2, 52, 2)


def test_set_bid_5_take_4_scores_minus_50_and_no_bags() -> None:
    """"Bid 5, take 4: minus 50. The four books you did take score nothing and add no
    bags"."""
    t = team(HOUSE, (3, 2), (2, 2))
    assert (t.made, t.delta, t.bags_gained) == (False, -50, 0)


def test_bags_penalty_carries_over_8_plus_4() -> None:
    """"a team sitting on 8 bags that picks up 4 more pays 100 and keeps 2"."""
    t = team(HOUSE, (3, 2), (5, 4), bags=8)
    assert t.bags_gained == 4 and t.bag_penalty == 100 and t.bags_after == 2
    assert t.delta == 54 - 100


def test_overtaking_by_two_every_hand_costs_100_every_five_hands() -> None:
    """"A team that overtakes by two books every hand is giving away 100 points every
    five hands"."""
    score, bags, penalties = 0, 0, []
    for _ in range(10):
        t = team(HOUSE, (3, 2), (4, 3), score=score, bags=bags)
        score, bags = t.score_after, t.bags_after
        penalties.append(t.bag_penalty)
    assert penalties == [0, 0, 0, 0, 100] * 2
    assert score == 10 * 52 - 200


def test_bag_penalty_can_be_switched_off() -> None:
    """The bag penalty is an option ("With the penalty enabled, collecting ten bags
    subtracts 100"): switched off, bags pile up and cost nothing."""
    t = team(rules("club", bag_penalty=0), (3, 2), (5, 4), bags=8)
    assert t.bag_penalty == 0 and t.bags_after == 12 and t.delta == 54


def test_boston_bonus_200_on_top_and_not_an_automatic_win() -> None:
    """"A Boston is one team taking all 13 books. At Spades Night it earns a +200 bonus
    on top of the normal score for the hand ... It is not an automatic win"."""
    t = team(HOUSE, (6, 4), (9, 4))
    assert t.boston and t.boston_points == 200 and t.delta == 100 + 3 + 200
    hands = fill(HOUSE, "BJ LJ 2D 2S AS KS QS JS TS 9S 8S 7S 6S")
    s, _ = play_out(bid(deal(HOUSE, hands, dealer=3), [6, 1, 4, 1]))
    assert s.tricks[0] == 13 and s.sheet[0].teams[0].boston
    assert s.phase != "over" and s.scores[0] == 303


def test_boston_bonus_whenever_a_team_takes_all_13_even_unbid() -> None:
    """"We score the bonus whenever a team takes all 13" - no bid of 13 needed."""
    assert team(HOUSE, (2, 2), (13, 0)).boston


def test_bid_boston_variant_needs_a_bid_of_13() -> None:
    """"Bid Boston / bid 13. Some tables require a team to bid 13 to earn anything
    special"."""
    r = rules("house", boston_needs_bid=True)
    assert not team(r, (6, 4), (9, 4)).boston
    t = team(r, (7, 6), (9, 4))
    assert t.boston and t.boston_points == 200


def test_boston_off_is_just_a_big_hand() -> None:
    """Classic has no Boston: thirteen tricks score as contract and overtricks."""
    t = team(rules("classic"), (6, 4), (9, 4))
    assert not t.boston and t.delta == 103


def test_10_for_200() -> None:
    """"a team contract of 10 or more, if made, scores 200 ... (and costs 200 if set).
    Overtricks still count as bags. It is off by default"."""
    r = rules("house", ten_for_200=True)
    assert not HOUSE.ten_for_200
    made = team(r, (6, 4), (6, 4))
    assert made.delta == 200
    assert team(r, (6, 4), (5, 4)).delta == -200
    over = team(r, (6, 4), (6, 5))
    assert over.bags_gained == 1 and over.made
    assert team(r, (5, 4), (5, 4)).delta == 90  # 9 is not a big contract


def test_hand_score_is_each_team_scored_separately() -> None:
    """"Each team is scored separately": score_hand gives the two teams' sheets."""
    a, b = score_hand(HOUSE, (4, 0, 3, 4), 0, (5, 1, 3, 4), (10, 20), (1, 2))
    assert (a.delta, a.score_after, a.bags_after) == (71, 81, 2)
    assert (b.delta, b.score_after, b.bags_after) == (-59, -39, 3)


def test_a_game_starts_in_bidding_once_dealt() -> None:
    """"Once everyone has looked at their cards, each player bids": the deal opens the
    bidding, and a game without a deal refuses bids."""
    s = start(HOUSE)
    assert refusal(s, cmd.PlaceBid(seat=0, bid=3)) == "wrong_phase"
    assert deal(HOUSE, fill(HOUSE)).phase == BIDDING
