"""Every rule violation is a typed error with a stable, documented code.

Clients switch on the codes, so each one is produced here by a plain violation,
and each code the engine can raise is listed in ``engine.errors.CODES``.
"""

from __future__ import annotations

import pytest

from engine.cards import codes
from engine.errors import CODES
from engine.state import GameState
from schemas import commands as cmd

from .helpers import (
    CLASSIC,
    CLUB,
    HOUSE,
    bid,
    deal,
    fill,
    legal,
    play,
    play_out,
    refusal,
    rules,
    start,
    step,
)


def _classic_play():
    return bid(deal(CLASSIC, fill(CLASSIC), dealer=3), [3, 3, 3, 3])


def _passing():
    r = rules("house", blind_nil_pass=1)
    s = deal(r, fill(r), dealer=3, scores=(0, 200))
    s = step(s, cmd.BidBlindNil(seat=0))[0]
    for seat, b in ((1, 3), (2, 4), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b))[0]
    return s


def _over():
    return step(bid(deal(CLUB, fill(CLUB)), [3, 3, 3, 3]), cmd.LeaveSeat(seat=1))[0]


def _revoke():
    """Seat 1 holds the suit led and tries another."""
    s = _classic_play()
    s = play(s, sorted(legal(s))[0])
    off_suit = sorted(set(codes(s.hands[1])) - legal(s))[0]
    return s, cmd.PlayCard(seat=1, card=off_suit)


SCENARIOS = {
    "game_not_started": lambda: (GameState(), cmd.PlaceBid(seat=0, bid=3)),
    "game_already_started": lambda: (start(HOUSE), cmd.StartGame(rules=HOUSE)),
    "game_over": lambda: (_over(), cmd.PlaceBid(seat=0, bid=3)),
    "match_over": lambda: (_over(), cmd.DealHand(dealer=0, hands=fill(CLUB))),
    "wrong_phase": lambda: (start(HOUSE), cmd.PlayCard(seat=0, card="AS")),
    "not_a_seat": lambda: (deal(HOUSE, fill(HOUSE)), cmd.PlaceBid(seat=4, bid=3)),
    "not_your_turn": lambda: (deal(CLASSIC, fill(CLASSIC), dealer=3),
                              cmd.PlaceBid(seat=2, bid=3)),
    "already_bid": lambda: (step(deal(HOUSE, fill(HOUSE)), cmd.PlaceBid(seat=1, bid=3))[0],
                            cmd.PlaceBid(seat=1, bid=2)),
    "bid_out_of_range": lambda: (deal(HOUSE, fill(HOUSE)), cmd.PlaceBid(seat=0, bid=14)),
    "nil_not_allowed": lambda: (deal(rules("classic", nil=False), fill(CLASSIC)),
                                cmd.PlaceBid(seat=0, bid=0)),
    "blind_nil_not_offered": lambda: (deal(HOUSE, fill(HOUSE)), cmd.BidBlindNil(seat=0)),
    "unknown_card": lambda: (_classic_play(), cmd.PlayCard(seat=0, card="1X")),
    "card_not_in_deck": lambda: (_classic_play(), cmd.PlayCard(seat=0, card="BJ")),
    "card_not_in_hand": lambda: (_classic_play(), cmd.PlayCard(seat=0, card=fill(CLASSIC)[1][0])),
    "must_follow_suit": lambda: _revoke(),
    "spades_not_broken": lambda: (_classic_play(), cmd.PlayCard(seat=0, card="2S")),
    "wrong_dealer": lambda: (play_out(_classic_play())[0],
                             cmd.DealHand(dealer=3, hands=fill(CLASSIC))),
    "bad_deal": lambda: (start(CLASSIC), cmd.DealHand(dealer=0, hands=fill(CLASSIC)[:3])),
    "bad_seed": lambda: (GameState(), cmd.StartGame(rules=HOUSE, seed="beef")),
    "wrong_pass_count": lambda: (_passing(), cmd.PassCards(seat=0, cards=())),
    "already_passed": lambda: (step(_passing(), cmd.PassCards(
        seat=2, cards=(fill(rules("house"))[2][0],)))[0],
        cmd.PassCards(seat=2, cards=(fill(rules("house"))[2][1],))),
    "cards_not_seen": lambda: (deal(HOUSE, fill(HOUSE), scores=(0, 100)),
                               cmd.SetPremove(seat=0, card=fill(HOUSE)[0][0])),
    "stale_clock": lambda: (deal(HOUSE, fill(HOUSE), at=1000),
                            cmd.ClockExpired(seat=0, at=1001)),
    "fallback_missing": lambda: (deal(rules("classic", clocks={"bank_blocks": 0}),
                                      fill(CLASSIC), dealer=3),
                                 cmd.ClockExpired(seat=0, at=10**9)),
    "not_a_bot_seat": lambda: (deal(HOUSE, fill(HOUSE)), cmd.ReturnToSeat(seat=2)),
    "seat_is_bot": lambda: (step(deal(HOUSE, fill(HOUSE)), cmd.LeaveSeat(seat=2))[0],
                            cmd.LeaveSeat(seat=2)),
}


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_each_violation_has_its_stable_code(code: str) -> None:
    """The violation is refused with exactly its code, which is documented."""
    state, command = SCENARIOS[code]()
    assert refusal(state, command) == code
    assert code in CODES


def test_every_documented_code_is_produced_by_a_violation() -> None:
    """No documented code is dead: each has a violation that produces it (records add
    ``hand_over`` for plays after the thirteenth trick)."""
    assert set(CODES) - set(SCENARIOS) <= {"hand_over"}


@pytest.mark.parametrize("card", [["AS"], 5, None, "as1"])
def test_a_card_that_is_no_card_code_is_refused_as_unknown_card(card) -> None:
    """A command built in-process is not decoded, so its card may be any value: a list,
    a number or nothing is refused as ``unknown_card`` like a code that names no card."""
    assert refusal(_classic_play(), cmd.PlayCard(seat=0, card=card)) == "unknown_card"
