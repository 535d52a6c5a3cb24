"""Bots: choices for seats without a player, or whose clock ran out.

``choose`` gives the command a bot seat sends, so a game worker drives bot
seats through ``decide`` exactly as it drives people, and every bot move is an
ordinary event in the game's stream.

``timeout_command`` is what a game worker sends when a seat's clock runs
out: the ``basic`` bot's move rides in the ``ClockExpired`` command, so the
engine never asks a bot and a stored game replays the same whatever the bots
become.
"""

from __future__ import annotations

from engine.bots import basic, beginner, blind, expert
from engine.cards import code, codes
from engine.evolve import passers
from engine.state import BIDDING, PASSING, PLAY, GameState
from schemas import commands as cmd

# The levels as players see them, weakest first; each is measured against the next
# (``tests/bench/bots_bench.py``), so a harder level beats the one before it.
LEVELS = ("beginner", "basic", "expert")
# The levels that answer from the state alone; the ``expert`` also takes a seed and a budget.
_PLAIN = {"beginner": beginner, "basic": basic}


def timeout_command(state: GameState, seat: int, at: int) -> cmd.ClockExpired:
    """The expiry of ``seat``'s clock, carrying the move the ``basic`` bot makes for it
    in the current phase (used only if the seat has no time-bank block left)."""
    if state.phase == BIDDING:
        return cmd.ClockExpired(seat=seat, at=at, bid=basic.choose_bid(state, seat))
    if state.phase == PASSING and passers(state) >> seat & 1:
        return cmd.ClockExpired(seat=seat, at=at,
                                cards=codes(basic.choose_pass(state, seat)))
    if state.phase == PLAY and state.hands[seat]:
        return cmd.ClockExpired(seat=seat, at=at, card=code(basic.choose_card(state, seat)))
    return cmd.ClockExpired(seat=seat, at=at)


class NothingToDo(ValueError):
    """The seat has no decision to make in this state."""


def instant(state: GameState, seat: int, level: str) -> bool:
    """Whether ``choose`` answers in microseconds here: a ``basic`` seat, unless it is
    about to weigh a blind nil whose price under these rules is not worked out yet (a
    third of a second, once). A caller with other work to keep moving runs the rest
    off its loop."""
    r = state.rules
    if level != "basic":
        return False
    weighs_blind_nil = state.phase == BIDDING and not state.looked >> seat & 1
    return r is None or not weighs_blind_nil or blind.priced(r)


def choose(state: GameState, seat: int, level: str = "basic", seed: int = 0, at: int = 0,
           budget: int | None = None) -> cmd.Command:
    """The command bot seat ``seat`` sends now.

    ``seed`` makes the ``expert`` search repeatable; ``budget``
    overrides its number of sampled deals. A seat that has not looked at its
    cards decides on blind nil first, without reading them, and looks otherwise.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}")
    if not state.waiting >> seat & 1:
        raise NothingToDo(f"seat {seat} has nothing to do now")
    if state.phase == BIDDING:
        if not state.looked >> seat & 1:
            if blind.wants_blind_nil(state, seat):
                return cmd.BidBlindNil(seat=seat, at=at)
            return cmd.LookAtCards(seat=seat, at=at)
        bid = expert.choose_bid(state, seat, seed, budget) if level == "expert" \
            else _PLAIN[level].choose_bid(state, seat)
        return cmd.PlaceBid(seat=seat, bid=bid, at=at)
    if state.phase == PASSING and passers(state) >> seat & 1:
        return cmd.PassCards(seat=seat, at=at,
                             cards=codes(basic.choose_pass(state, seat)))
    if state.phase == PLAY:
        card = expert.choose_card(state, seat, seed, budget) if level == "expert" \
            else _PLAIN[level].choose_card(state, seat)
        return cmd.PlayCard(seat=seat, card=code(card), at=at)
    raise NothingToDo(f"nothing for seat {seat} to do during {state.phase}")


__all__ = ["LEVELS", "NothingToDo", "choose", "timeout_command"]
