"""Leaving a running game from its page, in headless Chromium: the page says first what it
costs under the table's rules (a bot finishing the seat, or the pair's forfeit), asks to
confirm, and says what was done; the lobby's refusal of a second game is a sentence."""

from __future__ import annotations

from tests.e2e.browser import fill_with_bots_and_start, one_page, open_private_table, shot
from tests.e2e.conftest import Platform


async def test_leaving_lets_a_bot_play_on_after_saying_so(platform: Platform) -> None:
    async with one_page("web-leave") as page:
        await open_private_table(page, platform.a.url, "Leaver", "house")
        await fill_with_bots_and_start(page)
        await page.wait_for_selector("#controls button", timeout=15000)
        assert await page.text_content("#quit") == "Leave this game…"
        await page.click("#quit")
        cost = await page.text_content("#quit-cost") or ""
        assert cost.startswith("A bot plays your seat to the end of the game")
        await shot(page, "web-leave-asked")
        await page.click("#quit-no")  # staying changes nothing
        assert await page.is_hidden("#quit-confirm") and await page.is_visible("#game")
        await page.click("#quit")
        await page.click("#quit-yes")
        await page.wait_for_selector("#lobby:not([hidden])", timeout=10000)
        note = await page.text_content("#lobby-note") or ""
        assert note.startswith("You left your game: a bot plays your seat to its end.")
        await shot(page, "web-leave-done")


async def test_resigning_forfeits_the_match_after_saying_so(platform: Platform) -> None:
    async with one_page("web-resign") as page:
        await open_private_table(page, platform.a.url, "Resigner", "club")
        await fill_with_bots_and_start(page)
        await page.wait_for_selector("#controls button", timeout=15000)
        await page.click("#quit:text-is('Resign this game…')")
        cost = await page.text_content("#quit-cost") or ""
        assert "your team forfeits it" in cost
        assert await page.text_content("#quit-yes") == "Resign: we lose the match"
        await shot(page, "web-resign-asked")
        await page.click("#quit-yes")
        # The match is over at once: its end shows on the page, saying why.
        await page.wait_for_selector("#end-reason:has-text('a forfeit')", timeout=15000)
        assert await page.text_content("#end h3") == "You lost"
        await shot(page, "web-resign-done")
        assert await page.is_hidden("#quit")
        said = await page.evaluate("plainError({code: 'in_game', message: 'in a game'})")
        assert said.startswith("You are playing a game already: finish it, or leave it")
