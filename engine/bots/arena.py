"""Bots playing whole hands through ``decide``, as a game worker would drive them.

Strength is measured duplicate style: the same deal is played twice with the
pairs swapping seats, so the cards each pair held cancel out and what is left
is how well they bid and played. Everything goes through the engine's own
commands, so a bot that tried an illegal move would fail loudly here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random

from engine.bidding import legal_bids
from engine.bots import choose
from engine.cards import code, ids
from engine.decide import step
from engine.play import deck_of, legal_cards
from engine.state import BIDDING, PLAY, GameState
from schemas import commands as cmd
from schemas.rules import Rules

# A player: (state, seat) -> the command it sends.
Player = Callable[[GameState, int], cmd.Command]


def bot(level: str, seed: int = 0, budget: int | None = None) -> Player:
    def play(state: GameState, seat: int) -> cmd.Command:
        return choose(state, seat, level, seed, budget=budget)
    return play


def random_player(rng: Random) -> Player:
    """Uniformly random legal bids and cards: the floor any bot must clear."""
    def play(state: GameState, seat: int) -> cmd.Command:
        if state.phase == BIDDING:
            assert state.rules is not None
            return cmd.PlaceBid(seat=seat, bid=rng.choice(legal_bids(state.rules)))
        if state.phase == PLAY:
            return cmd.PlayCard(seat=seat, card=code(rng.choice(ids(legal_cards(state, seat)))))
        return choose(state, seat, "basic")
    return play


def deal(rng: Random, rules: Rules) -> tuple[tuple[str, ...], ...]:
    """Four random hands of card codes for the deck of ``rules``."""
    cards = list(deck_of(rules).cards)
    rng.shuffle(cards)
    return tuple(tuple(code(c) for c in cards[i::4]) for i in range(4))


def play_hand(rules: Rules, dealer: int, hands: tuple[tuple[str, ...], ...],
              players: Sequence[Player]) -> tuple[GameState, tuple[int, int]]:
    """Play one hand from a 0-0 start; returns the final state and each team's delta."""
    state = step(GameState(), cmd.StartGame(rules=rules))[0]
    state = step(state, cmd.DealHand(dealer=dealer, hands=hands))[0]
    while state.hands_played == 0:
        seat = next(s for s in range(4) if state.waiting >> s & 1)
        state = step(state, players[seat](state, seat))[0]
    teams = state.sheet[-1].teams
    return state, (teams[0].delta, teams[1].delta)


def duplicate(rules: Rules, dealer: int, hands: tuple[tuple[str, ...], ...],
              pair_a: Sequence[Player], pair_b: Sequence[Player]) -> tuple[int, int]:
    """Pair A's and pair B's totals over the deal played both ways round.

    ``pair_a``/``pair_b`` are two players each (one per seat of the partnership).
    """
    first = (pair_a[0], pair_b[0], pair_a[1], pair_b[1])
    second = (pair_b[0], pair_a[0], pair_b[1], pair_a[1])
    _, (a1, b1) = play_hand(rules, dealer, hands, first)
    _, (b2, a2) = play_hand(rules, dealer, hands, second)
    return a1 + a2, b1 + b2
