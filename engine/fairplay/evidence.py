"""What one card says about its player: did it follow the partner's real hand?

The test is a placebo comparison (docs/fairplay.md). At a decision, the expert's
sampled search is run twice with the partner's hand fixed: once to the hand the
partner really held, once to a plausible hand drawn from what the player could
see (the expert's own sampler, weighted by the bids). An honest player's card
depends only on what it saw, and given that, the real hand and the plausible
one are two draws of the same thing: an honest card is surely the best with one
and surely beaten with the other as often one way as the other, however strong
the player. A player who sees its partner's cards plays the real hand's clear
best, and avoids its clear mistakes, more often. Skill moves both ways together
and cancels out; only hidden information separates them.

Only sure verdicts are compared: a card surely the best (every other card surely
worse, by a standard error of the paired comparison) with one hand and surely
beaten (another surely better) with the other. A search that ends unsure says
something of the hand, not of the player: searches with the real hand end unsure
more often than with a plausible one (the sampler's hands fit the bids better),
which tilts any comparison of a sure verdict with an unsure one, one way or the
other, for honest players too (measured, docs/fairplay.md).
"""

from __future__ import annotations

from random import Random
from typing import NamedTuple

from engine.bots.bits import above
from engine.bots.expert import Sampler, bag_weight_of, candidates, margin, rollout
from engine.bots.paired import Paired
from engine.bots.playout import Fast
from engine.bots.playout import legal as legal_bits
from engine.bots.playout import scorer as scorer_of
from engine.bots.seen import Seen, contracts_of
from engine.state import GameState

DEALS = 12  # sampled deals of the opponents' cards per search (at most: it may stop early)
_PLAUSIBLE_DRAWS = 8  # partner hands drawn before one is picked by how well it fits the bids
_SAME = 1e-9  # values closer than this are a tie (then no card is "the" best)
_PRUNE_AFTER = 3  # deals before a search may stop early
_SURE = 1.0  # standard errors a paired difference must clear to be sure of its sign
# How surely a search found the card played the best, from its exit:
NOT = 0  # a candidate surely better (the search stopped early)
BEHIND = 1  # every deal searched, a candidate ahead in sum
AHEAD = 2  # every deal searched, the card played ahead of every candidate left
SURE = 3  # every other candidate surely worse (the search stopped early)


class Card(NamedTuple):
    """One weighed card decision."""

    seat: int
    # +1: surely the best with the real hand and surely beaten with the plausible one;
    # -1: the other way round; else 0
    told: int
    hand: int = 0  # the hand's number in its game, for a reviewer to find the decision
    card: str = ""  # the card played


def group_of(f: Fast, cands: list[int], card: int, out: int) -> int:
    """The candidate standing for ``card``: the one of its suit with no card still out
    between them (such cards win and lose the same tricks)."""
    suit = f.suit_at[card.bit_length()]
    for c in cands:
        lo, hi = min(c, card), max(c, card)
        if c & suit and not out & above(lo) & (hi - 1):
            return c
    return card


def weigh_card(state: GameState, seat: int, card: int, seed: int,
               deals: int = DEALS) -> Card | None:
    """The evidence of ``seat`` playing engine card id ``card`` in ``state``; None when
    the choice was forced (one candidate) and so says nothing."""
    g = grades(state, seat, card, seed, deals)
    return None if g is None else Card(seat, tells(*g))


def tells(real: int, plausible: int) -> int:
    """What a decision tells from its two searches' grades: +1 when the card played was
    surely the best with the real hand and surely beaten with the plausible one (it
    followed the real hand), -1 the other way round, else 0: a search that ended
    unsure tells nothing, since the real hand's searches end unsure more often than the
    plausible hand's for honest players too (docs/fairplay.md)."""
    return int(real == SURE and plausible == NOT) - int(plausible == SURE and real == NOT)


def grades(state: GameState, seat: int, card: int, seed: int,
           deals: int = DEALS) -> tuple[int, int] | None:
    """How surely the card played is the best with the partner's real hand and with a
    plausible one (``NOT``..``SURE`` each; ``BEHIND`` for both, unsearched, when the
    plausible hand drawn is the real one); None for a forced card."""
    k = Seen(state, seat)
    f = k.f
    legal = legal_bits(f, k.hand, k.trick, k.broken)
    out = f.all & ~k.played & ~k.hand | sum(k.trick)
    cands = candidates(f, legal, out)
    if len(cands) < 2:
        return None
    played = cands.index(group_of(f, cands, f.bit[card], out))
    real = f.to_bits(state.hands[seat ^ 2])
    plausible = _plausible(k, Random(seed))
    if plausible == real:  # the same search twice: the card cannot tell them apart
        return (BEHIND, BEHIND)
    return (_played_best(state, k, real, cands, played, Random(seed + 1), deals),
            _played_best(state, k, plausible, cands, played, Random(seed + 1), deals))


def _plausible(k: Seen, rng: Random) -> int:
    """A partner hand the player could not tell from the real one: drawn by the expert's
    sampler and picked in proportion to how well the deal fits the bids."""
    sampler = Sampler(k, rng)
    draws = [sampler.sample() for _ in range(_PLAUSIBLE_DRAWS)]
    weights = [sampler.weight(h) for h in draws]
    x = rng.random() * sum(weights)
    for h, w in zip(draws, weights, strict=True):
        x -= w
        if x < 0:
            return h[k.me ^ 2]
    return draws[-1][k.me ^ 2]


def _played_best(state: GameState, k: Seen, partner: int, cands: list[int], played: int,
                 rng: Random, deals: int) -> int:
    """How surely candidate ``played`` has the best mean value to the player's team, alone
    (a grade, ``NOT``..``SURE``), over ``deals`` deals of the opponents' cards, the
    partner holding ``partner``. Every candidate sees the same deals, each deal counting
    by how well it fits the bids.

    Only that question is asked, so the search stops early (a paired comparison with
    ``played``, ``engine.bots.paired``): a candidate surely worse than ``played`` after
    ``_PRUNE_AFTER`` deals is dropped, and one surely better ends the search (``played``
    is surely beaten, ``NOT``; every other one dropped: ``SURE``). Both searches of a
    decision follow the same rule, so a pruned search still treats the real hand and the
    plausible one alike."""
    r = state.rules
    assert r is not None
    known = k.known
    k.known = [partner if s == k.me ^ 2 else known[s] for s in range(4)]
    try:
        sampler = Sampler(k, rng)
    finally:
        k.known = known
    f, me = k.f, k.me
    scorer = scorer_of(r)
    contracts = contracts_of(r.board, k.bids)
    blind = [bool(state.blind >> s & 1) for s in range(4)]
    bag_weight = bag_weight_of(r)
    paired = Paired(len(cands))
    active = [i for i in range(len(cands)) if i != played]
    for n in range(1, deals + 1):
        hands = sampler.sample()
        w = sampler.weight(hands)
        base = 0.0
        for i in (played, *active):
            t = rollout(f, me, cands[i], hands[:], k.trick, k.leader, k.played, k.bids,
                        k.tricks[:], k.broken, k.voids[:], contracts)
            v = margin(scorer, me & 1, k.bids, blind, t, state.bags, bag_weight)
            if i == played:
                base = v
            else:
                paired.add(i, w, v - base)
        if n >= _PRUNE_AFTER and n < deals:
            if any(paired.bound(i, -_SURE) > 0 for i in active):
                return NOT
            active = [i for i in active if paired.bound(i, _SURE) >= 0]
            if not active:
                return SURE
    # Ahead of every candidate left: ahead in sum (a tie names no best card).
    return AHEAD if all(paired.diff[i] < -_SAME for i in active) else BEHIND
