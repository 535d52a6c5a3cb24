"""Rules that only show across hands, checked on match records (``judge``, kind
``match``) and on games played hand after hand: the target, ties, the floor, a
Boston that wins outright, the quick match, the dealer passing left, bags carried
over and blind nil offered only to a trailing team."""

from __future__ import annotations

from itertools import pairwise

from engine.decide import step
from engine.records import judge
from schemas import commands as cmd
from schemas import events as ev

from .helpers import (
    BEGINNER,
    CLASSIC,
    CLUB,
    HOUSE,
    QUICK,
    bid,
    deal,
    fill,
    find_deal,
    play_out,
    refusal,
    rules,
)
from .matches import dealt, match
from .randomgame import play_game

ALL_SPADES = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
SET_BOTH = [13, 13, 13, 13]  # both teams bid 26: both are set, -260 each


def test_club_minus_200_floor_ends_match() -> None:
    """Club: "The match ends after a deal in which one pair reaches the target or falls
    to minus 200. The pair with the higher total wins"."""
    got = judge(match("club", (0, [1, 13, 1, 13])))
    assert got["ok"], got
    assert got["scores"][1] == -260 and got["over"] and got["winner"] == 0
    late = judge(match("club", (0, [1, 13, 1, 13]), (1, [3, 3, 3, 3])))
    assert not late["ok"] and late["error"]["code"] == "match_over"
    assert late["error"]["hand_index"] == 1


def test_club_floor_is_at_or_below_minus_200() -> None:
    """"falls to minus 200": exactly -200 is enough."""
    s = bid(deal(CLUB, fill(CLUB), scores=(0, -180)), [1, 13, 1, 1])
    s, _ = play_out(s)
    assert s.scores[1] <= -200 and s.phase == "over" and s.winner == 0
    hands, _ = find_deal(CLUB, lambda t: t[1] + t[3] < 3)
    s, _ = play_out(bid(deal(CLUB, hands, scores=(0, -170)), [1, 1, 1, 2]))
    assert s.scores[1] == -200 and s.phase == "over" and s.end_reason == "floor"


def test_club_draw_on_equal_scores() -> None:
    """Club: "equal scores give a draw" - here both pairs fall to -260 together."""
    got = judge(match("club", (2, SET_BOTH)))
    assert got["ok"] and got["over"] and got["winner"] == "draw"
    assert got["scores"] == [-260, -260]


def test_club_draw_at_the_target() -> None:
    """Both pairs reach the target with equal totals: a draw, not another deal."""
    hands, t = find_deal(CLUB, lambda t: t[0] + t[2] >= 3 and t[1] + t[3] >= 3)
    t0, t1 = t[0] + t[2], t[1] + t[3]
    s = deal(CLUB, hands, scores=(520 - 10 * t0, 520 - 10 * t1))
    s, _ = play_out(bid(s, [1, 1, t0 - 1, t1 - 1]))
    assert s.scores == (520, 520) and s.phase == "over" and s.winner is None


def test_exact_tie_at_the_target_keeps_playing() -> None:
    """House and classic: "If both teams cross it on the same hand, the higher score
    still wins; an exact tie means you keep playing" - "Continue tied totals until
    different"."""
    for r in (HOUSE, CLASSIC):
        hands, t = find_deal(r, lambda t: t[0] + t[2] >= 4 and t[1] + t[3] >= 4)
        t0, t1 = t[0] + t[2], t[1] + t[3]
        s = deal(r, hands, scores=(520 - 10 * t0, 520 - 10 * t1))
        s, _ = play_out(bid(s, [2, 2, t0 - 2, t1 - 2]))
        assert s.scores == (520, 520) and s.phase == "dealing" and s.winner is None
        s = step(s, cmd.DealHand(dealer=0, hands=fill(r)))[0]
        assert s.phase == "bidding"


def test_higher_score_wins_when_both_cross_the_target() -> None:
    """"If both teams cross it on the same hand, the higher score still wins" (house,
    classic "if both reach it, higher total wins", beginner "the higher total
    wins")."""
    for r in (HOUSE, CLASSIC, BEGINNER):
        hands, t = find_deal(r, lambda t: t[0] + t[2] >= 4 and t[1] + t[3] >= 4)
        t0, t1 = t[0] + t[2], t[1] + t[3]
        target = r.target
        assert target is not None
        s = deal(r, hands, scores=(target - 10 * t0 + 9, target - 10 * t1 + 10))
        s, _ = play_out(bid(s, [2, 2, t0 - 2, t1 - 2]))
        assert s.scores == (target + 9, target + 10) and s.phase == "over" and s.winner == 1


def test_shorter_games_play_to_300() -> None:
    """House: "Shorter games play to 300 ... Private tables can pick quick, 500 or
    300"."""
    r = rules("house", target=300)
    hands, t = find_deal(r, lambda t: t[0] + t[2] >= 4)
    t0 = t[0] + t[2]
    s = deal(r, hands, scores=(300 - 10 * t0, 0))
    s, _ = play_out(bid(s, [2, 1, t0 - 2, 1]))
    assert s.phase == "over" and s.winner == 0 and s.end_reason == "target"


def test_target_reached_ends_the_game_after_the_hand() -> None:
    """"After each hand, if either team has reached the target, the higher score
    wins" - the 500 of the house and classic rules, the 300 of the beginner's."""
    for r, target in ((HOUSE, 500), (CLASSIC, 500), (BEGINNER, 300)):
        hands, t = find_deal(r, lambda t: t[0] + t[2] >= 4)
        t0 = t[0] + t[2]
        s = deal(r, hands, scores=(target - 10 * t0, 0))
        s, _ = play_out(bid(s, [2, 1, t0 - 2, 1]))
        assert s.scores[0] == target and s.phase == "over" and s.winner == 0
        s = deal(r, hands, scores=(target - 10 * t0 - 1, 0))
        s, _ = play_out(bid(s, [2, 1, t0 - 2, 1]))
        assert s.scores[0] == target - 1 and s.phase == "dealing"


def test_house_has_no_minus_200_floor() -> None:
    """House: "Minus 200 loses. Not used; there is no floor"."""
    got = judge(match("house", (0, [1, 13, 1, 13]), (1, SET_BOTH)))
    assert got["ok"] and got["scores"][1] <= -500 and not got["over"]
    assert got["winner"] is None


def test_beginner_boston_wins_outright() -> None:
    """Beginner: "Some tables end the game on the spot if a team wins all thirteen
    tricks in one hand, a feat called a Boston, and this house honors it"."""
    hands = fill(BEGINNER, ALL_SPADES)
    got = judge({"id": "b", "kind": "match", "rules": "beginner",
                 "hands": [dealt("beginner", 3, hands, [10, 1, 1, 1])]})
    assert got["ok"], got
    assert got["hands"][0]["tricks_taken"][0] == 13
    assert got["over"] and got["winner"] == 0 and got["scores"][0] < 300


def test_house_boston_does_not_end_the_match() -> None:
    """House: a Boston "is not an automatic win. ... play goes on"."""
    hands = fill(HOUSE, "BJ LJ 2D 2S AS KS QS JS TS 9S 8S 7S 6S")
    got = judge({"id": "b", "kind": "match", "rules": "house",
                 "hands": [dealt("house", 3, hands, [6, 1, 4, 1])]})
    assert got["ok"] and not got["over"]
    assert got["hands"][0]["score_delta"][0] == 100 + 3 + 200


def test_quick_match_four_hands_then_sudden_death() -> None:
    """"four hands, one deal from each seat ... The higher total after hand four wins.
    If it's tied, a sudden-death fifth hand decides it"."""
    four_tied = [(d, SET_BOTH) for d in (0, 1, 2, 3)]
    got = judge(match("quick", *four_tied))
    assert got["ok"] and got["scores"] == [-1040, -1040] and not got["over"]
    got = judge(match("quick", *four_tied, (0, [1, 13, 1, 13])))
    assert got["ok"] and got["over"] and got["winner"] == 0
    late = judge(match("quick", *four_tied, (0, [1, 13, 1, 13]), (1, SET_BOTH)))
    assert late["error"]["code"] == "match_over" and late["error"]["hand_index"] == 5


def test_quick_match_higher_total_after_hand_four_wins() -> None:
    """The quick match is decided by the total after four hands, not by a target."""
    hands = [(d, [1, 13, 1, 13]) for d in (1, 2, 3, 0)]
    three = judge(match("quick", *hands[:3]))
    assert three["ok"] and not three["over"] and three["scores"][1] == -780
    four = judge(match("quick", *hands))
    assert four["over"] and four["winner"] == 0 and len(four["hands"]) == 4


def test_quick_match_every_seat_deals_exactly_once() -> None:
    """"In Spades Night's quick match of four hands, that means every seat deals
    exactly once"."""
    for seed in range(4):
        steps = play_game(seed, QUICK)
        dealers = [e.dealer for _, es in steps for e in es if isinstance(e, ev.HandDealt)]
        assert sorted(dealers[:4]) == [0, 1, 2, 3]


def test_dealer_passes_left() -> None:
    """"The deal passes to the left after every hand" - in a seeded game the engine
    deals to the next seat; a record dealt by the wrong seat is refused."""
    steps = play_game(11, CLASSIC, max_hands=6)
    dealers = [e.dealer for _, es in steps for e in es if isinstance(e, ev.HandDealt)]
    assert len(dealers) >= 6
    assert all(b == (a + 1) % 4 for a, b in pairwise(dealers))
    got = judge(match("classic", (2, [3, 3, 3, 3]), (0, [3, 3, 3, 3])))
    assert not got["ok"] and got["error"]["code"] == "wrong_dealer"
    assert got["error"]["hand_index"] == 1
    s, _ = play_out(bid(deal(CLASSIC, fill(CLASSIC), dealer=2), [3, 3, 3, 3]))
    assert refusal(s, cmd.DealHand(dealer=2, hands=fill(CLASSIC))) == "wrong_dealer"


def test_bags_carry_over_from_hand_to_hand() -> None:
    """"Bags pile up across hands. Every time your team's bag count reaches 10, you
    lose 100 points and the count drops by 10"."""
    got = judge(match("classic", *[(d % 4, [1, 1, 1, 1]) for d in range(6)], seed=4))
    assert got["ok"]
    bags = [0, 0]
    for h in got["hands"]:
        for t in (0, 1):
            gained = max(0, h["tricks_taken"][t] + h["tricks_taken"][t + 2] - 2)
            before = bags[t] + gained
            assert h["bags_after"][t] == before % 10
            assert h["score_delta"][t] == 20 + gained - 100 * (before // 10)
            bags[t] = before % 10


def test_blind_nil_offered_only_to_a_trailing_team_in_a_match() -> None:
    """"only offered when your team is behind by 100 points or more": refused at 0-0,
    accepted once the team trails by 100 after a hand."""
    early = judge(match("house", (0, [0, 3, 3, 3]), blind={0: [True, False, False, False]}))
    assert not early["ok"] and early["error"]["code"] == "blind_nil_not_offered"
    assert early["error"]["hand_index"] == 0 and early["error"]["play_index"] is None
    later = judge(match("house", (0, [13, 1, 13, 1]), (1, [0, 3, 3, 3]),
                        blind={1: [True, False, False, False]}))
    assert later["ok"], later
    first, second = later["hands"]
    assert first["scores_after"][0] <= first["scores_after"][1] - 100
    t = second["tricks_taken"]
    nil = 200 if t[0] == 0 else -200  # blind: double
    contract = 40 + t[2] - 4 if t[2] >= 4 else -40  # partner's 3, raised to the board of 4
    gained = max(0, t[2] - 4) + t[0]
    penalty = 100 * ((first["bags_after"][0] + gained) // 10)
    assert second["score_delta"][0] == nil + contract + t[0] - penalty


def test_match_record_that_stops_early_is_not_over() -> None:
    """"a record that stops before the match ends is valid and reports "over":
    false"."""
    got = judge(match("classic", (0, [3, 3, 3, 3])))
    assert got["ok"] and got["over"] is False and got["winner"] is None
