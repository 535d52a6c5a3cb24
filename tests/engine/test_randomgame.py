"""The random-game driver other tests and the benchmark rely on."""

from __future__ import annotations

from engine.cards import ids
from engine.evolve import fold
from engine.play import legal_cards
from engine.state import DEALING, OVER
from schemas import events as ev

from .helpers import CLASSIC, HOUSE, QUICK, bid, deal, fill
from .randomgame import play_game, play_hand, play_out


def test_a_seed_always_gives_the_same_game() -> None:
    """Determinism: benchmarks and failing property examples can be replayed."""
    assert play_game(9, HOUSE, max_hands=2) == play_game(9, HOUSE, max_hands=2)
    assert play_hand(9, CLASSIC, extras=True) == play_hand(9, CLASSIC, extras=True)
    assert play_hand(9, CLASSIC) != play_hand(10, CLASSIC)


def test_play_hand_is_one_scored_hand_through_step() -> None:
    """A hand: start, deal, bids and 52 cards, ending scored; one (state, events) pair
    per command, the events folding to the state."""
    steps = play_hand(1, HOUSE)
    assert isinstance(steps[0][1][0], ev.GameStarted)
    assert isinstance(steps[1][1][0], ev.HandDealt)
    final = steps[-1][0]
    assert final.phase in (DEALING, OVER) and final.hands_played == 1
    assert sum(isinstance(e, ev.CardPlayed) for _, es in steps for e in es) == 52
    assert fold(e for _, es in steps for e in es) == final


def test_play_game_plays_to_the_end() -> None:
    """A seeded quick match runs its four hands (or sudden death) to the end."""
    steps = play_game(2, QUICK)
    assert steps[-1][0].phase == OVER and steps[-1][0].hands_played >= 4


def test_play_out_finishes_a_hand_with_a_chooser() -> None:
    """``play_out`` plays the rest of a hand with the given choice of card."""
    s = bid(deal(CLASSIC, fill(CLASSIC)), [3, 3, 3, 3])
    steps = play_out(s, lambda st, seat: ids(legal_cards(st, seat))[-1])
    assert len(steps) == 52 and steps[-1][0].hands_played == 1
