"""The tournament service's endpoints on real NATS and Postgres: typed replies, typed
errors with the decision's stable code, reads from the projections, and committed events
published on the TOURNAMENT_EVENTS stream."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import msgspec
import pytest
from nats.aio.client import Client

from schemas import subjects
from schemas.bus import EventEnvelope
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from services.platform import bus, connection
from services.platform.busclient import BusClient
from services.platform.db import create_pool
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from services.tournaments.reads import view
from services.tournaments.store import TournamentStore, registry, stream_of
from services.tournaments.transport import endpoints

from .driver import MINUTE, OPENS, STARTS, settings


class Env:
    def __init__(self, nc: Client, names: subjects.Names, store: TournamentStore) -> None:
        self.nc, self.names, self.store = nc, names, store
        self.now = OPENS + 1

    async def write(self, name: str, tid: str, command: cmd.Command,
                    command_id: str | None = None) -> api.CommandReply:
        body = api.TournamentRequest(tournament_id=tid, command=command, command_id=command_id)
        return await bus.request(self.nc, self.names.endpoint("tournaments", name), body,
                                 api.CommandReply)


@pytest.fixture
async def env(make_database: Callable[[], Awaitable[str]], nats_url: str,
              nats_prefix: str) -> AsyncIterator[Env]:
    pool: asyncpg.Pool = await create_pool(await make_database(), "tournaments")
    nc = await connection.connect(nats_url, "test")
    names = subjects.Names(f"{nats_prefix}x{uuid.uuid4().hex[:6]}")
    client = BusClient(nc)
    await bus.ensure_stream(client, bus.StreamSpec(names.tournament_events_stream,
                                                   (names.tournament_events_all,),
                                                   duplicate_window=60))
    # The relay sweeps only rows an hour old: what goes out, its writer published.
    relay = OutboxRelay(pool, client, names.tournament_event, sweep_after=3600)
    await relay.start()
    store = TournamentStore(pool, EventStore(
        pool, registry(), publish=Publisher(client, names.tournament_event, relay)))
    e = Env(nc, names, store)
    micro = await bus.serve(nc, service="tournaments", version="0.0.0",
                            group=names.service_group("tournaments"),
                            endpoints=endpoints(store, lambda: e.now))
    yield e
    await micro.stop()
    await relay.stop()
    await nc.close()
    await pool.close()


async def test_a_tournament_is_created_registered_for_and_read(env: Env) -> None:
    tid = str(uuid.uuid4())
    reply = await env.write("create", tid, cmd.CreateTournament(
        tournament_id=tid, organizer="org", settings=settings("swiss", 8)))
    assert reply == api.CommandReply(tournament_id=tid, version=1, events=["TournamentCreated"])
    await env.write("register", tid, cmd.RegisterTeam(team_id="t1", name="Aces", player="p1",
                                                      partner="p2"), command_id="r-1")
    again = await env.write("register", tid, cmd.RegisterTeam(
        team_id="t1", name="Aces", player="p1", partner="p2"), command_id="r-1")
    assert again.events == [] and again.version == 2
    await env.write("confirm", tid, cmd.ConfirmTeam(team_id="t1", player="p2"))
    got = await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                            api.GetTournament(tournament_id=tid), api.TournamentView)
    assert got.summary.status == "registering" and got.version == 3
    # The check-in window, from the settings: 15 minutes before the start, until it.
    s = settings("swiss", 8)
    assert (got.summary.check_in_opens_at, got.summary.check_in_closes_at) == (
        s.starts_at - 15 * 60_000, s.starts_at)
    assert [(t.team_id, t.players, t.confirmed) for t in got.teams] == [
        ("t1", ["p1", "p2"], True)]
    listed = await bus.request(env.nc, env.names.endpoint("tournaments", "list"),
                               api.ListTournaments(status="registering"), api.TournamentList)
    (summary,) = [t for t in listed.tournaments if t.tournament_id == tid]
    assert summary == got.summary


async def test_refusals_carry_the_decisions_code_and_change_nothing(env: Env) -> None:
    tid = str(uuid.uuid4())
    await env.write("create", tid, cmd.CreateTournament(
        tournament_id=tid, organizer="org", settings=settings("swiss", 8)))
    await env.write("register", tid, cmd.RegisterTeam(team_id="t1", name="A", player="p1",
                                                      partner="p2"))
    with pytest.raises(bus.RemoteError) as err:
        await env.write("confirm", tid, cmd.ConfirmTeam(team_id="t1", player="p1"))
    assert err.value.code == "not_partner"
    with pytest.raises(bus.RemoteError) as err:
        await env.write("patch", tid, cmd.ChangeSettings(by="p1", settings=settings()))
    assert err.value.code == "not_organizer"
    with pytest.raises(bus.RemoteError) as err:
        await env.write("register", "not-a-uuid", cmd.RegisterTeam(
            team_id="t2", name="B", player="p3", partner="p4"))
    assert err.value.code == "bad_tournament_id"
    with pytest.raises(bus.RemoteError) as err:
        await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                          api.GetTournament(tournament_id=str(uuid.uuid4())), api.TournamentView)
    assert err.value.code == "no_tournament"
    reply = await env.nc.request(env.names.endpoint("tournaments", "register"), b"\x01junk",
                                 timeout=5)
    assert (reply.headers or {}).get("Nats-Service-Error-Code") == "400"
    got = await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                            api.GetTournament(tournament_id=tid), api.TournamentView)
    assert got.version == 2 and not got.teams[0].confirmed
    for by, code in (("p1", "not_organizer"), ("org", "not_enough_teams")):
        with pytest.raises(bus.RemoteError) as err:
            await env.write("start_now", tid, cmd.StartNow(by=by))
        assert err.value.code == code


async def test_the_organizer_starts_a_tournament_now(env: Env) -> None:
    tid = str(uuid.uuid4())
    await env.write("create", tid, cmd.CreateTournament(
        tournament_id=tid, organizer="org", settings=msgspec.structs.replace(
            settings("swiss", 8), check_in_minutes=0)))
    for i in range(4):
        await env.write("register", tid, cmd.RegisterTeam(
            team_id=f"t{i}", name=f"T{i}", player=f"p{i}a", partner=f"p{i}b"))
        await env.write("confirm", tid, cmd.ConfirmTeam(team_id=f"t{i}", player=f"p{i}b"))
    reply = await env.write("start_now", tid, cmd.StartNow(by="org"), command_id="go")
    assert reply.events == ["CheckInClosed", "TournamentStarted"]
    got = await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                            api.GetTournament(tournament_id=tid), api.TournamentView)
    assert got.summary.status == "running" and all(t.seed for t in got.teams)
    assert (got.summary.check_in_opens_at, got.summary.check_in_closes_at) == (None, None)


async def test_committed_events_go_out_on_the_tournament_stream(env: Env) -> None:
    tid = str(uuid.uuid4())
    js = env.nc.jetstream()
    sub = await js.subscribe(f"{env.names.subject('tournament.evt')}.{tid}.>",
                             ordered_consumer=True)
    await env.write("create", tid, cmd.CreateTournament(
        tournament_id=tid, organizer="org", settings=settings("swiss", 8)))
    msg = await sub.next_msg(timeout=5)
    envelope = msgspec.msgpack.decode(msg.data, type=EventEnvelope)
    assert (envelope.stream, envelope.version, envelope.type) == (
        stream_of(tid), 1, "TournamentCreated")
    assert msg.subject == env.names.tournament_event(stream_of(tid), "TournamentCreated")
    assert (msg.headers or {}).get("Nats-Msg-Id") == f"{stream_of(tid)}:1"


async def test_the_view_names_rounds_and_shows_what_decides_a_knockout(env: Env) -> None:
    tid = str(uuid.uuid4())
    await env.write("create", tid, cmd.CreateTournament(
        tournament_id=tid, organizer="org", settings=msgspec.structs.replace(
            settings("single_elimination", 8), check_in_minutes=0)))

    async def get() -> api.TournamentView:
        return await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                                 api.GetTournament(tournament_id=tid), api.TournamentView)

    for i in range(1, 6):  # five teams: seeds 1 to 3 have byes
        await env.write("register", tid, cmd.RegisterTeam(
            team_id=f"t{i}", name=f"T{i}", player=f"p{i}a", partner=f"p{i}b",
            rating=2000.0 - i))
        await env.write("confirm", tid, cmd.ConfirmTeam(team_id=f"t{i}", player=f"p{i}b"))
    before = await get()
    assert before.rounds == [] and before.standings == []
    assert before.standings_columns == ["reached", "eliminated", "match_points",
                                        "differential", "bags", "points", "seed"]
    await env.write("start_now", tid, cmd.StartNow(by="org"))
    view = await get()
    assert [(r.stage, r.round_no, r.name) for r in view.rounds] == [
        ("bracket", 1, "Quarter-finals"), ("bracket", 2, "Semi-finals"),
        ("bracket", 3, "Final")]
    # Seeds 4 and 5 play the only quarter-final; seeds 2 and 3 meet in a semi-final at once.
    assert [(m.match_id, m.stage, m.round_name) for m in view.matches] == [
        ("W1-2", "bracket", "Quarter-finals"), ("W2-2", "bracket", "Semi-finals")]
    rows = {r.team_id: r for r in view.standings}
    assert (rows["t1"].seed, rows["t1"].reached, rows["t1"].reached_round,
            rows["t1"].eliminated) == (1, 2, "Semi-finals", False)
    assert (rows["t5"].reached_round, rows["t5"].eliminated) == ("Quarter-finals", False)
    await env.write("override", tid, cmd.OverrideResult(
        match_id="W1-2", outcome="home", by="org", why="the away team left"))
    view = await get()
    rows = {r.team_id: r for r in view.standings}
    assert (rows["t5"].reached, rows["t5"].eliminated, rows["t5"].rank) == (1, True, 5)
    assert (rows["t4"].reached_round, rows["t4"].eliminated) == ("Semi-finals", False)
    assert "W2-1" in {m.match_id for m in view.matches}


async def finished_swiss(store: TournamentStore, teams: int, rounds: int) -> str:
    """A Swiss of ``teams`` teams played to its end through the service's own commands,
    a batch at a time (``execute_all_in``: the registrations, then each round's results)
    rather than game by game; its id."""
    tid, rng = str(uuid.uuid4()), random.Random(teams)
    s = msgspec.structs.replace(settings("swiss", teams, rounds=rounds), min_teams=teams)
    entries: list[cmd.TournamentCommand] = [
        cmd.CreateTournament(at=OPENS, tournament_id=tid, organizer="org", settings=s)]
    for i in range(teams):
        team = uuid.UUID(int=rng.getrandbits(128)).hex[:16]
        entries += [cmd.RegisterTeam(at=OPENS + 1, team_id=team, name=f"Team {i}",
                                     player=f"p-{team}a", partner=f"p-{team}b"),
                    cmd.ConfirmTeam(at=OPENS + 2, team_id=team, player=f"p-{team}b"),
                    *(cmd.CheckIn(at=STARTS - MINUTE, player=f"p-{team}{p}") for p in "ab")]
    async with store.pool.acquire() as conn:
        await store.execute_all_in(conn, tid, entries)
    at = STARTS
    assert await store.fire_due(at) == 1  # the start
    while (state := await store.load(tid)).status == "running":
        at += MINUTE
        if all(m.outcome is not None for m in state.matches.values()):
            assert await store.fire_due(at) == 1  # the next round paired
            continue
        async with store.pool.acquire() as conn:
            await store.execute_all_in(conn, tid, [cmd.RecordResult(
                at=at, match_id=m.pairing.match_id, outcome=rng.choice(("home", "away")),
                scores=(rng.randrange(300, 600), rng.randrange(300, 600)),
                game_stream=str(uuid.UUID(int=rng.getrandbits(128))))
                for m in state.matches.values() if m.outcome is None])
    return tid


async def test_a_1024_team_tournaments_view_is_answered_though_past_the_bus_limit(
        env: Env) -> None:
    """A finished Swiss of 1,024 teams and 10 rounds: its view (5,120 matches) is larger
    than a message of the bus may be, and is answered all the same, whole."""
    tid = await finished_swiss(env.store, 1024, 10)
    got = await bus.request(env.nc, env.names.endpoint("tournaments", "get"),
                            api.GetTournament(tournament_id=tid), api.TournamentView)
    assert (got.summary.status, len(got.teams), len(got.matches), len(got.standings)) == (
        "finished", 1024, 5120, 1024)
    assert len(msgspec.msgpack.encode(got)) > env.nc.max_payload
    assert got == await view(env.store.pool, uuid.UUID(tid))
