"""The reference web client, driven in headless Chromium: sign in, open a private table,
share its code with a friend, fill it with bots, play a whole hand, talk, keep a screenshot."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest
from playwright.async_api import Page, Route, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import Platform

CHROMIUM = os.environ.get("SPADES_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def need_chromium() -> None:
    """Fail (never skip) without the browser; make the screenshots' folder."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: install the Debian package "
                    "(apt-get install -y chromium) or set SPADES_CHROMIUM")
    ARTIFACTS.mkdir(exist_ok=True)


async def sign_in(page: Page, base: str, name: str) -> None:
    await page.goto(f"{base}/")
    await page.fill("#guest-name", name)
    await page.click("#guest-go")
    await page.wait_for_selector("#lobby:not([hidden])")


async def fill_with_bots_and_start(page: Page) -> None:
    """The host's last steps at the table: bots on the empty seats, then start."""
    await page.click("#fill-bots")
    await page.wait_for_function(
        "[...document.querySelectorAll('#seats li')].every(li => li.textContent !== 'empty')")
    await page.click("#start")


async def play_a_little(page: Page) -> None:
    """One move if the page offers one: look, bid three, or the first legal card."""
    look = page.locator("#controls button:has-text('Look at my cards')")
    bid = page.locator("#controls button.bid[data-bid='3']")
    legal = page.locator("#hand button.card.legal:not([disabled])")
    for choice in (look, bid, legal):
        if await choice.count():
            # The page re-renders on every event: the button may be gone by the click.
            with contextlib.suppress(PlaywrightTimeout):
                await choice.first.click(timeout=300)
            return


async def test_two_friends_and_two_bots_play_a_whole_hand_in_the_browser(
        platform: Platform) -> None:
    need_chromium()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        host = await browser.new_page(viewport={"width": 1100, "height": 900})
        friend = await (await browser.new_context()).new_page()
        problems: list[str] = []
        for page in (host, friend):
            page.on("pageerror", lambda exc: problems.append(str(exc)))
        try:
            await sign_in(host, platform.a.url, "Newcomer")
            await host.select_option("#preset", "quick")
            await host.check("#private")
            await host.click("#create")
            code = await host.text_content("#room-code", timeout=5000)
            assert code is not None and len(code) == 6

            await sign_in(friend, platform.b.url, "Friend")  # on the other gateway
            await friend.fill("#code", code)
            await friend.click("#join-code")
            await friend.wait_for_selector("#table:not([hidden])")
            await host.wait_for_selector("#seats li:has-text('Friend')")

            await fill_with_bots_and_start(host)
            for page in (host, friend):
                await page.wait_for_selector("#game:not([hidden])")
                await page.wait_for_selector("#hand button.card", timeout=10000)

            await host.fill("#chat-text", "hello table")
            await host.press("#chat-text", "Enter")
            await friend.wait_for_selector("#chatlog div:has-text('Newcomer: hello table')")

            deadline = time.monotonic() + 60
            while any([await p.locator("#sheet tr").count() == 0 for p in (host, friend)]):
                assert time.monotonic() < deadline, "the hand did not finish"
                for page in (host, friend):
                    await play_a_little(page)
                await host.wait_for_timeout(40)
            for page in (host, friend):
                headline = await page.text_content("#headline")
                assert headline is not None and "Us" in headline and "Them" in headline
                assert await page.locator("#sheet tr").count() == 1
            await host.screenshot(path=str(ARTIFACTS / "web-client.png"), full_page=True)
        except Exception as exc:
            for name, page in (("host", host), ("friend", friend)):
                await page.screenshot(path=str(ARTIFACTS / f"web-client-failed-{name}.png"),
                                      full_page=True)
            raise AssertionError(f"{exc}; status lines: "
                                 f"{[await p.text_content('#status') for p in (host, friend)]}; "
                                 f"page errors: {problems}") from exc
        finally:
            await browser.close()
    assert problems == []


async def test_the_api_docs_render_with_no_outside_network(platform: Platform) -> None:
    """Every request the docs page makes stays on the lobby; anything else is refused,
    as it would be on a machine with no internet."""
    outside: list[str] = []
    missing: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 900})

            async def only_local(route: Route) -> None:
                if route.request.url.startswith(platform.a.url):
                    await route.continue_()
                else:
                    outside.append(route.request.url)
                    await route.abort()

            await page.route("**/*", only_local)
            page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
            await page.goto(f"{platform.a.url}/schema")
            await page.wait_for_selector(".swagger-ui .opblock-summary-path", timeout=15000)
            await page.get_by_text("/v1/tables/{table_id}/join", exact=True).wait_for()
            await page.screenshot(path=str(ARTIFACTS / "api-docs.png"))
        finally:
            await browser.close()
    assert outside == [] and missing == []
