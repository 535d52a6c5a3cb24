"""Calling matches and taking their results, on a real database: each paired match is
asked of the lobby once per due time whatever the number of copies, the answer is recorded
(a ready check, a start, a no-show), and a game's end becomes its match's result once."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import Counter

import asyncpg
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.matches import (
    MatchOpened,
    MatchOutcome,
    OpenMatch,
    lobby_match_id,
    parse_lobby_match_id,
)
from schemas.matches import game_of as game_of_match
from schemas.tournaments import commands as cmd
from schemas.tournaments.events import MatchCalled, MatchResult
from services.platform.events import game_registry
from services.tournaments import calls
from services.tournaments.decide import standings_of
from services.tournaments.errors import TournamentError
from services.tournaments.projection import GAME_CHECK_MS, RECHECK_MS
from services.tournaments.reads import stale_projections, view
from services.tournaments.results import on_game_ended, on_games_ended, on_match_outcome
from services.tournaments.state import MatchState, Tournament
from services.tournaments.store import (
    CLAIM_MS,
    GAME_RECHECK_MS,
    RETRY_MS,
    TournamentStore,
    ban_ms,
    registry,
)
from tests.waiting import until

from .driver import STARTS, settings
from .test_store import create, enter, store_on


class Lobby:
    """The lobby's answers, as a test decides them: each match's state, and every ask."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.state: dict[str, tuple[str, tuple[int, ...]]] = {}
        self.ready_by = STARTS + 60_000

    async def ask(self, state: Tournament, m: MatchState, now: int) -> cmd.TournamentCommand | None:
        req = calls.request_of(state, m)
        self.asked.append(req.match_id)
        await asyncio.sleep(0.01)  # a round trip: let a racing copy run meanwhile
        answer, absent = self.state.get(m.pairing.match_id, ("ready_check", ()))
        game_id = calls.game_of(state.tournament_id, m.pairing.match_id)
        return calls.answer(m.pairing.match_id, answer, game_id, "t-1",
                            self.ready_by if answer == "ready_check" else 0, absent, now,
                            calls.seats_of(state, m))


async def running(store: TournamentStore, teams: int = 4) -> str:
    tid = await create(store, teams, "single_elimination")
    for i in range(teams):
        await enter(store, tid, f"t{i}")
    assert await store.fire_due(STARTS) == 1
    return tid


@pytest.mark.parametrize(("absent", "outcome"), [
    ((), None), ((0,), "away"), ((2,), "away"), ((1, 3), "home"), ((0, 3), "double_forfeit"),
    ((0, 1, 2, 3), "double_forfeit")])
def test_a_team_missing_a_player_forfeits_and_both_missing_is_a_double_forfeit(
        absent: tuple[int, ...], outcome: str | None) -> None:
    assert calls.no_show(absent) == outcome


@given(st.uuids(), st.from_regex(r"[A-Z]{1,2}[0-9]{1,4}-[0-9]{1,5}", fullmatch=True))
def test_the_lobby_match_id_names_the_tournament_and_the_match(tid: uuid.UUID,
                                                               match_id: str) -> None:
    lobby_id = lobby_match_id(str(tid), match_id)
    assert len(lobby_id) <= 64
    assert parse_lobby_match_id(lobby_id) == (str(tid), match_id)


def test_an_id_the_tournaments_did_not_make_is_none_of_theirs() -> None:
    for other in ("q-81", "t-", "tnothex-W1-1", "W1-1", ""):
        assert parse_lobby_match_id(other) is None


async def test_a_round_is_asked_through_a_sliding_window_with_the_lock_let_go(
        pool: asyncpg.Pool) -> None:
    """A round's tables are asked ``window`` at a time, the next as soon as one is
    answered (a slow ask holds back no other), with no lock on the tournament held
    meanwhile, and the answers are recorded as they come: all in one sweep."""
    store, lobby = store_on(pool, window=4), Lobby()
    tid = await running(store, 32)
    in_flight = most = 0
    asked_while_slow: list[str] = []
    lock_free: list[bool] = []
    slow_out = False

    async def ask(state: Tournament, m: MatchState, now: int) -> cmd.TournamentCommand | None:
        nonlocal in_flight, most, slow_out
        in_flight += 1
        most = max(most, in_flight)
        try:
            if m.pairing.match_id != "W1-1":  # the first asked
                if slow_out:
                    asked_while_slow.append(m.pairing.match_id)
                return await lobby.ask(state, m, now)
            # While this one waits, the others are asked and recorded, and anyone may
            # write to the tournament.
            slow_out = True
            async with pool.acquire() as conn, conn.transaction():
                lock_free.append(await conn.fetchval(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))",
                    f"tournament-{tid}"))
            await until(lambda: called(store, tid, 8), timeout=10, every=0.01)
            slow_out = False
            return await lobby.ask(state, m, now)
        finally:
            in_flight -= 1

    done = await store.fire_calls(STARTS, ask)
    assert most == 4 and lock_free == [True]
    # Fixed batches of four would have asked three while the slow one was out.
    assert len(asked_while_slow) >= 8
    assert len(lobby.asked) == len(set(lobby.asked)) == 16
    assert len(done) > 1  # recorded as the answers came, not all at the end
    assert sum(isinstance(e, MatchCalled) for _, events in done for e in events) == 16
    state = await store.load(tid)
    assert {m.call for m in state.matches.values()} == {"ready_check"}
    assert await stale_projections(pool, uuid.UUID(tid), state) == []


async def called(store: TournamentStore, tid: str, at_least: int) -> bool:
    state = await store.load(tid)
    return sum(m.call != "" for m in state.matches.values()) >= at_least


async def test_a_copy_dying_mid_opening_leaves_no_match_opened_twice_or_missed(
        pool: asyncpg.Pool) -> None:
    """A copy dies with some answers recorded, some asked and not recorded, some not asked
    yet: none is asked by another copy before the claim lapses, then every unrecorded
    one is asked again. The lobby's idempotent open makes a repeated ask the same match;
    each match is called once in the stream, none is missed."""
    lobby, opened = Lobby(), Counter[str]()
    first = store_on(pool, window=2)
    tid = await running(first, 16)
    answered = asyncio.Event()

    async def dying(state: Tournament, m: MatchState, now: int) -> cmd.TournamentCommand | None:
        opened[m.pairing.match_id] += 1
        got = await lobby.ask(state, m, now)
        if len(opened) >= 4:  # from the fourth on, the answers are never recorded
            await until(lambda: called(first, tid, 1), timeout=10, every=0.01)
            answered.set()  # the copy dies now
            await asyncio.Event().wait()
        return got

    sweep = asyncio.create_task(first.fire_calls(STARTS, dying))
    await asyncio.wait_for(answered.wait(), 10)
    sweep.cancel()  # the crash: what was in flight is gone with it
    with contextlib.suppress(asyncio.CancelledError):
        await sweep
    recorded = {m for m, s in (await first.load(tid)).matches.items() if s.call}
    assert 0 < len(recorded) < 4  # some recorded, some asked only, three or more never asked

    second, asked = store_on(pool), Counter[str]()

    async def again(state: Tournament, m: MatchState, now: int) -> cmd.TournamentCommand | None:
        asked[m.pairing.match_id] += 1
        return await lobby.ask(state, m, now)

    assert await second.fire_calls(STARTS + CLAIM_MS - 1, again) == []
    await second.fire_calls(STARTS + CLAIM_MS, again)
    state = await second.load(tid)
    assert {m.call for m in state.matches.values()} == {"ready_check"}
    assert set(asked) == set(state.matches) - recorded and max(asked.values()) == 1
    assert set(opened) & set(asked) == set(opened) - recorded  # asked, never recorded
    events = [r.event for r in await second.events.read(f"tournament-{tid}")]
    assert Counter(e.match_id for e in events if isinstance(e, MatchCalled)) == \
        dict.fromkeys(state.matches, 1)
    assert await stale_projections(pool, uuid.UUID(tid), state) == []


async def test_paired_matches_are_called_then_asked_again_after_the_ready_check(
        pool: asyncpg.Pool) -> None:
    store, lobby = store_on(pool), Lobby()
    tid = await running(store)
    state = await store.load(tid)
    assert sorted(state.matches) == ["W1-1", "W1-2"]
    done = await store.fire_calls(STARTS, lobby.ask)
    assert sorted(lobby.asked) == sorted(lobby_match_id(tid, m) for m in state.matches)
    assert [type(e).__name__ for _, events in done for e in events] == ["MatchCalled"] * 2
    state = await store.load(tid)
    assert {m.call for m in state.matches.values()} == {"ready_check"}
    assert await games_shown(pool, tid) == {"W1-1": "", "W1-2": ""}  # no game yet
    first, events = done[0]
    called = events[0]
    assert isinstance(called, MatchCalled)
    assert len(calls.calls_to_send(first, events)) == 8  # four seats of each match
    notes = calls.calls_to_send(first, [called])
    assert [n.seat for _, n in notes] == [0, 1, 2, 3]
    assert {(n.state, n.round, n.tournament_id) for _, n in notes} == {
        ("ready_check", 1, tid)}
    home, away = (first.teams[t].players for t in (first.matches[called.match_id].pairing.home,
                                                   first.matches[called.match_id].pairing.away))
    assert [p for p, _ in notes] == [home[0], away[0], home[1], away[1]]
    # Nothing is asked again before the deadline has passed.
    assert await store.fire_calls(lobby.ready_by + RECHECK_MS - 1, lobby.ask) == []
    assert len(lobby.asked) == 2
    lobby.state = {"W1-1": ("started", ()), "W1-2": ("not_ready", (1,))}
    await store.fire_calls(lobby.ready_by + RECHECK_MS, lobby.ask)
    state = await store.load(tid)
    assert state.matches["W1-1"].call == "started" and state.matches["W1-1"].outcome is None
    w2 = state.matches["W1-2"]
    assert (w2.outcome, w2.reason) == ("home", "no_show")
    # The view links the started match to its game; the no-show had none.
    assert await games_shown(pool, tid) == {"W1-1": calls.game_of(tid, "W1-1"), "W1-2": ""}
    absent = state.teams[w2.pairing.away].players[0]  # seat 1
    assert await pool.fetchval("SELECT no_shows FROM no_show_bans WHERE player_id = $1",
                               absent) == 1
    # The started match is looked at in the game's store if its end is long in coming.
    due = await pool.fetch("SELECT match_id, due_at FROM tournament_calls"
                           " WHERE tournament_id = $1", uuid.UUID(tid))
    assert [(r["match_id"], int(r["due_at"].timestamp() * 1000)) for r in due] == [
        ("W1-1", lobby.ready_by + RECHECK_MS + GAME_CHECK_MS)]
    assert await stale_projections(pool, uuid.UUID(tid), state) == []


async def games_shown(pool: asyncpg.Pool, tid: str) -> dict[str, str]:
    """Each match's game id as the tournament's view gives it."""
    shown = await view(pool, uuid.UUID(tid))
    assert shown is not None
    return {m.match_id: m.game_id for m in shown.matches}


async def test_a_call_names_its_game_only_once_the_game_started(pool: asyncpg.Pool) -> None:
    """During the ready check no game exists: a player told to subscribe then would be
    answered game_not_found. The call says so, and names the game once it began."""
    store, lobby = store_on(pool), Lobby()
    tid = await running(store)
    done = await store.fire_calls(STARTS, lobby.ask)
    state, events = done[0]
    checking = [n for _, n in calls.calls_to_send(state, events)]
    assert {(n.state, n.game_id, n.table_id, n.ready_by) for n in checking} == {
        ("ready_check", "", "", lobby.ready_by)}
    lobby.state = {"W1-1": ("starting", ()), "W1-2": ("started", ())}
    done = await store.fire_calls(lobby.ready_by + RECHECK_MS, lobby.ask)
    called = [(s, e) for s, events in done for e in events if isinstance(e, MatchCalled)]
    assert [e.match_id for _, e in called] == ["W1-2"]  # a game being created: not yet
    state, event = called[0]
    started = [n for _, n in calls.calls_to_send(state, [event])]
    assert {(n.state, n.game_id, n.table_id) for n in started} == {
        ("started", calls.game_of(tid, "W1-2"), "t-1")}
    assert (await store.load(tid)).matches["W1-1"].call == "ready_check"


async def test_a_call_the_lobby_could_not_answer_is_asked_again_later(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    asked: list[int] = []

    async def away(state: Tournament, m: MatchState, now: int) -> None:
        asked.append(now)

    assert await store.fire_calls(STARTS, away) == []
    assert await store.fire_calls(STARTS + RETRY_MS - 1, away) == []
    assert asked == [STARTS, STARTS]
    await store.fire_calls(STARTS + RETRY_MS, away)
    assert len(asked) == 4
    assert (await store.load(tid)).version == len(await store.events.read(f"tournament-{tid}"))


async def test_two_copies_ask_each_match_once(pool: asyncpg.Pool) -> None:
    copies, lobby = [store_on(pool), store_on(pool)], Lobby()
    tids = [await running(copies[0], 8) for _ in range(3)]
    for _ in range(3):
        await asyncio.gather(*(c.fire_calls(STARTS, lobby.ask) for c in copies))
    assert len(lobby.asked) == 12 and len(set(lobby.asked)) == 12
    for tid in tids:
        state = await copies[1].load(tid)
        called = [e for r in await copies[1].events.read(f"tournament-{tid}")
                  if type(e := r.event).__name__ == "MatchCalled"]
        assert len(called) == 4 == sum(m.call == "ready_check" for m in state.matches.values())


def _ended(game_id: str, winner: int | None, version: int = 9) -> EventEnvelope:
    encoded = game_registry().encode(GameEnded(
        winner=winner, reason="target", scores=(510, 230), bags=(2, 4), hands_played=8,
        players=("a", "b", "c", "d"), bags_taken=(5, 9)))
    return EventEnvelope(stream=game_id, version=version, position=1, type=encoded.type,
                         schema_version=encoded.schema_version, event_id=game_id,
                         occurred_at_ms=int(time.time() * 1000), correlation_id=None,
                         causation_id=None, body=encoded.body)


async def test_a_games_end_is_its_matchs_result_once(pool: asyncpg.Pool) -> None:
    store, lobby = store_on(pool), Lobby()
    tid = await running(store)
    lobby.state = {"W1-1": ("started", ()), "W1-2": ("started", ())}
    await store.fire_calls(STARTS, lobby.ask)
    handle = on_game_ended(store)
    game = (await store.load(tid)).matches["W1-1"].game_id
    for _ in range(2):  # redelivered: the same result, no new event
        async with pool.acquire() as conn, conn.transaction():
            await handle(conn, _ended(game, winner=1))
            await handle(conn, _ended("not-a-tournament-game", winner=0))
    state = await store.load(tid)
    m = state.matches["W1-1"]
    assert (m.outcome, m.reason, m.scores, m.bags_taken, m.game_stream) == (
        "away", "played", (510, 230), (5, 9), game)
    events = [r.event for r in await store.events.read(f"tournament-{tid}")]
    assert sum(type(e).__name__ == "MatchResult" for e in events) == 1
    assert await stale_projections(pool, uuid.UUID(tid), state) == []


async def test_a_fetch_of_endings_is_recorded_whole_once_and_as_one_at_a_time_would(
        pool: asyncpg.Pool) -> None:
    """The consumer's batch: endings of two tournaments' games and of a game no tournament
    opened, one twice in the fetch, then the whole fetch redelivered: each result once, a
    refused one (a draw in elimination) undoing none of the others, and the standings
    those of the same endings taken one at a time."""
    store = store_on(pool)
    endings = [(0, "W1-1", 0), (None, "", 1), (1, "W1-2", 1), (0, "W1-2", None), (0, "W1-1", 0),
               (1, "W1-1", 0)]

    def fetch(tids: list[str]) -> list[EventEnvelope]:
        return [_ended(calls.game_of(tids[t], m) if t is not None else "not-a-tournament-game",
                       winner) for t, m, winner in endings]

    batched, alone = [await running(store) for _ in "ab"], [await running(store) for _ in "ab"]
    for _ in range(2):
        async with pool.acquire() as conn, conn.transaction():
            await on_games_ended(store)(conn, fetch(batched))
    for env in fetch(alone):
        async with pool.acquire() as conn, conn.transaction():
            await on_game_ended(store)(conn, env)
    outcomes = []
    for tid, twin in zip(batched, alone, strict=True):
        got, want = await store.load(tid), await store.load(twin)
        outcomes.append({k: m.outcome for k, m in got.matches.items()})
        assert outcomes[-1] == {k: m.outcome for k, m in want.matches.items()}
        assert standings_of(got) == standings_of(want)
        assert await stale_projections(pool, uuid.UUID(tid), got) == []
    assert outcomes == [{"W1-1": "home", "W1-2": None},
                        {"W1-1": "home", "W1-2": "away", "W2-1": None}]
    events = [r.event for r in await store.events.read(f"tournament-{batched[1]}")]
    assert sorted(e.match_id for e in events if isinstance(e, MatchResult)) == ["W1-1", "W1-2"]


def test_the_lobby_answer_shape_is_the_ready_checks() -> None:
    opened = MatchOpened(match_id="m", table_id="t", game_id="g", rated=False,
                         state="not_ready", ready_by=5, absent=(0, 2))
    assert calls.answer("W1-1", opened.state, opened.game_id, opened.table_id,
                        opened.ready_by, opened.absent, 7) == cmd.RecordResult(
        at=7, match_id="W1-1", outcome="away", reason="no_show")


@given(st.uuids(), st.from_regex(r"[A-Z]{1,2}[0-9]{1,3}-[0-9]{1,4}", fullmatch=True))
def test_the_game_of_a_match_is_the_game_the_lobby_opens_for_it(tid: uuid.UUID,
                                                               match_id: str) -> None:
    lobby_id = lobby_match_id(str(tid), match_id)
    assert calls.game_of(str(tid), match_id) == game_of_match(lobby_id)


async def test_a_games_end_before_its_call_is_recorded_is_still_its_result(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    async with pool.acquire() as conn, conn.transaction():
        await on_game_ended(store)(conn, _ended(calls.game_of(tid, "W1-2"), winner=0))
    state = await store.load(tid)
    assert state.matches["W1-2"].outcome == "home" and state.matches["W1-2"].call == ""
    assert await pool.fetchval("SELECT array_agg(match_id) FROM tournament_calls"
                               " WHERE tournament_id = $1", uuid.UUID(tid)) == ["W1-1"]


async def later(store: TournamentStore, opens: int) -> str:
    """A tournament whose registration opens at ``opens`` and stays open ten days."""
    tid, days = str(uuid.uuid4()), 10 * 24 * 3_600_000
    await store.execute(tid, cmd.CreateTournament(
        at=opens, tournament_id=tid, organizer="org", settings=msgspec.structs.replace(
            settings("swiss", 8), registration_opens_at=opens,
            registration_closes_at=opens + days, starts_at=opens + days)))
    return tid


def test_a_no_show_bans_for_a_day_doubling_up_to_thirty_days() -> None:
    day = 24 * 3_600_000
    assert [ban_ms(n) // day for n in (1, 2, 3, 4, 5, 6, 50)] == [1, 2, 4, 8, 16, 30, 30]


async def test_a_banned_player_registers_only_where_the_organizer_waived_it(
        pool: asyncpg.Pool) -> None:
    store, lobby = store_on(pool), Lobby()
    tid = await running(store)
    lobby.state = {"W1-1": ("not_ready", (0, 2)), "W1-2": ("started", ())}
    await store.fire_calls(STARTS, lobby.ask)
    state = await store.load(tid)
    absent = state.teams[state.matches["W1-1"].pairing.home].players
    assert state.matches["W1-1"].outcome == "away"
    (result,) = [r.event for r in await store.events.read(f"tournament-{tid}")
                 if isinstance(r.event, MatchResult)]
    assert result.absent == absent and result.reason == "no_show"
    other, elsewhere = await later(store, STARTS), await later(store, STARTS)
    with pytest.raises(TournamentError) as refused:
        await store.execute(other, cmd.RegisterTeam(at=STARTS + 1, team_id="x", name="x",
                                                    player=absent[0], partner="someone"))
    assert refused.value.code == "no_show_ban"
    await store.execute(elsewhere, cmd.WaiveBan(at=STARTS + 1, player=absent[0], by="org"))
    with pytest.raises(TournamentError):
        await store.execute(elsewhere, cmd.WaiveBan(at=STARTS + 1, player=absent[0],
                                                    by="someone"))
    _, events = await store.execute(elsewhere, cmd.RegisterTeam(
        at=STARTS + 1, team_id="x", name="x", player=absent[0], partner="someone"))
    assert [type(e).__name__ for e in events] == ["TeamRegistered"]
    # The ban ends after a day.
    _, events = await store.execute(other, cmd.RegisterTeam(
        at=STARTS + ban_ms(1) + 1, team_id="y", name="y", player=absent[1], partner="else"))
    assert [type(e).__name__ for e in events] == ["TeamRegistered"]


def test_a_stored_first_version_result_reads_with_nobody_absent() -> None:
    v1 = msgspec.msgpack.encode({"type": "MatchResult", "at": 5, "match_id": "W1-1",
                                 "outcome": "home", "reason": "no_show"})
    result = registry().decode("MatchResult", 1, v1)
    assert isinstance(result, MatchResult) and result.absent == () and result.at == 5


async def test_a_game_whose_end_never_arrived_is_read_from_its_store_once(
        pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    stored: dict[str, EventEnvelope] = {}
    opened: list[str] = []

    async def open_match(req: OpenMatch) -> MatchOpened:
        opened.append(req.match_id)
        return MatchOpened(match_id=req.match_id, table_id="t", game_id=game_of_match(req.match_id),
                           rated=False, state="started")

    async def last_event(game_id: str) -> EventEnvelope | None:
        return stored.get(game_id)

    ask = calls.asker(open_match, last_event)
    await store.fire_calls(STARTS, ask)
    assert len(opened) == 2
    game = calls.game_of(tid, "W1-1")
    late = STARTS + GAME_CHECK_MS
    assert await store.fire_calls(late, ask) == []  # still playing: look again later
    assert len(opened) == 2
    stored[game] = _ended(game, winner=1)
    assert await store.fire_calls(late + GAME_RECHECK_MS - 1, ask) == []
    done = await store.fire_calls(late + GAME_RECHECK_MS, ask)
    assert [type(e).__name__ for _, events in done for e in events][:1] == ["MatchResult"]
    # The GameEnded arrives after all: the same result, nothing new.
    async with pool.acquire() as conn, conn.transaction():
        await on_game_ended(store)(conn, stored[game])
    events = [r.event for r in await store.events.read(f"tournament-{tid}")]
    assert sum(isinstance(e, MatchResult) and e.match_id == "W1-1" for e in events) == 1
    assert len(opened) == 2


def _outcome(tid: str, match_id: str, state: str, absent: tuple[int, ...] = (),
             declined: tuple[int, ...] = ()) -> EventEnvelope:
    lobby_id = lobby_match_id(tid, match_id)
    outcome = MatchOutcome(match_id=lobby_id, origin="tournament", origin_id=tid,
                           state=state, table_id="t", game_id=game_of_match(lobby_id),  # type: ignore[arg-type]
                           rated=False, absent=absent, declined=declined)
    return EventEnvelope(stream=f"match-{lobby_id}", version=1, position=0,
                         type="MatchOutcome", schema_version=1, event_id=lobby_id,
                         occurred_at_ms=0, correlation_id=None, causation_id=None,
                         body=msgspec.msgpack.encode(outcome))


async def test_the_lobbys_outcomes_record_starts_and_no_shows_once(pool: asyncpg.Pool) -> None:
    store = store_on(pool)
    tid = await running(store)
    handle = on_match_outcome(store)
    for _ in range(2):  # at least once
        async with pool.acquire() as conn, conn.transaction():
            await handle(conn, _outcome(tid, "W1-1", "started"))
            await handle(conn, _outcome(tid, "W1-2", "not_ready", declined=(3,)))
            await handle(conn, _outcome(tid, "W1-2", "failed"))
            await handle(conn, _outcome(str(uuid.uuid4()), "W1-1", "started"))
    state = await store.load(tid)
    assert state.matches["W1-1"].call == "started"
    w2 = state.matches["W1-2"]
    assert (w2.outcome, w2.reason) == ("home", "no_show")
    events = [r.event for r in await store.events.read(f"tournament-{tid}")]
    assert [type(e).__name__ for e in events].count("MatchCalled") == 1
    (result,) = [e for e in events if isinstance(e, MatchResult)]
    assert result.absent == (state.teams[w2.pairing.away].players[1],)
    assert await stale_projections(pool, uuid.UUID(tid), state) == []
