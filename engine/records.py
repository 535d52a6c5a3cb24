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
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import IO, Any

import msgspec

from engine.decide import step
from engine.errors import RuleError
from engine.evolve import passers
from engine.record_reading import LINE, at_lead, plain_bids, read_plays, result
from engine.recordfields import (
    HandFields,
    RecordError,
    hand_fields,
    need_field,
    rules_of,
    score_pair,
)
from engine.state import OVER, PLAY, GameState
from schemas import commands as cmd
from schemas import events as ev
from schemas.rules import Rules

_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()



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


def _setup(state: GameState, hand: HandFields, hand_index: int | None) -> GameState:
    """The hand dealt, bid and (under the blind-nil exchange) passed: its first lead."""
    dealer, hands, bids, blind, passes = hand[:5]
    if state.phase == OVER:
        raise Violation(RuleError("match_over", "the match was already over"), None, None,
                        None, hand_index)

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
    result, so plays that ``read_plays`` vouches for are not stepped one by one (the
    state returned is then the one before the first card)."""
    state = _setup(state, hand, hand_index)
    if quick and state.phase == PLAY:
        read = read_plays(at_lead(state), hand.plays)
        if read is not None:
            return state, read
    for walked in _walk_plays(state, hand.plays, hand_index):
        state = walked[3]
    done = len(state.trick_winners) == 13
    return state, result(list(state.trick_winners), list(state.tricks),
                          state.sheet[-1].teams if done else None)


def plays_of(rec: dict[str, Any]) -> Iterator[tuple[int, GameState, int, str, GameState]]:
    """Every card of a hand or match record, stepped through the rules: the hand's index,
    the state before, the seat, the card and the state after (for studies of how cards
    were chosen, such as ``engine.fairplay``). Raises ``RecordError`` or ``Violation``."""
    rules = rules_of(rec)
    match = rec.get("kind") == "match"
    state = _start(rules, None if match else rec.get("prior"))
    hands = _match_hands(rec, rules) if match else iter([(0, hand_fields(rec, rules, ""))])
    for k, hand in hands:
        state = _setup(state, hand, k if match else None)
        for before, seat, card, after in _walk_plays(state, hand.plays, k if match else None):
            yield k, before, seat, card, after
            state = after


def _match_hands(rec: dict[str, Any], rules: Rules) -> Iterator[tuple[int, HandFields]]:
    """A match record's hands, each checked for shape."""
    for k, h in enumerate(need_field(rec, "hands", list, "")):
        if not isinstance(h, dict):
            raise RecordError("bad_field", f"hands[{k}]", "a hand is an object")
        yield k, hand_fields(h, rules, f"hands[{k}].")


def _start(rules: Rules, prior: Any) -> GameState:
    scores, bags = (0, 0), (0, 0)
    if prior is not None:
        if not isinstance(prior, dict):
            raise RecordError("bad_field", "prior", "prior is an object")
        scores = score_pair(prior.get("scores", [0, 0]), "prior.scores")
        bags = score_pair(prior.get("bags", [0, 0]), "prior.bags")
    return _started(rules, scores, bags)


@lru_cache(maxsize=32)
def _started(rules: Rules, scores: tuple[int, int], bags: tuple[int, int]) -> GameState:
    """A game started at these scores: the same for every record of a corpus that shares
    its rules and prior (a state is never changed, so one serves them all)."""
    return step(GameState(), cmd.StartGame(rules=rules, scores=scores, bags=bags))[0]


def judge(rec: Any, *, quick: bool = True) -> dict[str, Any]:
    """The result for one decoded record. ``quick=False`` steps every play of a hand
    record through ``decide`` (the reference the quick reading is tested against)."""
    rid = rec.get("id") if isinstance(rec, dict) else None
    out: dict[str, Any] = {"id": rid if isinstance(rid, str) else None}
    try:
        if not isinstance(rec, dict):
            raise RecordError("bad_record", "", "a record is a JSON object")
        rules = rules_of(rec)
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
    hand = hand_fields(rec, rules, "")
    state = _start(rules, rec.get("prior"))
    if quick and not any(hand.blind) and not any(hand.passes):
        at = plain_bids(state, hand.dealer, hand.masks, hand.bids)
        read = None if at is None else read_plays(at, hand.plays)
        if read is not None:
            return {"ok": True, **read}
    state, read = _replay_hand(state, hand, None, quick)
    return {"ok": True, **read}


def _judge_match(rec: dict[str, Any], rules: Rules) -> dict[str, Any]:
    state = _start(rules, None)
    results = []
    last = len(need_field(rec, "hands", list, "")) - 1
    for k, hand in _match_hands(rec, rules):
        state, read = _replay_hand(state, hand, k)
        results.append(read)
        if len(hand.plays) < 52 and k < last:
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


def hand_records(events: Sequence[ev.Event], game_id: str) -> Iterator[dict[str, Any]]:
    """The game's hands as game records (``docs/formats/game-record.md``), each saying
    who played: ``game_id``, ``players``, ``rated``, and ``ended_at`` once the game ended
    (what ``spades fairplay scan`` reads, ``docs/fairplay.md``)."""
    rules_spec: Any = None
    scores, bags = (0, 0), (0, 0)
    hand: dict[str, Any] | None = None
    who: dict[str, Any] = {"game_id": game_id}
    ended = [e.at for e in events if isinstance(e, ev.GameEnded)]
    if ended:
        who["ended_at"] = ended[-1]
    for e in events:
        if isinstance(e, ev.GameStarted):
            rules_spec = _rules_spec(e.rules)
            scores, bags = e.scores, e.bags
            who.update(players=list(e.players), rated=e.rated)
        elif isinstance(e, ev.HandDealt):
            hand = {"id": f"{game_id}-hand-{e.hand_no}", "rules": rules_spec,
                    "dealer": e.dealer, "hands": [list(h) for h in e.hands],
                    "bids": [0, 0, 0, 0], "blind_nil": [False] * 4, "plays": [],
                    "prior": {"scores": list(scores), "bags": list(bags)}, **who}
        elif hand is not None and isinstance(e, ev.BidPlaced):
            hand["bids"][e.seat] = e.bid
            hand["blind_nil"][e.seat] = e.blind
        elif hand is not None and isinstance(e, ev.CardsPassed):
            hand.setdefault("passes", [[], [], [], []])[e.seat] = list(e.cards)
        elif hand is not None and isinstance(e, ev.CardPlayed):
            hand["plays"].append(e.card)
        elif hand is not None and isinstance(e, ev.HandScored):
            scores = (e.teams[0].score_after, e.teams[1].score_after)
            bags = (e.teams[0].bags_after, e.teams[1].bags_after)
            yield hand
            hand = None
    if hand is not None and hand["plays"]:
        yield hand


def _rules_spec(rules: Any) -> Any:
    """A preset name, or the preset with only the options that differ from it."""
    from engine.presets import PRESETS

    base = PRESETS.get(rules.preset)
    mine = msgspec.to_builtins(rules)
    mine.pop("preset")
    if base is None:
        return {"preset": "house", **mine}
    theirs = msgspec.to_builtins(base)
    theirs.pop("preset")
    overrides = {k: v for k, v in mine.items() if theirs.get(k) != v}
    return rules.preset if not overrides else {"preset": rules.preset, **overrides}
