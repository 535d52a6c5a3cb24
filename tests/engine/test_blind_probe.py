"""A seat that has not looked at its cards cannot learn them by probing the engine."""

import pytest

from engine.cards import CODES
from engine.cards import deck as deck_table
from engine.cards import ids as deck_ids
from engine.decide import step
from engine.errors import RuleError
from engine.presets import PRESETS
from engine.state import GameState
from schemas import commands as cmd
from schemas import events as ev

from .helpers import narrowed


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


def test_the_seat_that_looks_receives_its_hand_and_no_one_else_does() -> None:
    from engine.views import redact

    s = _trailing_house_deal()
    after, events = step(s, cmd.LookAtCards(seat=0))
    mine = narrowed(redact(events[0], after, 0), ev.CardsLooked)
    assert mine.cards == tuple(CODES[c] for c in deck_ids(after.hands[0]))
    assert narrowed(redact(events[0], after, 1), ev.CardsLooked).cards == ()
    assert narrowed(redact(events[0], after, None), ev.CardsLooked).cards == ()


def test_declaring_blind_nil_then_shows_the_seat_its_cards() -> None:
    from engine.views import view

    s = _trailing_house_deal()
    after, events = step(s, cmd.BidBlindNil(seat=0))
    assert [type(e).__name__ for e in events] == ["BidPlaced", "CardsLooked"]
    assert view(after, 0).hand is not None


def test_bidding_without_looking_looks_first() -> None:
    s = _trailing_house_deal()
    _, events = step(s, cmd.PlaceBid(seat=0, bid=3))
    assert [type(e).__name__ for e in events] == ["CardsLooked", "BidPlaced"]


def test_each_seat_of_the_exchange_is_told_the_cards_it_received() -> None:
    from engine.presets import resolve
    from engine.views import redact

    rules = resolve({"preset": "house", "blind_nil_pass": 2})
    s = step(GameState(), cmd.StartGame(rules=rules, scores=(0, 150)))[0]
    cards = [CODES[c] for c in deck_table("jokers_deuces").cards]
    s = step(s, cmd.DealHand(dealer=3, hands=tuple(tuple(cards[i::4]) for i in range(4))))[0]
    s = step(s, cmd.BidBlindNil(seat=0))[0]
    for seat, bid in ((1, 4), (2, 5), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=bid))[0]
    give0 = tuple(CODES[c] for c in deck_ids(s.hands[0])[-2:])
    give2 = tuple(CODES[c] for c in deck_ids(s.hands[2])[:2])
    s = step(s, cmd.PassCards(seat=0, cards=give0))[0]
    after, events = step(s, cmd.PassCards(seat=2, cards=give2))
    exchanged = events[-1]
    assert isinstance(exchanged, ev.CardsExchanged) and exchanged.received == ()
    assert narrowed(redact(exchanged, after, 0), ev.CardsExchanged).received == give2
    assert narrowed(redact(exchanged, after, 2), ev.CardsExchanged).received == give0
    assert narrowed(redact(exchanged, after, 1), ev.CardsExchanged).received == ()
    assert narrowed(redact(exchanged, after, None), ev.CardsExchanged).received == ()
