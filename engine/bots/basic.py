"""The ``basic`` bot: counts tricks to bid, then plays by the rules of thumb of a fair club player.

It decides from what its seat can see (``engine.bots.seen``) and nothing
else. Its bids and blind-nil exchange are ``engine.bots.bidding``'s; this module
holds its play. The play policy is written over the playout encoding
(``engine.bots.playout``) so that the ``expert`` search can use the very same
policy, at full speed, for its rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bots.bidding import choose_bid, choose_pass
from engine.bots.bits import bottom_side, high, power, shortest_suit_low, side_by_power, top_side
from engine.bots.playout import Fast, split
from engine.bots.playout import legal as legal_bits
from engine.bots.seen import Seen, contracts_of
from engine.play import winning
from engine.state import GameState

_OPPS = ((1, 3), (0, 2), (1, 3), (0, 2))
# The opponents still to play after ``me`` when ``n`` cards of the trick are down.
_LATER_OPPS = tuple(tuple(tuple((me + k) & 3 for k in range(1, 4 - n) if k & 1)
                          for n in range(4)) for me in range(4))


# --- play --------------------------------------------------------------------------------

def policy(f: Fast, me: int, hand: int, trick: list[int], leader: int, played: int,
           bids: Sequence[int], tricks: Sequence[int], broken: bool, voids: Sequence[int],
           contracts: Sequence[int]) -> int:
    """The card (a playout bit) ``me`` plays; every argument is public or its own.

    ``contracts`` is each team's contract (``contract`` of its two bids), which
    a rollout computes once rather than at every card. A nil comes first (this
    seat's, its partner's, an opponent's), then the contract: take the tricks
    the side still needs, or lose the trick as dearly as the cards allow.
    """
    n = len(trick)
    lead_suit = f.suit_at[trick[0].bit_length()] if n else 0
    legal = legal_bits(f, hand, trick, broken)
    if not legal & (legal - 1):
        return legal
    out = f.all & ~played & ~hand  # cards someone else still holds
    partner = me ^ 2
    my_bid = bids[me]
    p_bid = bids[partner]

    best = 0
    best_seat = -1
    winners = 0
    if n:
        i = winning(f, trick)
        best, best_seat = trick[i], (leader + i) & 3
        winners = legal & (lead_suit | f.trump) & ~((best << 1) - 1)
    later_opps = _LATER_OPPS[me][n]

    if my_bid == 0 and (tricks[me] == 0 or p_bid != 0 or tricks[partner]):
        return _duck(f, legal, winners, n, lead_suit)
    if p_bid == 0 and tricks[partner] == 0:  # (this seat's own nil, if any, already failed)
        c = _cover_nil(f, legal, winners, n, lead_suit, best_seat == partner, out, voids,
                       later_opps)
        if c:
            return c
    if best_seat >= 0 and best_seat & 1 != me & 1 and bids[best_seat] == 0 \
            and tricks[best_seat] == 0:
        # An opponent's nil is winning this trick: let it.
        losers = legal & ~winners
        if losers:
            x = losers & lead_suit
            return high(x) if x else _dump(f, losers, lead_suit, keep_high=True)
    if not _wants_tricks(me, bids, tricks, contracts):
        return _duck(f, legal, winners, n, lead_suit)
    if n == 0:
        return _lead(f, hand, legal, out, voids, me, broken)
    return _take(f, legal, winners, n, lead_suit, best, best_seat == partner, out, voids,
                 later_opps)


def _cover_nil(f: Fast, legal: int, winners: int, n: int, lead_suit: int,
               partner_winning: bool, out: int, voids: Sequence[int],
               later_opps: Sequence[int]) -> int:
    """The card that shields a partner's standing nil, or 0 where nothing here concerns
    it (an opponent leads the trick and the partner has already played under it)."""
    if n == 0:  # lead high, so the partner can play under it
        side = legal & f.side
        return side_by_power(f, side, True) if side else high(legal)
    if n <= 1:  # the partner plays after this seat: win the trick if it can be won
        if winners & lead_suit:
            return high(winners & lead_suit)
        if winners:
            return winners & -winners
        return _dump(f, legal, lead_suit, keep_high=True)
    if partner_winning:  # the nil is taking the trick: overtake it
        if winners:
            for c in split(winners):
                if _sure(f, c, lead_suit, out, voids, later_opps):
                    return c
            return high(winners)
        return _dump(f, legal, lead_suit, keep_high=True)
    return 0


def _wants_tricks(me: int, bids: Sequence[int], tricks: Sequence[int],
                  contracts: Sequence[int]) -> bool:
    """Whether ``me``'s side still needs tricks for its contract, or can set the
    opponents' with a trick or two (only then is setting them worth chasing)."""
    partner = me ^ 2
    taken = (tricks[me] if bids[me] else 0) + (tricks[partner] if bids[partner] else 0)
    if contracts[me & 1] - taken > 0:
        return True
    o1, o2 = me ^ 1, me ^ 3
    opp_contract = contracts[1 - (me & 1)]
    opp_taken = (tricks[o1] if bids[o1] else 0) + (tricks[o2] if bids[o2] else 0)
    opp_need = opp_contract - opp_taken
    left = 13 - (tricks[0] + tricks[1] + tricks[2] + tricks[3])
    return opp_contract > 0 and opp_need > 0 and left - opp_need <= 1


def _take(f: Fast, legal: int, winners: int, n: int, lead_suit: int, best: int,
          partner_winning: bool, out: int, voids: Sequence[int],
          later_opps: Sequence[int]) -> int:
    """A follower's card when the side wants the trick: leave a partner's sure winner
    alone, else win it as cheaply as is safe, else give the least away."""
    if partner_winning:
        if not later_opps or _sure(f, best, lead_suit, out, voids, later_opps):
            return _dump(f, legal, lead_suit, keep_high=True)
        # Overtake a partner only within the suit, never by trumping over them.
        for c in split(winners & lead_suit):
            if _sure(f, c, lead_suit, out, voids, later_opps):
                return c
        return _dump(f, legal, lead_suit, keep_high=True)
    if winners:
        if not later_opps:
            x = winners & lead_suit
            return x & -x if x else winners & -winners
        for c in split(winners):
            if _sure(f, c, lead_suit, out, voids, later_opps):
                return c
        if n == 2:  # third hand high
            x = winners & lead_suit
            return high(x) if x else winners & -winners
        if not winners & lead_suit:  # second hand void: ruff low rather than let it go
            return winners & -winners
    return _dump(f, legal, lead_suit, keep_high=True)


def _sure(f: Fast, c: int, lead_suit: int, out: int, voids: Sequence[int],
          opps: Sequence[int]) -> bool:
    """Whether the card ``c`` wins against what the opponents still to play may hold."""
    if not opps:
        return True
    trump = f.trump
    if c & trump:
        higher = out & trump & ~((c << 1) - 1)
        ruff = 0
    else:
        higher = out & lead_suit & ~((c << 1) - 1)
        ruff = out & trump if lead_suit != trump else 0
        if ruff and (out & lead_suit).bit_count() >= 3:
            # Plenty of the suit still out: an opponent ruffs only if shown void.
            for o in opps:
                if voids[o] & lead_suit and ruff & ~voids[o]:
                    return False
            ruff = 0
    for o in opps:
        could = ~voids[o]
        if higher & could or ruff & could:
            return False
    return True


def _dump(f: Fast, legal: int, lead_suit: int, keep_high: bool) -> int:
    """A card given away: low in the led suit, else a low discard that shortens a side suit."""
    x = legal & lead_suit
    if x:
        return x & -x
    side = legal & f.side
    if side:
        return shortest_suit_low(f, side) if keep_high else side_by_power(f, side, True)
    return legal & -legal


def _duck(f: Fast, legal: int, winners: int, n: int, lead_suit: int) -> int:
    """Lose the trick, throwing the most dangerous card that still loses."""
    if n == 0:
        side = legal & f.side
        return bottom_side(f, side) if side else legal & -legal
    losers = legal & ~winners
    if losers:
        x = losers & lead_suit
        if x:
            return high(x)
        side = losers & f.side
        if side:
            return top_side(f, side)
        return high(losers)
    # Every card wins: the last seat takes it with its highest, others hope to be overtaken.
    return high(legal) if n == 3 else legal & -legal


def _lead(f: Fast, hand: int, legal: int, out: int, voids: Sequence[int], me: int,
          broken: bool) -> int:
    trump = f.trump
    opps = _OPPS[me]
    side = legal & f.side
    best = 0
    best_p = -1
    for s in f.sides:
        x = side & s
        if x:
            top = high(x)
            if _sure(f, top, s, out, voids, opps) and power(top) > best_p:
                best, best_p = top, power(top)
    if best:
        return best
    my_trumps = legal & trump
    if my_trumps and (broken or not side):
        top = high(my_trumps)
        out_trumps = out & trump
        if not out_trumps & ~((top << 1) - 1) and my_trumps.bit_count() >= out_trumps.bit_count():
            return top
    if side:
        if hand & trump:
            return shortest_suit_low(f, side)
        return side_by_power(f, side, False)
    return legal & -legal


def choose_card(state: GameState, seat: int) -> int:
    """The card id ``seat`` plays now."""
    assert state.rules is not None
    k = Seen(state, seat)
    b = policy(k.f, seat, k.hand, k.trick, k.leader, k.played, k.bids, k.tricks, k.broken,
               k.voids, contracts_of(state.rules.board, k.bids))
    return k.f.card[b]



__all__ = ["choose_bid", "choose_card", "choose_pass", "policy"]
