"""Game records (``shared/formats/game-record.md``): replay and judge each line.

A record is replayed through ``decide`` like any game: a hand record starts a
game at its ``prior`` scores without a seed and deals its hands with
``DealHand``; a match record deals hand after hand. The blind-nil exchange
(``passes``, optional) is put to the engine as ``PassCards`` after the bids, so
a bad pass is refused with the engine's own code. The first rule broken is
the verdict. A line that is not a record gets an error naming the field.

A hand record's plays are first read by ``_read_plays``, which asks the rules'
own functions card by card and builds the summaries once at the end instead of
an event and a state per card: a verifier reads thousands of records, and
nearly all of them are legal. Whatever that reading cannot vouch for (a refused
card, a play past the hand) is replayed through ``decide``, whose refusal is
the verdict; a property test holds both readings to the same result.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, NamedTuple

import msgspec

from engine.cards import CARD_IDS, bits, card_id, mask_of
from engine.decide import step
from engine.errors import RuleError
from engine.evolve import passers
from engine.play import breaks_spades, deck_of, legal_mask, trick_winner
from engine.presets import RulesError, resolve
from engine.scoring import score_hand
from engine.state import OVER, PLAY, GameState
from schemas import commands as cmd
from schemas.events import TeamScore
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


def _hand_fields(h: dict[str, Any], rules: Rules, where: str) -> HandFields:
    dealer = _need(h, "dealer", int, where)
    if not 0 <= dealer <= 3:
        raise RecordError("bad_field", where + "dealer", "dealer must be a seat 0-3")
    hands = _need(h, "hands", list, where)
    if len(hands) != 4:
        raise RecordError("bad_field", where + "hands", "hands must hold four seats")
    parsed: list[tuple[str, ...]] = []
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
    return HandFields(dealer, parsed, bids, blind, passes, list(_cards(plays, where + "plays")))


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


def _setup(state: GameState, hand: HandFields, hand_index: int | None) -> GameState:
    """The hand dealt, bid and (under the blind-nil exchange) passed: its first lead."""
    dealer, hands, bids, blind, passes, _ = hand

    def run(c: cmd.Command, seat: int | None = None) -> GameState:
        return _run(state, c, None, seat, None, hand_index)

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
    return state


def _run(state: GameState, c: cmd.Command, play_index: int | None, seat: int | None,
         card: str | None, hand_index: int | None) -> GameState:
    try:
        return step(state, c)[0]
    except RuleError as e:
        raise Violation(e, play_index, seat, card, hand_index) from None


def _walk_plays(state: GameState, plays: list[str], hand_index: int | None
                ) -> Iterator[tuple[GameState, int, str, GameState]]:
    """Each card stepped through ``decide``: the state before, the seat, the card, after."""
    for i, card in enumerate(plays):
        if state.phase != "play":
            raise Violation(RuleError("hand_over", "all 13 tricks have been played"), i, None,
                            card, hand_index)
        seat = state.waiting.bit_length() - 1
        after = _run(state, cmd.PlayCard(seat=seat, card=card), i, seat, card, hand_index)
        yield state, seat, card, after
        state = after


def _replay_hand(state: GameState, hand: HandFields, hand_index: int | None,
                 quick: bool = False) -> tuple[GameState, dict[str, Any]]:
    """The state after the hand and its result. ``quick``: the caller needs only the
    result, so plays that ``_read_plays`` vouches for are not stepped one by one (the
    state returned is then the one before the first card)."""
    state = _setup(state, hand, hand_index)
    if quick and state.phase == PLAY:
        read = _read_plays(state, hand.plays)
        if read is not None:
            return state, read
    for walked in _walk_plays(state, hand.plays, hand_index):
        state = walked[3]
    done = len(state.trick_winners) == 13
    return state, _result(list(state.trick_winners), list(state.tricks),
                          state.sheet[-1].teams if done else None)


def plays_of(rec: dict[str, Any]) -> Iterator[tuple[int, GameState, int, str, GameState]]:
    """Every card of a hand or match record, stepped through the rules: the hand's index,
    the state before, the seat, the card and the state after (a study of how cards were
    chosen, such as ``engine.fairplay``, reads these). Raises ``RecordError`` for a line
    that is not a record and ``Violation`` for a broken rule."""
    rules = _rules(rec)
    if rec.get("kind") == "match":
        state = _start(rules, None)
        hands = _need(rec, "hands", list, "")
        for k, h in enumerate(hands):
            if not isinstance(h, dict):
                raise RecordError("bad_field", f"hands[{k}]", "a hand is an object")
            if state.phase == OVER:
                raise Violation(RuleError("match_over", "the match was already over"), None,
                                None, None, k)
            hand = _hand_fields(h, rules, f"hands[{k}].")
            state = _setup(state, hand, k)
            for before, seat, card, after in _walk_plays(state, hand.plays, k):
                yield k, before, seat, card, after
                state = after
        return
    hand = _hand_fields(rec, rules, "")
    state = _setup(_start(rules, rec.get("prior")), hand, None)
    for before, seat, card, after in _walk_plays(state, hand.plays, None):
        yield 0, before, seat, card, after


def _result(winners: list[int], tricks: list[int],
            teams: tuple[TeamScore, TeamScore] | None) -> dict[str, Any]:
    """A hand's result: the score only once the hand is complete (``teams``)."""
    result: dict[str, Any] = {"trick_winners": winners, "tricks_taken": tricks}
    if teams is not None:
        result["score_delta"] = [t.delta for t in teams]
        result["bags_after"] = [t.bags_after for t in teams]
        result["scores_after"] = [t.score_after for t in teams]
    return result


def _read_plays(state: GameState, plays: list[str]) -> dict[str, Any] | None:
    """A hand's result from its plays, ``state`` being the hand at its first lead; None
    when a card is not one ``legal_mask`` allows or the plays run past the hand.

    Each card is judged, and each trick won, by the functions ``decide`` and ``evolve``
    use (``legal_mask``, ``breaks_spades``, ``trick_winner``); the hand is scored by
    ``score_hand`` once all 13 tricks are in, as ``decide`` scores it.
    """
    if len(plays) > 52:
        return None
    d = state.deck
    r = state.rules
    assert r is not None
    any_spade = r.spades_broken_by == "any_spade"
    hands = list(state.hands)
    broken = state.broken
    seat = leader = state.waiting.bit_length() - 1
    winners: list[int] = []
    tricks = [0, 0, 0, 0]
    card_of = CARD_IDS.get
    for first in range(0, len(plays), 4):
        trick: tuple[int, ...] = ()
        for code in plays[first:first + 4]:
            card = card_of(code)
            if card is None or not legal_mask(d, hands[seat], trick, broken) >> card & 1:
                return None
            hands[seat] ^= 1 << card  # a card it held
            if not broken:
                broken = breaks_spades(d, trick, card, any_spade)
            trick = (*trick, card)
            seat = (seat + 1) & 3
        if len(trick) == 4:
            seat = leader = trick_winner(d, trick, leader)
            winners.append(seat)
            tricks[seat] += 1
    done = len(winners) == 13
    return _result(winners, tricks, score_hand(r, state.bids, state.blind, tuple(tricks),
                                               state.scores, state.bags) if done else None)


def _start(rules: Rules, prior: Any) -> GameState:
    scores, bags = (0, 0), (0, 0)
    if prior is not None:
        if not isinstance(prior, dict):
            raise RecordError("bad_field", "prior", "prior is an object")
        scores = _pair(prior.get("scores", [0, 0]), "prior.scores")
        bags = _pair(prior.get("bags", [0, 0]), "prior.bags")
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
    state, result = _replay_hand(state, hand, None, quick)
    return {"ok": True, **result}


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
        state, result = _replay_hand(state, hand, k)
        results.append(result)
        if len(hand.plays) < 52 and k < len(hands) - 1:
            raise RecordError("bad_field", f"hands[{k}].plays",
                              "only the last hand of a match may be partial")
    over = state.phase == OVER
    return {"ok": True, "kind": "match", "hands": results, "scores": list(state.scores),
            "bags": list(state.bags), "over": over,
            "winner": ("draw" if state.winner is None else state.winner) if over else None}


def judge_line(line: bytes | str) -> dict[str, Any]:
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
