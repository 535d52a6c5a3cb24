"""What every room's store shares: the pool type, ``NotFound``, and the id check that
keeps a malformed id out of SQL. Each room's own ``store.py`` is the only module of the
room that touches asyncpg, and writes only the tables that room owns."""

from __future__ import annotations

import uuid

import asyncpg

Pool = asyncpg.Pool


class NotFound(Exception):
    pass


def as_uuid(value: str) -> uuid.UUID | None:
    """``value`` as a UUID, or None when it is not one (never reaches SQL then)."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
