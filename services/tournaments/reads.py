"""Reading a tournament back from its projections: the list, one tournament whole, and
the check that the projections still equal the stream's fold (``spades tournament
replay``). The store (``store.py``) writes those rows; this module only reads them."""

from __future__ import annotations

import json
import uuid

import asyncpg
import msgspec

from schemas.tournaments import api as api
from services.tournaments import formats
from services.tournaments.duplicate import DuplicateScore
from services.tournaments.projection import project
from services.tournaments.state import Tournament

# The champion's name comes with the list, so a list of finished tournaments names its
# winners without reading each tournament whole.
_SUMMARY = ("tournament_id, name, status, format, organizer, starts_at, champion,"
            " (SELECT c.name FROM tournament_teams c WHERE c.tournament_id ="
            "  tournaments.tournament_id AND c.team_id = tournaments.champion) AS champion_name,"
            " (settings->>'check_in_minutes')::bigint AS check_in_minutes,"
            " (settings->>'starts_at')::bigint AS planned_at")


def _summary(row: asyncpg.Record) -> api.TournamentSummary:
    starts_at = int(row["starts_at"].timestamp() * 1000) if row["starts_at"] else 0
    check_in = row["check_in_minutes"] or 0
    planned = row["planned_at"] or starts_at  # the check-in window as set, whenever it began
    return api.TournamentSummary(
        tournament_id=str(row["tournament_id"]), name=row["name"], status=row["status"],
        format=row["format"], organizer=row["organizer"], starts_at=starts_at,
        champion=row["champion"], champion_name=row["champion_name"] or "",
        check_in_opens_at=planned - check_in * 60_000 if check_in else None,
        check_in_closes_at=planned if check_in else None)


async def summaries(pool: asyncpg.Pool, status: str | None,
                    limit: int) -> list[api.TournamentSummary]:
    """Tournaments by start time, soonest first, of one status or all."""
    rows = await pool.fetch(f"SELECT {_SUMMARY} FROM tournaments"
                            " WHERE ($1::text IS NULL OR status = $1)"
                            " ORDER BY starts_at, tournament_id LIMIT $2", status, limit)
    return [_summary(r) for r in rows]


async def view(pool: asyncpg.Pool, tournament_id: uuid.UUID) -> api.TournamentView | None:
    """A tournament as its projections show it, or None if there is none."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
        head = await conn.fetchrow(f"SELECT {_SUMMARY}, settings, version, rounds,"
                                   " standings_columns FROM tournaments"
                                   " WHERE tournament_id = $1", tournament_id)
        if head is None:
            return None
        teams = await conn.fetch(
            "SELECT team_id, name, players, confirmed, waiting, checked_in, withdrawn, seed"
            " FROM tournament_teams WHERE tournament_id = $1 ORDER BY seed NULLS LAST, team_id",
            tournament_id)
        matches = await conn.fetch(
            "SELECT match_id, round_no, home, away, outcome, reason, scores, deals,"
            " CASE WHEN game_began THEN game_id ELSE '' END AS game_id FROM tournament_matches"
            " WHERE tournament_id = $1 ORDER BY round_no, match_id",
            tournament_id)
        table = await conn.fetch(
            "SELECT team_id, rank, match_points, buchholz, head_to_head, differential, bags,"
            " points, matchpoints, matchpoints_top, reached, reached_round, eliminated"
            " FROM tournament_standings"
            " WHERE tournament_id = $1 ORDER BY rank",
            tournament_id)
    rounds = msgspec.json.decode(head["rounds"], type=list[api.RoundView])
    named = {(r.stage, r.round_no): r.name for r in rounds}
    stage_of = formats.of(head["format"]).stage_of
    seeds = {r["team_id"]: r["seed"] for r in teams}
    return api.TournamentView(
        summary=_summary(head), settings=json.loads(head["settings"]), version=head["version"],
        teams=[api.TeamView(**dict(r)) for r in teams],
        matches=[api.MatchView(**{**dict(r), "deals": _pairs(r["deals"])},
                               stage=(stage := stage_of(r["match_id"])),
                               round_name=named.get((stage, r["round_no"]), ""))
                 for r in matches],
        standings=[api.StandingView(
            team_id=r["team_id"], rank=r["rank"], match_points=r["match_points"] / 2,
            buchholz=r["buchholz"] / 2, head_to_head=r["head_to_head"] / 2,
            differential=r["differential"], bags=r["bags"], points=r["points"],
            duplicate=None if r["matchpoints"] is None else api.DuplicateView(
                matchpoints=r["matchpoints"] / 2, top=r["matchpoints_top"] / 2,
                percent=round(DuplicateScore(r["team_id"], r["matchpoints"],
                                             r["matchpoints_top"]).percent, 2)),
            seed=seeds.get(r["team_id"]), reached=r["reached"],
            reached_round=r["reached_round"], eliminated=r["eliminated"])
            for r in table],
        rounds=rounds, standings_columns=list(head["standings_columns"]))


async def duplicate(pool: asyncpg.Pool, tournament_id: uuid.UUID) -> bool:
    """Whether the tournament deals duplicate (its feed then leaves results out)."""
    deals = await pool.fetchval("SELECT settings->'format'->>'deals' FROM tournaments"
                                " WHERE tournament_id = $1", tournament_id)
    return bool(deals == "duplicate")


async def withheld(pool: asyncpg.Pool, player: str) -> list[str]:
    """The games ``player`` may not see: in each running duplicate tournament where the
    player's team has a match with no result (``decided``: the stream's truth, not the
    view's), the games of that round's other matches (docs/tournaments.md)."""
    rows = await pool.fetch(
        "SELECT other.game_id FROM tournament_teams t"
        " JOIN tournaments tt USING (tournament_id)"
        " JOIN tournament_matches mine ON mine.tournament_id = t.tournament_id"
        "  AND t.team_id IN (mine.home, mine.away) AND NOT mine.decided"
        " JOIN tournament_matches other ON other.tournament_id = mine.tournament_id"
        "  AND other.round_no = mine.round_no AND other.match_id <> mine.match_id"
        " WHERE t.players @> ARRAY[$1::text] AND tt.status = 'running'"
        " AND tt.settings->'format'->>'deals' = 'duplicate'", player)
    return [r["game_id"] for r in rows]


def _pairs(flat: list[int]) -> list[list[int]]:
    """[home, away] per deal from the column's flat list."""
    return [list(flat[i:i + 2]) for i in range(0, len(flat), 2)]


_PROJECTIONS = ("tournaments", "tournament_teams", "tournament_matches", "tournament_standings",
                "tournament_timers", "tournament_calls")


async def stale_projections(pool: asyncpg.Pool, tournament_id: uuid.UUID,
                            state: Tournament) -> list[str]:
    """The projection tables whose rows differ from what the fold ``state`` projects to:
    the rows are rewritten from the fold in a transaction that is rolled back."""

    async def dump(conn: asyncpg.Connection) -> dict[str, list[tuple[object, ...]]]:
        return {table: sorted(tuple(r.values()) for r in await conn.fetch(
            f"SELECT * FROM {table} WHERE tournament_id = $1", tournament_id))
            for table in _PROJECTIONS}

    async with pool.acquire() as conn:
        tx = conn.transaction(isolation="repeatable_read")
        await tx.start()
        try:
            stored = await dump(conn)
            await project(conn, tournament_id, state)
            folded = await dump(conn)
        finally:
            await tx.rollback()
    return [table for table in _PROJECTIONS
            if _comparable(table, stored[table]) != _comparable(table, folded[table])]


def _comparable(table: str, rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    # The tournaments row's created_at is when it was first projected, not a fact of the fold.
    return [r[:3] + r[4:] for r in rows] if table == "tournaments" else rows
