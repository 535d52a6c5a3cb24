"""A tournament's projections, rewritten from its folded state after every append: the
teams, the matches (a duplicate round's results only once the round is over), the
standings, and the timers and calls the scheduler takes up when due.
"""

from __future__ import annotations

import datetime as dt
import uuid

import asyncpg
import msgspec

from services.tournaments.calls import game_of
from services.tournaments.decide import standings_of
from services.tournaments.duplicate import duplicate_scores, published
from services.tournaments.guards import format_of
from services.tournaments.state import Tournament
from services.tournaments.timers import due_timers


def ts(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


# After a ready check's deadline the lobby has the outcome; ask again a little later.
RECHECK_MS = 2_000

# A started match's game not reported ended after this long is looked at in the game's store,
# and again every GAME_RECHECK_MS.
GAME_CHECK_MS = 60 * 60_000


def due_calls(state: Tournament) -> dict[str, int]:
    """Match id -> when to ask about it: the lobby at once when paired and again after its
    ready check's deadline; the game's store once its game has run ``GAME_CHECK_MS``;
    never once it has a result."""
    if state.status != "running":
        return {}
    due = {"": lambda m: m.paired_at, "ready_check": lambda m: m.ready_by + RECHECK_MS,
           "started": lambda m: m.started_at + GAME_CHECK_MS}
    return {match_id: due[m.call](m) for match_id, m in state.matches.items()
            if m.outcome is None}


async def project(conn: asyncpg.Connection, tournament_id: uuid.UUID, state: Tournament) -> None:
    """Rewrite the tournament's rows (tournament, teams, matches, standings, timers) from
    its fold, inside the caller's transaction. Matches and standings show what anyone may
    see (``duplicate.published``: no result of a duplicate round still being played)."""
    s = state.settings
    assert s is not None
    fmt = format_of(state)
    await conn.execute(
        "INSERT INTO tournaments (tournament_id, name, status, organizer, format, settings,"
        " starts_at, champion, version, rounds, standings_columns) VALUES ($1, $2, $3, $4,"
        " $5, $6::jsonb, $7, $8, $9, $10::jsonb, $11)"
        " ON CONFLICT (tournament_id) DO UPDATE SET name = $2, status = $3, organizer = $4,"
        " format = $5, settings = $6::jsonb, starts_at = $7, champion = $8, version = $9,"
        " rounds = $10::jsonb, standings_columns = $11",
        tournament_id, s.name, state.status, state.organizer, s.format.kind,
        msgspec.json.encode(s).decode(), ts(state.started_at or s.starts_at), state.champion,
        state.version, msgspec.json.encode(fmt.round_names(state)).decode(),
        list(fmt.standings_columns(s)))
    # One statement clears the four tables (data-modifying CTEs); then a COPY for each that
    # has rows: a command costs few round trips whatever the tournament's size.
    await conn.execute(
        "WITH teams AS (DELETE FROM tournament_teams WHERE tournament_id = $1),"
        " matches AS (DELETE FROM tournament_matches WHERE tournament_id = $1),"
        " standings AS (DELETE FROM tournament_standings WHERE tournament_id = $1),"
        " calls AS (DELETE FROM tournament_calls WHERE tournament_id = $1)"
        " DELETE FROM tournament_timers WHERE tournament_id = $1", tournament_id)
    seed_of = {team_id: i + 1 for i, team_id in enumerate(state.seeds)}
    duplicate = s.format.deals == "duplicate"
    dup = duplicate_scores(state)
    over = {m for r in state.rounds if r.completed for m in r.match_ids}
    shown = published(state)
    rows = {
        "tournament_teams": [
            (tournament_id, t.team_id, t.name, list(t.players), t.rating, t.confirmed,
             t.waiting, sorted(t.checked_in), t.withdrawn, seed_of.get(t.team_id))
            for t in state.teams.values()],
        "tournament_matches": [
            (tournament_id, m.pairing.match_id, m.pairing.round_no, m.pairing.home,
             m.pairing.away, m.outcome, m.reason, list(m.scores), list(m.bags_taken),
             m.game_stream, game_of(state.tournament_id, m.pairing.match_id),
             [n for d in m.deals for n in (d.home, d.away)]
             if m.pairing.match_id in over else [],
             m.call == "started" or bool(m.game_stream),
             state.matches[m.pairing.match_id].outcome is not None)
            for m in shown.matches.values()],
        "tournament_standings": [
            (tournament_id, r.team_id, r.rank, r.match_points, r.buchholz, r.head_to_head,
             r.differential, r.bags, r.points,
             *((d.matchpoints, d.top) if (d := dup.get(r.team_id)) else
               (0, 0) if duplicate else (None, None)),
             r.reached, r.reached_round, r.eliminated)
            for r in (standings_of(shown) if state.seeds else [])],
        "tournament_timers": [(tournament_id, kind, ts(at))
                              for kind, at in due_timers(state).items()],
        "tournament_calls": [(tournament_id, match_id, ts(at))
                             for match_id, at in due_calls(state).items()],
    }
    for table, records in rows.items():
        if records:
            await conn.copy_records_to_table(table, records=records, columns=_COLUMNS[table])


_COLUMNS = {
    "tournament_teams": ["tournament_id", "team_id", "name", "players", "rating", "confirmed",
                         "waiting", "checked_in", "withdrawn", "seed"],
    "tournament_matches": ["tournament_id", "match_id", "round_no", "home", "away", "outcome",
                           "reason", "scores", "bags_taken", "game_stream", "game_id", "deals",
                           "game_began", "decided"],
    "tournament_standings": ["tournament_id", "team_id", "rank", "match_points", "buchholz",
                             "head_to_head", "differential", "bags", "points", "matchpoints",
                             "matchpoints_top", "reached", "reached_round", "eliminated"],
    "tournament_timers": ["tournament_id", "kind", "due_at"],
    "tournament_calls": ["tournament_id", "match_id", "due_at"],
}
