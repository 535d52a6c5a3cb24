"""Game events: the facts a game's stream is made of.

Events are named in the past tense, frozen, tagged by ``type`` and versioned by
the class constant ``VERSION``; a stored event is never changed, a new shape is
a new version with an upcaster on read. Events carry the whole truth (every
hand, every secret bid, the shuffle seed): they never leave the platform except
through the engine's view functions.

Times (``at``, ``deadline``) are integer milliseconds since the Unix epoch; a
``deadline`` of the seat(s) whose turn begins with the event. Cards are codes
such as ``"AS"``, ``"TD"``, ``"BJ"``.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from schemas.rules import Rules


class Event(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    VERSION: ClassVar[int] = 1
    at: int = 0


class GameStarted(Event, frozen=True):
    """A game began. ``seed`` is secret until ``GameEnded`` reveals it, or, when
    ``sealed``, until its owner does: the seed came from outside (a duplicate round's
    deals, which other tables are still playing), so no view of this game shows it.
    Version 2 added ``sealed`` (see ``schemas/versions/upcasters.py``)."""

    VERSION: ClassVar[int] = 2
    rules: Rules
    players: tuple[str, str, str, str] = ("", "", "", "")
    seed: str = ""  # hex; empty when hands are dealt from outside (records, duplicate boards)
    seed_hash: str = ""  # public commitment: sha256 of the seed bytes
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    rated: bool = False  # whether the result moves ratings
    sealed: bool = False  # the seed is revealed by whoever supplied it, not by the game


class HandDealt(Event, frozen=True):
    hand_no: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    seed_hash: str = ""  # sha256 of this hand's seed, public from the deal
    deadline: int = 0


class CardsLooked(Event, frozen=True):
    """A seat looked at its cards; blind nil is no longer offered to it.

    Stored without cards; the copy sent to the seat that looked carries its hand.
    """

    seat: int
    cards: tuple[str, ...] = ()


class BidPlaced(Event, frozen=True):
    seat: int
    bid: int
    blind: bool = False
    auto: bool = False  # chosen for the seat by the bot when its clock ran out
    deadline: int = 0


class BidsRevealed(Event, frozen=True):
    bids: tuple[int, int, int, int]
    blind: tuple[bool, bool, bool, bool]
    deadline: int = 0


class CardsPassed(Event, frozen=True):
    """A blind-nil partnership seat chose the cards it gives its partner."""

    seat: int
    cards: tuple[str, ...]
    auto: bool = False


class CardsExchanged(Event, frozen=True):
    """The blind-nil exchange happened. Stored without cards; the copy sent to a
    seat of the exchange carries the cards it received."""

    deadline: int = 0
    received: tuple[str, ...] = ()


class CardPlayed(Event, frozen=True):
    seat: int
    card: str
    auto: bool = False
    premove: bool = False
    deadline: int = 0


class TrickWon(Event, frozen=True):
    trick_no: int
    seat: int
    cards: tuple[str, str, str, str]  # in seat order
    deadline: int = 0


class TeamScore(msgspec.Struct, frozen=True, kw_only=True):
    """One team's score for one hand, broken down the way a score sheet shows it."""

    contract: int  # 0 when both partners bid nil
    counted: int  # tricks counted toward the contract (v1 called it "tricks")
    made: bool
    contract_points: int
    overtricks: int
    nil_points: int
    failed_nil_tricks: int
    failed_nil_points: int
    boston: bool
    boston_points: int
    bags_gained: int
    bag_penalty: int
    delta: int
    bags_after: int
    score_after: int


class HandScored(Event, frozen=True):
    """A hand's score sheet. Version 2: ``TeamScore.tricks`` became ``counted`` (the
    tricks toward the contract, not the team's tricks); see ``schemas/versions/upcasters.py``."""

    VERSION: ClassVar[int] = 2
    hand_no: int
    tricks: tuple[int, int, int, int]
    teams: tuple[TeamScore, TeamScore]


class TimeBankUsed(Event, frozen=True):
    seat: int
    blocks_left: int
    deadline: int


class PremoveSet(Event, frozen=True):
    seat: int
    card: str


class PremoveCancelled(Event, frozen=True):
    seat: int


class PremoveDropped(Event, frozen=True):
    """A locked card could not be played when the turn came; it went back to the hand."""

    seat: int
    card: str
    reason: str


class SeatTakenByBot(Event, frozen=True):
    seat: int
    reason: str  # "left" or "timeout"


class SeatReclaimed(Event, frozen=True):
    seat: int


class GameEnded(Event, frozen=True):
    """The match is over. ``winner`` is a team, or None for a draw.

    Version 2 added ``abandoned`` and ``bags_taken`` (see ``schemas/versions/upcasters.py``):
    ratings score a seat its player abandoned as a loss whatever the result, and
    tournaments break ties on bags. Version 3 added ``sealed`` (the seed stays out of
    every view: see ``GameStarted``) and ``deals``, each hand's score per team, which a
    duplicate tournament compares across tables.
    """

    VERSION: ClassVar[int] = 3
    winner: int | None
    reason: str  # target, floor, hands, boston, forfeit
    scores: tuple[int, int]
    bags: tuple[int, int]
    hands_played: int
    players: tuple[str, str, str, str] = ("", "", "", "")
    forfeited_by: int | None = None  # the seat whose leaving or clock forfeited the match
    seed: str = ""  # the revealed shuffle seed
    rules: Rules | None = None
    rated: bool = False
    # Seats a bot played at the end because their player left; one who came back is not here.
    abandoned: tuple[int, ...] = ()
    bags_taken: tuple[int, int] = (0, 0)  # overtricks each team took over the whole game
    sealed: bool = False
    deals: tuple[tuple[int, int], ...] = ()  # per hand, in order: each team's delta


GameEvent = (
    GameStarted | HandDealt | CardsLooked | BidPlaced | BidsRevealed | CardsPassed
    | CardsExchanged | CardPlayed | TrickWon | HandScored | TimeBankUsed | PremoveSet
    | PremoveCancelled | PremoveDropped | SeatTakenByBot | SeatReclaimed | GameEnded
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (GameStarted, HandDealt, CardsLooked, BidPlaced, BidsRevealed, CardsPassed,
                CardsExchanged, CardPlayed, TrickWon, HandScored, TimeBankUsed, PremoveSet,
                PremoveCancelled, PremoveDropped, SeatTakenByBot, SeatReclaimed, GameEnded)
}
