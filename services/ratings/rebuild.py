"""The ratings rebuilt without the games fair play voided, inside the ratings service.

An upheld case voids its games (docs/fairplay.md): the ratings are then what they
would be had those games never been rated. Every other rated game is rated again, in
the order it was first rated, from the history the service keeps (a game's four rows
in seat order give its seats, and their results its winner and leavers), through
``results.rate_game``, the consumer's own formula. All of it in the caller's
transaction, with the ratings locked, so a reader sees the old ratings or the new,
and the consumer waits for the rebuild and then skips the voided games.
"""

from __future__ import annotations

from collections.abc import Sequence

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


async def rebuild_without(conn: asyncpg.Connection, system: RatingSystem,
                          games: Sequence[str], case_id: str) -> int:
    """Void ``games`` and rate every other rated game again; returns the games rated."""
    await store.void(conn, games, case_id)
    seats: dict[str, list[asyncpg.Record]] = {}
    for r in await store.rated_seats(conn):
        seats.setdefault(r["game_stream"], []).append(r)
    await store.forget_rated(conn)
    rows = await store.lock(conn, [r["player_id"] for rs in seats.values() for r in rs],
                            system.initial)
    now = {p: store.Standing.of(r) for p, r in rows.items()}
    history: list[store.Move] = []
    for game, rs in seats.items():
        players = (rs[0]["player_id"], rs[1]["player_id"], rs[2]["player_id"],
                   rs[3]["player_id"])
        results = [r["result"] for r in rs]
        abandoned = tuple(s for s, r in enumerate(results) if r == "left")
        history += rate_game(system, now, game, players, winner_of(results), abandoned,
                             rs[0]["rated_at"])
    if now:
        await store.record(conn, [now[p] for p in sorted(now)], history)
    _log.info("ratings_rebuilt_without", voided=list(games), games=len(seats), case=case_id)
    return len(seats)
