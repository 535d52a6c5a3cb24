"""Blind nil: bid it only when the gamble gains points on average under these rules.

A seat offered blind nil has not seen its cards, so what it can know is what a
blind nil is worth under these rules against what looking and bidding by count
is worth: the exchange the rules allow, a partner who covers, opponents who try
to set it, the blind nil's value, what failing it costs, and the tricks the
seat gives up by bidding nothing. ``price`` plays that out on ``ODDS_DEALS``
seeded random deals through the ``basic`` bids and policy (the fast path), each
deal twice, once per rules profile:

- blind: seat 0 bids blind nil, passes and takes ``blind_nil_pass`` cards when
  the rules allow an exchange, its partner bids knowing of the nil;
- looked: seat 0 looks and bids by count, its partner knowing its bid;

and scores both as the ``expert`` values a hand (its team's points less the
other team's, each bag charged half the penalty it brings nearer).

The rule: a seat bids blind nil when its team is at least 200 behind (or the
rules' own margin, if larger), it is the first of its pair to bid (so a pair
never stakes both seats), and the mean gain of blind over looked is more than
one standard error above zero. Under the house rules without an exchange a
blind nil is made about 27% of the time and costs some 140 points a deal, so
no bot bids it; with a one-card exchange it is made about 62% of the time and
gains about 28, so the bots take it. A blind nil made more often than not is
not enough: worth 50 points with one card exchanged it still loses some 9
points a deal, and is left alone.
"""

from __future__ import annotations

from random import Random
from typing import NamedTuple

from engine.bots.basic import policy
from engine.bots.bidding import bid_for, pass_bits
from engine.bots.expert import bag_weight_of, margin, rollout
from engine.bots.playout import Fast, deal_random, fast_of, scorer
from engine.bots.seen import contracts_of, visible_bids
from engine.evolve import blind_nil_offered
from engine.state import GameState
from schemas.rules import Rules

ODDS_DEALS = 1000  # seeded deals per rules profile (about 0.3 s, once): the made rate within 1.6%
BEHIND = 200  # how far behind a team must be before one of its seats gambles


class Price(NamedTuple):
    """What a blind nil is worth under one rules profile, by the ``basic`` bots."""

    made: float  # how often it is made
    gain: float  # mean points gained per deal over looking and bidding by count
    error: float  # the standard error of ``gain``

    @property
    def favourable(self) -> bool:
        return self.gain - self.error > 0


_PRICES: dict[Rules, Price] = {}


def price(r: Rules) -> Price:
    """What a blind nil is worth under ``r``: worked out once per rules and kept."""
    known = _PRICES.get(r)
    if known is None:
        known = _PRICES[r] = _price(r)
    return known


def priced(r: Rules) -> bool:
    """Whether ``price(r)`` is known already, so that asking is instant."""
    return r in _PRICES


def _price(r: Rules) -> Price:
    """A blind nil at seat 0 against seat 0 looking, on the same ``ODDS_DEALS`` deals."""
    f = fast_of(r)
    rng = Random(f"blind-nil-odds:{r.deck}:{r.deuce_order}:{r.blind_nil_pass}")
    sc = scorer(r)
    weight = bag_weight_of(r)
    n = r.blind_nil_pass
    made = 0
    total = squares = 0.0
    for i in range(ODDS_DEALS):
        dealt = deal_random(f, rng)
        hands = dealt[:]
        if n:
            give = pass_bits(f, hands[0], n, True)
            take = pass_bits(f, hands[2], n, False)
            hands[0] ^= give | take
            hands[2] ^= give | take
        bids = _bids(f, r, hands, 0)
        tricks = _play(f, r, hands, bids, i & 3)
        made += tricks[0] == 0
        blind = margin(sc, 0, bids, (True, False, False, False), tricks, (0, 0), weight)
        bids = _bids(f, r, dealt, bid_for(f, dealt[0], -1, r.nil))
        tricks = _play(f, r, dealt[:], bids, i & 3)
        looked = margin(sc, 0, bids, (False,) * 4, tricks, (0, 0), weight)
        total += blind - looked
        squares += (blind - looked) ** 2
    mean = total / ODDS_DEALS
    var = max(squares / ODDS_DEALS - mean * mean, 0.0)
    return Price(made / ODDS_DEALS, mean, (var / ODDS_DEALS) ** 0.5)


def _bids(f: Fast, r: Rules, hands: list[int], first: int) -> list[int]:
    """Seat 0 bids ``first``; the others bid as ``basic`` does, the partner knowing it."""
    bids = [first, 0, 0, 0]
    bids[2] = bid_for(f, hands[2], first, r.nil)
    bids[1] = bid_for(f, hands[1], -1, r.nil)
    bids[3] = bid_for(f, hands[3], bids[1], r.nil)
    return bids


def _play(f: Fast, r: Rules, hands: list[int], bids: list[int], leader: int) -> list[int]:
    """The tricks per seat of ``hands`` played out by the ``basic`` policy (consumes them)."""
    contracts = contracts_of(r.board, bids)
    zero = [0, 0, 0, 0]
    first = policy(f, leader, hands[leader], [], leader, 0, bids, zero, False, zero, contracts)
    return rollout(f, leader, first, hands, [], leader, 0, bids, [0, 0, 0, 0], False,
                   [0, 0, 0, 0], contracts)


def wants_blind_nil(state: GameState, seat: int) -> bool:
    """Whether ``seat`` bids blind nil now: offered, behind by at least ``BEHIND`` (or the
    rules' margin when larger), the first of its pair to bid, its partner not nil
    already, and the gamble's ``price`` favourable under these rules."""
    r = state.rules
    if r is None or not blind_nil_offered(state, seat):
        return False
    team = seat & 1
    behind = state.scores[1 - team] - state.scores[team]
    if behind < max(r.blind_nil_margin or 0, BEHIND):
        return False
    first = (state.dealer + 1) % 4
    if (seat - first) % 4 > (seat ^ 2 - first) % 4:
        return False  # the partner bids first: the gamble, if any, is its own
    if visible_bids(state, seat)[seat ^ 2] == 0 or state.blind >> (seat ^ 2) & 1:
        return False
    return price(r).favourable
