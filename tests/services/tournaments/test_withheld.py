"""Which games a player of a duplicate tournament may not see yet, read from the
projections on a real database: the other tables of a round while the player's own
match of it has no result, whatever the view shows of the round's results."""

from __future__ import annotations

import uuid

import asyncpg

from schemas.tournaments import commands as cmd
from services.tournaments.calls import game_of
from services.tournaments.reads import view, withheld
from services.tournaments.state import MatchState

from .driver import OPENS, STARTS, settings
from .test_store import enter, store_on


async def _round_one(pool: asyncpg.Pool, deals: str = "duplicate") -> tuple[str, list[MatchState]]:
    store = store_on(pool)
    tid = str(uuid.uuid4())
    await store.execute(tid, cmd.CreateTournament(
        at=OPENS, tournament_id=tid, organizer="org",
        settings=settings("swiss", 8, deals=deals)))
    for i in range(4):
        await enter(store, tid, f"t{i}")
    await store.fire_due(STARTS)  # start, then pair round 1
    await store.fire_due(STARTS)
    state = await store.load(tid)
    return tid, [state.matches[m] for m in state.rounds[0].match_ids]


def _players(m: MatchState) -> list[str]:
    return [f"{team}{p}" for team in (m.pairing.home, m.pairing.away) for p in "ab"]


async def test_a_player_and_partner_may_not_see_the_round_until_their_match_has_a_result(
        pool: asyncpg.Pool) -> None:
    tid, (first, second) = await _round_one(pool)
    for p in _players(first):
        assert await withheld(pool, p) == [game_of(tid, second.pairing.match_id)]
    await store_on(pool).execute(tid, cmd.RecordResult(
        at=STARTS + 1, match_id=first.pairing.match_id, outcome="home", scores=(100, 50)))
    # The view does not show the result yet; the player has finished all the same.
    shown = await view(pool, uuid.UUID(tid))
    assert shown is not None and all(m.outcome is None for m in shown.matches)
    for p in _players(first):
        assert await withheld(pool, p) == []
    for p in _players(second):
        assert await withheld(pool, p) == [game_of(tid, first.pairing.match_id)]
    assert await withheld(pool, "stranger") == []


async def test_random_deals_withhold_nothing(pool: asyncpg.Pool) -> None:
    _, (first, _) = await _round_one(pool, "random")
    assert await withheld(pool, _players(first)[0]) == []
