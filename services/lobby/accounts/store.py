"""The accounts room's store: the ``accounts`` table (guests, registered names, roles)."""

from __future__ import annotations

import uuid

import asyncpg

from services.lobby.base.store import Pool, as_uuid

__all__ = ["NameTaken", "Pool", "account", "account_role", "create_account", "delete_guests",
           "names", "people", "registered_account", "set_role"]


class NameTaken(Exception):
    pass


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
    key = as_uuid(player_id)
    if key is None:
        return None
    row = await pool.fetchrow("SELECT player_id, name FROM accounts WHERE player_id = $1", key)
    return None if row is None else (str(row["player_id"]), row["name"])


async def names(pool: asyncpg.Pool, player_ids: list[str]) -> dict[str, str]:
    """Names of the accounts among ``player_ids`` (ids no account has are left out)."""
    keys = [k for k in (as_uuid(p) for p in player_ids) if k is not None]
    rows = await pool.fetch("SELECT player_id, name FROM accounts WHERE player_id = ANY($1)",
                            keys)
    return {str(r["player_id"]): r["name"] for r in rows}


async def account_role(pool: asyncpg.Pool, player_id: str) -> str | None:
    key = as_uuid(player_id)
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


async def people(pool: asyncpg.Pool, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
    """Player id -> (name, registered) of those ids that have an account."""
    keys = [k for k in (as_uuid(p) for p in player_ids) if k is not None]
    rows = await pool.fetch("SELECT player_id, name, password_hash IS NOT NULL AS registered"
                            " FROM accounts WHERE player_id = ANY($1::uuid[])", keys)
    return {str(r["player_id"]): (r["name"], r["registered"]) for r in rows}


async def delete_guests(conn: asyncpg.Connection, older_than_seconds: float,
                        keep: list[str]) -> int:
    """Delete guest accounts created more than ``older_than_seconds`` ago, except the
    player ids in ``keep``; how many went."""
    status = await conn.execute(
        "DELETE FROM accounts WHERE password_hash IS NULL"
        " AND created_at < now() - make_interval(secs => $1)"
        " AND NOT player_id::text = ANY($2::text[])", older_than_seconds, keep)
    return int(status.rsplit(" ", 1)[-1])
