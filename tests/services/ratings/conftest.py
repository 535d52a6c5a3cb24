"""A fresh database per test, and rated games fed through the service's own handler."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import asyncpg
import pytest

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.subjects import Names
from services.platform import bus, connection
from services.platform.busclient import BusClient
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



@dataclass
class RatedGames:
    """A database's games and ratings, and a game events stream under names of the
    test's own, with the ratings service's consumer of its endings (``spec``)."""

    url: str
    names: Names
    games: asyncpg.Pool
    ratings: asyncpg.Pool
    client: BusClient
    spec: bus.ConsumerSpec

    async def rated(self) -> list[int]:
        rows = await self.ratings.fetch("SELECT rating FROM ratings ORDER BY player_id")
        return [r["rating"] for r in rows]


@pytest.fixture
async def rated_games(make_database: Callable[[], Awaitable[str]], nats_url: str,
                      nats_prefix: str) -> AsyncIterator[RatedGames]:
    url = await make_database()
    names = Names(f"{nats_prefix}rg{uuid.uuid4().hex[:8]}")
    nc = await connection.connect(nats_url, "test")
    client = BusClient(nc)
    # A production-sized duplicate window: a rebuild runs well inside it.
    await bus.ensure_stream(client, bus.StreamSpec(names.game_events_stream,
                                                   (names.game_events_all,), duplicate_window=600))
    spec = bus.ConsumerSpec(names.game_events_stream, "ratings-results",
                            names.game_events_of_type("GameEnded"), ack_wait=5, max_deliver=3)
    games, ratings = await create_pool(url, "game"), await create_pool(url, "ratings")
    try:
        yield RatedGames(url, names, games, ratings, client, spec)
    finally:
        await nc.close()
        await games.close()
        await ratings.close()
