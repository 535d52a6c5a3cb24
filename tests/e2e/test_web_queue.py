"""A person queues for ranked on the web page, accepts, plays the rated game beside three
scripted players and sees the rating move, on the leaderboard, their page and a phone."""

from __future__ import annotations

import asyncio
import json
import time

from tests.e2e.browser import chromium, new_page, play_a_little, register, shot
from tests.e2e.players import Seat, play_until_over
from tests.e2e.ranked import Ranked, close_all, found, queuers, tag
from tests.e2e.replays import PASSWORD
from tests.e2e.test_web_profile import fits, my_game, replay, signed_in_as


async def test_a_page_queues_accepts_plays_and_sees_its_rating_change(ranked: Ranked) -> None:
    problems: list[str] = []
    others = await queuers(ranked, 3, "web")
    name = f"webber{tag()}"
    async with chromium() as browser:
        page = await new_page(browser, problems)
        try:
            await register(page, ranked.lobby(0).url, name, PASSWORD)
            # Before any click the panel says the new account may queue (no games needed here).
            await page.wait_for_selector("#queue-state:text-is('Not queued.')")
            assert await page.is_enabled("#queue-join")
            # Not on the board yet: "Around me" says why instead of an empty table.
            await page.click("#board-around")
            await page.wait_for_selector("#board-note:not([hidden])")
            assert "once they have played a ranked game" in (
                await page.text_content("#board-note") or "")
            await page.click("#queue-join")
            await page.wait_for_selector("#queue-state:has-text('In the queue')")
            for q in others:
                await q.join()
            await page.wait_for_selector("#offer-box:not([hidden])", timeout=20000)
            await page.wait_for_selector("#queue-match:not([hidden])")
            # The wait is over: its clock stops, and the counts show the four matched.
            await page.wait_for_selector("#queue-state:text-is('A match was found.')")
            await page.wait_for_selector("#queue-stats:has-text('answering a match')")
            await page.wait_for_timeout(1500)
            assert await page.text_content("#queue-state") == "A match was found."
            offer = await page.text_content("#offer-text")
            assert offer is not None and "A ranked match is ready (rated)" in offer, offer
            await shot(page, "web-ranked-offer")
            await page.click("#offer-ready")
            offers = await found(others)
            for q, o in zip(others, offers, strict=True):
                await q.sock.send({"type": "queue_accept", "match_id": o["match_id"]})
            notes = [await q.note("match_started", 20) for q in others]
            await page.wait_for_selector("#game:not([hidden])", timeout=20000)
            await page.wait_for_selector("#game-origin:text-is('Ranked game')")
            seats = [Seat(q.player, q.sock, str(n["game_id"])) for q, n in zip(others, notes,
                                                                              strict=True)]
            for s in seats:
                await s.subscribe()
            scripted = asyncio.create_task(play_until_over(seats))
            deadline = time.monotonic() + 90
            while await page.locator("#end:not([hidden])").count() == 0:
                assert time.monotonic() < deadline, "the game did not end"
                await play_a_little(page)
                await page.wait_for_timeout(40)
            await scripted
            await page.wait_for_selector("#rating-change", timeout=30000)
            change = await page.text_content("#rating-change")
            assert change is not None and change.startswith("Rating 1500 → ")
            assert await page.is_visible("#queue-again")
            await shot(page, "web-ranked-end")
            await page.click("#back")
            while await page.locator("#leaderboard tr.me").count() == 0:
                assert time.monotonic() < deadline + 30, "no leaderboard row"
                await page.click("#board-around")
                await page.wait_for_timeout(500)
            assert await page.locator("#board-note").is_hidden()
            await shot(page, "web-ranked")
            # The rated game on the player's page, with its rating change, and its replay;
            # then the same on a phone, in the same session.
            me = json.loads(await page.evaluate("localStorage.getItem('me')"))
            game_id = str(notes[0]["game_id"])
            row = await my_game(page, me["player_id"], game_id, rated=True)
            assert "1500 → " in (await row.locator(".rating").text_content() or "")
            assert await row.locator(".event").text_content() == "ranked"
            await shot(page, "web-ranked-profile")
            await replay(page, row, "web-ranked")
            phone = await new_page(browser, problems, width=375)
            await signed_in_as(phone, me["player_id"], me["name"],
                               await page.evaluate("localStorage.getItem('token')"))
            await phone.goto(f"{ranked.lobby(0).url}/")
            row = await my_game(phone, me["player_id"], game_id, rated=True)
            await shot(phone, "web-ranked-phone-profile")
            assert await fits(phone)
            await replay(phone, row, "web-ranked-phone")
        except Exception as exc:
            await shot(page, "web-ranked-failed")
            raise AssertionError(f"{exc}; status: {await page.text_content('#status')}; "
                                 f"page errors: {problems}") from exc
    await close_all(others)
    assert problems == []
