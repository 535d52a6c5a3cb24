"""Game commands: what a seat (or the platform on its behalf) asks the engine to do.

Every command carries ``at``, the time it was accepted, in integer milliseconds:
the engine never reads a clock. Commands a player sends carry the seat they act
for; the gateway checks that the player holds that seat before the engine sees it.
"""

from __future__ import annotations

import msgspec

from schemas.rules import Rules


class Command(msgspec.Struct, frozen=True, tag=True, tag_field="type", kw_only=True):
    at: int = 0


class StartGame(Command, frozen=True):
    """Begin a match. With a seed the engine deals every hand itself from it;
    without one it waits for ``DealHand`` (records, duplicate boards). ``sealed``: the
    seed was supplied from outside and no view reveals it (``GameStarted``)."""

    rules: Rules
    players: tuple[str, str, str, str] = ("", "", "", "")
    seed: str = ""
    scores: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    rated: bool = False
    sealed: bool = False


class DealHand(Command, frozen=True):
    dealer: int
    hands: tuple[tuple[str, ...], ...]


class LookAtCards(Command, frozen=True):
    seat: int


class PlaceBid(Command, frozen=True):
    seat: int
    bid: int


class BidBlindNil(Command, frozen=True):
    seat: int


class PassCards(Command, frozen=True):
    seat: int
    cards: tuple[str, ...]


class PlayCard(Command, frozen=True):
    seat: int
    card: str


class SetPremove(Command, frozen=True):
    seat: int
    card: str


class CancelPremove(Command, frozen=True):
    seat: int


class ClockExpired(Command, frozen=True):
    """The platform's timer fired for ``seat``; ``at`` must not be before its deadline.

    It carries the move to make for the seat should its time be up (no time-bank block
    left, no forfeit): ``bid`` while bidding, ``cards`` in the blind-nil exchange,
    ``card`` in trick play. The sender chooses it (the game worker asks the ``basic``
    bot) and the engine only checks it is legal, so the rules, and every replay of a
    stored game, never depend on a bot's strategy.
    """

    seat: int
    bid: int | None = None
    cards: tuple[str, ...] | None = None
    card: str | None = None


class LeaveSeat(Command, frozen=True):
    seat: int


class ReturnToSeat(Command, frozen=True):
    seat: int


GameCommand = (
    StartGame | DealHand | LookAtCards | PlaceBid | BidBlindNil | PassCards | PlayCard
    | SetPremove | CancelPremove | ClockExpired | LeaveSeat | ReturnToSeat
)
