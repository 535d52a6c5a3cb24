"""What the decision of every command shares: the events it emits, evolved as they
go, and the checks of a seat, a card and a phase.

A command's events are evolved as they are produced (``Tx.emit``), so a trick, the
hand's score and the next deal come out of one card in order, each decided on the
state the one before left.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.cards import CARD_IDS, card_id
from engine.errors import RuleError
from engine.evolve import EVOLVERS
from engine.play import legal_mask
from engine.state import NEW, OVER, GameState
from schemas import events as ev


class Tx(msgspec.Struct, gc=False):
    """The events of one command, evolved as they are emitted (a Struct: built in C,
    once per command)."""

    state: GameState
    at: int
    events: list[ev.Event]

    def emit(self, e: Any) -> GameState:
        s = self.state
        self.state = s = EVOLVERS[type(e)](s, e, s.version + 1)  # evolve, one call less
        self.events.append(e)
        return s

    def bid_deadline(self) -> int:
        return self.at + self.state.clocks.bid_ms

    def play_deadline(self, hand: int, trick: tuple[int, ...], broken: bool) -> int:
        """The deadline of a seat about to play: shorter with a single legal card."""
        legal = legal_mask(self.state.deck, hand, trick, broken)
        c = self.state.clocks
        return self.at + (c.single_card_ms if legal & (legal - 1) == 0 else c.play_ms)


def check_seat(seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise RuleError("not_a_seat", f"seat {seat!r} is not a seat; seats are 0 to 3")


def parse_card(s: GameState, code: str) -> int:
    c = CARD_IDS.get(code) if isinstance(code, str) else None
    if c is None:
        try:
            c = card_id(code)
        except (KeyError, AttributeError, TypeError):
            raise RuleError("unknown_card", f"{code!r} is not a card") from None
    assert s.rules is not None
    if not s.deck.mask >> c & 1:
        raise RuleError("card_not_in_deck", f"{code} is not in the {s.rules.deck} deck")
    return c


def in_game(s: GameState, *phases: str) -> None:
    if s.phase == NEW:
        raise RuleError("game_not_started", "no game has started")
    if s.phase == OVER:
        raise RuleError("game_over", "the match is over")
    if s.phase not in phases:
        raise RuleError("wrong_phase", f"not possible during {s.phase}")
