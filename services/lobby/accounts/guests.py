"""The periodic purge of idle guest accounts.

A guest has no password: its only way in is the token it got at sign-in, so once
that token has expired (``token_ttl_seconds`` after the guest was created) the
account can never act again. Left alone, every guest sign-up would stay a row
forever; this task deletes such guests, except those still seated at a table that
is open or playing (their seat names them). Games they played keep their ids.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg

from services.lobby.accounts import store
from services.platform.periodic import Periodic

# Who sits at a table that is open or playing: the tables room answers (it owns them),
# on the purge's own connection.
Seated = Callable[[asyncpg.Connection], Awaitable[list[str]]]


async def purge(pool: store.Pool, older_than_seconds: float, seated: Seated) -> int:
    """Delete guests created more than ``older_than_seconds`` ago and seated nowhere live;
    returns how many went. An expired guest cannot sit down meanwhile: its token is
    what it would sit down with."""
    async with pool.acquire() as conn, conn.transaction():
        return await store.delete_guests(conn, older_than_seconds, await seated(conn))


class GuestPurge(Periodic):
    """Runs ``purge`` every ``every_seconds``, on every lobby copy (the delete is
    idempotent, so copies need not agree on who does it)."""

    def __init__(self, pool: store.Pool, older_than_seconds: float, every_seconds: float,
                 seated: Seated) -> None:
        super().__init__("guest_purge", every_seconds,
                         lambda: purge(pool, older_than_seconds, seated))


__all__ = ["GuestPurge", "purge"]
