"""Each preset reproduces its rule text's own set of choices; contradictions are refused.

``house`` = 000 (Spades Night House Rules), ``quick`` = its quick match,
``classic`` = 001, ``beginner`` = 003, ``club`` = 004.
"""

from __future__ import annotations

import msgspec
import pytest

from engine.presets import PRESETS, RulesError, resolve
from schemas.rules import Clocks, Rules

from .helpers import BEGINNER, CLASSIC, CLUB, HOUSE, QUICK


def test_house_preset_is_the_house_rules_text() -> None:
    """House: jokers and deuces with the 2♦ above the 2♠, "secret, simultaneous
    bidding", "Board is the House Rules minimum ... 4", blind nil worth 200 for a team
    "behind by 100 points or more" with "no passing", failed nil tricks "count as
    bags", Boston "+200 bonus", "not an automatic win", 10 for 200 "off by default",
    "The classic target is 500", "an exact tie means you keep playing", no floor,
    a bot for an empty seat, and 30 s / 15 s / 5 s clocks with two 15 s bank blocks."""
    h = HOUSE
    assert (h.deck, h.deuce_order, h.bidding, h.board) == ("jokers_deuces", "diamond_high",
                                                          "simultaneous", 4)
    assert (h.nil, h.nil_value, h.blind_nil, h.blind_nil_value, h.blind_nil_margin,
            h.blind_nil_pass) == (True, 100, True, 200, 100, 0)
    assert h.failed_nil == "bags_scored"
    assert (h.bag_limit, h.bag_penalty) == (10, 100)
    assert (h.boston, h.boston_bonus, h.boston_needs_bid, h.ten_for_200) == ("bonus", 200,
                                                                            False, False)
    assert (h.target, h.max_hands, h.tie, h.floor, h.abandon) == (500, None, "play_on", None,
                                                                 "bot")
    assert h.clocks == Clocks(bid_ms=30_000, play_ms=15_000, single_card_ms=5_000,
                              bank_blocks=2, bank_block_ms=15_000)
    assert not h.blitz


def test_quick_preset_is_the_house_quick_match() -> None:
    """"quick match: four hands, one deal from each seat ... The higher total after
    hand four wins" - otherwise House Rules."""
    assert QUICK.max_hands == 4 and QUICK.target is None
    assert msgspec.structs.replace(QUICK, preset="house", max_hands=None, target=500) == HOUSE


def test_classic_preset_is_text_001() -> None:
    """001: "Use 52 cards without jokers", bids "once from 0-13" in turn from the
    dealer's left, "Ordinary nil is included; blind nil, card exchanges and elevated
    twos are not", failed nil tricks are bags with "no extra trick points", "every
    accumulated 10 subtracts 100", "reaching 500 ends the game", "Continue tied
    totals"."""
    c = CLASSIC
    assert (c.deck, c.bidding, c.nil, c.blind_nil, c.blind_nil_pass) == ("standard",
                                                                        "sequential", True,
                                                                        False, 0)
    assert (c.board, c.failed_nil, c.bag_limit, c.bag_penalty) == (0, "bags_unscored", 10, 100)
    assert (c.boston, c.ten_for_200, c.target, c.tie, c.floor) == ("off", False, 500,
                                                                  "play_on", None)


def test_beginner_preset_is_text_003() -> None:
    """003: "a standard fifty-two card deck", bids in turn "Starting left of the
    dealer", nil "usually 100 points", "three hundred ... is the Spadesinator default",
    and "end the game on the spot if a team wins all thirteen tricks ... this house
    honors it"."""
    b = BEGINNER
    assert (b.deck, b.bidding, b.nil, b.nil_value, b.blind_nil) == ("standard", "sequential",
                                                                   True, 100, False)
    assert (b.target, b.boston, b.bag_limit, b.bag_penalty) == (300, "win", 10, 100)


def test_club_preset_is_text_004() -> None:
    """004: nil tricks "do not help make their partner's positive bid and are not
    counted as its extra tricks", the bag penalty enabled, the match ends when a pair
    "falls to minus 200", "equal scores give a draw", and leaving or running out of
    time "is a forfeit"."""
    c = CLUB
    assert (c.deck, c.nil, c.blind_nil, c.failed_nil) == ("standard", True, False, "nothing")
    assert (c.bag_limit, c.bag_penalty, c.floor, c.tie, c.abandon) == (10, 100, -200, "draw",
                                                                      "forfeit")
    assert c.target in (250, 500)
    assert c.boston == "off"


def test_presets_are_named_for_themselves() -> None:
    """A table names its rules by preset; each preset knows its name."""
    assert set(PRESETS) == {"house", "quick", "classic", "beginner", "club"}
    for name, r in PRESETS.items():
        assert r.preset == name and resolve(name) == r


def test_overrides_apply_on_top_of_a_preset() -> None:
    """"A private table's host can change any of these before the deal"."""
    r = resolve({"preset": "house", "board": 0, "ten_for_200": True})
    assert (r.board, r.ten_for_200, r.deck) == (0, True, "jokers_deuces")


@pytest.mark.parametrize("overrides", [
    {"deck": "standard", "deuce_order": "spade_high"},
    {"nil": False, "blind_nil": True},
    {"blind_nil": True, "blind_nil_pass": 3},
    {"blind_nil": False, "blind_nil_pass": 1},
    {"board": 14},
    {"board": -1},
    {"bag_limit": 0},
    {"nil_value": -100},
    {"boston": "off", "boston_needs_bid": True},
    {"target": None, "max_hands": None},
    {"target": 0},
    {"max_hands": 0},
    {"floor": 100},
    {"clocks": {"play_ms": 0}},
])
def test_contradictory_profiles_refused(overrides: dict) -> None:
    """"a contradictory profile is refused with a clear error" - when it is built,
    decoded or resolved, never in the middle of a hand."""
    spec = {"preset": "classic", **overrides}
    with pytest.raises(RulesError) as err:
        resolve(spec)
    assert str(err.value)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({k: v for k, v in spec.items() if k != "preset"}, Rules)


def test_unknown_presets_and_options_are_refused() -> None:
    """A misspelt preset or option is an error, not silently ignored."""
    with pytest.raises(RulesError):
        resolve("grandma")
    with pytest.raises(RulesError):
        resolve({"preset": "house", "jokers": True})
    with pytest.raises(RulesError):
        resolve(42)  # type: ignore[arg-type]
