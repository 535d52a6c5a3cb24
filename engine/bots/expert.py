"""The ``expert`` bot: determinized search over the cards it cannot see.

For each sampled deal of the unseen cards (consistent with the cards played,
the voids each seat has shown, the cards it passed, and a nil bidder's
reluctance to hold high cards), every distinct candidate card is played out to
the end of the hand by the ``basic`` policy for all four seats, and scored with
the hand's real scoring. The card with the best total wins. All candidates see
the same sampled deals, so the comparison is between cards, not between luck.
Strength grows with ``budget``, the number of sampled deals (16 instead of 32
loses some 23 points a deal; 48 gains a few, inside the noise of 100 deals).
The candidates are only ``partner_safe`` cards: a search with so few deals
must not talk itself into a partner blunder on noise. Two cards of a suit are
one candidate only when no card still out, or on the table, lies between them.

Bids are searched the same way: deals of the other hands, the other seats
bidding as ``basic`` would on them (or their bids where already public), each
candidate bid near the ``basic`` count (and nil where the hand might carry
one) played out and scored. Blind nil is ``engine.bots.blind``'s, the exchange
``basic``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp
from random import Random

from engine.bots.basic import policy
from engine.bots.bidding import bid_for, estimate
from engine.bots.bits import above, power
from engine.bots.paired import Paired
from engine.bots.playout import Fast, Scorer, breaks, fast_of, split
from engine.bots.playout import legal as legal_bits
from engine.bots.playout import scorer as scorer_of
from engine.bots.seen import Seen, contracts_of, visible_bids
from engine.play import trick_winner, winning
from engine.state import GameState
from schemas.rules import Rules

DEFAULT_BUDGET = 32
_NIL_HIGH_WEIGHT = 0.2  # how much less likely a live nil is to hold a high card
_PRUNE = 2.0  # standard errors below the basic card that stop a card being searched
_PRUNE_AFTER = 8  # deals before any pruning
_WIDEST = 8  # candidate cards a decision's rollouts are counted for, at most
_BID_FIT = 0.2  # 1 / (2 sigma^2): a count 1.6 tricks off its bid halves a deal's weight


def candidates(f: Fast, legal: int, out: int) -> list[int]:
    """One card per group of equivalent cards: neighbours in a suit with no outstanding
    card between them win and lose the same tricks, so only one needs searching."""
    picks = []
    for s in f.suit:
        x = legal & s
        prev = 0
        while x:
            c = x & -x
            x ^= c
            if prev and not out & above(prev) & (c - 1):
                continue
            picks.append(c)
            prev = c
    return picks


class Sampler:
    """Deals the unseen cards to the other seats, most constrained cards first.

    ``weight`` says how well a sampled deal fits the bids: each bidder's hand as
    dealt (the sample plus what it has played) is counted the way ``basic``
    counts a hand, and a count far from the bid makes the deal less likely.
    """

    def __init__(self, k: Seen, rng: Random) -> None:
        f = k.f
        self.f = f
        self.rnd = rng.random
        me = k.me
        unseen = f.all & ~k.played & ~k.hand
        known = list(k.known)
        known[me] = k.hand
        self.known = known
        free = unseen & ~(known[0] | known[1] | known[2] | known[3])
        others = [s for s in range(4) if s != me]
        self.cap = [0 if s == me else k.sizes[s] - known[s].bit_count() for s in range(4)]
        self.others = others
        live_nil = [k.bids[s] == 0 and k.tricks[s] == 0 for s in range(4)]
        entries = []
        for c in split(free):
            allowed = [s for s in others if not k.voids[s] & c]
            high = power(c) >= (11 if c & f.trump else 10)
            weights = [_NIL_HIGH_WEIGHT if high and live_nil[s] else 1.0 for s in allowed]
            entries.append((len(allowed), c, allowed, weights))
        entries.sort(key=lambda e: e[0])
        self.entries = [(c, a, w) for _, c, a, w in entries]
        self.free = [c for c, _, _ in self.entries]
        self.bidders = [(s, k.bids[s], k.played_by[s]) for s in others if k.bids[s] > 0]

    def weight(self, hands: list[int]) -> float:
        f = self.f
        miss = 0.0
        for s, bid, played in self.bidders:
            miss += (estimate(f, hands[s] | played) - bid) ** 2
        return exp(-miss * _BID_FIT)

    def sample(self) -> list[int]:
        rnd = self.rnd
        for _ in range(8):
            cap = self.cap[:]
            hands = self.known[:]
            for c, allowed, weights in self.entries:
                total = 0.0
                for s, w in zip(allowed, weights, strict=True):
                    total += cap[s] * w
                if not total:
                    break
                x = rnd() * total
                seat = -1
                for s, w in zip(allowed, weights, strict=True):
                    if cap[s]:
                        seat = s
                        x -= cap[s] * w
                        if x < 0:
                            break
                hands[seat] |= c
                cap[seat] -= 1
            else:
                return hands
        # The constraints could not be met by chance: deal ignoring voids.
        cap = self.cap[:]
        hands = self.known[:]
        cards = self.free[:]
        Random(int(rnd() * 2**32)).shuffle(cards)
        i = 0
        for s in self.others:
            for c in cards[i:i + cap[s]]:
                hands[s] |= c
            i += cap[s]
        return hands


def rollout(f: Fast, me: int, first: int, hands: list[int], trick: list[int], leader: int,
            played: int, bids: Sequence[int], tricks: list[int], broken: bool,
            voids: list[int], contracts: Sequence[int]) -> list[int]:
    """Play ``first`` for ``me``, then the ``basic`` policy for every seat to the end.

    ``hands``, ``tricks`` and ``voids`` are consumed; returns the tricks per seat.
    """
    trump = f.trump
    suit_at = f.suit_at
    p = me
    c = first
    trick = list(trick)
    while True:
        if trick:
            lead_suit = suit_at[trick[0].bit_length()]
            if not c & lead_suit:
                voids[p] |= lead_suit
        else:
            leader = p
        hands[p] ^= c
        if c & trump and not broken:
            broken = breaks(f, trick, c)
        trick.append(c)
        played |= c
        if len(trick) == 4:
            p = trick_winner(f, trick, leader)
            tricks[p] += 1
            trick = []
            leader = p
            if not hands[p]:
                return tricks
        else:
            p = (p + 1) & 3
        h = hands[p]
        c = legal_bits(f, h, trick, broken)
        if c & (c - 1):  # more than one legal card: ask the policy
            c = policy(f, p, h, trick, leader, played, bids, tricks, broken, voids, contracts)


def bag_weight_of(r: Rules) -> float:
    """What one bag costs a team in a hand's value: half the penalty it brings nearer."""
    return 0.5 * r.bag_penalty / r.bag_limit if r.bag_penalty else 0.0


def margin(scorer: Scorer, team: int, bids: Sequence[int], blind: Sequence[bool],
            took: Sequence[int], bags: Sequence[int], bag_weight: float) -> float:
    """What a played-out hand is worth to ``team``: its score less the other team's,
    each bag charged ``bag_weight`` for the penalty it brings nearer."""
    mine, bags_mine = scorer.team(bids[team], bids[team + 2], blind[team], blind[team + 2],
                                  took[team], took[team + 2], bags[team])
    theirs, bags_theirs = scorer.team(bids[1 - team], bids[3 - team], blind[1 - team],
                                      blind[3 - team], took[1 - team], took[3 - team],
                                      bags[1 - team])
    return mine - theirs - bag_weight * (bags_mine - bags_theirs)


def choose_card(state: GameState, seat: int, seed: int = 0,
                budget: int | None = None, sees_partner: bool = False) -> int:
    """The card id ``seat`` plays. ``sees_partner``: the search deals the partner's real
    cards, the cheat ``engine.fairplay`` is measured against (no seated bot does).

    The search leaves the ``basic`` card only for one that did better on the
    same sampled deals by more than the noise of so few samples (a paired
    comparison, ``engine.bots.paired``): a small budget then costs little, and a
    larger one finds more.
    """
    r = state.rules
    assert r is not None
    k = Seen(state, seat)
    f = k.f
    if sees_partner:
        k.known[seat ^ 2] = f.to_bits(state.hands[seat ^ 2])
    hand = k.hand
    legal = legal_bits(f, hand, k.trick, k.broken)
    # Cards still out, and the cards of this trick: a card on the table separates two of
    # ours as surely as one in an opponent's hand (a jack and a king over a queen led).
    out = f.all & ~k.played & ~hand | sum(k.trick)
    contracts = contracts_of(r.board, k.bids)
    plain = policy(f, seat, hand, k.trick, k.leader, k.played, k.bids, k.tricks, k.broken,
                   k.voids, contracts)
    cands = candidates(f, partner_safe(k, legal), out)
    if len(cands) == 1:
        return f.card[cands[0]]
    _basic_first(f, cands, plain, out)
    rng = Random(seed * 1_000_003 + state.version * 4 + seat)
    return f.card[cands[_search(state, seat, k, cands, contracts, rng, budget)]]


def _search(state: GameState, seat: int, k: Seen, cands: list[int],
            contracts: Sequence[int], rng: Random, budget: int | None) -> int:
    """The index in ``cands`` of the card to play: each candidate is rolled out on the
    same sampled deals as the first (the ``basic`` card), and one that does worse than
    it beyond the noise is pruned as the samples come in."""
    r = state.rules
    assert r is not None
    f = k.f
    sampler = Sampler(k, rng)
    scorer = scorer_of(r)
    team = seat & 1
    bids = k.bids
    blind = [bool(state.blind >> s & 1) for s in range(4)]
    bag_weight = bag_weight_of(r)
    m = len(cands)
    paired = Paired(m)
    active = list(range(1, m))
    # Rollouts; a pruned card's go to more deals. At most ``_WIDEST`` cards' worth, so the
    # widest choices (the first tricks, rollouts longest) stay within the time a turn has.
    spend = (budget or DEFAULT_BUDGET) * min(m, _WIDEST)
    samples = 0
    while spend > 0 and active and samples < 4 * (budget or DEFAULT_BUDGET):
        hands = sampler.sample()
        samples += 1
        w = sampler.weight(hands)
        base = 0.0
        for i in (0, *active):
            t = rollout(f, seat, cands[i], hands[:], k.trick, k.leader, k.played, bids,
                        k.tricks[:], k.broken, k.voids[:], contracts)
            v = margin(scorer, team, bids, blind, t, state.bags, bag_weight)
            spend -= 1
            if i == 0:
                base = v
            else:
                paired.add(i, w, v - base)
        if samples >= _PRUNE_AFTER and samples % 4 == 0:
            active = [i for i in active if paired.bound(i, _PRUNE) >= 0]
    return paired.surely_better()


def _basic_first(f: Fast, cands: list[int], plain: int, out: int) -> None:
    """Put the ``basic`` card (or the candidate that stands for it: a lower card of its
    suit that nothing still out separates from it) first, the default to beat."""
    for i, c in enumerate(cands):
        if c == plain or (c < plain and c & _suit(f, plain)
                          and not out & above(c) & (plain - 1)):
            cands.insert(0, cands.pop(i))
            return
    # Cannot happen (``basic`` keeps to ``partner_safe``), but never search blind.
    cands.insert(0, plain)


def partner_safe(k: Seen, legal: int) -> int:
    """The legal cards that commit none of the partner blunders; the search picks among
    these only (the ``basic`` policy keeps to them by its rules of thumb).

    With the partner's nil alive (and this seat's own nil not): a lead is the top card
    of a suit, so the nil can duck under it; and a nil card winning the trick is
    covered when a card can. With the partner winning a trick nobody still to play can
    take from it (as far as this seat can see): no overtaking while a card that loses
    to it is legal.
    """
    f = k.f
    me, partner = k.me, k.me ^ 2
    trick = k.trick
    # A partner's nil to protect (unless this seat's own nil is alive too: it ducks).
    guard = k.bids[partner] == 0 and k.tricks[partner] == 0 and (
        k.bids[me] != 0 or k.tricks[me] > 0)
    if guard and not trick:
        tops = 0
        for s in f.suit:
            x = legal & s
            if x:
                tops |= 1 << (x.bit_length() - 1)
        return tops
    if not trick:
        return legal
    lead_suit = f.suit_at[trick[0].bit_length()]
    best_i = winning(f, trick)
    best = trick[best_i]
    if (k.leader + best_i) & 3 != partner:
        return legal
    beat = above(best) & (f.trump if best & f.trump else lead_suit | f.trump)
    over, under = legal & beat, legal & ~beat
    if guard:
        return over or legal
    out = f.all & ~k.played & ~k.hand
    later = [(me + j) & 3 for j in range(1, 4 - len(trick))]
    if under and not any(out & ~k.voids[o] & beat for o in later if o & 1 != me & 1):
        return under
    return legal


def _suit(f: Fast, c: int) -> int:
    return f.suit_at[c.bit_length()]


def choose_bid(state: GameState, seat: int, seed: int = 0, budget: int | None = None) -> int:
    """The bid for ``seat``: the ``basic`` bid unless a neighbour scored clearly better."""
    r = state.rules
    assert r is not None
    f = fast_of(r)
    hand = f.to_bits(state.hands[seat])
    seen = visible_bids(state, seat)
    base = bid_for(f, hand, seen[seat ^ 2], r.nil)
    cands = [base, *(b for b in (base - 1, base + 1) if 1 <= b <= 13)]
    if r.nil and base and seen[seat ^ 2] != 0 and estimate(f, hand) < 3.0:
        cands.append(0)
    others = [s for s in range(4) if s != seat]
    rest = split(f.all & ~hand)
    rng = Random(seed * 1_000_003 + state.version * 4 + seat + 99_991)
    scorer = scorer_of(r)
    team = seat & 1
    blind = [bool(state.blind >> s & 1) and seen[s] == 0 for s in range(4)]
    bag_weight = bag_weight_of(r)
    leader = (state.dealer + 1) % 4
    paired = Paired(len(cands))
    zero4 = [0, 0, 0, 0]
    for _ in range(budget or DEFAULT_BUDGET):
        rng.shuffle(rest)
        hands = [0, 0, 0, 0]
        hands[seat] = hand
        for j, s in enumerate(others):
            hands[s] = sum(rest[13 * j:13 * j + 13])
        bids = list(seen)
        miss = 0.0
        for s in others:
            if bids[s] < 0:
                bids[s] = bid_for(f, hands[s], seen[s ^ 2] if s ^ 2 != seat else -1, r.nil)
            elif bids[s] > 0:
                miss += (estimate(f, hands[s]) - bids[s]) ** 2
        w = exp(-miss * _BID_FIT)
        base_value = 0.0
        for i, b in enumerate(cands):
            bids[seat] = b
            contracts = contracts_of(r.board, bids)
            first = policy(f, leader, hands[leader], [], leader, 0, bids, zero4, False, zero4,
                           contracts)
            t = rollout(f, leader, first, hands[:], [], leader, 0, bids, [0, 0, 0, 0], False,
                        [0, 0, 0, 0], contracts)
            v = margin(scorer, team, bids, blind, t, state.bags, bag_weight)
            if i == 0:
                base_value = v
            else:
                paired.add(i, w, v - base_value)
    return cands[paired.surely_better()]
