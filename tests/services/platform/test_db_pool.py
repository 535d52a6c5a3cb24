"""The services' pool sends no reset query on release, and still never hands out a
connection inside another caller's transaction."""

from __future__ import annotations

from services.platform import db


async def test_a_released_connection_is_not_reset(database_url: str) -> None:
    pool = await db.create_pool(database_url, "contract", min_size=1, max_size=1)
    try:
        async with pool.acquire() as conn:
            await conn.execute("SET application_name = 'kept'")  # session state, on purpose
        async with pool.acquire() as conn:  # the same connection: the pool holds one
            assert await conn.fetchval("SHOW application_name") == "kept"
    finally:
        await pool.close()


async def test_a_transaction_left_open_is_rolled_back_on_release(database_url: str) -> None:
    pool = await db.create_pool(database_url, "contract", min_size=1, max_size=1)
    try:
        async with pool.acquire() as conn:
            await conn.execute("BEGIN")
            await conn.execute("CREATE TABLE left_open (n int)")
        async with pool.acquire() as conn:
            assert not conn.is_in_transaction()
            assert await conn.fetchval("SELECT to_regclass('contract.left_open')") is None
    finally:
        await pool.close()
