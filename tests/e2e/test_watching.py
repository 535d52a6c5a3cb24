"""Watching a private table's game: its own people and whoever has its room code may;
a stranger without the code may not follow it nor read its summary; and a spectator
sees what a spectator may, never a hand."""

from __future__ import annotations

import msgspec
import pytest

from spades_client import ApiFailure, CommandRejected, GameConnection, Lobby
from tests.e2e.conftest import Platform
from tests.e2e.truth import leaks, stored_events, stored_states
from tests.services.lobby.harness import Player

FOUR_BOTS = {"preset": "house", "max_hands": 2}


async def _private_bot_game(host: Player) -> dict[str, object]:
    """A private table of four bots (the host does not sit), started."""
    t = await host.ok("POST", "/v1/tables", {"rules": FOUR_BOTS, "private": True,
                                              "seat": None})
    await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
    return await host.ok("POST", f"/v1/tables/{t['table_id']}/start")


async def test_a_stranger_without_the_room_code_cannot_follow_a_private_game(
        platform: Platform) -> None:
    host = await Player.guest(platform.a.url, "Host")
    eve = await Player.guest(platform.b.url, "Eve")
    try:
        t = await _private_bot_game(host)
        game_id, table_id = t["game_id"], t["table_id"]
        sock = await eve.socket(platform.b.ws_url)
        for by in ({"game_id": game_id}, {"game_id": game_id, "code": "WRONG2"},
                   {"table_id": table_id}, {"game_id": game_id, "code": ""}):
            await sock.send({"type": "subscribe", "spectate": True, **by})
            err = await sock.until(lambda f: f["type"] in ("error", "subscribed", "snapshot"))
            assert (err["type"], err.get("code")) == ("error", "room_code_required"), by
        for query in ("", "?code=WRONG2"):
            status, body = await eve.call("GET", f"/v1/games/{game_id}{query}")
            assert (status, body["code"]) == (403, "room_code_required")
        # The host (not seated) needs no code.
        assert (await host.ok("GET", f"/v1/games/{game_id}"))["table_id"] == table_id
        hosts = await host.socket(platform.a.ws_url)
        await hosts.send({"type": "subscribe", "game_id": game_id, "spectate": True})
        assert (await hosts.of_type("subscribed"))["seat"] is None
    finally:
        await host.aclose()
        await eve.aclose()


async def test_the_room_code_finds_the_game_and_its_spectator_sees_no_hand(
        platform: Platform, database_url: str) -> None:
    host = await Player.guest(platform.a.url, "Host")
    watcher = Lobby(platform.b.url)
    try:
        t = await _private_bot_game(host)
        code = str(t["code"])
        await watcher.guest("Watcher")
        found = await watcher.watch_by_code(code.lower())
        assert (found.table_id, found.game_id) == (t["table_id"], t["game_id"])
        assert found.code is None  # a spectator is not at the table
        assert (await watcher.game(str(found.game_id), code)).table_id == t["table_id"]
        game = GameConnection(watcher.ws_url, watcher.token, str(found.game_id),
                              spectate=True, code=code)
        subscribed = await game.open()
        assert subscribed.seat is None and game.view is not None
        assert game.view.seat is None and game.view.hand is None
        frames = [{"type": "snapshot", "version": game.version,
                   "view": msgspec.to_builtins(game.view)}]
        while game.ended is None:
            await game.next()
        await game.close()
        frames += [msgspec.to_builtins(f) for f in game.events]
        assert len(frames) > 50  # a whole game was followed
        events = await stored_events(database_url, str(found.game_id))
        states = await stored_states(database_url, str(found.game_id))
        assert leaks(frames, None, states, events) == []
    finally:
        await host.aclose()
        await watcher.aclose()


async def test_watching_by_code_refuses_an_unknown_code_and_a_table_not_started(
        platform: Platform) -> None:
    host = await Player.guest(platform.a.url, "Host")
    watcher = Lobby(platform.b.url)
    try:
        await watcher.guest("Watcher")
        t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
        with pytest.raises(ApiFailure) as refused:
            await watcher.watch_by_code(t["code"])
        assert (refused.value.status, refused.value.code) == (409, "table_not_started")
        with pytest.raises(ApiFailure) as unknown:
            await watcher.watch_by_code("ZZZZ99")
        assert (unknown.value.status, unknown.value.code) == (404, "table_not_found")
    finally:
        await host.aclose()
        await watcher.aclose()


async def test_a_public_game_is_anyones_to_watch_without_a_code(platform: Platform) -> None:
    host = await Player.guest(platform.a.url, "Host")
    watcher = Lobby(platform.b.url)
    try:
        t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
        await watcher.guest("Watcher")
        game = GameConnection(watcher.ws_url, watcher.token, t["game_id"], spectate=True)
        assert (await game.open()).seat is None
        await game.close()
        assert (await watcher.game(t["game_id"])).table_id == t["table_id"]
        private = await _private_bot_game(host)
        stranger = GameConnection(watcher.ws_url, watcher.token, str(private["game_id"]),
                                  spectate=True)
        with pytest.raises(CommandRejected) as refused:
            await stranger.open()
        assert refused.value.error.code == "room_code_required"
        await stranger.close()
    finally:
        await host.aclose()
        await watcher.aclose()


async def test_a_stranger_refused_by_table_hears_nothing_of_the_tables_changes(
        platform: Platform) -> None:
    """A subscribe by ``table_id`` that is refused leaves the socket off the table's
    changes: the game's end reaches the host's socket on the same gateway, not Eve's."""
    host = await Player.guest(platform.a.url, "Host")
    eve = await Player.guest(platform.b.url, "Eve")
    try:
        t = await _private_bot_game(host)
        sock = await eve.socket(platform.b.ws_url)
        await sock.send({"type": "subscribe", "spectate": True, "table_id": t["table_id"]})
        err = await sock.until(lambda f: f["type"] in ("error", "subscribed", "snapshot"))
        assert (err["type"], err.get("code")) == ("error", "room_code_required")
        hosts = await host.socket(platform.b.ws_url)  # the same gateway as Eve's
        await hosts.send({"type": "subscribe", "spectate": True, "table_id": t["table_id"]})
        await hosts.of_type("subscribed")
        await hosts.until(lambda f: f["type"] == "table" and f["table"]["state"] == "over",
                          timeout=120)
        # What the gateway sent Eve before this pong, it sent her by now.
        await sock.send({"type": "ping", "nonce": "after"})
        await sock.until(lambda f: f["type"] == "pong")
        assert [f for f in sock.frames if f["type"] == "table"] == []
    finally:
        await host.aclose()
        await eve.aclose()
