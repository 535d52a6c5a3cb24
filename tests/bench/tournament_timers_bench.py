"""Tournament timers on a real Postgres: 1,000 tournaments' starts due at once, fired by
two scheduler copies side by side (each start makes round 1 due at once, which fires in
the same sweep); and the commands per second that set them up (create, register,
confirm: each one fold, decision, append and projection rewrite in one transaction); and a
512-team Swiss round's turnover: its last result to the next round paired and stored,
then its 256 tables asked of the lobby (answered at once here: a ready check) and recorded;
and that round's 256 ``GameEnded`` arriving at once, applied as the results consumer
does, in fetches of 64 in one transaction each: message by message (each in a savepoint,
the fallback) and then as whole fetches (the batch handler).

Figures are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg

from engine.presets import PRESETS
from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services import catalog
from services.platform import dbadmin, migrations
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.tournaments import calls, results
from services.tournaments.state import MatchState, Tournament
from services.tournaments.store import TournamentStore, registry
from tests.bench.servers import bench_servers

TOURNAMENTS = 1000
TEAMS = 2
STARTS = 3_600_000


TURNOVER_TEAMS = 512


def _settings(teams: int = TEAMS) -> ev.TournamentSettings:
    return ev.TournamentSettings(
        name="Bench cup", format=ev.FormatOptions(kind="swiss"), rules=PRESETS["quick"],
        min_teams=2, max_teams=teams, registration_closes_at=STARTS - 60_000,
        check_in_minutes=0, starts_at=STARTS, round_interval_seconds=0)


async def _setup(store: TournamentStore, tid: str, teams: int = TEAMS) -> int:
    await store.execute(tid, cmd.CreateTournament(at=1, tournament_id=tid, organizer="org",
                                                  settings=_settings(teams)))
    for i in range(teams):
        await store.execute(tid, cmd.RegisterTeam(at=2, team_id=f"t{i}", name=f"t{i}",
                                                  player=f"{tid}-{i}a", partner=f"{tid}-{i}b"))
        await store.execute(tid, cmd.ConfirmTeam(at=3, team_id=f"t{i}", player=f"{tid}-{i}b"))
    return 1 + 2 * teams


async def _turnover(store: TournamentStore) -> None:
    """A 512-team Swiss: the round's last result, then the next round's pairing (the
    timer is due at once with ``round_interval_seconds`` 0)."""
    tid = str(uuid.uuid4())
    await _setup(store, tid, TURNOVER_TEAMS)
    await store.fire_due(STARTS)  # start
    await store.fire_due(STARTS)  # round 1
    await _call_all([store], STARTS)  # round 1's tables, and any other tournament's
    state = await store.load(tid)
    *first, last = state.rounds[0].match_ids
    for match_id in first:
        await store.execute(tid, cmd.RecordResult(at=STARTS + 1, match_id=match_id,
                                                  outcome="home", scores=(500, 300)))
    t0 = time.perf_counter()
    await store.execute(tid, cmd.RecordResult(at=STARTS + 1, match_id=last, outcome="away",
                                              scores=(300, 500)))
    recorded = time.perf_counter() - t0
    fired = await store.fire_due(STARTS + 1)
    paired = time.perf_counter() - t0
    assert fired == 1 and len((await store.load(tid)).rounds) == 2

    called = await store.fire_calls(STARTS + 1, ready_check)
    dt = time.perf_counter() - t0
    assert sum(len(events) for _, events in called) == TURNOVER_TEAMS // 2
    print(f"round turnover, {TURNOVER_TEAMS} teams: last result {recorded * 1e3:.0f} ms, "
          f"round 2 paired and stored {paired * 1e3:.0f} ms, its {TURNOVER_TEAMS // 2} "
          f"tables called and recorded: {dt * 1e3:.0f} ms in all")


FETCH = 64  # the results consumer's fetch


def _ending(tid: str, match_id: str, at: int) -> EventEnvelope:
    """A match's game ending as the outbox publishes it: the home team won."""
    encoded = game_registry().encode(GameEnded(
        winner=0, reason="target", scores=(500, 300), bags=(1, 2), hands_played=6,
        deals=((100, 50),) * 6, at=at))
    return EventEnvelope(stream=calls.game_of(tid, match_id), version=60, position=0,
                         type=encoded.type, schema_version=encoded.schema_version,
                         event_id=str(uuid.uuid4()), occurred_at_ms=at, correlation_id=None,
                         causation_id=None, body=encoded.body)


async def _started_round(store: TournamentStore) -> tuple[str, list[str]]:
    """A 512-team Swiss whose round 1 tables have all started."""
    tid = str(uuid.uuid4())
    await _setup(store, tid, TURNOVER_TEAMS)
    await store.fire_due(STARTS)
    await store.fire_due(STARTS)
    await store.fire_calls(STARTS, started)
    state = await store.load(tid)
    assert all(m.call == "started" for m in state.matches.values())
    return tid, state.rounds[0].match_ids


async def _endings(store: TournamentStore) -> None:
    for label, batched in (("one at a time", False), ("in batches", True)):
        tid, match_ids = await _started_round(store)
        envs = [_ending(tid, m, STARTS + 1) for m in match_ids]
        one, batch = results.on_game_ended(store), results.on_games_ended(store)
        t0 = time.perf_counter()
        for i in range(0, len(envs), FETCH):
            async with store.pool.acquire() as conn, conn.transaction():
                if batched:
                    await batch(conn, envs[i:i + FETCH])
                    continue
                for env in envs[i:i + FETCH]:
                    async with conn.transaction():
                        await one(conn, env)
        dt = time.perf_counter() - t0
        state = await store.load(tid)
        assert all(state.matches[m].outcome == "home" for m in match_ids)
        print(f"{len(envs)} GameEnded at once, {TURNOVER_TEAMS}-team round, {label}: "
              f"{dt * 1e3:.0f} ms")


async def started(state: Tournament, m: MatchState, now: int) -> cmd.CallMatch:
    """The lobby's answer, at once: the game began."""
    return cmd.CallMatch(at=now, match_id=m.pairing.match_id, table_id="t",
                         game_id=calls.game_of(state.tournament_id, m.pairing.match_id),
                         state="started")


async def ready_check(state: Tournament, m: MatchState, now: int) -> cmd.CallMatch:
    """The lobby's answer, at once: a ready check of five minutes."""
    return cmd.CallMatch(at=now, match_id=m.pairing.match_id, table_id="t",
                         game_id=calls.game_of(state.tournament_id, m.pairing.match_id),
                         state="ready_check", ready_by=now + 300_000)


async def _call_all(copies: list[TournamentStore], now: int) -> tuple[int, float]:
    """Every call due, by every copy, until none is left: how many tournaments and how long."""
    t0 = time.perf_counter()
    done = 0
    while True:
        got = sum(len(d) for d in await asyncio.gather(
            *(c.fire_calls(now, ready_check) for c in copies)))
        if not got:
            return done, time.perf_counter() - t0
        done += got


async def _fire_all(copies: list[TournamentStore], now: int) -> tuple[int, float]:
    t0 = time.perf_counter()
    fired = 0
    while True:
        got = sum(await asyncio.gather(*(c.fire_due(now, limit=100) for c in copies)))
        if not got:
            return fired, time.perf_counter() - t0
        fired += got


async def run(admin_url: str) -> None:
    name = f"bench_tournaments_{uuid.uuid4().hex[:8]}"
    url = await dbadmin.ensure_database(admin_url, name)
    conn = await asyncpg.connect(url)
    await migrations.apply(conn, [catalog.MIGRATIONS["tournaments"]])
    await conn.close()
    pools = [await create_pool(url, "tournaments", max_size=8) for _ in range(2)]
    copies = [TournamentStore(p, EventStore(p, registry())) for p in pools]
    try:
        tids = [str(uuid.uuid4()) for _ in range(TOURNAMENTS)]
        t0 = time.perf_counter()
        commands = 0
        for batch in range(0, TOURNAMENTS, 16):
            done = await asyncio.gather(*(_setup(copies[i % 2], tid)
                                          for i, tid in enumerate(tids[batch:batch + 16])))
            commands += sum(done)
        dt = time.perf_counter() - t0
        print(f"tournament commands, 16 at once:        {commands / dt:8.0f} commands/s "
              f"({commands} commands, {dt:.1f} s)")
        fired, dt = await _fire_all(copies, STARTS)
        print(f"{TOURNAMENTS} tournaments due at once: {fired} transitions (each start, then "
              f"its round 1) fired by 2 copies in {dt * 1e3:.0f} ms "
              f"({dt / max(fired, 1) * 1e3:.2f} ms each)")
        called, dt = await _call_all(copies, STARTS)
        print(f"their first tables called: {called} tournaments' answers recorded by 2 copies "
              f"in {dt * 1e3:.0f} ms")
        await _turnover(copies[0])
        await _endings(copies[0])
    finally:
        for p in pools:
            await p.close()
        await dbadmin.drop(admin_url, name)


def main() -> None:
    with bench_servers() as (db_url, _):
        asyncio.run(run(db_url))


if __name__ == "__main__":
    main()
