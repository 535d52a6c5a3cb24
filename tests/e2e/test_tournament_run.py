"""A whole tournament on the whole platform: four teams of registered players, single
elimination, each match opened through the lobby with a ready check, played for real by
scripted players, its result taken from the game's end, to a champion. Two scheduler
copies, one dead between opening a round's tables and recording them and one killed
mid-round: no match opened twice, no result counted twice, the projections equal the
stream's fold."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from typing import Any, Protocol

import asyncpg
import pytest

from schemas import subjects
from schemas.matches import lobby_match_id
from schemas.subjects import Names
from schemas.tournaments import events as ev
from services.platform import connection, faults
from services.platform.busclient import BusClient
from services.platform.db import create_pool
from services.platform.eventstore import EventStore
from services.tournaments.reads import stale_projections
from services.tournaments.store import TournamentStore, registry
from services.tournaments.transport import MatchCalls
from tests.e2e.conftest import Platform
from tests.e2e.players import Seat, play_until_over
from tests.e2e.test_matches import count
from tests.services.lobby.harness import ROOT, Player, Service, start
from tests.services.lobby.test_tournaments import organizer, registered
from tests.waiting import until

FAST = {"preset": "quick", "max_hands": 1, "abandon": "forfeit"}


@pytest.fixture
async def tournaments_pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url, "tournaments")
    yield pool
    await pool.close()


class Lobby(Protocol):
    """Where a player's sockets go."""

    @property
    def ws_url(self) -> str: ...


async def attend(p: Player, lobby: Lobby, leaves: bool = False,
                 playing: Callable[[Player, str], Awaitable[object]] | None = None) -> None:
    """A player who presses Ready when a match is offered and plays each game it starts
    (or, ``leaves``, sits down and leaves at once; or plays it as ``playing`` does)."""
    notes = await p.socket(lobby.ws_url)
    games: list[asyncio.Task[None]] = []

    async def seated(game_id: str) -> None:
        if playing is not None:
            await playing(p, game_id)
        else:
            await (leave if leaves else play)(p, lobby, game_id)

    try:
        while True:
            note = (await notes.until(lambda f: f["type"] == "note", timeout=300))["note"]
            if note["kind"] == "match_offered":
                await notes.send({"type": "match_ready", "match_id": note["match_id"]})
            elif note["kind"] == "match_started":
                games.append(asyncio.create_task(seated(note["game_id"])))
    finally:
        for task in games:
            task.cancel()
        await notes.close()


async def dismiss(players: list[asyncio.Task[None]]) -> None:
    """Stop the scripted players and wait until each has closed its sockets."""
    for task in players:
        task.cancel()
    for task in players:
        with contextlib.suppress(BaseException):
            await task


async def play(p: Player, lobby: Lobby, game_id: str) -> None:
    seat = Seat(p, await p.socket(lobby.ws_url), game_id)
    try:
        await seat.subscribe()
        await play_until_over([seat], limit_seconds=120)
    finally:
        await seat.sock.close()


async def leave(p: Player, lobby: Lobby, game_id: str) -> None:
    seat = Seat(p, await p.socket(lobby.ws_url), game_id)
    try:
        await seat.subscribe()
        await seat.sock.send({"type": "leave", "command_id": "bye", "game_id": game_id,
                              "seat": seat.seat})
        await seat.sock.until(lambda f: f["type"] == "ack" and f["command_id"] == "bye")
    finally:
        await seat.sock.close()


async def four_team_cup(org: Player, players: list[Player], rules: dict[str, Any],
                        starts_in_ms: int, check_in_minutes: int = 0,
                        no_show_seconds: int = 30, name: str = "Four cup") -> str:
    """A four-team single elimination starting soon, with the teams of ``players`` (two by
    two) registered, confirmed and, when there is a check-in, checked in."""
    now = int(time.time() * 1000)
    starts = now + starts_in_ms
    tid: str = (await org.ok("POST", "/v1/tournaments", {
        "name": name, "format": {"kind": "single_elimination"}, "rules": rules,
        "min_teams": 4, "max_teams": 4, "registration_opens_at": now - 60_000,
        "registration_closes_at": starts, "starts_at": starts,
        "check_in_minutes": check_in_minutes,
        "no_show_seconds": no_show_seconds}))["tournament_id"]
    for i in range(0, len(players), 2):
        a, b = players[i], players[i + 1]
        team = (await a.ok("POST", f"/v1/tournaments/{tid}/teams",
                           {"partner": b.player_id, "name": f"Team {i // 2 + 1}"}))["team_id"]
        await b.ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
        for p in (a, b) if check_in_minutes else ():
            await p.ok("POST", f"/v1/tournaments/{tid}/check-in")
    return tid


def copy(platform: Platform, env: dict[str, str], name: str, **extra: str) -> Service:
    return start("tournaments", platform.logs / f"{name}-{uuid.uuid4().hex[:4]}.log",
                 SPADES_TIMER_POLL_SECONDS="0.2", SPADES_JS_ACK_WAIT_SECONDS="3",
                 SPADES_CALL_CLAIM_SECONDS="2", **{**env, **extra})


async def test_four_teams_play_to_a_champion_across_a_crash_and_a_kill(
        platform: Platform, platform_env: dict[str, str], ratings_beside: Service,
        database_url: str, nats_url: str, nats_prefix: str,
        tournaments_pool: asyncpg.Pool) -> None:
    env, lobby = platform_env, platform.a
    # Armed for this cup alone: a tournament an earlier test left running in the
    # worker's database is called by this copy too, and must not be what kills it.
    cup = f"Four cup {uuid.uuid4().hex[:6]}"
    doomed = copy(platform, env, "doomed",
                  SPADES_FAULT=f"{faults.MATCHES_OPENED_BEFORE_RECORD}:{cup}")
    copies: list[Service] = []
    attending: list[asyncio.Task[None]] = []
    try:
        org = await organizer(lobby, database_url)
        players = [await registered(lobby.url) for _ in range(8)]
        attending = [asyncio.create_task(attend(p, lobby)) for p in players]
        tid = await four_team_cup(org, players, FAST, 8_000, name=cup)

        # The first copy starts the tournament, asks the lobby for the first round's two
        # tables, and dies before recording either.
        assert await asyncio.to_thread(doomed.proc.wait, 60) == faults.EXIT_CODE
        conn = await asyncpg.connect(database_url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM tournaments.tournament_matches"
                                       " WHERE tournament_id = $1", uuid.UUID(tid)) == 2
            assert await conn.fetchval("SELECT count(*) FROM lobby.matches WHERE origin_id = $1",
                                       tid) == 2
        finally:
            await conn.close()

        copies = [copy(platform, env, "b"), copy(platform, env, "c")]

        async def a_result() -> bool:
            v = await org.ok("GET", f"/v1/tournaments/{tid}")
            return any(m["outcome"] for m in v["matches"])

        await until(a_result, timeout=120, every=0.2)
        copies[0].proc.kill()  # mid-round: the other match may be playing or reporting
        copies[0].proc.wait(10)

        async def finished() -> dict[str, Any] | None:
            v = await org.ok("GET", f"/v1/tournaments/{tid}")
            return v if v["summary"]["status"] == "finished" else None

        view = await until(finished, timeout=180, every=0.5)
        # A champion's own list names the tournament and the round of each game (while
        # the tournament service runs: without it a game names its tournament id only).
        champion = next(t for t in view["teams"]
                        if t["team_id"] == view["summary"]["champion"])
        winner = next(p for p in players if p.player_id == champion["players"][0])
        mine = await winner.ok("GET", f"/v1/players/{winner.player_id}/games")
        assert [(g["origin"], g["tournament"]["name"], g["tournament"]["round_no"],
                 g["tournament"]["round_name"], g["result"]) for g in mine["games"]] == [
            ("tournament", cup, 2, "Final", "win"),
            ("tournament", cup, 1, "Semi-finals", "win")]
        # The final's own page says which tournament, round and teams it is.
        final_game = await winner.ok("GET", f"/v1/games/{mine['games'][0]['game_id']}")
        teams = {t["team_id"]: t["name"] for t in view["teams"]}
        final_match = next(m for m in view["matches"] if m["match_id"] == "W2-1")
        assert (final_game["origin"], final_game["tournament"]) == ("tournament", {
            "tournament_id": tid, "name": cup, "round_no": 2, "round_name": "Final",
            "home": teams[final_match["home"]], "away": teams[final_match["away"]]})
    finally:
        await dismiss(attending)
        for svc in (*copies, doomed):
            svc.stop()

    matches = {m["match_id"]: m for m in view["matches"]}
    assert sorted(matches) == ["W1-1", "W1-2", "W2-1"]
    assert all(m["reason"] == "played" and m["outcome"] in ("home", "away")
               for m in matches.values())
    final = matches["W2-1"]
    assert view["summary"]["champion"] == final[final["outcome"]]

    events, results = await each_match_once(tournaments_pool, database_url, tid, matches)
    assert sorted(e.match_id for e in results) == ["W1-1", "W1-2", "W2-1"]
    assert sum(isinstance(e, ev.TournamentFinished) for e in events) == 1
    # What the reconciler reads when a game's end never arrived: the game's own store.
    nc = await connection.connect(nats_url, "test")
    try:
        client = MatchCalls(BusClient(nc), Names(f"{nats_prefix}e2e"), 5.0)
        last = await client.last_event(results[0].game_stream)
        assert last is not None and last.type == "GameEnded"
        assert last.stream == results[0].game_stream
        assert await client.last_event(uuid.uuid4().hex) is None
    finally:
        await nc.close()


async def each_match_once(pool: asyncpg.Pool, database_url: str, tid: str,
                          matches: Collection[str]) -> tuple[list[Any], list[ev.MatchResult]]:
    """The tournament's events and results, once its projections are checked equal to
    the stream's fold and each of ``matches`` to one lobby match, one table and one game,
    whoever asked and however often."""
    store = TournamentStore(pool, EventStore(pool, registry()))
    events = [r.event for r in await store.events.read(f"tournament-{tid}")]
    results = [e for e in events if isinstance(e, ev.MatchResult)]
    assert await stale_projections(pool, uuid.UUID(tid), await store.load(tid)) == []
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT match_id, game_id FROM lobby.matches"
                                " WHERE origin = 'tournament' AND origin_id = $1", tid)
        assert sorted(r["match_id"] for r in rows) == sorted(
            lobby_match_id(tid, m) for m in matches)
        assert {r["game_id"] for r in rows} == {e.game_stream for e in results}
        assert await conn.fetchval("SELECT count(*) FROM game.events WHERE type = 'GameStarted'"
                                   " AND stream = ANY($1::text[])",
                                   [r["game_id"] for r in rows]) == len(matches)
    finally:
        await conn.close()
    return events, results


async def test_teams_that_do_not_come_lose_by_no_show_and_their_players_are_banned(
        platform: Platform, platform_env: dict[str, str], ratings_beside: Service,
        database_url: str) -> None:
    env, lobby = platform_env, platform.b
    scheduler = copy(platform, env, "noshow")
    attending: list[asyncio.Task[None]] = []
    try:
        org = await organizer(lobby, database_url)
        players = [await registered(lobby.url) for _ in range(8)]
        attending = [asyncio.create_task(attend(p, lobby)) for p in players[:2]]  # team 1
        tid = await four_team_cup(org, players, FAST, 6_000, no_show_seconds=5)

        async def finished() -> dict[str, Any] | None:
            v = await org.ok("GET", f"/v1/tournaments/{tid}")
            return v if v["summary"]["status"] == "finished" else None

        view = await until(finished, timeout=90, every=0.5)
        # A player who stayed away may not enter the next tournament for a day.
        again = (await org.ok("POST", "/v1/tournaments", {**NEXT_CUP, **window()}))
        status, err = await players[2].call(
            "POST", f"/v1/tournaments/{again['tournament_id']}/teams",
            {"partner": players[0].player_id, "name": "Again"})
        assert (status, err["code"]) == (403, "no_show_ban")
    finally:
        await dismiss(attending)
        scheduler.stop()
    teams = {t["name"]: t["team_id"] for t in view["teams"]}
    matches = {m["match_id"]: m for m in view["matches"]}
    # Seeds 1 and 4 meet: team 4 never came. Seeds 2 and 3 both stayed away.
    assert (matches["W1-1"]["outcome"], matches["W1-1"]["reason"]) == ("home", "no_show")
    assert matches["W1-1"]["home"] == teams["Team 1"]
    assert (matches["W1-2"]["outcome"], matches["W1-2"]["reason"]) == (
        "double_forfeit", "no_show")
    assert view["summary"]["champion"] == teams["Team 1"]
    conn = await asyncpg.connect(database_url)
    try:
        banned = await conn.fetch("SELECT player_id FROM tournaments.no_show_bans"
                                  " WHERE player_id = ANY($1::text[]) AND banned_until > now()",
                                  [p.player_id for p in players])
    finally:
        await conn.close()
    assert sorted(r["player_id"] for r in banned) == sorted(p.player_id for p in players[2:])


async def test_a_leaver_forfeits_for_the_pair_and_the_organizer_overrides_and_disqualifies(
        platform: Platform, platform_env: dict[str, str], ratings_beside: Service,
        database_url: str, tournaments_pool: asyncpg.Pool) -> None:
    """Human teams in a Swiss round: a player who leaves a game loses it for the pair (the
    club's rule, the default ``abandon: forfeit``); the organizer then overrides the other
    match's result and disqualifies a team, each with who and why in the record."""
    lobby = platform.a
    scheduler = copy(platform, platform_env, "humans")
    attending: list[asyncio.Task[None]] = []
    try:
        org = await organizer(lobby, database_url)
        players = [await registered(lobby.url) for _ in range(8)]
        attending = [asyncio.create_task(attend(p, lobby, leaves=i == 6))
                     for i, p in enumerate(players)]
        now = int(time.time() * 1000)
        starts = now + 6_000
        tid = (await org.ok("POST", "/v1/tournaments", {
            "name": "Club night", "format": {"kind": "swiss", "rounds": 2}, "rules": FAST,
            "min_teams": 4, "max_teams": 4, "registration_opens_at": now - 60_000,
            "registration_closes_at": starts, "starts_at": starts, "check_in_minutes": 0,
            "round_interval_seconds": 3600, "no_show_seconds": 30}))["tournament_id"]
        teams = []
        for i in range(0, 8, 2):
            team = (await players[i].ok("POST", f"/v1/tournaments/{tid}/teams", {
                "partner": players[i + 1].player_id, "name": f"Team {i // 2 + 1}"}))["team_id"]
            await players[i + 1].ok("POST", f"/v1/tournaments/{tid}/teams/{team}/confirm")
            teams.append(team)

        async def round_over() -> dict[str, Any] | None:
            v = await org.ok("GET", f"/v1/tournaments/{tid}")
            return v if v["matches"] and all(m["outcome"] for m in v["matches"]) else None

        view = await until(round_over, timeout=150, every=0.5)
        left = next(m for m in view["matches"] if teams[3] in (m["home"], m["away"]))
        played = next(m for m in view["matches"] if m is not left)
        assert left["reason"] == "forfeit" and left[left["outcome"]] != teams[3]
        assert played["reason"] == "played"
        upset = "away" if played["outcome"] == "home" else "home"
        status, err = await players[0].call(
            "POST", f"/v1/tournaments/{tid}/matches/{played['match_id']}/override",
            {"outcome": upset, "why": "a player's own"})
        assert (status, err["code"]) == (403, "not_organizer")
        await org.ok("POST", f"/v1/tournaments/{tid}/matches/{played['match_id']}/override",
                     {"outcome": upset, "scores": [0, 0], "why": "scores entered wrong"})
        out = played[upset]
        await org.ok("POST", f"/v1/tournaments/{tid}/teams/{out}/disqualify",
                     {"why": "unsporting conduct"})
        view = await org.ok("GET", f"/v1/tournaments/{tid}")
    finally:
        await dismiss(attending)
        scheduler.stop()
    matches = {m["match_id"]: m for m in view["matches"]}
    assert (matches[played["match_id"]]["outcome"],
            matches[played["match_id"]]["reason"]) == (upset, "override")
    assert {t["team_id"]: t["withdrawn"] for t in view["teams"]}[out] == "disqualified"
    points = {r["team_id"]: r["match_points"] for r in view["standings"]}
    assert points[out] == 1 and points[played["away" if upset == "home" else "home"]] == 0
    assert points[teams[3]] == 0
    store = TournamentStore(tournaments_pool, EventStore(tournaments_pool, registry()))
    events = [r.event for r in await store.events.read(f"tournament-{tid}")]
    (overridden,) = [e for e in events if isinstance(e, ev.ResultOverridden)]
    assert (overridden.by, overridden.why) == (org.player_id, "scores entered wrong")
    (dq,) = [e for e in events if isinstance(e, ev.TeamWithdrawn)]
    assert (dq.team_id, dq.reason, dq.by, dq.why) == (out, "disqualified", org.player_id,
                                                      "unsporting conduct")
    assert await stale_projections(tournaments_pool, uuid.UUID(tid), await store.load(tid)) == []


async def test_game_ends_published_again_by_resync_change_no_standing(
        platform: Platform, platform_env: dict[str, str], database_url: str, nats_url: str,
        nats_prefix: str, tournaments_pool: asyncpg.Pool) -> None:
    """``spades resync`` publishes a finished tournament's game ends again (under new message
    ids, so JetStream delivers them): the results consumer takes each, and nothing moves."""
    scheduler = copy(platform, platform_env, "resync")
    nc = await connection.connect(nats_url, "test")
    try:
        org = await organizer(platform.a, database_url)
        tid, before = await bot_tournament(org, {"kind": "single_elimination"}, 4, FAST)
        store = TournamentStore(tournaments_pool, EventStore(tournaments_pool, registry()))
        recorded = [r.event for r in await store.events.read(f"tournament-{tid}")]
        games = [e.game_stream for e in recorded if isinstance(e, ev.MatchResult)]
        assert len(games) == 3
        names = Names(f"{nats_prefix}e2e")
        js = nc.jetstream()
        seen = (await js.consumer_info(names.game_events_stream,
                                       subjects.TOURNAMENTS_RESULTS)).delivered.stream_seq
        for game in games:
            done = subprocess.run(
                [sys.executable, "-m", "services.cli", "resync", "--stream", game],
                env={**os.environ, **platform_env, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr

        async def taken() -> bool:
            info = await js.consumer_info(names.game_events_stream,
                                          subjects.TOURNAMENTS_RESULTS)
            # Stored before resync returned: delivered past them, and every one handled.
            return (info.delivered.stream_seq > seen and not info.num_pending
                    and not info.num_ack_pending)

        await until(taken, timeout=60, every=0.2)
        after = await org.ok("GET", f"/v1/tournaments/{tid}")
    finally:
        await nc.close()
        scheduler.stop()
    assert after["standings"] == before["standings"]
    assert after["matches"] == before["matches"]
    assert [r.event for r in await store.events.read(f"tournament-{tid}")] == recorded


NEXT_CUP = {"name": "Next cup", "format": {"kind": "swiss"}, "rules": FAST}


def window() -> dict[str, int]:
    now = int(time.time() * 1000)
    return {"registration_opens_at": now - 60_000, "registration_closes_at": now + 3_600_000,
            "starts_at": now + 3_600_000}


async def bot_cup(org: Player, fmt: dict[str, Any], teams: int,
                  rules: dict[str, Any]) -> str:
    """A tournament for up to ``teams`` bot teams starting in four seconds, its rounds
    back to back: its id."""
    now = int(time.time() * 1000)
    starts = now + 4_000
    tid: str = (await org.ok("POST", "/v1/tournaments", {
        "name": f"Bot {fmt['kind']}", "format": fmt, "rules": rules, "min_teams": 2,
        "max_teams": teams, "registration_opens_at": now - 60_000,
        "registration_closes_at": starts, "starts_at": starts, "check_in_minutes": 0,
        "round_interval_seconds": 0}))["tournament_id"]
    return tid


async def played_out(org: Player, tid: str, teams: int) -> dict[str, Any]:
    """Enter ``teams`` bot teams and wait for the tournament's end: its final view."""
    for i in range(teams):
        await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": f"Bots {i + 1}"})

    async def finished() -> dict[str, Any] | None:
        v = await org.ok("GET", f"/v1/tournaments/{tid}")
        return v if v["summary"]["status"] == "finished" else None

    view: dict[str, Any] = await until(finished, timeout=240, every=0.5)
    return view


async def bot_tournament(org: Player, fmt: dict[str, Any], teams: int,
                         rules: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A tournament of ``teams`` bot teams played to its end by a scheduler already
    running: its id and its final view."""
    tid = await bot_cup(org, fmt, teams, rules)
    return tid, await played_out(org, tid, teams)


@pytest.mark.parametrize(("fmt", "teams", "matches"), [
    ({"kind": "single_elimination"}, 8, {7}),
    ({"kind": "double_elimination"}, 8, {14, 15}),
    ({"kind": "round_robin"}, 6, {15}),
    ({"kind": "swiss", "rounds": 4}, 11, {20}),
])
async def test_bot_teams_play_every_format_to_its_end(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        tournaments_pool: asyncpg.Pool, fmt: dict[str, Any], teams: int,
        matches: set[int]) -> None:
    scheduler = copy(platform, platform_env, "bots")
    try:
        org = await organizer(platform.a, database_url)
        tid, view = await bot_tournament(org, fmt, teams, FAST)
    finally:
        scheduler.stop()
    assert len(view["matches"]) in matches
    assert all(m["reason"] == "played" for m in view["matches"])
    by_id = {m["match_id"]: m for m in view["matches"]}
    final = by_id.get("GF2") or by_id.get("GF")
    assert view["summary"]["champion"] == (
        final[final["outcome"]] if final else view["standings"][0]["team_id"])
    store = TournamentStore(tournaments_pool, EventStore(tournaments_pool, registry()))
    state = await store.load(tid)
    assert state.champion == view["summary"]["champion"] is not None
    assert await stale_projections(tournaments_pool, uuid.UUID(tid), state) == []
    conn = await asyncpg.connect(database_url)
    try:
        opened = await conn.fetchval("SELECT count(*) FROM lobby.matches WHERE origin_id = $1",
                                     tid)
    finally:
        await conn.close()
    assert opened == len(view["matches"])


async def test_a_copy_dead_mid_way_through_opening_a_round_opens_each_match_once(
        platform: Platform, platform_env: dict[str, str], database_url: str,
        tournaments_pool: asyncpg.Pool) -> None:
    """Sixteen bot teams; the first copy asks the lobby two tables at a time and dies as
    the first answer comes (one or two tables opened, none recorded, the rest taken and
    never asked). Another copy asks again once the claim lapses: every match is opened
    once, played once and has one result, and the projections equal the stream."""
    doomed = copy(platform, platform_env, "midway", SPADES_CALL_WINDOW="2",
                  SPADES_FAULT=faults.MATCHES_OPENED_BEFORE_RECORD)
    survivor: Service | None = None
    try:
        org = await organizer(platform.a, database_url)
        tid = await bot_cup(org, {"kind": "single_elimination"}, 16, FAST)
        for i in range(16):
            await org.ok("POST", f"/v1/tournaments/{tid}/bots", {"name": f"Bots {i + 1}"})
        assert await asyncio.to_thread(doomed.proc.wait, 60) == faults.EXIT_CODE
        opened = await count(database_url, "SELECT count(*) FROM lobby.matches"
                                           " WHERE origin_id = $1", tid)
        assert 1 <= opened < 8  # the round's eight tables: some opened, none recorded
        survivor = copy(platform, platform_env, "survivor")

        async def finished() -> dict[str, Any] | None:
            v = await org.ok("GET", f"/v1/tournaments/{tid}")
            return v if v["summary"]["status"] == "finished" else None

        view = await until(finished, timeout=120, every=0.5)
    finally:
        for svc in (doomed, survivor):
            if svc is not None:
                svc.stop()
    assert len(view["matches"]) == 15 and all(m["reason"] == "played"
                                              for m in view["matches"])
    matches = [m["match_id"] for m in view["matches"]]
    _, results = await each_match_once(tournaments_pool, database_url, tid, matches)
    assert sorted(e.match_id for e in results) == sorted(matches)


async def test_a_watcher_gets_every_event_of_a_running_tournament_once_and_in_order(
        platform: Platform, platform_env: dict[str, str], database_url: str) -> None:
    """Results arrive through the game-end consumer's transaction while the next round is
    paired at once: whatever order they reach the gateway in, a watcher gets each version
    once, one after the other, from its view's to the last."""
    scheduler = copy(platform, platform_env, "feed")
    try:
        org = await organizer(platform.a, database_url)
        tid = await bot_cup(org, {"kind": "swiss", "rounds": 4}, 8, FAST)
        watcher = await registered(platform.b.url)
        sock = await watcher.socket(platform.b.ws_url)
        await sock.send({"type": "watch_tournament", "tournament_id": tid})
        first = await sock.of_type("tournament")
        await played_out(org, tid, 8)
        last = (await org.ok("GET", f"/v1/tournaments/{tid}/events?limit=1"))["version"]
        await sock.until(lambda f: f["type"] == "tournament" and f["version"] == last,
                         timeout=30)
        await sock.send({"type": "ping", "nonce": "end"})
        await sock.until(lambda f: f.get("nonce") == "end")
        await sock.close()
    finally:
        scheduler.stop()
    got = [f["version"] for f in sock.frames if f["type"] == "tournament" and f["event"]]
    assert got == list(range(first["version"] + 1, last + 1))
    results = [f for f in sock.frames if f["type"] == "tournament" and f["event"]
               and f["event"]["type"] == "MatchResult"]
    assert len(results) == 16
