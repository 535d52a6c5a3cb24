"""A player's page in the web client: linked from the header, with the rated record and the
list of the player's finished games, each replayed in the same viewer operators use, through
the players' routes; on a desktop and on a phone."""

from __future__ import annotations

import json
import time

from playwright.async_api import Locator, Page

from tests.e2e.browser import chromium, new_page, one_page, shot, sign_in
from tests.e2e.conftest import Platform
from tests.e2e.test_history import listed
from tests.e2e.test_play_again import ONE_HAND, finished_table
from tests.services.lobby.harness import Player


async def signed_in_as(page: Page, player_id: str, name: str, token: str) -> None:
    """The page holds this player's session, as the web client keeps it after signing in."""
    me = json.dumps({"player_id": player_id, "name": name})
    await page.add_init_script(f"localStorage.setItem('token', {json.dumps(token)});"
                               f"localStorage.setItem('me', {json.dumps(me)});")


async def fits(page: Page) -> bool:
    """Nothing wider than the window: no sideways scrolling, on a phone too."""
    wider = await page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => `${e.tagName}#${e.id}.${e.className}:${e.getBoundingClientRect().right}`)""")
    assert not wider, wider
    return bool(await page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"))


async def my_game(page: Page, player_id: str, game_id: str, rated: bool = False) -> Locator:
    """The header's "My profile" opens the player's page, with ``game_id`` in its games
    (a rated one with its rating change, which may trail the game's end a little)."""
    await page.click("#my-profile")
    row = page.locator(f"#profile-games tr[data-game='{game_id}']")
    deadline = time.monotonic() + 30
    while True:
        await row.wait_for(timeout=30000)
        if not rated or "→" in (await row.locator(".rating").text_content() or ""):
            break
        assert time.monotonic() < deadline, await row.text_content()
        await page.wait_for_timeout(500)
        await page.reload()
    assert page.url.endswith(f"#/players/{player_id}")
    assert "(you)" in (await page.text_content("#profile-name") or "")
    return row


async def replay(page: Page, row: Locator, name: str) -> None:
    """The row's Replay link opens the viewer on the game; its end shows the row's score,
    and the viewer's header leads back to the player's page."""
    scores = (await row.get_attribute("data-scores") or "").split()
    game_id = await row.get_attribute("data-game")
    assert game_id is not None
    await row.locator("a.replay-link").click()
    await page.wait_for_selector("#viewer[data-at='0']:not([data-loading])", timeout=10000)
    await page.click("#last")
    await page.wait_for_selector("#viewer:not([data-at='0']):not([data-loading])", timeout=10000)
    assert [await page.text_content("#score-0"), await page.text_content("#score-1")] == scores
    # A person knows the game by who played it and when: "A & C v B & D · date".
    title = await page.text_content("#game-id") or ""
    assert " & " in title and " v " in title and game_id not in title, title
    assert await page.text_content("#position") == "The end"
    # The table as it was: a slider trick by trick, not the operators' list of events.
    assert await page.is_hidden("#events") and await page.is_hidden("#event-json")
    fifth = await page.evaluate("R.stops.findIndex((k) => typeAt(k) === 'TrickWon'"
                                " && R.log.events[k - 1].event.trick_no === 5)")
    assert fifth > 0
    await page.locator("#slider").evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", fifth)
    await page.wait_for_selector("#trick-caption:has-text('Trick 5: ')", timeout=10000)
    assert await page.locator("#trick .played .card svg.face").count() == 4
    assert await page.locator("#trick .played.winner").count() == 1
    assert await page.text_content("#position") == "Hand 1 · 5 of 13 tricks"
    bids = await page.locator("#board .bid").all_text_contents()
    assert len(bids) == 4 and all(b.startswith("bid") for b in bids), bids
    await shot(page, f"{name}-replay-trick")
    await page.click("#last")
    await page.wait_for_selector("#position:text-is('The end')", timeout=10000)
    await shot(page, f"{name}-replay")
    assert await fits(page)
    await page.click("#to-search")
    await page.wait_for_selector(f"#profile-games tr[data-game='{game_id}']", timeout=10000)


async def profile_then_replay(page: Page, base: str, ada: Player, game: dict[str, object],
                              name: str) -> None:
    await page.goto(f"{base}/")
    await page.wait_for_selector("#lobby:not([hidden])")
    for link in ("#nav-play", "#nav-ranked", "#nav-tournaments", "#nav-leaderboard"):
        assert await page.is_visible(link), link
    await shot(page, f"{name}-home")
    row = await my_game(page, ada.player_id, str(game["game_id"]))
    scores = game["scores"]
    assert isinstance(scores, list)
    assert await row.get_attribute("data-scores") == f"{scores[0]} {scores[1]}"
    assert await row.locator(".score").text_content() == f"{scores[0]} \N{EN DASH} {scores[1]}"
    result = game["result"]
    assert isinstance(result, str)
    assert result in (await row.locator(".result").get_attribute("class") or "")
    assert await row.locator(".rating").text_content() == "unrated"
    cells = await row.locator("td").all_text_contents()
    assert cells[1] == "Bot 3 (basic)" and cells[2] == "Ben & Bot 4 (basic)", cells
    await shot(page, f"{name}-profile")
    assert await fits(page)
    await replay(page, row, name)


async def test_a_player_opens_their_page_sees_their_game_and_replays_it(
        platform: Platform) -> None:
    async with finished_table(platform, ONE_HAND) as (ada, _, t):
        game = await listed(ada, ada.player_id, t["game_id"])
        problems: list[str] = []
        async with chromium() as browser:
            for width, name in ((1100, "web-profile"), (375, "web-profile-phone")):
                page = await new_page(browser, problems, width=width)
                await signed_in_as(page, ada.player_id, ada.name, ada.token)
                await profile_then_replay(page, platform.a.url, ada, game, name)
        assert problems == []


async def test_a_guest_is_told_before_any_click_that_ranked_play_is_for_registered_players(
        platform: Platform) -> None:
    async with one_page("web-queue-guest") as page:
        await sign_in(page, platform.a.url, "Gus")
        await page.wait_for_selector("#queue-state:has-text('for registered players')")
        assert await page.is_disabled("#queue-join")
        await shot(page, "web-queue-guest")
