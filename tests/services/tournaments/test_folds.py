"""The folds the store keeps between commands: a command writes only the rows that
changed, and whatever happened in between (another copy's commands, a rolled-back
transaction) the tables still equal a projection of the whole stream written anew."""

from __future__ import annotations

import uuid
from typing import Literal

import asyncpg
import pytest
from prometheus_client import REGISTRY

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments.projection import _COLUMNS, rows_of
from services.tournaments.store import TournamentStore, stream_of

from .driver import MINUTE, OPENS, STARTS
from .test_store import create, enter, store_on


async def tables(pool: asyncpg.Pool, tid: str) -> dict[str, set[tuple[object, ...]]]:
    """Every projection row of the tournament, as stored."""
    found = {}
    for table, columns in _COLUMNS.items():
        rows = await pool.fetch(f"SELECT {', '.join(columns)} FROM {table}"
                                " WHERE tournament_id = $1", uuid.UUID(tid))
        found[table] = {_hashable(tuple(r)) for r in rows}
    return found


def _hashable(row: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(tuple(v) if isinstance(v, list) else v for v in row)


async def recount(store: TournamentStore, tid: str) -> dict[str, set[tuple[object, ...]]]:
    """The rows a projection of the whole stream, written anew, would hold."""
    rows = rows_of(uuid.UUID(tid), await store.load(tid))
    return {table: {_hashable(r) for r in keyed.values()} for table, keyed in rows.items()}


def folds(how: str) -> float:
    return REGISTRY.get_sample_value("spades_tournament_folds_total", {"how": how}) or 0.0


async def running(store: TournamentStore, teams: int = 8) -> str:
    tid = await create(store, teams=teams)
    for i in range(teams):
        await enter(store, tid, f"t{i}")
    await store.fire_due(STARTS)  # start, then pair round 1
    await store.fire_due(STARTS)
    return tid


async def xmins(pool: asyncpg.Pool, table: str, key: str, tid: str) -> dict[str, int]:
    rows = await pool.fetch(f"SELECT {key}, xmin::text::bigint AS x FROM {table}"
                            " WHERE tournament_id = $1", uuid.UUID(tid))
    return {r[key]: r["x"] for r in rows}


async def test_a_result_writes_its_match_and_the_standings_not_every_row(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    first, *others = (await store.load(tid)).rounds[0].match_ids
    teams, matches = (await xmins(pool, "tournament_teams", "team_id", tid),
                      await xmins(pool, "tournament_matches", "match_id", tid))
    kept = folds("kept")
    await store.execute(tid, cmd.RecordResult(at=STARTS + MINUTE, match_id=first,
                                              outcome="home", scores=(500, 300)))
    assert folds("kept") == kept + 1  # the stream was not read again
    assert await xmins(pool, "tournament_teams", "team_id", tid) == teams
    now = await xmins(pool, "tournament_matches", "match_id", tid)
    assert now[first] != matches[first]
    assert {m: now[m] for m in others} == {m: matches[m] for m in others}
    assert await tables(pool, tid) == await recount(store, tid)


async def test_two_copies_writing_in_turn_keep_the_tables_equal_to_the_stream(
        pool: asyncpg.Pool) -> None:
    one, other = store_on(pool), store_on(pool)
    tid = await running(one)
    match_ids = (await one.load(tid)).rounds[0].match_ids
    caught_up = folds("caught_up")
    for i, match_id in enumerate(match_ids):  # each copy records every other result
        await (one, other)[i % 2].execute(tid, cmd.RecordResult(
            at=STARTS + MINUTE, match_id=match_id, outcome="away", scores=(200, 450)))
        assert await tables(pool, tid) == await recount(store_on(pool), tid)
    assert folds("caught_up") > caught_up  # one copy applied the other's events
    assert await other.fire_due(STARTS + 2 * MINUTE) == 1  # round 2, by the other copy
    await one.execute(tid, cmd.RecordResult(
        at=STARTS + 3 * MINUTE, match_id=(await one.load(tid)).rounds[1].match_ids[0],
        outcome="home", scores=(500, 100)))
    assert await tables(pool, tid) == await recount(store_on(pool), tid)


async def test_a_rolled_back_transaction_leaves_no_trace_in_the_kept_fold(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    first, second, *_ = (await store.load(tid)).rounds[0].match_ids
    folded = folds("folded")
    async with pool.acquire() as conn:
        with pytest.raises(RuntimeError):
            async with conn.transaction():  # a consumer's batch that fails after the append
                await store.execute_all_in(conn, tid, [cmd.RecordResult(
                    at=STARTS + MINUTE, match_id=first, outcome="home", scores=(500, 0))])
                raise RuntimeError("the batch failed")
    await store.execute(tid, cmd.RecordResult(at=STARTS + MINUTE, match_id=second,
                                              outcome="away", scores=(0, 500)))
    assert folds("folded") == folded + 1  # the kept fold was not trusted
    state = await store.load(tid)
    assert state.matches[first].outcome is None and state.matches[second].outcome == "away"
    assert await tables(pool, tid) == await recount(store, tid)


async def test_calls_change_only_their_matches_rows_and_equal_a_full_projection(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    first, *others = (await store.load(tid)).rounds[0].match_ids
    standings = await xmins(pool, "tournament_standings", "team_id", tid)
    calls: list[tuple[Literal["ready_check", "started"], str]] = [
        ("ready_check", ""), ("started", f"g-{first}")]
    for state, game in calls:
        await store.execute(tid, cmd.CallMatch(at=STARTS + 1_000, match_id=first,
                                               game_id=game, table_id="t-1", state=state,
                                               ready_by=STARTS + 30_000))
        assert await tables(pool, tid) == await recount(store, tid)
    assert await xmins(pool, "tournament_standings", "team_id", tid) == standings
    began = await pool.fetch("SELECT match_id FROM tournament_matches WHERE tournament_id = $1"
                             " AND game_began", uuid.UUID(tid))
    assert [r["match_id"] for r in began] == [first] and others


async def test_a_repeated_command_id_leaves_the_fold_equal_to_the_stream(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await create(store)
    register = cmd.RegisterTeam(at=OPENS + 1, team_id="t1", name="t1", player="a", partner="b")
    await store.execute(tid, register, command_id="c-1")
    state, again = await store.execute(tid, register, command_id="c-1")
    assert again == [] and state.version == await store.events.version(stream_of(tid)) == 2
    await enter(store, tid, "t2")
    assert await tables(pool, tid) == await recount(store, tid)
    assert list((await store.load(tid)).teams) == ["t1", "t2"]


async def started(store: TournamentStore, teams: int, kind: str) -> str:
    """A tournament of ``teams`` teams, started (a bracket drawn and its first matches
    paired; a round by round format's first round due)."""
    tid = await create(store, teams=teams, kind=kind)
    for i in range(teams):
        await enter(store, tid, f"t{i:02d}")
    await store.fire_due(STARTS)
    return tid


@pytest.mark.parametrize("kind", ["swiss", "double_elimination", "round_robin"])
async def test_results_one_at_a_time_keep_the_tables_equal_to_a_full_projection(
        pool: asyncpg.Pool, kind: str) -> None:
    """Every result of a whole tournament recorded alone (the appends that write only
    their match, its call and the standings) and every round or match they open: after
    each, the tables equal a projection of the whole stream written anew."""
    store = store_on(pool)
    tid = await started(store, 6, kind)
    at, results = STARTS, 0
    while (state := await store.load(tid)).status == "running":
        at += MINUTE
        waiting = sorted(i for i, m in state.matches.items() if m.outcome is None)
        if not waiting:
            assert await store.fire_due(at) == 1  # the next round
            continue
        scores = (300 + 10 * results, 200 + 20 * (results % 7))
        await store.execute(tid, cmd.RecordResult(
            at=at, match_id=waiting[0], outcome="home" if scores[0] > scores[1] else "away",
            scores=scores))
        results += 1
        assert await tables(pool, tid) == await recount(store, tid), (kind, results)
    assert state.status == "finished" and results >= 9


def rows(table: str, step: str) -> float:
    return REGISTRY.get_sample_value("spades_tournament_projection_rows_total",
                                     {"table": table, "step": step}) or 0.0


async def test_a_result_that_pairs_a_bracket_match_writes_only_the_rows_it_changed(
        pool: asyncpg.Pool) -> None:
    """In an elimination nearly every result pairs a match: that append compares and
    writes the result's match and the new match (and their calls), not every match of
    the bracket, and the tables still equal a projection written anew."""
    store = store_on(pool)
    tid = await started(store, 16, "double_elimination")
    at, paired = STARTS, 0
    while (state := await store.load(tid)).status == "running":
        at += MINUTE
        match_id = min(i for i, m in state.matches.items() if m.outcome is None)
        compared, written = (rows("tournament_matches", "compared"),
                             rows("tournament_matches", "written"))
        calls = rows("tournament_calls", "written")
        _, events = await store.execute(tid, cmd.RecordResult(
            at=at, match_id=match_id, outcome="home", scores=(400, 250)))
        new = {p.match_id for e in events if isinstance(e, ev.MatchesPaired)
               for p in e.pairings}
        if new and not any(isinstance(e, ev.TournamentFinished) for e in events):
            paired += 1
            assert rows("tournament_matches", "compared") - compared == len(new) + 1
            assert rows("tournament_matches", "written") - written == len(new) + 1
            assert rows("tournament_calls", "written") - calls == len(new)
        assert await tables(pool, tid) == await recount(store, tid)
    assert state.status == "finished" and paired >= 14


async def test_a_round_paired_writes_its_matches_not_the_rounds_before(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store, teams=7)  # a bye: a standing changes with the pairing
    for match_id in (await store.load(tid)).rounds[0].match_ids:
        await store.execute(tid, cmd.RecordResult(at=STARTS + MINUTE, match_id=match_id,
                                                  outcome="home", scores=(500, 300)))
    compared = rows("tournament_matches", "compared")
    assert await store.fire_due(STARTS + 2 * MINUTE) == 1
    state = await store.load(tid)
    assert len(state.rounds) == 2
    assert rows("tournament_matches", "compared") - compared == len(state.rounds[1].match_ids)
    assert await tables(pool, tid) == await recount(store, tid)
