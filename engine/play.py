"""Trick play: which cards a seat may play, and who wins a trick.

Everything here reads the deck table, so the jokers, the elevated deuces and
the plain deck share one code path: a trump is a card whose effective suit is
``TRUMP``, and a higher ``power`` wins within a suit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.cards import TRUMP, Deck, deck
from engine.state import GameState
from schemas.rules import Rules, SpadesBrokenBy


class _ByCard(Protocol):
    def __getitem__(self, card: int, /) -> int: ...


class Suits(Protocol):
    """What legality, breaking and taking a trick read of a deck: a ``Deck`` (card ids),
    or the bots' playout table (one-bit cards), so both ask these very functions."""

    @property
    def suit_of(self) -> _ByCard: ...
    @property
    def suit_mask(self) -> Sequence[int]: ...
    @property
    def trump_mask(self) -> int: ...
    @property
    def power(self) -> _ByCard: ...


def deck_of(rules: Rules) -> Deck:
    return deck(rules.deck, rules.deuce_order)


def legal_mask(d: Suits, hand: int, trick: Sequence[int], broken: bool) -> int:
    """The cards of ``hand`` that may be played to ``trick`` (the cards before, of which
    only the lead is read): the one statement of following suit and of leading trumps,
    which ``decide``, the views, the bots and the record reader ask."""
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
    """The rule a held card breaks, as an error code ('' when legal): read off
    ``legal_mask``, so a refusal can never disagree with the legal cards shown."""
    if legal_mask(d, hand, trick, broken) >> card & 1:
        return ""
    return "must_follow_suit" if trick else "spades_not_broken"


def any_trump_breaks(broken_by: SpadesBrokenBy) -> bool:
    """The rules' ``spades_broken_by`` read in one place: whether every trump played
    breaks spades (``any_spade``), or only one played on another suit's lead."""
    return broken_by == "any_spade"


def breaks_spades(d: Suits, trick: Sequence[int], card: int, any_spade: bool) -> bool:
    """Whether ``card`` played to ``trick`` (the cards before it) breaks spades.

    A trump played on another suit's lead always does. Under ``spades_broken_by:
    any_spade`` every trump does, so a lead from a hand of nothing but trumps
    breaks them too (the house text); under ``play_on_other_suit`` it does not,
    and the next leader still may not lead one while holding another suit.
    """
    if d.suit_of[card] != TRUMP:
        return False
    return any_spade or (bool(trick) and d.suit_of[trick[0]] != TRUMP)


def in_seat_order(trick: tuple[int, ...], leader: int) -> tuple[int, ...]:
    """A complete trick's cards, from play order (led by ``leader``) to seat order."""
    return trick[-leader:] + trick[:-leader] if leader else trick


def winning(d: Suits, trick: Sequence[int]) -> int:
    """Where in ``trick`` (play order, at least one card) the card that takes it so far
    stands: the highest trump, else the highest card of the suit led. The one statement
    of who takes a trick, asked by the engine and, on a trick in progress, by the bots."""
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
    return best


def trick_winner(d: Suits, trick: Sequence[int], leader: int) -> int:
    """The seat that wins a complete trick led by ``leader``."""
    return (leader + winning(d, trick)) & 3
