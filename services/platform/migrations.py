"""Forward-only SQL migrations into one Postgres schema per service.

Each service owns a schema and a folder of ``NNNN_name.sql`` files. They are
applied in name order, all in one transaction, under a Postgres advisory lock,
so two copies of a service starting at once apply each file exactly once and
the loser simply finds the work done. A file's checksum is recorded: editing
an applied migration is refused, since the database would no longer match the
code that describes it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the catalog names migration sets for commands that never connect
    import asyncpg

# One lock for every schema: migrations are rare and short, and one lock means
# no ordering question between services that start together.
LOCK_KEY = 0x5BADE5


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class MigrationSet:
    """The migrations of one schema, possibly gathered from several folders.

    The game service's schema holds the event store's tables (from the shared
    folder) and its own; each file is recorded as ``<label>/<file>``.
    """

    schema: str
    folders: tuple[tuple[str, Path], ...]

    def files(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for label, folder in self.folders:
            for path in sorted(folder.glob("*.sql")):
                out.append((f"{label}/{path.name}", path.read_text()))
        return out


async def apply(conn: asyncpg.Connection, sets: list[MigrationSet]) -> list[str]:
    """Apply what is missing; return the names applied now."""
    import asyncpg

    applied_now: list[str] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
        for mset in sets:
            schema = _ident(mset.schema)
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {schema}.schema_migrations ("
                " name text PRIMARY KEY, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())")
            rows = await conn.fetch(f"SELECT name, checksum FROM {schema}.schema_migrations")
            done = {r["name"]: r["checksum"] for r in rows}
            await conn.execute(f"SET LOCAL search_path TO {schema}, public")
            for name, sql in mset.files():
                checksum = hashlib.sha256(sql.encode()).hexdigest()
                if name in done:
                    if done[name] != checksum:
                        raise MigrationError(
                            f"migration {mset.schema}:{name} changed after it was applied")
                    continue
                try:
                    await conn.execute(sql)
                except asyncpg.PostgresError as exc:
                    raise MigrationError(f"migration {mset.schema}:{name} failed: {exc}") from exc
                await conn.execute(
                    f"INSERT INTO {schema}.schema_migrations (name, checksum) VALUES ($1, $2)",
                    name, checksum)
                applied_now.append(f"{mset.schema}:{name}")
    return applied_now


def fingerprint(sets: list[MigrationSet]) -> str:
    """A hash of every migration file; names a reusable migrated template database."""
    h = hashlib.sha256()
    for mset in sets:
        h.update(mset.schema.encode())
        for name, sql in mset.files():
            h.update(name.encode())
            h.update(sql.encode())
    return h.hexdigest()[:12]


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum() or not name[0].isalpha():
        raise MigrationError(f"bad schema name {name!r}")
    return name
