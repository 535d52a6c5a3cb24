"""`spades tournament list | show ID | replay ID`: operators' view of tournaments.

``list`` and ``show`` read the projections; ``replay`` prints the stream as a
timeline and checks that the projections equal the stream's fold (exit 2 when
they do not, so a script can tell a stale projection from a failed command).
"""

from __future__ import annotations

import argparse
import datetime as dt
import uuid
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # the store pulls in the formats (networkx); only the commands need it
    import asyncpg

    from schemas.tournaments import api as api


class TournamentCliError(Exception):
    """One line for the operator."""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """`tournament` and its commands, under ``sub``; the caller sets its handler."""
    p = sub.add_parser("tournament", help="list tournaments, show one, or replay its stream")
    cmds = p.add_subparsers(dest="tournament_command", required=True)
    listing = cmds.add_parser("list", help="tournaments, soonest start first")
    listing.add_argument("--status", choices=("registering", "running", "finished",
                                              "cancelled"))
    cmds.add_parser("show", help="one tournament: teams, matches, standings").add_argument("id")
    cmds.add_parser("replay", help="the stream as a timeline; projections checked").add_argument(
        "id")
    return p


def run(args: argparse.Namespace, database_url: str) -> int:
    """``database_url`` comes from the composing CLI, which finds it as every command does:
    ``DATABASE_URL``, else the database of the `spades dev` running beside it."""
    import asyncio  # not at the top: `spades --help` builds this parser and needs no event loop

    return asyncio.run(_run(database_url, args))


async def _run(url: str, args: argparse.Namespace) -> int:
    from services.platform.db import create_pool
    from services.tournaments.reads import summaries, view

    pool = await create_pool(url, "tournaments")
    try:
        if args.tournament_command == "list":
            for t in await summaries(pool, args.status, 500):
                print(f"{t.tournament_id}  {t.status:11s}  {t.format:18s}  {_when(t.starts_at)}"
                      f"  {t.name}")
            return 0
        tid = _id(args.id)
        if args.tournament_command == "show":
            found = await view(pool, tid)
            if found is None:
                raise TournamentCliError(f"no tournament {args.id}")
            print(show(found))
            return 0
        return await _replay(pool, tid)
    finally:
        await pool.close()


def _id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise TournamentCliError(f"{raw!r} is not a tournament id (a UUID)") from None


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def show(t: api.TournamentView) -> str:
    s = t.summary
    lines = [f"{s.name} ({s.format}, {s.status}), starts {_when(s.starts_at)} UTC,"
             f" organizer {s.organizer}" + (f", champion {s.champion}" if s.champion else ""),
             "", "teams:"]
    lines += [f"  {'-' if team.seed is None else team.seed:>4}  {team.team_id}  {team.name}"
              f"  {' & '.join(team.players)}" + (f"  ({team.withdrawn})" if team.withdrawn else
                                                  "" if team.confirmed else "  (unconfirmed)")
              for team in t.teams]
    if t.matches:
        lines += ["", "matches:"]
        lines += [f"  {m.match_id:8s} {m.round_name + ': ' if m.round_name else ''}"
                  f"{m.home} v {m.away}: "
                  + (f"{m.outcome} {m.scores[0]}-{m.scores[1]} ({m.reason})" if m.outcome
                     else "to play") for m in t.matches]
    if t.standings:
        # The columns that decide this format, in order (every tie-break for a tournament
        # projected before they were recorded).
        columns = t.standings_columns or list(_EVERY_COLUMN)
        lines += ["", "standings:  rank team  " + ", ".join(_HEADS.get(c, c) for c in columns)]
        lines += [f"  {r.rank:4d} {r.team_id}  " + ", ".join(_cell(r, c) for c in columns)
                  for r in t.standings]
    return "\n".join(lines)


_EVERY_COLUMN = ("match_points", "buchholz", "head_to_head", "differential", "bags", "points")
_HEADS = {"match_points": "points", "head_to_head": "h2h", "differential": "diff",
          "points": "scored", "eliminated": "out"}


def _cell(r: api.StandingView, column: str) -> str:
    if column == "reached":
        return r.reached_round or "-"
    if column == "eliminated":
        return "out" if r.eliminated else "in"
    value = getattr(r, column)
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


async def _replay(pool: asyncpg.Pool, tid: uuid.UUID) -> int:
    from services.platform.eventstore import EventStore
    from services.tournaments.reads import stale_projections
    from services.tournaments.state import Tournament
    from services.tournaments.store import registry, stream_of

    events = await EventStore(pool, registry()).read(stream_of(str(tid)))
    if not events:
        raise TournamentCliError(f"no tournament {tid} in the event store")
    state = Tournament()
    for recorded in events:
        state.apply(recorded.event)  # type: ignore[arg-type]
        fields = {k: v for k, v in msgspec.structs.asdict(recorded.event).items() if k != "at"}
        text = msgspec.json.encode(fields).decode()
        print(f"{recorded.version:5d}  {recorded.occurred_at:%Y-%m-%d %H:%M:%S}  "
              f"{recorded.type:18s} {text[:120]}{'...' if len(text) > 120 else ''}")
    stale = await stale_projections(pool, tid, state)
    if stale:
        print(f"projections differ from the stream's fold: {', '.join(stale)}")
        return 2
    print(f"{len(events)} event(s); projections equal the stream's fold")
    return 0
