"""The reference web client, driven in headless Chromium: sign in, open a private table,
share its code with a friend, fill it with bots, play a whole hand, talk, keep a screenshot."""

from __future__ import annotations

import time

from playwright.async_api import Route

from tests.e2e.browser import (
    chromium,
    fill_with_bots_and_start,
    new_page,
    play_a_little,
    shot,
    sign_in,
)
from tests.e2e.conftest import Platform


async def test_two_friends_and_two_bots_play_a_whole_hand_in_the_browser(
        platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        host = await new_page(browser, problems)
        friend = await new_page(browser, problems)
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
            # A guest is shown as one: anyone may take a guest's name.
            await host.wait_for_selector("#seats li:has-text('Friend (guest)')")

            await fill_with_bots_and_start(host)
            for page in (host, friend):
                await page.wait_for_selector("#game:not([hidden])")
                await page.wait_for_selector("#hand button.card", timeout=10000)

            await host.fill("#chat-text", "hello table")
            await host.press("#chat-text", "Enter")
            await friend.wait_for_selector("#chatlog div:has-text('Newcomer (guest): hello table')")

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
            await shot(host, "web-client")
        except Exception as exc:
            for name, page in (("host", host), ("friend", friend)):
                await shot(page, f"web-client-failed-{name}")
            raise AssertionError(f"{exc}; status lines: "
                                 f"{[await p.text_content('#status') for p in (host, friend)]}; "
                                 f"page errors: {problems}") from exc
    assert problems == []


async def test_the_api_docs_render_with_no_outside_network(platform: Platform) -> None:
    """Every request the docs page makes stays on the lobby; anything else is refused,
    as it would be on a machine with no internet."""
    outside: list[str] = []
    missing: list[str] = []
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)

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
        await shot(page, "api-docs")
    assert outside == [] and missing == [] and problems == []
