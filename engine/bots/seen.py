"""What one seat can see of the hand in play, in playout bits, and the contracts it implies.

Every bot decides from this and nothing else: its own hand, the cards played
so far, the bids once they are public, the tricks taken, and the voids a seat
showed by not following suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bots.playout import Fast, fast_of
from engine.state import GameState


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



def contract(board: int, bid_a: int, bid_b: int) -> int:
    if bid_a == 0 and bid_b == 0:
        return 0
    return max(bid_a + bid_b, board)


def contracts_of(board: int, bids: Sequence[int]) -> tuple[int, int]:
    return contract(board, bids[0], bids[2]), contract(board, bids[1], bids[3])

