"""Leases with a fencing epoch: one writer at a time for a name (docs/architecture.md,
rule 13).

A game's stream and the ranked matchmaker each need a single writer that can
die or stall without stopping the platform. Whoever claims a name holds it for a
few seconds and renews it; when the holder stops renewing, another may claim
it, and that claim bumps the name's *epoch*. Every
write the holder makes names its epoch and is checked in the same transaction
(``check``, or ``lease_check`` in SQL, which the event store's append calls),
so a holder that was only paused (SIGSTOP, a long GC, a cut network) finds its
next write refused with ``FencedError`` instead of overwriting the adopter's
work. A lease's expiry alone is not enough for that: a paused process cannot
notice that its time ran out.

The rows live in the ``leases`` table of the schema of the service that uses
them (``sql/lease``); the clock is the database's, so holders on different
machines never compare their own clocks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import asyncpg

from services.platform import sql

SQL = sql.LEASE
FENCED_SQLSTATE = "SPF01"


class LeaseError(Exception):
    pass


class LeaseHeld(LeaseError):
    """Another holder's lease on the name is still running."""


class FencedError(LeaseError):
    """The writer's epoch is stale: another holder claimed the name since."""


@dataclass(frozen=True, slots=True)
class Lease:
    name: str
    holder: str
    epoch: int


@contextlib.contextmanager
def fencing() -> Iterator[None]:
    """Turn the database's refusal of a stale epoch into ``FencedError``."""
    try:
        yield
    except asyncpg.PostgresError as exc:
        if getattr(exc, "sqlstate", None) == FENCED_SQLSTATE:
            raise FencedError(str(exc)) from None
        raise


# A holder's leases among some names, locked in the order of their names: a group
# commit share-locks the leases it checks in that order too, so a heartbeat and a
# batch of the same holder never wait on each other in a cycle.
_IN_ORDER = ("SELECT name FROM leases WHERE holder = $1 AND name = ANY($2::text[])"
             " ORDER BY name FOR UPDATE")


class Leases:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def claim(self, name: str, holder: str, seconds: float,
                    conn: asyncpg.Connection | None = None) -> Lease:
        """Take the name, or renew it if this holder has it; ``LeaseHeld`` if another
        holder's lease still runs. A claim from another holder bumps the epoch.
        With ``conn`` the claim joins the caller's open transaction."""
        row = await (conn or self.pool).fetchrow(
            "INSERT INTO leases AS l (name, holder, epoch, until)"
            " VALUES ($1, $2, 1, now() + make_interval(secs => $3))"
            " ON CONFLICT (name) DO UPDATE SET"
            "   epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END,"
            "   holder = EXCLUDED.holder, until = EXCLUDED.until"
            " WHERE l.holder = EXCLUDED.holder OR l.until < now()"
            " RETURNING epoch", name, holder, seconds)
        if row is None:
            raise LeaseHeld(f"{name} is leased by another holder")
        return Lease(name, holder, int(row["epoch"]))

    async def renew(self, holder: str, names: Sequence[str], seconds: float) -> set[str]:
        """Extend the leases this holder still has, in one statement; a name missing
        from the answer was claimed by another holder (this one stalled too long)."""
        if not names:
            return set()
        rows = await self.pool.fetch(
            f"WITH mine AS ({_IN_ORDER}) UPDATE leases l"
            " SET until = now() + make_interval(secs => $3)"
            " FROM mine WHERE l.name = mine.name RETURNING l.name",
            holder, list(names), seconds)
        return {r["name"] for r in rows}

    async def claim_lapsed(self, holder: str, seconds: float, limit: int,
                           candidates: str) -> list[Lease]:
        """Claim up to ``limit`` names whose lease ran out, among those the query
        ``candidates`` selects (one text column; SQL written by the caller's code, never
        from input). ``SKIP LOCKED`` lets several claimers share the work."""
        rows = await self.pool.fetch(
            "WITH lapsed AS ("
            "  SELECT l.name FROM leases l"
            f" WHERE l.until < now() AND l.name IN ({candidates})"
            "  ORDER BY l.until LIMIT $3 FOR UPDATE OF l SKIP LOCKED)"
            " UPDATE leases l SET"
            "   epoch = CASE WHEN l.holder = $1 THEN l.epoch ELSE l.epoch + 1 END,"
            "   holder = $1, until = now() + make_interval(secs => $2)"
            " FROM lapsed WHERE l.name = lapsed.name RETURNING l.name, l.epoch",
            holder, seconds, limit)
        return [Lease(r["name"], holder, int(r["epoch"])) for r in rows]

    async def release(self, holder: str, names: Sequence[str]) -> None:
        """Let this holder's leases lapse now, so another may claim them at once.
        The epoch stays: the next claimer from elsewhere still bumps it."""
        if names:
            await self.pool.execute(
                f"WITH mine AS ({_IN_ORDER}) UPDATE leases l"
                " SET until = now() - interval '1 millisecond'"
                " FROM mine WHERE l.name = mine.name", holder, list(names))

    @staticmethod
    async def check(conn: asyncpg.Connection, name: str, epoch: int) -> None:
        """Inside a write's transaction: ``FencedError`` unless ``epoch`` is current.
        The lease row stays share-locked until the transaction ends."""
        with fencing():
            await conn.execute("SELECT lease_check($1, $2)", name, epoch)
