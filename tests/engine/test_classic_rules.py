"""The classic rules text (001) and its worked example, under the ``classic`` preset."""

from __future__ import annotations

from engine.records import judge
from engine.scoring import score_team
from schemas import commands as cmd
from schemas.views import HandSheet

from .helpers import (
    CLASSIC,
    bid,
    cards,
    deal,
    fill,
    find_deal,
    hand_record,
    legal,
    play,
    play_out,
    refusal,
    step,
    turn,
)

NO = (False, False)


def _team_takes_7():
    return find_deal(CLASSIC, lambda t: t[0] + t[2] == 7 and t[0] >= 1 and t[2] >= 1)


def test_classic_bid_5_take_7_scores_52_and_2_bags() -> None:
    """"A team bids 3 + 2 = 5 and takes 7: score 52 and 2 bags"."""
    hands, _ = _team_takes_7()
    got = judge(hand_record("classic", 3, hands, [3, 4, 2, 4]))
    assert got["ok"], got
    assert got["score_delta"][0] == 52 and got["bags_after"][0] == 2


def test_classic_9_old_bags_plus_2_pays_100_and_keeps_1() -> None:
    """"With 9 old bags it now has 11: subtract 100 and retain 1 bag" - the format's
    example: score_delta -48, bags_after 1."""
    hands, _ = _team_takes_7()
    rec = hand_record("classic", 3, hands, [3, 4, 2, 4],
                      prior={"scores": [100, 100], "bags": [9, 0]})
    got = judge(rec)
    assert got["ok"], got
    assert got["score_delta"][0] == -48 and got["bags_after"][0] == 1
    assert got["scores_after"][0] == 52
    t = score_team(CLASSIC, (3, 2), NO, (4, 3), 100, 9)
    assert (t.delta, t.bags_after, t.bag_penalty) == (-48, 1, 100)


def test_classic_two_of_spades_beats_ace_of_hearts_only_when_void() -> None:
    """"In the pictured trick 2♠ beats A♥ only if its player genuinely lacked
    hearts"."""
    hands = (cards("AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
             cards("2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),
             cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AD"),
             cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS AC"))
    s = play(bid(deal(CLASSIC, hands, dealer=3), [3, 3, 3, 3]), "AH")
    s = play(s, "2S", "2H", "AC")
    assert s.trick_winners == (1,)
    with_heart = (hands[0], cards("2S 3H 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),
                  cards("2H 2C 4H 5H 6H 7H 8H 9H TH JH QH KH AD"), hands[3])
    s = play(bid(deal(CLASSIC, with_heart, dealer=3), [3, 3, 3, 3]), "AH")
    assert refusal(s, cmd.PlayCard(seat=1, card="2S")) == "must_follow_suit"


def test_classic_bids_once_in_turn_from_the_dealers_left_0_to_13() -> None:
    """"Starting left of dealer, everyone declares once from 0-13 expected tricks,
    without passing or changing the bid"."""
    s = deal(CLASSIC, fill(CLASSIC), dealer=1)
    assert s.waiting == 1 << 2
    assert refusal(s, cmd.PlaceBid(seat=3, bid=2)) == "not_your_turn"
    assert refusal(s, cmd.PlaceBid(seat=2, bid=14)) == "bid_out_of_range"
    order = []
    for b in (0, 13, 13, 13):
        order.append(turn(s))
        s = step(s, cmd.PlaceBid(seat=turn(s), bid=b))[0]
    assert order == [2, 3, 0, 1]
    assert s.bids == (13, 13, 0, 13)
    assert refusal(s, cmd.PlaceBid(seat=2, bid=3)) in ("already_bid", "wrong_phase")


def test_classic_positive_bids_add_with_no_board() -> None:
    """"Add partners' positive bids for their team target" - no minimum contract."""
    t = score_team(CLASSIC, (1, 1), NO, (1, 1), 0, 0)
    assert t.contract == 2 and t.delta == 20


def test_classic_set_scores_minus_ten_per_book_with_no_trick_credit() -> None:
    """"failure scores -10 x bid, with no trick credit"."""
    t = score_team(CLASSIC, (4, 4), NO, (3, 4), 0, 5)
    assert (t.delta, t.bags_after) == (-80, 5)


def test_classic_failed_nil_tricks_are_bags_without_points() -> None:
    """"Failed nil tricks do not help partner's target but each counts as a bag; we
    give no extra trick points for them"."""
    t = score_team(CLASSIC, (0, 4), NO, (2, 4), 0, 0)
    assert t.made and t.counted == 4
    assert (t.delta, t.bags_gained) == (40 - 100, 2)


def test_classic_double_nil_scored_separately() -> None:
    """"If both bid nil, score each separately"."""
    t = score_team(CLASSIC, (0, 0), NO, (0, 2), 0, 0)
    assert t.contract == 0 and t.nil_points == 0 and t.delta == 0 and t.bags_gained == 2


def test_classic_leader_leads_a_nonspade_unless_holding_only_spades() -> None:
    """"Dealer's left leads a nonspade, unless holding only spades"."""
    s = bid(deal(CLASSIC, fill(CLASSIC, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H"), dealer=3),
            [3, 3, 3, 3])
    assert legal(s) == {"2H"}
    s = bid(deal(CLASSIC, fill(CLASSIC, "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"), dealer=3),
            [3, 3, 3, 3])
    assert len(legal(s)) == 13


def test_classic_no_obligation_to_trump_or_overtake() -> None:
    """"otherwise play anything, without an obligation to trump or overtake"."""
    hands = (cards("AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
             cards("2S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),
             cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AD"),
             cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS AC"))
    s = play(bid(deal(CLASSIC, hands, dealer=3), [3, 3, 3, 3]), "AH")
    assert legal(s) == set(hands[1])
    s = play(s, "2S", "2H")
    assert "AC" in legal(s) and "3S" in legal(s)


def test_classic_tracks_nil_bidders_personal_tricks() -> None:
    """"track a nil bidder's personal tricks as well as partnership tricks"."""
    hands, t = find_deal(CLASSIC, lambda t: t[0] == 1)
    s, _ = play_out(bid(deal(CLASSIC, hands, dealer=3), [0, 3, 4, 3]))
    scored = s.sheet[-1]
    assert isinstance(scored, HandSheet)
    assert scored.tricks == t and scored.teams[0].failed_nil_tricks == 1
    assert scored.teams[0].counted == t[2]
