"""The complaints players make most about Spades bots, one constructed position each.

Every position is checked for both levels: the search must not talk the
``expert`` out of what a fair player does without thinking.
"""

from __future__ import annotations

import pytest

from engine.bots import choose
from engine.cards import RANKS, card_id, code, ids
from engine.play import deck_of, legal_cards
from engine.presets import PRESETS, resolve
from schemas import commands as cmd
from tests.engine.bots.situations import deal_with, position, to_play

LEVELS = ("basic", "expert")
NIL_HAND = ("2S", "3S", "2H", "3H", "4H", "5H", "7H", "2D", "3D", "4D", "6D", "2C", "3C")


def _card(s, level: str) -> str:
    seat = to_play(s)
    c = choose(s, seat, level, seed=5, budget=16)
    assert isinstance(c, cmd.PlayCard) and c.seat == seat
    return c.card


@pytest.mark.parametrize("level", LEVELS)
def test_overtakes_a_partner_nil_that_is_winning_the_trick(level: str) -> None:
    hands = deal_with(PRESETS["classic"], {0: ["9H"], 1: ["3H"], 2: ["AH", "4H"], 3: ["KH"]})
    s = position(hands, bids=(0, 3, 4, 3), plays=["9H", "3H"])
    assert to_play(s) == 2
    assert _card(s, level) == "AH"


@pytest.mark.parametrize("level", LEVELS)
def test_covers_a_partner_nil_still_to_play_with_a_high_card(level: str) -> None:
    hands = deal_with(PRESETS["classic"], {1: ["KD"], 2: ["AD", "5D"], 0: NIL_HAND})
    s = position(hands, bids=(0, 3, 4, 3), plays=["KD"], dealer=0)
    assert to_play(s) == 2
    assert _card(s, level) == "AD"


@pytest.mark.parametrize("level", LEVELS)
def test_a_nil_ducks_with_the_highest_card_that_still_loses(level: str) -> None:
    hands = deal_with(PRESETS["classic"], {0: ["KH"], 1: ["AH", "QH", "5H"]})
    s = position(hands, bids=(3, 0, 4, 3), plays=["KH"])
    played = _card(s, level)
    if level == "basic":
        assert played == "QH"
    else:  # the search may keep the queen for later; it must still lose this trick
        assert played in _hearts_below("K", s)


@pytest.mark.parametrize("level", LEVELS)
def test_a_void_nil_throws_its_most_dangerous_card_not_a_trump(level: str) -> None:
    nil = ("AC", "4C", "5C", "2S", "3S", "4S", "2H", "3H", "4H", "5H", "6H", "7H", "8H")
    hands = deal_with(PRESETS["classic"], {0: ["3D"], 1: nil})
    s = position(hands, bids=(3, 0, 4, 3), plays=["3D"])
    assert _card(s, level) == "AC"


@pytest.mark.parametrize("level", LEVELS)
def test_does_not_trump_a_partner_ace_that_is_winning(level: str) -> None:
    me = ("AS", "KS", "QS", "5S", "4S", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "5C")
    hands = deal_with(PRESETS["classic"], {0: ["AH"], 1: ["2H"], 2: me})
    s = position(hands, bids=(4, 3, 4, 2), plays=["AH", "2H"])
    assert to_play(s) == 2
    played = _card(s, level)
    assert not played.endswith("S")


@pytest.mark.parametrize("level", LEVELS)
def test_does_not_overtrump_a_partner_who_trumped(level: str) -> None:
    # Hearts are gone from seat 0 and seat 2, seat 0 has trumped spades' way in.
    p0 = ("JS", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "2D", "3D", "4D", "5D")
    me = ("AS", "KS", "QS", "6D", "7D", "8D", "9D", "TD", "TC", "JC", "QC", "KC", "AC")
    p3 = ("AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H")
    hands = deal_with(PRESETS["classic"], {0: p0, 2: me, 3: p3})
    # Seat 3 leads hearts (dealer 2); seat 0 is void and trumps; seat 1 follows.
    s = position(hands, bids=(3, 3, 5, 2), plays=["AH", "JS"], dealer=2)
    s = position(hands, bids=(3, 3, 5, 2), plays=["AH", "JS", _follow(s)], dealer=2)
    assert to_play(s) == 2
    assert not _card(s, level).endswith("S")


def _hearts_below(rank: str, s) -> set[str]:
    held = {code(c) for c in ids(s.hands[to_play(s)])}
    return {r + "H" for r in RANKS[:RANKS.index(rank)]} & held


def _follow(s) -> str:
    return code(ids(legal_cards(s, to_play(s)))[0])


@pytest.mark.parametrize("level", LEVELS)
def test_ducks_once_both_contracts_are_made(level: str) -> None:
    hands = deal_with(PRESETS["classic"], {
        0: ["AH", "KH", "2C", "7C"], 1: ["2H", "5H", "AC", "KC", "9D"],
        2: ["3H", "6H", "3C", "5C", "AD", "8D", "3D"], 3: ["4H", "7H", "4C", "6C"]})
    plays = ["AH", "2H", "3H", "4H", "KH", "5H", "6H", "7H",
             "2C", "AC", "3C", "4C", "KC", "5C", "6C", "7C", "9D"]
    s = position(hands, bids=(1, 1, 1, 1), plays=plays)
    assert s.tricks == (2, 2, 0, 0) and to_play(s) == 2
    played = _card(s, level)
    if level == "basic":
        assert played == "8D"
    else:
        assert played in ("2D", "3D", "4D", "5D", "6D", "7D", "8D")


def test_bids_nil_on_a_hand_made_for_it() -> None:
    hands = deal_with(PRESETS["classic"], {0: NIL_HAND})
    s = position(hands, bids=())
    assert choose(s, 0) == cmd.PlaceBid(seat=0, bid=0)


def test_bids_nil_with_jokers_and_deuces() -> None:
    rules = PRESETS["house"]
    hand = ("3S", "4S", "3H", "4H", "5H", "6H", "7H", "3D", "4D", "5D", "6D", "3C", "4C")
    hands = deal_with(rules, {0: hand})
    s = position(hands, bids=(), rules=rules)
    assert choose(s, 0) == cmd.PlaceBid(seat=0, bid=0)


def test_a_strong_hand_bids_its_tricks_not_nil() -> None:
    strong = ("AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C")
    hands = deal_with(PRESETS["classic"], {0: strong})
    bid = choose(position(hands, bids=()), 0)
    assert isinstance(bid, cmd.PlaceBid) and 8 <= bid.bid <= 11


def test_no_nil_where_the_rules_have_none() -> None:
    rules = resolve({"preset": "classic", "nil": False})
    hands = deal_with(rules, {0: NIL_HAND})
    bid = choose(position(hands, bids=(), rules=rules), 0)
    assert isinstance(bid, cmd.PlaceBid) and bid.bid >= 1


def test_every_card_of_the_nil_hand_is_in_the_deck() -> None:
    d = deck_of(PRESETS["classic"])
    assert all(d.mask >> card_id(c) & 1 for c in NIL_HAND)


@pytest.mark.parametrize("level", LEVELS)
def test_a_card_on_the_table_separates_two_of_ours(level: str) -> None:
    """With the ace gone and the queen led, the king wins and the jack loses: they are
    not the same card to the search because no card still out lies between them."""
    me = ("3C", "3H", "JH", "KH", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD")
    hands = deal_with(PRESETS["classic"], {2: me, 1: ["AC", "AH", "QH"], 3: ["4C", "4H"],
                                           0: ["2C", "5H"]})
    s = position(hands, bids=(3, 3, 4, 3), plays=["2C", "AC", "3C", "4C",
                                                  "AH", "3H", "4H", "5H", "QH"])
    assert to_play(s) == 2
    assert _card(s, level) == "KH"
