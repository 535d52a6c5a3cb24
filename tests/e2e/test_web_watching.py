"""Watching as a person meets it, in headless Chromium.

A ranked match (no room code) is watched a few tricks behind. Its watcher sees each trick
as a live one does, the four cards and then the winner taking them, never a full trick
lying unclaimed until the next trick comes; once the game is over the page no longer says
it is behind. In "Playing now", a tournament's game is named by its tournament, round and
teams rather than only by its (often bots') players."""

from __future__ import annotations

import asyncio
import time
import uuid

from nats.aio.client import Client

from schemas.matches import OPEN_MATCH, MatchOpened, MatchSeat, OpenMatch
from schemas.subjects import Names
from services.platform import bus
from tests.e2e.browser import chromium, new_page, shot, sign_in
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat
from tests.e2e.test_duplicate_unseen import WAITING
from tests.e2e.test_duplicate_unseen import _ready as ready
from tests.e2e.test_tournament_run import copy
from tests.services.lobby.harness import Player, Service
from tests.services.lobby.test_tournaments import body, organizer, registered
from tests.waiting import until

ONE_HAND = {"preset": "classic", "target": None, "max_hands": 1}
PAUSE = 1.2  # seconds between the person's moves: the bots answer at once

# Every 100 ms: how many samples in a row the trick showed four cards and no winner (the
# longest such run), and how many showed a winner taking a trick.
SAMPLER = """() => {
  window.unclaimed = { run: 0, longest: 0, taken: 0 };
  setInterval(() => {
    const u = window.unclaimed;
    const cards = document.querySelectorAll('#trick .card').length;
    const winner = document.querySelector('#trick .winner');
    u.run = cards === 4 && !winner ? u.run + 1 : 0;
    u.longest = Math.max(u.longest, u.run);
    if (winner) u.taken += 1;
  }, 100);
}"""


async def _ranked_game(nc: Client, nats_prefix: str, person: Player) -> str:
    """A match of the queue's kind (no table of theirs, so no room code): ``person`` at
    seat 0 and three bots."""
    opened = await bus.request(
        nc, Names(f"{nats_prefix}e2e").endpoint("lobby", OPEN_MATCH),
        OpenMatch(match_id=f"web-watch-{uuid.uuid4().hex[:8]}", rules=ONE_HAND, origin="queue",
                  seats=(MatchSeat(player_id=person.player_id), MatchSeat(bot="basic"),
                         MatchSeat(bot="basic"), MatchSeat(bot="basic"))),
        MatchOpened, timeout=10)
    return opened.game_id


async def _play_slowly(seat: Seat) -> None:
    """The person's moves, one every ``PAUSE`` seconds, to the end of the game."""
    deadline = time.monotonic() + 120
    while seat.ended is None:
        assert time.monotonic() < deadline, "the game did not end in time"
        await seat.act()
        until_next = time.monotonic() + PAUSE
        while (left := until_next - time.monotonic()) > 0 or seat.pending:
            try:
                seat.absorb(await seat.sock.recv(max(left, 0.1)))
            except TimeoutError:
                if seat.pending is None:
                    break


async def test_a_delayed_watcher_sees_each_trick_taken_and_the_end_as_it_is(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    problems: list[str] = []
    person = await Player.guest(platform.a.url, "Slowpoke")
    try:
        game_id = await _ranked_game(nc, nats_prefix, person)
        seat = Seat(person, await person.socket(platform.a.ws_url), game_id)
        await seat.subscribe()
        async with chromium() as browser:
            page = await new_page(browser, problems, width=1280, height=800)
            await sign_in(page, platform.a.url, "Onlooker")
            row = page.locator("#live tr", has=page.locator(
                f"button.watch-live[data-game='{game_id}']"))
            for _ in range(50):
                if await row.count():
                    break
                await page.click("#live-refresh")
                await page.wait_for_timeout(100)
            assert "Ranked, a few tricks behind" in (await row.text_content() or "")
            await row.locator("button.watch-live").click()
            await page.wait_for_selector("#headline:has-text('a few tricks behind the play')")
            await page.evaluate(SAMPLER)
            playing = asyncio.create_task(_play_slowly(seat))
            await page.wait_for_selector("#trick .card.winner", timeout=60_000)
            await shot(page, "watch-delayed-trick-taken")
            caption = await page.text_content("#trick-caption") or ""
            assert caption.endswith("takes the trick"), caption
            await playing
            await page.wait_for_selector("#headline:has-text('Game over')", timeout=20_000)
            headline = await page.text_content("#headline") or ""
            assert "behind" not in headline and "watching" in headline, headline
            await shot(page, "watch-delayed-over")
            sampled = await page.evaluate("window.unclaimed")
        # A full trick without its winner only between two frames of one burst, never for
        # a whole trick of the person's pace (12 samples).
        assert sampled["longest"] < 5, sampled
        assert sampled["taken"] > 0, sampled
    finally:
        await person.aclose()
    assert problems == []


async def test_playing_now_names_a_tournaments_game_by_its_tournament_and_teams(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        ratings_beside: Service) -> None:
    """A final between a team of people (who take their time) and a team of bots."""
    scheduler = copy(platform, platform_env, "web-live")
    problems: list[str] = []
    people: list[Player] = []
    try:
        org = await organizer(platform.a, database_url)
        cup = f"Harbour cup {uuid.uuid4().hex[:4]}"
        tid = (await org.ok("POST", "/v1/tournaments", body(
            name=cup, rules=WAITING, min_teams=2, max_teams=2, no_show_seconds=600,
            check_in_minutes=0)))["tournament_id"]
        people = [await registered(platform.a.url, "live") for _ in range(2)]
        team = (await people[0].ok("POST", f"/v1/tournaments/{tid}/teams",
                                   {"partner": people[1].player_id, "name": "Deckhands"}))
        await people[1].ok("POST", f"/v1/tournaments/{tid}/teams/{team['team_id']}/confirm")
        await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": "Tin sailors"})
        started = [asyncio.create_task(ready(p, platform.a)) for p in people]
        await org.ok("POST", f"/v1/tournaments/{tid}/start")
        game_id = (await asyncio.wait_for(asyncio.gather(*started), 120))[0]

        async def listed() -> dict[str, object] | None:
            live = await org.ok("GET", "/v1/games/live?limit=100")
            return next((g for g in live["games"] if g["game_id"] == game_id), None)

        game = await until(listed, timeout=30, every=0.2)
        assert game["origin"] == "tournament"
        assert game["tournament"] == {
            "tournament_id": tid, "name": cup, "round_no": 1, "round_name": "Final",
            "home": game["tournament"]["home"], "away": game["tournament"]["away"]}, game
        assert {game["tournament"]["home"], game["tournament"]["away"]} == {
            "Deckhands", "Tin sailors"}
        async with chromium() as browser:
            for width, height in ((1280, 800), (375, 667)):
                page = await new_page(browser, problems, width=width, height=height)
                await sign_in(page, platform.a.url, "Spectator")
                row = page.locator("#live tr", has=page.locator(
                    f"button.watch-live[data-game='{game_id}']"))
                await row.wait_for(timeout=10_000)
                match = await row.locator(".live-match").text_content() or ""
                home, away = game["tournament"]["home"], game["tournament"]["away"]
                assert match == f"{cup}, Final: {home} v {away}", match
                assert await page.evaluate(
                    "document.documentElement.scrollWidth") <= width
                await row.scroll_into_view_if_needed()
                await shot(page, f"live-tournament-{width}")
    finally:
        scheduler.stop()
        for p in people:
            await p.aclose()
    assert problems == []
