"""The state of one game: an immutable value, the fold of the game's events.

Cards are bit sets (see ``engine.cards``); seats waiting to act are a 4-bit
mask, so simultaneous bidding and the blind-nil exchange need no special case.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.rules import Rules
from schemas.views import HandSheet

NEW, DEALING, BIDDING, PASSING, PLAY, OVER = "new", "dealing", "bidding", "passing", "play", "over"
NO_SEATS = (-1, -1, -1, -1)
ZERO4 = (0, 0, 0, 0)


class GameState(msgspec.Struct, frozen=True, gc=False):
    # What a card or a bid changes comes first, in the order evolve names it:
    # msgspec's ``replace`` finds each keyword by scanning the fields from the first,
    # and a hand replaces the state some seventy times.
    version: int = 0  # events folded so far
    hands: tuple[int, ...] = ZERO4  # each seat's cards now (bit sets)
    trick: tuple[int, ...] = ()  # cards of the trick in progress, in play order
    broken: bool = False
    waiting: int = 0  # seats whose turn it is
    deadlines: tuple[int, ...] = ZERO4
    leader: int = -1
    tricks: tuple[int, ...] = ZERO4  # tricks won this hand, per seat
    trick_winners: tuple[int, ...] = ()
    played: tuple[tuple[int, ...], ...] = ()  # this hand's finished tricks, cards in seat order
    premoves: tuple[int, ...] = NO_SEATS
    bids: tuple[int, ...] = NO_SEATS  # -1: not yet bid
    blind: int = 0  # seats that bid blind nil
    looked: int = 0  # seats that have seen their cards
    revealed: bool = False
    passes: tuple[int, ...] = ZERO4  # cards chosen for the blind-nil exchange
    bank: tuple[int, ...] = ZERO4  # time-bank blocks left this hand
    phase: str = NEW
    rules: Rules | None = None
    deck: Any = None  # the rules' engine.cards.Deck table, kept at hand for speed
    clocks: Any = None  # the rules' turn clocks (blitz or not), likewise
    players: tuple[str, ...] = ("", "", "", "")
    rated: bool = False
    seed: str = ""  # secret until the game ends
    sealed: bool = False  # the seed came from outside: its owner reveals it, not the game
    seed_hash: str = ""
    hand_no: int = 0  # the current (or last) hand, from 1
    hands_played: int = 0  # hands scored
    dealer: int = -1
    hand_seed_hash: str = ""
    dealt: tuple[int, ...] = ZERO4  # each seat's cards as dealt this hand (bit sets)
    bots: int = 0  # seats a bot plays because their player left (see ``bot_held``)
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    sheet: tuple[HandSheet, ...] = ()  # each scored hand with its bids
    winner: int | None = None
    end_reason: str = ""

    @property
    def last_trick(self) -> tuple[int, ...]:
        """The previous trick's cards in seat order (empty before the first)."""
        return self.played[-1] if self.played else ()


def team_of(seat: int) -> int:
    return seat & 1


def seats_in(mask: int) -> list[int]:
    return [s for s in range(4) if mask >> s & 1]


def born_bots(players: tuple[str, ...]) -> int:
    """Seats a bot plays from the start: their player in ``GameStarted`` is ``bot:<level>``."""
    mask = 0
    for seat, player in enumerate(players):
        if player.startswith("bot:"):
            mask |= 1 << seat
    return mask


def bot_held(s: GameState) -> int:
    """Every seat a bot plays now, from the game's own events: those seated as bots when
    it started and those whose player left. A bot is never forfeited for time."""
    return born_bots(s.players) | s.bots
