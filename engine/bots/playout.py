"""The bots' fast path: ``engine.play``'s and ``engine.scoring``'s rules, on plain ints.

A search plays thousands of hands per decision, so it cannot afford events,
frozen states or card codes. Here each card is one bit at ``slot * 17 +
power``: side suits take slots 0-2 and the trump suit slot 3, so within a
suit a higher bit is a higher card, and every trump is above every side card.
That makes the questions a playout asks single int operations: the lowest
card of a suit is ``m & -m``, the best card of a trick is the largest among
the cards of the led suit and trumps, and "could this beat that" is ``>``.
A ``Fast`` table per deck variant maps engine card ids to these bits and back.

The rules themselves are not restated here (docs/architecture.md, rule 12): a
``Fast`` has the ``suit_of``/``suit_mask``/``trump_mask``/``power`` a ``Deck`` has, so
``engine.play``'s ``legal_mask``, ``breaks_spades``, ``winning`` and ``trick_winner`` run
on playout bits as they are, and the ``Scorer`` answers from ``engine.scoring.score_team``,
remembered per input.
"""

from __future__ import annotations

from functools import cache
from random import Random

from engine.cards import TRUMP, Deck, deck
from engine.play import any_trump_breaks, breaks_spades, legal_mask, trick_winner
from engine.scoring import score_team
from schemas.rules import Rules, SpadesBrokenBy

WIDTH = 17  # powers per slot: 13 ranks plus up to four elevated trumps
_SLOT = (3, 0, 1, 2)  # effective suit (S H D C) -> slot; trumps on top


class Fast:
    """One deck variant, and the rules' spades breaking, in the playout encoding."""

    __slots__ = ("all", "any_spade", "bit", "card", "power", "side", "sides", "suit",
                 "suit_at", "suit_mask", "suit_of", "trump", "trump_mask")

    def __init__(self, d: Deck, any_spade: bool = True) -> None:
        self.any_spade = any_spade  # a trump lead breaks spades (``spades_broken_by``)
        self.bit = [0] * 54  # engine card id -> one-bit mask (0 when not in this deck)
        self.card: dict[int, int] = {}  # one-bit mask -> engine card id
        self.suit_of: dict[int, int] = {}  # one-bit mask -> effective suit, as ``Deck``'s
        for c in d.cards:
            b = 1 << (_SLOT[d.suit_of[c]] * WIDTH + d.power[c])
            self.bit[c] = b
            self.card[b] = c
            self.suit_of[b] = d.suit_of[c]
        self.power = {b: b for b in self.card}  # a higher bit of a suit is a higher card
        self.suit = tuple(sum(self.bit[c] for c in d.cards if _SLOT[d.suit_of[c]] == s)
                          for s in range(4))  # by slot
        self.trump = self.suit[3]
        self.trump_mask = self.trump
        self.suit_mask = tuple(self.suit[_SLOT[e]] for e in range(4))  # by effective suit
        self.sides = self.suit[:3]
        self.side = self.suit[0] | self.suit[1] | self.suit[2]
        self.all = self.side | self.trump
        # bit_length of a card bit -> the mask of its suit
        self.suit_at = [0] * (4 * WIDTH + 1)
        for b in self.card:
            self.suit_at[b.bit_length()] = self.suit[(b.bit_length() - 1) // WIDTH]

    def to_bits(self, mask: int) -> int:
        out = 0
        bit = self.bit
        while mask:
            low = mask & -mask
            out |= bit[low.bit_length() - 1]
            mask ^= low
        return out

    def to_ids(self, mask: int) -> int:
        out = 0
        card = self.card
        while mask:
            low = mask & -mask
            out |= 1 << card[low]
            mask ^= low
        return out


@cache
def fast(deck_name: str, deuce_order: str = "diamond_high",
         spades_broken_by: SpadesBrokenBy = "any_spade") -> Fast:
    return Fast(deck(deck_name, deuce_order), any_trump_breaks(spades_broken_by))


def fast_of(rules: Rules) -> Fast:
    return fast(rules.deck, rules.deuce_order, rules.spades_broken_by)


# The legal cards of a hand in playout bits: ``engine.play.legal_mask`` itself (a ``Fast``
# is a deck to it), bound to the name the policies call.
legal = legal_mask


def breaks(f: Fast, trick: list[int], card: int) -> bool:
    """``engine.play.breaks_spades`` in playout bits, under the rules' breaking option."""
    return breaks_spades(f, trick, card, f.any_spade)


def split(mask: int) -> list[int]:
    """The one-bit cards of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


class Scorer:
    """``engine.scoring.score_team`` reduced to the two numbers a search needs.

    A search scores thousands of played-out hands a decision, nearly all of them
    alike, so each distinct input is scored once by the engine's own function and
    remembered: the fast path cannot disagree with the sheet. ``scorer`` keeps one
    per rules profile, so the memory outlives a single decision.
    """

    __slots__ = ("memo", "rules")

    def __init__(self, r: Rules) -> None:
        self.rules = r
        self.memo: dict[tuple[int, int, bool, bool, int, int, int], tuple[int, int]] = {}

    def team(self, bid_a: int, bid_b: int, blind_a: bool, blind_b: bool, took_a: int,
             took_b: int, bags: int) -> tuple[int, int]:
        """``(delta, bags_gained)`` of one team for one hand."""
        key = (bid_a, bid_b, blind_a, blind_b, took_a, took_b, bags)
        got = self.memo.get(key)
        if got is None:
            ts = score_team(self.rules, (bid_a, bid_b), (blind_a, blind_b), (took_a, took_b),
                            0, bags)
            got = self.memo[key] = (ts.delta, ts.bags_gained)
        return got


@cache
def scorer(r: Rules) -> Scorer:
    """The one ``Scorer`` of a rules profile (its memory is bounded by the inputs a hand
    can have: bids, blind flags, tricks and the bags carried)."""
    return Scorer(r)


def random_playout(f: Fast, hands: list[int], trick: list[int], leader: int, broken: bool,
                   tricks: list[int], rnd) -> list[int]:
    """Finish a hand with uniformly random legal cards; returns tricks per seat.

    ``hands`` (playout bits per seat) and ``tricks`` are consumed; ``trick`` is
    the cards of the trick in progress in play order, led by ``leader``;
    ``rnd`` is a ``Random().random``. The floor the bench measures the searches'
    playouts against; its legality and breaking are the engine's functions.
    """
    trick = list(trick)
    p = (leader + len(trick)) & 3
    while True:
        if not trick:
            if not hands[p]:
                return tricks
            leader = p
        h = hands[p]
        legal = legal_mask(f, h, trick, broken)
        k = int(rnd() * legal.bit_count())
        while k:
            legal &= legal - 1
            k -= 1
        c = legal & -legal
        hands[p] = h ^ c
        broken = broken or breaks_spades(f, trick, c, f.any_spade)
        trick.append(c)
        if len(trick) == 4:
            p = trick_winner(f, trick, leader)
            tricks[p] += 1
            trick = []
        else:
            p = (p + 1) & 3


def deal_random(f: Fast, rng: Random) -> list[int]:
    """Four random hands of 13 playout bits."""
    cards = split(f.all)
    rng.shuffle(cards)
    return [sum(cards[i:i + 13]) for i in (0, 13, 26, 39)]


def bench_random(f: Fast, n: int, seed: int = 1, deal_each: bool = True) -> int:
    """Play ``n`` random hands; returns a checksum so the work cannot be skipped."""
    rng = Random(seed)
    rnd = rng.random
    hands = deal_random(f, rng)
    total = 0
    for _ in range(n):
        if deal_each:
            hands = deal_random(f, rng)
        t = random_playout(f, list(hands), [], 0, False, [0, 0, 0, 0], rnd)
        total += t[0] + t[2]
    return total


__all__ = ["TRUMP", "Fast", "Scorer", "bench_random", "breaks", "deal_random", "fast",
           "fast_of", "legal", "random_playout", "scorer", "split"]
