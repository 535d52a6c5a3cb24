"""Cards as small ints and hands as bit sets, with one table per deck variant.

A card id is ``suit * 13 + rank`` for the 52 ordinary cards (suits S H D C,
ranks 2..A as 0..12), 52 for the big joker and 53 for the little joker; a set
of cards is an int with bit ``id`` set. Which cards are trumps and how they
rank depends on the deck variant, so every variant gets one precomputed
``Deck`` table; the rules code only ever asks the table.
"""

from __future__ import annotations

from functools import cache

SUITS = "SHDC"
RANKS = "23456789TJQKA"
BJ, LJ = 52, 53
TRUMP = 0  # effective suit index of every trump card (spades, jokers, elevated deuces)

CODES: tuple[str, ...] = (*(r + s for s in SUITS for r in RANKS), "BJ", "LJ")
CARD_IDS: dict[str, int] = {c: i for i, c in enumerate(CODES)}  # canonical codes only
_BY_CODE: dict[str, int] = dict(CARD_IDS)
_BY_CODE.update({"10" + s: SUITS.index(s) * 13 + 8 for s in SUITS})


def card_id(code: str) -> int:
    """Parse a card code (case-insensitive); raises KeyError for a non-card."""
    try:
        return _BY_CODE[code]
    except KeyError:
        return _BY_CODE[code.upper()]


def code(card: int) -> str:
    return CODES[card]


def bits(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


_BIT: dict[str, int] = {c: 1 << i for c, i in CARD_IDS.items()}


def mask_of(cards) -> int:
    """The set of some canonical card codes (KeyError for anything else): a deal is
    read this way several times a hand, so it skips the ids in between."""
    m = 0
    for c in cards:
        m |= _BIT[c]
    return m


def ids(mask: int) -> list[int]:
    """The card ids in a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def codes(mask: int) -> tuple[str, ...]:
    return tuple(CODES[c] for c in ids(mask))


class Deck:
    """What one deck variant makes of each card: in the deck or not, its
    effective suit (trump or a side suit) and its power within that suit."""

    __slots__ = ("cards", "mask", "name", "power", "suit_mask", "suit_of", "trump_mask")

    def __init__(self, name: str, removed: tuple[int, ...], jokers: bool,
                 top_trumps: tuple[int, ...]) -> None:
        self.name = name
        present = [c for c in range(52) if c not in removed]
        if jokers:
            present += [BJ, LJ]
        self.cards: tuple[int, ...] = tuple(sorted(present))
        self.mask = bits(self.cards)
        self.suit_of = [-1] * 54
        self.power = [-1] * 54
        for c in range(52):
            if c in self.cards:
                self.suit_of[c] = c // 13
                self.power[c] = c % 13
        # Elevated trumps, lowest first, stack above the ace of spades.
        for i, c in enumerate(top_trumps):
            self.suit_of[c] = TRUMP
            self.power[c] = 13 + i
        self.suit_mask = tuple(
            bits(c for c in self.cards if self.suit_of[c] == s) for s in range(4))
        self.trump_mask = self.suit_mask[TRUMP]


_2S, _2H, _2D, _2C = 0, 13, 26, 39


@cache
def deck(name: str, deuce_order: str = "diamond_high") -> Deck:
    """The table for a deck variant; ``deuce_order`` says which deuce ranks higher
    where both are trumps (``diamond_high``: 2D above 2S, the house ladder)."""
    deuces = (_2S, _2D) if deuce_order == "diamond_high" else (_2D, _2S)
    if name == "standard":
        return Deck(name, (), False, ())
    if name == "jokers_deuces":
        return Deck(name, (_2H, _2C), True, (*deuces, LJ, BJ))
    if name == "jokers":
        return Deck(name, (_2C, _2D), True, (LJ, BJ))
    if name == "deuces":
        return Deck(name, (), False, deuces)
    if name == "deuce_ace":
        return Deck(name, (), False, (_2S,))
    raise ValueError(f"unknown deck {name!r}")
