"""The replay viewer, driven in headless Chromium through a whole finished game: it steps
by event, trick and hand, jumps, and at every stop shows what the engine's state holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright

from engine.evolve import evolve
from engine.state import GameState
from engine.views import operator_view, view
from schemas import events as ev
from tests.e2e.browser import ARGS, ARTIFACTS, CHROMIUM, chromium, new_page, shot
from tests.e2e.conftest import Platform
from tests.e2e.replays import PASSWORD, finished_game, operator
from tests.e2e.truth import stored_events


class Judge:
    """The engine's state at each event, and where the viewer's buttons should lead."""

    def __init__(self, events: list[ev.Event]) -> None:
        self.events = events
        self.states = [GameState()]
        for e in events:
            self.states.append(evolve(self.states[-1], e))

    def after(self, n: int, kind: type) -> int:
        return next((k for k in range(n + 1, len(self.events) + 1)
                     if isinstance(self.events[k - 1], kind)), len(self.events))

    def before(self, n: int, kind: type) -> int:
        return next((k for k in range(n - 1, 0, -1) if isinstance(self.events[k - 1], kind)), 0)

    async def check(self, page: Page, n: int) -> None:
        await page.wait_for_selector(f"#viewer[data-at='{n}']:not([data-loading])",
                                     timeout=5000)
        shown = await page.evaluate("""() => {
            const cards = (sel) => [...document.querySelectorAll(sel)].map(c => c.dataset.card);
            return {
              hands: [0, 1, 2, 3].map(s => cards(`#hand-${s} .card`)),
              bids: [0, 1, 2, 3].map(s => Number(document.getElementById(`bid-${s}`).dataset.bid)),
              tricks: [0, 1, 2, 3].map(s =>
                Number(document.getElementById(`tricks-${s}`).dataset.tricks)),
              trick: [...document.querySelectorAll('#trick .played')].map(
                p => [Number(p.dataset.seat), p.querySelector('.card').dataset.card]),
              scores: [Number(document.getElementById('score-0').textContent),
                       Number(document.getElementById('score-1').textContent)],
              sheet: document.querySelectorAll('#sheet tbody tr').length,
              current: [...document.querySelectorAll('#events li.current')].map(
                li => Number(li.dataset.at)),
              json: document.getElementById('event-json').textContent,
            };
        }""")
        truth = operator_view(self.states[n])
        assert shown["hands"] == [list(h) for h in truth.hands], n
        assert shown["bids"] == list(truth.bids), n
        assert shown["tricks"] == list(truth.table.tricks), n
        assert shown["trick"] == [[t.seat, t.card] for t in truth.table.trick], n
        assert shown["scores"] == list(truth.table.scores), n
        assert shown["sheet"] == len(truth.table.sheet), n
        assert shown["current"] == ([n] if n else []), n
        if n:
            logged = json.loads(shown["json"])
            assert logged["version"] == n
            assert logged["event"]["type"] == type(self.events[n - 1]).__name__, n


    async def check_seat(self, page: Page, n: int, seat: int) -> None:
        """Through one seat's eyes: its own hand only, the bids it could see."""
        await page.wait_for_selector(
            f"#viewer[data-at='{n}'][data-eyes='{seat}']:not([data-loading])", timeout=5000)
        shown = await page.evaluate("""() => [0, 1, 2, 3].map(s => {
            const hand = document.getElementById(`hand-${s}`);
            return { cards: [...hand.querySelectorAll('.card')].map(c => c.dataset.card),
                     count: hand.dataset.count === undefined ? null : Number(hand.dataset.count),
                     bid: Number(document.getElementById(`bid-${s}`).dataset.bid) };
        })""")
        truth = view(self.states[n], seat)
        for s in range(4):
            if s == seat:
                assert shown[s]["cards"] == list(truth.hand or ()) and shown[s]["count"] is None
            else:
                assert shown[s]["cards"] == [] and shown[s]["count"] == truth.cards_left[s]
            bid = truth.bids[s]
            assert shown[s]["bid"] == (bid if bid is not None else
                                       -2 if truth.has_bid[s] else -1), (n, s)


async def test_the_replay_viewer_walks_a_whole_game_and_shows_the_engines_state(
        platform: Platform, database_url: str) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: install the Debian package "
                    "(apt-get install -y chromium) or set SPADES_CHROMIUM")
    ARTIFACTS.mkdir(exist_ok=True)
    op = await operator(platform, database_url, "Vera Viewer")
    game = await finished_game(platform, op)
    judge = Judge(await stored_events(database_url, game.game_id))
    last = len(judge.events)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        context = await browser.new_context(viewport={"width": 1400, "height": 1000})
        page = await context.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        try:
            await page.goto(f"{platform.b.url}/admin/replay/{game.game_id}")
            await page.fill("#login-name", "Vera Viewer")  # no token yet: the sign-in form
            await page.fill("#login-password", PASSWORD)
            await page.click("#login-go")
            n = 0
            await judge.check(page, n)

            for _ in range(30):  # the first deal and bidding, event by event
                await page.click("#next")
                n += 1
                await judge.check(page, n)
            for _ in range(3):
                await page.click("#prev")
                n -= 1
                await judge.check(page, n)

            while n < last:  # the rest of the game, trick by trick
                await page.click("#next-trick")
                n = judge.after(n, ev.TrickWon)
                await judge.check(page, n)
            for _ in range(5):
                await page.click("#prev-trick")
                n = judge.before(n, ev.TrickWon)
                await judge.check(page, n)

            await page.click("#first")
            n = 0
            await judge.check(page, n)
            hands = 0
            while n < last:  # and hand by hand, there and back
                await page.click("#next-hand")
                n = judge.after(n, ev.HandDealt)
                hands += 1
                await judge.check(page, n)
            assert hands == 5  # four deals, then the end
            while n > 0:
                await page.click("#prev-hand")
                n = judge.before(n, ev.HandDealt)
                await judge.check(page, n)

            for n in (last // 3, 2 * last // 3 + 1, last, 17):
                await page.fill("#jump", str(n))
                await page.click("#go")
                await judge.check(page, n)
            await page.click(f"#events li[data-at='{last - 1}']")
            await judge.check(page, last - 1)
            await page.click("#last")
            await judge.check(page, last)
            assert "verified" in (await page.text_content("#verdict") or "")
            bidding = next(k for k in range(1, last)  # some bids made, not yet revealed
                           if judge.states[k].phase == "bidding"
                           and 0 < sum(b >= 0 for b in judge.states[k].bids) < 4)
            await page.fill("#jump", str(bidding))
            await page.click("#go")
            await judge.check(page, bidding)
            await page.select_option("#eyes", "2")
            await judge.check_seat(page, bidding, 2)
            await page.click("#next-trick")
            n = judge.after(bidding, ev.TrickWon)
            await judge.check_seat(page, n, 2)
            await page.select_option("#eyes", "")
            await judge.check(page, n)

            middle = next(k for k in range(last // 2, last)  # two cards on the table
                          if len(judge.states[k].trick) == 2)
            await page.fill("#jump", str(middle))
            await page.click("#go")
            await judge.check(page, middle)
            await page.screenshot(path=str(ARTIFACTS / "replay-viewer.png"), full_page=True)

            # The token is kept: a new page opens straight onto the game.
            again = await context.new_page()
            await again.goto(f"{platform.b.url}/admin/replay/{game.game_id}?at=9")
            await judge.check(again, 9)
        except Exception:
            await page.screenshot(path=str(ARTIFACTS / "replay-viewer-failed.png"),
                                  full_page=True)
            raise
        finally:
            await browser.close()
    assert problems == []
    await op.aclose()


async def test_an_operator_finds_a_game_by_search_and_sees_names_and_cards(
        platform: Platform, database_url: str) -> None:
    op = await operator(platform, database_url, "Sam Searcher")
    game = await finished_game(platform, op)
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await page.goto(f"{platform.a.url}/admin/replay")
        await page.fill("#login-name", "Sam Searcher")
        await page.fill("#login-password", PASSWORD)
        await page.click("#login-go")
        await page.wait_for_selector("#search:not([hidden])")
        await page.select_option("#search-outcome", "hands")
        await page.click("#search-go")
        link = page.locator(f"a.open-game[data-game='{game.game_id}']")
        await link.wait_for()
        row = await page.locator("#found tbody tr", has=link).text_content()
        assert row is not None and "Bot 1 (basic), Bot 2 (basic)" in row and "hands" in row
        await shot(page, "replay-search")
        await link.click()
        await page.wait_for_selector("#viewer[data-at='0']:not([data-loading])")
        assert await page.text_content("#seat-0 h3") == "Bot 1 (basic) (seat 0)"
        assert await page.text_content("#eyes-3") == "Bot 4 (basic) (seat 3)"
        events = await page.locator("#events li").all_text_contents()
        played = [e for e in events if e.startswith("CardPlayed")]
        assert played and all(any(s in e for s in "♠♥♦♣★") for e in played)
        assert not any("seat" in e and "bot:" in e for e in events)
        await page.click("#last")
        await page.wait_for_selector(f"#viewer[data-at='{len(events)}']:not([data-loading])")
        assert await page.locator("#last-trick .card").count() == 4
    assert problems == []
    await op.aclose()
