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
    keyed = sorted((sum(t.ratings) / len(t.ratings), t.ticket_id, t) for t in tickets
                   if 1 <= len(t.players) <= 2)
    order = [t for _, _, t in keyed]
    q = _Queue(order, [r for r, _, _ in keyed], now, rules)
    found: list[tuple[float, tuple[int, ...]]] = []
    seen: set[tuple[int, ...]] = set()
    neighbours, cost_of, size = q.neighbours, q.cost, q.size
    for i in range(len(order)):
        # A pair also looks for the nearest pair alone: a solo taken first would leave
        # room for a solo only, and two pairs side by side would never meet.
        for pairs_only in (False, True) if size[i] == 2 else (False,):
            group = neighbours(i, pairs_only)
            if group is not None and group not in seen:
                seen.add(group)
                found.append((cost_of(group), group))
    found.sort()
    used = bytearray(len(order))
    out = []
    for cost, group in found:
        for j in group:
            if used[j]:
                break
        else:
            for j in group:
                used[j] = 1
            out.append(_build([order[j] for j in group], cost))
    return out


class _Queue:
    """The sorted tickets as flat lists, so a cycle over 10k tickets stays in
    arithmetic; a Match is built only for the groups taken."""

    def __init__(self, order: list[Ticket], rating: list[float], now: float,
                 rules: MatchRules) -> None:
        self.order, self.rating, self.rules = order, rating, rules
        ratings = [t.ratings for t in order]
        self.size = [len(r) for r in ratings]
        self.low = [r[0] if len(r) == 1 or r[0] < r[1] else r[1] for r in ratings]
        self.high = [r[0] if len(r) == 1 or r[0] > r[1] else r[1] for r in ratings]
        # rules.window_after and rules.bonus_after, written out: a call each per
        # ticket is a tenth of a cycle.
        waited = [now - t.since if now > t.since else 0.0 for t in order]
        base, growth, step = rules.window, rules.window_growth, rules.window_step
        anyone, per, cap, cycle = (rules.anyone_after, rules.wait_bonus, rules.wait_bonus_cap,
                                   rules.cycle)
        self.window = [math.inf if w >= anyone else base + growth * (w // step) for w in waited]
        self.bonus = [b if b < cap else cap for b in (per * (w // cycle) for w in waited)]
        self.leaver = [t.leaver for t in order]
        self.history = [bool(t.last_players or t.last_partner) for t in order]

    def neighbours(self, i: int, pairs_only: bool) -> tuple[int, ...] | None:
        """Ticket ``i`` and neighbours, alternately below and above, making four players
        whose ratings sit inside every member's window; None if there are none."""
        rating, size, window = self.rating, self.size, self.window
        n, reach = len(rating), self.rules.reach
        group = [i]
        players = size[i]
        below, above = i - 1, i + 1
        stop_below = i - reach if i > reach else 0
        stop_above = i + reach if i + reach < n else n - 1
        take_below = True
        while players < 4:
            can_below, can_above = below >= stop_below, above <= stop_above
            if not (can_below or can_above):
                return None
            if (take_below and can_below) or not can_above:
                j, below = below, below - 1
            else:
                j, above = above, above + 1
            r, w = rating[j], window[j]
            fits = True
            for k in group:
                limit = window[k] if window[k] < w else w
                if r - rating[k] > limit or rating[k] - r > limit:
                    fits = False
                    break
            if not fits:
                # Sorted: further on in this direction is only further away.
                if j < i:
                    stop_below, take_below = 0, False
                    below = -1
                else:
                    stop_above, take_below = n - 1, True
                    above = n
                continue
            take_below = j > i
            if players + size[j] <= 4 and (size[j] == 2 or not pairs_only):
                group.append(j)
                players += size[j]
        group.sort()
        return tuple(group)

    def cost(self, group: tuple[int, ...]) -> float:
        """Team-mean gap + weighted spread + penalties - wait bonus, without building
        the match (the penalties for history need the tickets, so only then)."""
        rules, rating = self.rules, self.rating
        penalty = 0.0
        if len(group) == 4:  # four solos, in rating order: the group is sorted
            a, b, c, d = group
            gap = abs((rating[a] + rating[d]) - (rating[b] + rating[c])) / 2
        elif len(group) == 2:
            gap = abs(rating[group[0]] - rating[group[1]])
        else:
            pair = next(j for j in group if self.size[j] == 2)
            solos = [rating[j] for j in group if j != pair]
            gap = abs(rating[pair] - (solos[0] + solos[1]) / 2)
            penalty = rules.pair_vs_solos
        highs, lows, leaver, bonuses = self.high, self.low, self.leaver, self.bonus
        high, low, leavers, bonus, history = -math.inf, math.inf, 0, 0.0, False
        for j in group:
            if highs[j] > high:
                high = highs[j]
            if lows[j] < low:
                low = lows[j]
            leavers += leaver[j]
            bonus += bonuses[j]
            history = history or self.history[j]
        if 0 < leavers < len(group):
            penalty += rules.leaver_with_clean
        if history:
            penalty += _history_penalty([self.order[j] for j in group], rules)
        return gap + rules.spread_weight * (high - low) + penalty - bonus


def _sides(group: list[Ticket]) -> tuple[tuple[Ticket, ...], tuple[Ticket, ...]]:
    """The two teams' tickets: pair v pair, pair v two solos, or four solos split
    highest and lowest against the middle two. ``group`` is in the queue's order
    (rating, then ticket id), so its solos are already ranked."""
    pairs = [t for t in group if len(t.players) == 2]
    solos = [t for t in group if len(t.players) == 1]
    if len(pairs) == 2:
        return (pairs[0],), (pairs[1],)
    if pairs:
        return (pairs[0],), (solos[0], solos[1])
    return (solos[0], solos[3]), (solos[1], solos[2])


def _history_penalty(group: list[Ticket], rules: MatchRules) -> float:
    penalty = 0.0
    everyone = frozenset(p for t in group for p in t.players)
    if any(t.last_players == everyone for t in group):
        penalty += rules.same_four
    for side in _sides(group):
        if len(side) == 2:
            a, b = side
            if a.last_partner == b.players[0] or b.last_partner == a.players[0]:
                penalty += rules.same_partner
    return penalty


def _build(group: list[Ticket], cost: float) -> Match:
    sides = _sides(group)
    players = [tuple(p for t in side for p in t.players) for side in sides]
    ratings = [tuple(r for t in side for r in t.ratings) for side in sides]
    means = (sum(ratings[0]) / 2, sum(ratings[1]) / 2)
    everyone = (*ratings[0], *ratings[1])
    return Match(tickets=tuple(t.ticket_id for t in group),
                 teams=((players[0][0], players[0][1]), (players[1][0], players[1][1])),
                 team_ratings=means, gap=abs(means[0] - means[1]),
                 spread=max(everyone) - min(everyone), cost=cost)
