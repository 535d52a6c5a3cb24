"""The tournaments page as an organizer meets it, in headless Chromium: create a
tournament, add bot teams, edit it, start it. A player's side, from a new account to the
champion, is test_web_tournament_journey.py."""

from __future__ import annotations

from playwright.async_api import Browser, Page

from tests.e2e.browser import chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_tournament_run import copy
from tests.services.lobby.harness import Service
from tests.services.lobby.test_tournaments import PASSWORD, organizer, registered


async def signed_in(page: Page, base: str, name: str) -> None:
    """The tournaments page, signed in with a registered account's name and password."""
    await page.goto(f"{base}/tournaments")
    await page.fill("#login-name", name)
    await page.fill("#login-password", PASSWORD)
    await page.click("#login-go")


async def organizing(browser: Browser, problems: list[str], base: str, name: str) -> Page:
    """The tournaments page as the organizer ``name`` first sees it: the list."""
    page = await new_page(browser, problems)
    await signed_in(page, base, name)
    await page.wait_for_selector("#list:not([hidden])")
    return page


async def test_an_organizer_creates_and_edits_a_tournament_on_the_page(
        platform: Platform, platform_env: dict[str, str], database_url: str) -> None:
    scheduler = copy(platform, platform_env, "web-org")
    problems: list[str] = []
    try:
        org = await organizer(platform.a, database_url)
        async with chromium() as browser:
            page = await organizing(browser, problems, platform.a.url, org.name)
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


async def test_an_organizer_is_told_before_a_start_drops_a_team_and_may_remove_one(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        ratings_beside: Service) -> None:
    """The form's defaults open the check-in at once (a team checks in straight away); team
    names are unique; "Start now" names the teams it would leave out and waits for a yes;
    the organizer removes a team by a second click that names it."""
    scheduler = copy(platform, platform_env, "web-org-flow")
    problems: list[str] = []
    ada, ben = await registered(platform.a.url, "ada"), await registered(platform.a.url, "ben")
    try:
        org = await organizer(platform.a, database_url)
        async with chromium() as browser:
            page = await organizing(browser, problems, platform.a.url, org.name)
            await page.fill("#create-name", "Open cup")
            await page.fill("#create-min", "2")
            await page.click("#create-go")  # every other field as the form offers it
            await page.wait_for_selector("#detail:not([hidden]) #edit-form:not([hidden])")
            tid = page.url.rsplit("#", 1)[1]
            for name in ("Robots", "Droids"):
                await page.fill("#bot-name", name)
                await page.click("#add-bots")
                await page.wait_for_selector(f"#teams td:text-is('{name}')")
            await page.fill("#bot-name", "robots")
            await page.click("#add-bots")
            await page.wait_for_selector("#status:has-text('another team here is called robots')")
            # A team of people registers and confirms; only one of them checks in.
            team = await ada.ok("POST", f"/v1/tournaments/{tid}/teams",
                                {"name": "Humans", "partner_name": ben.name})
            await ben.ok("POST", f"/v1/tournaments/{tid}/teams/{team['team_id']}/confirm")
            await ada.ok("POST", f"/v1/tournaments/{tid}/check-in")  # open from the creation
            await page.reload()
            await page.wait_for_selector("#teams td:text-is('Humans')")
            await page.click("#start-now")
            said = await page.text_content("#start-confirm-text") or ""
            assert said == ("Starting now leaves out 1 team(s) not checked in by both "
                            "players: Humans."), said
            await shot(page, "tournament-start-confirm")
            await page.click("#start-confirm-no")
            assert await page.is_hidden("#start-confirm")
            assert await page.get_attribute("#detail", "data-status") == "registering"
            humans = page.locator(f"#teams tr[data-team='{team['team_id']}'] button.remove-team")
            await humans.click()
            assert await humans.text_content() == "Remove Humans? Yes"
            await humans.click()
            await page.wait_for_selector(f"#teams tr[data-team='{team['team_id']}'] "
                                         "td:has-text('out (disqualified)')")
            await shot(page, "tournament-team-removed")
            await page.click("#start-now")  # nobody left out now: it starts at once
            await page.wait_for_selector("#detail[data-status='running']", timeout=20_000)
    finally:
        scheduler.stop()
        for who in (ada, ben):
            await who.http.aclose()
    assert not problems, problems
