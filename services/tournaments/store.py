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
from services.tournaments.decide import decide
from services.tournaments.errors import TournamentError
from services.tournaments.metrics import observe_rounds
from services.tournaments.projection import Folds, Rows, project, stream_of, ts
from services.tournaments.state import MatchState, Tournament
from services.tournaments.timers import TIMER_COMMANDS

_log = logs.get("tournaments")


def registry() -> EventRegistry:
    return tournament_registry()


# A call the lobby could not answer (unavailable, or the game could not start) waits this long.
RETRY_MS = 5_000
# Matches asked of the lobby at once, a transaction for each such batch: a 1,024-team
# round's 512 tables asked together outran the lobby's answer time, so every ask timed
# out and was asked again 5 s later, while the tournament's lock, held meanwhile, kept
# its results waiting (docs/scaling.md, "A tournament of 1,024 teams").
CALLS_AT_ONCE = 32

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


class TournamentStore(_Commands):
    """The commands, and the work the scheduler takes up when due: timers and calls."""

    async def fire_calls(self, now_ms: int, ask: Ask,
                         limit: int = 20) -> list[tuple[Tournament, list[ev.Event]]]:
        """Ask about the matches due by ``now_ms``, a tournament at a time (``ask`` turns
        the lobby's answer into a command, or None to ask again later), and commit the
        answers; the events each added, with the state they made. A tournament another
        copy is working on is skipped; its rows are never locked here."""
        done: list[tuple[Tournament, list[ev.Event]]] = []
        async with self.pool.acquire() as conn:
            due = await conn.fetch(
                "SELECT tournament_id FROM tournament_calls WHERE due_at <= $1"
                " GROUP BY tournament_id ORDER BY min(due_at) LIMIT $2", ts(now_ms), limit)
            for row in due:
                taken = CALLS_AT_ONCE
                while taken == CALLS_AT_ONCE:  # a full batch may leave more due
                    async with conn.transaction():
                        state, events, result, taken = await self._calls_of(
                            conn, str(row["tournament_id"]), now_ms, ask)
                    if result is not None:
                        await self.events.committed(result)
                    if events:
                        done.append((state, events))
        return done

    async def _calls_of(self, conn: asyncpg.Connection, tournament_id: str, now_ms: int,
                        ask: Ask) -> tuple[Tournament, list[ev.Event], AppendResult | None, int]:
        """The next ``CALLS_AT_ONCE`` due matches asked and answered, and how many."""
        if not await conn.fetchval("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))",
                                   stream_of(tournament_id)):
            return Tournament(), [], None, 0
        rows = await conn.fetch(
            "SELECT match_id FROM tournament_calls WHERE tournament_id = $1 AND due_at <= $2"
            " ORDER BY due_at, match_id LIMIT $3 FOR UPDATE SKIP LOCKED",
            uuid.UUID(tournament_id), ts(now_ms), CALLS_AT_ONCE)
        state, projected = await self.folds.load(conn, tournament_id)
        asked = [(r["match_id"], state.matches.get(r["match_id"])) for r in rows]
        live = [(match_id, m) for match_id, m in asked if m is not None]
        commands = await asyncio.gather(*(ask(state, m, now_ms) for _, m in live))
        faults.hit(faults.MATCHES_OPENED_BEFORE_RECORD)
        later = [match_id for match_id, m in asked if m is None]
        games: list[str] = []  # started matches: looked at again less often
        for (match_id, m), command in zip(live, commands, strict=True):
            if command is None:
                (games if m.call == "started" else later).append(match_id)
        # Every answer in one append and one projection rewrite: a 512-team round's 256
        # tables cost one fold and one rewrite, not 256.
        state, events, result = await self._decide_all(conn, tournament_id, state, projected,
                                                       [c for c in commands if c is not None])
        await _due_again(conn, tournament_id, later, now_ms + RETRY_MS)
        await _due_again(conn, tournament_id, games, now_ms + GAME_RECHECK_MS)
        return state, events, result, len(rows)

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
                async with conn.transaction():
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


async def _due_again(conn: asyncpg.Connection, tournament_id: str, match_ids: list[str],
                     at_ms: int) -> None:
    """Calls answered "not yet": asked again at ``at_ms``."""
    await conn.execute("UPDATE tournament_calls SET due_at = $3 WHERE tournament_id = $1"
                       " AND match_id = ANY($2::text[])", uuid.UUID(tournament_id),
                       match_ids, ts(at_ms))


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


async def matches_of_games(conn: asyncpg.Connection,
                           game_ids: list[str]) -> dict[str, tuple[str, str]]:
    """(tournament id, match id) of each of these games that is a tournament match's."""
    rows = await conn.fetch("SELECT game_id, tournament_id, match_id FROM tournament_matches"
                            " WHERE game_id = ANY($1::text[]) AND game_id <> ''", game_ids)
    return {r["game_id"]: (str(r["tournament_id"]), r["match_id"]) for r in rows}

