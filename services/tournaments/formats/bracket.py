"""Playing out a drawn elimination bracket: who sits in each match, given the results so far.

A bracket is drawn once (``BracketDrawn``) as matches whose sides come from a
seed or from an earlier match's winner or loser. Everything else (byes, who
advances, which matches are ready) is derived from the draw and the results,
never stored beside them. ``BracketFormat`` is what the elimination formats share.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from schemas.tournaments.events import (
    BracketDrawn,
    BracketMatch,
    Event,
    FormatOptions,
    MatchesPaired,
    Outcome,
    Pairing,
    Source,
    TournamentFinished,
    TournamentSettings,
)
from services.tournaments.errors import TournamentError
from services.tournaments.formats.base import CommonFormat, Pairs, RoundName
from services.tournaments.standings import Row
from services.tournaments.state import Tournament

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


class BracketFormat(CommonFormat, ABC):
    """An elimination format: its bracket is drawn at the start, each match is paired as
    soon as both its teams are known, a match needs a winner, and the tournament ends when
    every match is decided, ranked by how far each team went."""

    draws = False
    by_rounds = False
    tiebreaks = ("differential", "bags", "points")

    @abstractmethod
    def draw(self, options: FormatOptions, teams: int) -> list[BracketMatch]:
        """The bracket for ``teams`` teams, each match after the ones it comes from."""

    def rounds(self, options: FormatOptions, teams: int) -> int:
        return 0  # nothing is paired by rounds

    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs:
        raise TournamentError("not_paired_by_rounds",
                              "elimination matches are paired as their teams become known")

    def start(self, options: FormatOptions, seeds: tuple[str, ...], at: int) -> list[Event]:
        return [BracketDrawn(at=at, matches=tuple(self.draw(options, len(seeds))))]

    def timers(self, state: Tournament) -> dict[str, int]:
        return {}

    def settle(self, state: Tournament, at: int) -> list[Event]:
        outcomes = {k: m.outcome for k, m in state.matches.items() if m.outcome is not None}
        slots = resolve(state.bracket, state.seeds, outcomes)
        ready = tuple(Pairing(match_id=m.match_id, round_no=m.round_no,
                              home=slots[m.match_id].home or "",
                              away=slots[m.match_id].away or "")
                      for m in state.bracket
                      if slots[m.match_id].ready and m.match_id not in state.matches)
        if ready:
            return [MatchesPaired(at=at, pairings=ready)]
        if done(slots):
            return [TournamentFinished(at=at, champion=champion(state.bracket, slots),
                                       ranking=self._ranking(state))]
        return []

    def override_too_late(self, state: Tournament, match_id: str) -> bool:
        fed = {x.match_id for x in state.bracket
               if match_id in (x.home.ref, x.away.ref, x.reset_of)}
        return any(m in state.matches for m in fed)

    def _ranking(self, state: Tournament) -> tuple[str, ...]:
        """The standings' order: champion first, then by how far each team went."""
        return tuple(r.team_id for r in self.standings(state))

    # --- What decides a knockout, and what its rounds are called ---------------------------

    winners_stage: ClassVar[str] = "bracket"  # the stage of the "W" matches

    def standings(self, state: Tournament) -> list[Row]:
        """By how far each team went: the round of its furthest match (a bye or a walkover
        counts; the final before the third-place match of the same round), still in
        before out, then the match points, tie-breaks and seed of the common standings.
        Each row says the round reached, its name, and whether the team is out."""
        rows = super().standings(state)
        if not state.bracket:
            return rows
        outcomes = {k: m.outcome for k, m in state.matches.items() if m.outcome is not None}
        slots = resolve(state.bracket, state.seeds, outcomes)
        finals = {"GF", "GF2", max((m for m in state.bracket if m.match_id.startswith("W")),
                                   key=lambda m: m.round_no).match_id}
        furthest: dict[str, tuple[tuple[int, bool, bool], BracketMatch | None]] = {}
        for m in state.bracket:
            slot = slots[m.match_id]
            for team in (slot.home, slot.away):
                if not team:
                    continue
                gone = ((slot.winner is not PENDING and slot.winner != team)
                        or bool(state.teams[team].withdrawn))
                key = (-m.round_no, m.match_id not in finals, gone)
                if team not in furthest or key < furthest[team][0]:
                    furthest[team] = (key, m)
        names = {(r.stage, r.round_no): r.name for r in self.round_names(state)}
        position = {r.team_id: i for i, r in enumerate(rows)}
        never: tuple[tuple[int, bool, bool], BracketMatch | None] = ((1, True, True), None)
        ranked = sorted(rows, key=lambda r: (furthest.get(r.team_id, never)[0],
                                             position[r.team_id]))
        table: list[Row] = []
        for i, r in enumerate(ranked):
            key, at = furthest.get(r.team_id, never)
            table.append(replace(r, rank=i + 1, reached=at.round_no if at else 0,
                                 reached_round=names[self.stage_of(at.match_id), at.round_no]
                                 if at else "", eliminated=key[2]))
        return table

    def standings_columns(self, s: TournamentSettings) -> tuple[str, ...]:
        return ("reached", "eliminated", "match_points",
                *self.tiebreak_order(s.format.tiebreaks), "seed")

    def stage_of(self, match_id: str) -> str:
        if match_id.startswith("W"):
            return self.winners_stage
        if match_id.startswith("L"):
            return "losers"
        return "third_place" if match_id == "3P" else "grand_final"

    def round_names(self, state: Tournament) -> list[RoundName]:
        """The drawn bracket's rounds, stage by stage in the order the draw first reaches
        each, rounds in order within a stage."""
        stages: dict[str, list[int]] = {}
        for m in state.bracket:
            got = stages.setdefault(self.stage_of(m.match_id), [])
            if m.round_no not in got:
                got.append(m.round_no)
        return [RoundName(stage, n, self.round_name(stage, n, sorted(numbers)))
                for stage, numbers in stages.items() for n in sorted(numbers)]

    @abstractmethod
    def round_name(self, stage: str, round_no: int, numbers: Sequence[int]) -> str:
        """The name of ``stage``'s round ``round_no``; ``numbers`` are the stage's rounds."""


def knockout_name(round_no: int, last: int) -> str:
    """A knockout round's name, counted back from its stage's last round."""
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(last - round_no,
                                                                   f"Round {round_no}")
