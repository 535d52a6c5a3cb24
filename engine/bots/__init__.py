"""Bots: choices for seats without a player, or whose clock ran out.

``choose`` gives the command a bot seat sends, so a game worker drives bot
seats through ``decide`` exactly as it drives people, and every bot move is an
ordinary event in the game's stream.

``auto_bid``, ``auto_pass`` and ``auto_play`` are what the engine asks when a
clock expires; they use the ``basic`` level, which is deterministic, so a
replay of a ``ClockExpired`` command always yields the stored event.
"""

from __future__ import annotations

from engine.bots import basic, expert
from engine.cards import code, ids
from engine.evolve import passers
from engine.state import BIDDING, PASSING, PLAY, GameState
from schemas import commands as cmd

LEVELS = ("basic", "expert")


def auto_bid(state: GameState, seat: int) -> int:
    return basic.choose_bid(state, seat)


def auto_pass(state: GameState, seat: int) -> int:
    return basic.choose_pass(state, seat)


def auto_play(state: GameState, seat: int) -> int:
    return basic.choose_card(state, seat)


class NothingToDo(ValueError):
    """The seat has no decision to make in this state."""


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
            if basic.wants_blind_nil(state, seat):
                return cmd.BidBlindNil(seat=seat, at=at)
            return cmd.LookAtCards(seat=seat, at=at)
        if level == "expert":
            bid = expert.choose_bid(state, seat, seed, budget)
        else:
            bid = basic.choose_bid(state, seat)
        return cmd.PlaceBid(seat=seat, bid=bid, at=at)
    if state.phase == PASSING and passers(state) >> seat & 1:
        return cmd.PassCards(seat=seat, at=at,
                             cards=tuple(code(c) for c in ids(basic.choose_pass(state, seat))))
    if state.phase == PLAY:
        if level == "expert":
            card = expert.choose_card(state, seat, seed, budget)
        else:
            card = basic.choose_card(state, seat)
        return cmd.PlayCard(seat=seat, card=code(card), at=at)
    raise NothingToDo(f"nothing for seat {seat} to do during {state.phase}")


__all__ = ["LEVELS", "NothingToDo", "auto_bid", "auto_pass", "auto_play", "choose"]
