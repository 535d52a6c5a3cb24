"""The lobby's tables: players, accounts and game tables. The only module that touches asyncpg."""

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


async def create_player(pool: asyncpg.Pool, name: str) -> tuple[str, str]:
    player_id = uuid.uuid4()
    try:
        await pool.execute("INSERT INTO players (player_id, name) VALUES ($1, $2)",
                           player_id, name)
    except asyncpg.UniqueViolationError:
        raise NameTaken(name) from None
    return str(player_id), name


async def get_player(pool: asyncpg.Pool, player_id: uuid.UUID) -> tuple[str, str] | None:
    row = await pool.fetchrow("SELECT player_id, name FROM players WHERE player_id = $1",
                              player_id)
    return None if row is None else (str(row["player_id"]), row["name"])


# --- Accounts ------------------------------------------------------------------------------


async def create_account(pool: asyncpg.Pool, player_id: str, name: str,
                         password_hash: str | None) -> None:
    try:
        await pool.execute("INSERT INTO accounts (player_id, name, password_hash)"
                           " VALUES ($1, $2, $3)", uuid.UUID(player_id), name, password_hash)
    except asyncpg.UniqueViolationError:
        raise NameTaken(name) from None


async def registered_account(pool: asyncpg.Pool, name: str) -> tuple[str, str, str] | None:
    row = await pool.fetchrow("SELECT player_id, name, password_hash FROM accounts"
                              " WHERE lower(name) = lower($1) AND password_hash IS NOT NULL",
                              name)
    return None if row is None else (str(row["player_id"]), row["name"], row["password_hash"])


# --- Game tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    player_id: str | None = None
    name: str | None = None
    bot: str | None = None  # bot level when a bot sits here

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

    def with_(self, **changes: Any) -> TableRow:
        return replace(self, **changes)


_COLUMNS = "table_id, host, private, code, rules, preset, seats, state, game_id, banter"


def _row(r: asyncpg.Record) -> TableRow:
    seats = tuple(Seat(**s) for s in json.loads(r["seats"]))
    return TableRow(table_id=str(r["table_id"]), host=str(r["host"]), private=r["private"],
                    code=r["code"], rules=json.loads(r["rules"]), preset=r["preset"],
                    seats=seats, state=r["state"], game_id=r["game_id"], banter=r["banter"])


def _seats_json(seats: tuple[Seat, ...]) -> str:
    return json.dumps([{"player_id": s.player_id, "name": s.name, "bot": s.bot} for s in seats])


async def insert_table(pool: asyncpg.Pool, t: TableRow) -> None:
    try:
        await pool.execute(
            f"INSERT INTO game_tables ({_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
            uuid.UUID(t.table_id), uuid.UUID(t.host), t.private, t.code, json.dumps(t.rules),
            t.preset, _seats_json(t.seats), t.state, t.game_id, t.banter)
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
    r = await pool.fetchrow(f"SELECT {_COLUMNS} FROM game_tables WHERE game_id = $1", game_id)
    return None if r is None else _row(r)


async def open_public_tables(pool: asyncpg.Pool, limit: int = 200) -> list[TableRow]:
    rows = await pool.fetch(f"SELECT {_COLUMNS} FROM game_tables WHERE state = 'open'"
                            " AND NOT private ORDER BY created_at DESC LIMIT $1", limit)
    return [_row(r) for r in rows]


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
                " game_id = $6, banter = $7, updated_at = now() WHERE table_id = $1",
                key, uuid.UUID(after.host), json.dumps(after.rules), _seats_json(after.seats),
                after.state, after.game_id, after.banter)
    return before, after
