"""Play again and watching a private game, in headless Chromium: at the end of a match
the same table and seats go on to a new game once everyone agreed, and a room code
lets a person watch a private game (never its hands). Screenshots go to tests/artifacts/."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from playwright.async_api import Page

from tests.e2e.browser import chromium, new_page, one_page, play_a_little, shot, sign_in
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.services.lobby.harness import Player
from tests.waiting import until

ONE_HAND = {"preset": "house", "max_hands": 1}


@contextlib.asynccontextmanager
async def after_a_match(platform: Platform, rules: dict[str, Any], name: str
                        ) -> AsyncIterator[tuple[Page, Player, dict[str, Any]]]:
    """Ada in the browser and Ben over the API end a match; yields Ada's page, Ben and
    the table as it started. The page must raise no script error meanwhile; a failure
    keeps a screenshot ``<name>-failed`` and says what the page's status line showed."""
    async with one_page(name) as page:
        await sign_in(page, platform.a.url, "Ada")
        ben, t = await _match_with(page, platform, rules)
        try:
            yield page, ben, t
        finally:
            await ben.aclose()


async def _match_with(page: Page, platform: Platform, rules: dict[str, Any]
                      ) -> tuple[Player, dict[str, Any]]:
    """Ben (API, seat 0, host) and the page's player (seat 1, by room code) with two bots
    play one match to its end; returns Ben and the table as it started."""
    ben = await Player.guest(platform.b.url, "Ben")
    t = await ben.ok("POST", "/v1/tables", {"rules": rules, "private": True})
    await page.fill("#code", t["code"])
    await page.select_option("#code-seat", "1")
    await page.click("#join-code")
    await page.wait_for_selector("#table:not([hidden])")
    await ben.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
    t = await ben.ok("POST", f"/v1/tables/{t['table_id']}/start")
    await page.wait_for_selector("#game:not([hidden])")
    seat = Seat(ben, await ben.socket(platform.b.ws_url), t["game_id"])
    await seat.subscribe()
    bens = asyncio.create_task(play_until_over([seat]))
    deadline = time.monotonic() + 90
    while not await page.is_visible("#end"):
        assert time.monotonic() < deadline, "the match did not end"
        await play_a_little(page)
        await page.wait_for_timeout(40)
    await bens
    await seat.sock.close()
    return ben, t


async def _in_new_game(page: Page, ben: Player, t: dict[str, Any]) -> None:
    """The page plays the table's next game: a new game id, the same seat, a fresh sheet."""
    async def next_game() -> dict[str, Any] | None:
        now = await ben.ok("GET", f"/v1/tables/{t['table_id']}")
        return now if now["state"] == "playing" and now["game_id"] != t["game_id"] else None

    now = await until(next_game)
    # The page moves to the new game when the table's change reaches it: on a loaded
    # machine that takes as long as any other wait here.
    await page.wait_for_function(f"S.game === {now['game_id']!r}", timeout=30000)
    await page.wait_for_selector("#game:not([hidden])")
    await page.wait_for_selector("#end", state="hidden")
    await page.wait_for_selector("#pos-0 .name:has-text('(you)')")  # the seat as before
    assert await page.locator("#sheet tr").count() == 0


async def test_asked_at_the_end_of_a_match_a_person_agrees_and_plays_on_at_the_same_table(
        platform: Platform) -> None:
    async with after_a_match(platform, ONE_HAND, "play-again-agreed") as (page, ben, t):
        assert await page.is_visible("#play-again")
        await ben.ok("POST", f"/v1/tables/{t['table_id']}/again")
        await page.wait_for_selector("#again-asked:has-text('Ben asks to play again')")
        assert await page.text_content("#play-again") == "Yes, play again"
        await shot(page, "play-again-asked")
        await page.click("#play-again")
        await _in_new_game(page, ben, t)
        await shot(page, "play-again-new-game")


async def test_one_asks_for_another_game_and_it_begins_when_the_other_leaves_to_a_bot(
        platform: Platform) -> None:
    async with after_a_match(platform, {**ONE_HAND, "abandon": "bot"},
                             "play-again-left-to-a-bot") as (page, ben, t):
        await page.click("#play-again")
        await page.wait_for_selector("#table:not([hidden])")
        status = await page.text_content("#again-status")
        assert status is not None and "Waiting for Ben (guest) to agree" in status
        tags = await page.locator("#seats .tag").all_text_contents()
        assert tags == ["asked", "plays again"]
        await shot(page, "play-again-waiting")
        await ben.ok("POST", f"/v1/tables/{t['table_id']}/leave")  # a bot takes his seat
        await _in_new_game(page, ben, t)
        # His seat is a bot's in the new game (the page may still show the table's row
        # from before it heard of the change for a moment).
        await page.wait_for_selector("#board .seat .name:text-is('Bot 1 (basic)')")


async def test_a_room_code_lets_a_person_watch_a_private_game_without_seeing_a_hand(
        platform: Platform) -> None:
    """The host sits and waits (its clock runs), so the game is live while watched."""
    host = await Player.guest(platform.b.url, "Host")
    problems: list[str] = []
    try:
        t = await host.ok("POST", "/v1/tables", {"rules": "house", "private": True})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await sign_in(page, platform.a.url, "Looker")
            await page.fill("#code", t["code"].lower())
            await page.click("#join-code")
            await page.wait_for_selector("#game:not([hidden])")
            await page.wait_for_selector("#headline:has-text('watching')")
            await page.wait_for_selector("#pos-0 .name:has-text('Host (guest)')")
            await page.wait_for_selector("#turn-cue:has-text('Waiting for Host (guest)')")
            assert await page.locator("#hand button").count() == 0
            assert await page.locator("#controls button").count() == 0
            assert await page.text_content("#status") == ""
            await shot(page, "watch-private")
    finally:
        await host.aclose()
    assert problems == []


async def test_a_spectator_is_offered_the_tables_next_game(platform: Platform) -> None:
    """The host sits, then leaves the game to a bot; a spectator with the room code
    watches it end; the host plays again, and the spectator may follow the next game."""
    host = await Player.guest(platform.b.url, "Host")
    problems: list[str] = []
    try:
        t = await host.ok("POST", "/v1/tables", {"rules": ONE_HAND, "private": True})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await sign_in(page, platform.a.url, "Looker")
            await page.fill("#code", t["code"])
            await page.click("#join-code")
            await page.wait_for_selector("#headline:has-text('watching')")
            await host.ok("POST", f"/v1/tables/{t['table_id']}/leave")  # a bot plays it out
            await page.wait_for_selector("#end:not([hidden])", timeout=60_000)
            assert not await page.is_visible("#watch-next")

            async def over() -> bool:
                row = await host.ok("GET", f"/v1/tables/{t['table_id']}")
                return row["state"] == "over"

            await until(over)
            nxt = await host.ok("POST", f"/v1/tables/{t['table_id']}/again")
            assert nxt["state"] == "playing" and nxt["game_id"] != t["game_id"]
            await page.wait_for_selector("#watch-next", timeout=10_000)
            await shot(page, "watch-next")
            await page.click("#watch-next")
            await page.wait_for_function(f"S.game === {nxt['game_id']!r}", timeout=10_000)
            await page.wait_for_selector("#end", state="hidden")
            await page.wait_for_selector("#headline:has-text('watching')")
            assert await page.locator("#hand button").count() == 0
    finally:
        await host.aclose()
    assert problems == []
