"""Creating databases from a migrated template, for test runs and first starts.

Cloning a template is a file copy inside Postgres, much faster than running
every migration again, so each test run gets a fresh database of its own.
"""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from services.platform import migrations
from services.platform.migrations import MigrationSet

ADMIN_LOCK = 0x5BADE6


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


async def ensure_template(admin_url: str, sets: list[MigrationSet]) -> str:
    """The name of a migrated template database for exactly these migrations."""
    name = f"spades_tpl_{migrations.fingerprint(sets)}"
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", ADMIN_LOCK)
        try:
            exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
            if not exists:
                await conn.execute(f'CREATE DATABASE "{name}_tmp"')
                tpl = await asyncpg.connect(with_database(admin_url, f"{name}_tmp"))
                try:
                    await migrations.apply(tpl, sets)
                finally:
                    await tpl.close()
                # Renamed only once complete: a half-migrated template is never reused.
                await conn.execute(f'ALTER DATABASE "{name}_tmp" RENAME TO "{name}"')
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", ADMIN_LOCK)
    finally:
        await conn.close()
    return name


async def clone(admin_url: str, template: str, name: str, file_copy: bool = False) -> str:
    """``file_copy``: copy the files instead of writing the copy to the WAL, which is
    quicker for a small template where a checkpoint is cheap (a server without fsync)."""
    strategy = " STRATEGY FILE_COPY" if file_copy else ""
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", ADMIN_LOCK)
        try:
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"{strategy}')
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", ADMIN_LOCK)
    finally:
        await conn.close()
    return with_database(admin_url, name)


async def drop(admin_url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_url)
    try:
        with contextlib.suppress(asyncpg.PostgresError):
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def ensure_database(admin_url: str, name: str) -> str:
    """Create the database if missing (first `spades dev`); returns its URL."""
    conn = await asyncpg.connect(admin_url)
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            with contextlib.suppress(asyncpg.DuplicateDatabaseError):
                await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return with_database(admin_url, name)
