"""The ``basic`` bot: counts tricks to bid, plays to make the contract cheaply."""

from __future__ import annotations

from engine.cards import TRUMP, ids
from engine.play import deck_of, legal_cards, trick_winner
from engine.state import GameState


def _estimate(state: GameState, seat: int) -> float:
    assert state.rules is not None
    d = deck_of(state.rules)
    hand = state.hands[seat]
    tricks = 0.0
    for suit in range(4):
        cards = sorted((d.power[c] for c in ids(hand & d.suit_mask[suit])), reverse=True)
        top = max((d.power[c] for c in ids(d.suit_mask[suit])), default=0)
        if suit == TRUMP:
            for i, p in enumerate(cards):
                if p >= top - i or i >= 3:
                    tricks += 1
            continue
        n = len(cards)
        if n and cards[0] == top and n <= 6:
            tricks += 1
        if n >= 2 and top - 1 in cards and n <= 5:
            tricks += 0.6
        if n <= 1 and len(ids(hand & d.trump_mask)) >= 3:
            tricks += 0.5
    return tricks


def choose_bid(state: GameState, seat: int) -> int:
    assert state.rules is not None
    est = _estimate(state, seat)
    if state.rules.nil and est < 0.8:
        return 0
    return max(1, min(13, round(est)))


def choose_pass(state: GameState, seat: int) -> int:
    assert state.rules is not None
    d = deck_of(state.rules)
    n = state.rules.blind_nil_pass
    order = sorted(ids(state.hands[seat]), key=lambda c: (d.suit_of[c] == TRUMP, d.power[c]))
    chosen = order[-n:] if state.blind >> seat & 1 else order[:n]
    mask = 0
    for c in chosen:
        mask |= 1 << c
    return mask


def choose_card(state: GameState, seat: int) -> int:
    assert state.rules is not None
    d = deck_of(state.rules)
    legal = ids(legal_cards(state, seat))
    key = lambda c: (d.suit_of[c] == TRUMP, d.power[c])  # noqa: E731
    legal.sort(key=key)
    if not state.trick:
        return legal[-1] if state.bids[seat] != 0 else legal[0]
    winners = [c for c in legal
               if trick_winner(d, (*state.trick, c), state.leader) == seat]
    if state.bids[seat] == 0:
        losers = [c for c in legal if c not in winners]
        return losers[-1] if losers else legal[0]
    if winners:
        return winners[0]
    return legal[0]
