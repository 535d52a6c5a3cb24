"""Where seeds go: the standard bracket order and snake seeding into groups.

Both are the conventions players expect from any bracket site, so the top two
seeds can only meet in the final and groups come out equally strong.
"""

from __future__ import annotations


def bracket_size(teams: int) -> int:
    """The smallest power of two holding ``teams`` (at least 2); the gap is filled with byes."""
    size = 2
    while size < teams:
        size *= 2
    return size


def standard_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket position order, for a power-of-two ``size``.

    Each round doubles the list, pairing seed s with ``2m + 1 - s``: 1 v 8, 4 v 5,
    2 v 7, 3 v 6, so seed 1 meets seed 2 only in the final and the byes (seeds past
    the field) fall against the top seeds.
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"bracket size must be a power of two, not {size}")
    order = [1]
    while len(order) < size:
        m = len(order)
        order = [x for s in order for x in (s, 2 * m + 1 - s)]
    return order


def snake(count: int, groups: int) -> list[list[int]]:
    """Indexes 0..count-1 (seed order) dealt into ``groups`` groups back and forth:
    1, 2, 3, 4 then 4, 3, 2, 1 ..., so every group gets a like share of strength."""
    out: list[list[int]] = [[] for _ in range(groups)]
    for i in range(count):
        row, col = divmod(i, groups)
        out[col if row % 2 == 0 else groups - 1 - col].append(i)
    return out
