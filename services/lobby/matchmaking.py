"""The ranked matcher: waiting tickets in, disjoint matches of four out. No IO, no clock.

A ticket is one player, or a pair who queued together and stay partners. Each
cycle the matchmaker hands this module the waiting tickets and the time; the
rest is arithmetic, so it is tested by properties and timed by the bench.

How (after FAForever's ``TeamMatchMaker``): sort the tickets by rating (a pair by
its mean); from each ticket take neighbours alternately below and above until the
group holds four players, skipping a pair where one seat is left. Two pairs play
each other; a pair plays two solos; four solos split highest and lowest against
the middle two. Each group gets a cost, the team-mean gap plus the spread, less a
bonus for the cycles its tickets have waited (capped), plus penalties: the same
four or the same solo partner as last game, a pair against two solos, recent
leavers with clean players (lichess's rage-sit). The cheapest disjoint groups are
taken greedily: FAForever saw no gain from exact matching, and lichess's blossom
is O(n³). A ticket accepts ratings within its window: ±100, 100 wider every 15 s,
anyone after 90 s (osu!).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Ticket:
    """Who waits together. ``since`` is when they queued (seconds, any epoch the
    caller keeps to); the last-game fields feed the penalties."""

    ticket_id: str
    players: tuple[str, ...]  # one, or a pair
    ratings: tuple[int, ...]  # of ``players``, in the same order
    since: float
    last_players: frozenset[str] = frozenset()  # the four of its last rated game
    last_partner: str = ""  # a solo's partner in its last rated game
    leaver: bool = False  # one of its players left a game recently

    @property
    def rating(self) -> float:
        return sum(self.ratings) / len(self.ratings)


@dataclass(frozen=True, slots=True)
class MatchRules:
    window: float = 100.0  # rating distance a fresh ticket accepts
    window_growth: float = 100.0  # added every ``window_step`` seconds of waiting
    window_step: float = 15.0
    anyone_after: float = 90.0  # seconds after which a ticket accepts anyone
    cycle: float = 5.0  # seconds between matchmaker cycles: one missed cycle per cycle waited
    wait_bonus: float = 10.0  # cost taken off per missed cycle of each ticket
    wait_bonus_cap: float = 100.0
    spread_weight: float = 0.5
    same_four: float = 300.0
    same_partner: float = 150.0
    pair_vs_solos: float = 50.0
    leaver_with_clean: float = 200.0
    reach: int = 8  # neighbours looked at on each side of a ticket

    def window_after(self, waited: float) -> float:
        if waited >= self.anyone_after:
            return math.inf
        return self.window + self.window_growth * math.floor(max(waited, 0.0) / self.window_step)

    def bonus_after(self, waited: float) -> float:
        return min(self.wait_bonus * math.floor(max(waited, 0.0) / self.cycle),
                   self.wait_bonus_cap)


@dataclass(frozen=True, slots=True)
class Match:
    """Four players in two teams; seats 0 and 2 are ``teams[0]``, 1 and 3 ``teams[1]``."""

    tickets: tuple[str, ...]
    teams: tuple[tuple[str, str], tuple[str, str]]
    team_ratings: tuple[float, float]  # each team's mean
    gap: float  # between the team means
    spread: float  # between the highest and lowest player
    cost: float = field(compare=False)


def match(tickets: Sequence[Ticket], now: float, rules: MatchRules = MatchRules()) -> list[Match]:
    """The matches to offer this cycle: no ticket twice, each within every one of its
    tickets' windows, cheapest first."""
    order = sorted((t for t in tickets if 1 <= len(t.players) <= 2),
                   key=lambda t: (t.rating, t.ticket_id))
    n = len(order)
    rating = [t.rating for t in order]
    size = [len(t.players) for t in order]
    window = [rules.window_after(now - t.since) for t in order]
    bonus = [rules.bonus_after(now - t.since) for t in order]
    found: list[tuple[float, tuple[int, ...], Match]] = []
    for i in range(n):
        # A pair also looks for the nearest pair alone: a solo taken first would leave
        # room for a solo only, and two pairs side by side would never meet.
        for pairs_only in (False, True) if size[i] == 2 else (False,):
            group = _neighbours(i, rating, size, window, rules.reach, pairs_only)
            if group is not None:
                m = _build([order[j] for j in group], rules)
                found.append((m.cost - sum(bonus[j] for j in group), group, m))
    found.sort(key=lambda f: (f[0], f[1]))
    used = bytearray(n)
    out = []
    for cost, group, m in found:
        if not any(used[j] for j in group):
            for j in group:
                used[j] = 1
            out.append(Match(m.tickets, m.teams, m.team_ratings, m.gap, m.spread, cost))
    return out


def _neighbours(i: int, rating: list[float], size: list[int], window: list[float],
                reach: int, pairs_only: bool) -> tuple[int, ...] | None:
    """Ticket ``i`` and neighbours, alternately below and above, making four players
    whose ratings sit inside every member's window; None if there are none."""
    group = [i]
    players = size[i]
    below, above = i - 1, i + 1
    stop_below, stop_above = i - reach, i + reach
    take_below = True
    while players < 4:
        can_below = below >= 0 and below >= stop_below
        can_above = above < len(rating) and above <= stop_above
        if not (can_below or can_above):
            return None
        if (take_below and can_below) or not can_above:
            j, below = below, below - 1
            if not _fits(j, group, rating, window):
                stop_below = -1  # sorted: further down is only further away
                take_below = False
                continue
        else:
            j, above = above, above + 1
            if not _fits(j, group, rating, window):
                stop_above = len(rating)
                take_below = True
                continue
        take_below = not take_below
        if players + size[j] <= 4 and (size[j] == 2 or not pairs_only):
            group.append(j)
            players += size[j]
    return tuple(sorted(group))


def _fits(j: int, group: list[int], rating: list[float], window: list[float]) -> bool:
    r, w = rating[j], window[j]
    return all(abs(rating[k] - r) <= min(w, window[k]) for k in group)


def _build(group: list[Ticket], rules: MatchRules) -> Match:
    pairs = [t for t in group if len(t.players) == 2]
    solos = sorted((t for t in group if len(t.players) == 1), key=lambda t: (t.rating, t.ticket_id))
    penalty = 0.0
    if len(pairs) == 2:
        sides = ((pairs[0].players, pairs[0].ratings), (pairs[1].players, pairs[1].ratings))
    elif len(pairs) == 1:
        sides = ((pairs[0].players, pairs[0].ratings), _team(solos[0], solos[1]))
        penalty += rules.pair_vs_solos + _partner_penalty(solos[0], solos[1], rules)
    else:
        sides = (_team(solos[0], solos[3]), _team(solos[1], solos[2]))
        penalty += (_partner_penalty(solos[0], solos[3], rules)
                    + _partner_penalty(solos[1], solos[2], rules))
    everyone = frozenset(p for t in group for p in t.players)
    if any(t.last_players == everyone for t in group):
        penalty += rules.same_four
    leavers = sum(t.leaver for t in group)
    if 0 < leavers < len(group):
        penalty += rules.leaver_with_clean
    means = (sum(sides[0][1]) / 2, sum(sides[1][1]) / 2)
    all_ratings = (*sides[0][1], *sides[1][1])
    gap, spread = abs(means[0] - means[1]), max(all_ratings) - min(all_ratings)
    teams = ((sides[0][0][0], sides[0][0][1]), (sides[1][0][0], sides[1][0][1]))
    return Match(tickets=tuple(t.ticket_id for t in group), teams=teams, team_ratings=means,
                 gap=gap, spread=spread, cost=gap + rules.spread_weight * spread + penalty)


def _team(a: Ticket, b: Ticket) -> tuple[tuple[str, str], tuple[int, int]]:
    return (a.players[0], b.players[0]), (a.ratings[0], b.ratings[0])


def _partner_penalty(a: Ticket, b: Ticket, rules: MatchRules) -> float:
    if a.last_partner == b.players[0] or b.last_partner == a.players[0]:
        return rules.same_partner
    return 0.0
