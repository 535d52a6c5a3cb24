"""The ratings rebuilt without the games fair play voided, inside the ratings service.

An upheld case voids its games (docs/fairplay.md): the ratings are then what they
would be had those games never been rated. Every other rated game is rated again, in
the order it was first rated, from the history the service keeps (a game's four rows
in seat order give its seats, and their results its winner and leavers), through
``results.rate_game``, the consumer's own formula.

The replay is worked out first, with nothing locked (``plan``: the history as it
stands, read in one statement), so the consumer keeps rating the games that end
meanwhile. Then, in the caller's transaction, the ratings are locked against the
consumer (it locks players' rows before reading what is voided), the games are
voided, the games rated since the plan's history was read are rated on top of it in
their order (each once: they are the history rows past the plan's last), and the
result replaces the ratings and the history (``swap_in``). Should the history have
been rewritten meanwhile (another case upheld, or a game rated before the plan's
read committed after it), the plan is worked out again there. A reader sees the old
ratings or the new; the consumer waits only for that last step, then skips the
voided games.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg

from schemas.seats import team_of
from services.platform import logs
from services.ratings import store
from services.ratings.results import rate_game
from services.ratings.system import RatingSystem

_log = logs.get("ratings")


def winner_of(results: Sequence[str]) -> int | None:
    """The winning team from the four seats' results: a seat that won says it; else the
    team of a seat that lost lost; else a draw (a leaver's result says nothing of it,
    and when all four left the formula does not read the winner)."""
    for seat, result in enumerate(results):
        if result == "win":
            return team_of(seat)
    for seat, result in enumerate(results):
        if result == "loss":
            return 1 - team_of(seat)
    return None


@dataclass
class Plan:
    """A replay worked out: every player's standing and the history rows, as of the
    history row ``upto`` (the last one read)."""

    system: RatingSystem
    voided: frozenset[str]
    upto: int = 0
    read: int = 0  # history rows read, all of them up to ``upto``
    games: int = 0
    now: dict[str, store.Standing] = field(default_factory=dict)
    history: list[store.Move] = field(default_factory=list)

    def replay(self, rows: Sequence[asyncpg.Record]) -> None:
        """Rate the games of history ``rows`` (in the order they were rated, a game's
        four rows in seat order) on top of what the plan holds, leaving out the voided."""
        seats: dict[str, list[asyncpg.Record]] = {}
        self.read += len(rows)
        for r in rows:
            self.upto = max(self.upto, r["id"])
            if r["game_stream"] not in self.voided:
                seats.setdefault(r["game_stream"], []).append(r)
        for game, rs in seats.items():
            players = (rs[0]["player_id"], rs[1]["player_id"], rs[2]["player_id"],
                       rs[3]["player_id"])
            for p in players:
                if p not in self.now:
                    i = self.system.initial
                    self.now[p] = store.Standing(p, i, 0, 0, 0, 0, 0, i, None)
            results = [r["result"] for r in rs]
            abandoned = tuple(s for s, r in enumerate(results) if r == "left")
            self.history += rate_game(self.system, self.now, game, players,
                                      winner_of(results), abandoned, rs[0]["rated_at"])
        self.games += len(seats)


async def plan(conn: asyncpg.Connection | asyncpg.Pool, system: RatingSystem,
               games: Sequence[str]) -> Plan:
    """The replay without ``games`` (and the games voided before), worked out in a
    thread from the history as one statement reads it, locking nothing."""
    out = Plan(system, frozenset(games) | await store.voided_all(conn))
    await asyncio.to_thread(out.replay, await store.rated_seats(conn))
    return out


async def swap_in(conn: asyncpg.Connection, p: Plan, games: Sequence[str],
                  case_id: str, started: float | None = None) -> int:
    """Void ``games`` and replace the ratings and the history with ``p``'s, the games
    rated since it was worked out rated on top; returns the games rated. One log line
    says what was done, and how long since ``started`` (``time.monotonic``) it took."""
    await store.void(conn, games, case_id)  # locks the ratings against the consumer
    if await store.history_rows(conn, p.upto) != p.read:
        # The history was rewritten meanwhile (another rebuild, or one voiding other
        # games): the plan stands on rows that are gone, so it is worked out again.
        _log.info("ratings_rebuild_replanned", case=case_id)
        p = Plan(p.system, frozenset(games) | await store.voided_all(conn))
    late = await store.rated_seats(conn, after=p.upto)
    p.replay(late)
    await store.forget_rated(conn)
    await store.lock(conn, list(p.now), p.system.initial)
    if p.now:
        await store.record(conn, [p.now[x] for x in sorted(p.now)], p.history)
    _log.info("ratings_rebuilt_without", voided=list(games), games=p.games, case=case_id,
              rated_meanwhile=len({r["game_stream"] for r in late}),
              seconds=None if started is None else round(time.monotonic() - started, 3))
    return p.games


async def rebuild_without(conn: asyncpg.Connection, system: RatingSystem,
                          games: Sequence[str], case_id: str) -> int:
    """Void ``games`` and rate every other rated game again, in the caller's
    transaction (the ratings locked only to swap the result in); the games rated."""
    started = time.monotonic()
    return await swap_in(conn, await plan(conn, system, games), games, case_id, started)
