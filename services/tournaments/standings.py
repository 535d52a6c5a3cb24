"""Standings: one total order of the teams, with the tie-breaks that produced it.

Match points first (win 1, draw 1/2, loss 0, bye 1; kept in half points), then
the tie-breaks in the organizer's order, then the seed, which is unique, so
no two teams ever share a place. The tie-breaks:

- ``buchholz`` (Swiss): the sum of the opponents' match points. A bye counts as
  a virtual opponent (FIDE): the team's own points before that round, a loss in
  it, and a draw in every later round.
- ``head_to_head`` (round robin): match points won in the matches among the
  teams level on match points.
- ``differential``: game points scored minus conceded, over games played; byes
  and forfeits add none.
- ``bags``: fewest bags taken over games played.
- ``points``: game points scored over games played.

Which tie-breaks a format allows, and its default order, is the format's
(``formats/``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.tournaments.events import Outcome, ResultReason, TieBreak


@dataclass(frozen=True, slots=True)
class Result:
    """One decided match, as standings need it."""

    round_no: int
    home: str
    away: str
    outcome: Outcome
    reason: ResultReason = "played"
    scores: tuple[int, int] = (0, 0)
    bags_taken: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Row:
    team_id: str
    rank: int
    match_points: int  # half points
    buchholz: int  # half points
    head_to_head: int  # half points
    differential: int
    bags: int
    points: int
    seed: int
    # Knockouts only (None elsewhere): the round of the team's furthest match (byes and
    # walkovers count), that round's name, and whether the team is out.
    reached: int | None = None
    reached_round: str | None = None
    eliminated: bool | None = None


@dataclass(slots=True)
class _Tally:
    match_points: int = 0
    differential: int = 0
    bags: int = 0
    points: int = 0


_WON = {"home": (2, 0), "away": (0, 2), "draw": (1, 1), "double_forfeit": (0, 0)}


class _Ledger:
    """What the results and byes so far give each team: its tally, its match points per
    round (for a bye's virtual opponent), its opponents and the rounds of its byes."""

    def __init__(self, seeds: Sequence[str]) -> None:
        self.tally = {t: _Tally() for t in seeds}
        self.by_round: dict[str, dict[int, int]] = defaultdict(dict)
        self.opponents: dict[str, list[str]] = defaultdict(list)
        self.byes_of: dict[str, list[int]] = defaultdict(list)

    def credit(self, team: str, round_no: int, got: int) -> None:
        self.tally[team].match_points += got
        self.by_round[team][round_no] = self.by_round[team].get(round_no, 0) + got

    def played(self, r: Result) -> None:
        got_home, got_away = _WON[r.outcome]
        for team, got, scored, conceded, bags, opp in (
                (r.home, got_home, r.scores[0], r.scores[1], r.bags_taken[0], r.away),
                (r.away, got_away, r.scores[1], r.scores[0], r.bags_taken[1], r.home)):
            self.credit(team, r.round_no, got)
            self.opponents[team].append(opp)
            if r.reason in ("played", "override"):
                t = self.tally[team]
                t.differential += scored - conceded
                t.bags += bags
                t.points += scored

    def buchholz(self, team: str, last_round: int) -> int:
        """The sum of the opponents' match points, a bye counting as a virtual opponent."""
        total = sum(self.tally[o].match_points for o in self.opponents[team])
        for round_no in self.byes_of.get(team, ()):
            before = sum(p for rn, p in self.by_round[team].items() if rn < round_no)
            total += before + (last_round - round_no)  # a draw (1 half point) a round
        return total


def standings(seeds: Sequence[str], results: Sequence[Result],
              byes: Sequence[tuple[int, str]] = (), bye_points: int = 2,
              tiebreaks: Sequence[TieBreak] = ("differential", "bags", "points"),
              half_byes: Sequence[tuple[int, str]] = ()) -> list[Row]:
    """Rank ``seeds`` (team ids, top seed first) from the results and byes so far.

    ``byes`` are (round, team); each is worth ``bye_points`` half points. ``half_byes``
    (a late joiner's, for the rounds it missed) are worth one half point and no opponent.
    """
    ledger = _Ledger(seeds)
    for r in results:
        ledger.played(r)
    for round_no, team in half_byes:
        ledger.credit(team, round_no, 1)
    for round_no, team in byes:
        ledger.credit(team, round_no, bye_points)
        ledger.byes_of[team].append(round_no)
    tally = ledger.tally
    last_round = max([r.round_no for r in results] + [r for r, _ in byes] + [0])
    buchholz = {team: ledger.buchholz(team, last_round) if "buchholz" in tiebreaks else 0
                for team in seeds}
    head = dict.fromkeys(seeds, 0)
    if "head_to_head" in tiebreaks:
        for r in results:
            if tally[r.home].match_points == tally[r.away].match_points:
                got_home, got_away = _WON[r.outcome]
                head[r.home] += got_home
                head[r.away] += got_away

    seed_of = {t: i + 1 for i, t in enumerate(seeds)}

    def key(team: str) -> tuple[int, ...]:
        t = tally[team]
        values = {"buchholz": -buchholz[team], "head_to_head": -head[team],
                  "differential": -t.differential, "bags": t.bags, "points": -t.points}
        return (-t.match_points, *(values[k] for k in tiebreaks), seed_of[team])

    order = sorted(seeds, key=key)
    return [Row(team_id=team, rank=i + 1, match_points=tally[team].match_points,
                buchholz=buchholz[team], head_to_head=head[team],
                differential=tally[team].differential, bags=tally[team].bags,
                points=tally[team].points, seed=seed_of[team])
            for i, team in enumerate(order)]
