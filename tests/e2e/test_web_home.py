"""A first visit, in headless Chromium: the home page says what the site is and plays in one
click, the navigation waits for a sign-in, a second tab and a shared game link need no
sign-in again, the presets are told before a table opens, "Start the game" says bots will
take the empty seats, and a full table offers no Join."""

from __future__ import annotations

import uuid

from playwright.async_api import Browser, Locator, Page

from tests.e2e.browser import chromium, new_page, register, shot, sign_in
from tests.e2e.conftest import Platform


async def seen_by_another(browser: Browser, problems: list[str], base: str,
                          host: Page) -> tuple[Page, Locator]:
    """Another player's lobby, and its row of the table ``host`` sits at, once listed."""
    table = await host.evaluate("S.table.table_id")
    other = await new_page(browser, problems)
    await sign_in(other, base, "Looker")
    row = other.locator(f"#tables tr[data-table='{table}']")
    await row.wait_for(timeout=10000)
    return other, row


async def test_one_click_plays_and_a_second_tab_is_signed_in_already(
        platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems, width=375, height=667)
        await page.goto(f"{platform.a.url}/")
        assert await page.is_hidden("#nav") and await page.is_hidden("#sign-out")
        intro = await page.text_content("#intro") or ""
        assert "trick-taking card game" in intro and "one click" in intro
        await shot(page, "home-first-visit")
        await page.click("#play-now")
        await page.wait_for_selector("#game:not([hidden])", timeout=15000)
        await page.wait_for_selector("#controls button", timeout=15000)
        assert await page.text_content("#game-origin") == ""  # a table of its own
        await shot(page, "home-one-click-game")
        game_url = page.url
        assert "#/games/" in game_url
        # Another tab of the same browser: signed in already, at home and at the game's link.
        tab = await page.context.new_page()
        tab.on("pageerror", lambda exc: problems.append(str(exc)))
        await tab.goto(f"{platform.a.url}/")
        await tab.wait_for_selector("#lobby:not([hidden])")
        assert (await tab.text_content("#who") or "").startswith("Signed in as Guest")
        assert await tab.is_visible("#nav")
        await tab.goto(game_url)
        await tab.wait_for_selector("#hand button.card, #controls button", timeout=15000)
        assert await tab.is_hidden("#signin")
        assert await tab.evaluate("S.view.seat") == 0  # seated, not watching
        await shot(tab, "home-second-tab-game")
    assert problems == []


async def test_presets_are_told_and_the_host_knows_bots_fill_the_seats(
        platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await sign_in(page, platform.a.url, "Host")
        await page.select_option("#preset", "club")
        assert "leaving forfeits" in (await page.text_content("#preset-words") or "")
        await page.select_option("#preset", "beginner")
        assert "first to 300" in (await page.text_content("#preset-words") or "")
        await shot(page, "home-presets")
        await page.select_option("#preset", "house")
        await page.click("#create")  # a public table
        await page.wait_for_selector("#table:not([hidden])")
        assert await page.text_content("#start") == \
            "Start the game (bots take the 3 empty seats)"
        await page.click("#fill-bots")
        await page.wait_for_selector("#start:text-is('Start the game')")
        # Someone else's lobby: the full table is listed, with nothing to join.
        other, row = await seen_by_another(browser, problems, platform.a.url, page)
        assert "full: starting soon" in (await row.text_content() or "")
        assert await row.locator("button").count() == 0
        await shot(other, "home-full-table")
    assert problems == []


async def test_the_lobby_explains_its_numbers_and_a_partner_who_is_yourself(
        platform: Platform) -> None:
    """The leaderboard's "?" is explained, free seats are numbered as bots are (1 to 4,
    with their side), and naming oneself as the queue partner says just that."""
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems, width=375, height=667)
        await sign_in(page, platform.a.url, "Solo")
        assert "provisional" in (await page.text_content("#provisional-note") or "")
        await page.fill("#queue-partner", "solo")
        await page.evaluate("document.getElementById('queue-form').requestSubmit()")
        await page.wait_for_selector("#status:has-text('You cannot be your own partner')")
        await page.click("#create")  # a public table, the host in seat 1
        await page.wait_for_selector("#table:not([hidden])")
        other, row = await seen_by_another(browser, problems, platform.a.url, page)
        assert "2 (west), 3 (north), 4 (east)" in (await row.text_content() or "")
        await shot(other, "home-free-seats")
    assert problems == []


async def test_a_name_of_one_letter_is_refused_with_the_reason(platform: Platform) -> None:
    """The form asks for two characters; "J." has them, and one letter: the server
    refuses it (``name_too_short``), and the page says why, beside the form."""
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems, width=375, height=667)
        await page.goto(f"{platform.a.url}/")
        await page.fill("#guest-name", "J.")
        await page.click("#guest-go")
        reason = ("A name needs at least two letters or digits: one letter is an initial, "
                  "and other players could not tell you apart.")
        await page.wait_for_selector(f"#status:text-is('{reason}')")
        assert await page.text_content("#guest-form #near-error") == reason
        assert await page.is_visible("#signin")
        await shot(page, "home-name-too-short")
    assert problems == []


async def test_naming_oneself_as_partner_in_another_spelling_says_so(
        platform: Platform) -> None:
    """The server finds a name however it is typed: a full-width first letter is still the
    player's own name, and the page says so rather than that the partner cannot queue."""
    problems: list[str] = []
    name = f"Solitary{uuid.uuid4().hex[:6]}"
    async with chromium() as browser:
        page = await new_page(browser, problems, width=375, height=667)
        await register(page, platform.a.url, name, "a long enough password")
        await page.fill("#queue-partner", chr(ord(name[0]) + 0xFEE0) + name[1:])
        await page.evaluate("document.getElementById('queue-form').requestSubmit()")
        await page.wait_for_selector("#status:has-text('You cannot be your own partner')")
        assert await page.text_content("#queue-state") == "Not queued."
        await shot(page, "queue-self-partner")
    assert problems == []
