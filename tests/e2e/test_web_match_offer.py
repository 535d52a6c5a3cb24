"""The web client answers a match offer: a tournament match asks its player to confirm,
the page shows the offer with its countdown wherever the player is (after a reload too),
"Ready" opens the game once everyone confirmed, and a declined match says why it will
not start."""

from __future__ import annotations

import json
import re
import uuid

from nats.aio.client import Client
from playwright.async_api import Page

from schemas.matches import MatchSeat, OpenMatch
from tests.e2e.browser import one_page, shot, sign_in
from tests.e2e.conftest import Platform
from tests.e2e.test_matches import ONE_HAND, open_match
from tests.services.lobby.harness import Player


async def player_id(page: Page) -> str:
    me = json.loads(await page.evaluate("localStorage.getItem('me')"))
    return str(me["player_id"])


def offer(match_id: str, player: str) -> OpenMatch:
    return OpenMatch(match_id=match_id, origin="tournament", origin_id="cup-7", rules=ONE_HAND,
                     seats=(MatchSeat(player_id=player), MatchSeat(bot="basic"),
                            MatchSeat(bot="basic"), MatchSeat(bot="basic")),
                     ready_seconds=60)


async def test_ready_opens_the_match_and_decline_says_it_will_not_start(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    async with one_page("web-match-offer") as page:
        await sign_in(page, platform.a.url, "Ready")
        me = await player_id(page)
        declined = f"wd-{uuid.uuid4().hex[:8]}"
        await open_match(nc, f"{nats_prefix}e2e", offer(declined, me))
        await page.wait_for_selector("#offer-box:not([hidden])", timeout=10000)
        assert "confirm within" in (await page.text_content("#offer-text") or "")
        await page.click("#offer-decline")
        await page.wait_for_selector("#offer-box", state="hidden", timeout=10000)
        await page.wait_for_function(
            "document.getElementById('status').textContent.includes('You declined')")
        await shot(page, "web-match-declined")

        started = f"ws-{uuid.uuid4().hex[:8]}"
        opened = await open_match(nc, f"{nats_prefix}e2e", offer(started, me))
        await page.wait_for_selector("#offer-box:not([hidden])", timeout=10000)
        assert await page.text_content("#status") == ""  # the last offer's end is gone
        await page.reload()  # the page forgets the offer, GET /v1/me does not
        await page.wait_for_selector("#offer-box:not([hidden])", timeout=10000)
        await shot(page, "web-match-offer")
        await page.click("#offer-ready")  # the bots are ready: the game starts now
        await page.wait_for_selector("#game:not([hidden])", timeout=15000)
        await page.wait_for_selector("#hand button.card", timeout=15000)
        assert await page.evaluate("S.game") == opened.game_id
        assert await page.is_hidden("#offer-box")
        await shot(page, "web-match-started")


async def test_ready_stays_said_and_the_tab_title_calls_during_the_offer(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    """Pressing Ready says "You are ready" until the match starts or falls through, with
    the time left; while the offer waits for this player the tab's title asks for it."""
    async with one_page("web-match-ready") as page:
        await sign_in(page, platform.a.url, "Eager")
        me = await player_id(page)
        slow = await Player.guest(platform.a.url, "Slow")
        try:
            await open_match(nc, f"{nats_prefix}e2e", OpenMatch(
                match_id=f"wr-{uuid.uuid4().hex[:8]}", origin="tournament", origin_id="cup-8",
                rules=ONE_HAND, ready_seconds=40,
                seats=(MatchSeat(player_id=me), MatchSeat(player_id=slow.player_id),
                       MatchSeat(bot="basic"), MatchSeat(bot="basic"))))
            await page.wait_for_selector("#offer-box:not([hidden])", timeout=10000)
            assert (await page.title()).startswith("⏰ Confirm your match")
            await page.click("#offer-ready")
            said = await page.text_content("#offer-text") or ""
            first = int(re.findall(r"\((\d+) s left\)", said)[0])
            assert said.startswith("You are ready. Waiting for"), said
            # Three seconds on, the countdown still runs beside "You are ready".
            await page.wait_for_function(
                "(n) => { const m = document.getElementById('offer-text').textContent"
                ".match(/You are ready\\. Waiting for 1 more player\\(s\\) to confirm "
                "\\((\\d+) s left\\)/); return m && Number(m[1]) <= n - 3; }", arg=first,
                timeout=10000)
            assert await page.text_content("#offer-ready") == "Ready ✓"
            assert await page.is_disabled("#offer-ready")
            assert await page.title() == "Spades"
            await shot(page, "web-match-ready-waiting")
        finally:
            await slow.http.aclose()
