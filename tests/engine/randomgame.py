"""A random-game driver: plays seeded games or single hands with random legal moves.

Every move goes through ``engine.decide.step``, so whatever the driver plays is
what a client could have played. The choices come from ``random.Random(seed)``
only, so a seed always gives the same game: property tests use it to explore
games, and the benchmark uses it to time full hands.

``play_game`` and ``play_hand`` return one ``(state, events)`` pair per
command, starting with the ``StartGame`` step; the state is the state after
the command's events.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import bots
from engine.cards import code, ids
from engine.decide import step
from engine.evolve import blind_nil_offered
from engine.play import deck_of, legal_cards
from engine.state import BIDDING, DEALING, OVER, PASSING, PLAY, GameState
from schemas import commands as cmd
from schemas.events import Event
from schemas.rules import Rules

Steps = list[tuple[GameState, list[Event]]]

# Bids a random player might make: near what random play takes (so that random
# games still reach the target), now and then nil or all thirteen.
_BIDS = (1, 2, 2, 3, 3, 3, 4)


def random_deal(rng: random.Random, rules: Rules) -> tuple[tuple[str, ...], ...]:
    """Four random 13-card hands of the rules' deck."""
    cards = list(deck_of(rules).cards)
    rng.shuffle(cards)
    return tuple(tuple(code(c) for c in cards[i::4]) for i in range(4))


class _Driver:
    def __init__(self, rng: random.Random, extras: bool) -> None:
        self.rng = rng
        self.extras = extras  # also look, pre-move, let clocks expire, leave and return
        self.at = 1_000_000
        self.steps: Steps = []

    @property
    def state(self) -> GameState:
        return self.steps[-1][0]

    def run(self, command: cmd.Command) -> GameState:
        state, events = step(self.state if self.steps else GameState(), command)
        self.steps.append((state, events))
        return state

    def tick(self) -> int:
        self.at += self.rng.randint(0, 4_000)
        return self.at

    def act(self) -> None:
        """One random legal command for the state the game is in."""
        s, rng = self.state, self.rng
        seats = [x for x in range(4) if s.waiting >> x & 1]
        seat = rng.choice(seats)
        if self.extras and rng.random() < 0.04:
            self.run(bots.timeout_command(s, seat, at=max(self.tick(), s.deadlines[seat])))
            return
        if self.extras and s.rules is not None and s.rules.abandon == "bot":
            roll = rng.random()
            if roll < 0.01 and s.bots != 0b1111:
                leaver = rng.choice([x for x in range(4) if not s.bots >> x & 1])
                self.run(cmd.LeaveSeat(seat=leaver, at=self.tick()))
                return
            if roll < 0.03 and s.bots:
                back = rng.choice([x for x in range(4) if s.bots >> x & 1])
                self.run(cmd.ReturnToSeat(seat=back, at=self.tick()))
                return
        if self.extras and s.phase in (BIDDING, PLAY) and rng.random() < 0.08:
            other = rng.randrange(4)
            if s.hands[other] and s.looked >> other & 1 and not s.waiting >> other & 1:
                card = rng.choice(ids(s.hands[other]))
                self.run(cmd.SetPremove(seat=other, card=code(card), at=self.tick()))
                return
        if s.phase == BIDDING:
            self.bid(s, seat)
        elif s.phase == PASSING:
            assert s.rules is not None
            cards = rng.sample(ids(s.hands[seat]), s.rules.blind_nil_pass)
            self.run(cmd.PassCards(seat=seat, cards=tuple(code(c) for c in cards),
                                   at=self.tick()))
        else:
            card = rng.choice(ids(legal_cards(s, seat)))
            self.run(cmd.PlayCard(seat=seat, card=code(card), at=self.tick()))

    def bid(self, s: GameState, seat: int) -> None:
        assert s.rules is not None
        rng = self.rng
        if blind_nil_offered(s, seat):
            if rng.random() < 0.05:
                self.run(cmd.BidBlindNil(seat=seat, at=self.tick()))
                return
            if self.extras and rng.random() < 0.5:
                self.run(cmd.LookAtCards(seat=seat, at=self.tick()))
                return
        roll = rng.random()
        bid = 0 if roll < 0.02 else 13 if roll < 0.025 else rng.choice(_BIDS)
        if bid == 0 and not s.rules.nil:
            bid = 1
        self.run(cmd.PlaceBid(seat=seat, bid=bid, at=self.tick()))


def play_game(seed: int, rules: Rules, *, game_seed: str | None = None,
              scores: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0),
              max_hands: int | None = None, extras: bool = False,
              sealed: bool = False) -> Steps:
    """A seeded game (the engine deals from ``game_seed``, ``sealed`` or not) played at
    random until it ends, or until ``max_hands`` hands have been scored."""
    rng = random.Random(seed)
    if game_seed is None:
        game_seed = rng.randbytes(32).hex()
    d = _Driver(rng, extras)
    d.run(cmd.StartGame(rules=rules, seed=game_seed, scores=scores, bags=bags, sealed=sealed,
                        at=d.at))
    while d.state.phase != OVER and (max_hands is None or d.state.hands_played < max_hands):
        d.act()
    return d.steps


def play_hand(seed: int, rules: Rules, *, dealer: int | None = None,
              hands: tuple[tuple[str, ...], ...] | None = None,
              scores: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0),
              extras: bool = False) -> Steps:
    """One externally dealt hand (``DealHand``; random unless ``hands`` is given),
    bid and played at random until it is scored or the match ends."""
    rng = random.Random(seed)
    d = _Driver(rng, extras)
    d.run(cmd.StartGame(rules=rules, scores=scores, bags=bags, at=d.at))
    d.run(cmd.DealHand(dealer=rng.randrange(4) if dealer is None else dealer,
                       hands=hands or random_deal(rng, rules), at=d.tick()))
    while d.state.phase not in (DEALING, OVER):
        d.act()
    return d.steps


def play_out(state: GameState, choose: Callable[[GameState, int], int]) -> Steps:
    """Finish the trick play of a hand with ``choose(state, seat) -> card id``."""
    steps: Steps = []
    while state.phase == PLAY:
        seat = state.waiting.bit_length() - 1
        state, events = step(state, cmd.PlayCard(seat=seat, card=code(choose(state, seat))))
        steps.append((state, events))
    return steps


__all__ = ["Steps", "play_game", "play_hand", "play_out", "random_deal"]
