"""The ratings service's reading of finished games, on a real database."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.ratings import store
from services.ratings.service import RatingsSettings, handler


def _envelope(game: str, event: GameEnded) -> EventEnvelope:
    encoded = game_registry().encode(event)
    return EventEnvelope(stream=game, version=99, position=1, type=encoded.type,
                         schema_version=encoded.schema_version, event_id=game,
                         occurred_at_ms=0, correlation_id=None, causation_id=None,
                         body=encoded.body)


def _ended(players: tuple[str, str, str, str], rated: bool) -> GameEnded:
    return GameEnded(winner=0, reason="target", scores=(510, 300), bags=(1, 2), hands_played=9,
                     players=players, rated=rated)


async def test_only_rated_games_of_four_people_move_ratings(
        make_database: Callable[[], Awaitable[str]]) -> None:
    url = await make_database()
    pool = await create_pool(url, "ratings")
    apply = handler(RatingsSettings(database_url=url, nats_url="nats://unused"))
    try:
        async with pool.acquire() as conn, conn.transaction():
            await apply(conn, _envelope("g1", _ended(("a", "bot:basic", "c", "bot:basic"), True)))
            await apply(conn, _envelope("g2", _ended(("a", "b", "c", "d"), False)))
        assert await store.rating(pool, "a") is None
        async with pool.acquire() as conn, conn.transaction():
            await apply(conn, _envelope("g3", _ended(("a", "b", "c", "d"), True)))
        a, b = await store.rating(pool, "a"), await store.rating(pool, "b")
        assert a is not None and b is not None and a > 1500 > b
        assert await store.rating(pool, "bot:basic") is None
    finally:
        await pool.close()
