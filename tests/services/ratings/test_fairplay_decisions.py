"""Fair play's review queue in the ratings service: a decision recorded as events, an
upheld case's games voided by a rebuild that leaves the ratings a season without them
would (worked out while the consumer keeps rating, swapped in at the end), a bar from
ranked, a player's report, and typed refusals."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import defaultdict

import asyncpg
import pytest

from schemas import fairplay as api
from services.platform.busclient import Refused
from services.ratings import rebuild, results
from services.ratings.fairplay import store
from services.ratings.fairplay.cases import FairPlay
from tests.services.ratings.conftest import NOW_MS, SYSTEM, Feed, ended, envelope
from tests.services.ratings.test_golden import season

Season = list[tuple[tuple[str, str, str, str], int | None, tuple[int, ...]]]


def elo_by_hand(games: Season) -> dict[str, tuple[int, int]]:
    """Team Elo as docs/ratings.md states it, written out apart from the service: each
    player's (rating, games) after ``games`` in order. Team strength is the partners'
    mean; E = 1 / (1 + 10^(gap / 400)) with the gap capped at 400; K 40 for a player's
    first 20 rated games, then 20; a leaver scores 0; changes round half to even."""
    rating: dict[str, int] = defaultdict(lambda: 1500)
    played: dict[str, int] = defaultdict(int)
    for seats, winner, abandoned in games:
        t0 = (rating[seats[0]] + rating[seats[2]]) / 2
        t1 = (rating[seats[1]] + rating[seats[3]]) / 2
        e0 = 1 / (1 + 10 ** (max(-400, min(400, t1 - t0)) / 400))
        deltas = []
        for seat, p in enumerate(seats):
            e = e0 if seat % 2 == 0 else 1 - e0
            if seat in abandoned:
                score = 0.0
            elif winner is None:
                score = 0.5
            else:
                score = 1.0 if winner == seat % 2 else 0.0
            k = 40 if played[p] < 20 else 20
            deltas.append(round(k * (score - e)))
        for p, d in zip(seats, deltas, strict=True):
            rating[p] += d
            played[p] += 1
    return {p: (rating[p], played[p]) for p in rating}


async def _feed_season(pool: asyncpg.Pool, games: Season, names: list[str]) -> None:
    batch = results.batch_handler(SYSTEM)
    envs = [envelope(name, ended(seats, winner, abandoned=abandoned), at_ms=NOW_MS + n)
            for n, (name, (seats, winner, abandoned)) in enumerate(zip(names, games, strict=True))]
    for start in range(0, len(envs), 7):
        async with pool.acquire() as conn, conn.transaction():
            await batch(conn, envs[start:start + 7])


async def _ratings(pool: asyncpg.Pool) -> dict[str, tuple[int, int]]:
    return {r["player_id"]: (r["rating"], r["games"])
            for r in await pool.fetch("SELECT player_id, rating, games FROM ratings")}


async def _case(pool: asyncpg.Pool, players: list[str], relation: str,
                games: list[str]) -> str:
    async with pool.acquire() as conn, conn.transaction():
        await store.new_case(conn, "c-1", players, relation, 6.2, 120, "why", games)
        await store.event(conn, "c-1", "opened", {"score": 6.2, "game_id": games[-1]})
    return "c-1"


async def test_an_upheld_case_leaves_the_ratings_of_a_season_without_its_games(
        pool: asyncpg.Pool, feed: Feed) -> None:
    games = season()
    names = [f"g{n:02d}" for n in range(len(games))]
    await _feed_season(pool, games, names)
    assert await _ratings(pool) == elo_by_hand(games)
    # The pair p3, p7 as partners: every game they sat in together.
    pair = ["p3", "p7"]
    theirs = [n for n, (seats, _, _) in zip(names, games, strict=True)
              if {seats[0], seats[2]} == set(pair) or {seats[1], seats[3]} == set(pair)]
    assert theirs, "the season seats p3 and p7 together"
    case_id = await _case(pool, pair, "partners", theirs)
    decided_at = dt.datetime.now(dt.UTC).replace(microsecond=0)
    fair = FairPlay(pool, SYSTEM, bar_days=10, now=lambda: decided_at)
    detail = await fair.decide(api.Decide(case_id=case_id, decision="upheld", by="op-1",
                                          note="shared hands"))
    kept = [g for n, g in zip(names, games, strict=True) if n not in theirs]
    assert await _ratings(pool) == elo_by_hand(kept)
    assert await pool.fetchval("SELECT count(*) FROM rating_history") == 4 * len(kept)
    assert detail.case.status == "upheld"
    decided = detail.events[-1]
    assert (decided.type, decided.by, decided.decision, decided.voided_games) == (
        "decided", "op-1", "upheld", theirs)
    assert decided.barred_until_ms == int(decided_at.timestamp() * 1000) + 10 * 86_400_000
    bars = await fair.barred(api.BarredRequest(["p3", "p7", "p1"]))
    assert [b.player_id for b in bars.bars] == ["p3", "p7"]
    # A voided ending delivered again moves nothing, and neither does a rebuild's.
    before = await _ratings(pool)
    seats, winner, abandoned = games[names.index(theirs[0])]
    await feed(envelope(theirs[0], ended(seats, winner, abandoned=abandoned), version=100))
    assert await _ratings(pool) == before
    with pytest.raises(Refused) as again:
        await fair.decide(api.Decide(case_id=case_id, decision="cleared", by="op-1"))
    assert again.value.code == "case_decided"


async def test_a_cleared_case_moves_no_rating_and_bars_no_one(pool: asyncpg.Pool) -> None:
    games = season()[:12]
    names = [f"g{n:02d}" for n in range(len(games))]
    await _feed_season(pool, games, names)
    before = await _ratings(pool)
    case_id = await _case(pool, ["p1", "p2"], "opponents", names[:3])
    fair = FairPlay(pool, SYSTEM)
    detail = await fair.decide(api.Decide(case_id=case_id, decision="cleared", by="op-2",
                                          note="a bad day"))
    assert await _ratings(pool) == before
    assert (detail.case.status, detail.events[-1].decision, detail.events[-1].note) == (
        "cleared", "cleared", "a bad day")
    assert detail.events[-1].barred_until_ms is None
    assert (await fair.barred(api.BarredRequest(["p1", "p2"]))).bars == []
    listed = await fair.cases(api.ListCases(status="cleared"))
    assert [c.case_id for c in listed.cases] == [case_id]
    assert (await fair.cases(api.ListCases(status="open"))).cases == []


async def test_unknown_cases_are_refused_by_code(pool: asyncpg.Pool) -> None:
    fair = FairPlay(pool, SYSTEM)
    for call in (fair.case(api.GetCase(case_id="c-none")),
                 fair.decide(api.Decide(case_id="c-none", decision="upheld", by="op"))):
        with pytest.raises(Refused) as refused:
            await call
        assert refused.value.code == "case_not_found"


async def test_reports_of_one_table_join_one_case_and_count_each_reporter_once(
        pool: asyncpg.Pool) -> None:
    fair = FairPlay(pool, SYSTEM)
    four = ["d", "b", "c", "a"]
    first = await fair.report(api.Report(game_id="g1", players=four, reporter="x",
                                         reason="they bid blind and made it every time"))
    again = await fair.report(api.Report(game_id="g1", players=four, reporter="x"))
    other = await fair.report(api.Report(game_id="g2", players=four, reporter="y"))
    assert first.opened and not again.opened and not other.opened
    assert first.case_id == again.case_id == other.case_id
    detail = await fair.case(api.GetCase(case_id=first.case_id))
    assert detail.case.players == ["a", "b", "c", "d"]
    assert (detail.case.relation, detail.case.games) == ("reported", 2)
    assert sorted(detail.games) == ["g1", "g2"]
    assert [(e.type, e.by, e.game_id) for e in detail.events] == [
        ("opened", "", "g1"), ("reported", "x", "g1"), ("reported", "y", "g2")]
    assert detail.events[1].note == "they bid blind and made it every time"


def _together(games: Season, names: list[str], pair: set[str]) -> list[str]:
    """The games in which ``pair`` sat as partners."""
    return [n for n, (seats, _, _) in zip(names, games, strict=True)
            if {seats[0], seats[2]} == pair or {seats[1], seats[3]} == pair]


async def test_games_rated_while_a_rebuild_is_worked_out_count_once_and_are_not_held_up(
        pool: asyncpg.Pool) -> None:
    """The replay is worked out with nothing locked: the consumer rates the last games of
    the season meanwhile (in time), and the swap rates them on top, each once."""
    games = season()
    names = [f"g{n:02d}" for n in range(len(games))]
    await _feed_season(pool, games[:45], names[:45])
    theirs = _together(games[:45], names[:45], {"p3", "p7"})
    async with pool.acquire() as conn, conn.transaction():
        worked = await rebuild.plan(conn, SYSTEM, theirs)
        await asyncio.wait_for(_feed_season(pool, games[45:], names[45:]), 10)
        assert await pool.fetchval("SELECT count(*) FROM rating_history") == 4 * 60
        assert await rebuild.swap_in(conn, worked, theirs, "c-1") == 60 - len(theirs)
    kept = [g for n, g in zip(names, games, strict=True) if n not in theirs]
    assert await _ratings(pool) == elo_by_hand(kept)
    assert await pool.fetchval("SELECT count(*) FROM rating_history") == 4 * len(kept)
    assert await pool.fetchval("SELECT count(DISTINCT game_stream) FROM rating_history"
                               " WHERE game_stream = ANY($1::text[])", names[45:]) == 15


async def test_a_rebuild_worked_out_before_another_was_swapped_in_is_worked_out_again(
        pool: asyncpg.Pool) -> None:
    """Two cases upheld at once: the second plan stands on a history the first swap
    rewrote, so it is worked out again under the lock; the ratings leave out both."""
    games = season()
    names = [f"g{n:02d}" for n in range(len(games))]
    await _feed_season(pool, games, names)
    first = _together(games, names, {"p3", "p7"})
    second = [n for n in _together(games, names, {"p1", "p2"}) if n not in first]
    assert first and second, "the season seats both pairs together"
    plans = [await rebuild.plan(pool, SYSTEM, g) for g in (first, second)]
    for worked, voided, case in zip(plans, (first, second), ("c-1", "c-2"), strict=True):
        async with pool.acquire() as conn, conn.transaction():
            await rebuild.swap_in(conn, worked, voided, case)
    kept = [g for n, g in zip(names, games, strict=True) if n not in first + second]
    assert await _ratings(pool) == elo_by_hand(kept)
    assert await pool.fetchval("SELECT count(*) FROM rating_history") == 4 * len(kept)
