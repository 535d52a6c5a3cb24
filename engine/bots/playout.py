"""The bots' fast path: the same trick-play rules as ``engine.play``, on plain ints.

A search plays thousands of hands per decision, so it cannot afford events,
frozen states or card codes. Here each card is one bit at ``slot * 17 +
power``: side suits take slots 0-2 and the trump suit slot 3, so within a
suit a higher bit is a higher card, and every trump is above every side card.
That makes the questions a playout asks single int operations: the lowest
card of a suit is ``m & -m``, the best card of a trick is the largest among
the cards of the led suit and trumps, and "could this beat that" is ``>``.
A ``Fast`` table per deck variant maps engine card ids to these bits and back.
"""

from __future__ import annotations

from functools import cache
from random import Random

from engine.cards import TRUMP, Deck, deck
from schemas.rules import Rules

WIDTH = 17  # powers per slot: 13 ranks plus up to four elevated trumps
_SLOT = (3, 0, 1, 2)  # effective suit (S H D C) -> slot; trumps on top


class Fast:
    """One deck variant, and the rules' spades breaking, in the playout encoding."""

    __slots__ = ("all", "any_spade", "bit", "card", "side", "sides", "suit", "suit_at", "trump")

    def __init__(self, d: Deck, any_spade: bool = True) -> None:
        self.any_spade = any_spade  # a trump lead breaks spades (``spades_broken_by``)
        self.bit = [0] * 54  # engine card id -> one-bit mask (0 when not in this deck)
        self.card: dict[int, int] = {}  # one-bit mask -> engine card id
        for c in d.cards:
            b = 1 << (_SLOT[d.suit_of[c]] * WIDTH + d.power[c])
            self.bit[c] = b
            self.card[b] = c
        self.suit = tuple(sum(self.bit[c] for c in d.cards if _SLOT[d.suit_of[c]] == s)
                          for s in range(4))  # by slot
        self.trump = self.suit[3]
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
         spades_broken_by: str = "any_spade") -> Fast:
    return Fast(deck(deck_name, deuce_order), spades_broken_by == "any_spade")


def fast_of(rules: Rules) -> Fast:
    return fast(rules.deck, rules.deuce_order, rules.spades_broken_by)


def legal(f: Fast, hand: int, trick: list[int], broken: bool) -> int:
    """``engine.play.legal_mask`` in playout bits, for the searches' policies.

    A twin kept for speed (no card ids, no tuples); the tests hold it, and the
    inlined copy in ``random_playout``, to the engine's on every input.
    """
    if trick:
        return hand & f.suit_at[trick[0].bit_length()] or hand
    return hand if broken else (hand & f.side or hand)


def breaks(f: Fast, trick: list[int], card: int) -> bool:
    """``engine.play.breaks_spades`` in playout bits (held to it by the tests too)."""
    if not card & f.trump:
        return False
    return f.any_spade or (bool(trick) and not trick[0] & f.trump)


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

    Kept apart from the engine's version for speed (no structs per hand); the
    tests hold the two to the same results on every input.
    """

    __slots__ = ("bag_limit", "bag_penalty", "blind_value", "board", "boston",
                 "boston_bonus", "boston_needs_bid", "carry", "failed", "nil_value",
                 "ten_for_200")

    def __init__(self, r: Rules) -> None:
        self.board = r.board
        self.nil_value = r.nil_value
        self.blind_value = r.blind_nil_value
        self.failed = r.failed_nil
        self.bag_limit = r.bag_limit
        self.bag_penalty = r.bag_penalty
        self.boston = r.boston
        self.boston_bonus = r.boston_bonus
        self.boston_needs_bid = r.boston_needs_bid
        self.ten_for_200 = r.ten_for_200
        self.carry = r.bag_carry

    def contract(self, bid_a: int, bid_b: int) -> int:
        if bid_a == 0 and bid_b == 0:
            return 0
        return max(bid_a + bid_b, self.board)

    def team(self, bid_a: int, bid_b: int, blind_a: bool, blind_b: bool, took_a: int,
             took_b: int, bags: int) -> tuple[int, int]:
        """``(delta, bags_gained)`` of one team for one hand."""
        points = 0
        failed = 0
        counted = 0
        if bid_a == 0:
            v = self.blind_value if blind_a else self.nil_value
            points += -v if took_a else v
            failed += took_a
        else:
            counted += took_a
        if bid_b == 0:
            v = self.blind_value if blind_b else self.nil_value
            points += -v if took_b else v
            failed += took_b
        else:
            counted += took_b
        double = bid_a == 0 and bid_b == 0
        mode = self.failed
        if mode == "help_partner":
            if double:
                mode = "bags_scored"
            else:
                counted += failed
                failed = 0
        bags_gained = 0
        if not double:
            contract = max(bid_a + bid_b, self.board)
            flat = self.ten_for_200 and contract >= 10
            value = 200 if flat else 10 * contract
            if counted >= contract:
                bags_gained = counted - contract
                points += value + (0 if flat else bags_gained)
            else:
                points -= value
        if mode == "bags_scored":
            bags_gained += failed
            points += failed
        elif mode == "bags_unscored":
            bags_gained += failed
        if (self.boston == "bonus" and took_a + took_b == 13
                and (not self.boston_needs_bid or bid_a + bid_b == 13)):
            points += self.boston_bonus
        if self.bag_penalty:
            after = bags + bags_gained
            while after >= self.bag_limit:
                after = after - self.bag_limit if self.carry else 0
                points -= self.bag_penalty
        return points, bags_gained


def random_playout(f: Fast, hands: list[int], trick: list[int], leader: int, broken: bool,
                   tricks: list[int], rnd) -> list[int]:
    """Finish a hand with uniformly random legal cards; returns tricks per seat.

    ``hands`` (playout bits per seat) and ``tricks`` are consumed; ``trick`` is
    the cards of the trick in progress in play order, led by ``leader``;
    ``rnd`` is a ``Random().random``.
    """
    side = f.side
    trump = f.trump
    suit_at = f.suit_at
    lead_breaks = f.any_spade
    p = leader
    while True:
        if trick:
            lead_suit = suit_at[trick[0].bit_length()]
            win_mask = lead_suit | trump
            best = 0
            for i, c in enumerate(trick):
                if c & win_mask and c > best:
                    best, winner = c, (leader + i) & 3
            p = (leader + len(trick)) & 3
            todo = 4 - len(trick)
            trick = []
        else:
            h = hands[p]
            if not h:
                return tricks
            legal = h if broken else (h & side or h)
            k = int(rnd() * legal.bit_count())
            while k:
                legal &= legal - 1
                k -= 1
            c = legal & -legal
            hands[p] = h ^ c
            if c & trump and lead_breaks:
                broken = True
            lead_suit = suit_at[c.bit_length()]
            win_mask = lead_suit | trump
            best, winner = c, p
            todo = 3
            p = (p + 1) & 3
        while todo:
            h = hands[p]
            legal = h & lead_suit or h
            k = int(rnd() * legal.bit_count())
            while k:
                legal &= legal - 1
                k -= 1
            c = legal & -legal
            hands[p] = h ^ c
            if c & trump and not lead_suit & trump:
                broken = True
            if c & win_mask and c > best:
                best, winner = c, p
            todo -= 1
            p = (p + 1) & 3
        tricks[winner] += 1
        p = winner


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
           "fast_of", "legal", "random_playout", "split"]
