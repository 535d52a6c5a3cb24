"""The tournaments page as a person meets it, in headless Chromium: a registered player
finds the tournament, registers a team with a partner (scripted) who confirms, checks in,
sees the bracket drawn, presses Ready when the match is offered, and watches the bracket
advance to a champion, live. Three other teams are scripted players. The browser's
player never moves: the club rule (leaving forfeits for the pair) ends its match when its
clock runs out, so the bracket advances without it."""

from __future__ import annotations

import asyncio

from playwright.async_api import Page

from tests.e2e.browser import chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_tournament_run import attend, copy, dismiss, four_team_cup
from tests.services.lobby.harness import Service
from tests.services.lobby.test_tournaments import PASSWORD, organizer, registered

RULES = {"preset": "quick", "max_hands": 1, "abandon": "forfeit",
         "clocks": {"bid_ms": 3000, "play_ms": 3000, "single_card_ms": 3000,
                    "bank_blocks": 0, "bank_block_ms": 0}}


async def signed_in(page: Page, base: str, name: str) -> None:
    """The tournaments page, signed in with a registered account's name and password."""
    await page.goto(f"{base}/tournaments")
    await page.fill("#login-name", name)
    await page.fill("#login-password", PASSWORD)
    await page.click("#login-go")


async def test_a_player_registers_checks_in_readies_and_sees_a_champion(
        platform: Platform, platform_env: dict[str, str], ratings_beside: Service,
        database_url: str) -> None:
    env, lobby = platform_env, platform.a
    scheduler = copy(platform, env, "web")
    problems: list[str] = []
    scripted: list[asyncio.Task[None]] = []
    try:
        org = await organizer(lobby, database_url)
        me, partner = await registered(lobby.url), await registered(lobby.url)
        others = [await registered(lobby.url) for _ in range(6)]
        scripted = [asyncio.create_task(attend(p, lobby)) for p in [partner, *others]]
        tid = await four_team_cup(org, others, RULES, 25_000, check_in_minutes=1)

        async with chromium() as browser:
            page = await new_page(browser, problems)
            await signed_in(page, lobby.url, me.name)
            invited = await new_page(browser, problems)  # the partner, on the list
            await signed_in(invited, lobby.url, partner.name)
            await invited.wait_for_selector("#list:not([hidden])")
            await page.click(f"#tournaments tr[data-tournament='{tid}'] a")
            await page.wait_for_selector("#detail:not([hidden])")
            await page.fill("#team-name", "Browsers")
            await page.fill("#partner", partner.name.upper())  # by name, as a person types it
            await page.click("#register-go")
            await page.wait_for_selector("#my-team:not([hidden])")
            team = await page.get_attribute("#my-team", "data-team")
            assert team
            # The partner's page shows the invitation (the tournament_invite note): accept.
            await invited.wait_for_selector("#accept-invite:not([hidden])", timeout=10_000)
            assert me.name in (await invited.text_content("#banner-text") or "")
            await shot(invited, "tournament-invited")
            await invited.click("#accept-invite")
            await invited.wait_for_selector("#detail:not([hidden])[data-status='registering']")
            await invited.wait_for_selector("#my-team-text:has-text('confirmed')")
            await page.wait_for_selector("#check-in:not([hidden])")  # live: the confirmation
            await page.click("#check-in")
            await page.wait_for_selector("#my-team-text:has-text('checked in')")
            await partner.ok("POST", f"/v1/tournaments/{tid}/check-in")
            await page.wait_for_selector(f"#teams tr[data-team='{team}'] td:has-text('checked in')")
            # People by name, never by id: the partner, the players of every team, the host.
            assert partner.name in (await page.text_content("#my-team-text") or "")
            shown = await page.text_content("#teams tbody") or ""
            assert f"{me.name} & {partner.name}" in shown
            assert all(p.name in shown and p.player_id not in shown for p in others)
            assert await page.text_content("#t-organizer") == org.name
            assert (await page.text_content("#t-check-in") or "").startswith("Check-in: from ")
            await shot(page, "tournament-checked-in")

            # The start draws the bracket; the first round's matches are offered.
            await page.wait_for_selector("#detail[data-status='running']", timeout=40_000)
            await page.wait_for_selector("#bracket .match[data-match='W1-1']")
            assert await page.locator("#standings tbody tr").count() == 4
            await page.wait_for_selector("#banner:not([hidden]) #ready:not([hidden])",
                                         timeout=20_000)
            await page.click("#ready")
            await page.wait_for_selector("#play:not([hidden])", timeout=20_000)
            await shot(page, "tournament-match-begun")

            await page.wait_for_selector("#detail[data-status='finished']", timeout=120_000)
            champion = (await page.text_content("#t-champion")) or ""
            assert champion.startswith("Champion: ")
            assert await page.locator("#bracket .match[data-outcome='']").count() == 0
            # A knockout's rounds by name, the last the Final; its standings without the
            # Swiss tie-breaks; a finished tournament offers no Withdraw.
            rounds = await page.locator("#bracket .round h3").all_text_contents()
            assert rounds[-1] == "Final", rounds
            heads = await page.locator("#standings th").all_text_contents()
            assert "Buchholz" not in heads and "Reached" in heads, heads
            assert await page.is_hidden("#withdraw")
            await shot(page, "tournament-champion")
        view = await org.ok("GET", f"/v1/tournaments/{tid}")
    finally:
        await dismiss(scripted)
        scheduler.stop()
    mine = next(m for m in view["matches"] if team in (m["home"], m["away"]))
    assert mine["reason"] == "forfeit" and mine[mine["outcome"]] != team
    assert view["summary"]["champion"] != team
    assert not problems, problems


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
