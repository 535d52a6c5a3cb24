"""The reference web client, driven in headless Chromium: sign in, open a private table,
share its code, fill it with bots, play a whole hand, talk, and keep a screenshot."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import Platform

CHROMIUM = os.environ.get("SPADES_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


async def test_a_newcomer_plays_a_whole_hand_in_the_browser(platform: Platform) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: install the Debian package "
                    "(apt-get install -y chromium) or set SPADES_CHROMIUM")
    from playwright.async_api import async_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = await browser.new_page(viewport={"width": 1100, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        try:
            await page.goto(f"{platform.a.url}/")
            await page.fill("#guest-name", "Newcomer")
            await page.click("#guest-go")
            await page.wait_for_selector("#lobby:not([hidden])")
            await page.select_option("#preset", "quick")
            await page.check("#private")
            await page.click("#create")
            code = await page.text_content("#room-code", timeout=5000)
            assert code is not None and len(code) == 6
            await page.click("#fill-bots")
            await page.wait_for_function(
                "[...document.querySelectorAll('#seats li')]"
                ".every(li => li.textContent !== 'empty')")
            await page.click("#start")
            await page.wait_for_selector("#game:not([hidden])")
            await page.wait_for_selector("#hand button.card", timeout=10000)

            await page.fill("#chat-text", "hello table")
            await page.press("#chat-text", "Enter")
            await page.wait_for_selector("#chatlog div:has-text('hello table')")

            deadline = time.monotonic() + 60
            while await page.locator("#sheet tr").count() == 0:
                assert time.monotonic() < deadline, "the hand did not finish"
                look = page.locator("#controls button:has-text('Look at my cards')")
                bid = page.locator("#controls button.bid[data-bid='3']")
                legal = page.locator("#hand button.card.legal:not([disabled])")
                if await look.count():
                    await look.first.click()
                elif await bid.count():
                    await bid.first.click()
                elif await legal.count():
                    await legal.first.click()
                await page.wait_for_timeout(60)
            headline = await page.text_content("#headline")
            assert headline is not None and "Hand" in headline and "Us" in headline
            assert await page.locator("#sheet tr").count() == 1
            assert await page.locator("#pos-0").count() == 1
            await page.screenshot(path=str(ARTIFACTS / "web-client.png"), full_page=True)
        except Exception as exc:
            await page.screenshot(path=str(ARTIFACTS / "web-client-failed.png"), full_page=True)
            raise AssertionError(f"{exc}; status line: {await page.text_content('#status')!r}; "
                                 f"page errors: {problems}") from exc
        finally:
            await browser.close()
    assert problems == []
