"""The quick reading of a hand record, for ``spades record verify``: a verifier reads
thousands of records and nearly all of them are legal, so it asks the rules' own
functions (``check_bid``, ``legal_mask``, ``breaks_spades``, ``trick_winner``,
``score_hand``) card by card and scores the hand once at the end, instead of
building an event and a state per bid and per card through ``decide``.

Whatever it cannot vouch for (a blind nil, a pass, a refused bid or card, a play
past the hand) is answered None, and the caller steps the hand through ``decide``,
whose refusal is the verdict; a property test holds both readings to the same
result. A line is first decoded with its card codes checked by msgspec
(``LINE``), which hands back the codes' own strings instead of a new string per
card; a line that does not fit that shape is decoded again as plain JSON, so the
careful reading names what is wrong with it.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypedDict

import msgspec

from engine.bidding import check_bid
from engine.cards import CARD_IDS, CODES, TRUMP, Deck
from engine.errors import RuleError
from engine.play import any_trump_breaks, breaks_spades, legal_mask, trick_winner
from engine.scoring import score_hand
from engine.state import GameState
from schemas.events import TeamScore
from schemas.rules import Rules

Card = Literal[CODES]  # type: ignore[valid-type]


class HandLine(TypedDict, total=False):
    """A hand record as most lines are: canonical card codes, integers where the format
    has them; the other fields are left for the careful reading to judge."""

    id: Any
    rules: Any
    kind: Any
    prior: Any
    dealer: int
    hands: list[list[Card]]
    bids: list[int]
    blind_nil: Any
    passes: Any
    plays: list[Card]


LINE = msgspec.json.Decoder(HandLine)


class AtLead(NamedTuple):
    """What reading a hand's plays needs of the hand at its first lead."""

    rules: Rules
    deck: Deck
    hands: tuple[int, ...]
    leader: int
    broken: bool
    bids: tuple[int, ...]
    blind: int  # a seat mask
    scores: tuple[int, int]
    bags: tuple[int, int]


def at_lead(s: GameState) -> AtLead:
    """The hand of ``s``, a state at its first lead (``decide`` brought it there)."""
    assert s.rules is not None
    return AtLead(s.rules, s.deck, s.hands, s.waiting.bit_length() - 1, s.broken, s.bids,
                  s.blind, s.scores, s.bags)


def plain_bids(start: GameState, dealer: int, hands: tuple[int, ...], bids: list[int]
               ) -> AtLead | None:
    """The hand at its first lead when ``start`` (a game before its first deal) deals
    ``hands`` from ``dealer`` and every seat bids a number the rules allow (``check_bid``):
    no refusal and no exchange can follow such a deal and bidding. None otherwise."""
    try:
        for bid in bids:
            check_bid(start, bid)
    except RuleError:
        return None
    assert start.rules is not None
    return AtLead(start.rules, start.deck, hands, (dealer + 1) % 4, False, tuple(bids), 0,
                  start.scores, start.bags)


def read_plays(at: AtLead, plays: list[str]) -> dict[str, Any] | None:
    """A hand's result from its plays; None when a card is not one ``legal_mask`` allows
    or the plays run past the hand.

    ``legal_mask`` and ``breaks_spades`` read of the cards before a card only the lead
    (and whether there is one), so each is given the trick's lead alone; a card that is
    no trump breaks nothing, so ``breaks_spades`` is asked only of trumps.
    """
    if len(plays) > 52:
        return None
    card_of = CARD_IDS.get
    cards = [card_of(code, -1) for code in plays]
    if -1 in cards:
        return None
    d = at.deck
    suit_of = d.suit_of
    any_spade = any_trump_breaks(at.rules.spades_broken_by)
    hands = list(at.hands)
    broken = at.broken
    seat = leader = at.leader
    winners: list[int] = []
    tricks = [0, 0, 0, 0]
    for first in range(0, len(cards), 4):
        trick = cards[first:first + 4]
        led = trick[:1]
        lead: list[int] = []  # none before the first card
        for card in trick:
            hand = hands[seat]
            if not legal_mask(d, hand, lead, broken) >> card & 1:
                return None
            hands[seat] = hand ^ 1 << card
            if not broken and suit_of[card] == TRUMP:
                broken = breaks_spades(d, lead, card, any_spade)
            lead = led
            seat = (seat + 1) & 3
        if len(trick) == 4:
            seat = leader = trick_winner(d, trick, leader)
            winners.append(seat)
            tricks[seat] += 1
    teams = None
    if len(winners) == 13:
        teams = score_hand(at.rules, at.bids, at.blind, tuple(tricks), at.scores, at.bags)
    return result(winners, tricks, teams)


def result(winners: list[int], tricks: list[int],
           teams: tuple[TeamScore, TeamScore] | None) -> dict[str, Any]:
    """A hand's result: the score only once the hand is complete (``teams``)."""
    out: dict[str, Any] = {"trick_winners": winners, "tricks_taken": tricks}
    if teams is not None:
        out["score_delta"] = [t.delta for t in teams]
        out["bags_after"] = [t.bags_after for t in teams]
        out["scores_after"] = [t.score_after for t in teams]
    return out
