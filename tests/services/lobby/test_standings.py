"""Ratings through the lobby: the leaderboard, a player's page and history, with names."""

from __future__ import annotations

import asyncio
import time
import uuid

import httpx
import msgspec

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.subjects import Names
from services.platform import connection
from services.platform.events import game_registry
from tests.services.lobby.harness import Player, Service


async def _end_rated_game(nats_url: str, prefix: str, game: str,
                          players: tuple[str, str, str, str], winner: int) -> None:
    """What the game service's outbox would publish when a rated game ends."""
    encoded = game_registry().encode(GameEnded(
        winner=winner, reason="target", scores=(500, 200), bags=(0, 0), hands_played=6,
        players=players, rated=True))
    env = EventEnvelope(stream=game, version=1, position=1, type=encoded.type,
                        schema_version=encoded.schema_version, event_id=game,
                        occurred_at_ms=int(time.time() * 1000), correlation_id=None,
                        causation_id=None, body=encoded.body)
    nc = await connection.connect(nats_url, "test")
    try:
        await nc.jetstream().publish(Names(prefix).game_event(game, "GameEnded"),
                                     msgspec.msgpack.encode(env))
    finally:
        await nc.close()


async def _until(check: object, timeout: float = 20) -> None:
    async with asyncio.timeout(timeout):
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.2)


async def test_a_rated_game_shows_on_pages_history_and_the_board_with_names(
        lobby: Service, ratings: Service, nats_url: str, lobby_prefix: str) -> None:
    ada, ben, cy, di = [await Player.guest(lobby.url, n) for n in ("Ada", "Ben", "Cy", "Di")]
    seats = (ada.player_id, ben.player_id, cy.player_id, di.player_id)
    sock = await ada.socket(lobby.ws_url)
    game = f"std-{ada.player_id[:8]}"
    await _end_rated_game(nats_url, lobby_prefix, game, seats, winner=0)
    note = await sock.until(lambda f: f["type"] == "note"
                            and f["note"]["kind"] == "rating_changed", timeout=20)
    assert note["note"] == {"kind": "rating_changed", "game_id": game, "rating_before": 1500,
                            "rating_after": 1520}
    await sock.close()

    async def rated() -> bool:
        page = await ada.ok("GET", f"/v1/players/{ada.player_id}")
        return page["ranked"] is not None and page["ranked"]["games"] == 1

    await _until(rated)
    page = await ben.ok("GET", f"/v1/players/{ada.player_id}")
    ranked = page.pop("ranked")
    assert page == {"player_id": ada.player_id, "name": "Ada"}
    assert ranked.pop("last_game_at_ms") > 0
    assert ranked == {"player_id": ada.player_id, "rating": 1520, "rank": None, "games": 1,
                      "wins": 1, "losses": 0, "draws": 0, "left": 0, "provisional": True,
                      "peak": 1520}

    history = await ada.ok("GET", f"/v1/players/{ben.player_id}/ratings")
    (entry,) = history["entries"]
    assert (entry["delta"], entry["k"], entry["result"]) == (-20, 40, "loss")
    assert entry["partner"] == {"player_id": di.player_id, "name": "Di"}
    assert {o["name"] for o in entry["opponents"]} == {"Cy", "Ada"}
    assert history["next"] is None

    async def listed() -> bool:
        board = await ada.ok("GET", f"/v1/leaderboard?provisional=true&around={ada.player_id}")
        return ada.player_id in [e["player_id"] for e in board["entries"]]

    await _until(listed)
    board = await ada.ok("GET", f"/v1/leaderboard?provisional=true&around={ada.player_id}")
    mine = next(e for e in board["entries"] if e["player_id"] == ada.player_id)
    assert (mine["name"], mine["rating"], mine["provisional"]) == ("Ada", 1520, True)
    established = await ada.ok("GET", "/v1/leaderboard")
    assert ada.player_id not in [e["player_id"] for e in established["entries"]]
    for p in (ada, ben, cy, di):
        await p.aclose()


async def test_bad_leaderboard_and_history_queries_are_typed_400s(
        lobby: Service, ratings: Service) -> None:
    ada = await Player.guest(lobby.url, "Ada")
    for path in ("/v1/leaderboard?limit=0", "/v1/leaderboard?limit=201",
                 "/v1/leaderboard?offset=-1", "/v1/leaderboard?around=bad%20id",
                 f"/v1/players/{ada.player_id}/ratings?limit=101",
                 f"/v1/players/{ada.player_id}/ratings?before=0"):
        status, body = await ada.call("GET", path)
        assert (status, body["code"]) == (400, "bad_request"), path
    status, body = await ada.call("GET", "/v1/players/00000000-0000-0000-0000-000000000000"
                                         "/ratings")
    assert (status, body["code"]) == (404, "player_not_found")
    await ada.aclose()


async def test_without_the_ratings_service_the_board_is_a_503_and_a_page_keeps_its_name(
        lobby: Service) -> None:
    ada = await Player.guest(lobby.url, "Ada")
    status, body = await ada.call("GET", "/v1/leaderboard")
    assert (status, body["code"]) == (503, "ratings_unavailable")
    assert await ada.ok("GET", f"/v1/players/{ada.player_id}") == {
        "player_id": ada.player_id, "name": "Ada", "ranked": None}
    await ada.aclose()


async def test_a_registered_name_finds_its_player_and_a_guest_name_finds_nobody(
        lobby: Service) -> None:
    """How a person names a partner: by the name they know, in any case."""
    tag = uuid.uuid4().hex[:6]
    http = httpx.AsyncClient(base_url=lobby.url, timeout=10)
    r = await http.post("/v1/auth/register", json={"name": f"Partner{tag}",
                                                   "password": "correct horse battery"})
    assert r.status_code == 201, r.text
    partner = r.json()
    await http.aclose()
    guest = await Player.guest(lobby.url, f"Guest{tag}")
    found = await guest.ok("GET", f"/v1/players?name=partner{tag.upper()}")
    assert found == {"player_id": partner["player_id"], "name": f"Partner{tag}"}
    for name, status, code in ((f"Guest{tag}", 404, "player_not_found"),
                               ("nobody-at-all", 404, "player_not_found"),
                               ("", 400, "bad_request"), ("x" * 33, 400, "bad_request")):
        got, body = await guest.call("GET", f"/v1/players?name={name}")
        assert (got, body["code"]) == (status, code), name
    await guest.aclose()
