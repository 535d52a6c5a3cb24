"""Reporting a game from the web client, in headless Chromium: a registered person
watching a ranked game reports it and is thanked; an unrated game, and reports past the
per-player limit, are refused in plain words. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import uuid

import httpx
from nats.aio.client import Client
from playwright.async_api import Page

from tests.e2e.browser import one_page, register, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_matches import ask, open_match, rated_match, ratings
from tests.services.lobby.harness import Service

__all__ = ["ratings"]  # the fixture: reports go to the ratings service's review queue


async def _report(page: Page, base: str, game_id: str, reason: str) -> str:
    """Open the game's page, report it with ``reason``: what the page answers."""
    await page.goto(f"{base}/#/games/{game_id}")
    await page.wait_for_function(f"S.game === {game_id!r}")
    await page.wait_for_selector("#game:not([hidden])")
    await page.click("#report")
    await page.fill("#report-reason", reason)
    await page.click("#report-send")
    said = page.locator("#report-said:not([hidden])")
    await said.wait_for()
    return (await said.text_content() or "").strip()


async def test_a_watched_ranked_game_is_reported_and_refusals_are_said_plainly(
        platform: Platform, ratings: Service, nc: Client, nats_prefix: str) -> None:
    opened, _, socks = await rated_match(platform, nc, nats_prefix, "wrep")
    casual = await open_match(nc, f"{nats_prefix}e2e", ask(f"wrep-{uuid.uuid4().hex[:6]}"))
    base = platform.a.url
    async with one_page("web-report") as page:
        await register(page, base, f"rae{uuid.uuid4().hex[:6]}", "correct horse battery")
        said = await _report(page, base, opened.game_id, "they never miss a nil")
        assert said == "Thank you: the fair-play reviewers will look at this game.", said
        assert await page.is_hidden("#report-box")
        await shot(page, "web-report")
        said = await _report(page, base, casual.game_id, "")
        assert said == "Fair play reviews ranked games only: this game was not rated.", said
        # Two reports counted of SPADES_REPORTS_PER_PLAYER (10 an hour): eight more over
        # the API with the page's own token, and the next one from the page is refused.
        token = await page.evaluate("S.token")
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for _ in range(8):
                r = await http.post(f"/v1/games/{opened.game_id}/report", json={},
                                    headers={"authorization": f"Bearer {token}"})
                assert r.status_code == 202, r.text
        await page.click("#report-send")
        await page.wait_for_function("document.querySelector('#report-said').textContent"
                                     ".includes('many reports')")
        assert await page.text_content("#report-said") == (
            "You have sent many reports lately: you may send more in an hour.")
        await shot(page, "web-report-limit")
    for s in socks:
        await s.close()
