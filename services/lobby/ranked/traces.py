"""A ticket's trace (migration 0015): the ``traceparent`` of the ``queue_join`` that
put it in the queue, kept only while tracing is on, so the matchmaker's ``match
formed`` span can be parented on one ticket's join and linked to the others'."""

from __future__ import annotations

import asyncpg


async def keep(pool: asyncpg.Pool, ticket_id: str, traceparent: str | None) -> None:
    """The join's trace on its ticket (a pair's: the second join, which made it wait)."""
    if traceparent:
        await pool.execute("UPDATE queue_tickets SET trace = $2 WHERE ticket_id = $1",
                           ticket_id, traceparent)


async def of_tickets(pool: asyncpg.Pool, ticket_ids: list[str]) -> list[str | None]:
    """Each ticket's join trace, in the order given (None: none kept, or gone)."""
    rows = await pool.fetch("SELECT ticket_id, trace FROM queue_tickets"
                            " WHERE ticket_id = ANY($1)", ticket_ids)
    got = {r["ticket_id"]: r["trace"] for r in rows}
    return [got.get(t) for t in ticket_ids]
