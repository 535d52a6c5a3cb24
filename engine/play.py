"""Trick play: which cards a seat may play, and who wins a trick.

Everything here reads the deck table, so the jokers, the elevated deuces and
the plain deck share one code path: a trump is a card whose effective suit is
``TRUMP``, and a higher ``power`` wins within a suit.
"""

from __future__ import annotations

from engine.cards import TRUMP, Deck, deck
from engine.state import GameState
from schemas.rules import Rules


def deck_of(rules: Rules) -> Deck:
    return deck(rules.deck, rules.deuce_order)


def legal_mask(d: Deck, hand: int, trick: tuple[int, ...], broken: bool) -> int:
    """The cards of ``hand`` that may be played to ``trick``."""
    if trick:
        follow = hand & d.suit_mask[d.suit_of[trick[0]]]
        return follow or hand
    if broken:
        return hand
    side = hand & ~d.trump_mask
    return side or hand


def legal_cards(state: GameState, seat: int) -> int:
    """The legal cards for ``seat`` now (0 when it is not the seat's turn to play)."""
    if state.rules is None or not state.waiting >> seat & 1 or state.phase != "play":
        return 0
    return legal_mask(state.deck, state.hands[seat], state.trick, state.broken)


def why_illegal(d: Deck, hand: int, trick: tuple[int, ...], broken: bool, card: int) -> str:
    """The rule a held card breaks, as an error code ('' when legal)."""
    if trick:
        led = d.suit_of[trick[0]]
        if d.suit_of[card] != led and hand & d.suit_mask[led]:
            return "must_follow_suit"
        return ""
    if not broken and d.suit_of[card] == TRUMP and hand & ~d.trump_mask:
        return "spades_not_broken"
    return ""


def trick_winner(d: Deck, trick: tuple[int, ...], leader: int) -> int:
    """The seat that wins a complete trick led by ``leader``."""
    suit_of, power = d.suit_of, d.power
    best = 0
    best_suit = suit_of[trick[0]]
    best_power = power[trick[0]]
    for i in range(1, len(trick)):
        c = trick[i]
        s = suit_of[c]
        if s == best_suit:
            if power[c] > best_power:
                best, best_power = i, power[c]
        elif s == TRUMP:
            best, best_suit, best_power = i, TRUMP, power[c]
    return (leader + best) % 4
