"""The WebSocket gateway's handshake and framing, against a real lobby process.

These need no game: every frame below is refused or answered by the gateway itself.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator

import jwt
import pytest
import websockets
from websockets.asyncio.client import connect

from tests.services.lobby.harness import SECRET, Player, Service, Socket


@pytest.fixture
async def ada(lobby: Service) -> AsyncIterator[Player]:
    p = await Player.guest(lobby.url, "Ada")
    yield p
    await p.aclose()


async def refused(url: str, origin: str | None = None) -> int:
    with pytest.raises(websockets.InvalidStatus) as info:
        async with connect(url, origin=origin):  # type: ignore[arg-type]
            pass
    return info.value.response.status_code


async def test_the_handshake_needs_a_valid_token(lobby: Service) -> None:
    assert await refused(lobby.ws_url) == 403
    assert await refused(f"{lobby.ws_url}?token=not-a-token") == 403
    expired = jwt.encode({"sub": "x", "iat": 0, "exp": int(time.time()) - 1}, SECRET,
                         algorithm="HS256")
    assert await refused(f"{lobby.ws_url}?token={expired}") == 403


async def test_the_handshake_checks_the_origin(lobby: Service, ada: Player) -> None:
    url = f"{lobby.ws_url}?token={ada.token}"
    assert await refused(url, origin="https://evil.example") == 403
    for origin in ("https://spades.example", lobby.url, None):  # allowlisted, own, no browser
        sock = await ada.socket(lobby.ws_url, origin=origin)
        await sock.close()


async def test_ping_is_answered(lobby: Service, ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    await sock.send({"type": "ping", "nonce": "n1"})
    pong = await sock.of_type("pong")
    assert pong["nonce"] == "n1" and pong["at"] > 0
    await sock.close()


BAD_FRAMES: list[tuple[str | bytes, str]] = [
    ("not json at all", "bad_json"),
    ("[1, 2, 3]", "bad_frame"),
    ('"just a string"', "bad_frame"),
    ('{"no_type": 1}', "unknown_type"),
    ('{"type": "teleport"}', "unknown_type"),
    ('{"type": "bid", "command_id": "x", "game_id": "g", "seat": "one", "bid": 3}', "bad_field"),
    ('{"type": "bid", "command_id": "x", "game_id": "g", "seat": 1, "bid": 14}', "bad_field"),
    ('{"type": "ping", "nonce": "a", "extra": 1}', "bad_field"),
    ('{"type": "play", "command_id": "x", "game_id": "g", "seat": 1}', "bad_field"),
    (b"\x00\x01binary", "bad_frame"),
    ('{"type": "ping", "nonce": "' + "x" * 5000 + '"}', "frame_too_large"),
    ('{"type": "bid", "command_id": "x", "game_id": "g", "seat": 1, "bid": 3}', "not_in_game"),
    ('{"type": "chat", "game_id": "g", "text": "hi"}', "not_in_game"),
    ('{"type": "snapshot", "game_id": "g"}', "not_in_game"),
    ('{"type": "subscribe", "game_id": "nope"}', "game_not_found"),
    ('{"type": "subscribe", "table_id": "nope"}', "table_not_found"),
    ('{"type": "subscribe"}', "bad_field"),
]


async def test_every_bad_frame_gets_a_typed_error_and_the_socket_stays_usable(
        lobby: Service, ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    for i, (frame, code) in enumerate(BAD_FRAMES):
        await sock.send(frame)
        err = await sock.of_type("error")
        assert err["code"] == code, (frame, err)
        await sock.send({"type": "ping", "nonce": str(i)})
        assert (await sock.of_type("pong"))["nonce"] == str(i)
        await asyncio.sleep(0.1)  # stay under the test lobby's rate limit
    await sock.close()


async def test_a_command_error_names_its_command_id(lobby: Service, ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    await sock.send({"type": "look", "command_id": "mine-1", "game_id": "g", "seat": 0})
    err = await sock.of_type("error")
    assert (err["code"], err["command_id"]) == ("not_in_game", "mine-1")
    await sock.close()


async def test_a_flooding_client_is_rate_limited_and_told_so(lobby: Service,
                                                            ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    for i in range(60):
        await sock.send({"type": "ping", "nonce": str(i)})
    frames = []
    with pytest.raises(TimeoutError):
        while True:
            frames.append(await sock.recv(timeout=1.0))
    pongs = [f for f in frames if f["type"] == "pong"]
    limited = [f for f in frames if f["type"] == "error" and f["code"] == "rate_limited"]
    assert 20 <= len(pongs) < 60 and len(limited) == 1
    await asyncio.sleep(1.0)
    await sock.send({"type": "ping", "nonce": "after"})
    assert (await sock.of_type("pong"))["nonce"] == "after"
    await sock.close()


async def test_each_command_the_rate_limit_drops_is_named_by_its_id(lobby: Service,
                                                                    ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    ids = [f"flood-{i}" for i in range(60)]
    for command_id in ids:
        await sock.send({"type": "play", "command_id": command_id, "game_id": "nogame",
                         "seat": 0, "card": "AS"})
    frames = []
    with pytest.raises(TimeoutError):
        while True:
            frames.append(await sock.recv(timeout=1.0))
    answers = [(f["command_id"], f["code"]) for f in frames if f["type"] == "error"]
    # Every command gets one answer naming it: dropped, or refused for its own reason.
    assert sorted(c for c, _ in answers) == sorted(ids)
    dropped = [c for c, code in answers if code == "rate_limited"]
    assert 0 < len(dropped) <= 40 and {code for _, code in answers} == {"rate_limited",
                                                                        "not_in_game"}
    await sock.close()


async def test_sockets_per_player_are_capped(lobby: Service, ada: Player) -> None:
    first, second = await ada.socket(lobby.ws_url), await ada.socket(lobby.ws_url)
    conn = await connect(f"{lobby.ws_url}?token={ada.token}")
    third = Socket(conn)
    err = await third.recv()
    assert err["type"] == "error" and err["code"] == "too_many_sockets"
    with pytest.raises(websockets.ConnectionClosed):
        await third.recv()
    assert conn.close_code == 4429
    await first.close()
    await asyncio.sleep(0.2)
    again = await ada.socket(lobby.ws_url)
    await again.close()
    await second.close()


async def test_an_expired_token_closes_the_socket(lobby: Service, ada: Player) -> None:
    short = jwt.encode({"sub": ada.player_id, "name": "Ada", "iat": int(time.time()),
                        "exp": int(time.time()) + 2}, SECRET, algorithm="HS256")
    conn = await connect(f"{lobby.ws_url}?token={short}")
    sock = Socket(conn)
    assert (await sock.recv())["type"] == "welcome"
    err = await sock.of_type("error", timeout=5)
    assert err["code"] == "token_expired"
    with pytest.raises(websockets.ConnectionClosed):
        await sock.recv(timeout=5)
    assert conn.close_code == 4401


async def test_table_watchers_see_tables_open_and_fill(lobby: Service, ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    await sock.send({"type": "watch_tables"})
    await sock.of_type("table_list")
    t = await ada.ok("POST", "/v1/tables", {"rules": "beginner"})
    listed = await sock.until(lambda f: f["type"] == "table_list" and any(
        x["table_id"] == t["table_id"] for x in f["tables"]))
    assert next(x for x in listed["tables"]
                if x["table_id"] == t["table_id"])["free_seats"] == [1, 2, 3]
    await ada.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"seat": 1})
    await sock.until(lambda f: f["type"] == "table_list" and any(
        x["table_id"] == t["table_id"] and x["free_seats"] == [2, 3] for x in f["tables"]))
    await sock.close()


async def test_a_follower_of_an_open_table_sees_its_changes(lobby: Service,
                                                           ada: Player) -> None:
    t = await ada.ok("POST", "/v1/tables", {"rules": "house", "private": True})
    sock = await ada.socket(lobby.ws_url)
    await sock.send({"type": "subscribe", "table_id": t["table_id"]})
    first = await sock.of_type("table")
    assert first["table"]["code"] == t["code"]
    guest = await Player.guest(lobby.url, "Guest")
    await guest.ok("POST", "/v1/tables/join", {"code": t["code"]})
    seen = await sock.until(lambda f: f["type"] == "table" and
                            f["table"]["seats"][1]["player_id"] == guest.player_id)
    assert seen["table"]["state"] == "open"
    await guest.aclose()
    await sock.close()


async def test_frames_are_json_objects_with_a_type(lobby: Service, ada: Player) -> None:
    sock = await ada.socket(lobby.ws_url)
    await sock.send(json.dumps({"type": "ping"}))
    assert (await sock.of_type("pong"))["nonce"] == ""
    await sock.send({"type": "subscribe", "game_id": uuid.uuid4().hex, "since": -1})
    assert (await sock.of_type("error"))["code"] == "bad_field"
    await sock.close()
