"""Fair play's tables: the only module of fair play that speaks SQL.

A weighed game is written in the consumer's transaction, beside the record of
which endings it applied, so a redelivered ending neither weighs a game twice nor
opens a second case. Cases keep one open row per pair and relation (a unique
index), and every change to a case is an event row beside it.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

import asyncpg

from engine.fairplay import Game
from engine.fairplay.evidence import Card

_CASE = "case_id, players, relation, status, score, hands, why, games, opened_at, decided_at"


async def add_game(conn: asyncpg.Connection, g: Game) -> bool:
    """Keep a weighed game (only its telling decisions); False when it was kept before."""
    telling = [[c.hand, c.seat, c.told, c.card] for c in g.cards if c.told]
    status = await conn.execute(
        "INSERT INTO fairplay_games (game_id, players, ended_at, hands, points, telling)"
        " VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (game_id) DO NOTHING",
        g.game_id, list(g.players), g.ended_at, g.hands, list(g.points), json.dumps(telling))
    return status.endswith(" 1")


async def kept(pool: asyncpg.Pool, ids: Sequence[str]) -> set[str]:
    """Which of the games ``ids`` were weighed and kept already."""
    rows = await pool.fetch("SELECT game_id FROM fairplay_games WHERE game_id = ANY($1::text[])",
                            list(ids))
    return {r["game_id"] for r in rows}


def _game(r: asyncpg.Record) -> Game:
    cards = tuple(Card(seat, told, hand, card) for hand, seat, told, card
                  in json.loads(r["telling"]))
    p = r["players"]
    return Game(r["game_id"], (p[0], p[1], p[2], p[3]), r["ended_at"], r["hands"],
                (r["points"][0], r["points"][1]), cards)


async def recent_games(conn: asyncpg.Connection | asyncpg.Pool, players: Sequence[str],
                       per_player: int, league: int) -> list[Game]:
    """The last ``per_player`` games of each of ``players``, and the league's last
    ``league`` games (what opponents' losses are compared with), oldest first."""
    rows = await conn.fetch(
        "SELECT DISTINCT ON (game_id) * FROM ("
        "  SELECT g.* FROM unnest($1::text[]) AS p(id) CROSS JOIN LATERAL ("
        "    SELECT * FROM fairplay_games WHERE players @> ARRAY[p.id]"
        "    ORDER BY ended_at DESC LIMIT $2) g"
        "  UNION ALL (SELECT * FROM fairplay_games ORDER BY ended_at DESC LIMIT $3)) x",
        list(players), per_player, league)
    return sorted((_game(r) for r in rows), key=lambda g: (g.ended_at, g.game_id))


async def games(conn: asyncpg.Connection | asyncpg.Pool, ids: Sequence[str]) -> list[Game]:
    rows = await conn.fetch("SELECT * FROM fairplay_games WHERE game_id = ANY($1::text[])",
                            list(ids))
    return sorted((_game(r) for r in rows), key=lambda g: (g.ended_at, g.game_id))


async def decided_since(conn: asyncpg.Connection, players: Sequence[str],
                        relation: str) -> int | None:
    """When the pair's last decided case was decided (ms), or None: a pair's games up
    to a decision are not held against it again."""
    at = await conn.fetchval(
        "SELECT max(decided_at) FROM fairplay_cases"
        " WHERE players = $1 AND relation = $2 AND status <> 'open'", list(players), relation)
    return None if at is None else int(at.timestamp() * 1000)


async def open_case(conn: asyncpg.Connection, players: Sequence[str],
                    relation: str) -> asyncpg.Record | None:
    """The pair's open case, locked for the caller's transaction."""
    return await conn.fetchrow(
        f"SELECT {_CASE} FROM fairplay_cases WHERE players = $1 AND relation = $2"
        " AND status = 'open' FOR UPDATE", list(players), relation)


async def new_case(conn: asyncpg.Connection, case_id: str, players: Sequence[str],
                   relation: str, score: float, hands: int, why: str,
                   games: Sequence[str]) -> None:
    await conn.execute(
        "INSERT INTO fairplay_cases (case_id, players, relation, score, hands, why, games)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        case_id, list(players), relation, score, hands, why, list(games))


async def rescore(conn: asyncpg.Connection, case_id: str, score: float, hands: int, why: str,
                  games: Sequence[str]) -> None:
    await conn.execute(
        "UPDATE fairplay_cases SET score = $2, hands = $3, why = $4, games = $5"
        " WHERE case_id = $1", case_id, score, hands, why, list(games))


async def add_games(conn: asyncpg.Connection, case_id: str, games: Sequence[str]) -> None:
    await conn.execute(
        "UPDATE fairplay_cases SET games = ARRAY(SELECT DISTINCT unnest(games || $2::text[]))"
        " WHERE case_id = $1", case_id, list(games))


async def event(conn: asyncpg.Connection, case_id: str, kind: str, body: dict[str, Any]) -> None:
    await conn.execute(
        "INSERT INTO fairplay_case_events (case_id, type, body) VALUES ($1, $2, $3::jsonb)",
        case_id, kind, json.dumps({"type": kind, **body}))


async def cases(pool: asyncpg.Pool, status: str | None, limit: int) -> list[asyncpg.Record]:
    """Open cases first (highest score first), then the decided, newest first."""
    return list(await pool.fetch(
        f"SELECT {_CASE} FROM fairplay_cases WHERE ($1::text IS NULL OR status = $1)"
        " ORDER BY status <> 'open', CASE WHEN status = 'open' THEN -score END,"
        " coalesce(decided_at, opened_at) DESC, case_id LIMIT $2", status, limit))


async def case(conn: asyncpg.Connection | asyncpg.Pool, case_id: str,
               lock: bool = False) -> asyncpg.Record | None:
    return await conn.fetchrow(
        f"SELECT {_CASE} FROM fairplay_cases WHERE case_id = $1"
        + (" FOR UPDATE" if lock else ""), case_id)


async def events(pool: asyncpg.Pool, case_id: str) -> list[tuple[dict[str, Any], dt.datetime]]:
    rows = await pool.fetch("SELECT body, at FROM fairplay_case_events WHERE case_id = $1"
                            " ORDER BY id", case_id)
    return [(json.loads(r["body"]), r["at"]) for r in rows]


async def decide(conn: asyncpg.Connection, case_id: str, status: str) -> dt.datetime:
    return await conn.fetchval(
        "UPDATE fairplay_cases SET status = $2, decided_at = now() WHERE case_id = $1"
        " RETURNING decided_at", case_id, status)


async def bar(conn: asyncpg.Connection, players: Sequence[str], until: dt.datetime,
              case_id: str) -> None:
    """Bar ``players`` from ranked until ``until`` (a longer bar already held stands)."""
    await conn.execute(
        "INSERT INTO fairplay_bars (player_id, until, case_id)"
        " SELECT p, $2, $3 FROM unnest($1::text[]) p"
        " ON CONFLICT (player_id) DO UPDATE SET until = excluded.until,"
        "  case_id = excluded.case_id WHERE fairplay_bars.until < excluded.until",
        list(players), until, case_id)


async def bars(pool: asyncpg.Pool, players: Sequence[str]) -> list[asyncpg.Record]:
    """The bars of ``players`` still running."""
    return list(await pool.fetch(
        "SELECT player_id, until, case_id FROM fairplay_bars"
        " WHERE player_id = ANY($1::text[]) AND until > now() ORDER BY player_id",
        list(players)))


async def report(conn: asyncpg.Connection, game_id: str, reporter: str, reason: str) -> bool:
    """Keep a player's report of a game; False when they reported it before."""
    status = await conn.execute(
        "INSERT INTO fairplay_reports (game_id, reporter, reason) VALUES ($1, $2, $3)"
        " ON CONFLICT DO NOTHING", game_id, reporter, reason)
    return status.endswith(" 1")
