"""The periodic purge of idle guest accounts.

A guest has no password: its only way in is the token it got at sign-in, so once
that token has expired (``token_ttl_seconds`` after the guest was created) the
account can never act again. Left alone, every guest sign-up would stay a row
forever; this task deletes such guests, except those still seated at a table that
is open or playing (their seat names them). Games they played keep their ids.
"""

from __future__ import annotations

from services.lobby.accounts import store
from services.platform.periodic import Periodic


async def purge(pool: store.Pool, older_than_seconds: float) -> int:
    """Delete guests created more than ``older_than_seconds`` ago and seated nowhere live;
    returns how many went."""
    status = await pool.execute(
        "DELETE FROM accounts a WHERE a.password_hash IS NULL"
        " AND a.created_at < now() - make_interval(secs => $1)"
        " AND NOT EXISTS (SELECT 1 FROM game_tables t, jsonb_array_elements(t.seats) s"
        "                 WHERE t.state <> 'over' AND s->>'player_id' = a.player_id::text)",
        older_than_seconds)
    return int(status.rsplit(" ", 1)[-1])


class GuestPurge(Periodic):
    """Runs ``purge`` every ``every_seconds``, on every lobby copy (the delete is
    idempotent, so copies need not agree on who does it)."""

    def __init__(self, pool: store.Pool, older_than_seconds: float,
                 every_seconds: float) -> None:
        super().__init__("guest_purge", every_seconds, lambda: purge(pool, older_than_seconds))


__all__ = ["GuestPurge", "purge"]
