"""A fresh database per test, and rated games fed through the service's own handler."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.ratings import results
from services.ratings.elo import Elo, KSchedule

SCHEDULE = KSchedule(provisional=40, established=20, provisional_games=20)
SYSTEM = Elo(1500, SCHEDULE)
NOW_MS = 1_790_000_000_000  # 2026-09-21


def envelope(game: str, event: GameEnded, at_ms: int = NOW_MS, version: int = 99) -> EventEnvelope:
    encoded = game_registry().encode(event)
    return EventEnvelope(stream=game, version=version, position=1, type=encoded.type,
                         schema_version=encoded.schema_version, event_id=f"{game}:{version}",
                         occurred_at_ms=at_ms, correlation_id=None, causation_id=None,
                         body=encoded.body)


def ended(players: tuple[str, str, str, str], winner: int | None = 0, rated: bool = True,
          abandoned: tuple[int, ...] = ()) -> GameEnded:
    return GameEnded(winner=winner, reason="target", scores=(510, 300), bags=(1, 2),
                     hands_played=9, players=players, rated=rated, abandoned=abandoned)


@pytest.fixture
async def pool(make_database: Callable[[], Awaitable[str]]) -> AsyncIterator[asyncpg.Pool]:
    p = await create_pool(await make_database(), "ratings")
    yield p
    await p.close()


Feed = Callable[[EventEnvelope], Awaitable[None]]


@pytest.fixture
def feed(pool: asyncpg.Pool) -> Feed:
    """Apply one ending in its own transaction, as the consumer does (without its
    bookkeeping of what it applied)."""
    apply = results.handler(SYSTEM)

    async def run(env: EventEnvelope) -> None:
        async with pool.acquire() as conn, conn.transaction():
            await apply(conn, env)

    return run
