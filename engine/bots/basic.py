"""The ``basic`` bot: counts tricks to bid, then plays by the rules of thumb of a fair club player.

It decides from what its seat can see and nothing else: its own hand, the
cards played so far, the bids once they are public, the tricks taken, and the
voids a seat showed by not following suit. The play policy is written over the
playout encoding (``engine.bots.playout``) so that the ``expert`` search can
use the very same policy, at full speed, for its rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bots.playout import WIDTH, Fast, fast_of, split
from engine.bots.playout import legal as legal_bits
from engine.state import GameState

# --- what a seat can see ---------------------------------------------------------------

class Seen:
    """One seat's knowledge of the hand in play, in playout bits."""

    __slots__ = ("bids", "blind", "broken", "f", "hand", "known", "leader", "me", "played",
                 "played_by", "sizes", "trick", "tricks", "voids")

    def __init__(self, state: GameState, seat: int) -> None:
        r = state.rules
        assert r is not None
        f = fast_of(r)
        self.f = f
        self.me = seat
        self.hand = f.to_bits(state.hands[seat])
        held = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
        # Every card no longer in a hand was played face up: public, whoever held it.
        self.played = f.all & ~f.to_bits(held)
        self.sizes = tuple(h.bit_count() for h in state.hands)  # public: 13 less cards played
        # What each seat played this hand, face up: its dealt cards, after the exchange, less
        # what it still holds.
        p = state.passes
        self.played_by = [f.to_bits(((state.dealt[i] & ~p[i]) | p[i ^ 2]) & ~state.hands[i])
                          for i in range(4)]
        self.trick = [f.bit[c] for c in state.trick]
        self.leader = state.leader
        self.bids = visible_bids(state, seat)
        self.blind = state.blind
        self.tricks = list(state.tricks)
        self.broken = state.broken
        self.voids = _voids(state, f)
        # Cards this seat gave its partner in a blind-nil exchange are known to be there.
        known = [0, 0, 0, 0]
        given = state.passes[seat]
        if given:
            known[seat ^ 2] = f.to_bits(given) & ~self.played
        self.known = known


def visible_bids(state: GameState, seat: int) -> tuple[int, ...]:
    """The bids ``seat`` may know: its own, and the others' once public.

    Secret simultaneous bids are public only after the reveal; in sequential
    bidding each bid is announced as it is made.
    """
    r = state.rules
    if state.revealed or (r is not None and r.bidding == "sequential"):
        return state.bids
    return tuple(b if s == seat else -1 for s, b in enumerate(state.bids))


def _voids(state: GameState, f: Fast) -> list[int]:
    """Cards each seat is known not to hold, from the suits it failed to follow this hand."""
    voids = [0, 0, 0, 0]
    first = (state.dealer + 1) % 4
    winners = state.trick_winners
    tricks: list[tuple[int, list[int]]] = []
    for k, by_seat in enumerate(state.played):
        lead = first if k == 0 else winners[k - 1]
        tricks.append((lead, [f.bit[by_seat[(lead + i) % 4]] for i in range(4)]))
    if state.trick:
        tricks.append((state.leader, [f.bit[c] for c in state.trick]))
    suit_at = f.suit_at
    for lead, cards in tricks:
        suit = suit_at[cards[0].bit_length()]
        for i in range(1, len(cards)):
            if not cards[i] & suit:
                voids[(lead + i) % 4] |= suit
    return voids


# --- small helpers over playout bits ---------------------------------------------------

def _power(b: int) -> int:
    return (b.bit_length() - 1) % WIDTH


def _high(m: int) -> int:
    return 1 << (m.bit_length() - 1)


def _above(b: int) -> int:
    """Bits strictly above the card ``b`` (only meaningful within its suit)."""
    return ~((b << 1) - 1)


def _side_by_power(f: Fast, m: int, highest: bool) -> int:
    """The side card of ``m`` with the highest (or lowest) rank, whatever its suit."""
    return _top_side(f, m) if highest else _bottom_side(f, m)


def _top_side(f: Fast, m: int) -> int:
    best = 0
    best_p = -1
    for s in f.sides:
        x = m & s
        if x:
            i = x.bit_length() - 1
            p = i % WIDTH
            if p > best_p:
                best, best_p = 1 << i, p
    return best


def _bottom_side(f: Fast, m: int) -> int:
    best = 0
    best_p = 99
    for s in f.sides:
        x = m & s
        if x:
            c = x & -x
            p = (c.bit_length() - 1) % WIDTH
            if p < best_p:
                best, best_p = c, p
    return best


def _shortest_suit_low(f: Fast, m: int) -> int:
    """The lowest card of the shortest side suit in ``m`` (shortening a suit makes a ruff)."""
    best = 0
    best_n = 99
    for s in f.sides:
        x = m & s
        if x:
            n = x.bit_count()
            if n < best_n:
                best, best_n = x & -x, n
    return best


def contract(board: int, bid_a: int, bid_b: int) -> int:
    if bid_a == 0 and bid_b == 0:
        return 0
    return max(bid_a + bid_b, board)


def contracts_of(board: int, bids: Sequence[int]) -> tuple[int, int]:
    return contract(board, bids[0], bids[2]), contract(board, bids[1], bids[3])


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
    a rollout computes once rather than at every card.
    """
    n = len(trick)
    trump = f.trump
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
        win_mask = lead_suit | trump
        for i, c in enumerate(trick):
            if c & win_mask and c > best:
                best, best_seat = c, (leader + i) & 3
        winners = legal & win_mask & ~((best << 1) - 1)
    later_opps = _LATER_OPPS[me][n]

    if my_bid == 0 and (tricks[me] == 0 or p_bid != 0 or tricks[partner]):
        return _duck(f, legal, winners, n, lead_suit)

    if p_bid == 0 and tricks[partner] == 0:  # (this seat's own nil, if any, already failed)
        partner_after = n <= 1
        if n == 0:
            side = legal & f.side
            return _side_by_power(f, side, True) if side else _high(legal)
        if partner_after:
            if winners & lead_suit:
                return _high(winners & lead_suit)
            if winners:
                return winners & -winners
            return _dump(f, legal, lead_suit, keep_high=True)
        if best_seat == partner:
            if winners:
                for c in split(winners):
                    if _sure(f, c, lead_suit, out, voids, later_opps):
                        return c
                return _high(winners)
            return _dump(f, legal, lead_suit, keep_high=True)

    if best_seat >= 0 and best_seat & 1 != me & 1 and bids[best_seat] == 0 \
            and tricks[best_seat] == 0:
        # An opponent's nil is winning this trick: let it.
        losers = legal & ~winners
        if losers:
            x = losers & lead_suit
            return _high(x) if x else _dump(f, losers, lead_suit, keep_high=True)

    taken = (tricks[me] if my_bid else 0) + (tricks[partner] if p_bid else 0)
    need = contracts[me & 1] - taken
    o1, o2 = me ^ 1, me ^ 3
    opp_contract = contracts[1 - (me & 1)]
    opp_taken = (tricks[o1] if bids[o1] else 0) + (tricks[o2] if bids[o2] else 0)
    opp_need = opp_contract - opp_taken
    left = 13 - (tricks[0] + tricks[1] + tricks[2] + tricks[3])
    # Setting the opponents is worth chasing only when a trick or two will do it.
    set_them = opp_contract > 0 and opp_need > 0 and left - opp_need <= 1
    want = need > 0 or set_them

    if not want:
        return _duck(f, legal, winners, n, lead_suit)

    if n == 0:
        return _lead(f, hand, legal, out, voids, me, broken)
    if best_seat == partner:
        if not later_opps or _sure(f, best, lead_suit, out, voids, later_opps):
            return _dump(f, legal, lead_suit, keep_high=True)
        # Overtake a partner only within the suit, never by trumping over them.
        mine = winners & lead_suit
        for c in split(mine):
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
            return _high(x) if x else winners & -winners
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
        return _shortest_suit_low(f, side) if keep_high else _side_by_power(f, side, True)
    return legal & -legal


def _duck(f: Fast, legal: int, winners: int, n: int, lead_suit: int) -> int:
    """Lose the trick, throwing the most dangerous card that still loses."""
    if n == 0:
        side = legal & f.side
        return _bottom_side(f, side) if side else legal & -legal
    losers = legal & ~winners
    if losers:
        x = losers & lead_suit
        if x:
            return _high(x)
        side = losers & f.side
        if side:
            return _top_side(f, side)
        return _high(losers)
    # Every card wins: the last seat takes it with its highest, others hope to be overtaken.
    return _high(legal) if n == 3 else legal & -legal


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
            top = _high(x)
            if _sure(f, top, s, out, voids, opps) and _power(top) > best_p:
                best, best_p = top, _power(top)
    if best:
        return best
    my_trumps = legal & trump
    if my_trumps and (broken or not side):
        top = _high(my_trumps)
        out_trumps = out & trump
        if not out_trumps & ~((top << 1) - 1) and my_trumps.bit_count() >= out_trumps.bit_count():
            return top
    if side:
        if hand & trump:
            return _shortest_suit_low(f, side)
        return _side_by_power(f, side, False)
    return legal & -legal


def choose_card(state: GameState, seat: int) -> int:
    """The card id ``seat`` plays now."""
    assert state.rules is not None
    k = Seen(state, seat)
    b = policy(k.f, seat, k.hand, k.trick, k.leader, k.played, k.bids, k.tricks, k.broken,
               k.voids, contracts_of(state.rules.board, k.bids))
    return k.f.card[b]


# --- bidding -----------------------------------------------------------------------------

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
        top_above = (f.trump & _above(_high(trumps))).bit_count()
        if top_above < (4, 4, 4, 6)[n]:
            return False
    for s in f.sides:
        x = hand & s
        for below, c in enumerate(split(x)):
            p = _power(c)
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
            c = _high(trumps) if trumps else _side_by_power(f, hand, True)
        else:
            side = hand & f.side
            c = _side_by_power(f, side, False) if side else hand & -hand
        chosen |= c
        hand ^= c
    return chosen
