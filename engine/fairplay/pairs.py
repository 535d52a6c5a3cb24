"""One score per pair of accounts over their games, and the threshold that flags it.

Partners: of the decisions where the card matched the best card for exactly one
of the two partner hands (the real one, a plausible one), the share that matched
the real one. Honest play gives a fair coin whatever its strength; the score is
the coin's excess in standard deviations (continuity-corrected), so it has the
same meaning for a pair of beginners and a pair of experts.

Opponents: by how much each account's team lost the meetings it lost to the
other account, against by how much the same account lost its other lost games
(or, with too few of those, the lost games neither of the two played): rating is
handed over by losing heavily on purpose. Losing is on both sides of the
comparison, so a weak account is compared with itself, not with the strong. The
reasoning and the thresholds' measurements are in docs/fairplay.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from math import sqrt
from typing import Any, NamedTuple

from engine.fairplay.games import Game

PARTNERS_Z = 4.0  # flag a partnership whose score reaches this
OPPONENTS_Z = 5.0  # flag a pair of opponents whose score reaches this
MIN_MEETINGS = 3  # opponents who met fewer times are not judged
_MIN_OWN = 8  # an account's own other lost games needed to compare with them


class Verdict(NamedTuple):
    players: tuple[str, str]
    relation: str  # "partners" or "opponents"
    hands: int
    score: float
    flagged: bool
    why: str

    def as_json(self) -> dict[str, Any]:
        return {"players": list(self.players), "relation": self.relation,
                "hands": self.hands, "score": round(self.score, 2), "flagged": self.flagged,
                "why": self.why}


def judge(games: Sequence[Game]) -> list[Verdict]:
    """Every partnership and every pair of opponents of ``games``, sorted by names."""
    out = partners(games) + opponents(games)
    return sorted(out, key=lambda v: (v.players, v.relation))


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def partners(games: Iterable[Game]) -> list[Verdict]:
    real: dict[tuple[str, str], int] = defaultdict(int)
    plausible: dict[tuple[str, str], int] = defaultdict(int)
    hands: dict[tuple[str, str], int] = defaultdict(int)
    for g in games:
        for team in (0, 1):
            key = _pair(g.players[team], g.players[team + 2])
            if key[0] == key[1]:
                continue
            hands[key] += g.hands
            for c in g.cards:
                if c.seat & 1 == team and c.told:
                    if c.told > 0:
                        real[key] += 1
                    else:
                        plausible[key] += 1
    out = []
    for key, n in hands.items():
        a, b = real[key], plausible[key]
        z = (a - b - 1) / sqrt(a + b) if a + b else 0.0
        share = a / (a + b) if a + b else 0.5
        flagged = z >= PARTNERS_Z
        why = (f"{a} of {a + b} telling decisions ({share:.0%}) followed the partner's real "
               f"hand rather than a plausible one; honest play is near 50%")
        out.append(Verdict(key, "partners", n, z, flagged, why))
    return out


class _Tally:
    """Margins of lost games (points, negative): count, sum and sum of squares."""

    __slots__ = ("n", "s", "s2")

    def __init__(self) -> None:
        self.n, self.s, self.s2 = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.s += x
        self.s2 += x * x

    def minus(self, o: _Tally, sign: int = 1) -> _Tally:
        d = _Tally()
        d.n, d.s, d.s2 = self.n - sign * o.n, self.s - sign * o.s, self.s2 - sign * o.s2
        return d

    def mean_var(self) -> tuple[float, float]:
        if not self.n:
            return 0.0, 0.0
        m = self.s / self.n
        return m, max(self.s2 / self.n - m * m, 0.0) / self.n


def _excess(meet: _Tally, ref: _Tally) -> float:
    """How far the meetings' mean is below the reference's, in standard errors of the
    reference's spread (a handful of meetings cannot estimate their own)."""
    if not meet.n or ref.n < 2:
        return 0.0
    (m1, _), (m2, v2) = meet.mean_var(), ref.mean_var()
    sd = sqrt(v2 * ref.n)
    return (m2 - m1) / (sd * sqrt(1 / meet.n + 1 / ref.n)) if sd else 0.0


def opponents(games: Sequence[Game]) -> list[Verdict]:
    lost: dict[str, _Tally] = defaultdict(_Tally)  # each account's, in the games it lost
    seen: dict[str, _Tally] = defaultdict(_Tally)  # margins of every game it played
    both: dict[tuple[str, str], _Tally] = defaultdict(_Tally)  # of games two played
    everyone = _Tally()
    meet_lost: dict[tuple[str, str], _Tally] = defaultdict(_Tally)  # (loser, winner)
    meetings: dict[tuple[str, str], list[Game]] = defaultdict(list)
    for g in games:
        p = g.players
        for i in range(4):
            for j in range(i + 1, 4):
                if i & 1 != j & 1 and p[i] != p[j]:
                    meetings[_pair(p[i], p[j])].append(g)
        if g.loser is None:
            continue
        margin = g.points[g.loser] - g.points[1 - g.loser]
        everyone.add(margin)
        names = sorted(set(p))
        for i, a in enumerate(names):
            seen[a].add(margin)
            for b in names[i + 1:]:
                both[(a, b)].add(margin)
        for me in {p[g.loser], p[g.loser + 2]}:
            lost[me].add(margin)
            for o in {p[1 - g.loser], p[3 - g.loser]}:
                meet_lost[(me, o)].add(margin)
    out = []
    for key, met in meetings.items():
        best, why = 0.0, "too few meetings to judge"
        if len(met) >= MIN_MEETINGS:
            apart = everyone.minus(seen[key[0]]).minus(seen[key[1]]).minus(both[key], -1)
            best, why = max((_thrown(a, b, len(met), lost, apart, meet_lost)
                             for a, b in (key, key[::-1])), key=lambda x: x[0])
        out.append(Verdict(key, "opponents", sum(g.hands for g in met), best,
                           best >= OPPONENTS_Z, why))
    return out


def _thrown(me: str, them: str, met: int, lost: dict[str, _Tally], apart: _Tally,
            meet_lost: dict[tuple[str, str], _Tally]) -> tuple[float, str]:
    """How much worse ``me``'s team lost the meetings with ``them`` than its other
    losses (or, with too few, than the losses of games neither of the two played)."""
    meet = meet_lost.get((me, them), _Tally())
    own = lost[me].minus(meet)
    ref, against = (own, "its other lost games") if own.n >= _MIN_OWN else (
        apart, "lost games of others")
    m1, _ = meet.mean_var()
    m2, _ = ref.mean_var()
    return _excess(meet, ref), (f"{me} lost {meet.n} of {met} meetings with {them}, by "
                                f"{-m1:.0f} points a game against {-m2:.0f} in {against}")
