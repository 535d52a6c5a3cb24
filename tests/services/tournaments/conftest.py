"""A fresh database, migrated for the tournament service, for each store test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from services.platform.db import create_pool


@pytest.fixture
async def pool(make_database: Callable[[], Awaitable[str]]) -> AsyncIterator[asyncpg.Pool]:
    url = await make_database()
    pool = await create_pool(url, "tournaments")
    yield pool
    await pool.close()
