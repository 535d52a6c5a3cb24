"""The tournaments page as an organizer meets it, in headless Chromium: create a
tournament, add bot teams, edit it, start it. A player's side, from a new account to the
champion, is test_web_tournament_journey.py."""

from __future__ import annotations

from playwright.async_api import Page

from tests.e2e.browser import chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_tournament_run import copy
from tests.services.lobby.test_tournaments import PASSWORD, organizer


async def signed_in(page: Page, base: str, name: str) -> None:
    """The tournaments page, signed in with a registered account's name and password."""
    await page.goto(f"{base}/tournaments")
    await page.fill("#login-name", name)
    await page.fill("#login-password", PASSWORD)
    await page.click("#login-go")


async def test_an_organizer_creates_and_edits_a_tournament_on_the_page(
        platform: Platform, platform_env: dict[str, str], database_url: str) -> None:
    scheduler = copy(platform, platform_env, "web-org")
    problems: list[str] = []
    try:
        org = await organizer(platform.a, database_url)
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await signed_in(page, platform.a.url, org.name)
            await page.wait_for_selector("#list:not([hidden])")
            await page.fill("#create-name", "Sunday cup")
            await page.select_option("#create-format", "swiss")
            await page.select_option("#create-rules", "classic")
            await page.fill("#create-min", "2")
            await page.click("#create-go")
            await page.wait_for_selector("#detail:not([hidden]) #edit-form:not([hidden])")
            # Two bot teams, then the start at once: the organizer's controls.
            for name in ("Robots", "Droids"):
                await page.fill("#bot-name", name)
                await page.click("#add-bots")
                await page.wait_for_selector(f"#teams td:text-is('{name}')")
            assert await page.text_content("#t-name") == "Sunday cup"
            assert await page.input_value("#edit-max") == "16"
            await page.fill("#edit-name", "Sunday night cup")
            await page.fill("#edit-max", "8")
            await page.click("#edit-go")
            await page.wait_for_selector("#t-name:has-text('Sunday night cup')")
            await shot(page, "tournament-organizer")
            tid = page.url.rsplit("#", 1)[1]
            await page.click("#start-now")
            await page.wait_for_selector("#detail[data-status='running']", timeout=20_000)
            await page.wait_for_selector("#bracket .round h3", timeout=20_000)
            assert await page.is_hidden("#start-now")
            heads = await page.locator("#standings th").all_text_contents()
            assert "Buchholz" in heads and "Reached" not in heads, heads  # Swiss's columns
            await shot(page, "tournament-started")
        view = await org.ok("GET", f"/v1/tournaments/{tid}")
    finally:
        scheduler.stop()
    assert view["summary"]["name"] == "Sunday night cup"
    assert view["settings"]["max_teams"] == 8 and view["settings"]["format"]["kind"] == "swiss"
    assert view["settings"]["rules"]["preset"] == "classic"
    assert view["settings"]["rated"] is False and len(view["teams"]) == 2
    assert not problems, problems
