"""Hand-built positions: chosen cards for some seats, the rest dealt in deck order.

Every position is reached through ``engine.decide.step`` (a deal, the bids,
then the plays), so a test situation is always one a real game could reach.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import card_id, code
from engine.decide import step
from engine.play import deck_of
from engine.presets import PRESETS
from engine.state import GameState
from schemas import commands as cmd
from schemas.rules import Rules


def deal_with(rules: Rules, fixed: dict[int, Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    """Four hands: each seat's fixed cards, topped up to 13 from the rest of the deck.

    The filler goes seat by seat from the deck's lowest card up; seats whose hand
    should hold nothing high can be listed later in ``fixed`` to get low filler first.
    """
    taken = {card_id(c) for cs in fixed.values() for c in cs}
    rest = [c for c in deck_of(rules).cards if c not in taken]
    hands: list[list[str]] = []
    for seat in range(4):
        mine = [c.upper() for c in fixed.get(seat, ())]
        while len(mine) < 13:
            mine.append(code(rest.pop(0)))
        hands.append(mine)
    return tuple(tuple(h) for h in hands)


def position(hands: tuple[tuple[str, ...], ...], bids: Sequence[int], plays: Sequence[str] = (),
             rules: Rules | None = None, dealer: int = 3) -> GameState:
    """The state after dealing ``hands``, bidding ``bids`` (by seat) and playing ``plays``.

    Bidding stops at the first seat past the end of ``bids``.
    """
    rules = rules or PRESETS["classic"]
    s = step(GameState(), cmd.StartGame(rules=rules))[0]
    s = step(s, cmd.DealHand(dealer=dealer, hands=hands))[0]
    while s.phase == "bidding":
        seat = next(i for i in range(4) if s.waiting >> i & 1)
        if seat >= len(bids):
            break  # leave the rest of the bidding to the test
        s = step(s, cmd.PlaceBid(seat=seat, bid=bids[seat]))[0]
    for c in plays:
        s = step(s, cmd.PlayCard(seat=s.waiting.bit_length() - 1, card=c))[0]
    return s


def to_play(s: GameState) -> int:
    return s.waiting.bit_length() - 1
