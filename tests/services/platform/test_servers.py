from __future__ import annotations

import asyncpg
import nats


async def test_session_has_a_real_postgres_with_the_migrated_schemas(database_url: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        schemas = {r["nspname"] for r in await conn.fetch("SELECT nspname FROM pg_namespace")}
        assert {"lobby", "game", "ratings", "tournaments", "contract"} <= schemas
        assert await conn.fetchval("SELECT current_database()") == database_url.rsplit("/", 1)[1]
    finally:
        await conn.close()


async def test_session_has_a_real_nats_with_jetstream(nats_url: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        info = await nc.jetstream().account_info()
        assert info.limits is not None
    finally:
        await nc.close()
