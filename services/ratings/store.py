"""The ratings tables. Called inside the consumer's transaction, so a game counts once."""

from __future__ import annotations

import asyncpg


async def current(conn: asyncpg.Connection, players: tuple[str, ...], initial: int) -> list[int]:
    await conn.executemany(
        "INSERT INTO ratings (player_id, rating) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [(p, initial) for p in players])
    rows = await conn.fetch(
        "SELECT player_id, rating FROM ratings WHERE player_id = ANY($1::text[])"
        " ORDER BY player_id FOR UPDATE", list(players))
    by_player = {r["player_id"]: r["rating"] for r in rows}
    return [by_player[p] for p in players]


async def record(conn: asyncpg.Connection, game: str, players: tuple[str, ...],
                 before: list[int], after: tuple[int, ...]) -> None:
    await conn.executemany(
        "UPDATE ratings SET rating = $2, games = games + 1, updated_at = now()"
        " WHERE player_id = $1", list(zip(players, after, strict=True)))
    await conn.executemany(
        "INSERT INTO rating_history (player_id, game_stream, rating_before, rating_after)"
        " VALUES ($1, $2, $3, $4)",
        [(p, game, b, a) for p, b, a in zip(players, before, after, strict=True)])


async def rating(pool: asyncpg.Pool, player: str) -> int | None:
    value = await pool.fetchval("SELECT rating FROM ratings WHERE player_id = $1", player)
    return None if value is None else int(value)
