"""Table talk from bots: a short line now and then on the moments players react to.

A pure function of the game's id, the event batch and the seats bots play, so
the same game always says the same lines (tests assert them, a replay agrees)
and no clock or random generator is involved. The choice hashes the game id
and the stream version, never the shuffle seed or a hand, so a line can never
hint at hidden cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import TRUMP, card_id
from engine.evolve import evolve
from engine.state import GameState
from schemas import events as ev

LINES: dict[str, tuple[str, ...]] = {
    "nil_made": ("Nil made. Smooth.", "Not a single trick. Beautiful nil.",
                 "That nil held up!"),
    "nil_broken": ("There goes the nil.", "Nil busted!", "Ouch, that nil didn't survive."),
    "set": ("Set! That one stings.", "Down they go.", "Couldn't make the bid, huh?"),
    "boston": ("A Boston! All thirteen tricks.", "Clean sweep. Boston!",
               "Thirteen for thirteen!"),
    "big_trump": ("Trumped!", "Didn't see that coming, did you?", "Cut!",
                  "Spades, my friend."),
}

# Out of 256: how often a bot speaks up on each kind of moment.
CHANCE = {"nil_made": 160, "nil_broken": 160, "set": 128, "boston": 255, "big_trump": 48}
MAX_LINES_PER_BATCH = 2


@dataclass(frozen=True, slots=True)
class Moment:
    kind: str
    seat: int  # the seat it happened to (the nil bidder, a seat of the set team, the trumper)


@dataclass(frozen=True, slots=True)
class Line:
    seat: int
    text: str


def moments(before: GameState, events: Sequence[ev.Event]) -> list[Moment]:
    """The moments of one command's events, in the order they happened."""
    found: list[Moment] = []
    s = before
    for e in events:
        if isinstance(e, ev.TrickWon):
            led = card_id(e.cards[s.leader]) if s.leader >= 0 else -1
            won = card_id(e.cards[e.seat])
            if (s.deck is not None and led >= 0 and s.deck.suit_of[led] != TRUMP
                    and s.deck.suit_of[won] == TRUMP):
                found.append(Moment("big_trump", e.seat))
        elif isinstance(e, ev.HandScored):
            for seat in range(4):
                if s.bids[seat] == 0:
                    kind = "nil_made" if e.tricks[seat] == 0 else "nil_broken"
                    found.append(Moment(kind, seat))
            for team, score in enumerate(e.teams):
                if score.boston:
                    found.append(Moment("boston", team))
                elif score.contract > 0 and not score.made:
                    found.append(Moment("set", team))
        s = evolve(s, e)
    return found


def lines(game_id: str, version: int, found: Sequence[Moment], bot_seats: int) -> list[Line]:
    """What the bots say about ``found`` (``bot_seats``: a mask of the seats bots play)."""
    bots = [seat for seat in range(4) if bot_seats >> seat & 1]
    if not bots:
        return []
    said: list[Line] = []
    for n, m in enumerate(found):
        h = hashlib.sha256(f"{game_id}:{version}:{n}:{m.kind}".encode()).digest()
        if h[0] >= CHANCE[m.kind]:
            continue
        speaker = m.seat if m.seat in bots else bots[h[1] % len(bots)]
        options = LINES[m.kind]
        said.append(Line(speaker, options[h[2] % len(options)]))
        if len(said) == MAX_LINES_PER_BATCH:
            break
    return said
