"""Small helpers over playout bits: a card's power, the top card of a set, side suits."""

from __future__ import annotations

from engine.bots.playout import WIDTH, Fast


def power(b: int) -> int:
    return (b.bit_length() - 1) % WIDTH


def high(m: int) -> int:
    return 1 << (m.bit_length() - 1)


def above(b: int) -> int:
    """Bits strictly above the card ``b`` (only meaningful within its suit)."""
    return ~((b << 1) - 1)


def side_by_power(f: Fast, m: int, highest: bool) -> int:
    """The side card of ``m`` with the highest (or lowest) rank, whatever its suit."""
    return top_side(f, m) if highest else bottom_side(f, m)


def top_side(f: Fast, m: int) -> int:
    best = 0
    best_p = -1
    for s in f.sides:
        x = m & s
        if x:
            i = x.bit_length() - 1
            p = i % WIDTH
            if p > best_p:
                best, best_p = 1 << i, p
    return best


def bottom_side(f: Fast, m: int) -> int:
    best = 0
    best_p = 99
    for s in f.sides:
        x = m & s
        if x:
            c = x & -x
            p = (c.bit_length() - 1) % WIDTH
            if p < best_p:
                best, best_p = c, p
    return best


def shortest_suit_low(f: Fast, m: int) -> int:
    """The lowest card of the shortest side suit in ``m`` (shortening a suit makes a ruff)."""
    best = 0
    best_n = 99
    for s in f.sides:
        x = m & s
        if x:
            n = x.bit_count()
            if n < best_n:
                best, best_n = x & -x, n
    return best

