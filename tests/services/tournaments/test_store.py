"""The tournament store on a real database: commands committed with their projections and
timers in one transaction, idempotent by command id, safe under racing writers and copies."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

import asyncpg
import pytest
from prometheus_client import REGISTRY

from schemas.bus import EventEnvelope
from schemas.tournaments import commands as cmd
from services.platform.eventstore import EventStore
from services.tournaments.errors import TournamentError
from services.tournaments.state import Tournament
from services.tournaments.store import CALL_WINDOW, TournamentStore, registry, stream_of
from services.tournaments.timers import due_timers

from .driver import MINUTE, OPENS, STARTS, settings


def store_on(pool: asyncpg.Pool, window: int = CALL_WINDOW) -> TournamentStore:
    seeds = iter(f"{i:032x}" for i in range(1, 1000))
    return TournamentStore(pool, EventStore(pool, registry()), new_seed=lambda: next(seeds),
                           window=window)


async def projection(pool: asyncpg.Pool, tid: str) -> dict[str, object]:
    """The projected rows of one tournament, in a comparable form."""
    t = uuid.UUID(tid)
    head = await pool.fetchrow("SELECT name, status, organizer, format, champion, version"
                               " FROM tournaments WHERE tournament_id = $1", t)
    teams = await pool.fetch("SELECT team_id, players, confirmed, waiting, checked_in,"
                             " withdrawn, seed FROM tournament_teams WHERE tournament_id = $1"
                             " ORDER BY team_id", t)
    matches = await pool.fetch("SELECT match_id, home, away, outcome FROM tournament_matches"
                               " WHERE tournament_id = $1 ORDER BY match_id", t)
    timers = await pool.fetch("SELECT kind, due_at FROM tournament_timers"
                              " WHERE tournament_id = $1", t)
    return {"head": dict(head) if head else None, "teams": [dict(r) for r in teams],
            "matches": [dict(r) for r in matches],
            "timers": {r["kind"]: int(r["due_at"].timestamp() * 1000) for r in timers}}


def expected(state: Tournament) -> dict[str, object]:
    """What the projection must hold for a fold."""
    assert state.settings is not None
    seed_of = {t: i + 1 for i, t in enumerate(state.seeds)}
    return {
        "head": {"name": state.settings.name, "status": state.status,
                 "organizer": state.organizer, "format": state.settings.format.kind,
                 "champion": state.champion, "version": state.version},
        "teams": [{"team_id": t.team_id, "players": list(t.players), "confirmed": t.confirmed,
                   "waiting": t.waiting, "checked_in": sorted(t.checked_in),
                   "withdrawn": t.withdrawn, "seed": seed_of.get(t.team_id)}
                  for t in sorted(state.teams.values(), key=lambda t: t.team_id)],
        "matches": [{"match_id": m.pairing.match_id, "home": m.pairing.home,
                     "away": m.pairing.away, "outcome": m.outcome}
                    for m in sorted(state.matches.values(), key=lambda m: m.pairing.match_id)],
        "timers": due_timers(state),
    }


async def create(store: TournamentStore, teams: int = 8, kind: str = "swiss") -> str:
    tid = str(uuid.uuid4())
    await store.execute(tid, cmd.CreateTournament(at=OPENS, tournament_id=tid, organizer="org",
                                                  settings=settings(kind, teams)))  # type: ignore[arg-type]
    return tid


async def enter(store: TournamentStore, tid: str, team: str, check_in: bool = True) -> None:
    await store.execute(tid, cmd.RegisterTeam(at=OPENS + 1, team_id=team, name=team,
                                              player=f"{team}a", partner=f"{team}b"))
    await store.execute(tid, cmd.ConfirmTeam(at=OPENS + 2, team_id=team, player=f"{team}b"))
    if check_in:
        for p in "ab":
            await store.execute(tid, cmd.CheckIn(at=STARTS - MINUTE, player=f"{team}{p}"))


async def test_projections_equal_the_fold_of_the_stream(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    for i in range(5):
        await enter(store, tid, f"t{i}", check_in=i != 4)
    assert await projection(pool, tid) == expected(await store.load(tid))
    await store.fire_due(STARTS)  # start, then pair round 1 at once
    await store.fire_due(STARTS)
    state = await store.load(tid)
    assert state.status == "running" and len(state.rounds) == 1
    assert await projection(pool, tid) == expected(state)
    for match_id in state.rounds[0].match_ids:
        await store.execute(tid, cmd.RecordResult(at=STARTS + MINUTE, match_id=match_id,
                                                  outcome="home", scores=(500, 300)))
    state = await store.load(tid)
    assert state.rounds[0].completed
    assert await projection(pool, tid) == expected(state)
    assert (await projection(pool, tid))["timers"] == {"pair": STARTS + MINUTE + 60_000}


async def test_starting_now_takes_the_place_of_the_timers_start(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    for i in range(4):
        await enter(store, tid, f"t{i}")
    assert (await projection(pool, tid))["timers"] == {"start": STARTS}
    _, events = await store.execute(tid, cmd.StartNow(at=STARTS - MINUTE, by="org"))
    assert type(events[1]).__name__ == "TournamentStarted"
    state = await store.load(tid)
    # The start's timer is gone; round 1 is paired at once, as after a timely start.
    assert (await projection(pool, tid))["timers"] == {"pair": STARTS - MINUTE}
    assert await projection(pool, tid) == expected(state)
    await store.fire_due(STARTS)
    state = await store.load(tid)
    assert [type(e).__name__ for e in (r.event for r in await store.events.read(
        stream_of(tid)))].count("TournamentStarted") == 1
    assert len(state.rounds) == 1


async def test_a_repeated_command_id_adds_nothing(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    register = cmd.RegisterTeam(at=OPENS + 1, team_id="t1", name="t1", player="a", partner="b")
    _, first = await store.execute(tid, register, command_id="c-1")
    _, again = await store.execute(tid, register, command_id="c-1")
    assert len(first) == 1 and again == []
    assert await store.events.version(stream_of(tid)) == 2


async def test_a_refused_command_changes_nothing(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    before = await projection(pool, tid)
    with pytest.raises(TournamentError) as err:
        await store.execute(tid, cmd.RegisterTeam(at=OPENS + 1, team_id="t1", name="x",
                                                  player="a", partner="a"))
    assert err.value.code == "self_partner"
    assert await projection(pool, tid) == before
    assert await store.events.version(stream_of(tid)) == 1


async def test_racing_confirmations_at_the_cap_place_exactly_max(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store, teams=4)
    for i in range(10):
        await store.execute(tid, cmd.RegisterTeam(at=OPENS + 1, team_id=f"t{i}", name=f"t{i}",
                                                  player=f"t{i}a", partner=f"t{i}b"))
    await asyncio.gather(*(store.execute(tid, cmd.ConfirmTeam(at=OPENS + 2, team_id=f"t{i}",
                                                              player=f"t{i}b"))
                           for i in range(10)))
    placed = await pool.fetchval("SELECT count(*) FROM tournament_teams WHERE tournament_id = $1"
                                 " AND confirmed AND NOT waiting", uuid.UUID(tid))
    assert placed == 4
    state = await store.load(tid)
    assert sum(t.confirmed and not t.waiting for t in state.teams.values()) == 4


async def test_two_copies_fire_each_due_timer_once(pool: asyncpg.Pool) -> None:
    copies = [store_on(pool), store_on(pool)]
    tids = [await create(copies[0]) for _ in range(3)]
    for tid in tids:
        for i in range(4):
            await enter(copies[0], tid, f"t{i}")
    assert await copies[0].fire_due(STARTS - 1) == 0
    # Three starts, then the three first rounds they schedule: a copy that looks after
    # the other committed its starts may fire those rounds in the same pass.
    fired = 0
    for _ in range(3):
        fired += sum(await asyncio.gather(*(c.fire_due(STARTS) for c in copies)))
    assert fired == 6  # each timer once
    for tid in tids:
        state = await copies[1].load(tid)
        assert len(state.rounds) == 1 and state.status == "running"
        assert await projection(pool, tid) == expected(state)
    assert sum(await asyncio.gather(*(c.fire_due(STARTS) for c in copies))) == 0


async def test_every_event_is_published_once_right_after_its_commit(
        pool: asyncpg.Pool) -> None:
    published: list[tuple[str, int]] = []

    async def publish(envelopes: Sequence[EventEnvelope]) -> None:
        for e in envelopes:  # visible to another connection: committed already
            assert await pool.fetchval("SELECT count(*) FROM events WHERE stream = $1"
                                       " AND version = $2", e.stream, e.version) == 1
            published.append((e.stream, e.version))

    store = TournamentStore(pool, EventStore(pool, registry(), publish=publish))
    tid = await create(store)
    for i in range(4):
        await enter(store, tid, f"t{i}")
    late = cmd.RegisterTeam(at=OPENS + 1, team_id="t9", name="t9", player="t9a",
                            partner="t9b")
    await store.execute(tid, late, command_id="again")
    await store.execute(tid, late, command_id="again")  # a repeat publishes nothing
    assert await store.fire_due(STARTS) >= 1  # the start (and the first round) by timer
    await store.fire_due(STARTS)
    stored = [(e.stream, e.version) for e in await store.events.read(stream_of(tid))]
    assert (await store.load(tid)).status == "running"
    assert published == stored


def _turnarounds() -> tuple[float, float]:
    """How many round turnarounds were counted, and their sum in seconds."""
    name = "spades_tournament_round_turnaround_seconds"
    return (REGISTRY.get_sample_value(f"{name}_count") or 0.0,
            REGISTRY.get_sample_value(f"{name}_sum") or 0.0)


async def test_a_round_paired_after_another_counts_the_time_since_its_last_result(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    for i in range(4):
        await enter(store, tid, f"t{i}")
    before = _turnarounds()
    await store.fire_due(STARTS)  # start, then pair round 1: no round before it
    await store.fire_due(STARTS)
    assert _turnarounds() == before
    state = await store.load(tid)
    for match_id in state.rounds[0].match_ids:
        await store.execute(tid, cmd.RecordResult(at=STARTS + MINUTE, match_id=match_id,
                                                  outcome="home", scores=(500, 300)))
    paired_at = STARTS + MINUTE + 60_000 + 2_500  # the interval, and 2.5 s late
    await store.fire_due(paired_at)
    assert len((await store.load(tid)).rounds) == 2
    assert _turnarounds() == (before[0] + 1, before[1] + 62.5)
