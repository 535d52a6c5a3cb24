"""The ratings tables: the only module of the service that speaks SQL.

Writes run inside the consumer's transaction, so a game counts once. The
leaderboard is ``ratings`` in (rating desc, player_id) order, filtered to
established players active since a cutoff; a rank is one plus the number of
board rows ahead, counted on the board index.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from services.ratings.elo import Change

_COLUMNS = "player_id, rating, games, wins, losses, draws, \"left\", peak, last_game_at"
_ON_BOARD = "last_game_at >= $1 AND (games >= $2 OR $3)"


@dataclass(frozen=True, slots=True)
class Board:
    """Who the leaderboard lists: rated since ``active_since``, and established unless
    ``provisional`` lets the first games in too."""

    active_since: dt.datetime
    provisional_games: int
    provisional: bool = False

    @property
    def args(self) -> tuple[dt.datetime, int, bool]:
        return self.active_since, self.provisional_games, self.provisional


async def lock(conn: asyncpg.Connection, players: Sequence[str],
               initial: int) -> dict[str, asyncpg.Record]:
    """The players' rows, created at the initial rating if new, locked in player order
    so two games sharing players never deadlock."""
    ordered = sorted(set(players))
    await conn.execute(
        "INSERT INTO ratings (player_id, rating, peak) SELECT p, $2, $2 FROM unnest($1::text[]) p"
        " ON CONFLICT DO NOTHING", ordered, initial)
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM ratings WHERE player_id = ANY($1::text[])"
        " ORDER BY player_id FOR UPDATE", ordered)
    return {r["player_id"]: r for r in rows}


async def record(conn: asyncpg.Connection, game: str, players: tuple[str, str, str, str],
                 before: Sequence[int], changes: Sequence[Change], ended_at: dt.datetime) -> None:
    """Apply one game's changes and write one history row per seat."""
    results = [c.result for c in changes]
    await conn.execute(
        "UPDATE ratings r SET rating = r.rating + c.delta, games = r.games + 1,"
        " wins = r.wins + (c.result = 'win')::int, losses = r.losses + (c.result = 'loss')::int,"
        " draws = r.draws + (c.result = 'draw')::int,"
        " \"left\" = r.\"left\" + (c.result = 'left')::int,"
        " peak = greatest(r.peak, r.rating + c.delta), last_game_at = $4, updated_at = now()"
        " FROM unnest($1::text[], $2::int[], $3::text[]) AS c(player_id, delta, result)"
        " WHERE r.player_id = c.player_id",
        list(players), [c.delta for c in changes], results, ended_at)
    await conn.execute(
        "INSERT INTO rating_history (player_id, game_stream, rating_before, rating_after, delta,"
        " k, result, partner, opponents, rated_at)"
        " SELECT p, $2, b, b + d, d, k, res, partner, ARRAY[o1, o2], $3"
        " FROM unnest($1::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[],"
        " $9::text[], $10::text[]) AS x(p, b, d, k, res, partner, o1, o2)",
        list(players), game, ended_at, list(before), [c.delta for c in changes],
        [c.k for c in changes], results, [players[(s + 2) % 4] for s in range(4)],
        [players[(s + 1) % 4] for s in range(4)], [players[(s + 3) % 4] for s in range(4)])


async def ratings_of(pool: asyncpg.Pool, players: Sequence[str]) -> dict[str, asyncpg.Record]:
    rows = await pool.fetch(f"SELECT {_COLUMNS} FROM ratings WHERE player_id = ANY($1::text[])",
                            list(players))
    return {r["player_id"]: r for r in rows}


async def page(pool: asyncpg.Pool, board: Board, limit: int, offset: int) -> list[asyncpg.Record]:
    return list(await pool.fetch(
        f"SELECT {_COLUMNS} FROM ratings WHERE {_ON_BOARD}"
        " ORDER BY rating DESC, player_id LIMIT $4 OFFSET $5", *board.args, limit, offset))


async def ahead(pool: asyncpg.Pool, board: Board, rating: int, player: str) -> int:
    """How many board rows come before a player at ``rating`` (listed or not)."""
    return int(await pool.fetchval(
        f"SELECT count(*) FROM ratings WHERE {_ON_BOARD}"
        " AND (rating > $4 OR (rating = $4 AND player_id < $5))", *board.args, rating, player))


async def history(pool: asyncpg.Pool, player: str, before: int | None,
                  limit: int) -> list[asyncpg.Record]:
    return list(await pool.fetch(
        "SELECT id, game_stream, rated_at, rating_before, rating_after, delta, k, result,"
        " partner, opponents FROM rating_history"
        " WHERE player_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
        player, before, limit))


async def reset(conn: asyncpg.Connection, consumer: str) -> None:
    """Forget every rating and which games were applied, so they can be applied again."""
    await conn.execute("TRUNCATE ratings, rating_history")
    await conn.execute("DELETE FROM consumer_processed WHERE consumer = $1", consumer)

