"""One score per pair of accounts over their games, and the threshold that flags it.

Partners: of the decisions where the card matched the best card for exactly one
of the two partner hands (the real one, a plausible one), the share that matched
the real one. Honest play gives a fair coin whatever its strength; the score is
the coin's excess in standard deviations (continuity-corrected), so it has the
same meaning for a pair of beginners and a pair of experts.

Opponents: the points each account gave away per decision in the meetings its
team lost, against what the same account gave away in the other games it lost
(or, with too few of those, what everyone else did in games they lost). Losing is
in both sides of the comparison, so a weak account is compared with itself, not
with the strong. The reasoning and the thresholds' measurements are in
docs/fairplay.md.
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
_MIN_OWN = 100  # decisions of an account's own other lost games to compare with


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


class _Losses:
    """Per-decision points given away: count, sum and sum of squares."""

    __slots__ = ("n", "s", "s2")

    def __init__(self) -> None:
        self.n, self.s, self.s2 = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.s += x
        self.s2 += x * x

    def minus(self, o: _Losses) -> _Losses:
        d = _Losses()
        d.n, d.s, d.s2 = self.n - o.n, self.s - o.s, self.s2 - o.s2
        return d

    def mean_var(self) -> tuple[float, float]:
        if not self.n:
            return 0.0, 0.0
        m = self.s / self.n
        return m, max(self.s2 / self.n - m * m, 0.0) / self.n


def _excess(meet: _Losses, ref: _Losses) -> float:
    """How far the meetings' mean loss is above the reference's, in standard errors."""
    if meet.n < 2 or ref.n < 2:
        return 0.0
    (m1, v1), (m2, v2) = meet.mean_var(), ref.mean_var()
    return (m1 - m2) / sqrt(v1 + v2) if v1 + v2 else 0.0


def opponents(games: Sequence[Game]) -> list[Verdict]:
    lost: dict[str, _Losses] = defaultdict(_Losses)  # each account, in every game it lost
    everyone = _Losses()
    meet_lost: dict[tuple[str, str], _Losses] = defaultdict(_Losses)  # (thrower, winner)
    meetings: dict[tuple[str, str], list[Game]] = defaultdict(list)
    for g in games:
        p = g.players
        for i in range(4):
            for j in range(i + 1, 4):
                if i & 1 != j & 1 and p[i] != p[j]:
                    meetings[_pair(p[i], p[j])].append(g)
        if g.loser is None:
            continue
        for c in g.cards:
            if c.seat & 1 == g.loser:
                me = p[c.seat]
                lost[me].add(c.loss)
                everyone.add(c.loss)
                for o in (p[1 - g.loser], p[3 - g.loser]):
                    meet_lost[(me, o)].add(c.loss)
    out = []
    for key, met in meetings.items():
        best, why = 0.0, "too few meetings to judge"
        if len(met) >= MIN_MEETINGS:
            best, why = max((_thrown(a, b, met, lost, everyone, meet_lost)
                             for a, b in (key, key[::-1])), key=lambda x: x[0])
        out.append(Verdict(key, "opponents", sum(g.hands for g in met), best,
                           best >= OPPONENTS_Z, why))
    return out


def _thrown(me: str, them: str, met: list[Game], lost: dict[str, _Losses],
            everyone: _Losses, meet_lost: dict[tuple[str, str], _Losses]) -> tuple[float, str]:
    """How strongly ``me`` gave away points in the meetings it lost to ``them``."""
    meet = meet_lost.get((me, them), _Losses())
    own = lost[me].minus(meet)
    ref, against = (own, "its other lost games") if own.n >= _MIN_OWN else (
        everyone.minus(lost[me]), "other accounts' lost games")
    z = _excess(meet, ref)
    losses = sum(1 for g in met if g.loser is not None and
               me in (g.players[g.loser], g.players[g.loser + 2]))
    m1, _ = meet.mean_var()
    m2, _ = ref.mean_var()
    return z, (f"{me} lost {losses} of {len(met)} meetings with {them}, giving away "
               f"{m1:.1f} points a decision in them against {m2:.1f} in {against}")
