"""A duplicate round's deals are seen by no one before they finished them.

Every table of a duplicate round deals the same cards seat by seat. A player whose
own match of the round has no result yet, and their partner, may not watch another
table of the round, read its game or its replay, nor find it in the games being
played now; and nobody reads the round's results in the bracket, the standings or
the feed before the round is over. A stranger to the tournament watches as ever.

Two tournaments on the whole platform (the tournament service beside it): in one,
every table has people who do not move (long clocks), so every game stays running;
in the other, one team of people sits at a table that waits while the bot teams'
table plays its deals to the end.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest

from schemas.events import GameEnded
from services.platform.db import create_pool
from services.platform.eventstore import EventStore
from services.tournaments.store import TournamentStore, registry
from tests.e2e.conftest import Platform
from tests.e2e.test_tournament_run import play
from tests.e2e.truth import stored_events
from tests.services.lobby.harness import Player, Service, Socket, lobby_env, start
from tests.services.lobby.test_tournaments import body, organizer, registered
from tests.waiting import until

HOUR = 3_600_000
# Nobody at a table of people moves: the clocks outlast the test.
WAITING = {"preset": "quick", "max_hands": 2, "abandon": "forfeit",
           "clocks": {"bid_ms": HOUR, "play_ms": HOUR, "single_card_ms": HOUR,
                      "bank_blocks": 0, "bank_block_ms": 0}}


@dataclass
class Round:
    """A duplicate tournament's first round under way: ``player`` (with ``partner``) at
    one table, ``other`` another table's game, ``stranger`` in no team, following the
    tournament on ``feed`` since before its start."""

    tid: str
    org: Player
    player: Player
    partner: Player
    stranger: Player
    feed: Socket
    own: str
    other: str
    seated: dict[str, list[Player]]  # game -> the people at it


async def _ready(p: Player, lobby: Service) -> str:
    """Press Ready when the match is offered; the game id once it starts."""
    notes = await p.socket(lobby.ws_url)
    try:
        while True:
            note = (await notes.until(lambda f: f["type"] == "note", timeout=120))["note"]
            if note["kind"] == "match_offered":
                await notes.send({"type": "match_ready", "match_id": note["match_id"]})
            elif note["kind"] == "match_started":
                return str(note["game_id"])
    finally:
        await notes.close()


async def _round(platform: Platform, org: Player, teams: int, bot_teams: int) -> Round:
    """A one-round duplicate Swiss of ``teams`` teams of people and ``bot_teams`` of bots,
    started, every person's game begun."""
    tid = (await org.ok("POST", "/v1/tournaments", body(
        name="Duplicate", format={"kind": "swiss", "rounds": 1, "deals": "duplicate"},
        rules=WAITING, min_teams=4, no_show_seconds=600, round_interval_seconds=0,
        check_in_minutes=0)))["tournament_id"]
    stranger = await registered(platform.a.url, "out")
    feed = await stranger.socket(platform.b.ws_url)
    await feed.send({"type": "watch_tournament", "tournament_id": tid})
    await feed.until(lambda f: f["type"] == "tournament")
    people = [await registered(platform.a.url, "dup") for _ in range(2 * teams)]
    for i, (a, b) in enumerate(zip(people[::2], people[1::2], strict=True)):
        team = (await a.ok("POST", f"/v1/tournaments/{tid}/teams",
                           {"partner": b.player_id, "name": f"People {i}"}))["team_id"]
        await b.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
    for i in range(bot_teams):
        await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": f"Bots {i}"})
    ready = [asyncio.create_task(_ready(p, platform.a)) for p in people]
    await org.ok("POST", f"/v1/tournaments/{tid}/start")
    games = await asyncio.wait_for(asyncio.gather(*ready), 120)
    own = games[0]

    async def other_table() -> str | None:  # once the tournament recorded its start
        view = await org.ok("GET", f"/v1/tournaments/{tid}")
        return next((m["game_id"] for m in view["matches"] if m["game_id"] not in (own, "")),
                    None)

    other = await until(other_table, timeout=60, every=0.2)
    seated: dict[str, list[Player]] = {}
    for p, game in zip(people, games, strict=True):
        seated.setdefault(game, []).append(p)
    return Round(tid, org, people[0], people[1], stranger, feed, own, other, seated)


@pytest.fixture(scope="module")
async def beside(platform: Platform, database_url: str, nats_url: str,
                 nats_prefix: str) -> AsyncIterator[tuple[Player, asyncpg.Pool]]:
    """The tournament and ratings services beside the platform (a team's rating is asked
    of the latter), an organizer, and the tournament store's pool."""
    env = lobby_env(database_url, nats_url, f"{nats_prefix}e2e")
    tag = uuid.uuid4().hex[:4]
    services = [start("tournaments", platform.logs / f"tournaments-unseen-{tag}.log",
                      SPADES_TIMER_POLL_SECONDS="0.2", **env),
                start("ratings", platform.logs / f"ratings-unseen-{tag}.log", **env)]
    pool = await create_pool(database_url, "tournaments")
    try:
        yield await organizer(platform.a, database_url), pool
    finally:
        await pool.close()
        for svc in services:
            svc.stop()


@pytest.fixture(scope="module")
async def running(platform: Platform, beside: tuple[Player, asyncpg.Pool]) -> Round:
    """Three teams of people and one of bots: both tables wait for people."""
    return await _round(platform, beside[0], 3, 1)


async def _results(pool: asyncpg.Pool, tid: str) -> int:
    """How many of the tournament's matches have a result in its stream."""
    state = await TournamentStore(pool, EventStore(pool, registry())).load(tid)
    return sum(m.outcome is not None for m in state.matches.values())


@pytest.fixture(scope="module")
async def mine_over(platform: Platform, beside: tuple[Player, asyncpg.Pool]) -> Round:
    """As ``running``, but the people at the player's table play it to its end."""
    org, pool = beside
    r = await _round(platform, org, 3, 1)
    await asyncio.gather(*(play(p, platform.a, r.own) for p in r.seated[r.own]))

    async def recorded() -> bool:
        return await _results(pool, r.tid) == 1

    await until(recorded, timeout=60, every=0.2)
    return r


@pytest.fixture(scope="module")
async def one_over(platform: Platform, beside: tuple[Player, asyncpg.Pool],
                   database_url: str) -> Round:
    """A team of people and three of bots: the bots' table plays to its end, and its
    result is recorded, while the people's table waits."""
    org, pool = beside
    r = await _round(platform, org, 1, 3)

    async def recorded() -> bool:
        log = await stored_events(database_url, r.other)
        return bool(log) and isinstance(log[-1], GameEnded) and \
            await _results(pool, r.tid) == 1

    await until(recorded, timeout=120, every=0.2)
    return r


@pytest.fixture(params=["running", "one_over"])
def scene(request: pytest.FixtureRequest) -> Round:
    """Each round in turn: while the other table plays, and once it is over."""
    r: Round = request.getfixturevalue(request.param)
    return r


async def _spectate(p: Player, lobby: Service, game_id: str) -> tuple[Socket, dict[str, Any]]:
    sock = await p.socket(lobby.ws_url)
    await sock.send({"type": "subscribe", "game_id": game_id, "spectate": True})
    return sock, await sock.until(lambda f: f["type"] in ("snapshot", "error"))


async def test_a_player_and_partner_may_not_spectate_another_table_of_their_round(
        platform: Platform, scene: Round) -> None:
    r = scene
    for who in (r.player, r.partner):
        sock, answer = await _spectate(who, platform.b, r.other)
        assert (answer["type"], answer.get("code")) == ("error", "deal_not_finished"), answer
        assert not any(f["type"] in ("snapshot", "event") for f in sock.frames)
        await sock.close()
    sock, answer = await _spectate(r.stranger, platform.b, r.other)
    assert answer["type"] == "snapshot", answer
    await sock.close()


async def test_a_player_may_not_read_another_tables_game_of_their_round(scene: Round) -> None:
    r = scene
    for who in (r.player, r.partner):
        status, answer = await who.call("GET", f"/v1/games/{r.other}")
        assert (status, answer["code"]) == (403, "deal_not_finished"), answer
    assert (await r.player.ok("GET", f"/v1/games/{r.own}"))["game_id"] == r.own
    assert (await r.stranger.ok("GET", f"/v1/games/{r.other}"))["game_id"] == r.other


async def test_a_player_may_not_replay_another_tables_game_of_their_round(
        one_over: Round) -> None:
    for path in ("replay", "replay/state?at=1"):
        status, answer = await one_over.player.call("GET", f"/v1/games/{one_over.other}/{path}")
        assert (status, answer["code"]) == (403, "deal_not_finished"), answer
    status, answer = await one_over.stranger.call("GET", f"/v1/games/{one_over.other}/replay")
    assert (status, answer["code"]) == (403, "not_your_game"), answer


async def test_the_live_list_leaves_out_the_other_tables_of_a_players_round(
        running: Round) -> None:
    async def listed(who: Player) -> set[str]:
        got = await who.ok("GET", "/v1/games/live?limit=100")
        return {g["game_id"] for g in got["games"]}

    assert {running.own, running.other} <= await listed(running.stranger)
    for who in (running.player, running.partner):
        mine = await listed(who)
        assert running.own in mine and running.other not in mine


async def test_the_bracket_and_standings_show_no_result_of_a_round_still_played(
        one_over: Round) -> None:
    for who in (one_over.stranger, one_over.player, one_over.org):
        view = await who.ok("GET", f"/v1/tournaments/{one_over.tid}")
        assert all(m["outcome"] is None and m["scores"] == [0, 0] and m["deals"] == []
                   for m in view["matches"]), view["matches"]
        standings = await who.ok("GET", f"/v1/tournaments/{one_over.tid}/standings")
        for rows in (view["standings"], standings["standings"]):
            assert all((s["points"], s["match_points"], s["differential"], s["bags"]) ==
                       (0, 0, 0, 0) for s in rows), rows
        bracket = await who.ok("GET", f"/v1/tournaments/{one_over.tid}/bracket")
        assert all(m["outcome"] is None and m["scores"] == [0, 0]
                   for r in bracket["rounds"] for m in r), bracket


async def test_the_feed_carries_no_result_of_a_duplicate_tournament(
        platform: Platform, one_over: Round) -> None:
    log = await one_over.stranger.ok("GET", f"/v1/tournaments/{one_over.tid}/events")
    withheld = [r for r in log["events"] if r["event"] is None]
    assert len(withheld) == 1, log["events"]
    assert not any(r["event"]["type"] == "MatchResult" for r in log["events"] if r["event"])
    # The watcher that followed it from before the start got that version with no event.
    version = withheld[0]["version"]
    frame = await one_over.feed.until(
        lambda f: f["type"] == "tournament" and f["version"] == version, timeout=30)
    assert frame.get("event") is None and frame.get("view") is None, frame
    assert not any(f["type"] == "tournament" and (f.get("event") or {}).get("type") in (
        "MatchResult", "ResultOverridden") for f in one_over.feed.frames)


async def test_once_their_own_match_is_over_a_player_watches_the_rest_of_the_round(
        platform: Platform, mine_over: Round) -> None:
    r = mine_over
    for who in (r.player, r.partner):
        sock, answer = await _spectate(who, platform.b, r.other)
        assert answer["type"] == "snapshot", answer
        await sock.close()
        assert (await who.ok("GET", f"/v1/games/{r.other}"))["game_id"] == r.other
        live = await who.ok("GET", "/v1/games/live?limit=100")
        assert r.other in {g["game_id"] for g in live["games"]}
    # Their own result waits for the round's end like every other.
    view = await r.stranger.ok("GET", f"/v1/tournaments/{r.tid}")
    assert all(m["outcome"] is None for m in view["matches"]), view["matches"]


async def test_a_players_game_list_keeps_a_finished_table_from_those_still_to_play_it(
        mine_over: Round) -> None:
    """The player's table is over; at the round's other table people still play its deals:
    they do not find it among the player's games (its hands' bids and tricks), though a
    stranger does."""
    r = mine_over
    path = f"/v1/players/{r.player.player_id}/games"

    async def listed() -> bool:
        page = await r.stranger.ok("GET", path)
        return any(g["game_id"] == r.own for g in page["games"])

    await until(listed, timeout=30, every=0.2)
    for who in r.seated[r.other]:
        page = await who.ok("GET", path)
        assert r.own not in [g["game_id"] for g in page["games"]], page
