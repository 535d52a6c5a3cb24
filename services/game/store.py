"""The game workers' Postgres side: games, leases on their streams, refused commands.

The event store keeps the facts and checks the fencing epoch on every append;
this module keeps what a worker needs around them. Ownership of a game is a
lease (``services/platform/lease.py``) named after the game's stream, in the
game schema beside the events: an owner renews the leases of all its games in
one statement, an adopter claims live games whose lease ran out in one
statement (bumping the epoch, which fences the previous owner's next append),
and a worker that shuts down lets its leases lapse at once so another adopts
its games without waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import msgspec

from services.platform.eventstore import AppendResult, EventStore, RecordedEvent, first_result
from services.platform.lease import Lease, Leases

# The games an adopter may claim: live ones (a finished game's lease just lapses).
LIVE_GAMES = "SELECT game_id FROM games WHERE ended_at IS NULL"


class GameExists(Exception):
    """The game id is taken by a game that another command created."""


@dataclass(frozen=True, slots=True)
class GameRow:
    game_id: str
    banter: bool
    ended: bool


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    message: str
    command_hash: str | None = None  # of the refused command's body



class GameStore:
    def __init__(self, pool: asyncpg.Pool, events: EventStore) -> None:
        self.pool = pool
        self.events = events
        self.leases = Leases(pool)

    # --- creating a game -----------------------------------------------------------

    async def create(self, game_id: str, table_id: str, banter: bool, owner: str,
                     lease_seconds: float, events: Sequence[msgspec.Struct],
                     command_id: str) -> tuple[AppendResult, int]:
        """Record the game, take its lease and append its first events, all or nothing.

        A repeated create (same command id) returns the first result; another
        command creating the same game id raises ``GameExists``, and a live lease of
        another worker on it ``LeaseHeld``.
        """
        async with self.pool.acquire() as conn, conn.transaction():
            fresh = await conn.fetchval(
                "INSERT INTO games (game_id, table_id, banter) VALUES ($1, $2, $3)"
                " ON CONFLICT DO NOTHING RETURNING true", game_id, table_id, banter)
            if not fresh:
                first = await first_result(conn, game_id, command_id)
                if first is None:
                    raise GameExists(game_id)
                return first, 0
            lease = await self.leases.claim(game_id, owner, lease_seconds, conn)
            result = await self.events.append(game_id, 0, events, command_id,
                                              epoch=lease.epoch, conn=conn)
        await self.events.committed(result)
        return result, lease.epoch

    async def game(self, game_id: str) -> GameRow | None:
        row = await self.pool.fetchrow(
            "SELECT game_id, banter, ended_at IS NOT NULL AS ended FROM games WHERE game_id = $1",
            game_id)
        return None if row is None else GameRow(row["game_id"], row["banter"], row["ended"])

    async def game_ids(self) -> list[str]:
        """Every game ever created, oldest first (for operators' verify-all)."""
        rows = await self.pool.fetch("SELECT game_id FROM games ORDER BY created_at, game_id")
        return [r["game_id"] for r in rows]

    async def mark_ended(self, game_id: str) -> None:
        await self.pool.execute(
            "UPDATE games SET ended_at = now() WHERE game_id = $1 AND ended_at IS NULL", game_id)

    # --- leases --------------------------------------------------------------------

    async def renew(self, owner: str, game_ids: Sequence[str], lease_seconds: float) -> set[str]:
        """Extend the leases this owner still holds; the games missing from the answer
        were adopted by another worker (this one was paused or cut off too long)."""
        return await self.leases.renew(owner, game_ids, lease_seconds)

    async def claim_orphans(self, owner: str, lease_seconds: float, limit: int) -> list[Lease]:
        """Take live games whose lease ran out; each claim bumps the epoch unless the
        lease was this owner's own."""
        return await self.leases.claim_lapsed(owner, lease_seconds, limit, LIVE_GAMES)

    async def release(self, owner: str, game_ids: Sequence[str]) -> None:
        """Let this owner's leases lapse now: another worker may adopt at once."""
        await self.leases.release(owner, game_ids)

    # --- the facts -----------------------------------------------------------------

    async def read(self, game_id: str, from_version: int = 1,
                   limit: int | None = None) -> list[RecordedEvent]:
        to = None if limit is None else from_version + limit - 1
        return await self.events.read(game_id, from_version, to)

    async def command_result(self, game_id: str, command_id: str) -> AppendResult | None:
        """The first result of a command this stream accepted, if it did."""
        async with self.pool.acquire() as conn:
            return await first_result(conn, game_id, command_id)

    # --- refused commands ----------------------------------------------------------

    async def refusals(self, game_id: str) -> dict[str, Refusal]:
        rows = await self.pool.fetch(
            "SELECT command_id, code, message, command_hash FROM refused_commands"
            " WHERE game_id = $1", game_id)
        return {r["command_id"]: Refusal(r["code"], r["message"], r["command_hash"])
                for r in rows}

    async def refuse(self, game_id: str, command_id: str, code: str, message: str,
                     epoch: int, command_hash: str | None = None) -> Refusal:
        """Remember a refusal; if the same command was refused before, the first stands.

        Fenced like an append: only the game's current owner decides refusals (a
        stale worker would refuse against a stale state). The lease row is held
        for share, so an adopter's claim waits for this write and then reads it.
        """
        async with self.pool.acquire() as conn, conn.transaction():
            await self.leases.check(conn, game_id, epoch)
            row = await conn.fetchrow(
                "INSERT INTO refused_commands AS r (game_id, command_id, code, message,"
                "                                   command_hash)"
                " VALUES ($1, $2, $3, $4, $5)"
                " ON CONFLICT (game_id, command_id) DO UPDATE SET code = r.code"
                " RETURNING code, message, command_hash", game_id, command_id, code, message,
                command_hash)
        return Refusal(row["code"], row["message"], row["command_hash"])
