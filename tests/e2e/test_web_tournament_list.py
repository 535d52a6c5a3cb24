"""The tournaments page as a newcomer meets it, in headless Chromium, on a phone and on a
laptop: registering a name right there (a one-letter name is refused, and the page says
why), the list fitting the screen with each finished tournament's champion named, and a
refusal told in the project's own words rather than the server's."""

from __future__ import annotations

import uuid
from typing import Any

from playwright.async_api import Browser, Page

from tests.e2e.browser import chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_duplicate_unseen import WAITING
from tests.e2e.test_tournament_run import copy
from tests.services.lobby.harness import Player, Service
from tests.services.lobby.test_tournaments import PASSWORD, body, organizer, registered
from tests.waiting import until


async def fits(page: Page, width: int) -> None:
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide} px wide on a {width} px screen"


async def _finished_cup(org: Player, name: str) -> dict[str, str]:
    """Two bot teams' final, played to its end (bots move at once here): the summary."""
    tid = (await org.ok("POST", "/v1/tournaments", body(
        name=name, min_teams=2, max_teams=2, check_in_minutes=0)))["tournament_id"]
    for team in ("Gulls", "Terns"):
        await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": team})
    await org.ok("POST", f"/v1/tournaments/{tid}/start")

    async def finished() -> dict[str, str] | None:
        listed = await org.ok("GET", "/v1/tournaments?status=finished&limit=200")
        return next((t for t in listed["tournaments"] if t["tournament_id"] == tid), None)

    summary: dict[str, str] = await until(finished, timeout=60, every=0.3)
    return summary


async def test_a_newcomer_registers_on_the_tournaments_page_and_reads_the_list(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        ratings_beside: Service) -> None:
    scheduler = copy(platform, platform_env, "web-list")
    problems: list[str] = []
    tag = uuid.uuid4().hex[:4]
    try:
        org = await organizer(platform.a, database_url)
        done = await _finished_cup(org, f"Lighthouse cup {tag}")
        assert done["champion_name"] in ("Gulls", "Terns"), done
        # A long name, as organizers write them: the list must still fit a phone.
        open_cup = f"Open water championship of the northern harbours {tag}"
        open_tid = (await org.ok("POST", "/v1/tournaments", body(
            name=open_cup, check_in_minutes=0)))["tournament_id"]
        async with chromium() as browser:
            page = await new_page(browser, problems, width=375, height=667)
            await page.goto(f"{platform.a.url}/tournaments")
            await page.wait_for_selector("#register-account-form")
            assert await page.is_visible("#login-form")
            await shot(page, "tournaments-signed-out-phone")
            await fits(page, 375)
            # One letter and a dot: the server refuses it by its code, the page says why.
            await page.fill("#new-name", "J.")
            await page.fill("#new-password", PASSWORD)
            await page.click("#new-go")
            await page.wait_for_selector("#status:has-text('at least two letters or digits')")
            assert "two letters" in (await page.text_content(
                "#register-account-form #near-error") or "")
            said = await page.text_content("#status") or ""
            assert "name_too_short" not in said, said
            await shot(page, "tournaments-name-too-short-phone")
            me = f"Mariner{tag}"
            await page.fill("#new-name", me)
            await page.click("#new-go")
            await page.wait_for_selector("#list:not([hidden])")
            row = page.locator(f"#tournaments tr[data-tournament='{done['tournament_id']}']")
            await row.wait_for()
            champion = await row.locator("td[data-label='Champion']").text_content()
            assert champion == done["champion_name"], champion
            assert done["champion"] not in (await row.text_content() or "")  # never an id
            await row.scroll_into_view_if_needed()
            await shot(page, "tournaments-list-phone")
            await fits(page, 375)
            # A refusal in the project's words: naming oneself as partner.
            await page.click(f"#tournaments tr[data-tournament='{open_tid}'] a")
            await page.wait_for_selector("#register-form:not([hidden])")
            await page.fill("#team-name", "Solo sailors")
            await page.fill("#partner", me)
            await page.click("#register-go")
            await page.wait_for_selector(
                "#status:text-is('A team is two players: name your partner, not yourself.')")
            # Said beside the form too, where a phone scrolled down to it looks.
            assert await page.text_content("#register-form #near-error") == (
                "A team is two players: name your partner, not yourself.")
            await shot(page, "tournaments-self-partner-phone")
            await fits(page, 375)
            laptop = await new_page(browser, problems, width=1280, height=800)
            await laptop.goto(f"{platform.a.url}/tournaments")
            await laptop.fill("#login-name", me)
            await laptop.fill("#login-password", PASSWORD)
            await laptop.click("#login-go")
            await laptop.wait_for_selector(
                f"#tournaments tr[data-tournament='{done['tournament_id']}']")
            cells = await laptop.locator(
                f"#tournaments tr[data-tournament='{done['tournament_id']}'] td"
            ).all_text_contents()
            assert cells[-1] == done["champion_name"], cells
            await shot(laptop, "tournaments-list-laptop")
            await fits(laptop, 1280)
    finally:
        scheduler.stop()
    assert problems == []


async def _player_page(browser: Browser, problems: list[str], base: str, who: Player,
                       tid: str) -> Page:
    """``who``'s view of the tournament on a phone, their team's box shown."""
    page = await new_page(browser, problems, width=375, height=667)
    await page.goto(f"{base}/tournaments#{tid}")
    await page.fill("#login-name", who.name)
    await page.fill("#login-password", PASSWORD)
    await page.click("#login-go")
    await page.wait_for_selector("#my-team:not([hidden])")
    return page


async def test_a_knocked_out_team_is_not_offered_withdraw_while_the_others_play_on(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        ratings_beside: Service) -> None:
    """Four teams of people in a knockout; the organizer settles one semi-final (its
    people have not come yet) while the other waits: the losers are out, told so, and
    offered no Withdraw; a team still in is."""
    scheduler = copy(platform, platform_env, "web-ko")
    problems: list[str] = []
    people: list[Player] = []
    try:
        org = await organizer(platform.a, database_url)
        tid = (await org.ok("POST", "/v1/tournaments", body(
            name=f"Knockout {uuid.uuid4().hex[:4]}", rules=WAITING, min_teams=4, max_teams=4,
            no_show_seconds=600, check_in_minutes=0)))["tournament_id"]
        people = [await registered(platform.a.url, "ko") for _ in range(8)]
        for i, (a, b) in enumerate(zip(people[::2], people[1::2], strict=True)):
            team = (await a.ok("POST", f"/v1/tournaments/{tid}/teams",
                               {"partner": b.player_id, "name": f"Crew {i}"}))["team_id"]
            await b.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
        await org.ok("POST", f"/v1/tournaments/{tid}/start")

        async def drawn() -> dict[str, Any] | None:
            view: dict[str, Any] = await org.ok("GET", f"/v1/tournaments/{tid}")
            return view if view["matches"] else None

        view = await until(drawn, timeout=30, every=0.3)
        teams = {t["team_id"]: t for t in view["teams"]}
        settled, other = view["matches"][0], view["matches"][1]
        await org.ok("POST", f"/v1/tournaments/{tid}/matches/{settled['match_id']}/override",
                     {"outcome": "home", "why": "the away team did not come"})
        loser = teams[settled["away"]]["players"][0]
        still_in = teams[other["home"]]["players"][0]
        by_id = {p.player_id: p for p in people}
        async with chromium() as browser:
            out = await _player_page(browser, problems, platform.a.url, by_id[loser], tid)
            await out.wait_for_selector("#my-team-text:has-text('out in the')")
            assert await out.get_attribute("#detail", "data-status") == "running"
            assert await out.is_hidden("#withdraw")
            await shot(out, "tournament-knocked-out-phone")
            await fits(out, 375)
            playing = await _player_page(browser, problems, platform.a.url, by_id[still_in],
                                         tid)
            assert await playing.is_visible("#withdraw")
    finally:
        scheduler.stop()
        for p in people:
            await p.aclose()
    assert problems == []
