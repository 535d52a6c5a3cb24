"""`spades migrate | resync | ratings rebuild`: the upkeep of the stores, run beside the
services or before they start.

A failure an operator can cause ends in ``CliError``: one line, exit 1. The
clients of NATS and Postgres and the event loop are imported by the commands
that connect, not here, so `spades --help` starts without them.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from services import catalog, devdata
from services.game.settings import GameSettings, game_databases
from services.platform.settings import load

if TYPE_CHECKING:
    from asyncpg import Pool

    from schemas.bus import EventEnvelope
    from services.platform.busclient import BusClient
    from services.platform.eventstore.outbox import Republished


class CliError(Exception):
    """One line for the operator; exit 1."""



def migrate_cmd() -> int:
    import asyncio

    url = devdata.database_url()
    applied = asyncio.run(migrate(url))
    print(f"applied {len(applied)} migration(s)" + (": " + ", ".join(applied) if applied else ""))
    return 0


async def migrate(url: str) -> list[str]:
    import asyncpg

    from services.platform import db, migrations

    try:
        conn = await asyncpg.connect(url, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        raise CliError(f"cannot reach PostgreSQL at {db._safe(url)}: {exc}") from None
    try:
        return await migrations.apply(conn, catalog.all_migrations())
    finally:
        await conn.close()


def resync_cmd(from_position: int, stream: str | None, check: bool = False) -> int:
    """Bring JetStream in line with the database: the events it holds that the database
    does not are named by game and removed (with ``check``: only named), those games'
    stored events published again, then the stored events asked for; when an ending the
    database lost was among them, the ratings are rebuilt from the games that exist."""
    import asyncio

    from schemas import subjects

    settings = _game_settings()
    ahead = asyncio.run(_bring_in_line(settings, repair=not check))
    for game, events in ahead.items():
        kinds = sorted({e.type for e in events})
        print(f"game {game}: JetStream holds {len(events)} event(s) the database does not "
              f"(versions {events[0].version}-{events[-1].version}: {', '.join(kinds)})")
    if check:
        print(f"{len(ahead)} game(s) with events on JetStream that the database does not hold"
              + ("; `spades resync` removes them" if ahead else ""))
        return 0
    if ahead:
        print(f"removed them from JetStream and published those {len(ahead)} game(s) "
              "again from the database")
    done = asyncio.run(_republish(settings, from_position, stream))
    print(f"republished {done.sent} event(s); JetStream stored {done.stored}; "
          "consumers skip what they already applied")
    if any(e.type == subjects.GAME_ENDED for events in ahead.values() for e in events):
        print("an ending the database lost may have been rated: rebuilding the ratings")
        return ratings_rebuild_cmd()
    return 0


def _game_settings() -> GameSettings:
    settings = load(catalog.manifest("game").settings, devdata.environ())
    assert isinstance(settings, GameSettings)
    return settings


@contextlib.asynccontextmanager
async def _connected(settings: GameSettings) -> AsyncIterator[tuple[list[Pool], BusClient]]:
    """A pool on every database the games live in, and a client of JetStream."""
    from services.platform import db
    from services.platform.busclient import reach_once

    urls = game_databases(settings.database_url, settings.shard_database_urls)
    pools = [await db.create_pool(url, "game", min_size=1, max_size=1) for url in urls]
    try:
        client = await reach_once(settings.nats_url, "spades-resync")
        try:
            yield pools, client
        finally:
            await client.close()
    finally:
        for pool in pools:
            await pool.close()


async def _bring_in_line(settings: GameSettings, repair: bool) -> dict[str, list[EventEnvelope]]:
    from schemas.subjects import Names
    from services.platform.eventstore import ahead
    from services.platform.eventstore.outbox import republish

    names = Names(settings.nats_prefix)
    async with _connected(settings) as (pools, client):
        found = await ahead.find(pools, client, names)
        if repair and found:
            await ahead.purge(client, names, list(found))
            for game in found:
                await republish(pools, client, names.game_event, stream=game)
    return found


async def _republish(settings: GameSettings, from_position: int, stream: str | None,
                     event_type: str | None = None) -> Republished:
    """Republish from every database the games live in (each its own positions, so
    ``from_position`` counts in each, and their events interleaved by the time they
    occurred); a single stream from whichever holds it."""
    from schemas.subjects import Names
    from services.platform.busclient import Unavailable
    from services.platform.eventstore.outbox import republish

    async with _connected(settings) as (pools, client):
        try:
            return await republish(pools, client,
                                   Names(settings.nats_prefix).game_event,
                                   from_position=from_position, stream=stream,
                                   event_type=event_type)
        except Unavailable as exc:
            raise CliError(f"JetStream did not take every event: {exc.reason}; run it again"
                           ) from None


def ratings_rebuild_cmd() -> int:
    """Forget every rating, then publish every stored ending again in order (under new
    message ids, as resync does): the running ratings service rates them anew."""
    import asyncio

    from schemas import subjects

    settings = _game_settings()
    asyncio.run(_forget_ratings(settings.database_url))
    done = asyncio.run(_republish(settings, 0, None, subjects.GAME_ENDED))
    print(f"ratings emptied; republished {done.sent} GameEnded event(s) in order, "
          f"JetStream stored {done.stored}: the ratings service rates them again")
    return 0


async def _forget_ratings(url: str) -> None:
    """Empty the ratings and the record of applied games in one transaction."""
    from schemas import subjects
    from services.platform import db
    from services.ratings import store

    ratings = await db.create_pool(url, "ratings", min_size=1, max_size=1)
    try:
        async with ratings.acquire() as conn, conn.transaction():
            await store.reset(conn, subjects.RATINGS_RESULTS)
    finally:
        await ratings.close()
