"""What one seat (or a spectator) may see of a game: the only shape that leaves the platform.

Built by ``engine.views`` from the full state; nothing else turns game state
into something a client, a log line or a public endpoint can see.
"""

from __future__ import annotations

import msgspec

from schemas.events import TeamScore
from schemas.rules import Rules


class HandSheet(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the score sheet: a hand's scoring with each seat's bid, so a view built
    at any moment (a reload, a spectator joining mid-game) shows the sheet that someone
    who watched from the start saw. Folded from the hand's events, never stored."""

    hand_no: int
    bids: tuple[int, int, int, int]  # 0 is nil
    blind: tuple[bool, bool, bool, bool]  # the seat's nil was bid blind
    tricks: tuple[int, int, int, int]  # tricks each seat took
    teams: tuple[TeamScore, TeamScore]


class TrickCard(msgspec.Struct, frozen=True):
    seat: int
    card: str


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    phase: str  # new, dealing, bidding, passing, play, over
    seat: int | None  # None for a spectator
    rules: Rules | None
    players: tuple[str, ...]
    hand_no: int
    dealer: int
    hand: tuple[str, ...] | None  # own cards; None for a spectator or before looking
    looked: bool
    cards_left: tuple[int, ...]  # how many cards each seat holds
    bids: tuple[int | None, ...]  # None: not bid yet, or secret until the reveal
    has_bid: tuple[bool, ...]
    blind: tuple[bool, ...]
    revealed: bool
    waiting: tuple[int, ...]  # seats whose turn it is
    deadlines: tuple[int, ...]  # per seat; 0 when the seat is not on the clock
    bank: tuple[int, ...]
    trick: tuple[TrickCard, ...]
    leader: int
    last_trick: tuple[str, ...]  # the previous trick, in seat order
    broken: bool
    tricks: tuple[int, ...]
    scores: tuple[int, int]
    bags: tuple[int, int]
    sheet: tuple[HandSheet, ...]
    legal_cards: tuple[str, ...]
    legal_bids: tuple[int, ...]
    blind_nil_offered: bool
    pass_count: int  # cards this seat must pass now (blind-nil exchange), else 0
    passed: tuple[str, ...]  # the cards this seat gave in the exchange
    premove: str | None
    bots: tuple[bool, ...]  # seats a bot plays for a player who left
    seed_hash: str
    hand_seed_hash: str
    seed: str | None  # revealed when the game is over
    winner: int | None
    end_reason: str


class OperatorView(msgspec.Struct, frozen=True, kw_only=True):
    """Everything, for operators replaying a game: every hand face up."""

    table: SeatView
    hands: tuple[tuple[str, ...], ...]
    dealt: tuple[tuple[str, ...], ...]
    bids: tuple[int, ...]
    premoves: tuple[str | None, ...]
    seed: str
