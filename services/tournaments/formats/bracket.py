"""Playing out a drawn elimination bracket: who sits in each match, given the results so far.

A bracket is drawn once (``BracketDrawn``) as matches whose sides come from a
seed or from an earlier match's winner or loser. Everything else (byes, who
advances, which matches are ready) is derived from the draw and the results,
never stored beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from schemas.tournament_events import BracketMatch, Outcome, Source

EMPTY = ""  # nobody: a bye, or the winner of a match neither side came to
PENDING = None  # not known yet


@dataclass(frozen=True, slots=True)
class Slot:
    """One match as far as the results tell: its sides, and its winner and loser."""

    home: str | None
    away: str | None
    winner: str | None
    loser: str | None

    @property
    def ready(self) -> bool:
        """Both teams known, no result yet: the table can open."""
        return bool(self.home) and bool(self.away) and self.winner is PENDING


def resolve(matches: Sequence[BracketMatch], seeds: Sequence[str],
            outcomes: Mapping[str, Outcome]) -> dict[str, Slot]:
    """Every match's sides and result. ``matches`` are in draw order: each match's
    sources come before it. A side with nobody (a seed past the field, the winner of
    an empty match) gives the other side the match without play."""
    slots: dict[str, Slot] = {}

    def side(src: Source) -> str | None:
        if src.kind == "seed":
            n = int(src.ref)
            return seeds[n - 1] if n <= len(seeds) else EMPTY
        slot = slots[src.ref]
        return slot.winner if src.kind == "winner" else slot.loser

    for m in matches:
        home, away = side(m.home), side(m.away)
        if m.reset_of:
            first = slots[m.reset_of]
            if first.winner is PENDING:
                slots[m.match_id] = Slot(PENDING, PENDING, PENDING, PENDING)
                continue
            if first.winner != first.away or not first.winner:
                # The winners' side won the first final: no reset is played.
                slots[m.match_id] = Slot(EMPTY, EMPTY, EMPTY, EMPTY)
                continue
        if home is PENDING or away is PENDING:
            slots[m.match_id] = Slot(home, away, PENDING, PENDING)
        elif not home or not away:
            slots[m.match_id] = Slot(home, away, home or away, EMPTY)
        else:
            outcome = outcomes.get(m.match_id)
            if outcome is None:
                slots[m.match_id] = Slot(home, away, PENDING, PENDING)
            elif outcome == "home":
                slots[m.match_id] = Slot(home, away, home, away)
            elif outcome == "away":
                slots[m.match_id] = Slot(home, away, away, home)
            else:  # neither came (elimination refuses draws): the next opponent advances
                slots[m.match_id] = Slot(home, away, EMPTY, EMPTY)
    return slots


def champion(matches: Sequence[BracketMatch], slots: Mapping[str, Slot]) -> str | None:
    """The bracket's winner once decided: the grand final's (or its reset's, when one
    was played), else the winners' final's; None while pending or if nobody won it."""
    if "GF" in slots:
        final = slots["GF2"] if "GF2" in slots and slots["GF2"].winner != EMPTY else slots["GF"]
    else:
        last = max((m for m in matches if m.match_id.startswith("W")), key=lambda m: m.round_no)
        final = slots[last.match_id]
    return final.winner or None


def done(slots: Mapping[str, Slot]) -> bool:
    """Every match decided (played, given by a bye, or not needed)."""
    return all(s.winner is not PENDING for s in slots.values())
