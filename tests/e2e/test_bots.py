"""Full matches against bots under every preset, through the whole platform."""

from __future__ import annotations

import asyncio

from engine.presets import PRESETS
from spades_client import GameConnection, Lobby
from tests.e2e.conftest import Platform
from tests.e2e.players import play_typed
from tests.services.lobby.harness import Player


async def a_match(platform: Platform, preset: str) -> None:
    rules = preset if preset != "house" else {"preset": "house", "target": 150}
    ada = Lobby(platform.a.url)
    await ada.guest(f"Ada {preset}")
    t = await ada.create_table(rules, private=preset == "house")
    t = await ada.start(t.table_id)
    assert t.state == "playing" and [s.bot for s in t.seats][1:] == ["basic"] * 3
    assert t.game_id is not None
    game = GameConnection(ada.ws_url, ada.token, t.game_id)
    await game.open()
    await play_typed(game)
    summary = await ada.game(t.game_id)
    assert summary.state == "over", preset
    assert game.ended is not None and summary.scores == game.ended.scores, preset
    assert summary.rules["preset"] == preset
    await game.close()
    await ada.aclose()


async def test_a_person_plays_a_whole_match_against_three_bots_under_every_preset(
        platform: Platform) -> None:
    """All presets at once: several games in flight on the same workers and gateway."""
    await asyncio.gather(*(a_match(platform, preset) for preset in sorted(PRESETS)))


async def test_a_table_of_four_bots_plays_itself_out(platform: Platform) -> None:
    host = await Player.guest(platform.b.url, "Host")
    t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
    t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
    assert [s["bot"] for s in t["seats"]] == ["basic"] * 4
    sock = await host.socket(platform.b.ws_url)
    await sock.send({"type": "subscribe", "game_id": t["game_id"], "spectate": True})
    ended = await sock.until(lambda f: (f["type"] == "event" and f["event"]["type"] == "GameEnded")
                             or (f["type"] == "snapshot" and f["view"]["phase"] == "over"),
                             timeout=60)
    assert ended
    # The table closes right after the game's end reaches the sockets, not before it.
    for _ in range(50):
        table = await host.ok("GET", f"/v1/tables/{t['table_id']}")
        if table["state"] == "over":
            break
        await asyncio.sleep(0.1)
    assert table["state"] == "over"
    await sock.close()
    await host.aclose()
