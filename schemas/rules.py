"""The rules profile: every house-rule choice of a game, as one frozen value.

A profile is stored in a game's first event, so a game is always replayed
under the rules it was played with. Contradictory profiles are refused when
the profile is built or decoded (``msgspec.ValidationError``), never later in
the middle of a hand.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Deck = Literal["standard", "jokers_deuces", "jokers", "deuces", "deuce_ace"]
DeuceOrder = Literal["diamond_high", "spade_high"]
Bidding = Literal["sequential", "simultaneous"]
FailedNil = Literal["bags_scored", "bags_unscored", "nothing", "help_partner"]
Boston = Literal["off", "bonus", "win"]
Tie = Literal["play_on", "draw"]
Abandon = Literal["bot", "forfeit"]
SpadesBrokenBy = Literal["any_spade", "play_on_other_suit"]


class Clocks(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Turn clocks in milliseconds; the time bank is spent block by block."""

    bid_ms: int = 30_000
    play_ms: int = 15_000
    single_card_ms: int = 5_000  # when the seat has exactly one legal card
    bank_blocks: int = 2  # extra blocks per seat per hand
    bank_block_ms: int = 15_000


# Bounds of every numeric option, inclusive (``docs/rules.md`` lists them): a game must be
# able to end, and every number must fit the 64-bit integers of msgpack and Postgres.
BOUNDS: dict[str, tuple[int, int]] = {
    "nil_value": (0, 1_000), "board": (0, 13), "blind_nil_value": (0, 1_000),
    "blind_nil_margin": (0, 10_000), "bag_limit": (1, 100), "bag_penalty": (0, 1_000),
    "boston_bonus": (0, 1_000), "target": (1, 10_000), "max_hands": (1, 100),
    "floor": (-10_000, -1),
}
CLOCK_BOUNDS: dict[str, tuple[int, int]] = {
    "bid_ms": (100, 3_600_000), "play_ms": (100, 3_600_000), "single_card_ms": (100, 3_600_000),
    "bank_blocks": (0, 10), "bank_block_ms": (0, 3_600_000),
}

BLITZ_CLOCKS = Clocks(bid_ms=15_000, play_ms=7_000, single_card_ms=3_000, bank_blocks=1,
                      bank_block_ms=10_000)


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One rules profile. The defaults are plain Spades; presets override them."""

    preset: str = "custom"
    # Deck and trump ladder.
    deck: Deck = "standard"
    deuce_order: DeuceOrder = "diamond_high"
    # Bidding.
    bidding: Bidding = "sequential"
    nil: bool = True
    nil_value: int = 100
    board: int = 0
    blind_nil: bool = False
    blind_nil_value: int = 200
    blind_nil_margin: int | None = 100  # None: offered whatever the score, even when ahead
    blind_nil_pass: int = 0
    failed_nil: FailedNil = "bags_scored"
    # Trick play. ``any_spade``: any trump played breaks spades, a lead from an all-trump
    # hand included; ``play_on_other_suit``: only a trump played on another suit's lead.
    # The default keeps the reading every game stored before the option existed was played by.
    spades_broken_by: SpadesBrokenBy = "any_spade"
    # Scoring.
    bag_limit: int = 10
    bag_penalty: int = 100
    bag_carry: bool = True  # bags past the limit carry over; False: the count starts over at 0
    boston: Boston = "off"
    boston_bonus: int = 200
    boston_needs_bid: bool = False
    ten_for_200: bool = False
    # End of the match.
    target: int | None = 500
    max_hands: int | None = None
    tie: Tie = "play_on"
    floor: int | None = None
    # Seats that leave or run out of time.
    abandon: Abandon = "bot"
    clocks: Clocks = Clocks()
    blitz: bool = False

    def __post_init__(self) -> None:
        problems = list(_contradictions(self))
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def turn_clocks(self) -> Clocks:
        return BLITZ_CLOCKS if self.blitz else self.clocks


def _contradictions(r: Rules):
    if r.deuce_order == "spade_high" and r.deck not in ("jokers_deuces", "deuces"):
        yield "deuce_order only applies to decks with both deuces (jokers_deuces, deuces)"
    if r.blind_nil and not r.nil:
        yield "blind_nil needs nil"
    if r.blind_nil_pass not in (0, 1, 2):
        yield "blind_nil_pass must be 0, 1 or 2"
    if r.blind_nil_pass and not r.blind_nil:
        yield "blind_nil_pass needs blind_nil"
    for owner, bounds in ((r, BOUNDS), (r.clocks, CLOCK_BOUNDS)):
        for name, (low, high) in bounds.items():
            value = getattr(owner, name)
            if value is not None and not low <= value <= high:
                yield f"{name} must be between {low} and {high}"
    if r.boston_needs_bid and r.boston == "off":
        yield "boston_needs_bid needs boston (bonus or win)"
    if r.target is None and r.max_hands is None:
        yield "a match needs a target or a number of hands, or it never ends"

