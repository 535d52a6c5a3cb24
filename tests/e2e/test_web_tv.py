"""TV as a person meets it, in headless Chromium: the header's TV link watches the
best-rated game being played now (here, with no ratings, the newest), and when that game
ends the next one comes on by itself. The live list names the partnerships, "A & B v
C & D". Two scripted hosts hold a seat each at a public table with three bots and do not
play; one of them leaves, and the club rule (leaving forfeits for the pair) ends it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from tests.e2e.browser import chromium, new_page, shot, sign_in
from tests.e2e.conftest import Platform
from tests.services.lobby.harness import Player, Socket

RULES = "club"  # leaving forfeits the match for the pair


@contextlib.asynccontextmanager
async def held_game(base: str, name: str) -> AsyncIterator[tuple[Player, str]]:
    """A public game a person sits in (seat 0) beside three bots, waiting on them."""
    host = await Player.guest(base, name)
    try:
        t = await host.ok("POST", "/v1/tables", {"rules": RULES, "seat": 0})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        yield host, (await host.ok("POST", f"/v1/tables/{t['table_id']}/start"))["game_id"]
    finally:
        await host.aclose()


async def leave(sock: Socket, game_id: str) -> None:
    """Give the seat up mid-game: the pair forfeits and the game ends."""
    await sock.send({"type": "subscribe", "game_id": game_id})
    await sock.of_type("subscribed")
    await sock.send({"type": "leave", "command_id": "tv-bye", "game_id": game_id, "seat": 0})
    await sock.until(lambda f: f["type"] == "event" and f["event"]["type"] == "GameEnded", 20)


async def test_tv_shows_the_top_game_then_the_next_when_it_ends(platform: Platform) -> None:
    base = platform.a.url
    problems: list[str] = []
    async with held_game(base, "Elder") as (_, older), \
            held_game(base, "Younger") as (younger_host, newer), chromium() as browser:
        page = await new_page(browser, problems)
        await sign_in(page, base, "Viewer")
        row = page.locator("#live tr", has=page.locator(
            f"button.watch-live[data-game='{newer}']"))
        for _ in range(50):  # read on entering the lobby and on Refresh
            if await row.count():
                break
            await page.click("#live-refresh")
            await page.wait_for_timeout(100)
        assert "Younger & Bot 3 (basic) v Bot 2 (basic) & Bot 4 (basic)" in (
            await row.text_content() or "")
        await page.click("#nav-tv")
        await page.wait_for_selector("#game:not([hidden])")
        await page.wait_for_selector("#game-origin:has-text('TV · A public table')")
        await page.wait_for_selector("#headline:has-text('watching')")
        assert await page.evaluate("S.game") == newer  # the newest: no one is rated
        assert await page.locator("#hand button").count() == 0
        await shot(page, "tv-watching")
        sock = await younger_host.socket(platform.a.ws_url)
        try:
            await leave(sock, newer)
        finally:
            await sock.close()
        await page.wait_for_selector("#tv-next", timeout=10_000)
        await shot(page, "tv-game-over")
        await page.wait_for_function(f"S.game === {older!r}", timeout=15_000)
        await page.wait_for_selector("#headline:has-text('watching')")
        assert page.url.endswith("#/tv")
        # Leaving TV by its own button ends it: no game comes on behind the lobby.
        await page.click("#back")
        await page.wait_for_selector("#lobby:not([hidden])")
        assert page.url.endswith("#/")
    assert problems == []
