"""Full matches against bots under every preset, through the whole platform."""

from __future__ import annotations

import asyncio

from engine.presets import PRESETS
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.services.lobby.harness import Player


async def a_match(platform: Platform, preset: str) -> None:
    rules = preset if preset != "house" else {"preset": "house", "target": 150}
    ada = await Player.guest(platform.a.url, f"Ada {preset}")
    t = await ada.ok("POST", "/v1/tables", {"rules": rules, "private": preset == "house"})
    t = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
    assert t["state"] == "playing" and [s["bot"] for s in t["seats"]][1:] == ["basic"] * 3
    seat = Seat(ada, await ada.socket(platform.a.ws_url), t["game_id"])
    await seat.subscribe()
    await play_until_over([seat])
    summary = await ada.ok("GET", f"/v1/games/{t['game_id']}")
    assert summary["state"] == "over", preset
    assert summary["scores"] == seat.ended["scores"], preset  # type: ignore[index]
    assert summary["rules"]["preset"] == preset
    await seat.sock.close()
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
