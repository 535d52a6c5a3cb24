"""The tournament service's store: its stream, projections and timers in Postgres.

One command is one transaction: fold the stream, ``decide``, append the events
(optimistic concurrency on the stream's version, the command id for idempotency),
write the tournament's projection rows and its timers from the new fold. Either
all of it is committed or none, so the tables always equal the stream's fold and a
timer never fires for a transition already made.

The fold is kept in memory between commands (``Folds``), with the rows it last
projected: a command reads only the events appended since and writes only the rows
that changed. Refolding a 1,024-team stream and rewriting its 5,000 rows for every
batch of results was most of a round's turnaround (docs/scaling.md).

Timers are rows; ``fire_due`` takes due ones with ``FOR UPDATE SKIP LOCKED``
and runs their command in the same transaction, so with any number of copies
each timer fires once and a crash loses none. Calls (matches to open through
the lobby, or to ask about again once their ready check ran out) are rows too,
taken the same way by ``fire_calls``.

The events of a command (or of the timers one pass fired, or of one pass's calls)
are handed to the event store's publisher right after the commit, as a game
worker's are; the outbox relay only sweeps what a crash between the commit and
the publish left, and what a consumer's transaction appended.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Awaitable, Callable

import asyncpg
import msgspec

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.platform import faults, logs
from services.platform.events import EventRegistry, tournament_registry
from services.platform.eventstore import AppendResult, EventStore
from services.tournaments import metrics
from services.tournaments.decide import decide
from services.tournaments.errors import TournamentError
from services.tournaments.metrics import observe_rounds
from services.tournaments.projection import (
    Folds,
    Rows,
    due_again,
    due_as_projected,
    project,
    stream_of,
    ts,
)
from services.tournaments.state import MatchState, Tournament
from services.tournaments.timers import TIMER_COMMANDS

_log = logs.get("tournaments")


def registry() -> EventRegistry:
    return tournament_registry()


# A call the lobby could not answer (unavailable, or the game could not start) waits this long.
RETRY_MS = 5_000
# Asks of the lobby in flight at once, over all of a copy's tournaments: a sliding window
# (the next ask goes as soon as one is answered), each answer recorded under the
# tournament's lock in a short transaction of its own, never an ask with the lock held
# (docs/scaling.md, "A tournament of 1,024 teams").
CALL_WINDOW = 64
# A call taken to be asked is due again only this long after: if the copy that took it
# died before recording the answer, another (or itself, restarted) asks again. The lobby
# answers a repeated ask with the match as first opened, so nothing opens twice.
CLAIM_MS = 30_000
# The most calls one copy takes of one tournament at once (a 4,096-team round is 2,048).
CLAIM_MOST = 4_096

GAME_RECHECK_MS = 5 * 60_000

Ask = Callable[[Tournament, MatchState, int], Awaitable[cmd.TournamentCommand | None]]


class _Commands:
    """Deciding and committing commands; ``TournamentStore`` adds the scheduled work."""

    def __init__(self, pool: asyncpg.Pool, events: EventStore,
                 new_seed: Callable[[], str] = lambda: secrets.token_hex(16)) -> None:
        """``new_seed`` makes each round's seed (randomness is an input of ``decide``)."""
        self.pool, self.events, self.new_seed = pool, events, new_seed
        self.folds = Folds(events)

    async def load(self, tournament_id: str,
                   conn: asyncpg.Connection | None = None) -> Tournament:
        """The fold of the tournament's whole stream, for a reader without its lock."""
        state = Tournament()
        for recorded in await self.events.read(stream_of(tournament_id), conn=conn):
            state.apply(recorded.event)  # type: ignore[arg-type]
        return state

    async def execute(self, tournament_id: str, command: cmd.TournamentCommand,
                      command_id: str | None = None) -> tuple[Tournament, list[ev.Event]]:
        """Decide and commit one command; the new state and the events it added. A
        command id seen before adds nothing. Writers to one tournament take turns (a
        transaction-scoped advisory lock on its stream): a popular tournament's racing
        registrations queue instead of failing on the stream's version."""
        async with self.pool.acquire() as conn:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                                   stream_of(tournament_id))
                state, events, result = await self._execute(conn, tournament_id, command,
                                                            command_id)
                state = state.copy()  # the kept fold moves on with the next command
            if result is not None:
                await self.events.committed(result)
        return state, events

    async def locked(self, conn: asyncpg.Connection, tournament_id: str) -> Tournament:
        """The tournament's fold, its lock taken for the rest of the caller's transaction.
        The fold is the kept one: read it before the transaction ends."""
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                           stream_of(tournament_id))
        state, _ = await self.folds.load(conn, tournament_id)
        return state

    async def _execute(self, conn: asyncpg.Connection, tournament_id: str,
                       command: cmd.TournamentCommand, command_id: str | None
                       ) -> tuple[Tournament, list[ev.Event], AppendResult | None]:
        """Inside the caller's transaction; the append's result, for ``committed`` once
        that transaction has committed."""
        state, rows = await self.folds.load(conn, tournament_id)
        if isinstance(command, cmd.RegisterTeam):
            command = msgspec.structs.replace(command, banned=await banned(
                conn, (command.player, command.partner), command.at))
        # Folded into the kept state as decided, not into a copy: a refusal leaves it as
        # it was, and a fold that then fails to commit is not trusted again (``Folds``).
        version = state.version
        events = decide(state, command, fold=True)
        if not events:
            return state, [], None
        result = await self.events.append(stream_of(tournament_id), version, events,
                                          command_id, conn=conn)
        if result.duplicate:  # folded but not appended: the stream's fold instead
            state, _ = await self.folds.load(conn, tournament_id)
            return state, [], None
        await self._recorded(conn, tournament_id, state, events, result, rows)
        return state, events, result

    async def _recorded(self, conn: asyncpg.Connection, tournament_id: str, state: Tournament,
                        events: list[ev.Event], result: AppendResult, rows: Rows | None) -> None:
        """What follows every append, in its transaction: the projection rows that changed
        written, no-shows banned, the rounds' turnaround counted, the fold kept."""
        written = await project(conn, uuid.UUID(tournament_id), state, rows, events)
        await ban_no_shows(conn, events)
        observe_rounds(state, events)
        self.folds.keep(tournament_id, state, result, written)

    async def _decide_all(self, conn: asyncpg.Connection, tournament_id: str,
                          state: Tournament, rows: Rows | None,
                          commands: list[cmd.TournamentCommand],
                          ) -> tuple[Tournament, list[ev.Event], AppendResult | None]:
        """Decide ``commands`` one after the other on ``state`` (``Folds.load`` in this
        transaction), then append all their events and write the projections once.
        A refused command is logged and adds nothing; the others stand."""
        version, events = state.version, []
        for command in commands:
            try:
                events += decide(state, command, fold=True)
            except TournamentError as exc:
                _log.warning("command_refused", tournament=tournament_id,
                             command=type(command).__name__, code=exc.code)
        if not events:
            return state, [], None
        result = await self.events.append(stream_of(tournament_id), version, events, None,
                                          conn=conn)
        await self._recorded(conn, tournament_id, state, events, result, rows)
        return state, events, result

    async def execute_in(self, conn: asyncpg.Connection, tournament_id: str,
                         command: cmd.TournamentCommand,
                         command_id: str | None = None) -> tuple[Tournament, list[ev.Event]]:
        """``execute`` inside the caller's transaction (a consumer's batch): what it appends
        is published by the outbox relay once that transaction has committed."""
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                           stream_of(tournament_id))
        async with conn.transaction():
            state, events, _ = await self._execute(conn, tournament_id, command, command_id)
        return state, events

    async def execute_all_in(self, conn: asyncpg.Connection, tournament_id: str,
                             commands: list[cmd.TournamentCommand]) -> list[ev.Event]:
        """Several commands for one tournament inside the caller's transaction (a
        consumer's batch): one fold, one append and one projection rewrite for all of
        them, so a round's results arriving together cost about what one does. A refused
        command is logged and adds nothing; the others stand."""
        await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                           stream_of(tournament_id))
        async with conn.transaction():
            state, rows = await self.folds.load(conn, tournament_id)
            _, events, _ = await self._decide_all(conn, tournament_id, state, rows, commands)
        return events


Answered = list[tuple[MatchState, cmd.TournamentCommand | None]]
Recorded = Callable[[Tournament, list[ev.Event]], Awaitable[None]]


class TournamentStore(_Commands):
    """The commands, and the work the scheduler takes up when due: timers and calls."""

    def __init__(self, pool: asyncpg.Pool, events: EventStore,
                 new_seed: Callable[[], str] = lambda: secrets.token_hex(16),
                 window: int = CALL_WINDOW, claim_ms: int = CLAIM_MS) -> None:
        """``window``: asks of the lobby in flight at once; ``claim_ms``: how long a call
        taken to be asked stays taken (``CLAIM_MS``)."""
        super().__init__(pool, events, new_seed)
        self.window, self.claim_ms = asyncio.Semaphore(window), claim_ms
        self._asking: set[tuple[str, str]] = set()  # (tournament, match) being asked here

    async def fire_calls(self, now_ms: int, ask: Ask, limit: int = 20,
                         recorded: Recorded | None = None,
                         ) -> list[tuple[Tournament, list[ev.Event]]]:
        """Ask about the matches due by ``now_ms`` (``ask`` turns the lobby's answer into a
        command, or None to ask again later) and commit the answers as they come; the
        events each commit added, with the state they made (``recorded`` is told of each
        as it commits). The tournaments' due calls are taken at once, then asked through
        the window with no lock held; an answer waits only for the answers before it to
        be committed, and a result waits for no ask."""
        async with self.pool.acquire() as conn:
            due = await conn.fetch(
                "SELECT tournament_id FROM tournament_calls WHERE due_at <= $1"
                " GROUP BY tournament_id ORDER BY min(due_at) LIMIT $2", ts(now_ms), limit)
        done: list[tuple[Tournament, list[ev.Event]]] = []

        async def keep(state: Tournament, events: list[ev.Event]) -> None:
            done.append((state, events))
            if recorded is not None:
                await recorded(state, events)

        failed = [x for x in await asyncio.gather(
            *(self._call_all(str(r["tournament_id"]), now_ms, ask, keep) for r in due),
            return_exceptions=True) if isinstance(x, BaseException)]
        if failed:
            raise failed[0]
        return done

    async def _call_all(self, tournament_id: str, now_ms: int, ask: Ask,
                        keep: Recorded) -> None:
        """Take the tournament's due calls, ask each through the window and record the
        answers a group at a time: those that arrived while the last group committed."""
        state, taken = await self._claim(tournament_id, now_ms)
        round_trace = await metrics.round_trace(self.pool, tournament_id)  # None when off
        answers: Answered = []
        arrived = asyncio.Event()

        async def one(m: MatchState) -> None:
            try:
                async with self.window:
                    with metrics.calling(round_trace, tournament_id, m):
                        command = await ask(state, m, now_ms)
            except Exception as exc:  # asked again after RETRY_MS, as a refused call is
                _log.warning("call_failed", tournament=tournament_id,
                             match=m.pairing.match_id, error=repr(exc))
                command = None
            answers.append((m, command))
            arrived.set()

        keys = [(tournament_id, m.pairing.match_id) for m in taken]
        self._asking.update(keys)
        tasks = [asyncio.create_task(one(m)) for m in taken]
        try:
            left = len(tasks)
            while left:
                await arrived.wait()
                arrived.clear()
                group, answers[:] = list(answers), []
                left -= len(group)
                faults.hit(faults.MATCHES_OPENED_BEFORE_RECORD,
                           state.settings.name if state.settings else "")
                await self._record(tournament_id, group, now_ms, keep)
        finally:
            for task in tasks:
                task.cancel()
            self._asking.difference_update(keys)

    async def _claim(self, tournament_id: str,
                     now_ms: int) -> tuple[Tournament, list[MatchState]]:
        """The tournament's due calls taken (due again ``claim_ms`` on), under its lock
        for a moment; its fold and the matches to ask about. A call of a match gone
        from the fold is due again after ``RETRY_MS``."""
        async with self.pool.acquire() as conn, conn.transaction():
            state = await self.locked(conn, tournament_id)
            rows = await conn.fetch(
                "UPDATE tournament_calls SET due_at = $4 WHERE tournament_id = $1"
                " AND match_id IN (SELECT match_id FROM tournament_calls"
                " WHERE tournament_id = $1 AND due_at <= $2 ORDER BY due_at, match_id"
                " LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING match_id",
                uuid.UUID(tournament_id), ts(now_ms), CLAIM_MOST,
                ts(now_ms + self.claim_ms))
            ids = sorted(r["match_id"] for r in rows
                         if (tournament_id, r["match_id"]) not in self._asking)
            await due_again(conn, tournament_id, [i for i in ids if i not in state.matches],
                             now_ms + RETRY_MS)
        return state, [state.matches[i] for i in ids if i in state.matches]

    async def _record(self, tournament_id: str, answered: Answered, now_ms: int,
                      keep: Recorded) -> None:
        """Commit a group of answers in one append, and when each call is due again:
        a started game's less often, a call not answered after ``RETRY_MS``."""
        later = [m.pairing.match_id for m, c in answered if c is None and m.call != "started"]
        games = [m.pairing.match_id for m, c in answered if c is None and m.call == "started"]
        commands = [c for _, c in answered if c is not None]
        async with self.pool.acquire() as conn:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                                   stream_of(tournament_id))
                state, projected = await self.folds.load(conn, tournament_id)
                state, events, result = await self._decide_all(conn, tournament_id, state,
                                                               projected, commands)
                await due_again(conn, tournament_id, later, now_ms + RETRY_MS)
                await due_again(conn, tournament_id, games, now_ms + GAME_RECHECK_MS)
                await due_as_projected(conn, tournament_id, state, [
                    m.pairing.match_id for m, c in answered if c is not None])
            if result is not None:
                await self.events.committed(result)
        if events:
            await keep(state, events)

    async def fire_due(self, now_ms: int, limit: int = 100) -> int:
        """Run the commands of timers due by ``now_ms``; how many fired. Each timer runs in a
        savepoint: a refused one is dropped (it no longer applies) without undoing others."""
        done: list[AppendResult] = []
        async with self.pool.acquire() as conn:
            async with conn.transaction():
                fired = await self._fire(conn, now_ms, limit, done)
            for result in done:
                await self.events.committed(result)
        return fired

    async def _fire(self, conn: asyncpg.Connection, now_ms: int, limit: int,
                    done: list[AppendResult]) -> int:
        """The timers' commands, in the caller's transaction; what each fired timer
        appended goes to ``done``."""
        fired = 0
        rows = await conn.fetch(
            "SELECT tournament_id, kind, due_at FROM tournament_timers WHERE due_at <= $1"
            " ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED", ts(now_ms), limit)
        for row in rows:
            tournament_id = str(row["tournament_id"])
            command = TIMER_COMMANDS[row["kind"]](now_ms, self.new_seed)
            command_id = f"timer:{row['kind']}:{int(row['due_at'].timestamp() * 1000)}"
            # Never wait for a writer here (it may be waiting for this row): skip the
            # tournament this tick if one is writing to it.
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock("
                                       "hashtextextended($1, 0))", stream_of(tournament_id)):
                continue
            try:
                async with conn.transaction(), metrics.pairing(conn, tournament_id, row["kind"]):
                    *_, result = await self._execute(conn, tournament_id, command,
                                                     command_id)
                fired += 1
                if result is not None:
                    done.append(result)
            except TournamentError as exc:
                _log.warning("timer_refused", tournament=tournament_id, kind=row["kind"],
                             code=exc.code)
                await conn.execute("DELETE FROM tournament_timers WHERE tournament_id = $1"
                                   " AND kind = $2", row["tournament_id"], row["kind"])
                self.folds.forget_rows(tournament_id)
        return fired


BAN_MS = 24 * 3_600_000
MAX_BAN_MS = 30 * 24 * 3_600_000


def ban_ms(no_shows: int) -> int:
    """How long a player's ``no_shows``-th no-show bans them: a day, doubling, 30 at most."""
    return min(BAN_MS << min(no_shows - 1, 10), MAX_BAN_MS)


async def banned(conn: asyncpg.Connection, players: tuple[str, ...], at: int) -> tuple[str, ...]:
    """Those of ``players`` whose no-show ban runs past ``at``."""
    rows = await conn.fetch("SELECT player_id FROM no_show_bans WHERE player_id = ANY($1)"
                            " AND banned_until > $2", list(players), ts(at))
    found = {r["player_id"] for r in rows}
    return tuple(p for p in players if p in found)


async def ban_no_shows(conn: asyncpg.Connection, events: list[ev.Event]) -> None:
    """Ban the players a no-show result names absent, in the caller's transaction."""
    for event in events:
        if not isinstance(event, ev.MatchResult):
            continue
        for player in event.absent:
            row = await conn.fetchrow(
                "INSERT INTO no_show_bans AS b (player_id, no_shows, banned_until)"
                " VALUES ($1, 1, $2) ON CONFLICT (player_id) DO UPDATE"
                " SET no_shows = b.no_shows + 1 RETURNING no_shows", player, ts(event.at))
            await conn.execute("UPDATE no_show_bans SET banned_until = $2 WHERE player_id = $1",
                               player, ts(event.at + ban_ms(row["no_shows"])))
