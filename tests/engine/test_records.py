"""The game record format (``docs/formats/game-record.md``), judged by the engine.

"Checking a record replays it through the rules engine and writes one JSON object
per record, in the same order"; a record that breaks a rule yields the first
violation; "A line that is not a record at all ... yields "ok": false with an
error code naming the problem and the field. The checker never stops early on
one bad line."
"""

from __future__ import annotations

import copy
import io
import json

import pytest

from engine.presets import resolve
from engine.records import judge, judge_line, verify_file, verify_lines
from engine.state import GameState
from schemas import commands as cmd

from .helpers import CLASSIC, HOUSE, deal, fill, find_deal, hand_record, play_out, step


def _record(rules: str = "classic", bids=(3, 3, 3, 3), **kw) -> dict:
    r = {"classic": CLASSIC, "house": HOUSE}[rules]
    return hand_record(rules, 3, fill(r), list(bids), **kw)


def _bad_bid_record() -> dict:
    rec = _record()
    rec["bids"][1] = 14
    return rec


def test_record_result_has_the_documented_fields() -> None:
    """A judged hand reports trick winners, tricks per seat, the score delta, bags and
    scores after, with the record's id echoed."""
    got = judge(_record())
    assert set(got) == {"id", "ok", "trick_winners", "tricks_taken", "score_delta",
                        "bags_after", "scores_after"}
    assert got["id"] == "t" and got["ok"] is True
    assert len(got["trick_winners"]) == 13 and sum(got["tricks_taken"]) == 13


def test_record_input_is_case_insensitive() -> None:
    """"Input is case-insensitive; output is upper case"."""
    rec = _record()
    lower = copy.deepcopy(rec)
    lower["hands"] = [[c.lower() for c in h] for h in rec["hands"]]
    lower["plays"] = [c.lower() for c in rec["plays"]]
    assert judge(lower) == judge(rec)


def test_record_rules_may_be_a_preset_with_overrides() -> None:
    """"rules: a preset name ... or {"preset": NAME, ...overrides}"."""
    rec = _record(bids=(1, 1, 1, 1))
    rec["rules"] = {"preset": "classic", "board": 4}
    got = judge(rec)
    plain = judge(_record(bids=(1, 1, 1, 1)))
    assert got["ok"] and got["tricks_taken"] == plain["tricks_taken"]
    for t in (0, 1):
        took = got["tricks_taken"][t] + got["tricks_taken"][t + 2]
        assert got["score_delta"][t] == (40 + took - 4 if took >= 4 else -40)


def test_record_prior_scores_and_bags_carry_in() -> None:
    """"prior: {"scores": [t0, t1], "bags": [t0, t1]} before this hand"."""
    plain = judge(_record())
    got = judge(_record(prior={"scores": [100, -50], "bags": [0, 0]}))
    assert got["scores_after"] == [plain["scores_after"][0] + 100,
                                   plain["scores_after"][1] - 50]


def test_record_rule_breaker_gives_the_first_violation() -> None:
    """"A record that breaks a rule ... yields "ok": false with the first violation,
    and nothing after it is judged" - with its code, play index, seat and card."""
    rec = _record()
    first_lead = rec["plays"][0]
    seat0 = rec["hands"][0]
    spade = next(c for c in seat0 if c.endswith("S"))
    assert not first_lead.endswith("S")
    bad = copy.deepcopy(rec)
    bad["plays"][0] = spade
    got = judge(bad)
    assert got["ok"] is False
    assert got["error"]["code"] == "spades_not_broken"
    assert (got["error"]["play_index"], got["error"]["seat"], got["error"]["card"]) == (0, 0,
                                                                                      spade)
    assert got["error"]["message"]


def test_record_with_a_bad_bid_reports_no_play_index() -> None:
    """"only ok, the error's code and its play_index (null for a bidding error) are
    prescribed"."""
    got = judge(_bad_bid_record())
    assert got["ok"] is False and got["error"]["code"] == "bid_out_of_range"
    assert got["error"]["play_index"] is None


def test_partial_record_reports_tricks_so_far_and_no_score() -> None:
    """"For a partial record (fewer than 52 plays) the result reports the tricks
    completed so far and no score"."""
    rec = _record()
    rec["plays"] = rec["plays"][:18]
    got = judge(rec)
    assert got["ok"] is True and len(got["trick_winners"]) == 4
    assert sum(got["tricks_taken"]) == 4 and "score_delta" not in got


def test_record_blind_nil_marked_in_blind_nil() -> None:
    """"Blind nil is 0 with the seat marked in blind_nil"; it is scored double."""
    hands, _ = find_deal(HOUSE, lambda t: t[0] == 0)
    rec = hand_record("house", 3, hands, [0, 3, 4, 3], prior={"scores": [0, 200],
                                                             "bags": [0, 0]},
                      blind=[True, False, False, False])
    got = judge(rec)
    assert got["ok"], got
    plain = judge(hand_record("house", 3, hands, [0, 3, 4, 3],
                              prior={"scores": [0, 200], "bags": [0, 0]}))
    assert got["score_delta"][0] == plain["score_delta"][0] + 100


@pytest.mark.parametrize("mutate,code,field", [
    (lambda r: r["hands"][0].__setitem__(0, "ZZ"), "unknown_card", "hands[0][0]"),
    (lambda r: r["hands"][0].pop(), "wrong_hand_size", "hands[0]"),
    (lambda r: r["hands"][1].__setitem__(0, r["hands"][0][0]), "duplicate_card", "hands[1][0]"),
    (lambda r: r.pop("dealer"), "missing_field", "dealer"),
    (lambda r: r.__setitem__("rules", "grandma"), "bad_rules", "rules"),
    (lambda r: r["hands"][0].__setitem__(0, "BJ"), "card_not_in_deck", "hands[0][0]"),
])
def test_record_that_is_not_a_record_names_the_problem_and_field(mutate, code, field) -> None:
    """"bad JSON, unknown card, 12 cards in a hand, a card dealt twice" give an error
    code naming the problem and the field, never a traceback."""
    rec = _record()
    mutate(rec)
    got = judge(rec)
    assert got["ok"] is False and got["error"]["code"] == code
    assert got["error"]["field"] == field


def test_bad_json_line_is_judged_not_raised() -> None:
    """A line that is not JSON gets a result too."""
    got = judge_line(b"{not json")
    assert got["ok"] is False and got["error"]["code"] == "bad_json"
    assert judge_line(b"[1, 2]")["ok"] is False


def test_verify_writes_one_result_per_line_and_exits_0(tmp_path) -> None:
    """"spades record verify FILE ... writes one result line per record ... exit status
    0 when every line was judged, whatever the verdicts"."""
    lines = [json.dumps(_record()), "{oops", json.dumps(_bad_bid_record())]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = io.BytesIO()
    assert verify_file(str(path), out) == 0
    results = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["ok"] for r in results] == [True, False, False]
    assert len(list(verify_lines(x.encode() for x in lines))) == 3


# --- the blind-nil exchange: "passes" -------------------------------------------------

EXCHANGE = {"preset": "house", "blind_nil_pass": 1}
TRAILING = {"scores": [0, 200], "bags": [0, 0]}


def _after_exchange(passes: list[list[str]]) -> GameState:
    """Seat 0 bids blind nil 200 behind, the others 3, 4, 3; seats 0 and 2 pass."""
    r = resolve(EXCHANGE)
    s = deal(r, fill(r), dealer=3, scores=(0, 200))
    s = step(s, cmd.BidBlindNil(seat=0))[0]
    for seat, b in ((1, 3), (2, 4), (3, 3)):
        s = step(s, cmd.PlaceBid(seat=seat, bid=b))[0]
    for seat in (0, 2):
        s = step(s, cmd.PassCards(seat=seat, cards=tuple(passes[seat])))[0]
    return s


def _exchange_record(passes: list[list[str]]) -> dict:
    """``_after_exchange``'s hand played out with the lowest legal card, as a record."""
    hands = fill(resolve(EXCHANGE))
    _, plays = play_out(_after_exchange(passes))
    return {"id": "x", "rules": EXCHANGE, "dealer": 3, "hands": [list(h) for h in hands],
            "bids": [0, 3, 4, 3], "blind_nil": [True, False, False, False],
            "passes": passes, "plays": plays, "prior": TRAILING}


def test_record_passes_carry_the_blind_nil_exchange() -> None:
    """game-record.md: "passes ... the cards each seat passed to its partner, in seat
    order ([] for a seat that passed nothing). hands stays what was dealt; the exchange
    happens after the bids and before the first lead". Worked example: seat 0 (blind
    nil) gives its ace of spades away and receives seat 2's 3C, then plays the 3C."""
    hands = fill(resolve(EXCHANGE))
    assert "AS" in hands[0] and "3C" in hands[2]
    rec = _exchange_record([["AS"], [], ["3C"], []])
    got = judge(json.loads(json.dumps(rec)))
    assert got["ok"] is True, got
    assert sum(got["tricks_taken"]) == 13 and "score_delta" in got
    s, who = _after_exchange(rec["passes"]), {}
    for c in rec["plays"]:  # who played each card
        who[c] = s.waiting.bit_length() - 1
        s = step(s, cmd.PlayCard(seat=who[c], card=c))[0]
    assert who["3C"] == 0 and who["AS"] == 2
    # The same plays without the exchange are not this hand: seat 0 never held the 3C.
    del rec["passes"]
    got = judge(rec)
    assert got["ok"] is False and got["error"]["code"] == "wrong_pass_count"


@pytest.mark.parametrize("passes,code,seat", [
    ([["JH"], [], ["3C"], []], "card_not_in_hand", 0),  # the jack of hearts is seat 1's
    ([["AS", "KS"], [], ["3C"], []], "wrong_pass_count", 0),
    ([["AS"], [], [], []], "wrong_pass_count", 2),
    ([["AS"], ["JH"], ["3C"], []], "not_your_turn", 1),  # seat 1 takes no part
])
def test_record_pass_that_breaks_the_exchange_rules(passes, code, seat) -> None:
    """"A pass of cards not held, of the wrong count, or by a seat the rules do not let
    pass gives "ok": false with the code the engine uses for that refusal"."""
    assert "JH" in fill(resolve(EXCHANGE))[1]
    rec = _exchange_record([["AS"], [], ["3C"], []])
    rec["passes"] = passes
    got = judge(rec)
    assert got["ok"] is False
    assert (got["error"]["code"], got["error"]["seat"], got["error"]["play_index"]) == (
        code, seat, None)


def test_record_pass_under_rules_without_an_exchange_is_refused() -> None:
    """Without ``blind_nil_pass`` no seat may pass: the engine's code is ``wrong_phase``."""
    rec = _record("house", prior=TRAILING)
    rec["passes"] = [[rec["hands"][0][0]], [], [], []]
    got = judge(rec)
    assert got["ok"] is False and got["error"]["code"] == "wrong_phase"
    rec["passes"] = [[], [], [], []]
    assert judge(rec)["ok"] is True


@pytest.mark.parametrize("passes,code,field", [
    ([["AS"], [], ["3C"]], "bad_field", "passes"),
    ("AS", "bad_field", "passes"),
    ([["AS"], [], ["ZZ"], []], "unknown_card", "passes[2][0]"),
])
def test_record_passes_that_are_not_passes_name_the_field(passes, code, field) -> None:
    rec = _exchange_record([["AS"], [], ["3C"], []])
    rec["passes"] = passes
    got = judge(rec)
    assert got["ok"] is False and (got["error"]["code"], got["error"]["field"]) == (code, field)
