"""`spades fairplay scan FILE` and `spades record export`'s "who played" fields, run the
way an operator runs them (docs/fairplay.md)."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random

import msgspec

from engine.presets import resolve
from schemas import events as ev
from services.replay import hand_records
from tests.bench.fairplay_league import Account, play_match
from tests.engine.helpers import fill, hand_record
from tests.engine.test_replay import _bot_game
from tests.services.test_operator_cli import spades

KEYS = {"players", "relation", "hands", "score", "flagged", "why"}


def _league(n: int) -> list[dict]:
    """``n`` quick matches of the same four accounts, honest basics and experts."""
    rng = Random(3)
    seats = (Account("w", "basic"), Account("x", budget=4), Account("y", "basic"),
             Account("z", budget=4))
    return [play_match(resolve("quick"), seats, rng, f"g{i}", 1000 + i) for i in range(n)]


def _lines(records: list) -> bytes:
    return b"".join((r if isinstance(r, bytes) else msgspec.json.encode(r)) + b"\n"
                    for r in records)


def _scan(tmp_path: Path, records: list) -> tuple[int, list[dict], list[dict]]:
    path = tmp_path / "records.jsonl"
    path.write_bytes(_lines(records))
    done = spades("fairplay", "scan", str(path), "--deals", "3")
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    err = [json.loads(x) for x in done.stderr.decode().splitlines()]
    return done.returncode, out, err


def test_scan_writes_one_line_per_pair_judged(tmp_path: Path) -> None:
    """Two partnerships and four pairs of opponents, each once, players sorted."""
    games = _league(2)
    code, out, err = _scan(tmp_path, games)
    assert code == 0 and err == []
    assert [(o["players"], o["relation"]) for o in out] == [
        (["w", "x"], "opponents"), (["w", "y"], "partners"), (["w", "z"], "opponents"),
        (["x", "y"], "opponents"), (["x", "z"], "partners"), (["y", "z"], "opponents")]
    hands = sum(len(g["hands"]) for g in games)
    for o in out:
        assert set(o) == KEYS and o["hands"] == hands and o["flagged"] is False
        assert isinstance(o["score"], float | int) and o["why"]


def test_scan_refuses_a_record_without_players_and_judges_the_rest(tmp_path: Path) -> None:
    games = _league(2)
    anonymous = dict(games[1])
    del anonymous["players"]
    code, out, err = _scan(tmp_path, [games[0], anonymous])
    assert code == 0
    assert err == [{"line": 2, "id": "g1", "error": {
        "code": "missing_field", "field": "players",
        "message": "the record does not say who played (no players)"}}]
    assert {o["hands"] for o in out} == {len(games[0]["hands"])}


def test_scan_names_broken_lines_and_skips_nothing_else(tmp_path: Path) -> None:
    """Not JSON, not an object, players that are not four ids, a rule broken: each line
    named with its code; the good lines on either side are all judged."""
    games = _league(3)
    broken = json.loads(json.dumps(games[1]))
    broken["hands"][0]["plays"][1] = broken["hands"][0]["plays"][0]  # a card played twice
    code, out, err = _scan(tmp_path, [games[0], b'{"id": "cut', b"[1, 2]",
                                      {**games[2], "players": ["a", "b"]}, broken, games[2]])
    assert code == 0
    assert [(e["line"], e["error"]["code"]) for e in err] == [
        (2, "bad_json"), (3, "bad_record"), (4, "bad_field"), (5, "card_not_in_hand")]
    assert err[2]["error"]["field"] == "players" and err[3]["id"] == "g1"
    assert {o["hands"] for o in out} == {len(games[0]["hands"]) + len(games[2]["hands"])}


def test_hand_records_of_one_game_are_gathered_by_game_id(tmp_path: Path) -> None:
    """Two hand records sharing a game_id are one game: its pairs count both hands."""
    r = resolve("classic")
    who = {"game_id": "h1", "players": ["p", "q", "s", "t"], "ended_at": 5, "rated": True}
    first = {**hand_record("classic", 3, fill(r), [3, 3, 3, 3]), **who, "id": "h1-1"}
    second = {**hand_record("classic", 0, fill(r), [3, 3, 3, 3]), **who, "id": "h1-2"}
    code, out, err = _scan(tmp_path, [first, second])
    assert code == 0 and err == [] and len(out) == 6
    assert {o["hands"] for o in out} == {2}


def test_a_missing_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = spades("fairplay", "scan", str(tmp_path / "nope.jsonl"))
    assert done.returncode == 1 and done.stderr.decode().count("\n") == 1


def test_exported_records_say_who_played_and_the_scan_reads_them(tmp_path: Path) -> None:
    """`spades record export` writes ``game_id``, ``players``, ``rated`` and ``ended_at``
    (the GameEnded's time) on every hand, and the scan judges those records."""
    events = _bot_game("house", "7f" * 32)
    started = next(e for e in events if isinstance(e, ev.GameStarted))
    ended = next(e for e in events if isinstance(e, ev.GameEnded))
    records = list(hand_records(events, "g9"))
    assert records and all(
        r["game_id"] == "g9" and r["players"] == list(started.players)
        and r["rated"] == started.rated and r["ended_at"] == ended.at for r in records)
    # This log was started without accounts: name them, as a deployment's games do.
    named = [{**r, "players": ["n0", "n1", "n2", "n3"]} for r in records]
    code, out, err = _scan(tmp_path, named)
    assert code == 0 and err == [] and {o["hands"] for o in out} == {len(records)}
