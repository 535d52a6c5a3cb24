"""Named rules presets, one per rule text, and how a table's rules are resolved.

Each preset reproduces one text's own set of choices; ``docs/rules.md`` holds
the table of every option and preset. A table or record names its rules as a
preset (``"house"``) or as a preset with overrides
(``{"preset": "house", "board": 0}``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.rules import Clocks, Rules

# Spades Night house rules: jokers and deuces, secret simultaneous bids, board 4,
# blind nil for a team 100 behind, failed nil tricks are bags worth a point,
# Boston +200, 500 to win, ties play on, a bot takes an abandoned seat.
HOUSE = Rules(
    preset="house", deck="jokers_deuces", deuce_order="diamond_high", bidding="simultaneous",
    board=4, blind_nil=True, blind_nil_value=200, blind_nil_margin=100,
    failed_nil="bags_scored", boston="bonus", boston_bonus=200, target=500, tie="play_on",
    abandon="bot", clocks=Clocks(),
)

# The house quick match: four hands, each seat deals once, sudden death while tied.
QUICK = msgspec.structs.replace(HOUSE, preset="quick", target=None, max_hands=4)

# Plain 52 cards, bids in turn 0-13 with nil, no blind nil, failed-nil tricks are
# bags with no points, 500 to win, ties play on; "do not lead spades until one has
# been played on another suit, unless only spades remain".
CLASSIC = Rules(
    preset="classic", deck="standard", bidding="sequential", failed_nil="bags_unscored",
    spades_broken_by="play_on_other_suit",
    boston="off", target=500, tie="play_on",
)

# The beginner's guide: standard deck, bids in turn, nil, 300 to win (its default),
# a Boston ends the game on the spot, and at the tenth bag "the bag count starts over";
# spades break "the first time a spade is played on a non-spade lead".
BEGINNER = Rules(
    preset="beginner", deck="standard", bidding="sequential", failed_nil="bags_scored",
    spades_broken_by="play_on_other_suit",
    bag_carry=False, boston="win", target=300, tie="play_on",
)

# The club rules: nil tricks count for nothing, draws, the -200 floor, optional bag
# penalty (on), leaving or running out of time forfeits the match for the pair; spades
# are led only once "broken by a play on another suit".
CLUB = Rules(
    preset="club", deck="standard", bidding="sequential", failed_nil="nothing",
    spades_broken_by="play_on_other_suit",
    boston="off", target=500, tie="draw", floor=-200, abandon="forfeit",
    clocks=Clocks(bank_blocks=0),
)

PRESETS: dict[str, Rules] = {r.preset: r for r in (HOUSE, QUICK, CLASSIC, BEGINNER, CLUB)}


class RulesError(ValueError):
    """A rules spec that names no preset, an unknown option or a contradiction."""


def resolve(spec: str | dict[str, Any] | Rules) -> Rules:
    """Rules from a preset name or ``{"preset": NAME, **overrides}``."""
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, str):
        if spec in PRESETS:  # a preset by name is the preset: nothing to merge or check
            return PRESETS[spec]
        spec = {"preset": spec}
    if not isinstance(spec, dict):
        raise RulesError("rules must be a preset name or an object with a preset")
    name = spec.get("preset", "house")
    base = PRESETS.get(name) if isinstance(name, str) else None
    if base is None:
        raise RulesError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    merged = msgspec.to_builtins(base)
    merged.update(spec)
    merged["preset"] = name
    try:
        return msgspec.convert(merged, Rules)
    except msgspec.ValidationError as e:
        raise RulesError(str(e)) from None
