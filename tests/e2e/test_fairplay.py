"""Fair play on the whole platform: a player reports a rated game, its four players go
to the review queue, an operator reads and decides the case over HTTP and on the
command line, and an upheld case bars its accounts from the ranked queue
(docs/fairplay.md). Every refusal is a typed code."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from nats.aio.client import Client

from tests.e2e.conftest import Platform
from tests.e2e.replays import operator, registered
from tests.e2e.test_matches import ask, open_match, rated_match
from tests.services.lobby.harness import Player, Service, start

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ratings(platform: Platform, platform_env: dict[str, str]) -> Iterator[Service]:
    svc = start("ratings", platform.logs / f"ratings-fp-{uuid.uuid4().hex[:4]}.log",
                **platform_env)
    yield svc
    svc.stop()


async def spades(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`spades fairplay ...` as an operator runs it, in a thread: the test's sockets keep
    answering their pings meanwhile."""
    return await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "services.cli", "fairplay", *args],
        env={**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT)},
        cwd=ROOT, capture_output=True, text=True, timeout=60)


async def _code(who: Player, method: str, path: str, body: object = None) -> tuple[int, str]:
    status, answer = await who.call(method, path, body)
    return status, answer.get("code", "") if isinstance(answer, dict) else ""


async def test_a_reported_game_is_reviewed_decided_and_bars_its_players_from_ranked(
        platform: Platform, ratings: Service, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    opened, people, socks = await rated_match(platform, nc, nats_prefix, "fp")
    game = opened.game_id
    stranger = await registered(platform.a.url, f"fpw{uuid.uuid4().hex[:8]}")
    # Anyone who could watch the ranked game may report it, while it is played.
    status, taken = await stranger.call("POST", f"/v1/games/{game}/report",
                                        {"reason": "they never miss a nil"})
    assert (status, taken) == (202, {"game_id": game, "received": True})
    assert (await people[1].call("POST", f"/v1/games/{game}/report", {}))[0] == 202
    assert await _code(stranger, "POST", "/v1/games/g-none/report", {}) == (
        404, "game_not_found")
    casual = await open_match(nc, f"{nats_prefix}e2e", ask(f"casual-{uuid.uuid4().hex[:6]}"))
    assert await _code(stranger, "POST", f"/v1/games/{casual.game_id}/report", {}) == (
        409, "game_not_rated")
    assert await _code(stranger, "POST", f"/v1/games/{game}/report", {"why": 1}) == (
        400, "bad_request")

    op = await operator(platform, database_url, f"fpo{uuid.uuid4().hex[:8]}")
    listed = await op.ok("GET", "/v1/admin/fairplay?status=open")
    mine = [c for c in listed["cases"] if set(c["players"]) == {p.player_id for p in people}]
    assert len(mine) == 1 and mine[0]["relation"] == "reported" and mine[0]["games"] == 1
    case_id = mine[0]["case_id"]
    case = await op.ok("GET", f"/v1/admin/fairplay/{case_id}")
    assert case["games"] == [game]
    assert [(e["type"], e.get("by")) for e in case["events"]] == [
        ("opened", ""), ("reported", stranger.player_id), ("reported", people[1].player_id)]
    # Operators only, as the role stands now; unknown cases and decisions refused.
    assert await _code(stranger, "GET", "/v1/admin/fairplay") == (403, "operators_only")
    assert await _code(stranger, "POST", f"/v1/admin/fairplay/{case_id}/decision",
                       {"decision": "upheld"}) == (403, "operators_only")
    assert await _code(op, "GET", "/v1/admin/fairplay/c-none") == (404, "case_not_found")
    assert await _code(op, "POST", "/v1/admin/fairplay/c-none/decision",
                       {"decision": "cleared"}) == (404, "case_not_found")
    assert await _code(op, "POST", f"/v1/admin/fairplay/{case_id}/decision",
                       {"decision": "maybe"}) == (400, "bad_request")
    assert await _code(op, "GET", "/v1/admin/fairplay?status=zzz") == (400, "bad_request")

    # The command line sees the same queue.
    done = await spades(database_url, "list", "--status", "open")
    assert done.returncode == 0 and case_id in done.stdout, done.stderr
    done = await spades(database_url, "show", "c-none")
    assert done.returncode == 1 and done.stderr.startswith("spades: case_not_found"), done.stderr

    decided = await op.ok("POST", f"/v1/admin/fairplay/{case_id}/decision",
                          {"decision": "upheld", "note": "shared hands", "bar_days": 2})
    assert decided["case"]["status"] == "upheld"
    last = decided["events"][-1]
    assert (last["type"], last["by"], last["decision"], last["voided_games"]) == (
        "decided", op.player_id, "upheld", [game])
    assert await _code(op, "POST", f"/v1/admin/fairplay/{case_id}/decision",
                       {"decision": "cleared"}) == (409, "case_decided")
    done = await spades(database_url, "decide", case_id, "cleared")
    assert done.returncode == 1 and "case_decided" in done.stderr, done.stderr

    # Barred from ranked: the queue refuses with the bar's end; a partner named who is
    # barred is only "unavailable" to the one who named them.
    await socks[0].send({"type": "queue_join"})
    refused = await socks[0].of_type("error")
    assert refused["code"] == "ranked_barred" and refused["until"] == last["barred_until_ms"]
    free = await stranger.socket(platform.a.ws_url)
    await free.send({"type": "queue_join", "partner": people[2].player_id})
    assert (await free.of_type("error"))["code"] == "partner_unavailable"
    for s in [*socks, free]:
        await s.close()


async def test_reports_past_the_limit_are_refused_and_the_command_line_decides(
        platform: Platform, ratings: Service, nc: Client, nats_prefix: str,
        database_url: str) -> None:
    opened, people, socks = await rated_match(platform, nc, nats_prefix, "fpr")
    who = await registered(platform.a.url, f"fpl{uuid.uuid4().hex[:8]}")
    answers = [(await who.call("POST", f"/v1/games/{opened.game_id}/report", {}))[0]
               for _ in range(11)]
    assert answers == [202] * 10 + [429]
    # The case those reports opened, cleared from the command line.
    listed = await spades(database_url, "list", "--status", "open")
    line = next(x for x in listed.stdout.splitlines() if people[0].player_id in x)
    case_id = line.split("\t")[0]
    done = await spades(database_url, "decide", case_id, "cleared", "--note", "nothing there")
    assert done.returncode == 0, done.stderr
    shown = json.loads((await spades(database_url, "show", case_id)).stdout)
    assert shown["case"]["status"] == "cleared"
    last = shown["events"][-1]
    assert (last["type"], last["decision"], last["note"]) == (
        "decided", "cleared", "nothing there")
    assert last["by"].startswith("cli:") and shown["events"][1]["by"] == who.player_id
    # Cleared: no bar (the queue's next check is the game they are still playing).
    await socks[0].send({"type": "queue_join"})
    assert (await socks[0].of_type("error"))["code"] == "in_game"
    for s in socks:
        await s.close()
