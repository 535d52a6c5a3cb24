"""`spades record verify` and `spades replay --file`, run the way an operator runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from engine.bots import basic, timeout_command
from engine.decide import step
from engine.presets import resolve
from engine.replay import verify
from engine.state import PLAY, GameState
from schemas import commands as cmd
from schemas import events as ev
from services.replay import encode_log_line, hand_records, read_log
from tests.engine.randomgame import play_game
from tests.engine.test_replay import _bot_game

DATA = Path(__file__).resolve().parents[1] / "engine" / "data"


def spades(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", "from services.cli import main; main()", *args],
                          input=stdin, capture_output=True, timeout=60)


def _log_file(tmp_path: Path, events: list[ev.Event]) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"".join(encode_log_line(i, e) for i, e in enumerate(events, 1)))
    return path


def test_record_verify_writes_one_result_per_record() -> None:
    done = spades("record", "verify", str(DATA / "sample-records.jsonl"))
    assert done.returncode == 0, done.stderr
    got = [json.loads(x) for x in done.stdout.splitlines()]
    want = [json.loads(x) for x in (DATA / "sample-results.jsonl").read_text().splitlines()]
    assert [g["id"] for g in got] == [w["id"] for w in want]
    assert [g["ok"] for g in got] == [w["ok"] for w in want]


def test_record_verify_reads_stdin_and_judges_bad_lines_without_a_traceback() -> None:
    lines = b'not json\n{"id": "x", "rules": "classic", "dealer": 0}\n[1, 2]\n'
    done = spades("record", "verify", "-", stdin=lines)
    assert done.returncode == 0
    assert b"Traceback" not in done.stdout + done.stderr
    codes = [json.loads(x)["error"]["code"] for x in done.stdout.splitlines()]
    assert codes == ["bad_json", "missing_field", "bad_record"]


def test_replay_file_prints_the_timeline_and_verifies(tmp_path: Path) -> None:
    events = _bot_game("house", "7c" * 32)
    done = spades("replay", "--file", str(_log_file(tmp_path, events)))
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    assert "--- hand 1: S" in text and "trick 13:" in text
    assert text.strip().splitlines()[-1].startswith(f"verified: {len(events)} events")


def test_replay_reports_the_first_divergence_with_exit_status_2(tmp_path: Path) -> None:
    events = _bot_game("classic", "7d" * 32)
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.BidPlaced))
    placed = events[i]
    assert isinstance(placed, ev.BidPlaced)
    events[i] = msgspec.structs.replace(placed, bid=(placed.bid + 1) % 14)
    revealed = next(k for k, e in enumerate(events) if isinstance(e, ev.BidsRevealed))
    done = spades("replay", "--file", str(_log_file(tmp_path, events)))
    assert done.returncode == 2
    assert f"DIVERGES at event {revealed + 1}: the engine produces other events" in (
        done.stdout.decode())


def test_replay_at_event_shows_what_a_seat_saw(tmp_path: Path) -> None:
    events = _bot_game("house", "7e" * 32)
    done = spades("replay", "--file", str(_log_file(tmp_path, events)), "--at", "12",
                  "--seat", "1", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["verified"] is True and out["at"] == 12
    assert out["state"]["seat"] == 1 and out["state"]["version"] == 12
    assert [e["version"] for e in out["timeline"]] == list(range(1, 13))
    assert out["timeline"][0]["lines"][0].startswith("game started")
    dealt = next(e for e in events if isinstance(e, ev.HandDealt))
    others = {c for s in (0, 2, 3) for c in dealt.hands[s]}
    assert not others & set(out["state"]["hand"] or [])


def test_replay_at_n_prints_a_readable_board_after_n_events(tmp_path: Path) -> None:
    events = _bot_game("house", "7e" * 32)
    n = next(k for k, e in enumerate(events, 1) if isinstance(e, ev.CardPlayed)) + 1
    done = spades("replay", "--file", str(_log_file(tmp_path, events)), "--at", str(n))
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode()
    numbered = [line.split()[0] for line in text.splitlines() if line[:5].strip().isdigit()]
    assert numbered[0] == "1" and numbered[-1] == str(n)  # event N is version N
    board = text.split(f"--- the table after event {n} of {len(events)} ---\n")[1]
    dealt = next(e for e in events if isinstance(e, ev.HandDealt))
    first, second = (e for e in events[:n] if isinstance(e, ev.CardPlayed))
    assert f"on the table: S{first.seat} {first.card}, S{second.seat} {second.card}" in board
    for seat in range(4):  # every hand face up, less the card it played
        held = [c for c in dealt.hands[seat] if c not in (first.card, second.card)]
        assert " ".join(held) in board
    assert "team 0 (S0 & S2): 0 points, 0 bags" in board and "<- to act" in board
    assert spades("replay", "--file", str(_log_file(tmp_path, events)), "--at",
                  str(len(events))).returncode == 0
    late = spades("replay", "--file", str(_log_file(tmp_path, events)), "--at",
                  str(len(events) + 1))
    assert late.returncode == 1
    assert late.stderr.decode() == f"spades: --at {len(events) + 1} is outside the log " \
                                   f"(0 to {len(events)})\n"


def test_a_bad_log_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"version": 1, "event": {"type": "Nope"}}\n')
    done = spades("replay", "--file", str(path))
    assert done.returncode == 1
    assert done.stderr.decode().count("\n") == 1 and b"line 1" in done.stderr


def test_exported_hands_are_records_the_checker_accepts(tmp_path: Path) -> None:
    from engine.records import judge

    events = _bot_game("house", "7f" * 32)
    records = list(hand_records(events, "g1"))
    scored = [e for e in events if isinstance(e, ev.HandScored)]
    assert len(records) == len(scored)
    for record, hand in zip(records, scored, strict=True):
        result = judge(json.loads(json.dumps(record)))
        assert result["ok"] is True, result
        assert result["score_delta"] == [t.delta for t in hand.teams]


def test_exported_hands_with_the_blind_nil_exchange_carry_their_passes(
        tmp_path: Path) -> None:
    """`spades record export` writes each seat's passed cards in ``passes`` ([] for a seat
    that passed nothing), and `spades record verify` accepts the records it exports."""
    exchange = resolve({"preset": "house", "blind_nil_pass": 2, "blind_nil_margin": None,
                        "target": None, "max_hands": 2})
    s, events = step(GameState(), cmd.StartGame(rules=exchange, seed="5e" * 32))
    while s.phase != "over":
        seat = s.waiting.bit_length() - 1
        if s.phase == "bidding" and not s.looked >> seat & 1 and seat == (s.dealer + 2) % 4:
            s, out = step(s, cmd.BidBlindNil(seat=seat))
        else:
            s, out = step(s, timeout_command(s, seat, at=s.deadlines[seat]))
        events += out
    passed = [e for e in events if isinstance(e, ev.CardsPassed)]
    assert len(passed) == 4  # two hands, two seats each
    records = list(hand_records(events, "g2"))
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in records))
    for record, hand in zip(records, (1, 2), strict=True):
        mine = [e for e in passed if events.index(e) > _dealt_at(events, hand)][:2]
        want: list[list[str]] = [[], [], [], []]
        for e in mine:
            want[e.seat] = list(e.cards)
        assert record["passes"] == want and sum(map(len, want)) == 4
    done = spades("record", "verify", str(path))
    assert done.returncode == 0, done.stderr
    results = [json.loads(x) for x in done.stdout.decode().splitlines()]
    scored = [e for e in events if isinstance(e, ev.HandScored)]
    assert [r["score_delta"] for r in results] == [[t.delta for t in h.teams] for h in scored]


def _dealt_at(events: list[ev.Event], hand_no: int) -> int:
    return next(i for i, e in enumerate(events)
                if isinstance(e, ev.HandDealt) and e.hand_no == hand_no)


def test_a_log_round_trips_through_its_export(tmp_path: Path) -> None:
    events = _bot_game("quick", "80" * 32)
    assert read_log(_log_file(tmp_path, events).read_bytes().splitlines()) == events


def test_a_log_written_with_an_older_event_version_replays_through_its_upcaster() -> None:
    """The fixture was exported when HandScored was version 1 (``teams[].tricks``)."""
    old = Path(__file__).parent / "data" / "quick-game-v1.jsonl"
    rows = [json.loads(x) for x in old.read_text().splitlines()]
    assert any(r["event"]["type"] == "HandScored" and r["schema_version"] == 1 for r in rows)
    events = read_log(old.read_bytes().splitlines())
    scored = [e for e in events if isinstance(e, ev.HandScored)]
    assert scored and all(t.counted >= 0 for h in scored for t in h.teams)
    done = spades("replay", "--file", str(old))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip().splitlines()[-1].startswith("verified:")


def test_a_stored_log_with_timeouts_verifies_whatever_the_basic_bot_now_plays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules never ask a bot (issue 12): a move made for a timed-out seat is read
    from its stored event, so a basic bot that now bids, passes and plays otherwise (here:
    one that refuses to be asked at all) changes nothing in the verdict."""
    old = Path(__file__).parent / "data" / "quick-game-v1.jsonl"
    events = read_log(old.read_bytes().splitlines())
    auto = [e for e in events if getattr(e, "auto", False)]
    assert auto and all(isinstance(e, ev.CardPlayed) for e in auto)
    # Fresh logs whose clocks ran out while bidding, passing and playing.
    exchange = resolve({"preset": "house", "blind_nil_pass": 1, "blind_nil_margin": None,
                        "clocks": {"bank_blocks": 0}})
    live = [[e for _, es in play_game(seed, exchange, max_hands=2, extras=True) for e in es]
            for seed in range(12)]
    s, log = step(GameState(), cmd.StartGame(rules=exchange, seed="3d" * 32))
    s, out = step(s, cmd.BidBlindNil(seat=s.waiting.bit_length() - 1))
    log += out
    while s.phase != PLAY:  # every other bid, then both passes, made as timeouts
        seat = s.waiting.bit_length() - 1
        s, out = step(s, timeout_command(s, seat, at=s.deadlines[seat]))
        log += out
    live.append(log)
    timed_out = {type(e) for log in live for e in log if getattr(e, "auto", False)}
    assert timed_out == {ev.BidPlaced, ev.CardsPassed, ev.CardPlayed}

    def asked(*_: object) -> int:
        raise AssertionError("a replay asked the bot")

    for name in ("choose_bid", "choose_pass", "choose_card"):
        monkeypatch.setattr(basic, name, asked)
    assert verify(events) is None
    assert all(verify(log) is None for log in live)
