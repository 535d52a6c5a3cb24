"""Operators' HTTP routes on a finished all-bot game: the role is checked, and the log,
states, views, verdict and search agree with the engine over the stored events."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from msgspec.structs import replace

from engine.evolve import evolve
from engine.replay import verify
from engine.state import GameState
from engine.views import operator_view, redact, view
from schemas.events import GameEvent, HandScored
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.replay import read_log
from tests.bench.replay_bench import bot_game
from tests.e2e.conftest import Platform
from tests.e2e.replays import Finished, finished_game, grant, operator, registered
from tests.e2e.truth import stored_events
from tests.services.lobby.harness import Player

_json = msgspec.json.Encoder()
OLD_LOG = Path(__file__).parents[1] / "services" / "data" / "quick-game-v1.jsonl"


def plain(value: Any) -> Any:
    return msgspec.json.decode(_json.encode(value))


@pytest.fixture(scope="module")
async def op(platform: Platform, database_url: str) -> Player:
    return await operator(platform, database_url, "Olga Operator")


@pytest.fixture(scope="module")
async def game(platform: Platform, op: Player) -> Finished:
    return await finished_game(platform, op)


async def test_operator_routes_need_a_token(platform: Platform, game: Finished) -> None:
    anon = Player(platform.a.url, "", "", "", httpx.AsyncClient(base_url=platform.a.url,
                                                                timeout=10))
    for path in ("/v1/admin/games", f"/v1/admin/games/{game.game_id}/events",
                 f"/v1/admin/games/{game.game_id}/state?at=3",
                 f"/v1/admin/games/{game.game_id}/verification"):
        status, body = await anon.call("GET", path)
        assert status == 401 and body["code"] == "unauthenticated", (path, body)
    await anon.aclose()


async def test_a_player_gets_403_on_every_operator_route(platform: Platform,
                                                         game: Finished) -> None:
    for path in ("/v1/admin/games", f"/v1/admin/games/{game.game_id}/events",
                 f"/v1/admin/games/{game.game_id}/state?at=3&seat=0",
                 f"/v1/admin/games/{game.game_id}/verification"):
        status, body = await game.host.call("GET", path)
        assert status == 403 and body["code"] == "operators_only", (path, body)


async def test_a_revoked_operator_is_refused_at_once_even_with_its_old_token(
        platform: Platform, database_url: str) -> None:
    former = await operator(platform, database_url, "Former Operator")
    assert (await former.call("GET", "/v1/admin/games"))[0] == 200
    assert grant(database_url, "Former Operator", "revoke").returncode == 0
    status, body = await former.call("GET", "/v1/admin/games")
    assert status == 403 and body["code"] == "operators_only"
    await former.aclose()


async def test_only_a_registered_name_can_be_made_an_operator(platform: Platform,
                                                              database_url: str) -> None:
    guest = await Player.guest(platform.a.url, "Guest Gus")
    done = grant(database_url, "Guest Gus")
    assert done.returncode == 1 and "no registered account" in done.stderr
    await guest.aclose()
    plain_player = await registered(platform.a.url, "Plain Pat")
    status, _ = await plain_player.call("GET", "/v1/admin/games")
    assert status == 403
    await plain_player.aclose()


async def test_the_event_log_is_the_stored_log_with_versions(
        op: Player, game: Finished, database_url: str) -> None:
    stored = await stored_events(database_url, game.game_id)
    log = await op.ok("GET", f"/v1/admin/games/{game.game_id}/events")
    assert log["version"] == len(stored) and log["over"] is True
    assert [e["version"] for e in log["events"]] == list(range(1, len(stored) + 1))
    assert [e["event"] for e in log["events"]] == plain(stored)
    assert log["events"][-1]["event"]["type"] == "GameEnded"


async def test_the_state_and_a_seats_view_at_event_n_are_the_engines(
        op: Player, game: Finished, database_url: str) -> None:
    stored = await stored_events(database_url, game.game_id)
    states = [GameState()]
    for e in stored:
        states.append(evolve(states[-1], e))
    for at in (0, 1, 7, len(stored) // 2, len(stored)):
        got = await op.ok("GET", f"/v1/admin/games/{game.game_id}/state?at={at}")
        assert got["at"] == at and got["version"] == len(stored)
        assert got["state"] == plain(operator_view(states[at])), at
        assert got["event"] == (None if at == 0 else {
            **got["event"], "version": at, "event": plain(stored[at - 1])})
        seat = await op.ok("GET", f"/v1/admin/games/{game.game_id}/state?at={at}&seat=2")
        assert seat["view"] == plain(view(states[at], 2)) and seat["state"] is None, at
        sent = redact(stored[at - 1], states[at], 2) if at else None
        assert (seat["event"] and seat["event"]["event"]) == plain(sent), at
    last = await op.ok("GET", f"/v1/admin/games/{game.game_id}/state")
    assert last["at"] == len(stored) and last["state"]["table"]["phase"] == "over"
    status, body = await op.call("GET", f"/v1/admin/games/{game.game_id}/state?at=100000")
    assert status == 400 and body["code"] == "event_out_of_range"
    status, body = await op.call("GET", "/v1/admin/games/no-such-game/state?at=1")
    assert status == 404 and body["code"] == "game_not_found"


async def test_the_verdict_is_the_engines(op: Player, game: Finished,
                                          database_url: str) -> None:
    stored = await stored_events(database_url, game.game_id)
    assert verify(stored) is None
    got = await op.ok("GET", f"/v1/admin/games/{game.game_id}/verification")
    assert got == {"game_id": game.game_id, "events": len(stored), "verified": True,
                   "divergence": None}


async def test_a_tampered_log_shows_its_first_divergence(op: Player,
                                                         database_url: str) -> None:
    """A hand's score written wrong: the engine scores it otherwise, and says where."""
    events = bot_game(7, hands=1)
    i = next(k for k, e in enumerate(events) if isinstance(e, HandScored))
    scored = events[i]
    assert isinstance(scored, HandScored)
    team = scored.teams[0]
    wrong = replace(team, delta=team.delta + 10, score_after=team.score_after + 10)
    events[i] = replace(scored, teams=(wrong, scored.teams[1]))
    expected = verify(events)
    assert expected is not None and expected.index == i
    game_id = f"tampered-{uuid.uuid4().hex}"
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1,
                                     server_settings={"search_path": "game,public"})
    assert pool is not None
    try:
        await EventStore(pool, game_registry()).append(game_id, 0, events, "test:tampered")
    finally:
        await pool.close()
    got = await op.ok("GET", f"/v1/admin/games/{game_id}/verification")
    assert got["verified"] is False and got["events"] == len(events)
    assert got["divergence"] == plain(expected)
    assert got["divergence"]["stored"][0] == plain(events[i])
    assert got["divergence"]["produced"][0] == plain(scored)


async def test_a_log_stored_with_an_older_event_version_is_served_upcast(
        op: Player, database_url: str) -> None:
    """The stored bodies stay as written (HandScored v1); operators get today's shape."""
    rows = [json.loads(line) for line in OLD_LOG.read_text().splitlines()]
    assert any(r["event"]["type"] == "HandScored" and r["schema_version"] == 1 for r in rows)
    game_id = f"old-{uuid.uuid4().hex}"
    conn = await asyncpg.connect(database_url, server_settings={"search_path": "game,public"})
    try:
        await conn.fetchrow(
            "SELECT * FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            game_id, 0, "test:old", None, [r["event"]["type"] for r in rows],
            [r["schema_version"] for r in rows], [uuid.uuid4() for _ in rows],
            [msgspec.msgpack.encode(r["event"]) for r in rows], datetime.now(UTC), None,
            "test:old", None)
    finally:
        await conn.close()
    events = read_log(OLD_LOG.read_bytes().splitlines())  # upcast the same way, by file
    log = await op.ok("GET", f"/v1/admin/games/{game_id}/events")
    assert [e["event"] for e in log["events"]] == plain(events)
    assert {e["schema_version"] for e in log["events"]
            if e["event"]["type"] == "HandScored"} == {HandScored.VERSION}
    state = GameState()
    for e in events:
        state = evolve(state, e)
    got = await op.ok("GET", f"/v1/admin/games/{game_id}/state")
    assert got["state"] == plain(operator_view(state))
    assert (await op.ok("GET", f"/v1/admin/games/{game_id}/verification"))["verified"] is True


async def test_games_are_found_by_player_table_time_and_outcome(
        op: Player, game: Finished, database_url: str) -> None:
    stored: list[GameEvent] = await stored_events(database_url, game.game_id)
    ended = stored[-1]
    ids = lambda body: [g["game_id"] for g in body["games"]]  # noqa: E731
    by_table = await op.ok("GET", f"/v1/admin/games?table={game.table_id}")
    assert ids(by_table) == [game.game_id]
    found = by_table["games"][0]
    assert found["players"] == ["bot:basic"] * 4
    assert found["scores"] == list(ended.scores)  # type: ignore[union-attr]
    assert found["winner"] == ended.winner and found["reason"] == ended.reason  # type: ignore[union-attr]
    # A quick match is four hands, and a tie plays on (sudden death): as the game says.
    assert found["hands_played"] == ended.hands_played >= 4  # type: ignore[union-attr]
    assert found["names"] == [f"Bot {i}" for i in range(1, 5)]
    assert found["started_at_ms"] <= found["ended_at_ms"]
    assert game.game_id in ids(await op.ok("GET", "/v1/admin/games?player=Bot%203&limit=500"))
    assert game.game_id in ids(await op.ok("GET", "/v1/admin/games?player=bot:basic&limit=500"))
    assert ids(await op.ok("GET", f"/v1/admin/games?player={game.host.player_id}")) == []
    start = found["started_at_ms"]
    assert game.game_id in ids(await op.ok(
        "GET", f"/v1/admin/games?started_after={start}&started_before={start + 1}"))
    assert ids(await op.ok("GET", f"/v1/admin/games?started_after={start + 1}"
                                  f"&table={game.table_id}")) == []
    outcome = "draw" if ended.winner is None else f"team{ended.winner}"  # type: ignore[union-attr]
    assert ids(await op.ok("GET", f"/v1/admin/games?table={game.table_id}"
                                  f"&outcome={outcome}")) == [game.game_id]
    assert ids(await op.ok("GET", f"/v1/admin/games?table={game.table_id}&outcome=over")) \
        == [game.game_id]
    assert ids(await op.ok("GET", f"/v1/admin/games?table={game.table_id}"
                                  f"&outcome=playing")) == []
    status, body = await op.call("GET", "/v1/admin/games?outcome=sideways")
    assert status == 400 and body["code"] == "bad_outcome"


async def test_the_operator_routes_are_in_the_openapi_document(op: Player) -> None:
    schema = await op.ok("GET", "/schema/openapi.json")
    for path in ("/v1/admin/games", "/v1/admin/games/{game_id}/events",
                 "/v1/admin/games/{game_id}/state", "/v1/admin/games/{game_id}/verification"):
        assert path in schema["paths"], path
