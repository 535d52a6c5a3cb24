"""A seat that has not looked at its cards cannot learn them by probing the engine."""

import pytest

from engine.cards import CODES
from engine.cards import deck as deck_table
from engine.decide import step
from engine.errors import RuleError
from engine.presets import PRESETS
from engine.state import GameState
from schemas import commands as cmd


def _trailing_house_deal() -> GameState:
    s = step(GameState(), cmd.StartGame(rules=PRESETS["house"], scores=(0, 150)))[0]
    cards = [CODES[c] for c in deck_table("jokers_deuces").cards]
    return step(s, cmd.DealHand(dealer=3, hands=tuple(tuple(cards[i::4]) for i in range(4))))[0]


def test_an_unlooked_seat_cannot_probe_its_hand_with_a_premove() -> None:
    s = _trailing_house_deal()
    assert not s.looked & 1  # team 0 trails by 150: seat 0 is offered blind nil
    for code in ("AS", "2C", "BJ"):
        with pytest.raises(RuleError) as err:
            step(s, cmd.SetPremove(seat=0, card=code))
        assert err.value.code in ("cards_not_seen", "card_not_in_deck")


def test_after_looking_the_premove_is_accepted() -> None:
    s = _trailing_house_deal()
    s = step(s, cmd.LookAtCards(seat=0))[0]
    held = s.hands[0] & -s.hands[0]
    _, events = step(s, cmd.SetPremove(seat=0, card=CODES[held.bit_length() - 1]))
    assert type(events[0]).__name__ == "PremoveSet"
