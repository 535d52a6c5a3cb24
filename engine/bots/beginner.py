"""The ``beginner`` bot: a newcomer's plain rules, and none of the partner blunders.

It bids its sure-looking tricks (aces, guarded kings, high spades, spades past
three) and never nil; it plays to win a trick as cheaply as it can, lets a
partner's winning card stand, and otherwise throws its lowest card. It keeps to
the same partner-safe cards as the ``expert`` (covering a partner's nil, leading
high to it, never overtaking a partner who surely wins), so it is easier to
beat, not worse company.
"""

from __future__ import annotations

from engine.bots.bits import power
from engine.bots.expert import partner_safe
from engine.bots.playout import Fast, fast_of, legal, split
from engine.bots.seen import Seen, visible_bids
from engine.play import winning
from engine.state import GameState


def count_tricks(f: Fast, hand: int) -> int:
    """Aces, kings with a card beside them, spades from the queen up, spades past three."""
    n = 0
    for s in f.sides:
        powers = [power(c) for c in split(hand & s)]
        n += 12 in powers
        n += 11 in powers and len(powers) >= 2
    trumps = split(hand & f.trump)
    high = sum(power(c) >= 10 for c in trumps)
    return n + high + max(0, len(trumps) - 3 - high)


def choose_bid(state: GameState, seat: int) -> int:
    """The counted tricks, at least 1, within what the partner's bid leaves."""
    r = state.rules
    assert r is not None
    f = fast_of(r)
    bid = max(1, min(13, count_tricks(f, f.to_bits(state.hands[seat]))))
    partner = visible_bids(state, seat)[seat ^ 2]
    return min(bid, 13 - partner) if partner > 0 else bid


def choose_card(state: GameState, seat: int) -> int:
    """The card id ``seat`` plays: the cheapest winner, else the lowest card."""
    k = Seen(state, seat)
    f = k.f
    ok = partner_safe(k, legal(f, k.hand, k.trick, k.broken))
    if not k.trick:  # lead the highest side card, else the lowest trump
        side = ok & f.side
        return f.card[1 << (side.bit_length() - 1)] if side else f.card[ok & -ok]
    lead_suit = f.suit_at[k.trick[0].bit_length()]
    win_mask = lead_suit | f.trump
    best_i = winning(f, k.trick)
    best = k.trick[best_i]
    if (k.leader + best_i) & 3 == seat ^ 2:
        under = ok & ~(~((best << 1) - 1) & win_mask)
        pick = under or ok
        return f.card[pick & -pick]
    winners = ok & win_mask & ~((best << 1) - 1)
    pick = winners or ok
    return f.card[pick & -pick]
