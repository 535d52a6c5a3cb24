"""The game fits the screen: on two laptops and two phones, in every phase of a game (the
blind-nil choice, the exchange, bidding, play, the hand just scored, the end), the hand,
the bids and the action buttons are wholly inside the window without scrolling, and
their boxes stay where they were from one turn to the next. Each phase at each size is
kept as a screenshot (tests/artifacts/fit-*.png) of what the window shows."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from typing import Any

from nats.aio.client import Client
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from schemas.matches import MatchSeat, OpenMatch
from tests.e2e.browser import (
    ARTIFACTS,
    fill_with_bots_and_start,
    one_page,
    open_private_table,
    sign_in,
)
from tests.e2e.conftest import Platform
from tests.e2e.test_matches import ONE_HAND, open_match

SIZES = [(1280, 800), (1366, 768), (390, 844), (375, 667)]
Boxes = dict[tuple[int, int], dict[str, Any]]  # per window size, where each dock row was

# Every box the player must reach in the dock, and whether each is inside the window.
MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom].map(Math.round); };
  const shown = (el) => el.offsetParent !== null;
  const reach = [...document.querySelectorAll(
    '#hand .card, #controls button, #end button, #end a.button')].filter(shown);
  const w = window.innerWidth, h = window.innerHeight;
  const out = reach.filter((el) => { const [l, t, r, b] = box(el);
                                     return l < 0 || t < 0 || r > w || b > h; });
  return { outside: out.map((el) => el.textContent || el.dataset.card),
           reached: reach.length, wide: document.documentElement.scrollWidth > w,
           scrolled: window.scrollY,
           dock: box(document.getElementById('dock')),
           hand: box(document.getElementById('hand')),
           controls: box(document.getElementById('controls')) };
}"""


async def fits(page: Page, phase: str, boxes: Boxes, shown: str) -> None:
    """At each size: ``shown`` (the phase's buttons) and the rest of the dock inside the
    window, nothing wider than it, and the dock's rows where they were in earlier phases."""
    for width, height in SIZES:
        await page.set_viewport_size({"width": width, "height": height})
        await page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => "
                            "requestAnimationFrame(ok)))")
        got = await page.evaluate(MEASURE)
        await page.screenshot(path=str(ARTIFACTS / f"fit-{phase}-{width}x{height}.png"))
        where = f"{phase} at {width}x{height}"
        assert await page.locator(shown).count(), f"{where}: no {shown}"
        assert got["reached"] and got["outside"] == [], f"{where}: off screen {got['outside']}"
        assert not got["wide"] and got["scrolled"] == 0, f"{where}: the page scrolls"
        rows = ("dock",) if phase.endswith("over") else ("dock", "hand", "controls")
        earlier = boxes.setdefault((width, height), {k: got[k] for k in rows})
        for k in rows:
            assert got[k] == earlier.setdefault(k, got[k]), f"{where}: the {k} moved"
    await page.set_viewport_size({"width": 1280, "height": 800})


async def play_until(page: Page, what: str, timeout: float = 90) -> None:
    """Play (a bid of three, the first legal card, never a look at new cards: the test
    looks itself) until ``what`` holds on the page."""
    deadline = time.monotonic() + timeout
    bid = page.locator("#controls button.bid[data-bid='3']")
    legal = page.locator("#hand button.card.legal:not([disabled])")
    while not await page.evaluate(what):
        assert time.monotonic() < deadline, f"never: {what}"
        for choice in (bid, legal):
            if await choice.count():
                # The page re-renders on every event: the button may be gone by the click.
                with contextlib.suppress(PlaywrightTimeout):
                    await choice.first.click(timeout=300)
                break
        await page.wait_for_timeout(30)


async def test_every_phase_of_a_table_game_fits_every_screen(platform: Platform) -> None:
    async with one_page("fit-table") as page:
        await open_private_table(page, platform.a.url, "Fits", "house")
        # Blind nil open at any score, two cards passed after it, two hands to the end.
        rules = {"target": None, "max_hands": 2, "blind_nil_margin": None, "blind_nil_pass": 2}
        await page.evaluate(f"tableCall('PATCH', 'rules', {json.dumps(rules)})")
        await page.wait_for_selector("#rules-summary:has-text('after 2 hands')")
        await fill_with_bots_and_start(page)
        boxes: Boxes = {}
        await page.wait_for_selector("#controls button:has-text('Bid blind nil')", timeout=15000)
        await fits(page, "blind-nil", boxes, "#controls button:has-text('Bid blind nil')")
        await page.click("#controls button:has-text('Bid blind nil')")
        passing = "#controls button:has-text('Pass 2 card')"
        await page.wait_for_selector(passing, timeout=15000)
        await fits(page, "passing", boxes, passing)
        for card in (await page.locator("#hand button.card").all())[-2:]:
            await card.click()
        await page.click(passing)
        await page.wait_for_selector("#hand button.card.legal", timeout=30000)
        # A refused move says why on the dock, above the hand, not only in the header.
        await page.evaluate("command('bid', {bid: 5})")
        await page.wait_for_selector("#move-error:has-text('does not fit this moment')")
        await fits(page, "play", boxes, "#hand button.card.legal")
        await play_until(page, "!document.getElementById('hand-result').hidden && "
                               "[...document.querySelectorAll('#controls button')]"
                               ".some(b => b.textContent === 'Look at my cards')")
        await fits(page, "hand-scored", boxes, "#hand-result")
        await page.click("#controls button:has-text('Look at my cards')")
        await page.wait_for_selector("#controls button.bid[data-bid='13']", timeout=15000)
        await fits(page, "bidding", boxes, "#controls button.bid[data-bid='13']")
        await play_until(page, "!document.getElementById('end').hidden")
        await fits(page, "over", boxes, "#end #new-table")


def match(match_id: str, player: str, origin: str) -> OpenMatch:
    return OpenMatch(match_id=match_id, origin=origin,  # type: ignore[arg-type]
                     origin_id=f"cup-{uuid.uuid4().hex[:6]}", rules=ONE_HAND,
                     seats=(MatchSeat(player_id=player), MatchSeat(bot="basic"),
                            MatchSeat(bot="basic"), MatchSeat(bot="basic")), ready_seconds=60)


async def test_a_ranked_and_a_tournament_game_fit_under_their_longer_header(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    async with one_page("fit-match") as page:
        await sign_in(page, platform.a.url, "Matched")
        me = json.loads(await page.evaluate("localStorage.getItem('me')"))["player_id"]
        # A tournament's game names its tournament, round and teams only for a tournament
        # the service knows; the caption is above the board either way, the dock fixed.
        for origin, caption in (("queue", "Ranked game"), ("tournament", "")):
            boxes: Boxes = {}
            await page.goto(f"{platform.a.url}/")
            await page.wait_for_selector("#lobby:not([hidden])")
            await open_match(nc, f"{nats_prefix}e2e",
                             match(f"fit-{uuid.uuid4().hex[:8]}", me, origin))
            await page.wait_for_selector("#offer-ready:not([disabled])", timeout=10000)
            await page.click("#offer-ready")
            await page.wait_for_selector("#game:not([hidden])", timeout=15000)
            if caption:
                await page.wait_for_selector(f"#game-origin:has-text('{caption}')")
            # These rules offer no blind nil: the cards show at once, the bids in turn.
            await page.wait_for_selector("#controls button.bid[data-bid='13']", timeout=15000)
            await fits(page, f"{origin}-bidding", boxes, "#controls button.bid[data-bid='13']")
            await play_until(page, "document.querySelector('#hand button.card.legal') !== null")
            await fits(page, f"{origin}-play", boxes, "#hand button.card.legal")
            await play_until(page, "!document.getElementById('end').hidden")
            await fits(page, f"{origin}-over", boxes, "#end #new-table")
