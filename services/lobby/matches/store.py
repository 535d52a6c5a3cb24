"""The matches room's store: the ``matches`` table; opening a match seats its table
(``game_tables``, through the tables room's row) in the same transaction."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

import asyncpg

from services.lobby.base.store import NotFound, Pool
from services.lobby.tables.store import (
    InGame,
    TableRow,
    as_played,
    get_table,
    insert_table,
    seat_open_table,
    seat_players,
    seats_json,
    table_playing,
)

__all__ = ["MatchRow", "NotAwaiting", "NotFound", "Pool", "TableNotOpen", "confirm", "decline",
           "lapsed_checks", "match", "match_state", "offers_of", "open_match", "origin_of",
           "outcome_sent", "starts_of", "table_of_game", "tournament_matches",
           "trace_of_game", "unsent_outcomes", "unstarted_matches"]


class TableNotOpen(Exception):
    """The table a match was to start has started or closed meanwhile."""


@dataclass(frozen=True)
class MatchRow:
    match_id: str
    origin: str
    origin_id: str
    rated: bool
    table_id: str
    game_id: str
    request: bytes
    state: str = "starting"
    people: tuple[int, ...] = ()  # the seats people sit at
    players: tuple[str, ...] = ()  # who sits there, in that order
    ready_by_ms: int = 0  # 0: no ready check
    ready: tuple[int, ...] = ()
    declined: tuple[int, ...] = ()
    absent: tuple[int, ...] = ()
    trace: str | None = None  # the opener's ``traceparent`` (only while tracing is on)


_MATCH_COLUMNS = ("match_id, origin, origin_id, rated, table_id, game_id, request, state,"
                  " people, players, ready, declined, absent, trace,"
                  " (extract(epoch FROM ready_by) * 1000)::bigint AS ready_by_ms")


def _match(r: asyncpg.Record) -> MatchRow:
    return MatchRow(match_id=r["match_id"], origin=r["origin"], origin_id=r["origin_id"],
                    rated=r["rated"], table_id=str(r["table_id"]), game_id=r["game_id"],
                    request=bytes(r["request"]), state=r["state"], people=tuple(r["people"]),
                    players=tuple(r["players"]),
                    ready_by_ms=r["ready_by_ms"] or 0, ready=tuple(r["ready"]),
                    declined=tuple(r["declined"]), absent=tuple(r["absent"]), trace=r["trace"])


async def open_match(pool: asyncpg.Pool, m: MatchRow, table: TableRow | None,
                     table_exists: bool = False,
                     ready_seconds: int = 0) -> tuple[MatchRow, bool]:
    """Record the match and seat its table, in one transaction; (the match, fresh).

    The first ask writes both; a repeated ask (same match id) writes nothing and
    gets the match as first recorded. ``table_exists``: a person's open table
    becomes the match's (``TableNotOpen`` if it is no longer open); otherwise the
    match gets a table row of its own, its seats taken. ``table`` None: a ready check
    of ``ready_seconds`` comes first, and the table is written when it passes.
    """
    async with pool.acquire() as conn, conn.transaction():
        got = await conn.fetchrow(
            "INSERT INTO matches (match_id, origin, origin_id, rated, table_id, game_id,"
            " request, state, people, players, ready_by, seats, rules, trace) VALUES ($1, $2,"
            " $3, $4, $5, $6, $7, $8, $9, $10,"
            " CASE WHEN $11 > 0 THEN now() + make_interval(secs => $11) END, $12, $13, $14)"
            # Any key: the game id is derived from the match id, so racing asks for one
            # match may meet on either unique column first.
            f" ON CONFLICT DO NOTHING RETURNING {_MATCH_COLUMNS}",
            m.match_id, m.origin, m.origin_id, m.rated, uuid.UUID(m.table_id), m.game_id,
            m.request, m.state, list(m.people), list(m.players), float(ready_seconds),
            # The seats and rules it starts with, for a table that plays again later.
            None if table is None else seats_json(table.seats),
            None if table is None else json.dumps(table.rules), m.trace)
        if got is None:
            first = await conn.fetchrow(
                f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = $1", m.match_id)
            return _match(first), False
        if table_exists:
            assert table is not None
            if not await seat_open_table(conn, table, m.game_id):
                raise TableNotOpen(table.table_id)
        elif table is not None:
            await insert_table(conn, table)
        if table is not None:
            await seat_players(conn, m.game_id, m.table_id, dict(zip(m.players, m.people,
                                                                     strict=True)))
        return _match(got), True


async def origin_of(pool: asyncpg.Pool | asyncpg.Connection,
                    game_id: str) -> asyncpg.Record | None:
    """(origin, match_id, table_id) of the match that started a game: every game starts
    from a match."""
    return await pool.fetchrow("SELECT origin, match_id, table_id::text AS table_id"
                               " FROM matches WHERE game_id = $1", game_id)


async def trace_of_game(pool: asyncpg.Pool, game_id: str) -> str | None:
    """The trace of the match that started a game (None: none kept)."""
    return await pool.fetchval("SELECT trace FROM matches WHERE game_id = $1", game_id)


async def table_of_game(pool: asyncpg.Pool | asyncpg.Connection,
                        game_id: str) -> TableRow | None:
    """The table a game was played at, as it was for that game: the table's current
    game is the row itself (one read: the common case, a game being followed); an
    earlier one (the table played again since) has the seats and rules its match
    started with, and is over."""
    current = await table_playing(pool, game_id)
    if current is not None:
        return current
    m = await pool.fetchrow("SELECT table_id::text AS table_id, seats, rules FROM matches"
                            " WHERE game_id = $1 AND state <> 'failed'", game_id)
    if m is None:
        return None
    t = await get_table(pool, m["table_id"])
    return None if t is None else as_played(t, game_id, m["seats"], m["rules"])


async def starts_of(pool: asyncpg.Pool | asyncpg.Connection,
                    game_ids: list[str]) -> dict[str, tuple[str, bool, int]]:
    """Each game's match: (origin, rated, when it started in ms, or was opened when it
    has not started yet); a game no match opened is absent."""
    rows = await pool.fetch(
        "SELECT game_id, origin, rated, (extract(epoch FROM coalesce(started_at, created_at))"
        " * 1000)::bigint AS started_ms FROM matches WHERE game_id = ANY($1::text[])",
        game_ids)
    return {r["game_id"]: (r["origin"], r["rated"], r["started_ms"]) for r in rows}


async def match(pool: asyncpg.Pool, match_id: str) -> MatchRow:
    row = await pool.fetchrow(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = $1",
                              match_id)
    if row is None:
        raise NotFound(match_id)
    return _match(row)


async def tournament_matches(pool: asyncpg.Pool, game_ids: list[str]) -> dict[str, str]:
    """The lobby's match id of each of ``game_ids`` that a tournament's match plays."""
    rows = await pool.fetch("SELECT game_id, match_id FROM matches"
                            " WHERE game_id = ANY($1::text[]) AND origin = 'tournament'",
                            game_ids)
    return {r["game_id"]: r["match_id"] for r in rows}


async def match_of_game(pool: asyncpg.Pool, game_id: str) -> MatchRow | None:
    row = await pool.fetchrow(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE game_id = $1",
                              game_id)
    return None if row is None else _match(row)


class NotAwaiting(Exception):
    """The match is no longer waiting for its players (started, or ended unstarted)."""

    def __init__(self, m: MatchRow) -> None:
        super().__init__(m.match_id)
        self.match = m


async def confirm(pool: asyncpg.Pool, match_id: str, seats: tuple[int, ...],
                  table: TableRow) -> tuple[MatchRow, str]:
    """``seats`` confirmed: (the match, "waiting" | "complete" | "lapsed" | "withdrawn").

    Under the match's row lock: a match past its deadline ends ``not_ready`` here
    ("lapsed": the sweep would have said the same); the last confirmation moves it to
    'starting' and writes its table ("complete"), so exactly one confirmer goes on to
    create the game. ``NotAwaiting`` when the check was already over. One who confirmed
    and plays elsewhere by then has their confirmation taken back ("withdrawn": the
    match waits for them again); ``InGame`` when that is the confirmer.
    """
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            f"SELECT {_MATCH_COLUMNS}, ready_by <= now() AS late FROM matches"
            " WHERE match_id = $1 FOR UPDATE", match_id)
        if row is None:
            raise NotFound(match_id)
        m = _match(row)
        if m.state != "ready_check":
            raise NotAwaiting(m)
        if row["late"]:
            return await _end_check(conn, match_id, ()), "lapsed"
        ready = tuple(sorted(set(m.ready) | set(seats)))
        done = set(m.people) <= set(ready)
        outcome = "complete" if done else "waiting"
        if done:
            try:
                async with conn.transaction():
                    await insert_table(conn, table)
                    await seat_players(conn, m.game_id, m.table_id,
                                       dict(zip(m.players, m.people, strict=True)))
            except InGame as busy:
                theirs = {s for p, s in zip(m.players, m.people, strict=True)
                          if p == busy.player_id}
                if theirs & set(seats):
                    raise
                ready, done, outcome = tuple(s for s in ready if s not in theirs), False, \
                    "withdrawn"
        got = await conn.fetchrow(
            f"UPDATE matches SET ready = $2, state = $3 WHERE match_id = $1"
            f" RETURNING {_MATCH_COLUMNS}",
            match_id, list(ready), "starting" if done else "ready_check")
        return _match(got), outcome


async def _end_check(conn: asyncpg.Connection, match_id: str,
                     declined: tuple[int, ...]) -> MatchRow:
    got = await conn.fetchrow(
        "UPDATE matches SET state = 'not_ready', declined = $2,"
        " absent = ARRAY(SELECT s FROM unnest(people) s EXCEPT SELECT unnest(ready)"
        "                ORDER BY 1)::smallint[]"
        f" WHERE match_id = $1 RETURNING {_MATCH_COLUMNS}", match_id, list(declined))
    return _match(got)


async def decline(pool: asyncpg.Pool, match_id: str, seats: tuple[int, ...]) -> MatchRow:
    """``seats`` said no: the check ends now. ``NotAwaiting`` when it was over."""
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = $1 FOR UPDATE", match_id)
        if row is None:
            raise NotFound(match_id)
        if row["state"] != "ready_check":
            raise NotAwaiting(_match(row))
        await conn.execute("UPDATE matches SET ready = ARRAY(SELECT unnest(ready) EXCEPT"
                           " SELECT unnest($2::smallint[]))::smallint[] WHERE match_id = $1",
                           match_id, list(seats))
        return await _end_check(conn, match_id, seats)


async def lapsed_checks(pool: asyncpg.Pool, limit: int = 100) -> list[MatchRow]:
    """End the ready checks whose deadline passed (``not_ready``); the matches ended.
    Any lobby copy may run it: the row lock lets one of them end each check."""
    async with pool.acquire() as conn, conn.transaction():
        ids = await conn.fetch(
            "SELECT match_id FROM matches WHERE state = 'ready_check' AND ready_by <= now()"
            " ORDER BY ready_by LIMIT $1 FOR UPDATE SKIP LOCKED", limit)
        return [await _end_check(conn, r["match_id"], ()) for r in ids]


async def offers_of(pool: asyncpg.Pool, player_id: str) -> list[MatchRow]:
    """The matches waiting for this player's confirmation (a reload during a ready
    check), soonest deadline first."""
    rows = await pool.fetch(
        f"SELECT {_MATCH_COLUMNS} FROM matches WHERE state = 'ready_check'"
        " AND ready_by > now() AND $1 = ANY(players) ORDER BY ready_by", player_id)
    return [_match(r) for r in rows]


async def match_state(pool: asyncpg.Pool, match_id: str, state: str) -> None:
    await pool.execute(
        "UPDATE matches SET state = $2, started_at = CASE WHEN $2 = 'started' THEN now()"
        " ELSE started_at END WHERE match_id = $1 AND state = 'starting'", match_id, state)


async def unstarted_matches(pool: asyncpg.Pool, older_than_seconds: float,
                            limit: int = 100) -> list[MatchRow]:
    """Matches recorded but not started for a while: their starter died, or no game
    worker answered it."""
    rows = await pool.fetch(
        f"SELECT {_MATCH_COLUMNS} FROM matches WHERE state = 'starting'"
        " AND created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT $2",
        older_than_seconds, limit)
    return [_match(r) for r in rows]


async def unsent_outcomes(pool: asyncpg.Pool, older_than_seconds: float,
                          limit: int = 100) -> list[MatchRow]:
    """Matches whose start ended a while ago and whose outcome was never published."""
    rows = await pool.fetch(
        f"SELECT {_MATCH_COLUMNS} FROM matches WHERE NOT outcome_sent"
        " AND state IN ('started', 'not_ready', 'failed')"
        " AND created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT $2",
        older_than_seconds, limit)
    return [_match(r) for r in rows]


async def outcome_sent(pool: asyncpg.Pool, match_id: str) -> None:
    await pool.execute("UPDATE matches SET outcome_sent = true WHERE match_id = $1", match_id)
