"""A player's page in the web client: linked from the header, with the rated record and the
list of the player's finished games, each replayed in the same viewer operators use, through
the players' routes; on a desktop and on a phone."""

from __future__ import annotations

import json

from playwright.async_api import Page

from tests.e2e.browser import chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_history import listed
from tests.e2e.test_play_again import ONE_HAND, finished_table
from tests.services.lobby.harness import Player


async def signed_in_as(page: Page, who: Player) -> None:
    """The page holds ``who``'s session, as the web client keeps it after signing in."""
    me = json.dumps({"player_id": who.player_id, "name": who.name})
    await page.add_init_script(f"sessionStorage.setItem('token', {json.dumps(who.token)});"
                               f"sessionStorage.setItem('me', {json.dumps(me)});")


async def fits(page: Page) -> bool:
    """Nothing wider than the window: no sideways scrolling, on a phone too."""
    return bool(await page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"))


async def profile_then_replay(page: Page, base: str, ada: Player, game: dict[str, object],
                              name: str) -> None:
    game_id = game["game_id"]
    await page.goto(f"{base}/")
    await page.wait_for_selector("#lobby:not([hidden])")
    for link in ("#nav-play", "#nav-ranked", "#nav-tournaments", "#nav-leaderboard"):
        assert await page.is_visible(link), link
    await shot(page, f"{name}-home")
    await page.click("#my-profile")
    row = page.locator(f"#profile-games tr[data-game='{game_id}']")
    await row.wait_for(timeout=10000)
    assert page.url.endswith(f"#/players/{ada.player_id}")
    assert "(you)" in (await page.text_content("#profile-name") or "")
    scores = game["scores"]
    assert isinstance(scores, list)
    assert await row.locator(".score").text_content() == f"{scores[0]} \N{EN DASH} {scores[1]}"
    assert game["result"] in (await row.locator(".result").get_attribute("class") or "")
    assert await row.locator(".rating").text_content() == "unrated"
    cells = await row.locator("td").all_text_contents()
    assert cells[1] == "Bot 3 (basic)" and cells[2] == "Ben & Bot 4 (basic)", cells
    await shot(page, f"{name}-profile")
    assert await fits(page)
    await row.locator("a.replay-link").click()
    await page.wait_for_selector("#viewer[data-at='0']:not([data-loading])", timeout=10000)
    await page.click("#last")
    await page.wait_for_selector("#viewer:not([data-at='0']):not([data-loading])", timeout=10000)
    shown = [await page.text_content("#score-0"), await page.text_content("#score-1")]
    assert shown == [str(s) for s in scores], shown
    assert await page.text_content("#seat-1 h3") == "Ben (seat 1)"
    await shot(page, f"{name}-replay")
    assert await fits(page)
    # Back to the player's own page from the viewer's header.
    await page.click("#to-search")
    await page.wait_for_selector(f"#profile-games tr[data-game='{game_id}']", timeout=10000)


async def test_a_player_opens_their_page_sees_their_game_and_replays_it(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, _, t):
        game = await listed(ada, ada.player_id, t["game_id"])
        problems: list[str] = []
        async with chromium() as browser:
            for width, name in ((1100, "web-profile"), (375, "web-profile-phone")):
                page = await new_page(browser, problems, width=width)
                await signed_in_as(page, ada)
                await profile_then_replay(page, platform.a.url, ada, game, name)
        assert problems == []
