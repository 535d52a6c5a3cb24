"""Typed rule errors: a stable code for programs, a plain message for people.

``decide`` raises ``RuleError`` and, being pure, has applied nothing. Messages
name only what the acting seat may know: never another seat's cards.
"""

from __future__ import annotations


class RuleError(Exception):
    __slots__ = ("code", "message")

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# The stable codes, for documentation and for clients that switch on them.
CODES = {
    "game_not_started": "no game has started on this stream",
    "game_already_started": "the game has already started",
    "game_over": "the match is over",
    "match_over": "a hand was dealt after the match ended",
    "wrong_phase": "the command does not apply in the current phase",
    "not_a_seat": "seats are 0 to 3",
    "not_your_turn": "another seat is to act",
    "already_bid": "the seat has already bid this hand",
    "bid_out_of_range": "a bid is 0 (nil) to 13, or 1 to 13 without nil",
    "nil_not_allowed": "these rules have no nil bid",
    "blind_nil_not_offered": "blind nil is off, the seat looked, or its team does not trail enough",
    "unknown_card": "not a card code",
    "card_not_in_deck": "the card is not in this deck variant",
    "card_not_in_hand": "the seat does not hold that card",
    "must_follow_suit": "the seat holds the led suit and must follow it",
    "spades_not_broken": "trumps cannot be led until broken, unless the hand holds only trumps",
    "wrong_dealer": "the deal passes to the left; another seat deals this hand",
    "bad_deal": "a deal is four hands of 13 distinct cards making up the deck",
    "bad_seed": "a shuffle seed is at least 16 bytes of hex",
    "hand_over": "all 13 tricks of the hand have been played",
    "wrong_pass_count": "the seat must pass exactly the number of cards the rules say",
    "already_passed": "the seat has already passed its cards",
    "cards_not_seen": "the seat has not looked at its cards yet (blind nil is still open)",
    "stale_clock": "the turn moved on or the deadline is later than the expiry",
    "fallback_missing": "a clock expiry that makes the seat's move must carry that move",
    "not_a_bot_seat": "the seat is not being played by a bot",
    "seat_is_bot": "a bot already plays the seat",
}
