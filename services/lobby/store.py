"""The lobby's tables."""

from __future__ import annotations

import uuid

import asyncpg


class NameTaken(Exception):
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
