"""A tournament from a brand-new account's side, in headless Chromium: the player registers
a name on the home page, finds the tournament, registers a team by the partner's name (the
partner, a scripted player, accepts the invitation on their own page), checks in, presses
Ready, follows "Play your match" straight to the game with its clock, plays every card by
clicking (a reload mid-game comes back to the game, not to the lobby), goes back to the
tournament from the game's end, plays on while the team wins, watches the bracket to a
champion and opens the bracket's links: its own match's replay, another match's score
sheet; someone in no team watches the first match from its bracket link. The same
player's second screen, a phone 375 px wide, shows the key screens, none reaching past
the screen's edge. Three other teams are scripted players."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid

from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.e2e.browser import chromium, new_page, register, shot
from tests.e2e.conftest import Platform
from tests.e2e.test_tournament_run import attend, copy, dismiss, four_team_cup
from tests.e2e.test_web_profile import fits, signed_in_as
from tests.e2e.test_web_tournaments import signed_in
from tests.services.lobby.harness import Service
from tests.services.lobby.test_tournaments import PASSWORD, organizer, registered

# One hand a game; clocks long enough for a browser on a busy machine, and the club rule
# (a player who runs out of time forfeits for the pair): a move missed would lose the match.
RULES = {"preset": "quick", "max_hands": 1, "abandon": "forfeit",
         "clocks": {"bid_ms": 60_000, "play_ms": 60_000, "single_card_ms": 60_000,
                    "bank_blocks": 0, "bank_block_ms": 0}}


# The tournament page once it offers a match (Ready) or the tournament is over.
OFFERED_OR_OVER = """() => document.getElementById('detail').dataset.status === 'finished'
    || document.querySelector('#banner:not([hidden]) #ready:not([hidden])')"""


async def new_account(page: Page, base: str, name: str) -> None:
    """Register a name on the home page, then open the tournaments from its header."""
    await register(page, base, name, PASSWORD)
    await page.click("#nav-tournaments")
    await page.wait_for_selector("#list:not([hidden])")


async def move(page: Page) -> bool:
    """One move if the page offers one (bid three, or the first legal card): True if made."""
    for choice in (page.locator("#controls button.bid[data-bid='3']"),
                   page.locator("#hand button.card.legal:not([disabled])")):
        if await choice.count():
            # The page re-renders on every event: the button may be gone by the click.
            with contextlib.suppress(PlaywrightTimeout):
                await choice.first.click(timeout=500)
                return True
    return False


async def play_to_the_end(page: Page, reload_after: int | None = None) -> None:
    """Click moves until the game's end shows; after ``reload_after`` moves, reload the
    page once and check the game comes back, seated, with its clock running."""
    made, deadline = 0, time.monotonic() + 240
    while await page.is_hidden("#end"):
        assert time.monotonic() < deadline, "the game did not end"
        if await move(page):
            made += 1
        if reload_after is not None and made == reload_after:
            reload_after = None
            await page.reload()
            await page.wait_for_selector("#game:not([hidden])", timeout=15_000)
            assert "#/games/" in page.url and await page.is_hidden("#lobby")
            await page.wait_for_selector("#hand button.card", timeout=15_000)
            await page.wait_for_selector("#board .clock", timeout=15_000)
            await shot(page, "journey-reloaded-mid-game")
        await page.wait_for_timeout(50)


async def test_a_new_account_registers_plays_its_matches_and_follows_the_bracket(
        platform: Platform, platform_env: dict[str, str], ratings_beside: Service,
        database_url: str) -> None:
    lobby = platform.a
    scheduler = copy(platform, platform_env, "journey")
    problems: list[str] = []
    scripted: list[asyncio.Task[None]] = []
    me = f"n{uuid.uuid4().hex[:10]}"
    try:
        org = await organizer(lobby, database_url)
        partner = await registered(lobby.url)
        others = [await registered(lobby.url) for _ in range(6)]
        scripted = [asyncio.create_task(attend(p, lobby)) for p in [partner, *others]]
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await new_account(page, lobby.url, me)
            # Check-in open from now; the organizer starts it once every team checked in.
            tid = await four_team_cup(org, others, RULES, 300_000, check_in_minutes=5)
            invited = await new_page(browser, problems)  # the partner's own page
            await signed_in(invited, lobby.url, partner.name)
            await invited.wait_for_selector("#list:not([hidden])")
            # A player is not offered the organizer's form, and is told who organizes.
            await invited.wait_for_selector("#create-note:not([hidden])")
            assert await invited.locator("#create-form").is_hidden()
            await page.reload()  # the list as it is now, with the new cup
            await page.click(f"#tournaments tr[data-tournament='{tid}'] a")
            await page.wait_for_selector("#detail:not([hidden])")
            await shot(page, "journey-1-tournament")
            await page.fill("#team-name", "Browsers")
            await page.fill("#partner", partner.name.upper())  # by name, as a person types it
            await page.click("#register-go")
            await page.wait_for_selector("#my-team:not([hidden])")
            team = await page.get_attribute("#my-team", "data-team")
            assert team
            await shot(page, "journey-2-registered")
            await invited.wait_for_selector("#accept-invite:not([hidden])", timeout=10_000)
            assert me in (await invited.text_content("#banner-text") or "")
            await shot(invited, "journey-3-partner-invited")
            await invited.click("#accept-invite")
            await invited.wait_for_selector("#my-team-text:has-text('confirmed')")
            await page.wait_for_selector("#check-in:not([hidden])")  # live: the confirmation
            await page.click("#check-in")
            await page.wait_for_selector("#my-team-text:has-text('checked in')")
            await partner.ok("POST", f"/v1/tournaments/{tid}/check-in")
            await page.wait_for_selector(f"#teams tr[data-team='{team}'] td:has-text('checked in')")
            # People by name, never by id: the partner, the players of every team, the host.
            assert partner.name in (await page.text_content("#my-team-text") or "")
            shown = await page.text_content("#teams tbody") or ""
            assert f"{me} & {partner.name}" in shown
            assert all(p.name in shown and p.player_id not in shown for p in others)
            assert await page.text_content("#t-organizer") == org.name
            assert (await page.text_content("#t-check-in") or "").startswith("Check-in: from ")
            assert await page.is_visible("#no-bracket") and await page.is_hidden("#standings")
            await shot(page, "journey-4-checked-in")

            watcher = await new_page(browser, problems)  # someone in no team
            await signed_in(watcher, lobby.url, (await registered(lobby.url, "w")).name)
            await watcher.wait_for_selector("#list:not([hidden])")
            # The same player's phone: the same session, 375 px wide.
            phone = await new_page(browser, problems, width=375, height=812)
            await signed_in_as(phone, await page.evaluate("JSON.parse(localStorage.me)"
                                                          ".player_id"), me,
                               await page.evaluate("localStorage.getItem('token')"))
            await phone.goto(f"{lobby.url}/tournaments#{tid}")
            await phone.wait_for_selector("#my-team-text:has-text('checked in')")
            await shot(phone, "journey-phone-1-checked-in")
            assert await fits(phone)
            await org.ok("POST", f"/v1/tournaments/{tid}/start")

            try:
                played = await play_the_matches(page, phone, watcher, lobby.url, tid)
            except Exception as exc:
                await shot(page, "journey-failed")
                raise AssertionError(f"{exc}; status line: {await page.text_content('#status')}"
                                     f"; page errors: {problems}") from exc

            await page.wait_for_selector("#detail[data-status='finished']", timeout=180_000)
            champion = (await page.text_content("#t-champion")) or ""
            assert champion.startswith("Champion: ")
            assert await page.locator("#bracket .match[data-outcome='']").count() == 0
            rounds = await page.locator("#bracket .round h3").all_text_contents()
            assert rounds == ["Semi-finals", "Final"], rounds
            # A knockout's standings without the Swiss tie-breaks; a finished tournament
            # offers no Withdraw and no match to play; the team's line says how it did.
            heads = await page.locator("#standings th").all_text_contents()
            assert "Buchholz" not in heads and "Reached" in heads, heads
            assert await page.is_hidden("#withdraw") and await page.is_hidden("#banner")
            assert re.search(r": (champions!|out in the (Semi-finals|Final))$",
                             await page.text_content("#my-team-text") or "")
            states = await page.locator("#teams tbody td:nth-child(4)").all_text_contents()
            assert sorted(states).count("champions!") == 1, states
            await shot(page, "journey-8-champion")
            await phone.goto(f"{lobby.url}/tournaments#{tid}")
            await phone.wait_for_selector("#detail[data-status='finished']")
            await shot(phone, "journey-phone-3-champion")
            assert await fits(phone)

            # The bracket's links: every match was played, so each links to its game; our
            # own first match to its replay, another to its final score sheet.
            view = await org.ok("GET", f"/v1/tournaments/{tid}")
            ours = next(m for m in view["matches"] if m["game_id"] == played[0])
            theirs = next(m for m in view["matches"] if team not in (m["home"], m["away"]))
            assert all(m["game_id"] for m in view["matches"])
            await replay_from_the_bracket(page, lobby.url, tid, ours, "journey-9-replay")
            await replay_from_the_bracket(phone, lobby.url, tid, ours, "journey-phone-4-replay")
            await page.goto(f"{lobby.url}/tournaments#{tid}")
            link = page.locator(f"#bracket .match[data-match='{theirs['match_id']}'] a.game-link")
            assert await link.text_content() == "Score sheet"
            await link.click()
            await page.wait_for_selector("#end:not([hidden])", timeout=15_000)
            assert await page.locator("#sheet tr").count() >= 1
            await page.locator("#game-origin a").wait_for(timeout=10_000)  # its own GET
            assert "Four cup" in (await page.text_content("#game-origin") or "")
            await shot(page, "journey-10-other-match")
    finally:
        await dismiss(scripted)
        scheduler.stop()
    assert view["summary"]["status"] == "finished"
    assert [m["reason"] for m in view["matches"]] == ["played"] * 3
    assert not problems, problems


async def play_the_matches(page: Page, phone: Page, spectator: Page, base: str,
                           tid: str) -> list[str]:
    """Each match the team is offered: Ready, "Play your match", every card by clicking,
    back to the tournament from the game's end; until the team is out or the tournament
    over. The games played, in order. Someone in no team watches the first."""
    played: list[str] = []
    while True:
        await page.wait_for_function(OFFERED_OR_OVER, timeout=180_000)
        if await page.get_attribute("#detail", "data-status") == "finished":
            return played
        await page.wait_for_selector("#bracket .match")
        await shot(page, f"journey-5-offered-{len(played) + 1}")
        await page.click("#ready")
        await page.wait_for_selector("#play:not([hidden])", timeout=30_000)
        # The bracket links our match, now live, to its game too.
        await page.locator("#bracket .match.ours a.game-link:text-is('Play your match')"
                           ).wait_for(timeout=15_000)
        await shot(page, f"journey-5-begun-{len(played) + 1}")
        await page.click("#play")
        await page.wait_for_selector("#game:not([hidden])", timeout=15_000)
        await page.wait_for_selector("#hand button.card", timeout=15_000)
        game = re.sub(r".*#/games/", "", page.url)
        played.append(game)
        # Which tournament, round and teams: the game's own caption.
        origin = page.locator("#game-origin")
        await origin.locator("a").wait_for(timeout=10_000)
        caption = await origin.text_content() or ""
        assert caption.startswith("Four cup · ") and "Browsers" in caption, caption
        assert re.search(r"· (Semi-finals|Final) · ", caption), caption
        await page.wait_for_selector("#board .clock", timeout=15_000)
        await shot(page, f"journey-6-playing-{len(played)}")
        if len(played) == 1:  # the phone, on the same game, seated as on the desktop
            await phone.goto(f"{base}/#/games/{game}")
            await phone.wait_for_selector("#hand button.card", timeout=15_000)
            await shot(phone, "journey-phone-2-playing")
            assert await fits(phone)
            await watch_from_the_bracket(spectator, base, tid, game)
        await play_to_the_end(page, reload_after=5 if len(played) == 1 else None)
        await shot(page, f"journey-7-game-over-{len(played)}")
        # Every move was the page's own: the bid it clicks, never a clock's choice.
        me = json.loads(await page.evaluate("localStorage.getItem('me')"))["name"]
        assert f"{me}: bid 3, took " in (await page.text_content("#sheet") or "")
        won = (await page.text_content("#end h3")) == "You won!"
        await page.click("#to-tournament")
        try:
            await page.wait_for_selector("#detail:not([hidden])[data-status]", timeout=7_500)
        except PlaywrightTimeout:
            # Seen once in a full run: the page still on the finished game as the next
            # match's ready check came in. A person clicks again; the screenshot keeps it.
            await shot(page, "journey-still-on-the-game")
            await page.click("#to-tournament")
            await page.wait_for_selector("#detail:not([hidden])[data-status]", timeout=15_000)
        assert page.url.endswith(f"/tournaments#{tid}")
        # Our match is over on the bracket, with its replay for us.
        box = page.locator(f"#bracket .match:has(a.game-link[data-game='{game}'])")
        await box.locator("a.game-link:text-is('Replay')").wait_for(timeout=15_000)
        if not won:
            return played


async def watch_from_the_bracket(page: Page, base: str, tid: str, game: str) -> None:
    """Someone not in the match follows its bracket link: the game, watched (no hand)."""
    await page.goto(f"{base}/tournaments#{tid}")
    link = page.locator(f"#bracket .match a.game-link[data-game='{game}']")
    assert await link.text_content() == "Watch"
    await link.click()
    await page.wait_for_selector("#headline:has-text('watching, a few tricks behind')",
                                 timeout=15_000)
    assert "#/games/" in page.url and await page.locator("#hand button").count() == 0
    await page.locator("#game-origin a").wait_for(timeout=10_000)  # its own GET
    assert (await page.text_content("#game-origin") or "").startswith("Four cup · ")
    await shot(page, "journey-6-watched-by-another")


async def replay_from_the_bracket(page: Page, base: str, tid: str, match: dict[str, object],
                                  name: str) -> None:
    """The bracket's link on our match opens the replay viewer on its game."""
    await page.goto(f"{base}/tournaments#{tid}")
    link = page.locator(f"#bracket .match[data-match='{match['match_id']}'] a.game-link")
    assert await link.text_content() == "Replay"
    await link.click()
    await page.wait_for_selector("#viewer[data-at='0']:not([data-loading])", timeout=15_000)
    assert page.url.endswith(f"/replay/{match['game_id']}")
    await page.click("#last")
    await page.wait_for_selector("#viewer:not([data-at='0']):not([data-loading])",
                                 timeout=15_000)
    # The replay names its tournament and round, and leads back to the tournament.
    await page.wait_for_selector("#to-tournament:has-text('Four cup · ')", timeout=10_000)
    await shot(page, name)
    assert await fits(page)
