"""Builders for match records (game-record.md, "Match records") in rule tests."""

from __future__ import annotations

import random

from engine.presets import resolve

from .helpers import match_hand
from .randomgame import random_deal


def match(rules_spec, *hands: tuple[int, list[int]], seed: int = 0,
          blind: dict[int, list[bool]] | None = None, **extra) -> dict:
    """A match record of hands given as ``(dealer, bids)``, dealt at random from
    ``seed`` and played out with the lowest legal card."""
    r = resolve(rules_spec)
    rng = random.Random(seed)
    out = []
    for k, (dealer, bids) in enumerate(hands):
        h = match_hand(r, dealer, random_deal(rng, r), bids)
        if blind and k in blind:
            h["blind_nil"] = blind[k]
        out.append(h)
    return {"id": "m", "kind": "match", "rules": rules_spec, "hands": out, **extra}


def dealt(rules_spec, dealer: int, hands, bids) -> dict:
    """One hand of a match record with a hand-built deal."""
    return match_hand(resolve(rules_spec), dealer, hands, bids)
