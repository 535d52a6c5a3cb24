"""The same games rate to the same numbers: a fixed season of endings, fed through the
consumer's handler, leaves exactly the rows and history recorded here. The figures were
taken from the service before its formula moved behind ``RatingSystem``; a change to how
ratings are computed, stored or counted shows up as a difference here."""

from __future__ import annotations

import hashlib
import random

import asyncpg

from services.ratings import results
from tests.services.ratings.conftest import NOW_MS, SYSTEM, ended, envelope

PLAYERS = [f"p{i}" for i in range(10)]

# player, rating, games, wins, losses, draws, left, peak after the season below
FINAL = [
    ('p0', 1544, 14, 6, 3, 5, 0, 1589),
    ('p1', 1471, 28, 8, 10, 10, 0, 1538),
    ('p2', 1557, 24, 11, 6, 7, 0, 1557),
    ('p3', 1557, 23, 11, 7, 5, 0, 1577),
    ('p4', 1477, 26, 8, 10, 8, 0, 1562),
    ('p5', 1444, 24, 6, 10, 8, 0, 1530),
    ('p6', 1582, 24, 11, 6, 7, 0, 1582),
    ('p7', 1551, 24, 12, 5, 5, 2, 1579),
    ('p8', 1412, 27, 6, 15, 6, 0, 1508),
    ('p9', 1394, 26, 6, 14, 5, 1, 1500),
]
HISTORY_SHA256 = "e606404b23289f48568155f8ca049af23c334f664cd9405088ca5b28bc4953e7"


def season() -> list[tuple[tuple[str, str, str, str], int | None, tuple[int, ...]]]:
    """60 games among ten players, with draws and leavers, from a fixed seed."""
    rng = random.Random(20261201)
    games = []
    for _ in range(60):
        seats = tuple(rng.sample(PLAYERS, 4))
        winner = rng.choice([0, 1, 0, 1, None])
        abandoned = (rng.randrange(4),) if rng.random() < 0.1 else ()
        games.append((seats, winner, abandoned))
    return games  # type: ignore[return-value]


async def test_a_season_rates_to_the_numbers_it_always_did(pool: asyncpg.Pool) -> None:
    envs = [envelope(f"g{n:02d}", ended(seats, winner, abandoned=abandoned), at_ms=NOW_MS + n)
            for n, (seats, winner, abandoned) in enumerate(season())]
    batch = results.batch_handler(SYSTEM)
    for start in range(0, len(envs), 7):  # runs of several games, as the consumer fetches
        async with pool.acquire() as conn, conn.transaction():
            await batch(conn, envs[start:start + 7])
    rows = await pool.fetch('SELECT player_id, rating, games, wins, losses, draws, "left", peak'
                            " FROM ratings ORDER BY player_id")
    history = await pool.fetch("SELECT player_id, game_stream, rating_before, rating_after,"
                               " delta, k, result FROM rating_history ORDER BY id")
    digest = hashlib.sha256(repr([tuple(r) for r in history]).encode()).hexdigest()
    assert [tuple(r) for r in rows] == FINAL
    assert len(history) == 240
    assert digest == HISTORY_SHA256
