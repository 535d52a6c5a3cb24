"""Swiss pairing: teams with equal match points meet, nobody meets a team twice when
that can be avoided, and the bye goes to the lowest team that has not had one.

Up to ``EXACT_LIMIT`` teams (lichess arena's limit of exact pairing) the round is
one maximum-weight perfect matching (networkx, Edmonds' blossom algorithm),
whose integer weights rank the goals strictly: no rematch or second bye first,
then the smallest score gaps, then the bye to the lowest team, then neighbours
in the standings. Above it, cubic time is too slow, so score groups are paired
from the top down, neighbour with neighbour, backtracking on rematches and
floating the unpaired down to the next group (as lila hands larger fields to
faster pairing systems).

Pairing is a function of the standings order, the history and the seed: the
seed only decides which team of a pair sits in seats 0 and 2.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from schemas.tournaments.events import FormatKind, FormatOptions, TournamentSettings
from services.tournaments.errors import TournamentError
from services.tournaments.formats.base import Format, Pairs, RoundFormat
from services.tournaments.state import Tournament

EXACT_LIMIT = 100
_BYE = -1
_BACKTRACK_BUDGET = 20_000  # steps per score group before allowing more floaters


@dataclass(frozen=True, slots=True)
class SwissTeam:
    team_id: str
    points: int  # half points
    opponents: frozenset[str] = field(default_factory=frozenset)
    had_bye: bool = False


@dataclass(frozen=True, slots=True)
class SwissRound:
    pairs: list[tuple[str, str]]  # (home, away)
    bye: str | None


def default_rounds(teams: int) -> int:
    """ceil(log2(teams)): enough rounds for a single undefeated team."""
    return max(1, (teams - 1).bit_length())


def max_rounds(teams: int) -> int:
    """The most rounds allowed: fewer than two thirds of the teams (Challonge)."""
    return max(1, -(-2 * teams // 3) - 1)


def pair(standings: Sequence[SwissTeam], seed: str,
         exact_limit: int = EXACT_LIMIT) -> SwissRound:
    """The next round's pairs. ``standings`` is the current order, first place first."""
    teams = list(standings)
    if len(teams) <= exact_limit:
        pairs, bye = _exact(teams)
    else:
        pairs, bye = _by_score_groups(teams)
    return SwissRound(pairs=[_seat(a, b, seed) for a, b in pairs], bye=bye)


def _seat(a: str, b: str, seed: str) -> tuple[str, str]:
    digest = hashlib.sha256(f"{seed}:{min(a, b)}:{max(a, b)}".encode()).digest()
    lo, hi = sorted((a, b))
    return (lo, hi) if digest[0] & 1 else (hi, lo)


def _exact(teams: list[SwissTeam]) -> tuple[list[tuple[str, str]], str | None]:
    import networkx as nx  # a large import, needed only here: commands that never pair skip it

    n = len(teams)
    if n < 2:
        return [], teams[0].team_id if teams else None
    low = min(t.points for t in teams)
    # Tiers, least important first; each tier's unit outweighs the whole of the tiers below.
    neighbour_max = n * n
    gap_unit = neighbour_max + 1
    gap_max = n * (max(t.points for t in teams) - low + 1) ** 2 + n * n
    avoid_unit = gap_unit * (gap_max + 1)
    base = avoid_unit * (n + 1)

    graph = nx.Graph()
    for i in range(n):
        a = teams[i]
        for j in range(i + 1, n):
            b = teams[j]
            cost = (avoid_unit * (b.team_id in a.opponents)
                    + gap_unit * (a.points - b.points) ** 2 + (j - i))
            graph.add_edge(i, j, weight=base - cost)
        if n % 2:
            cost = (avoid_unit * a.had_bye + gap_unit * ((a.points - low) ** 2 + (n - 1 - i)))
            graph.add_edge(i, _BYE, weight=base - cost)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[int, int]] = []
    bye = None
    for u, v in matching:
        if _BYE in (u, v):
            bye = teams[u if v == _BYE else v].team_id
        else:
            pairs.append((min(u, v), max(u, v)))
    pairs.sort()
    return [(teams[i].team_id, teams[j].team_id) for i, j in pairs], bye


def _by_score_groups(teams: list[SwissTeam]) -> tuple[list[tuple[str, str]], str | None]:
    bye = None
    if len(teams) % 2:
        pick = next((t for t in reversed(teams) if not t.had_bye), teams[-1])
        bye = pick.team_id
        teams = [t for t in teams if t is not pick]
    groups: list[list[SwissTeam]] = []
    for t in teams:
        if groups and groups[-1][0].points == t.points:
            groups[-1].append(t)
        else:
            groups.append([t])
    # Merge score groups from the bottom until the lowest pool pairs without a rematch.
    for merged in range(1, len(groups) + 1):
        upper, lowest = groups[:-merged], [t for g in groups[-merged:] for t in g]
        pairs: list[tuple[str, str]] = []
        carry: list[SwissTeam] = []
        for group in upper:
            got, carry = _pair_pool(carry + group, final=False)
            pairs += got
        got, left = _pair_pool(carry + lowest, final=True)
        if not left:
            return pairs + got, bye
    # Everything merged and still no way found: some rematch is needed (or the search
    # ran out of budget); neighbours who have not met first, then anyone.
    return _greedy(teams), bye


def _greedy(pool: list[SwissTeam]) -> list[tuple[str, str]]:
    left = list(pool)
    pairs = []
    while left:
        a = left.pop(0)
        k = next((k for k, b in enumerate(left) if b.team_id not in a.opponents), 0)
        pairs.append((a.team_id, left.pop(k).team_id))
    return pairs


def _pair_pool(pool: list[SwissTeam],
               final: bool) -> tuple[list[tuple[str, str]], list[SwissTeam]]:
    """Pair a pool neighbour with neighbour, backtracking past rematches. Returns the pairs
    and the teams floated down (as few as the search finds within its budget); the
    final pool floats nobody, and gives back everyone when it cannot be paired."""
    floats = len(pool) % 2
    while True:
        found = _search(pool, 0 if final else floats)
        if found is not None or final:
            break
        floats += 2
        if floats > len(pool):
            return [], list(pool)
    if found is None:
        return [], list(pool)
    used_pairs, floated = found
    return ([(pool[i].team_id, pool[j].team_id) for i, j in used_pairs],
            [pool[i] for i in floated])


def _search(pool: list[SwissTeam], floats: int) -> tuple[list[tuple[int, int]], list[int]] | None:
    m = len(pool)
    if (m - floats) % 2:
        return None
    used = [False] * m
    # Each frame: (team, partner or -1 for floated).
    stack: list[tuple[int, int]] = []
    floated = 0
    steps = 0
    i, start = 0, 1
    while True:
        while i < m and used[i]:
            i += 1
        if i == m:
            pairs = [(a, b) for a, b in stack if b >= 0]
            return pairs, [a for a, b in stack if b < 0]
        steps += 1
        if steps > _BACKTRACK_BUDGET:
            return None
        used[i] = True
        j = max(start, i + 1)
        while j < m and (used[j] or pool[j].team_id in pool[i].opponents):
            j += 1
        if j < m:
            used[j] = True
            stack.append((i, j))
            i, start = i + 1, 0
            continue
        if floated < floats:
            floated += 1
            stack.append((i, -1))
            i, start = i + 1, 0
            continue
        used[i] = False
        # Backtrack: undo the last choice and try its next option.
        while stack:
            a, b = stack.pop()
            used[a] = False
            if b < 0:
                floated -= 1
                continue
            used[b] = False
            i, start = a, b + 1
            break
        else:
            return None


class Swiss(RoundFormat):
    """Swiss as a format: a bye is worth a win, teams may join late, and the organizer
    may pair a round by hand (used instead of the computed pairing)."""

    kind: ClassVar[FormatKind] = "swiss"
    late_join = True
    hand_pairings = True
    bye_points = 2
    tiebreaks = ("buchholz", "differential", "bags", "points")

    def check(self, s: TournamentSettings) -> None:
        if s.format.rounds > max_rounds(s.max_teams):
            raise TournamentError("too_many_rounds", f"at most {max_rounds(s.max_teams)} "
                                  f"rounds for {s.max_teams} teams")

    def rounds(self, options: FormatOptions, teams: int) -> int:
        return min(options.rounds or default_rounds(teams), max_rounds(teams))

    def round_name(self, round_no: int, total: int) -> str:
        return "Final round" if round_no == total > 1 else f"Round {round_no}"

    def pair(self, state: Tournament, round_no: int, seed: str) -> Pairs:
        if (hand := state.hand_pairings.get(round_no)) is not None:
            return list(hand.pairs), [hand.bye] if hand.bye else []
        drawn = pair(self._standings(state), seed)
        return drawn.pairs, [drawn.bye] if drawn.bye else []

    def _standings(self, state: Tournament) -> list[SwissTeam]:
        """The teams still in, first place first, with whom each has met and its byes."""
        opponents: dict[str, set[str]] = {t: set() for t in state.seeds}
        for m in state.matches.values():
            opponents[m.pairing.home].add(m.pairing.away)
            opponents[m.pairing.away].add(m.pairing.home)
        had_bye = {team for _, team in state.byes()}
        return [SwissTeam(team_id=r.team_id, points=r.match_points,
                          opponents=frozenset(opponents[r.team_id]),
                          had_bye=r.team_id in had_bye)
                for r in self.standings(state) if not state.teams[r.team_id].withdrawn]


FORMAT: Format = Swiss()
