"""The tables room's store: the ``game_tables`` rows (people's tables and the tables
matches seat), and the one game each person sits in (``running_seats``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import asyncpg

from services.lobby.base.store import NotFound, Pool, as_uuid

__all__ = ["CodeTaken", "InGame", "NotFound", "Pool", "Seat", "TableRow",
           "as_played", "change_table", "close_table_of", "get_table", "insert_table",
           "open_public_tables", "parse_seats", "playing_watchable", "running_games_of",
           "seat_open_table", "seat_players", "seat_unmatched", "seated_players", "seats_json",
           "table_by_code", "table_playing", "tables_of", "unseat"]


class CodeTaken(Exception):
    pass


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


def parse_seats(seats: str) -> tuple[Seat, ...]:
    """Seats from their JSON (``seats_json``'s inverse)."""
    return tuple(Seat(**s) for s in json.loads(seats))


def _row(r: asyncpg.Record) -> TableRow:
    seats = parse_seats(r["seats"])
    again = r["play_again"]
    return TableRow(table_id=str(r["table_id"]), host=str(r["host"]), private=r["private"],
                    code=r["code"], rules=json.loads(r["rules"]), preset=r["preset"],
                    seats=seats, state=r["state"], game_id=r["game_id"], banter=r["banter"],
                    play_again=None if again is None else tuple(json.loads(again)))


def _again_json(again: tuple[str, ...] | None) -> str | None:
    return None if again is None else json.dumps(list(again))


def seats_json(seats: tuple[Seat, ...]) -> str:
    return json.dumps([{"player_id": s.player_id, "name": s.name, "bot": s.bot,
                        "guest": s.guest} for s in seats])


async def insert_table(pool: asyncpg.Pool | asyncpg.Connection, t: TableRow) -> None:
    try:
        await pool.execute(
            f"INSERT INTO game_tables ({_COLUMNS}, playing_since)"
            " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,"
            "         CASE WHEN $9::text IS NOT NULL THEN now() END)",
            uuid.UUID(t.table_id), uuid.UUID(t.host), t.private, t.code, json.dumps(t.rules),
            t.preset, seats_json(t.seats), t.state, t.game_id, t.banter,
            _again_json(t.play_again))
    except asyncpg.UniqueViolationError:
        raise CodeTaken(t.code) from None


async def get_table(pool: asyncpg.Pool | asyncpg.Connection,
                    table_id: str) -> TableRow | None:
    key = as_uuid(table_id)
    if key is None:
        return None
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE table_id = $1", key)
    return None if r is None else _row(r)


async def table_by_code(pool: asyncpg.Pool, code: str) -> TableRow | None:
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE code = $1", code)
    return None if r is None else _row(r)


async def table_playing(pool: asyncpg.Pool | asyncpg.Connection,
                        game_id: str) -> TableRow | None:
    """The table whose current game is ``game_id``, if any (a game played at a table
    that has moved on since is the matches room's to tell: ``table_of_game``)."""
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE game_id = $1", game_id)
    return None if r is None else _row(r)


def as_played(t: TableRow, game_id: str, seats: str | None,
              rules: str | None) -> TableRow:
    """``t`` as it was for an earlier game: the seats and rules that game's match
    started with (JSON as the match stores them; the table's own when it kept none),
    and over."""
    return t.with_(game_id=game_id, state="over", play_again=None,
                   seats=t.seats if seats is None else parse_seats(seats),
                   rules=t.rules if rules is None else json.loads(rules))


async def open_public_tables(pool: asyncpg.Pool, limit: int = 200) -> list[TableRow]:
    """Public tables to join (open) or to watch (playing), newest first."""
    rows = await pool.fetch(f"SELECT {_COLUMNS} FROM game_tables WHERE state IN ('open', "
                            "'playing') AND NOT private ORDER BY created_at DESC LIMIT $1", limit)
    return [_row(r) for r in rows]


async def playing_watchable(pool: asyncpg.Pool | asyncpg.Connection,
                            limit: int) -> list[tuple[TableRow, int]]:
    """Tables playing a game anyone may watch (public, or a match's with no room code,
    never a private table's), each with since when it plays that game (ms), newest
    first."""
    rows = await pool.fetch(
        f"SELECT {_COLUMNS}, (extract(epoch FROM coalesce(playing_since, created_at))"
        "        * 1000)::bigint AS since_ms"
        " FROM game_tables WHERE state = 'playing' AND game_id IS NOT NULL"
        "   AND (NOT private OR code IS NULL)"
        " ORDER BY playing_since DESC NULLS LAST LIMIT $1", limit)
    return [(_row(r), r["since_ms"]) for r in rows]


async def tables_of(pool: asyncpg.Pool, player_id: str) -> list[TableRow]:
    """Open or playing tables where the player sits or hosts, newest first."""
    key = as_uuid(player_id)
    if key is None:
        return []
    rows = await pool.fetch(
        f"SELECT {_COLUMNS} FROM game_tables t WHERE state IN ('open', 'playing')"
        " AND (host = $1 OR seats @> jsonb_build_array(jsonb_build_object('player_id', $2::text)))"
        " ORDER BY created_at DESC", key, player_id)
    return [_row(r) for r in rows]


class InGame(Exception):
    """A person to be seated plays another game (``game_id``) that has not ended."""

    def __init__(self, player_id: str, game_id: str) -> None:
        super().__init__(f"{player_id} plays {game_id}")
        self.player_id, self.game_id = player_id, game_id


async def running_games_of(pool: asyncpg.Pool, player_id: str) -> list[tuple[str, str, int]]:
    """(game_id, table_id or "", seat) of the game the player sits in that has not ended,
    if any: one at most (``running_seats``' key)."""
    rows = await pool.fetch("SELECT game_id, table_id, seat FROM running_seats"
                            " WHERE player_id = $1", player_id)
    return [(r["game_id"], r["table_id"], r["seat"]) for r in rows]


async def seat_players(conn: asyncpg.Connection, game_id: str, table_id: str,
                       seats: dict[str, int]) -> None:
    """Called in the transaction that seats a game's people (player id -> seat): each
    one's running game is this one, or ``InGame`` names one who plays another. The key
    is the rule: a seating racing this one for a person waits for its commit, then
    finds the person taken. People are written in one order, so two seatings never
    wait for each other."""
    people = sorted(seats)
    if not people:  # bots only
        return
    got = await conn.fetch(
        "INSERT INTO running_seats (player_id, game_id, table_id, seat)"
        " SELECT p, $2, $3, s FROM unnest($1::text[], $4::smallint[]) AS u(p, s)"
        " ON CONFLICT (player_id) DO NOTHING RETURNING player_id",
        people, game_id, table_id, [seats[p] for p in people])
    missing = sorted(set(people) - {r["player_id"] for r in got})
    for r in await conn.fetch("SELECT player_id, game_id FROM running_seats"
                              " WHERE player_id = ANY($1::text[]) ORDER BY player_id", missing):
        if r["game_id"] != game_id:
            raise InGame(r["player_id"], r["game_id"])


async def seat_unmatched(conn: asyncpg.Connection, game_id: str, players: list[str]) -> None:
    """The GameStarted consumer: the people of a game no match opened (a worker asked
    directly) play it, unless they play another already. The consumer asks first
    whether a match opened it and whether it has ended (the matches and games rooms'
    rows), in the same transaction."""
    await conn.execute(
        "INSERT INTO running_seats (player_id, game_id, table_id, seat)"
        " SELECT p, $1, '', n - 1 FROM unnest($2::text[]) WITH ORDINALITY AS u(p, n)"
        " WHERE p NOT LIKE 'bot:%' AND p <> ''"
        " ON CONFLICT (player_id) DO NOTHING", game_id, players)


async def unseat(pool: asyncpg.Pool | asyncpg.Connection, game_id: str,
                 player_id: str | None = None) -> None:
    """The game's people (or only ``player_id``) are free: it ended, or never began."""
    await pool.execute("DELETE FROM running_seats WHERE game_id = $1"
                       " AND ($2::text IS NULL OR player_id = $2)", game_id, player_id)


async def change_table(pool: asyncpg.Pool, table_id: str,
                       change: Callable[[TableRow], TableRow]) -> tuple[TableRow, TableRow]:
    """Apply ``change`` to the table under a row lock; returns (before, after).

    ``change`` is the service's pure decision; whatever it raises aborts the
    transaction and reaches the caller unchanged.
    """
    key = as_uuid(table_id)
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
                " game_id = $6, banter = $7, play_again = $8, updated_at = now(),"
                " playing_since = CASE WHEN game_id IS DISTINCT FROM $6 THEN now()"
                "                 ELSE playing_since END"
                " WHERE table_id = $1",
                key, uuid.UUID(after.host), json.dumps(after.rules), seats_json(after.seats),
                after.state, after.game_id, after.banter, _again_json(after.play_again))
    return before, after


async def seated_players(conn: asyncpg.Connection) -> list[str]:
    """Everyone seated at a table that is open or playing."""
    rows = await conn.fetch(
        "SELECT DISTINCT s->>'player_id' AS player_id"
        " FROM game_tables t, jsonb_array_elements(t.seats) s"
        " WHERE t.state <> 'over' AND s->>'player_id' IS NOT NULL")
    return [r["player_id"] for r in rows]


async def seat_open_table(conn: asyncpg.Connection, t: TableRow, game_id: str) -> bool:
    """Seat a person's open table for the game its match starts, in the match's
    transaction; False (nothing written) when it is no longer open."""
    status = await conn.execute(
        "UPDATE game_tables SET seats = $2, state = 'playing', game_id = $3,"
        " playing_since = now(), updated_at = now() WHERE table_id = $1 AND state = 'open'",
        uuid.UUID(t.table_id), seats_json(t.seats), game_id)
    return not status.endswith(" 0")


async def close_table_of(conn: asyncpg.Pool | asyncpg.Connection,
                         game_id: str) -> str | None:
    """The table playing this game is over (unless it moved on to another game): in the
    GameEnded consumer's transaction, or earlier, when a player acts on the end the
    game's own store holds. Returns the table closed, if any (once: idempotent)."""
    closed = await conn.fetchval(
        "UPDATE game_tables SET state = 'over', play_again = NULL, updated_at = now()"
        " WHERE game_id = $1 AND state = 'playing' RETURNING table_id", game_id)
    return None if closed is None else str(closed)
