"""Blind nil: bid it only when it is likely to be made.

A seat offered blind nil has not seen its cards, so the one thing it can know
is how often a blind nil is made under these rules: the exchange the rules
allow, a partner who covers, and opponents who try to set it. ``odds`` plays
that out on ``ODDS_DEALS`` seeded random deals through the ``basic`` policy
(the fast path), once per rules profile. A bot bids blind nil only where
those odds are at least even, and only one seat of a pair does so (the first
of the two to bid), so the pair never stakes both seats on the same gamble.
"""

from __future__ import annotations

from functools import cache
from random import Random

from engine.bots.basic import policy
from engine.bots.bidding import bid_for, pass_bits
from engine.bots.expert import rollout
from engine.bots.playout import deal_random, fast_of
from engine.bots.seen import contracts_of, visible_bids
from engine.evolve import blind_nil_offered
from engine.state import GameState
from schemas.rules import Rules

ODDS_DEALS = 400  # seeded deals per rules profile: the estimate's standard error is 2.5%
EVEN = 0.5  # a blind nil is worth as much made as it costs failed


@cache
def odds(r: Rules) -> float:
    """How often a blind nil is made under ``r``, by the ``basic`` bots at every seat.

    Seat 0 bids blind nil; when the rules allow an exchange it passes and takes
    ``blind_nil_pass`` cards; the others bid as ``basic`` does on their hands
    (the partner knowing of the nil) and everyone plays the ``basic`` policy.
    """
    f = fast_of(r)
    rng = Random(f"blind-nil-odds:{r.deck}:{r.deuce_order}:{r.blind_nil_pass}")
    n = r.blind_nil_pass
    made = 0
    for i in range(ODDS_DEALS):
        hands = deal_random(f, rng)
        if n:
            give = pass_bits(f, hands[0], n, True)
            take = pass_bits(f, hands[2], n, False)
            hands[0] ^= give | take
            hands[2] ^= give | take
        bids = [0, 0, 0, 0]
        bids[2] = bid_for(f, hands[2], 0, r.nil)
        bids[1] = bid_for(f, hands[1], -1, r.nil)
        bids[3] = bid_for(f, hands[3], bids[1], r.nil)
        leader = i & 3
        contracts = contracts_of(r.board, bids)
        zero = [0, 0, 0, 0]
        first = policy(f, leader, hands[leader], [], leader, 0, bids, zero, False, zero,
                       contracts)
        tricks = rollout(f, leader, first, hands, [], leader, 0, bids, [0, 0, 0, 0], False,
                         [0, 0, 0, 0], contracts)
        made += tricks[0] == 0
    return made / ODDS_DEALS


def wants_blind_nil(state: GameState, seat: int) -> bool:
    """Whether ``seat`` bids blind nil now: offered, behind by at least the margin the
    rules ask (200 when they ask less), the first of its pair to bid, its partner not
    nil already, and a blind nil at least as likely made as failed under these rules."""
    r = state.rules
    if r is None or not blind_nil_offered(state, seat):
        return False
    team = seat & 1
    behind = state.scores[1 - team] - state.scores[team]
    if behind < max(r.blind_nil_margin or 0, 200):
        return False
    first = (state.dealer + 1) % 4
    if (seat - first) % 4 > (seat ^ 2 - first) % 4:
        return False  # the partner bids first: the gamble, if any, is its own
    if visible_bids(state, seat)[seat ^ 2] == 0 or state.blind >> (seat ^ 2) & 1:
        return False
    return odds(r) >= EVEN
