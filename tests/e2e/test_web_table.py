"""The web client's table as a person meets it, in headless Chromium: sign-in forms, the
rules in words and the host's editor, the hand in the variant's order, a finished trick
with its winner, the score sheet, the end of a match, watching as a spectator, and errors
that clear. Screenshots of each stage go to tests/artifacts/."""

from __future__ import annotations

import contextlib
import json
import re
import time
import uuid

import pytest
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from engine.cards import CODES, SUITS, TRUMP, deck
from tests.e2e.browser import (
    chromium,
    fill_with_bots_and_start,
    new_page,
    one_page,
    open_private_table,
    play_a_little,
    quick_game_with_bots,
    shot,
    sign_in,
)
from tests.e2e.conftest import Platform
from tests.services.lobby.harness import Player

ORDER = "SHCD"  # the client's suit order: spades (and every trump) first


def engine_order(name: str, deuce_order: str) -> list[str]:
    """The deck high to low per suit, as the engine ranks it (elevated trumps atop spades)."""
    d = deck(name, deuce_order)
    cards = [CODES[c] for c in d.cards]

    def key(code: str) -> tuple[int, int]:
        c = CODES.index(code)
        suit = "S" if d.suit_of[c] == TRUMP else SUITS[d.suit_of[c]]
        return ORDER.index(suit), -d.power[c]

    return sorted(cards, key=key)


@pytest.mark.parametrize(("name", "deuce_order"), [
    ("jokers_deuces", "diamond_high"), ("jokers_deuces", "spade_high"), ("jokers", "diamond_high"),
    ("deuces", "spade_high"), ("deuce_ace", "diamond_high"), ("standard", "diamond_high")])
async def test_a_hand_is_sorted_by_the_variants_real_order(
        platform: Platform, name: str, deuce_order: str) -> None:
    want = engine_order(name, deuce_order)
    if name == "jokers_deuces":  # the issue's own words: jokers and deuces atop the spades
        deuces = ["2D", "2S"] if deuce_order == "diamond_high" else ["2S", "2D"]
        assert want[:5] == ["BJ", "LJ", *deuces, "AS"]
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await page.goto(f"{platform.a.url}/")
        shuffled = sorted(want, key=lambda c: uuid.uuid5(uuid.NAMESPACE_OID, c).hex)
        got = await page.evaluate(
            f"sortHand({json.dumps(shuffled)}, "
            f"{json.dumps({'deck': name, 'deuce_order': deuce_order})})")
    assert got == want and problems == []


async def test_refusals_read_as_sentences_and_a_cooldown_counts_down(
        platform: Platform) -> None:
    """An error code never shows: a refusal is a sentence (the client's own for the codes
    it knows, the server's message otherwise), and a queue cooldown counts down each second."""
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await sign_in(page, platform.a.url, "Cooling")
        said = await page.evaluate("""[
            plainError({code: "must_follow_suit", message: "seat 0 holds the led suit"}),
            plainError({code: "registered_only", message:
                        "ranked games are for registered accounts with 10 finished games"}),
            plainError({code: "queue_cooldown", message: "x", until: Date.now() + 65000}),
        ]""")
        assert said == ["You have a card of the suit that was led: you must play one.",
                        "Ranked games are for registered accounts with 10 finished games.",
                        "You left or missed a ranked match lately: you may queue again in "
                        "1 min 05 s."]
        # The lobby's own first look at the queue would overwrite the frame below: let it land.
        await page.wait_for_function(
            "document.getElementById('queue-stats').textContent.includes('waiting alone')")
        await page.evaluate("onFrame({type: 'error', code: 'queue_cooldown', message: 'x',"
                            " until: Date.now() + 4200})")
        status = await page.text_content("#status") or ""
        assert "queue again in 5 s" in status and "queue_cooldown" not in status
        first = await page.text_content("#queue-state") or ""
        assert first == "Not queued. You may queue again in 5 s.", first
        await page.wait_for_function(
            "document.getElementById('queue-state').textContent.endsWith('again in 3 s.')",
            timeout=4000)
        await shot(page, "queue-cooldown")
        await page.wait_for_function(
            "document.getElementById('queue-state').textContent === 'Not queued.'",
            timeout=6000)
    assert problems == []


async def test_register_sign_out_and_sign_in_again(platform: Platform) -> None:
    name = f"Reg{uuid.uuid4().hex[:6]}"
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await page.goto(f"{platform.a.url}/")
        await page.fill("#register-name", name)
        await page.fill("#register-password", "a long password")
        await page.click("#register-go")
        await page.wait_for_selector("#lobby:not([hidden])")
        assert await page.text_content("#who") == f"Signed in as {name}"
        await shot(page, "lobby")
        await page.click("#sign-out")
        await page.wait_for_selector("#signin:not([hidden])")
        await page.fill("#login-name", name)
        await page.fill("#login-password", "the wrong one")
        await page.click("#login-go")
        await page.wait_for_selector("#status:has-text('wrong password')")
        await page.fill("#login-password", "a long password")
        await page.click("#login-go")
        await page.wait_for_selector("#lobby:not([hidden])")
        assert await page.text_content("#status") == ""  # the old error went with its cause
        assert await page.text_content("#who") == f"Signed in as {name}"
    assert problems == []


async def test_a_stale_error_clears_once_the_situation_changes(platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await sign_in(page, platform.a.url, "Typo")
        await page.fill("#code", "ZZZZZZ")
        await page.click("#join-code")
        await page.wait_for_selector("#status:has-text('no table has that room code')")
        # Said beside the form too, where a phone scrolled down is looking.
        await page.wait_for_selector("#code-form #near-error:has-text('no table has that')")
        await shot(page, "error-near-the-form")
        await page.click("#create")
        await page.wait_for_selector("#table:not([hidden])")
        assert await page.text_content("#status") == ""
        assert await page.locator("#near-error").count() == 0
    assert problems == []


async def test_a_rules_edit_shows_in_the_rules_summary(platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await open_private_table(page, platform.a.url, "Host", "classic")
        await page.wait_for_selector("#rules-editor:not([hidden])")
        summary = await page.text_content("#rules-summary")
        assert summary is not None and "first team to 500" in summary
        assert "Bids go in turn" in summary
        await page.fill("#rule-target", "300")
        await page.select_option("#rule-bidding", "simultaneous")
        await page.click("#rules-apply")
        await page.wait_for_selector("#rules-summary:has-text('first team to 300')")
        summary = await page.text_content("#rules-summary")
        assert summary is not None and "Bids are secret" in summary
        await shot(page, "rules-editor")
        await page.fill("#rule-board", "20")
        await page.click("#rules-apply")
        await page.wait_for_selector("#status:has-text('board')")  # the server says why
        await page.click("#rules-reset")
        await page.wait_for_selector("#rules-summary:has-text('first team to 500')")
        assert await page.text_content("#status") == ""
    assert problems == []


async def _until(page: Page, what: str, step: bool, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not await page.evaluate(what):
        assert time.monotonic() < deadline, f"never: {what}"
        if step:
            await play_a_little(page)
        await page.wait_for_timeout(30)


async def test_a_finished_trick_stays_with_its_winner_and_can_be_looked_at_again(
        platform: Platform) -> None:
    problems: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, problems)
        await quick_game_with_bots(page, platform.a.url, "Trickster", trick_pause_ms=2000)
        await page.wait_for_selector("#turn-cue.mine")
        await shot(page, "bidding")
        seats = await page.locator("#board .seat .name").all_text_contents()
        assert "Trickster (guest) (you)" in seats and "Bot 3 (basic) (partner)" in seats
        # A trick is over the moment a winner is marked: four cards, one per seat's side.
        await _until(page, "document.querySelector('#trick .card.winner') !== null", step=True)
        slots = await page.eval_on_selector_all(
            "#trick .card", "cs => cs.map(c => c.className.match(/slot-\\d/)[0])")
        assert sorted(slots) == ["slot-0", "slot-1", "slot-2", "slot-3"]
        caption = await page.text_content("#trick-caption")
        assert caption is not None and caption.endswith("takes the trick")
        assert await page.locator("#trick .card.led").count() == 1
        await _cards_have_faces(page)
        await _books_line_adds_up(page)
        await shot(page, "finished-trick")
        await page.wait_for_timeout(900)  # still there well within the two seconds
        assert await page.locator("#trick .card.winner").count() == 1
        await page.click("#last-trick")
        rows = await page.locator("#last-trick-box div").all_text_contents()
        assert len(rows) == 4 and sum("took it" in r for r in rows) == 1
        # The hand ends: its last trick and its score show before the next deal is played.
        # Play only until the hand's result shows: a move after it would be the next hand's.
        await _until(page, "!document.querySelector('#hand-result').hidden", step=True,
                     timeout=90)
        await _until(page, "document.querySelectorAll('#sheet tr').length > 0", step=False,
                     timeout=10)
        assert await page.is_visible("#hand-result")
        cell = await page.text_content("#sheet tr td:nth-child(2)")
        assert cell is not None and "Trickster (guest):" in cell and "took" in cell and "→" in cell
        await shot(page, "score-sheet")
    assert problems == []


async def _cards_have_faces(page: Page) -> None:
    """Every card on the page is a drawn face: an SVG of the card's size, named for it."""
    # The page redraws on every event and the trick's cards come and go: measure once the
    # cards on screen are laid out (each has a box), then look at every one of them.
    with contextlib.suppress(PlaywrightTimeout):
        await page.wait_for_function("""() => [...document.querySelectorAll(
            "#hand .card svg.face, #trick .card svg.face")].every(
            svg => svg.getBoundingClientRect().width > 0)""", timeout=5000)
    faces = await page.eval_on_selector_all("#hand .card, #trick .card", """cs => cs.map(c => {
        const svg = c.querySelector("svg.face"), r = svg && svg.getBoundingClientRect();
        return {card: c.dataset.card, label: svg && svg.getAttribute("aria-label"),
                w: r ? r.width : 0, h: r ? r.height : 0,
                shapes: svg ? svg.querySelectorAll("path, text").length : 0};
    })""")
    assert len(faces) >= 5, faces  # some of the hand, and the four cards of the trick
    for f in faces:
        assert f["label"] and f["w"] >= 30 and 1.3 < f["h"] / f["w"] < 1.5, f
        assert f["shapes"] >= 4, f  # two corners of rank and suit at least


BOOKS = re.compile(r"^Us (\d+)/(\d+|\?) · Them (\d+)/(\d+|\?)$")


async def _books_line_adds_up(page: Page) -> None:
    """"Us 2/6 · Them 3/5": each partnership's books against its bids, from the seat's view."""
    line = await page.text_content("#books") or ""
    m = BOOKS.match(line)
    assert m, line
    v = await page.evaluate("({tricks: S.view.tricks, bids: S.view.bids, seat: S.view.seat})")
    us, them = v["seat"] % 2, 1 - v["seat"] % 2
    for team, took, bid in ((us, m[1], m[2]), (them, m[3], m[4])):
        assert int(took) == v["tricks"][team] + v["tricks"][team + 2]
        bids = (v["bids"][team], v["bids"][team + 2])
        assert bid == ("?" if None in bids else str(sum(bids))), (line, v)


async def test_the_table_fits_a_phone(platform: Platform) -> None:
    """At 375 px wide (a phone) every element of the table page lies within the screen's
    width, the cards still show their faces and the books line reads as on a desktop."""
    problems: list[str] = []
    # A game in "Playing now" whose player has a long name with no space to break at.
    long = await Player.guest(platform.b.url, "Pneumonoultramicroscopic" + uuid.uuid4().hex[:6])
    t = await long.ok("POST", "/v1/tables", {"rules": "quick", "seat": 0})
    await long.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
    await long.ok("POST", f"/v1/tables/{t['table_id']}/start")
    async with chromium() as browser:
        page = await new_page(browser, problems, width=375, height=812)
        await sign_in(page, platform.a.url, "Pocket")
        await page.click("#live-refresh")
        await page.wait_for_selector(f"#live td:has-text('{long.name[:12]}')")
        await _within_the_screen(page, "#lobby")
        await shot(page, "phone-lobby")
        await page.select_option("#preset", "quick")
        await page.check("#private")
        await page.click("#create")
        await page.wait_for_selector("#table:not([hidden])")
        await _within_the_screen(page, "#table")
        await page.select_option("#trick-pause", "2000")
        await fill_with_bots_and_start(page)
        await page.wait_for_selector("#hand button.card", timeout=10000)
        await _until(page, "document.querySelectorAll('#trick .card').length >= 3", step=True)
        await _cards_have_faces(page)
        await _books_line_adds_up(page)
        await _within_the_screen(page, "#game")
        await shot(page, "phone-table")
        await _until(page, "!document.querySelector('#hand-result').hidden", step=True,
                     timeout=90)
        await _within_the_screen(page, "#game")
        await shot(page, "phone-hand-result")
    await long.aclose()
    assert problems == []


async def _within_the_screen(page: Page, section: str) -> None:
    """No element shown (the header and ``section``) reaches past the left or right edge."""
    wide = await page.evaluate("""(section) => {
        const w = document.documentElement.clientWidth, out = [];
        const all = `header, header *, ${section}, ${section} *`;
        for (const el of document.querySelectorAll(all)) {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) continue;
            if (r.left < -1 || r.right > w + 1) {
                out.push(`${el.tagName}#${el.id}.${el.className.baseVal ?? el.className}: `
                         + `${Math.round(r.left)}..${Math.round(r.right)} of ${w}`);
            }
        }
        if (document.documentElement.scrollWidth > w + 1) {
            out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${w}`);
        }
        return out;
    }""", section)
    assert wide == [], wide


async def test_a_spectator_watches_a_match_to_its_end_and_sees_no_hand(
        platform: Platform) -> None:
    host = await Player.guest(platform.b.url, "Organizer")
    try:
        t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        problems: list[str] = []
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await sign_in(page, platform.a.url, "Watcher")
            await host.ok("POST", f"/v1/tables/{t['table_id']}/start")
            await page.click(f"#tables button.watch-table[data-table='{t['table_id']}']")
            await page.wait_for_selector("#game:not([hidden])")
            await page.wait_for_selector("#headline:has-text('watching')")
            await page.wait_for_selector("#pos-0 .name")
            assert await page.locator("#hand button").count() == 0
            assert await page.locator("#controls button").count() == 0
            await page.wait_for_selector("#end:not([hidden])", timeout=120_000)
            reason = await page.text_content("#end-reason")
            assert reason is not None and "4-hand limit" in reason
            assert await page.locator("#sheet tr").count() >= 4
            await shot(page, "end-of-match")
            # Playing again is for those seated; a spectator goes back to the lobby.
            assert not await page.is_visible("#play-again")
            assert await page.text_content("#new-table") == "Back to the lobby"
            await page.click("#new-table")
            await page.wait_for_selector("#lobby:not([hidden])")
        assert problems == []
    finally:
        await host.aclose()


# What a person at the page could do next, or the bounce it was shown: a look, a bid, a
# legal card, or a card to lock as a pre-move while none is locked.
_MOVE_OR_BOUNCE = """() => window.bounced || document.querySelector(
    "#controls button.bid, #hand button.card.legal:not([disabled])")
    || [...document.querySelectorAll("#controls button")].some(
        b => b.textContent.includes("Look at my cards"))
    || (document.querySelector("#hand button.card[title^='pre-move']")
        && !document.querySelector("#hand .chosen"))
    || document.getElementById("headline").textContent.startsWith("Game over")"""


async def test_a_pre_move_that_bounces_says_why(platform: Platform) -> None:
    """Lock the first card of the hand whenever another seat is to play: sooner or later
    it cannot be played when the turn comes (the led suit must be followed, or spades
    are not broken), and the page says so."""
    async with one_page("premove-bounced") as page:
        await quick_game_with_bots(page, platform.a.url, "Early", trick_pause_ms=0)
        # The cue shows the bounce until the player's next move, and a move of this loop
        # may cross the bounce on its way: the page itself keeps the first bounced cue it
        # shows, whenever it comes, and the loop stops moving once one showed.
        await page.evaluate("""() => {
            const cue = document.getElementById("turn-cue");
            new MutationObserver(() => {
                if (!window.bounced && cue.textContent.includes("went back to your hand"))
                    window.bounced = cue.textContent;
            }).observe(cue, {childList: true, characterData: true, subtree: true});
        }""")
        while not (said := await page.evaluate("window.bounced || ''")):
            headline = await page.text_content("#headline") or ""
            assert not headline.startswith("Game over"), f"no pre-move bounced: {headline}"
            premove = page.locator("#hand button.card[title^='pre-move']:not(.chosen)")
            if await premove.count() and not await page.locator("#hand .chosen").count():
                with contextlib.suppress(PlaywrightTimeout):
                    await premove.first.click(timeout=300)
            else:
                await play_a_little(page)
            # Until the page offers the next move (or shows a bounce): the game moves on
            # bots' and the server's time, not the test's.
            await page.wait_for_function(_MOVE_OR_BOUNCE, timeout=30_000)
        assert said.startswith("Your turn: play a card (your pre-move "), said
        assert any(why in said for why in (
            "you had to follow the suit led", "spades were not broken yet")), said
        await shot(page, "premove-bounced")


async def test_the_lobby_lists_games_being_played_now_and_one_is_watched_from_it(
        platform: Platform) -> None:
    host = await Player.guest(platform.b.url, "Showman")
    try:
        # The host holds a seat and does not play: the game waits on them while it is
        # listed and watched (four bots would finish it before the page looks).
        t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": 0})
        await host.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        game_id = (await host.ok("POST", f"/v1/tables/{t['table_id']}/start"))["game_id"]
        problems: list[str] = []
        async with chromium() as browser:
            page = await new_page(browser, problems)
            await sign_in(page, platform.a.url, "Viewer")
            button = f"button.watch-live[data-game='{game_id}']"
            watch = f"#live {button}"
            for _ in range(50):  # the list is read on entering the lobby and on Refresh
                if await page.locator(watch).count():
                    break
                await page.click("#live-refresh")
                await page.wait_for_timeout(100)
            row = page.locator("#live tr", has=page.locator(button))
            assert "Table" in (await row.text_content() or "")
            await shot(page, "playing-now")
            await page.click(watch)
            await page.wait_for_selector("#game:not([hidden])")
            await page.wait_for_selector("#headline:has-text('watching')")
            assert await page.locator("#hand button").count() == 0
        assert problems == []
    finally:
        await host.aclose()
