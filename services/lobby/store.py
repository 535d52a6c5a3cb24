"""The lobby's tables: accounts and game tables. The only module that touches asyncpg."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import asyncpg

Pool = asyncpg.Pool


class NameTaken(Exception):
    pass


class CodeTaken(Exception):
    pass


class NotFound(Exception):
    pass


# --- Accounts ------------------------------------------------------------------------------


async def create_account(pool: asyncpg.Pool, player_id: str, name: str, skeleton: str,
                         password_hash: str | None) -> None:
    """A registered account (with ``password_hash``) or a guest; ``NameTaken`` when a
    registered account has the same skeleton."""
    try:
        done = await pool.fetchval(
            "INSERT INTO accounts (player_id, name, name_skeleton, password_hash)"
            " SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM accounts"
            "   WHERE name_skeleton = $3 AND password_hash IS NOT NULL) RETURNING true",
            uuid.UUID(player_id), name, skeleton, password_hash)
    except asyncpg.UniqueViolationError:
        raise NameTaken(name) from None
    if not done:
        raise NameTaken(name)


async def registered_account(pool: asyncpg.Pool,
                             skeleton: str) -> tuple[str, str, str, str] | None:
    """(player_id, name, password_hash, role) of the registered name with that skeleton."""
    row = await pool.fetchrow("SELECT player_id, name, password_hash, role FROM accounts"
                              " WHERE name_skeleton = $1 AND password_hash IS NOT NULL",
                              skeleton)
    return None if row is None else (str(row["player_id"]), row["name"], row["password_hash"],
                                     row["role"])


async def account(pool: asyncpg.Pool, player_id: str) -> tuple[str, str] | None:
    """(player_id, name) of a guest or registered account."""
    key = _uuid(player_id)
    if key is None:
        return None
    row = await pool.fetchrow("SELECT player_id, name FROM accounts WHERE player_id = $1", key)
    return None if row is None else (str(row["player_id"]), row["name"])


async def names(pool: asyncpg.Pool, player_ids: list[str]) -> dict[str, str]:
    """Names of the accounts among ``player_ids`` (ids no account has are left out)."""
    keys = [k for k in (_uuid(p) for p in player_ids) if k is not None]
    rows = await pool.fetch("SELECT player_id, name FROM accounts WHERE player_id = ANY($1)",
                            keys)
    return {str(r["player_id"]): r["name"] for r in rows}


async def account_role(pool: asyncpg.Pool, player_id: str) -> str | None:
    key = _uuid(player_id)
    if key is None:
        return None
    value = await pool.fetchval("SELECT role FROM accounts WHERE player_id = $1", key)
    return None if value is None else str(value)


async def set_role(pool: asyncpg.Pool, name: str, role: str,
                   only_from: tuple[str, ...] | None = None) -> str | None:
    """Give a registered name a role, if it holds one of ``only_from`` (any, if None); the
    role it held before, or None when no registered account has that name."""
    async with pool.acquire() as conn, conn.transaction():
        held = await conn.fetchval("SELECT role FROM accounts WHERE lower(name) = lower($1)"
                                   " AND password_hash IS NOT NULL FOR UPDATE", name)
        if held is not None and (only_from is None or held in only_from):
            await conn.execute("UPDATE accounts SET role = $2 WHERE lower(name) = lower($1)"
                               " AND password_hash IS NOT NULL", name, role)
    return None if held is None else str(held)


# --- Game tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    player_id: str | None = None
    name: str | None = None
    bot: str | None = None  # bot level when a bot sits here
    guest: bool = False  # a guest account (no password) sits here

    @property
    def free(self) -> bool:
        return self.player_id is None and self.bot is None


@dataclass(frozen=True)
class TableRow:
    table_id: str
    host: str
    private: bool
    code: str | None
    rules: dict[str, Any]
    preset: str
    seats: tuple[Seat, ...] = field(default_factory=lambda: (Seat(),) * 4)
    state: str = "open"
    game_id: str | None = None
    banter: bool = True
    play_again: tuple[str, ...] | None = None  # who agreed to another game, once asked

    def with_(self, **changes: Any) -> TableRow:
        return replace(self, **changes)


_COLUMNS = ("table_id, host, private, code, rules, preset, seats, state, game_id, banter,"
            " play_again")


def _row(r: asyncpg.Record) -> TableRow:
    seats = tuple(Seat(**s) for s in json.loads(r["seats"]))
    again = r["play_again"]
    return TableRow(table_id=str(r["table_id"]), host=str(r["host"]), private=r["private"],
                    code=r["code"], rules=json.loads(r["rules"]), preset=r["preset"],
                    seats=seats, state=r["state"], game_id=r["game_id"], banter=r["banter"],
                    play_again=None if again is None else tuple(json.loads(again)))


def _again_json(again: tuple[str, ...] | None) -> str | None:
    return None if again is None else json.dumps(list(again))


def _seats_json(seats: tuple[Seat, ...]) -> str:
    return json.dumps([{"player_id": s.player_id, "name": s.name, "bot": s.bot,
                        "guest": s.guest} for s in seats])


async def insert_table(pool: asyncpg.Pool | asyncpg.Connection, t: TableRow) -> None:
    try:
        await pool.execute(
            f"INSERT INTO game_tables ({_COLUMNS})"
            " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
            uuid.UUID(t.table_id), uuid.UUID(t.host), t.private, t.code, json.dumps(t.rules),
            t.preset, _seats_json(t.seats), t.state, t.game_id, t.banter,
            _again_json(t.play_again))
    except asyncpg.UniqueViolationError:
        raise CodeTaken(t.code) from None


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


async def get_table(pool: asyncpg.Pool, table_id: str) -> TableRow | None:
    key = _uuid(table_id)
    if key is None:
        return None
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE table_id = $1", key)
    return None if r is None else _row(r)


async def table_by_code(pool: asyncpg.Pool, code: str) -> TableRow | None:
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE code = $1", code)
    return None if r is None else _row(r)


async def table_by_game(pool: asyncpg.Pool, game_id: str) -> TableRow | None:
    """The table a game was played at, as it was for that game: the table's current
    game is the row itself; an earlier one (the table played again since) has the
    seats and rules its match started with, and is over."""
    r = await pool.fetchrow(
        "SELECT t.table_id, t.host, t.private, t.code, t.preset, t.banter,"
        "       CASE WHEN t.game_id = $1 THEN t.play_again END AS play_again,"
        "       CASE WHEN t.game_id = $1 THEN t.rules ELSE coalesce(m.rules, t.rules) END"
        "         AS rules,"
        "       CASE WHEN t.game_id = $1 THEN t.seats ELSE coalesce(m.seats, t.seats) END"
        "         AS seats,"
        "       CASE WHEN t.game_id = $1 THEN t.state ELSE 'over' END AS state,"
        "       $1 AS game_id"
        " FROM game_tables t LEFT JOIN matches m ON m.game_id = $1 AND m.state <> 'failed'"
        " WHERE t.game_id = $1 OR t.table_id = m.table_id LIMIT 1", game_id)
    return None if r is None else _row(r)


async def open_public_tables(pool: asyncpg.Pool, limit: int = 200) -> list[TableRow]:
    """Public tables to join (open) or to watch (playing), newest first."""
    rows = await pool.fetch(f"SELECT {_COLUMNS} FROM game_tables WHERE state IN ('open', "
                            "'playing') AND NOT private ORDER BY created_at DESC LIMIT $1", limit)
    return [_row(r) for r in rows]


async def tables_of(pool: asyncpg.Pool, player_id: str) -> list[TableRow]:
    """Open or playing tables where the player sits or hosts, newest first."""
    key = _uuid(player_id)
    if key is None:
        return []
    rows = await pool.fetch(
        f"SELECT {_COLUMNS} FROM game_tables t WHERE state IN ('open', 'playing')"
        " AND (host = $1 OR seats @> jsonb_build_array(jsonb_build_object('player_id', $2::text)))"
        " ORDER BY created_at DESC", key, player_id)
    return [_row(r) for r in rows]


async def running_games_of(pool: asyncpg.Pool, player_id: str) -> list[tuple[str, str, int]]:
    """(game_id, table_id or "", seat) of the games the player sits in that have not
    ended: from the games projection, and from playing tables whose game the projection
    has not seen yet."""
    rows = await pool.fetch(
        "SELECT g.game_id, coalesce(m.table_id::text, '') AS table_id,"
        "       array_position(g.players, $1) - 1 AS seat, g.started_at AS at"
        " FROM games g LEFT JOIN matches m ON m.game_id = g.game_id"
        " WHERE g.players @> ARRAY[$1] AND g.ended_at IS NULL AND g.started_at IS NOT NULL"
        " UNION"
        " SELECT t.game_id, t.table_id::text, (s.n - 1)::int, t.updated_at"
        " FROM game_tables t, jsonb_array_elements(t.seats) WITH ORDINALITY AS s(seat, n)"
        " WHERE t.state = 'playing' AND s.seat->>'player_id' = $1"
        "   AND NOT EXISTS (SELECT 1 FROM games g WHERE g.game_id = t.game_id"
        "                   AND g.ended_at IS NOT NULL)"
        " ORDER BY at DESC", player_id)
    seen: dict[str, tuple[str, str, int]] = {}
    for r in rows:
        seen.setdefault(r["game_id"], (r["game_id"], r["table_id"], r["seat"]))
    return list(seen.values())


async def change_table(pool: asyncpg.Pool, table_id: str,
                       change: Callable[[TableRow], TableRow]) -> tuple[TableRow, TableRow]:
    """Apply ``change`` to the table under a row lock; returns (before, after).

    ``change`` is the service's pure decision; whatever it raises aborts the
    transaction and reaches the caller unchanged.
    """
    key = _uuid(table_id)
    if key is None:
        raise NotFound(table_id)
    async with pool.acquire() as conn, conn.transaction():
        r = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM game_tables WHERE table_id = $1 FOR UPDATE", key)
        if r is None:
            raise NotFound(table_id)
        before = _row(r)
        after = change(before)
        if after != before:
            await conn.execute(
                "UPDATE game_tables SET host = $2, rules = $3, seats = $4, state = $5,"
                " game_id = $6, banter = $7, play_again = $8, updated_at = now()"
                " WHERE table_id = $1",
                key, uuid.UUID(after.host), json.dumps(after.rules), _seats_json(after.seats),
                after.state, after.game_id, after.banter, _again_json(after.play_again))
    return before, after


# --- Matches ------------------------------------------------------------------------------


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


_MATCH_COLUMNS = ("match_id, origin, origin_id, rated, table_id, game_id, request, state,"
                  " people, players, ready, declined, absent,"
                  " (extract(epoch FROM ready_by) * 1000)::bigint AS ready_by_ms")


def _match(r: asyncpg.Record) -> MatchRow:
    return MatchRow(match_id=r["match_id"], origin=r["origin"], origin_id=r["origin_id"],
                    rated=r["rated"], table_id=str(r["table_id"]), game_id=r["game_id"],
                    request=bytes(r["request"]), state=r["state"], people=tuple(r["people"]),
                    players=tuple(r["players"]),
                    ready_by_ms=r["ready_by_ms"] or 0, ready=tuple(r["ready"]),
                    declined=tuple(r["declined"]), absent=tuple(r["absent"]))


async def people(pool: asyncpg.Pool, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
    """Player id -> (name, registered) of those ids that have an account."""
    keys = [k for k in (_uuid(p) for p in player_ids) if k is not None]
    rows = await pool.fetch("SELECT player_id, name, password_hash IS NOT NULL AS registered"
                            " FROM accounts WHERE player_id = ANY($1::uuid[])", keys)
    return {str(r["player_id"]): (r["name"], r["registered"]) for r in rows}


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
            " request, state, people, players, ready_by, seats, rules) VALUES ($1, $2, $3, $4,"
            " $5, $6, $7, $8, $9, $10,"
            " CASE WHEN $11 > 0 THEN now() + make_interval(secs => $11) END, $12, $13)"
            # Any key: the game id is derived from the match id, so racing asks for one
            # match may meet on either unique column first.
            f" ON CONFLICT DO NOTHING RETURNING {_MATCH_COLUMNS}",
            m.match_id, m.origin, m.origin_id, m.rated, uuid.UUID(m.table_id), m.game_id,
            m.request, m.state, list(m.people), list(m.players), float(ready_seconds),
            # The seats and rules it starts with, for a table that plays again later.
            None if table is None else _seats_json(table.seats),
            None if table is None else json.dumps(table.rules))
        if got is None:
            first = await conn.fetchrow(
                f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = $1", m.match_id)
            return _match(first), False
        if table_exists:
            assert table is not None
            status = await conn.execute(
                "UPDATE game_tables SET seats = $2, state = 'playing', game_id = $3,"
                " updated_at = now() WHERE table_id = $1 AND state = 'open'",
                uuid.UUID(table.table_id), _seats_json(table.seats), m.game_id)
            if status.endswith(" 0"):
                raise TableNotOpen(table.table_id)
        elif table is not None:
            await insert_table(conn, table)
        return _match(got), True


async def match(pool: asyncpg.Pool, match_id: str) -> MatchRow:
    row = await pool.fetchrow(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = $1",
                              match_id)
    if row is None:
        raise NotFound(match_id)
    return _match(row)


class NotAwaiting(Exception):
    """The match is no longer waiting for its players (started, or ended unstarted)."""

    def __init__(self, m: MatchRow) -> None:
        super().__init__(m.match_id)
        self.match = m


async def confirm(pool: asyncpg.Pool, match_id: str, seats: tuple[int, ...],
                  table: TableRow) -> tuple[MatchRow, str]:
    """``seats`` confirmed: (the match, "waiting" | "complete" | "lapsed").

    Under the match's row lock: a match past its deadline ends ``not_ready`` here
    ("lapsed": the sweep would have said the same); the last confirmation moves it to
    'starting' and writes its table ("complete"), so exactly one confirmer goes on to
    create the game. ``NotAwaiting`` when the check was already over.
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
        got = await conn.fetchrow(
            f"UPDATE matches SET ready = $2, state = $3 WHERE match_id = $1"
            f" RETURNING {_MATCH_COLUMNS}",
            match_id, list(ready), "starting" if done else "ready_check")
        if done:
            await insert_table(conn, table)
        return _match(got), "complete" if done else "waiting"


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


# --- The games projection (operators' search) ----------------------------------------------


@dataclass(frozen=True)
class GameRow:
    game_id: str
    table_id: str | None
    players: tuple[str, ...]
    names: tuple[str | None, ...]
    started_at_ms: int | None
    ended_at_ms: int | None
    winner: int | None
    scores: tuple[int, ...] | None
    reason: str | None
    hands_played: int | None


async def close_table_of(conn: asyncpg.Connection, game_id: str) -> str | None:
    """Called inside the GameEnded consumer's transaction: the table playing this game is
    over (unless it moved on to another game). Returns the table closed, if any."""
    closed = await conn.fetchval(
        "UPDATE game_tables SET state = 'over', play_again = NULL, updated_at = now()"
        " WHERE game_id = $1 AND state = 'playing' RETURNING table_id", game_id)
    return None if closed is None else str(closed)


async def game_started(conn: asyncpg.Connection, game_id: str, players: list[str],
                       at_ms: int) -> None:
    """Called inside the consumer's transaction; ``GameEnded`` may have come first."""
    await conn.execute(
        "INSERT INTO games (game_id, players, started_at) VALUES ($1, $2, to_timestamp($3))"
        " ON CONFLICT (game_id) DO UPDATE SET started_at = EXCLUDED.started_at,"
        " players = CASE WHEN games.players = '{}' THEN EXCLUDED.players ELSE games.players END",
        game_id, players, at_ms / 1000)


async def game_ended(conn: asyncpg.Connection, game_id: str, players: list[str], at_ms: int,
                     winner: int | None, scores: list[int], reason: str,
                     hands_played: int) -> None:
    await conn.execute(
        "INSERT INTO games (game_id, players, ended_at, winner, scores, reason, hands_played)"
        " VALUES ($1, $2, to_timestamp($3), $4, $5, $6, $7)"
        " ON CONFLICT (game_id) DO UPDATE SET ended_at = EXCLUDED.ended_at,"
        " winner = EXCLUDED.winner, scores = EXCLUDED.scores, reason = EXCLUDED.reason,"
        " hands_played = EXCLUDED.hands_played, players = EXCLUDED.players",
        game_id, players, at_ms / 1000, winner, scores, reason, hands_played)


def _ms(value: Any) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


async def search_games(pool: asyncpg.Pool, *, player: str | None, table_id: str | None,
                       started_after_ms: int | None, started_before_ms: int | None,
                       outcome: str | None, limit: int) -> list[GameRow]:
    """Newest first. ``player`` is a player id or a seated name; ``outcome`` is
    ``playing``, ``over``, ``team0``, ``team1``, ``draw`` or an end reason."""
    where: list[str] = []
    args: list[Any] = []

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    if player:
        p = arg(player)
        where.append(f"({p} = ANY(g.players) OR EXISTS (SELECT 1 FROM"
                     f" jsonb_array_elements(coalesce(m.seats, t.seats)) s"
                     f" WHERE lower(s->>'name') = lower({p})))")
    if table_id:
        key = _uuid(table_id)
        if key is None:
            return []
        where.append(f"t.table_id = {arg(key)}")
    if started_after_ms is not None:
        where.append(f"g.started_at >= to_timestamp({arg(started_after_ms / 1000)})")
    if started_before_ms is not None:
        where.append(f"g.started_at < to_timestamp({arg(started_before_ms / 1000)})")
    if outcome == "playing":
        where.append("g.ended_at IS NULL")
    elif outcome == "over":
        where.append("g.ended_at IS NOT NULL")
    elif outcome in ("team0", "team1"):
        where.append(f"g.winner = {arg(int(outcome[-1]))}")
    elif outcome == "draw":
        where.append("g.ended_at IS NOT NULL AND g.winner IS NULL")
    elif outcome:
        where.append(f"g.reason = {arg(outcome)}")
    sql = ("SELECT g.*, t.table_id, coalesce(m.seats, t.seats) AS seats FROM games g"
           " LEFT JOIN matches m ON m.game_id = g.game_id"
           " LEFT JOIN game_tables t ON t.game_id = g.game_id OR t.table_id = m.table_id"
           + (" WHERE " + " AND ".join(where) if where else "")
           + f" ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT {arg(limit)}")
    rows = await pool.fetch(sql, *args)
    out = []
    for r in rows:
        seats = json.loads(r["seats"]) if r["seats"] else []
        out.append(GameRow(
            game_id=r["game_id"], table_id=str(r["table_id"]) if r["table_id"] else None,
            players=tuple(r["players"]), names=tuple(s.get("name") for s in seats),
            started_at_ms=_ms(r["started_at"]), ended_at_ms=_ms(r["ended_at"]),
            winner=r["winner"], scores=tuple(r["scores"]) if r["scores"] else None,
            reason=r["reason"], hands_played=r["hands_played"]))
    return out
