"""`spades migrate | resync | ratings rebuild`: the upkeep of the stores, run beside the
services or before they start.

A failure an operator can cause ends in ``CliError``: one line, exit 1. The
clients of NATS and Postgres and the event loop are imported by the commands
that connect, not here, so `spades --help` starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from services import catalog, devdata
from services.game.settings import GameSettings, game_databases
from services.platform.settings import load

if TYPE_CHECKING:
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


def resync_cmd(from_position: int, stream: str | None) -> int:
    """Publish stored events again and say what JetStream stored, not what was sent."""
    import asyncio

    settings = _game_settings()
    done = asyncio.run(_republish(settings, from_position, stream))
    print(f"republished {done.sent} event(s); JetStream stored {done.stored}; "
          "consumers skip what they already applied")
    return 0


def _game_settings() -> GameSettings:
    settings = load(catalog.manifest("game").settings, devdata.environ())
    assert isinstance(settings, GameSettings)
    return settings


async def _republish(settings: GameSettings, from_position: int, stream: str | None,
                     event_type: str | None = None) -> Republished:
    """Republish from every database the games live in (each its own positions, so
    ``from_position`` counts in each, and their events interleaved by the time they
    occurred); a single stream from whichever holds it."""
    from schemas.subjects import Names
    from services.platform import db
    from services.platform.busclient import Unavailable, reach_once
    from services.platform.eventstore.outbox import republish

    urls = game_databases(settings.database_url, settings.shard_database_urls)
    pools = [await db.create_pool(url, "game", min_size=1, max_size=1) for url in urls]
    try:
        client = await reach_once(settings.nats_url, "spades-resync")
        try:
            return await republish(pools, client,
                                   Names(settings.nats_prefix).game_event,
                                   from_position=from_position, stream=stream,
                                   event_type=event_type)
        except Unavailable as exc:
            raise CliError(f"JetStream did not take every event: {exc.reason}; run it again"
                           ) from None
        finally:
            await client.close()
    finally:
        for pool in pools:
            await pool.close()


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
