"""A tournament's projections, written from its folded state after every append: the
teams, the matches (a duplicate round's results only once the round is over), the
standings, and the timers and calls the scheduler takes up when due; and the folds
kept in memory with the rows they last wrote, so that an append writes only the rows
that changed.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import msgspec

from schemas import subjects
from schemas.tournaments import events as ev
from services.platform.eventstore import AppendResult, EventStore
from services.tournaments.calls import game_of
from services.tournaments.decide import standings_of
from services.tournaments.duplicate import duplicate_scores, published
from services.tournaments.guards import format_of
from services.tournaments.metrics import FOLDS, ROWS
from services.tournaments.state import MatchState, Tournament
from services.tournaments.timers import due_timers


def stream_of(tournament_id: str) -> str:
    return f"{subjects.TOURNAMENT_STREAM_PREFIX}{tournament_id}"


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
    return {match_id: due for match_id, m in state.matches.items()
            if (due := due_call(state, m)) is not None}


def due_call(state: Tournament, m: MatchState) -> int | None:
    """When to ask about one match (``due_calls``), or None."""
    if state.status != "running" or m.outcome is not None:
        return None
    if m.call == "ready_check":
        return m.ready_by + RECHECK_MS
    return m.started_at + GAME_CHECK_MS if m.call == "started" else m.paired_at


Rows = dict[str, dict[str, tuple[object, ...]]]
"""A tournament's projection rows: table -> the row's key within the tournament -> row."""


async def project(conn: asyncpg.Connection, tournament_id: uuid.UUID, state: Tournament,
                  before: Rows | None = None, events: Sequence[ev.Event] = ()) -> Rows:
    """Write the tournament's rows (tournament, teams, matches, standings, timers) from
    its fold, inside the caller's transaction; the rows now written. With ``before`` (the
    rows this copy wrote last, still what the tables hold) only the rows that differ from
    it are written: a result changes one match and some standings, not a 1,024-team
    tournament's 5,000 rows. Without it every row is rewritten. A call's due time moved
    on by the scheduler (``due_again``) is left as it is until its match changes.
    ``events``, the append's, spare computing the rows they cannot change
    (``rows_after``)."""
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
    rows, touched = rows_after(tournament_id, state, before, events)
    if before is None:
        # One statement clears the five tables (data-modifying CTEs), then a COPY each.
        await conn.execute(
            "WITH teams AS (DELETE FROM tournament_teams WHERE tournament_id = $1),"
            " matches AS (DELETE FROM tournament_matches WHERE tournament_id = $1),"
            " standings AS (DELETE FROM tournament_standings WHERE tournament_id = $1),"
            " calls AS (DELETE FROM tournament_calls WHERE tournament_id = $1)"
            " DELETE FROM tournament_timers WHERE tournament_id = $1", tournament_id)
    for table, keyed in rows.items():
        old = before.get(table, {}) if before is not None else {}
        if keyed is old:  # taken whole from ``before``: nothing in it changed
            continue
        keys = touched.get(table)
        if keys is None:  # any row may have changed
            keys = set(keyed) | set(old)
        changed = [k for k in keys if k in keyed and old.get(k) != keyed[k]]
        stale = [k for k in keys if k in old and (k not in keyed or old[k] != keyed[k])]
        ROWS.labels(table, "compared").inc(len(keys))
        if stale:
            await conn.execute(f"DELETE FROM {table} WHERE tournament_id = $1"
                               f" AND {_COLUMNS[table][1]} = ANY($2::text[])",
                               tournament_id, stale)
        if changed:
            await conn.copy_records_to_table(table, records=[keyed[k] for k in changed],
                                             columns=_COLUMNS[table])
            ROWS.labels(table, "written").inc(len(changed))
    return rows


Touched = dict[str, set[str]]
"""Table -> the keys of the only rows an append may have changed in it (a table not
named: any of its rows)."""

# What an append of results and pairings alone adds: results, and matches paired (a
# bracket's as their teams become known, a round's).
_PLAYED = (ev.MatchResult, ev.MatchesPaired, ev.RoundPaired)


def rows_after(tournament_id: uuid.UUID, state: Tournament, before: Rows | None,
               events: Sequence[ev.Event]) -> tuple[Rows, Touched]:
    """The rows after an append of ``events`` to a tournament whose rows were ``before``,
    and the rows it may have changed. An append that only records calls (a round's
    tables opening: ``MatchCalled`` of matches still unplayed) changes those matches'
    rows and calls and maybe a timer, and nothing the standings or teams show; one that
    only records results and pairs matches (no round completed, no team withdrawn, no
    end, not a duplicate tournament, whose results stay hidden: a bracket's result and
    the match it fills, or a round paired) changes those matches' rows and calls, the
    standings and maybe a timer. The rest is taken from ``before`` (the very tables,
    which ``project`` then skips) instead of being computed again for every call and
    every fetch of results a round makes."""
    s = state.settings
    assert s is not None
    if before is None or not events:
        return rows_of(tournament_id, state), {}
    called = {e.match_id for e in events if isinstance(e, ev.MatchCalled)}
    if len(called) == len(events) and all(state.matches[i].outcome is None for i in called):
        rows, touched = _changed_matches(tournament_id, state, before, called)
    elif s.format.deals != "duplicate" and all(isinstance(e, _PLAYED) for e in events):
        changed = {e.match_id for e in events if isinstance(e, ev.MatchResult)} | {
            p.match_id for e in events if isinstance(e, ev.MatchesPaired | ev.RoundPaired)
            for p in e.pairings}
        rows, touched = _changed_matches(tournament_id, state, before, changed)
        rows["tournament_standings"] = _standings_rows(tournament_id, state, state)
    else:
        return rows_of(tournament_id, state), {}
    rows["tournament_timers"] = {kind: (tournament_id, kind, ts(at))
                                 for kind, at in due_timers(state).items()}
    return rows, touched


def _changed_matches(tournament_id: uuid.UUID, state: Tournament, before: Rows,
                     match_ids: set[str]) -> tuple[Rows, Touched]:
    """``before`` with the rows and calls of ``match_ids`` as ``state`` has them now (their
    rounds still running: no deals shown); the other tables are ``before``'s own."""
    rows = dict(before)
    matches, calls = dict(before["tournament_matches"]), dict(before["tournament_calls"])
    for match_id in match_ids:
        m = state.matches[match_id]
        matches[match_id] = _match_row(tournament_id, state, m, set())
        calls.pop(match_id, None)
        if (due := due_call(state, m)) is not None:
            calls[match_id] = (tournament_id, match_id, ts(due))
    rows["tournament_matches"], rows["tournament_calls"] = matches, calls
    return rows, {"tournament_matches": match_ids, "tournament_calls": match_ids}


def _match_row(tournament_id: uuid.UUID, state: Tournament, m: MatchState,
               over: set[str]) -> tuple[object, ...]:
    """A match's row as shown (``m`` from ``published``); its deals once its round is
    ``over``."""
    match_id = m.pairing.match_id
    return (tournament_id, match_id, m.pairing.round_no, m.pairing.home, m.pairing.away,
            m.outcome, m.reason, list(m.scores), list(m.bags_taken), m.game_stream,
            _game_id(state.tournament_id, match_id),
            [n for d in m.deals for n in (d.home, d.away)] if match_id in over else [],
            m.call == "started" or bool(m.game_stream),
            state.matches[match_id].outcome is not None)


@functools.lru_cache(maxsize=1 << 16)
def _game_id(tournament_id: str, match_id: str) -> str:
    """``calls.game_of``, remembered: a UUID5 for each of a big tournament's matches at
    every projection was a sixth of the service's time."""
    return game_of(tournament_id, match_id)


def rows_of(tournament_id: uuid.UUID, state: Tournament) -> Rows:
    """Every projection row of the tournament, by table and key. Matches and standings
    show what anyone may see (``duplicate.published``: no result of a duplicate round
    still being played)."""
    s = state.settings
    assert s is not None
    seed_of = {team_id: i + 1 for i, team_id in enumerate(state.seeds)}
    over = {m for r in state.rounds if r.completed for m in r.match_ids}
    shown = published(state)
    return {
        "tournament_teams": {t.team_id: (
            tournament_id, t.team_id, t.name, list(t.players), t.rating, t.confirmed,
            t.waiting, sorted(t.checked_in), t.withdrawn, seed_of.get(t.team_id))
            for t in state.teams.values()},
        "tournament_matches": {m.pairing.match_id: _match_row(tournament_id, state, m, over)
                               for m in shown.matches.values()},
        "tournament_standings": _standings_rows(tournament_id, state, shown),
        "tournament_timers": {kind: (tournament_id, kind, ts(at))
                              for kind, at in due_timers(state).items()},
        "tournament_calls": {match_id: (tournament_id, match_id, ts(at))
                             for match_id, at in due_calls(state).items()},
    }


def _standings_rows(tournament_id: uuid.UUID, state: Tournament,
                    shown: Tournament) -> dict[str, tuple[object, ...]]:
    """The standings' rows, of ``shown`` (``published``: what anyone may see)."""
    s = state.settings
    assert s is not None
    duplicate = s.format.deals == "duplicate"
    dup = duplicate_scores(state)
    return {r.team_id: (
        tournament_id, r.team_id, r.rank, r.match_points, r.buchholz, r.head_to_head,
        r.differential, r.bags, r.points,
        *((d.matchpoints, d.top) if (d := dup.get(r.team_id)) else
          (0, 0) if duplicate else (None, None)),
        r.reached, r.reached_round, r.eliminated)
        for r in (standings_of(shown) if state.seeds else [])}


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


@dataclass(slots=True)
class _Kept:
    state: Tournament
    version: int  # the fold's version when kept: one that moved on since is not trusted
    first: int  # the version of the last append's first event
    position: int  # and that event's position: gone if its transaction rolled back
    rows: Rows | None  # what the projection holds, written with that append


class Folds:
    """Each tournament's fold as this copy last wrote it, and the projection rows it
    wrote. Used only under the tournament's lock, inside the writer's transaction.

    A kept fold is trusted only while the append that made it is still in the stream at
    the version and position it had (a rolled-back transaction's events are not: then
    the stream is folded again) and the fold did not move on without a kept append (a
    command refused half-way). Events another copy appended since are applied on top,
    and its rows, unknown here, are then all written again."""

    KEEP = 256  # tournaments: the least recently written are dropped first

    def __init__(self, events: EventStore) -> None:
        self.events = events
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    async def load(self, conn: asyncpg.Connection,
                   tournament_id: str) -> tuple[Tournament, Rows | None]:
        """The tournament's fold, and the rows its projection holds when known."""
        stream = stream_of(tournament_id)
        kept = self._kept.get(tournament_id)
        if kept is not None and kept.state.version == kept.version:
            recorded = await self.events.read(stream, kept.first, conn=conn)
            if recorded and recorded[0].position == kept.position:
                newer = [r for r in recorded if r.version > kept.version]
                for r in newer:
                    kept.state.apply(r.event)  # type: ignore[arg-type]
                if newer:
                    kept.version, kept.rows = kept.state.version, None
                FOLDS.labels("caught_up" if newer else "kept").inc()
                return kept.state, kept.rows
        FOLDS.labels("folded").inc()
        self._kept.pop(tournament_id, None)
        state = Tournament()
        for recorded_event in await self.events.read(stream, conn=conn):
            state.apply(recorded_event.event)  # type: ignore[arg-type]
        return state, None

    def keep(self, tournament_id: str, state: Tournament, result: AppendResult,
             rows: Rows) -> None:
        """``state`` after ``result``'s append, whose transaction wrote ``rows``."""
        if result.duplicate or result.first_position is None:
            return
        self._kept[tournament_id] = _Kept(state, state.version, result.first_version,
                                          result.first_position, rows)
        self._kept.move_to_end(tournament_id)
        while len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)

    def forget_rows(self, tournament_id: str) -> None:
        """The projection was changed behind the kept rows: write all of it next time."""
        if (kept := self._kept.get(tournament_id)) is not None:
            kept.rows = None


async def due_again(conn: asyncpg.Connection, tournament_id: str, match_ids: list[str],
                     at_ms: int) -> None:
    """Calls answered "not yet": asked again at ``at_ms``."""
    await conn.execute("UPDATE tournament_calls SET due_at = $3 WHERE tournament_id = $1"
                       " AND match_id = ANY($2::text[])", uuid.UUID(tournament_id),
                       match_ids, ts(at_ms))


async def due_as_projected(conn: asyncpg.Connection, tournament_id: str, state: Tournament,
                            match_ids: list[str]) -> None:
    """Calls answered: due when the fold says (their claim let go), whether or not the
    answer changed the match (a ready check still running is asked again after it)."""
    due = [(i, d) for i in match_ids if (d := due_call(state, state.matches[i])) is not None]
    await conn.execute(
        "UPDATE tournament_calls c SET due_at = d.due FROM unnest($2::text[],"
        " $3::timestamptz[]) AS d(match_id, due) WHERE c.tournament_id = $1"
        " AND c.match_id = d.match_id", uuid.UUID(tournament_id),
        [i for i, _ in due], [ts(d) for _, d in due])


async def matches_of_games(conn: asyncpg.Connection,
                           game_ids: list[str]) -> dict[str, tuple[str, str]]:
    """(tournament id, match id) of each of these games that is a tournament match's."""
    rows = await conn.fetch("SELECT game_id, tournament_id, match_id FROM tournament_matches"
                            " WHERE game_id = ANY($1::text[]) AND game_id <> ''", game_ids)
    return {r["game_id"]: (str(r["tournament_id"]), r["match_id"]) for r in rows}
