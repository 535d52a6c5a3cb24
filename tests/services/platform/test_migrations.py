"""Migrations: applied once even when copies start together; applied files are frozen."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
import pytest

from services.platform import migrations
from services.platform.migrations import MigrationError, MigrationSet


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (tmp_path / name).write_text(sql)
    return tmp_path


async def test_concurrent_starts_apply_each_file_once(
        tmp_path: Path, make_database: Callable[[], Awaitable[str]]) -> None:
    url = await make_database()
    schema = f"m{uuid.uuid4().hex[:8]}"
    mset = MigrationSet(schema, (("x", folder(tmp_path, {
        "0001_t.sql": "CREATE TABLE t (n int); INSERT INTO t VALUES (1);",
        "0002_u.sql": "INSERT INTO t SELECT 2 FROM pg_sleep(0.05);",
    })),))
    conns = [await asyncpg.connect(url) for _ in range(6)]
    try:
        results = await asyncio.gather(*(migrations.apply(c, [mset]) for c in conns))
        assert sorted(len(r) for r in results) == [0, 0, 0, 0, 0, 2]
        assert await conns[0].fetchval(f"SELECT array_agg(n ORDER BY n) FROM {schema}.t") == [1, 2]
    finally:
        for c in conns:
            await c.close()


async def test_an_edited_applied_migration_is_refused(
        tmp_path: Path, make_database: Callable[[], Awaitable[str]]) -> None:
    url = await make_database()
    path = folder(tmp_path, {"0001_t.sql": "CREATE TABLE t (n int);"})
    mset = MigrationSet("edited", (("x", path),))
    conn = await asyncpg.connect(url)
    try:
        await migrations.apply(conn, [mset])
        (path / "0001_t.sql").write_text("CREATE TABLE t (n bigint);")
        with pytest.raises(MigrationError, match="changed after it was applied"):
            await migrations.apply(conn, [mset])
    finally:
        await conn.close()


async def test_a_failing_migration_applies_nothing(
        tmp_path: Path, make_database: Callable[[], Awaitable[str]]) -> None:
    url = await make_database()
    mset = MigrationSet("failing", (("x", folder(tmp_path, {
        "0001_t.sql": "CREATE TABLE t (n int);",
        "0002_bad.sql": "INSERT INTO missing VALUES (1);",
    })),))
    conn = await asyncpg.connect(url)
    try:
        with pytest.raises(MigrationError, match=r"0002_bad\.sql failed"):
            await migrations.apply(conn, [mset])
        assert await conn.fetchval("SELECT to_regclass('failing.t')") is None
    finally:
        await conn.close()
