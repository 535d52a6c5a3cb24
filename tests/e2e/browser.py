"""Headless Chromium for the web client's tests: the browser, sign-in, one move at a time,
and screenshots kept under tests/artifacts/."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, Request, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

CHROMIUM = os.environ.get("SPADES_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: install the Debian package "
                    "(apt-get install -y chromium) or set SPADES_CHROMIUM")
    ARTIFACTS.mkdir(exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            await browser.close()


async def new_page(browser: Browser, problems: list[str], width: int = 1100,
                   height: int = 900) -> Page:
    """A page in its own context (its own session storage: its own player), in a window of
    ``width`` x ``height`` CSS pixels (375 wide is a phone's)."""
    page = await (await browser.new_context(viewport={"width": width, "height": height},
                                            device_scale_factor=2 if width < 600 else 1)
                  ).new_page()
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    return page


@contextlib.asynccontextmanager
async def one_page(name: str) -> AsyncIterator[Page]:
    """A browser with one page for a test named ``name``. A failure keeps a screenshot
    (``<name>-failed``) and says what the status line showed, which of the page's HTTP
    requests were still unanswered and which failed; an error in the page's script fails
    the test too."""
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        waiting: dict[Request, float] = {}
        failed: list[str] = []

        def asked(r: Request) -> None:
            waiting[r] = time.monotonic()

        def answered(r: Request) -> None:
            waiting.pop(r, None)

        def lost(r: Request) -> None:
            waiting.pop(r, None)
            failed.append(f"{r.method} {r.url}: {r.failure}")

        page.on("request", asked)
        page.on("requestfinished", answered)
        page.on("requestfailed", lost)
        try:
            yield page
        except Exception as exc:
            await shot(page, f"{name}-failed")
            now = time.monotonic()
            unanswered = [f"{r.method} {r.url} for {now - at:.1f} s"
                          for r, at in waiting.items() if not r.url.startswith("ws")]
            raise AssertionError(f"{exc}; status line: {await page.text_content('#status')}; "
                                 f"page errors: {problems}; requests unanswered: "
                                 f"{unanswered}; failed: {failed}") from exc
    assert problems == []


async def sign_in(page: Page, base: str, name: str) -> None:
    await page.goto(f"{base}/")
    await page.fill("#guest-name", name)
    await page.click("#guest-go")
    await page.wait_for_selector("#lobby:not([hidden])")


async def register(page: Page, base: str, name: str, password: str) -> None:
    """A brand-new account, registered on the home page: the lobby shows once it is in."""
    await page.goto(f"{base}/")
    await page.fill("#register-name", name)
    await page.fill("#register-password", password)
    await page.click("#register-go")
    await page.wait_for_selector("#lobby:not([hidden])")


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


async def shot(page: Page, name: str) -> None:
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


async def open_private_table(page: Page, base: str, name: str, preset: str = "house") -> None:
    """Sign in as a guest and open a private table of ``preset``, seated at 0."""
    await sign_in(page, base, name)
    await page.select_option("#preset", preset)
    await page.check("#private")
    await page.click("#create")
    await page.wait_for_selector("#table:not([hidden])")


async def quick_game_with_bots(page: Page, base: str, name: str, trick_pause_ms: int) -> None:
    """A guest's private ``quick`` table, three bots and the game begun: the page shows
    the hand (as long as any other wait: the game's start crosses every service)."""
    await open_private_table(page, base, name, "quick")
    await page.select_option("#trick-pause", str(trick_pause_ms))
    await fill_with_bots_and_start(page)
    await page.wait_for_selector("#hand button.card")


async def fill_with_bots_and_start(page: Page) -> None:
    """The host's last steps at the table: bots on the empty seats, then start."""
    await page.click("#fill-bots")
    await page.wait_for_function(
        "[...document.querySelectorAll('#seats li')].every(li => li.textContent !== 'empty')")
    await page.click("#start")
