"""The same hand records replayed through OpenSpiel's C++ ``spades`` game, for comparison.

OpenSpiel (``pip install open_spiel``) is an optional dependency of the bench only:
the test suite never needs it, and ``available()`` says whether it is installed.
Its game is one hand in which player 0 bids and leads first and chance deals card
``i`` of the deal to player ``i % 4``, so a record is rotated to put the dealer's
left at player 0. Each play is checked against ``legal_actions`` before it is
applied (a verifier must refuse a revoke), and the hand's returns are read at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

_SUITS, _RANKS = "CDHS", "23456789TJQKA"  # OpenSpiel's order: clubs first
_BID0 = 52  # bid actions are 52 (nil) to 65 (13)
_decoder = msgspec.json.Decoder()


def available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def action(code: str) -> int:
    return _SUITS.index(code[1]) * 13 + _RANKS.index(code[0])


def verify(lines: Sequence[bytes]) -> list[bool]:
    """Replay each JSON-lines hand record; True where OpenSpiel accepts every move."""
    import pyspiel

    game = pyspiel.load_game("spades")
    return [_replay(game, _decoder.decode(line)) for line in lines]


def _replay(game: Any, rec: dict[str, Any]) -> bool:
    state = game.new_initial_state()
    first = (rec["dealer"] + 1) % 4
    order = [(first + p) % 4 for p in range(4)]  # seat of OpenSpiel player p
    hands = [rec["hands"][seat] for seat in order]
    for k in range(13):
        for p in range(4):
            state.apply_action(action(hands[p][k]))
    for seat in order:
        state.apply_action(_BID0 + rec["bids"][seat])
    for code in rec["plays"]:
        a = action(code)
        if a not in state.legal_actions():
            return False
        state.apply_action(a)
    state.returns()
    return True
