"""Bots: choices for seats without a player, or whose clock ran out.

``auto_bid``, ``auto_pass`` and ``auto_play`` are what the engine asks when a
clock expires; they use the ``basic`` level, which is deterministic, so a
replay of a ``ClockExpired`` command always yields the stored event.
"""

from __future__ import annotations

from engine.bots.basic import choose_bid, choose_card, choose_pass
from engine.state import GameState


def auto_bid(state: GameState, seat: int) -> int:
    return choose_bid(state, seat)


def auto_pass(state: GameState, seat: int) -> int:
    return choose_pass(state, seat)


def auto_play(state: GameState, seat: int) -> int:
    return choose_card(state, seat)
