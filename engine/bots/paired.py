"""A paired comparison of candidate moves over the same sampled deals.

The ``expert`` bot plays each candidate (a card, a bid) on the same deals as the
default, the ``basic`` bot's choice, and keeps the difference: the luck of a deal
then cancels out, and few samples tell a better move from noise. Deals weigh by
how well they fit what the seat saw.
"""

from __future__ import annotations

CONFIDENCE = 1.0  # standard errors a move must beat the default by


class Paired:
    """Per candidate, over the sampled deals it was played on, the weighted sums of its
    value less the first candidate's (the default), of their squares and of the weights:
    a paired comparison, so the luck of a deal cancels out."""

    def __init__(self, m: int) -> None:
        self.diff, self.diff2 = [0.0] * m, [0.0] * m
        self.sw, self.sw2 = [0.0] * m, [0.0] * m

    def add(self, i: int, w: float, d: float) -> None:
        self.diff[i] += w * d
        self.diff2[i] += w * d * d
        self.sw[i] += w
        self.sw2[i] += w * w

    def bound(self, i: int, z: float) -> float:
        """Candidate ``i``'s weighted mean difference plus ``z`` standard errors (0 with
        no data)."""
        w = self.sw[i]
        if not w:
            return 0.0
        mean = self.diff[i] / w
        var = max(self.diff2[i] / w - mean * mean, 0.0)
        return mean + z * (var * self.sw2[i] / (w * w)) ** 0.5

    def surely_better(self) -> int:
        """The candidate whose lower confidence bound of its gain over the first is
        highest and above zero; the first when none surely beats it."""
        best, best_lower = 0, 0.0
        for i in range(1, len(self.diff)):
            lower = self.bound(i, -CONFIDENCE)
            if lower > best_lower:
                best, best_lower = i, lower
        return best
