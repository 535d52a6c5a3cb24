"""Reading stored games for operators' tools (replay, exports, verify-all).

The game service owns the event store; operators' commands read it through
this module, with the same registry (and upcasters) the workers decode with.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from schemas import events as ev
from services.game.store import GameStore
from services.platform.db import create_pool
from services.platform.events import game_registry
from services.platform.eventstore import EventStore


async def read_game(database_url: str, game_id: str) -> list[ev.Event]:
    pool = await create_pool(database_url, "game", max_size=2)
    try:
        store = GameStore(pool, EventStore(pool, game_registry()))
        return [r.event for r in await store.read(game_id)]  # type: ignore[misc]
    finally:
        await pool.close()


async def every_game(database_url: str) -> AsyncIterator[tuple[str, list[ev.Event]]]:
    """Every stored game in creation order, one log at a time."""
    pool = await create_pool(database_url, "game", max_size=2)
    try:
        store = GameStore(pool, EventStore(pool, game_registry()))
        for game_id in await store.game_ids():
            yield game_id, [r.event for r in await store.read(game_id)]  # type: ignore[misc]
    finally:
        await pool.close()
