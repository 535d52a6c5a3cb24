"""Small builders for rule tests: hand-built deals, bids and plays through ``step``.

Tests read like the rule texts, so the plumbing lives here: cards are written
as space-separated codes (``"AS KS 2D"``), a deal names the hands a rule is
about and fills the others from the rest of the deck, and every move goes
through the engine's ``step`` exactly as a client's would.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
import pytest

from engine.cards import card_id, code, ids
from engine.decide import step
from engine.errors import RuleError
from engine.play import deck_of, legal_cards
from engine.presets import PRESETS, resolve
from engine.state import PLAY, GameState
from schemas import commands as cmd
from schemas.events import Event
from schemas.rules import Rules

E = TypeVar("E", bound=Event)

HOUSE, QUICK, CLASSIC = PRESETS["house"], PRESETS["quick"], PRESETS["classic"]
BEGINNER, CLUB = PRESETS["beginner"], PRESETS["club"]


def rules(base: str | Rules = "house", **overrides: Any) -> Rules:
    """A preset, with overrides validated like a table's settings."""
    if isinstance(base, Rules):
        return msgspec.structs.replace(base, **overrides)
    return resolve({"preset": base, **overrides})


def narrowed(event: Event | None, kind: type[E]) -> E:
    """``event`` as the kind a test expects (an event as redacted for a seat, say),
    failing the test when it is another kind or was withheld."""
    assert isinstance(event, kind), f"expected {kind.__name__}, got {event!r}"
    return event


def cards(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def fill(r: Rules, *given: str | None) -> tuple[tuple[str, ...], ...]:
    """Four hands: the seats given (``None`` for "any") hold exactly those cards; the
    rest of the deck is dealt, in card order, round the seats still short."""
    hands = [list(cards(g)) if g else [] for g in (*given, *[None] * (4 - len(given)))]
    used = {card_id(c) for h in hands for c in h}
    rest = [c for c in deck_of(r).cards if c not in used]
    open_seats = [s for s in range(4) if not (given[s] if s < len(given) else None)]
    seat_cycle = 0
    for c in rest:
        while len(hands[open_seats[seat_cycle % len(open_seats)]]) >= 13:
            seat_cycle += 1
        hands[open_seats[seat_cycle % len(open_seats)]].append(code(c))
        seat_cycle += 1
    assert all(len(h) == 13 for h in hands), [len(h) for h in hands]
    return tuple(tuple(h) for h in hands)


def start(r: Rules, scores: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0),
          at: int = 0) -> GameState:
    """A game whose hands are dealt from outside (no seed)."""
    return step(GameState(), cmd.StartGame(rules=r, scores=scores, bags=bags, at=at))[0]


def deal(r: Rules, hands: tuple[tuple[str, ...], ...], dealer: int = 3,
         scores: tuple[int, int] = (0, 0), bags: tuple[int, int] = (0, 0),
         at: int = 0) -> GameState:
    """A new game at ``scores``/``bags`` with ``hands`` dealt by ``dealer``."""
    s = start(r, scores, bags, at)
    return step(s, cmd.DealHand(dealer=dealer, hands=hands, at=at))[0]


def bid(state: GameState, bids: Iterable[int], at: int = 0) -> GameState:
    """Everyone bids (``bids`` in seat order), in turn from the dealer's left."""
    bids = tuple(bids)
    for k in range(4):
        seat = (state.dealer + 1 + k) % 4
        state = step(state, cmd.PlaceBid(seat=seat, bid=bids[seat], at=at))[0]
    return state


def play(state: GameState, *played: str, at: int = 0) -> GameState:
    """Each card is played by the seat whose turn it is."""
    for c in played:
        state = step(state, cmd.PlayCard(seat=turn(state), card=c, at=at))[0]
    return state


def play_events(state: GameState, card: str, at: int = 0) -> tuple[GameState, list[Event]]:
    return step(state, cmd.PlayCard(seat=turn(state), card=card, at=at))


def turn(state: GameState) -> int:
    return state.waiting.bit_length() - 1


def refusal(state: GameState, command: cmd.Command) -> str:
    """The code of the rule ``command`` breaks; fails the test if it is accepted."""
    with pytest.raises(RuleError) as err:
        step(state, command)
    return err.value.code


def legal(state: GameState) -> set[str]:
    return {code(c) for c in ids(legal_cards(state, turn(state)))}


def lowest_card(state: GameState, seat: int) -> int:
    """A fixed, bid-blind way to play: the lowest legal card id."""
    return ids(legal_cards(state, seat))[0]


def play_out(state: GameState) -> tuple[GameState, list[str]]:
    """Finish the hand with ``lowest_card``; the cards in the order played."""
    played = []
    while state.phase == PLAY:
        c = code(lowest_card(state, turn(state)))
        played.append(c)
        state = play(state, c)
    return state, played


def tricks_with(r: Rules, hands: tuple[tuple[str, ...], ...], dealer: int) -> tuple[int, ...]:
    """Tricks per seat when the hand is played out with ``lowest_card`` (which ignores
    the bids, so the same deal gives the same tricks whatever is bid)."""
    s = bid(deal(r, hands, dealer), [1, 1, 1, 1])
    return play_out(s)[0].tricks


def find_deal(r: Rules, want, dealer: int = 3, seed: int = 1,
              tries: int = 5000) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...]]:
    """A random deal whose ``lowest_card`` play gives tricks per seat satisfying ``want``."""
    rng = random.Random(seed)
    deck = [code(c) for c in deck_of(r).cards]
    for _ in range(tries):
        rng.shuffle(deck)
        hands = tuple(tuple(deck[i::4]) for i in range(4))
        t = tricks_with(r, hands, dealer)
        if want(t):
            return hands, t
    raise AssertionError("no deal found")


def hand_record(r: str | dict, dealer: int, hands, bids, prior=None, blind=None) -> dict:
    """A complete hand record (game-record.md), its plays made with ``lowest_card``."""
    rr = resolve(r)
    s = deal(rr, hands, dealer, *(() if prior is None else (tuple(prior["scores"]),
                                                           tuple(prior["bags"]))))
    s = bid(s, bids)
    _, plays = play_out(s)
    rec = {"id": "t", "rules": r, "dealer": dealer, "hands": [list(h) for h in hands],
           "bids": list(bids), "plays": plays}
    if prior is not None:
        rec["prior"] = prior
    if blind is not None:
        rec["blind_nil"] = blind
    return rec


def match_hand(r: Rules, dealer: int, hands, bids) -> dict:
    """One hand of a match record (its plays made with ``lowest_card``)."""
    s = bid(deal(r, hands, dealer), bids)
    _, plays = play_out(s)
    return {"dealer": dealer, "hands": [list(h) for h in hands], "bids": list(bids),
            "plays": plays}


def bot_game(r: Rules, seed: int, most_moves: int = 5000,
             players: tuple[str, str, str, str] = ("a", "b", "c", "d"),
             rated: bool = False) -> list[Event]:
    """A whole game's events, every seat the basic bot (for the consumers of events)."""
    from engine import bots
    from engine.state import OVER, seats_in

    state, events = step(GameState(), cmd.StartGame(
        rules=r, players=players, seed=f"{seed:064x}", at=1, rated=rated))
    out: list[Event] = list(events)
    for n in range(most_moves):
        if state.phase == OVER:
            break
        seat = seats_in(state.waiting)[0]
        state, events = step(state, bots.choose(state, seat, "basic", seed=n, at=1000 + n))
        out += events
    return out
