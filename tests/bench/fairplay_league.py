"""A league of bots for measuring ``engine.fairplay``: honest accounts, partners who peek
at each other's hands, and accounts that trade wins, playing whole matches written as
interchange match records with ``players`` (docs/fairplay.md).
"""

from __future__ import annotations

from random import Random
from typing import Any, NamedTuple

from engine.bots import choose, expert
from engine.bots.arena import deal
from engine.cards import code, ids
from engine.decide import step
from engine.play import legal_cards
from engine.state import DEALING, OVER, PLAY, GameState
from schemas import commands as cmd
from schemas.rules import Rules


class Account(NamedTuple):
    """A league member: how it plays, and how it cheats (``peek``: the share of its card
    decisions its search sees the partner's hand; ``trades_with``: the account it lets win
    when they meet)."""

    name: str
    level: str = "expert"
    budget: int = 16
    peek: float = 0.0
    trades_with: str = ""


def _move(state: GameState, seat: int, me: Account, throwing: bool, rng: Random,
          seed: int) -> cmd.Command:
    if state.phase == PLAY and throwing:
        return cmd.PlayCard(seat=seat, card=code(rng.choice(ids(legal_cards(state, seat)))))
    if state.phase == PLAY and me.peek and rng.random() < me.peek:
        card = expert.choose_card(state, seat, seed, me.budget, sees_partner=True)
        return cmd.PlayCard(seat=seat, card=code(card))
    c = choose(state, seat, me.level, seed, budget=me.budget)
    if throwing and isinstance(c, cmd.PlaceBid) and c.bid:
        return cmd.PlaceBid(seat=seat, bid=min(13, c.bid + 4))
    return c


def play_match(rules: Rules, seats: tuple[Account, ...], rng: Random, game_id: str,
               ended_at: int, thrower: str = "") -> dict[str, Any]:
    """One match to its end as a match record; ``thrower`` (a seat's account name)
    plays to lose it."""
    state = step(GameState(), cmd.StartGame(rules=rules))[0]
    hands: list[dict[str, Any]] = []
    dealer = rng.randrange(4)
    seed = rng.randrange(1 << 30)
    while state.phase != OVER:
        if state.phase == DEALING or (state.phase == "new"):
            dealt = deal(rng, rules)
            hands.append({"dealer": dealer, "hands": [list(h) for h in dealt],
                          "bids": [0, 0, 0, 0], "blind_nil": [False] * 4, "plays": []})
            state = step(state, cmd.DealHand(dealer=dealer, hands=dealt))[0]
            dealer = (dealer + 1) % 4
            continue
        seat = next(s for s in range(4) if state.waiting >> s & 1)
        me = seats[seat]
        c = _move(state, seat, me, me.name == thrower, rng, seed)
        seed += 1
        h = hands[-1]
        if isinstance(c, cmd.PlaceBid):
            h["bids"][seat] = c.bid
        elif isinstance(c, cmd.BidBlindNil):
            h["blind_nil"][seat] = True
        elif isinstance(c, cmd.PassCards):
            h.setdefault("passes", [[], [], [], []])[seat] = list(c.cards)
        elif isinstance(c, cmd.PlayCard):
            h["plays"].append(c.card)
        state = step(state, c)[0]
    return {"id": game_id, "kind": "match", "rules": rules.preset, "hands": hands,
            "game_id": game_id, "players": [a.name for a in seats], "ended_at": ended_at,
            "rated": True}
