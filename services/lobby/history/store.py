"""The ``player_games`` table: one row a finished game, written once by the history
projection, read a page at a time by player."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from schemas.events import GameEnded
from schemas.views import HandSheet

_COLUMNS = ("id, game_id, players, names, started_at, ended_at, rules, rated, winner, scores,"
            " reason, abandoned, hands, origin, match_id, table_id")


async def record(conn: asyncpg.Connection, game_id: str, ended: GameEnded, names: list[str],
                 started_at_ms: int, ended_at_ms: int, hands: tuple[HandSheet, ...],
                 origin: str, match_id: str, table_id: str, private: bool) -> None:
    """Once a game: a redelivered ``GameEnded`` finds the row there and changes nothing."""
    await conn.execute(
        "INSERT INTO player_games (game_id, players, names, started_at, ended_at, rules,"
        " rated, winner, scores, reason, abandoned, hands, origin, match_id, table_id, private)"
        " VALUES ($1, $2, $3, to_timestamp($4), to_timestamp($5), $6::jsonb, $7, $8, $9,"
        " $10, $11, $12::jsonb, $13, $14, $15, $16) ON CONFLICT (game_id) DO NOTHING",
        game_id, list(ended.players), names, started_at_ms / 1000, ended_at_ms / 1000,
        msgspec.json.encode(ended.rules).decode(), ended.rated, ended.winner,
        list(ended.scores), ended.reason, list(ended.abandoned),
        msgspec.json.encode(hands).decode(), origin, match_id, table_id, private)


async def page(pool: asyncpg.Pool, player: str, before: int | None, limit: int,
               asker: str) -> list[dict[str, Any]]:
    """The player's games, newest first, ``limit`` of them from before row ``before``; a
    private table's games only when ``asker`` sat in them too."""
    rows = await pool.fetch(
        f"SELECT {_COLUMNS} FROM player_games WHERE players @> ARRAY[$1]"
        " AND ($2::bigint IS NULL OR id < $2) AND (NOT private OR players @> ARRAY[$4])"
        " ORDER BY id DESC LIMIT $3", player, before, limit, asker)
    return [dict(r) for r in rows]


async def players_of(pool: asyncpg.Pool, game_id: str) -> list[str] | None:
    """Who sat in this finished game, by seat; None when the game has not ended (or
    never was)."""
    players = await pool.fetchval("SELECT players FROM player_games WHERE game_id = $1",
                                  game_id)
    return None if players is None else list(players)
