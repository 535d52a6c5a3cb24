"""Duplicate deals: score each deal against every team that held the same cards.

With ``deals: "duplicate"`` every table of a round plays the same deals, and the
home team (seats 0 and 2) holds the same cards at every table. A team's result
on a deal is its hand score minus its opponents'; it earns a matchpoint for
each team that held the same cards and did worse, half for each that did as
well (duplicate bridge's matchpoints). Luck of the deal cancels out: only how a
team played the cards it held is compared.

Duplicate play is fair only if nobody sees a deal before finishing it (docs/tournaments.md,
"Duplicate deals"): a round's results are shown only once the round is over
(``published``), and a player whose match of a round has no result yet may not look at
the round's other tables (``reads.withheld``; the lobby refuses them).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from schemas.tournaments.events import DealResult
from services.tournaments.standings import Ledger
from services.tournaments.state import Tournament, result_of


@dataclass(frozen=True, slots=True)
class TableDeals:
    """One table's deals of a duplicate round."""

    round_no: int
    home: str
    away: str
    deals: tuple[DealResult, ...]


@dataclass(frozen=True, slots=True)
class DuplicateScore:
    team_id: str
    matchpoints: int  # half matchpoints
    top: int  # half matchpoints: the most the team could have earned

    @property
    def percent(self) -> float:
        return 100.0 * self.matchpoints / self.top if self.top else 0.0


def matchpoints(tables: Iterable[TableDeals]) -> dict[str, DuplicateScore]:
    """Every team's matchpoints over the given tables' deals."""
    # (round, deal, direction) -> [(team, net)]: the teams that held the same cards.
    held: dict[tuple[int, int, str], list[tuple[str, int]]] = defaultdict(list)
    teams: set[str] = set()
    for table in tables:
        teams.update((table.home, table.away))
        for d in table.deals:
            held[(table.round_no, d.deal_no, "home")].append((table.home, d.home - d.away))
            held[(table.round_no, d.deal_no, "away")].append((table.away, d.away - d.home))
    won: dict[str, int] = dict.fromkeys(teams, 0)
    top: dict[str, int] = dict.fromkeys(teams, 0)
    for results in held.values():
        nets = sorted(net for _, net in results)
        for team, net in results:
            below = bisect_left(nets, net)
            level = bisect_left(nets, net + 1) - below - 1
            won[team] += 2 * below + level
            top[team] += 2 * (len(results) - 1)
    return {t: DuplicateScore(team_id=t, matchpoints=won[t], top=top[t]) for t in teams}


def played_deals(state: Tournament) -> list[TableDeals]:
    """The deals of every round that is over: a round's results are shown, and compared,
    only once no table is still playing its cards."""
    return [TableDeals(r.round_no, m.pairing.home, m.pairing.away, m.deals)
            for r in state.rounds if r.completed
            for m in (state.matches[match_id] for match_id in r.match_ids) if m.deals]


def duplicate_scores(state: Tournament) -> dict[str, DuplicateScore]:
    """Every team's matchpoints so far; empty unless the tournament deals duplicate."""
    return matchpoints(played_deals(state)) if _duplicate(state) else {}


def _duplicate(state: Tournament) -> bool:
    return state.settings is not None and state.settings.format.deals == "duplicate"


def published(state: Tournament) -> Tournament:
    """The tournament as its bracket and standings show it: in a duplicate tournament, a
    round still being played shows none of its results (winner, scores, bags, deals)."""
    if not _duplicate(state):
        return state
    hidden = {match_id: replace(m, outcome=None, reason="played", scores=(0, 0),
                                bags_taken=(0, 0), deals=())
              for r in state.rounds if not r.completed for match_id in r.match_ids
              if (m := state.matches[match_id]).outcome is not None}
    if not hidden:
        return state
    shown = {**state.matches, **hidden}
    return replace(state, matches=shown, ledger=Ledger.of(
        (match_id, r) for match_id, m in shown.items() if (r := result_of(m)) is not None))
