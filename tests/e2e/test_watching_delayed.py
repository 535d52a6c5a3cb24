"""Watching a ranked or tournament match (a table with no room code): anyone signed
in may, with a delay: an event reaches the watcher only once ``watch_delay_tricks``
(3) tricks were completed after it, and all of it by the end. An operator watches it
live. The players play in lockstep here, so the game is exactly where they are.
And the list of games being played now, best-rated first, never a private table's."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
from nats.aio.client import Client

from schemas.matches import OPEN_MATCH, MatchOpened, MatchSeat, OpenMatch
from schemas.subjects import Names
from services.platform import bus
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat
from tests.e2e.replays import operator, registered
from tests.e2e.test_tournament_run import copy
from tests.services.lobby.harness import Player, Service, Socket
from tests.services.lobby.test_tournaments import body, role, signed_in_again
from tests.services.lobby.test_tournaments import registered as organizer_account

DELAY = 3  # the lobby's default watch_delay_tricks
ONE_HAND = {"preset": "classic", "target": None, "max_hands": 1}


async def _open(nc: Client, nats_prefix: str, match_id: str, people: list[Player],
                origin: str = "queue", origin_id: str = "test") -> str:
    """``people`` seated by the queue's way in (no table of theirs: no room code)."""
    opened = await bus.request(
        nc, Names(f"{nats_prefix}e2e").endpoint("lobby", OPEN_MATCH),
        OpenMatch(match_id=match_id, rules=ONE_HAND, origin=origin,  # type: ignore[arg-type]
                  origin_id=origin_id,
                  seats=tuple(MatchSeat(player_id=p.player_id) for p in people)),  # type: ignore[arg-type]
        MatchOpened, timeout=10)
    return opened.game_id


async def _match(platform: Platform, nc: Client, nats_prefix: str, tag: str,
                 **origin: str) -> tuple[str, list[Seat]]:
    """Four guests in a match, each following it as its seat."""
    people = [await Player.guest(platform.a.url, f"P{tag}{i}") for i in range(4)]
    socks = [await p.socket(platform.a.ws_url) for p in people]
    game_id = await _open(nc, nats_prefix, f"watch-{tag}", people, **origin)
    seats = [Seat(p, s, game_id) for p, s in zip(people, socks, strict=True)]
    for s in seats:
        await s.subscribe()
    return game_id, seats


async def _sync(seats: list[Seat], version: int) -> None:
    for s in seats:
        while s.version < version or s.pending:
            s.absorb(await s.sock.recv(10))


async def _drain(sock: Socket, into: list[dict[str, Any]], wait: float = 0.05) -> None:
    while True:
        try:
            f = await sock.recv(wait)
        except TimeoutError:
            return
        if f["type"] == "event":
            into.append(f)


def _live(sock: Socket) -> Callable[[list[dict[str, Any]], int], Awaitable[None]]:
    """A live watcher's check: every event up to the game's version reaches it, however
    busy its gateway (the drain's short quiet is no bound on its delivery), and no more."""
    async def check(seen: list[dict[str, Any]], now: int) -> None:
        while not seen or seen[-1]["version"] < now:
            f = await sock.recv(10)
            if f["type"] == "event":
                seen.append(f)
        assert seen[-1]["version"] == now, (seen[-1:], now)

    return check


def _allowed(events: list[dict[str, Any]], now: int) -> int:
    """The last version a delayed watcher may have seen when the game is at ``now``:
    an event after which the game had completed k tricks shows once it has completed
    k + DELAY, and a trick's end (with the score of a hand's last trick) goes out with
    its cards: every event up to the (done - DELAY + 1)-th trick's end and the score
    that follows it; all once the game is over."""
    if any(f["event"]["type"] == "GameEnded" for f in events if f["version"] <= now):
        return now
    done = [f["version"] for f in events
            if f["event"]["type"] == "TrickWon" and f["version"] <= now]
    if len(done) < DELAY:
        return 0
    last = done[len(done) - DELAY]
    scored = [f for f in events if f["version"] == last + 1 and f["version"] <= now
              and f["event"]["type"] == "HandScored"]
    return last + 1 if scored else last


async def _watch(watcher: Player, platform: Platform, game_id: str,
                 delayed: bool = True) -> tuple[Socket, int]:
    """A spectator's socket on the game; its ``subscribed`` says whether it is delayed."""
    sock = await watcher.socket(platform.b.ws_url)
    await sock.send({"type": "subscribe", "game_id": game_id, "spectate": True})
    snap = await sock.until(lambda f: f["type"] in ("snapshot", "error"))
    assert snap["type"] == "snapshot", snap
    subscribed = await sock.of_type("subscribed")
    assert (subscribed["seat"], subscribed["delayed"]) == (None, delayed), subscribed
    return sock, snap["version"]


async def _play(seats: list[Seat], watcher: Socket, check: Any,
                stop_after: int | None = None) -> list[dict[str, Any]]:
    """Play move by move (to the end, or ``stop_after`` moves); after each, what the
    watcher got is checked against the game."""
    seen: list[dict[str, Any]] = []
    await _sync(seats, max(s.version for s in seats))
    moves = 0
    while seats[0].ended is None and (stop_after is None or moves < stop_after):
        moves += 1
        mover = next(s for s in seats if s.next_move() is not None)
        await mover.act()
        while mover.pending:
            f = await mover.sock.recv(10)
            mover.absorb(f)
            if f["type"] == "ack":
                target = f["version"]
        await _sync(seats, target)
        await _drain(watcher, seen)
        await check(seen, seats[0].version)
    await _drain(watcher, seen, 1.0)
    return seen


async def test_a_stranger_watches_a_ranked_match_tricks_behind_and_sees_it_all_by_the_end(
        platform: Platform, nc: Client, nats_prefix: str) -> None:
    tag = uuid.uuid4().hex[:6]
    game_id, seats = await _match(platform, nc, nats_prefix, tag)
    watcher = await Player.guest(platform.b.url, f"W{tag}")
    sock, first = await _watch(watcher, platform, game_id)
    assert first == 0  # no trick was played yet: nothing of the game is shown
    released_before_end: list[int] = []

    async def check(seen: list[dict[str, Any]], now: int) -> None:
        allowed = _allowed(seats[0].events, now)
        late = [f["version"] for f in seen if f["version"] > allowed]
        assert late == [], (late, allowed, now)
        if seats[0].ended is None and seen:
            released_before_end.append(seen[-1]["version"])
        if now % 10 == 0:  # the summary is the delayed game's too
            status, body = await watcher.call("GET", f"/v1/games/{game_id}")
            assert status == 200 and body["version"] <= allowed, (body, allowed)

    seen = await _play(seats, sock, check)
    assert released_before_end, "the watcher saw nothing before the game ended"
    assert [f["version"] for f in seen] == list(range(1, seats[0].version + 1))
    assert all(f["turn"]["legal_cards"] == [] for f in seen)  # a spectator's frames
    assert not any(f["event"].get("cards") for f in seen if f["event"]["type"] == "HandDealt")
    status, body = await watcher.call("GET", f"/v1/games/{game_id}")
    assert status == 200 and body["state"] == "over"
    for p in [watcher, *(s.player for s in seats)]:
        await p.aclose()


async def test_an_operator_watches_a_ranked_match_live(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    game_id, seats = await _match(platform, nc, nats_prefix, tag)
    op = await operator(platform, database_url, f"Op{tag}")

    sock, _ = await _watch(op, platform, game_id, delayed=False)
    await asyncio.sleep(0)
    await _play(seats, sock, _live(sock))
    for p in [op, *(s.player for s in seats)]:
        await p.aclose()


async def test_a_tournaments_organizer_watches_its_game_live_and_another_organizer_delayed(
        platform: Platform, platform_env: dict[str, str], nc: Client, nats_prefix: str,
        database_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    service = copy(platform, platform_env, "watching")
    try:
        orgs = []
        for prefix in ("org", "other"):
            who = await organizer_account(platform.a.url, prefix)
            done = role(database_url, "organizer", "grant", who.name)
            assert done.returncode == 0, done.stderr
            orgs.append(await signed_in_again(who))
        org, other = orgs
        tid = (await org.ok("POST", "/v1/tournaments", body()))["tournament_id"]
        game_id, seats = await _match(platform, nc, nats_prefix, tag, origin="tournament",
                                      origin_id=tid)
        sock, _ = await _watch(org, platform, game_id, delayed=False)
        late, first = await _watch(other, platform, game_id)
        assert first == 0

        behind: list[dict[str, Any]] = []
        live = _live(sock)

        async def check(seen: list[dict[str, Any]], now: int) -> None:
            await live(seen, now)
            await _drain(late, behind, 0.01)
            assert behind == [], behind[-1:]  # fewer than three tricks were played

        await _play(seats, sock, check, stop_after=8)
        await _drain(late, behind, 0.3)
        assert behind == []
    finally:
        service.stop()
    for p in [*orgs, *(s.player for s in seats)]:
        await p.aclose()


async def test_the_live_list_puts_the_best_rated_first_and_never_a_private_table(
        platform: Platform, nc: Client, nats_prefix: str, database_url: str,
        ratings_beside: Service) -> None:
    tag = uuid.uuid4().hex[:6]
    strong = [await registered(platform.a.url, f"Hi{tag}{i}") for i in range(4)]
    weak = [await registered(platform.a.url, f"Lo{tag}{i}") for i in range(4)]
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(
            "INSERT INTO ratings.ratings (player_id, rating, games, peak, last_game_at)"
            " SELECT p, r, 30, r, now()"
            " FROM unnest($1::text[], $2::int[]) AS x(p, r)",
            [p.player_id for p in strong + weak], [1900, 1880, 1920, 1900] + [1600] * 4)
    finally:
        await conn.close()
    games = {}
    for name, people in (("weak", weak), ("strong", strong)):
        games[name] = await _open(nc, nats_prefix, f"live-{name}-{tag}", people)
    host = await Player.guest(platform.b.url, f"Host{tag}")
    other = await Player.guest(platform.b.url, f"Other{tag}")  # a person plays one game
    for name, private, who in (("public", False, host), ("private", True, other)):
        t = await who.ok("POST", "/v1/tables", {"rules": "house", "private": private})
        await who.ok("POST", f"/v1/tables/{t['table_id']}/bots", {"level": "basic"})
        games[name] = (await who.ok("POST", f"/v1/tables/{t['table_id']}/start"))["game_id"]
    live = await host.ok("GET", "/v1/games/live?limit=100")
    assert live["ratings_complete"] is True
    order = [g["game_id"] for g in live["games"]]
    assert games["private"] not in order
    mine = [g for g in order if g in (games["strong"], games["weak"], games["public"])]
    assert mine == [games["strong"], games["weak"], games["public"]], (mine, games)
    by_id = {g["game_id"]: g for g in live["games"]}
    top = by_id[games["strong"]]
    assert (top["origin"], top["delayed"], top["rating"]) == ("queue", True, 1900)
    assert [p["rating"] for p in top["players"]] == [1900, 1880, 1920, 1900]
    assert [p["name"] for p in top["players"]] == [p.name for p in strong]
    public = by_id[games["public"]]
    assert (public["origin"], public["delayed"], public["rating"]) == ("table", False, None)
    assert public["players"][0] == {"seat": 0, "player_id": host.player_id,
                                    "name": host.name, "bot": None, "guest": True,
                                    "rating": None}
    status, _ = await host.call("GET", "/v1/games/live?limit=0")
    assert status == 400
    for p in [host, other, *strong, *weak]:
        await p.aclose()
