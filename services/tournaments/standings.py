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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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


_TIEBREAKS: tuple[TieBreak, ...] = ("buchholz", "head_to_head", "differential", "bags", "points")
_WON = {"home": (2, 0), "away": (0, 2), "draw": (1, 1), "double_forfeit": (0, 0)}


@dataclass(slots=True)
class Ledger:
    """What the results so far give each team, tallied as they come: its tally, its
    match points per round (for a bye's virtual opponent) and its opponents. Kept in the
    tournament's fold (``Tournament.apply`` records each result and override), so the
    standings after a result cost a sort of the teams, not a walk of every match; byes
    are added when ranking (``ranked``), as their worth is the format's."""

    results: dict[str, Result] = field(default_factory=dict)  # by match id
    tally: dict[str, _Tally] = field(default_factory=lambda: defaultdict(_Tally))
    by_round: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    opponents: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    last_round: int = 0

    @classmethod
    def of(cls, results: Iterable[tuple[str, Result]]) -> Ledger:
        """A ledger of (match id, result) pairs, tallied from nothing."""
        ledger = cls()
        for match_id, r in results:
            ledger.record(match_id, r)
        return ledger

    def copy(self) -> Ledger:
        other = Ledger()
        other.results = dict(self.results)
        for team, t in self.tally.items():
            other.tally[team] = _Tally(t.match_points, t.differential, t.bags, t.points)
        for team, rounds in self.by_round.items():
            other.by_round[team] = dict(rounds)
        for team, opponents in self.opponents.items():
            other.opponents[team] = list(opponents)
        other.last_round = self.last_round
        return other

    def record(self, match_id: str, r: Result) -> None:
        """The match's result, new or in place of the one it had (an override)."""
        old = self.results.get(match_id)
        if old is not None:
            self._count(old, -1)
        else:
            self.opponents[r.home].append(r.away)
            self.opponents[r.away].append(r.home)
        self.results[match_id] = r
        self._count(r, 1)
        self.last_round = max(self.last_round, r.round_no)

    def _count(self, r: Result, sign: int) -> None:
        got_home, got_away = _WON[r.outcome]
        for team, got, scored, conceded, bags in (
                (r.home, got_home, r.scores[0], r.scores[1], r.bags_taken[0]),
                (r.away, got_away, r.scores[1], r.scores[0], r.bags_taken[1])):
            t = self.tally[team]
            t.match_points += sign * got
            rounds = self.by_round[team]
            rounds[r.round_no] = rounds.get(r.round_no, 0) + sign * got
            if r.reason in ("played", "override"):
                t.differential += sign * (scored - conceded)
                t.bags += sign * bags
                t.points += sign * scored


def standings(seeds: Sequence[str], results: Sequence[Result],
              byes: Sequence[tuple[int, str]] = (), bye_points: int = 2,
              tiebreaks: Sequence[TieBreak] = ("differential", "bags", "points"),
              half_byes: Sequence[tuple[int, str]] = ()) -> list[Row]:
    """Rank ``seeds`` (team ids, top seed first) from the results and byes so far,
    tallied from nothing.

    ``byes`` are (round, team); each is worth ``bye_points`` half points. ``half_byes``
    (a late joiner's, for the rounds it missed) are worth one half point and no opponent.
    """
    return ranked(seeds, Ledger.of((str(i), r) for i, r in enumerate(results)), byes,
                  bye_points, tiebreaks, half_byes)


def ranked(seeds: Sequence[str], ledger: Ledger, byes: Sequence[tuple[int, str]] = (),
           bye_points: int = 2,
           tiebreaks: Sequence[TieBreak] = ("differential", "bags", "points"),
           half_byes: Sequence[tuple[int, str]] = ()) -> list[Row]:
    """``standings`` from a ledger of the results: the byes and half byes credited on
    top of its tallies (left as they are), then the tie-breaks and the order."""
    extra: dict[str, list[tuple[int, int]]] = defaultdict(list)  # team -> (round, points)
    for round_no, team in half_byes:
        extra[team].append((round_no, 1))
    byes_of: dict[str, list[int]] = defaultdict(list)
    for round_no, team in byes:
        extra[team].append((round_no, bye_points))
        byes_of[team].append(round_no)
    tally, none = ledger.tally, _Tally()
    points = {team: tally.get(team, none).match_points
              + sum(p for _, p in extra.get(team, ())) for team in seeds}
    last_round = max([ledger.last_round] + [r for r, _ in byes])

    def buchholz_of(team: str) -> int:
        """The sum of the opponents' match points, a bye counting as a virtual opponent."""
        total = sum(points[o] for o in ledger.opponents.get(team, ()))
        for round_no in byes_of.get(team, ()):
            before = sum(p for rn, p in ledger.by_round.get(team, {}).items() if rn < round_no)
            before += sum(p for rn, p in extra[team] if rn < round_no)
            total += before + (last_round - round_no)  # a draw (1 half point) a round
        return total

    buchholz = {team: buchholz_of(team) if "buchholz" in tiebreaks else 0 for team in seeds}
    head = dict.fromkeys(seeds, 0)
    if "head_to_head" in tiebreaks:
        for r in ledger.results.values():
            if points[r.home] == points[r.away]:
                got_home, got_away = _WON[r.outcome]
                head[r.home] += got_home
                head[r.away] += got_away

    seed_of = {t: i + 1 for i, t in enumerate(seeds)}
    picks = [_TIEBREAKS.index(k) for k in tiebreaks]
    keys = {}
    for team in seeds:
        t = tally.get(team, none)
        values = (-buchholz[team], -head[team], -t.differential, t.bags, -t.points)
        keys[team] = (-points[team], *[values[i] for i in picks], seed_of[team])
    order = sorted(seeds, key=keys.__getitem__)
    rows = []
    for i, team in enumerate(order):
        t = tally.get(team, none)
        rows.append(Row(team_id=team, rank=i + 1, match_points=points[team],
                        buchholz=buchholz[team], head_to_head=head[team],
                        differential=t.differential, bags=t.bags, points=t.points,
                        seed=seed_of[team]))
    return rows
