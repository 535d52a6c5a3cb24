"""The game service: game workers (commands, clocks, bots, table talk) and the outbox.

Each copy of the service is one game worker. It owns the games it created or
adopted (see ``worker``), answers their commands on NATS (see ``transport``),
and publishes the events of each command to JetStream right after their
commit. The outbox relay, which every copy runs, is the backstop: it deletes
the rows of what was published, in bulk, and publishes what a writer left
behind (rows are claimed with ``SKIP LOCKED``, so copies share the work and a
dead copy's unpublished events go out from another).

With ``SPADES_SHARD_DATABASE_URLS`` the games are spread over several databases
by game id (``shards``): each database gets its own relay, and its pool is
closed only after the worker has handed its games over.
"""

from __future__ import annotations

import asyncpg

from services.game.clock import SystemClock
from services.game.settings import GameSettings, game_databases
from services.game.shards import Games, ShardedGameStore
from services.game.store import GameStore
from services.game.transport import GameTransport
from services.game.worker import GameWorker
from services.platform import db, migrations
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.eventstore.outbox import OutboxRelay, Publisher
from services.platform.runtime import Runtime

NAME = "game"

__all__ = ["GameSettings", "setup"]  # the registry finds both here


class _Workers:
    """The worker and its transport as one part of the runtime: stopped together, and
    only then the further databases' relays and pools, which the handover still uses."""

    def __init__(self, worker: GameWorker, transport: GameTransport,
                 shards: list[tuple[OutboxRelay, asyncpg.Pool]]) -> None:
        self.worker, self.transport, self.shards = worker, transport, shards

    async def stop(self) -> None:
        await self.transport.stop_listening()
        await self.worker.stop()
        await self.transport.finish()
        for relay, pool in self.shards:
            await relay.stop()
            await pool.close()

    @property
    def running(self) -> bool:
        return self.worker.running


async def _store(rt: Runtime, pool: asyncpg.Pool) -> tuple[GameStore, OutboxRelay]:
    """The games of one database, with the relay that backs its writers' publishes (the
    relay deletes rows by position, which only means something in its own database)."""
    assert isinstance(rt.settings, GameSettings)
    relay = OutboxRelay(pool, rt.client, rt.names.game_event, batch=rt.settings.outbox_batch,
                        poll_seconds=rt.settings.outbox_poll_seconds,
                        sweep_after=rt.settings.outbox_sweep_seconds)
    await relay.start()
    events = EventStore(pool, game_registry(),
                        publish=Publisher(rt.client, rt.names.game_event, relay))
    return GameStore(pool, events), relay


async def _shard_pool(rt: Runtime, url: str) -> asyncpg.Pool:
    settings = rt.settings
    pool = await db.create_pool(url, NAME, min_size=settings.db_pool_min,
                                max_size=settings.db_pool_max)
    if settings.migrate_on_start and rt.schema is not None:
        async with pool.acquire() as conn:
            await migrations.apply(conn, [rt.schema])
    return pool


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, GameSettings)
    own, relay = await _store(rt, rt.pool)
    rt.workers.append(relay)
    store: Games = own
    shards: list[tuple[OutboxRelay, asyncpg.Pool]] = []
    urls = game_databases(rt.settings.database_url, rt.settings.shard_database_urls)[1:]
    if urls:
        stores = [own]
        for url in urls:
            pool = await _shard_pool(rt, url)
            more, more_relay = await _store(rt, pool)
            stores.append(more)
            shards.append((more_relay, pool))
        store = ShardedGameStore(stores)
    transport = GameTransport(rt.client, rt.names, rt.settings.instance_id)
    worker = GameWorker(store, rt.settings, SystemClock(), rt.settings.instance_id, transport)
    await transport.start(worker)
    await worker.start()
    rt.workers.append(_Workers(worker, transport, shards))
    rt.endpoints.extend(transport.endpoints(worker))
