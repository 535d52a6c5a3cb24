"""How the ``basic`` bot bids and what it passes in a blind-nil exchange.

It counts the likely tricks of its hand (top cards, protected honours, trump
length and ruffs), bids nil only on a hand made for it, and never bids more
than its partner's bid leaves. The ``expert`` starts its bid search from here,
and ``engine.bots.blind`` plays these bids out to price a blind nil.
"""

from __future__ import annotations

from engine.bots.bits import above, high, power, side_by_power
from engine.bots.playout import Fast, fast_of, split
from engine.bots.seen import visible_bids
from engine.state import GameState


def estimate(f: Fast, hand: int) -> float:
    """Likely tricks of a hand: top cards, protected honours, trump length and ruffs."""
    trumps = hand & f.trump
    n_trumps = trumps.bit_count()
    honours = 0
    below = n_trumps
    for c in reversed(split(trumps)):
        below -= 1
        higher_out = (f.trump & ~hand & ~((c << 1) - 1)).bit_count()
        if higher_out <= below:
            honours += 1
    # Decks with jokers or elevated deuces have more trumps and shorter side suits: side
    # honours are ruffed sooner, and a trump suit needs more length before it runs.
    extra = f.trump.bit_count() - 13
    side_scale = 1.0 - 0.07 * extra
    trump_tricks = honours + max(0, n_trumps - honours - (4 if extra >= 2 else 3))
    tricks = float(trump_tricks)
    spare = n_trumps - trump_tricks
    side = 0.0
    for s in f.sides:
        x = hand & s
        length = x.bit_count()
        below = length
        for i, c in enumerate(reversed(split(x))):
            below -= 1
            if i >= 2:
                break
            higher_out = (s & ~hand & ~((c << 1) - 1)).bit_count()
            if higher_out == 0:
                side += 1.0 if length <= 5 else 0.6
            elif higher_out == 1 and below >= 1:
                side += 0.7 if length <= 5 else 0.4
            elif higher_out == 2 and below >= 2 and length <= 4:
                side += 0.3
        if spare > 0 and length <= 2:
            ruffs = min(spare, 2 - length if length else 2)
            if ruffs > 0:
                tricks += 0.8 * ruffs
                spare -= ruffs
    return tricks + side * side_scale


def nil_safe(f: Fast, hand: int) -> bool:
    """A hand made for nil: few and low trumps, and no side honour without low cards under it."""
    trumps = hand & f.trump
    n = trumps.bit_count()
    if n >= 4:
        return False
    if trumps:
        top_above = (f.trump & above(high(trumps))).bit_count()
        if top_above < (4, 4, 4, 6)[n]:
            return False
    for s in f.sides:
        x = hand & s
        for below, c in enumerate(split(x)):
            p = power(c)
            if p >= 12 or (p >= 9 and below < min(p - 8, 2)):
                return False
    return True


def choose_bid(state: GameState, seat: int) -> int:
    """The number of tricks ``seat`` bids (0 is nil)."""
    r = state.rules
    assert r is not None
    f = fast_of(r)
    return bid_for(f, f.to_bits(state.hands[seat]), visible_bids(state, seat)[seat ^ 2], r.nil)


def bid_for(f: Fast, hand: int, partner_bid: int, nil: bool) -> int:
    """The bid for ``hand`` (playout bits); ``partner_bid`` is -1 while unknown."""
    est = estimate(f, hand)
    if nil and est < 2.0 and partner_bid != 0 and nil_safe(f, hand):
        return 0
    bid = round(est)
    if partner_bid > 0:
        bid = min(bid, 13 - partner_bid)
    return max(1, min(13, bid))


def choose_pass(state: GameState, seat: int) -> int:
    """Cards for the blind-nil exchange (card ids)."""
    r = state.rules
    assert r is not None
    f = fast_of(r)
    hand = f.to_bits(state.hands[seat])
    return f.to_ids(pass_bits(f, hand, r.blind_nil_pass, bool(state.blind >> seat & 1)))


def pass_bits(f: Fast, hand: int, n: int, nil: bool) -> int:
    """The ``n`` cards of ``hand`` to exchange: the blind nil sheds its highest (trumps
    first), its partner its lowest side cards."""
    chosen = 0
    for _ in range(n):
        if nil:
            trumps = hand & f.trump
            c = high(trumps) if trumps else side_by_power(f, hand, True)
        else:
            side = hand & f.side
            c = side_by_power(f, side, False) if side else hand & -hand
        chosen |= c
        hand ^= c
    return chosen
