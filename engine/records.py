"""Game records (``docs/formats/game-record.md``): replay and judge each line.

A record is replayed through ``decide`` like any game: a hand record starts a
game at its ``prior`` scores without a seed and deals its hands with
``DealHand``; a match record deals hand after hand. The blind-nil exchange
(``passes``, optional) is put to the engine as ``PassCards`` after the bids, so
a bad pass is refused with the engine's own code. The first rule broken is
the verdict. A line that is not a record gets an error naming the field.

A hand record is first read quickly (``engine/record_reading.py``): its bids and
plays asked of the rules' own functions, and the hand scored once at the end,
instead of an event and a state per bid and per card. Whatever that reading
cannot vouch for (a blind nil, a pass, a refused bid or card, a play past the
hand) is replayed through ``decide``, whose refusal is the verdict; a property
test holds both readings to the same result.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import IO, Any, NamedTuple

import msgspec

from engine.cards import CARD_IDS, bits, card_id, mask_of
from engine.decide import step
from engine.errors import RuleError
from engine.evolve import passers
from engine.play import deck_of
from engine.presets import RulesError, resolve
from engine.record_reading import LINE, at_lead, plain_bids, read_plays, result
from engine.state import OVER, PLAY, GameState
from schemas import commands as cmd
from schemas.rules import Rules

_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


class RecordError(Exception):
    """The line is not a valid record: ``code`` names the problem, ``field`` where."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(message)
        self.code, self.field, self.message = code, field, message


class Violation(Exception):
    """A rule broken while replaying: the verdict for the record."""

    def __init__(self, err: RuleError, play_index: int | None, seat: int | None,
                 card: str | None, hand_index: int | None) -> None:
        super().__init__(err.message)
        self.error: dict[str, Any] = {"code": err.code, "play_index": play_index}
        if hand_index is not None:
            self.error["hand_index"] = hand_index
        if seat is not None:
            self.error["seat"] = seat
        if card is not None:
            self.error["card"] = card
        self.error["message"] = err.message


def _need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
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


def _cards(values: list[Any], field: str) -> tuple[str, ...]:
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


def _hand_fields(h: dict[str, Any], rules: Rules, where: str) -> HandFields:
    dealer = _need(h, "dealer", int, where)
    if not 0 <= dealer <= 3:
        raise RecordError("bad_field", where + "dealer", "dealer must be a seat 0-3")
    hands = _need(h, "hands", list, where)
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
            cards = _cards(hand, f"{where}hands[{s}]")
            mask = bits(card_id(c) for c in cards)
        if mask & ~in_deck or mask & seen or mask.bit_count() != len(cards):
            _deal_problem(cards, seen, in_deck, rules, f"{where}hands[{s}]")
        seen |= mask
        if len(cards) != 13:
            raise RecordError("wrong_hand_size", f"{where}hands[{s}]",
                              f"seat {s} holds {len(cards)} cards, not 13")
        parsed.append(cards)
        masks.append(mask)
    bids = _need(h, "bids", list, where)
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
    plays = _need(h, "plays", list, where)
    return HandFields(dealer, parsed, bids, blind, passes, list(_cards(plays, where + "plays")),
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
    return [_cards(p, f"{where}passes[{s}]") for s, p in enumerate(value)]


def _replay_hand(state: GameState, hand: HandFields, hand_index: int | None,
                 quick: bool = False) -> tuple[GameState, dict[str, Any]]:
    """The state after the hand and its result. ``quick``: the caller needs only the
    result, so plays that ``read_plays`` vouches for are not stepped one by one (the
    state returned is then the one before the first card)."""
    dealer, hands, bids, blind, passes, plays, _ = hand

    def run(c: cmd.Command, play_index: int | None = None, seat: int | None = None,
            card: str | None = None) -> GameState:
        try:
            return step(state, c)[0]
        except RuleError as e:
            raise Violation(e, play_index, seat, card, hand_index) from None

    state = run(cmd.DealHand(dealer=dealer, hands=tuple(hands)))
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        c: cmd.Command = (cmd.BidBlindNil(seat=seat) if blind[seat]
                          else cmd.PlaceBid(seat=seat, bid=bids[seat]))
        state = run(c, seat=seat)
    # The blind-nil exchange: a pass by a seat that takes no part is put to the engine
    # first, so it is refused for what it is whatever the seat order.
    takes_part = passers(state)
    if takes_part or any(passes):
        for seat in sorted(range(4), key=lambda x: bool(takes_part >> x & 1)):
            if passes[seat] or takes_part >> seat & 1:
                state = run(cmd.PassCards(seat=seat, cards=passes[seat]), seat=seat)
    if quick and state.phase == PLAY:
        read = read_plays(at_lead(state), plays)
        if read is not None:
            return state, read
    for i, card in enumerate(plays):
        if state.phase != "play":
            raise Violation(RuleError("hand_over", "all 13 tricks have been played"), i, None,
                            card, hand_index)
        seat = state.waiting.bit_length() - 1
        state = run(cmd.PlayCard(seat=seat, card=card), i, seat, card)
    done = len(state.trick_winners) == 13
    return state, result(list(state.trick_winners), list(state.tricks),
                          state.sheet[-1].teams if done else None)


def _start(rules: Rules, prior: Any) -> GameState:
    scores, bags = (0, 0), (0, 0)
    if prior is not None:
        if not isinstance(prior, dict):
            raise RecordError("bad_field", "prior", "prior is an object")
        scores = _pair(prior.get("scores", [0, 0]), "prior.scores")
        bags = _pair(prior.get("bags", [0, 0]), "prior.bags")
    return _started(rules, scores, bags)


@lru_cache(maxsize=32)
def _started(rules: Rules, scores: tuple[int, int], bags: tuple[int, int]) -> GameState:
    """A game started at these scores: the same for every record of a corpus that shares
    its rules and prior (a state is never changed, so one serves them all)."""
    return step(GameState(), cmd.StartGame(rules=rules, scores=scores, bags=bags))[0]


def _pair(v: Any, field: str) -> tuple[int, int]:
    if (not isinstance(v, list) or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
        raise RecordError("bad_field", field, f"{field} is two integers")
    return v[0], v[1]


def _rules(rec: dict[str, Any]) -> Rules:
    if "rules" not in rec:
        raise RecordError("missing_field", "rules", "the record has no rules")
    try:
        return resolve(rec["rules"])
    except RulesError as e:
        raise RecordError("bad_rules", "rules", str(e)) from None


def judge(rec: Any, *, quick: bool = True) -> dict[str, Any]:
    """The result for one decoded record. ``quick=False`` steps every play of a hand
    record through ``decide`` (the reference the quick reading is tested against)."""
    rid = rec.get("id") if isinstance(rec, dict) else None
    out: dict[str, Any] = {"id": rid if isinstance(rid, str) else None}
    try:
        if not isinstance(rec, dict):
            raise RecordError("bad_record", "", "a record is a JSON object")
        rules = _rules(rec)
        if rec.get("kind") == "match":
            out.update(_judge_match(rec, rules))
        elif "kind" in rec:
            raise RecordError("bad_field", "kind", "kind is 'match' or absent")
        else:
            out.update(_judge_hand(rec, rules, quick))
    except RecordError as e:
        out.update(ok=False, error={"code": e.code, "field": e.field, "play_index": None,
                                    "message": e.message})
    except Violation as v:
        out.update(ok=False, error=v.error)
    return out


def _judge_hand(rec: dict[str, Any], rules: Rules, quick: bool) -> dict[str, Any]:
    hand = _hand_fields(rec, rules, "")
    state = _start(rules, rec.get("prior"))
    if quick and not any(hand.blind) and not any(hand.passes):
        at = plain_bids(state, hand.dealer, hand.masks, hand.bids)
        read = None if at is None else read_plays(at, hand.plays)
        if read is not None:
            return {"ok": True, **read}
    state, read = _replay_hand(state, hand, None, quick)
    return {"ok": True, **read}


def _judge_match(rec: dict[str, Any], rules: Rules) -> dict[str, Any]:
    hands = _need(rec, "hands", list, "")
    state = _start(rules, None)
    results = []
    for k, h in enumerate(hands):
        where = f"hands[{k}]."
        if not isinstance(h, dict):
            raise RecordError("bad_field", f"hands[{k}]", "a hand is an object")
        hand = _hand_fields(h, rules, where)
        if state.phase == OVER:
            raise Violation(RuleError("match_over", "the match was already over"), None, None,
                            None, k)
        state, read = _replay_hand(state, hand, k)
        results.append(read)
        if len(hand.plays) < 52 and k < len(hands) - 1:
            raise RecordError("bad_field", f"hands[{k}].plays",
                              "only the last hand of a match may be partial")
    over = state.phase == OVER
    return {"ok": True, "kind": "match", "hands": results, "scores": list(state.scores),
            "bags": list(state.bags), "over": over,
            "winner": ("draw" if state.winner is None else state.winner) if over else None}


def judge_line(line: bytes | str) -> dict[str, Any]:
    try:
        rec: Any = LINE.decode(line)  # most lines: canonical cards, decoded without copies
    except msgspec.DecodeError:  # any other line (a ValidationError is one) is plain JSON
        try:
            rec = _decoder.decode(line)
        except msgspec.DecodeError as e:
            return {"id": None, "ok": False,
                    "error": {"code": "bad_json", "field": "", "play_index": None,
                              "message": f"not JSON: {e}"}}
    return judge(rec)


def verify_lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    for line in lines:
        if line.strip():
            yield _encoder.encode(judge_line(line)) + b"\n"


def verify_file(path: str, out: IO[bytes] | None = None) -> int:
    """``spades record verify``: one result line per record; 0 once every line is judged."""
    out = out or sys.stdout.buffer
    src = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    try:
        out.writelines(verify_lines(src))
    finally:
        if src is not sys.stdin.buffer:
            src.close()
    out.flush()
    return 0
