"""The ratings tables: the only module of the service that speaks SQL.

Writes run inside the consumer's transaction, so a game counts once. The
leaderboard is a table of its own, ``board``: players ranked by (rating desc,
player_id), established players active since a cutoff (and, in ``rank_all``,
the provisional ones too), recomputed whole every so often; pages, ranks and
"around me" read it by index.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace

import asyncpg

from services.platform.consumer import forget
from services.ratings.system import Change

_COLUMNS = "player_id, rating, games, wins, losses, draws, \"left\", peak, last_game_at"
_BOARD_COLUMNS = "player_id, rating, games, wins, losses, draws, provisional, rank, rank_all"
_BOARD_LOCK = 0x5ADE_B0A2D  # advisory lock: one copy refreshes the board at a time


@dataclass(frozen=True, slots=True)
class Board:
    """Who the leaderboard lists: players rated since ``active_since``; those with
    fewer than ``provisional_games`` are provisional, ranked only in ``rank_all``."""

    active_since: dt.datetime
    provisional_games: int


async def lock(conn: asyncpg.Connection, players: Sequence[str],
               initial: int) -> dict[str, asyncpg.Record]:
    """The players' rows, created at the initial rating if new, locked in player order
    so two games sharing players never deadlock. One statement: the no-op update of
    an existing row is what locks and returns it."""
    rows = await conn.fetch(
        "INSERT INTO ratings AS r (player_id, rating, peak)"
        " SELECT p, $2, $2 FROM unnest($1::text[]) p ORDER BY p"
        " ON CONFLICT (player_id) DO UPDATE SET player_id = r.player_id"
        f" RETURNING {_COLUMNS}", sorted(set(players)), initial)
    return {r["player_id"]: r for r in rows}


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's row as a run of games leaves it."""

    player_id: str
    rating: int
    games: int
    wins: int
    losses: int
    draws: int
    left: int
    peak: int
    last_game_at: dt.datetime | None

    @classmethod
    def of(cls, r: asyncpg.Record) -> Standing:
        return cls(r["player_id"], r["rating"], r["games"], r["wins"], r["losses"], r["draws"],
                   r["left"], r["peak"], r["last_game_at"])

    def after(self, change: Change, at: dt.datetime) -> Standing:
        rating = self.rating + change.delta
        return replace(self, rating=rating, games=self.games + 1,
                       wins=self.wins + (change.result == "win"),
                       losses=self.losses + (change.result == "loss"),
                       draws=self.draws + (change.result == "draw"),
                       left=self.left + (change.result == "left"),
                       peak=max(self.peak, rating), last_game_at=at)


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's history row: how one game moved one player."""

    player_id: str
    game: str
    before: int
    change: Change
    partner: str
    opponents: tuple[str, str]
    rated_at: dt.datetime


async def record(conn: asyncpg.Connection, rows: Sequence[Standing],
                 history: Sequence[Move]) -> None:
    """Write the players' rows as a run of games left them, and the run's history rows
    in the order the games were applied: two statements, whatever the run's length."""
    await conn.execute(
        "UPDATE ratings r SET rating = c.rating, games = c.games, wins = c.wins,"
        " losses = c.losses, draws = c.draws, \"left\" = c.lft, peak = c.peak,"
        " last_game_at = c.at, updated_at = now()"
        " FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[],"
        "   $7::int[], $8::int[], $9::timestamptz[])"
        "   AS c(player_id, rating, games, wins, losses, draws, lft, peak, at)"
        " WHERE r.player_id = c.player_id",
        [s.player_id for s in rows], [s.rating for s in rows], [s.games for s in rows],
        [s.wins for s in rows], [s.losses for s in rows], [s.draws for s in rows],
        [s.left for s in rows], [s.peak for s in rows], [s.last_game_at for s in rows])
    await conn.execute(
        "INSERT INTO rating_history (player_id, game_stream, rating_before, rating_after, delta,"
        " k, result, partner, opponents, rated_at)"
        " SELECT player_id, game, before, before + delta, delta, k, result, partner,"
        "  ARRAY[o1, o2], at"
        " FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::text[],"
        "   $7::text[], $8::text[], $9::text[], $10::timestamptz[]) WITH ORDINALITY"
        "   AS c(player_id, game, before, delta, k, result, partner, o1, o2, at, n)"
        " ORDER BY n",
        [m.player_id for m in history], [m.game for m in history],
        [m.before for m in history], [m.change.delta for m in history],
        [m.change.k for m in history], [m.change.result for m in history],
        [m.partner for m in history], [m.opponents[0] for m in history],
        [m.opponents[1] for m in history], [m.rated_at for m in history])
    await conn.execute(
        "INSERT INTO board_refreshed (refreshed_at, changes) VALUES ('-infinity', 1)"
        " ON CONFLICT (one) DO UPDATE SET changes = board_refreshed.changes + 1")


async def moves(pool: asyncpg.Pool, games: Sequence[str]) -> list[asyncpg.Record]:
    """How the given games moved each of their players' ratings."""
    return list(await pool.fetch(
        "SELECT player_id, game_stream, rating_before, rating_after FROM rating_history"
        " WHERE game_stream = ANY($1::text[]) ORDER BY id", list(games)))


async def ratings_of(pool: asyncpg.Pool, players: Sequence[str]) -> dict[str, asyncpg.Record]:
    rows = await pool.fetch(f"SELECT {_COLUMNS} FROM ratings WHERE player_id = ANY($1::text[])",
                            list(players))
    return {r["player_id"]: r for r in rows}


async def refresh_board(pool: asyncpg.Pool, board: Board, every: float,
                        soon: float, at: dt.datetime) -> int | None:
    """Recompute the board unless another copy is at it, or it was computed less than
    ``every`` seconds before ``at`` (the service's clock, which tests move) and has
    every rated game since, or less than ``soon`` seconds before; returns the players
    listed, or None when it was left alone."""
    async with pool.acquire() as conn, conn.transaction():
        if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", _BOARD_LOCK):
            return None
        last = await conn.fetchrow(
            "SELECT refreshed_at > $3::timestamptz - make_interval(secs => $1) AS recent,"
            " refreshed_at > $3::timestamptz - make_interval(secs => $2) AS just_now,"
            " changes, board_changes FROM board_refreshed", every, soon, at)
        if last is not None and (last["just_now"] or (
                last["recent"] and last["changes"] == last["board_changes"])):
            return None
        # Read before the ratings: a run that commits meanwhile leaves the board behind.
        seen = 0 if last is None else last["changes"]
        await conn.execute("DELETE FROM board")
        status = await conn.execute(
            "INSERT INTO board (player_id, rating, games, wins, losses, draws, provisional,"
            " rank, rank_all)"
            " SELECT player_id, rating, games, wins, losses, draws, games < $2,"
            "  CASE WHEN games >= $2 THEN row_number() OVER ("
            "   PARTITION BY games >= $2 ORDER BY rating DESC, player_id) END,"
            "  row_number() OVER (ORDER BY rating DESC, player_id)"
            " FROM ratings WHERE last_game_at >= $1", board.active_since, board.provisional_games)
        await conn.execute(
            "INSERT INTO board_refreshed (refreshed_at, board_changes) VALUES ($2, $1)"
            " ON CONFLICT (one) DO UPDATE SET refreshed_at = $2, board_changes = $1", seen, at)
        return int(status.rsplit(" ", 1)[-1])


def _rank(provisional: bool) -> str:
    return "rank_all" if provisional else "rank"


async def page(pool: asyncpg.Pool, provisional: bool, limit: int,
               offset: int) -> list[asyncpg.Record]:
    col = _rank(provisional)
    return list(await pool.fetch(
        f"SELECT {_BOARD_COLUMNS} FROM board WHERE {col} > $1 ORDER BY {col} LIMIT $2",
        offset, limit))


async def place(pool: asyncpg.Pool, provisional: bool, player: str, rating: int) -> int:
    """How many board rows come before a player: its own place when listed, else
    where its rating would put it."""
    col = _rank(provisional)
    listed = await pool.fetchval(f"SELECT {col} FROM board WHERE player_id = $1", player)
    if listed is not None:
        return int(listed) - 1
    after = await pool.fetchval(
        f"SELECT {col} FROM board WHERE {col} IS NOT NULL"
        " AND (rating < $1 OR (rating = $1 AND player_id > $2))"
        " ORDER BY rating DESC, player_id LIMIT 1", rating, player)
    if after is not None:
        return int(after) - 1
    return int(await pool.fetchval(f"SELECT count({col}) FROM board"))


async def rank(pool: asyncpg.Pool, player: str) -> int | None:
    value = await pool.fetchval("SELECT rank FROM board WHERE player_id = $1", player)
    return None if value is None else int(value)


async def history(pool: asyncpg.Pool, player: str, before: int | None,
                  limit: int, games: list[str] | None = None) -> list[asyncpg.Record]:
    return list(await pool.fetch(
        "SELECT id, game_stream, rated_at, rating_before, rating_after, delta, k, result,"
        " partner, opponents FROM rating_history"
        " WHERE player_id = $1 AND ($2::bigint IS NULL OR id < $2)"
        " AND ($4::text[] IS NULL OR game_stream = ANY($4)) ORDER BY id DESC LIMIT $3",
        player, before, limit, games))


async def voided(conn: asyncpg.Connection, games: Sequence[str]) -> set[str]:
    """Which of ``games`` fair play voided: they move no rating."""
    rows = await conn.fetch("SELECT game_id FROM voided_games WHERE game_id = ANY($1::text[])",
                            list(games))
    return {r["game_id"] for r in rows}


async def void(conn: asyncpg.Connection, games: Sequence[str], case_id: str) -> None:
    """Mark ``games`` voided, the ratings locked against the consumer first (it locks
    players' rows before reading what is voided), so no game is rated across a void."""
    await conn.execute("LOCK TABLE ratings, rating_history IN EXCLUSIVE MODE")
    await conn.execute(
        "INSERT INTO voided_games (game_id, case_id) SELECT g, $2 FROM unnest($1::text[]) g"
        " ON CONFLICT DO NOTHING", list(games), case_id)


async def rated_seats(conn: asyncpg.Connection | asyncpg.Pool,
                      after: int = 0) -> list[asyncpg.Record]:
    """The history rows past id ``after``, in the order they were rated (a game's four
    rows in seat order), for a rebuild; voided games' rows too (the rebuild leaves
    them out)."""
    return list(await conn.fetch(
        "SELECT id, player_id, game_stream, result, rated_at FROM rating_history"
        " WHERE id > $1 ORDER BY id", after))


async def history_rows(conn: asyncpg.Connection, upto: int) -> int:
    """How many history rows there are up to id ``upto``."""
    return int(await conn.fetchval("SELECT count(*) FROM rating_history WHERE id <= $1", upto))


async def voided_all(conn: asyncpg.Connection | asyncpg.Pool) -> frozenset[str]:
    """Every game fair play voided."""
    return frozenset(r[0] for r in await conn.fetch("SELECT game_id FROM voided_games"))


async def forget_rated(conn: asyncpg.Connection) -> None:
    """Empty the players' rows and the history (readers see the old ones until commit)."""
    await conn.execute("DELETE FROM rating_history")
    await conn.execute("DELETE FROM ratings")


async def reset(conn: asyncpg.Connection, consumer: str) -> None:
    """Forget every rating and which games were applied, so they can be applied again
    (``voided_games`` stays: a rebuild leaves the voided games out too)."""
    await conn.execute("TRUNCATE ratings, rating_history, board, board_refreshed")
    await forget(conn, consumer)

