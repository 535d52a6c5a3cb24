"""The fields of a game record (``docs/formats/game-record.md``), checked for shape.

What a line must hold before the rules can judge it: the rules, four hands of
thirteen distinct cards of the deck, four integer bids, the optional blind-nil
marks and passes. A field that is wrong is a ``RecordError`` naming it, so the
judge (``engine.records``) and the studies that read records (``engine.fairplay``)
refuse a line for the same reason in the same words.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.cards import CARD_IDS, bits, card_id, mask_of
from engine.play import deck_of
from engine.presets import RulesError, resolve
from schemas.rules import Rules


class RecordError(Exception):
    """The line is not a valid record: ``code`` names the problem, ``field`` where."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(message)
        self.code, self.field, self.message = code, field, message



def need_field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise RecordError("missing_field", where + key, f"the record has no {where + key}")
    value = obj[key]
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise RecordError("bad_field", where + key, f"{where + key} has the wrong type")
    return value


def _card(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise RecordError("unknown_card", field, f"{field} is not a card")
    try:
        card_id(value)
    except KeyError:
        raise RecordError("unknown_card", field, f"{field}: {value!r} is not a card") from None
    return value.upper()


def card_codes(values: list[Any], field: str) -> tuple[str, ...]:
    """A list of card codes; each is looked at on its own (to name the bad one) only
    when they are not all canonical codes already, the common case."""
    try:
        if CARD_IDS.keys() >= set(values):
            return tuple(values)
    except TypeError:  # an unhashable value: the careful check below names it
        pass
    return tuple(_card(c, f"{field}[{i}]") for i, c in enumerate(values))


class HandFields(NamedTuple):
    """One hand of a record, its fields checked for shape (the rules judge the rest)."""

    dealer: int
    hands: list[tuple[str, ...]]
    bids: list[int]
    blind: list[bool]
    passes: list[tuple[str, ...]]  # what each seat passed its partner ([] for none)
    plays: list[str]
    masks: tuple[int, ...]  # each seat's hand as a set of card ids


def hand_fields(h: dict[str, Any], rules: Rules, where: str) -> HandFields:
    dealer = need_field(h, "dealer", int, where)
    if not 0 <= dealer <= 3:
        raise RecordError("bad_field", where + "dealer", "dealer must be a seat 0-3")
    hands = need_field(h, "hands", list, where)
    if len(hands) != 4:
        raise RecordError("bad_field", where + "hands", "hands must hold four seats")
    parsed: list[tuple[str, ...]] = []
    masks: list[int] = []
    in_deck = deck_of(rules).mask
    seen = 0
    for s, hand in enumerate(hands):
        if not isinstance(hand, list):
            raise RecordError("bad_field", f"{where}hands[{s}]", "a hand is a list of cards")
        try:
            mask = mask_of(hand)  # canonical codes, the common case
            cards = tuple(hand)
        except (KeyError, TypeError):  # a code written another way ("10s"), or no card
            cards = card_codes(hand, f"{where}hands[{s}]")
            mask = bits(card_id(c) for c in cards)
        if mask & ~in_deck or mask & seen or mask.bit_count() != len(cards):
            _deal_problem(cards, seen, in_deck, rules, f"{where}hands[{s}]")
        seen |= mask
        if len(cards) != 13:
            raise RecordError("wrong_hand_size", f"{where}hands[{s}]",
                              f"seat {s} holds {len(cards)} cards, not 13")
        parsed.append(cards)
        masks.append(mask)
    bids = need_field(h, "bids", list, where)
    if len(bids) != 4:
        raise RecordError("bad_field", where + "bids", "bids must hold four seats")
    for i, b in enumerate(bids):
        if isinstance(b, bool) or not isinstance(b, int):
            raise RecordError("bad_field", f"{where}bids[{i}]", "a bid is an integer")
    blind = h.get("blind_nil")
    if blind is None:
        blind = [False] * 4
    if not isinstance(blind, list) or len(blind) != 4 or not all(
            isinstance(b, bool) for b in blind):
        raise RecordError("bad_field", where + "blind_nil", "blind_nil is four booleans")
    for i in range(4):
        if blind[i] and bids[i] != 0:
            raise RecordError("bad_field", f"{where}blind_nil[{i}]",
                              f"seat {i} is marked blind nil but bid {bids[i]}")
    passes = _passes(h.get("passes"), where)
    plays = need_field(h, "plays", list, where)
    return HandFields(dealer, parsed, bids, blind, passes, list(card_codes(plays, where + "plays")),
                      tuple(masks))


def _deal_problem(cards: tuple[str, ...], seen: int, in_deck: int, rules: Rules,
                  field: str) -> None:
    """The first card of a hand that is not in the deck or was dealt already."""
    for i, c in enumerate(cards):
        cid = card_id(c)
        if not in_deck >> cid & 1:
            raise RecordError("card_not_in_deck", f"{field}[{i}]",
                              f"{c} is not in the {rules.deck} deck")
        if seen >> cid & 1:
            raise RecordError("duplicate_card", f"{field}[{i}]", f"{c} is dealt twice")
        seen |= 1 << cid


def _passes(value: Any, where: str) -> list[tuple[str, ...]]:
    """The optional ``passes``: four lists of cards (none passed when absent)."""
    if value is None:
        return [(), (), (), ()]
    if not isinstance(value, list) or len(value) != 4 or not all(
            isinstance(p, list) for p in value):
        raise RecordError("bad_field", where + "passes", "passes is four lists of cards")
    return [card_codes(p, f"{where}passes[{s}]") for s, p in enumerate(value)]




def score_pair(v: Any, field: str) -> tuple[int, int]:
    if (not isinstance(v, list) or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise RecordError("bad_field", field, f"{field} is two integers")
    return v[0], v[1]


def rules_of(rec: dict[str, Any]) -> Rules:
    if "rules" not in rec:
        raise RecordError("missing_field", "rules", "the record has no rules")
    try:
        return resolve(rec["rules"])
    except RulesError as e:
        raise RecordError("bad_rules", "rules", str(e)) from None
