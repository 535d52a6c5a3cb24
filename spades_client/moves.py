"""A game command's own fields, and the simplest player the tests and the bench use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas import ws


@dataclass(frozen=True)
class Move:
    """A game command's own fields; the connection adds ``command_id``, game and seat."""

    type: str
    fields: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def bid(cls, n: int) -> Move:
        return cls("bid", (("bid", n),))

    @classmethod
    def play(cls, card: str) -> Move:
        return cls("play", (("card", card),))

    @classmethod
    def look(cls) -> Move:
        return cls("look")

    @classmethod
    def blind_nil(cls) -> Move:
        return cls("blind_nil")

    @classmethod
    def pass_cards(cls, cards: list[str]) -> Move:
        return cls("pass", (("cards", cards),))


def first_legal(turn: ws.Turn | None) -> Move | None:
    """The simplest player: look when a bid needs the cards seen, bid 3 (or the nearest
    legal bid), else play the first legal card. Tests and the load bench play with it."""
    if turn is None or turn.pass_count:
        return None
    if turn.blind_nil_offered:
        return Move.look()
    if turn.legal_bids:
        return Move.bid(turn.legal_bids[min(3, len(turn.legal_bids) - 1)])
    if turn.legal_cards:
        return Move.play(turn.legal_cards[0])
    return None
