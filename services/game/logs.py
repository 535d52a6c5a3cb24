"""Reading stored games for operators' tools (replay, exports, verify-all).

The game service owns the event store; operators' commands read it through
this module, with the same registry (and upcasters) the workers decode with.
When the games are spread over several databases (``SPADES_SHARD_DATABASE_URLS``)
the tools are given every one: a game is read from the database that holds its
rows (whatever the order or the count named now), and verify-all walks them all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from schemas import events as ev
from services.game.store import GameStore
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.shards import ShardedEventStore


async def read_game(database_urls: Sequence[str], game_id: str) -> list[ev.Event]:
    pools = [await create_pool(url, "game", max_size=2) for url in database_urls]
    try:
        stores = [GameStore(p, EventStore(p, game_registry())) for p in pools]
        home = await ShardedEventStore([s.events for s in stores]).homes.of(game_id)
        return [r.event for r in await stores[home].read(game_id)]  # type: ignore[misc]
    finally:
        for pool in pools:
            await pool.close()


async def every_game(database_urls: Sequence[str]
                     ) -> AsyncIterator[tuple[str, list[ev.Event]]]:
    """Every stored game, database by database, each in creation order, one log at a
    time."""
    for url in database_urls:
        pool = await create_pool(url, "game", max_size=2)
        try:
            store = GameStore(pool, EventStore(pool, game_registry()))
            for game_id in await store.game_ids():
                yield game_id, [r.event for r in await store.read(game_id)]  # type: ignore[misc]
        finally:
            await pool.close()
