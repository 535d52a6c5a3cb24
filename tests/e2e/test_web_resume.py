"""The web client finds its way back into a running game after a reload: the address
names the game (#/games/<id>) and GET /v1/me seats the player in it, so the reload comes
back to the game itself, with its clock, and the hand plays on; from the lobby, "Back to
your game" does the same."""

from __future__ import annotations

import re
import time

from tests.e2e.browser import fill_with_bots_and_start, one_page, play_a_little, shot, sign_in
from tests.e2e.conftest import Platform


async def test_a_reload_mid_hand_comes_back_to_the_game_and_the_hand_plays_on(
        platform: Platform) -> None:
    async with one_page("web-resume") as page:
        await sign_in(page, platform.a.url, "Reloader")
        await page.select_option("#preset", "classic")
        await page.click("#create")
        await page.wait_for_selector("#table:not([hidden])")
        await fill_with_bots_and_start(page)
        await page.wait_for_selector("#hand button.card", timeout=10000)
        dealt = await page.locator("#hand button.card").count()
        deadline = time.monotonic() + 60
        while await page.locator("#hand button.card").count() > dealt - 2:
            assert time.monotonic() < deadline, "no card was played"
            await play_a_little(page)
            await page.wait_for_timeout(40)
        held = await page.locator("#hand button.card").count()

        game = await page.evaluate("S.game")
        assert page.url.endswith(f"#/games/{game}")
        await page.reload()  # mid-hand: the page forgets the game, the server does not
        # The reloaded page has settled on the game (seen once: shown before its script
        # had taken the address in).
        await page.wait_for_function(f"S.game === {game!r}", timeout=10000)
        await page.wait_for_selector("#game:not([hidden])")
        assert await page.is_hidden("#lobby")
        # The same hand, as far as it went (a clock may have played for the seat).
        await page.wait_for_function(
            "document.querySelectorAll('#hand button.card').length > 0"
            f" && document.querySelectorAll('#hand button.card').length <= {held}",
            timeout=10000)
        while await page.locator("#sheet tr").count() == 0:
            assert time.monotonic() < deadline, "the hand did not finish after the reload"
            await play_a_little(page)
            await page.wait_for_timeout(40)
        await shot(page, "web-resume")
        # Back in the lobby, it offers the game; reloaded after the hand was scored, the
        # sheet still shows what each seat bid: the snapshot carries the bids, the page
        # remembers nothing of its own.
        await page.click("#back")
        await page.wait_for_selector("#resume-box:not([hidden])", timeout=5000)
        assert page.url.endswith("#/")
        await page.click("#resume")
        await page.wait_for_selector("#game:not([hidden])")
        await page.reload()
        await page.wait_for_function("document.querySelectorAll('#sheet tr').length > 0",
                                     timeout=10000)
        cell = await page.text_content("#sheet tr td:nth-child(2)")
        # Each of the team's two seats: "Name: bid 3, took 3" or "Name: nil, took 1" (a
        # failed nil adds "failed nil took 1" to the team's line, which is not a seat).
        assert cell is not None and len(re.findall(r": (?:bid \d+|(?:blind )?nil), took \d+",
                                                   cell)) == 2, cell
        await shot(page, "web-resume-sheet")
