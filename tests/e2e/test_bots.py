"""Full matches against bots under every preset, through the whole platform."""

from __future__ import annotations

import pytest

from engine.presets import PRESETS
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.services.lobby.harness import Player


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_a_person_plays_a_whole_match_against_three_bots(platform: Platform,
                                                              preset: str) -> None:
    rules = preset if preset != "house" else {"preset": "house", "target": 150}
    ada = await Player.guest(platform.a.url, "Ada")
    t = await ada.ok("POST", "/v1/tables", {"rules": rules, "private": preset == "house"})
    t = await ada.ok("POST", f"/v1/tables/{t['table_id']}/start")
    assert t["state"] == "playing" and [s["bot"] for s in t["seats"]][1:] == ["basic"] * 3
    seat = Seat(ada, await ada.socket(platform.a.ws_url), t["game_id"])
    await seat.subscribe()
    await play_until_over([seat])
    summary = await ada.ok("GET", f"/v1/games/{t['game_id']}")
    assert summary["state"] == "over" and summary["scores"] == seat.ended["scores"]  # type: ignore[index]
    await seat.sock.close()
    await ada.aclose()
