"""The games room's store: the ``games`` projection (who played, when, how it ended)
and the operators' search over it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from services.lobby.base.store import Pool, as_uuid

__all__ = ["GameRow", "Pool", "finished_games", "game_ended", "game_started", "has_ended",
           "search_games"]


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


async def game_started(conn: asyncpg.Connection, game_id: str, players: list[str],
                       at_ms: int, table_id: str | None = None,
                       names: list[str | None] | None = None) -> None:
    """Called inside the consumer's transaction; ``GameEnded`` may have come first.
    ``table_id`` and ``names``: the table the game is played at and who sits there as
    it starts (the tables and matches rooms' rows, asked in the same transaction), for
    the search."""
    await conn.execute(
        "INSERT INTO games (game_id, players, started_at, table_id, names)"
        " VALUES ($1, $2, to_timestamp($3), $4, $5)"
        " ON CONFLICT (game_id) DO UPDATE SET started_at = EXCLUDED.started_at,"
        " table_id = EXCLUDED.table_id, names = EXCLUDED.names,"
        " players = CASE WHEN games.players = '{}' THEN EXCLUDED.players ELSE games.players END",
        game_id, players, at_ms / 1000, None if table_id is None else as_uuid(table_id), names)


async def has_ended(conn: asyncpg.Pool | asyncpg.Connection, game_id: str) -> bool:
    """Whether the projection has seen the game's end."""
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM games WHERE game_id = $1 AND ended_at IS NOT NULL)",
        game_id))


async def finished_games(pool: asyncpg.Pool, player: str) -> int:
    """Games the player sat in to the end (the ranked queue's count, handed down to it)."""
    return int(await pool.fetchval(
        "SELECT count(*) FROM games WHERE players @> ARRAY[$1] AND ended_at IS NOT NULL",
        player))


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
        where.append(f"({p} = ANY(g.players) OR EXISTS (SELECT 1 FROM unnest(g.names) n"
                     f" WHERE lower(n) = lower({p})))")
    if table_id:
        key = as_uuid(table_id)
        if key is None:
            return []
        where.append(f"g.table_id = {arg(key)}")
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
    sql = ("SELECT g.* FROM games g"
           + (" WHERE " + " AND ".join(where) if where else "")
           + f" ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT {arg(limit)}")
    rows = await pool.fetch(sql, *args)
    out = []
    for r in rows:
        out.append(GameRow(
            game_id=r["game_id"], table_id=str(r["table_id"]) if r["table_id"] else None,
            players=tuple(r["players"]), names=tuple(r["names"] or ()),
            started_at_ms=_ms(r["started_at"]), ended_at_ms=_ms(r["ended_at"]),
            winner=r["winner"], scores=tuple(r["scores"]) if r["scores"] else None,
            reason=r["reason"], hands_played=r["hands_played"]))
    return out
