"""The event store on PostgreSQL: append with optimistic concurrency, read, global feed.

An append is one transaction (one function call in the database, see
``sql/eventstore``): it locks the stream, returns the first result again for a
repeated command id, checks the writer's fencing epoch and the expected
version, inserts the events and queues them in the outbox. Either all of it
happens or none. The epoch is a lease's (``lease.py``), named after the stream.

The global feed orders events by (writing transaction id, position) and only
returns events whose transaction id is below the oldest transaction still
running. Positions come from a sequence and are handed out before commit, so a
transaction that commits late would put an event *behind* a reader that
follows positions alone; transaction ids below the snapshot's xmin can no longer
commit, so nothing ever lands behind this feed's checkpoint.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import msgspec

from schemas.bus import EventEnvelope
from services.platform import faults, sql
from services.platform.events import EventRegistry
from services.platform.lease import FencedError, fencing

OUTBOX_CHANNEL = "spades_outbox"
SQL = sql.EVENTSTORE
MIGRATIONS = sql.EVENTSTORE_MIGRATIONS


class StoreError(Exception):
    pass


class ConcurrencyError(StoreError):
    """The stream moved on since the writer read it; nothing was written."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream} is at version {actual}, expected {expected}")
        self.stream, self.expected, self.actual = stream, expected, actual


@dataclass(frozen=True, slots=True)
class AppendResult:
    first_version: int
    last_version: int
    first_position: int | None
    duplicate: bool
    command_hash: str | None = None  # of the command that first used the command id
    # What a fresh append wrote, as published to JetStream (only with a publisher).
    envelopes: tuple[EventEnvelope, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Append:
    """One stream's append in a group commit (``EventStore.append_many``)."""

    stream: str
    expected_version: int | None
    events: Sequence[msgspec.Struct]
    command_id: str | None = None
    epoch: int | None = None
    correlation_id: str | None = None
    causation_id: str | None = None
    command_hash: str | None = None


@dataclass(frozen=True, slots=True)
class FeedPosition:
    """Checkpoint of the global feed: the last (transaction id, position) read."""

    tx_id: int = 0
    position: int = 0


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    position: int
    stream: str
    version: int
    type: str
    schema_version: int
    event_id: uuid.UUID
    occurred_at: dt.datetime
    correlation_id: str | None
    causation_id: str | None
    command_id: str | None
    body: bytes
    event: msgspec.Struct
    tx_id: int = 0


_COLUMNS = ("position, stream, version, type, schema_version, event_id, occurred_at, "
            "correlation_id, causation_id, command_id, body")
_STREAM = (f"SELECT {_COLUMNS} FROM events WHERE stream = $1 AND version >= $2"
           " AND ($3::bigint IS NULL OR version <= $3) ORDER BY version")


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


Publish = Callable[[Sequence[EventEnvelope]], Awaitable[None]]


def envelope(r: Mapping[str, Any]) -> EventEnvelope:
    """A stored event's row as it is published to JetStream, its body left encoded."""
    return EventEnvelope(
        stream=r["stream"], version=r["version"], position=r["position"], type=r["type"],
        schema_version=r["schema_version"], event_id=str(r["event_id"]),
        occurred_at_ms=int(r["occurred_at"].timestamp() * 1000),
        correlation_id=r["correlation_id"], causation_id=r["causation_id"], body=r["body"])


async def first_result(conn: asyncpg.Connection, stream: str,
                       command_id: str) -> AppendResult | None:
    """What the stream's first append under ``command_id`` wrote, if one did: the
    answer a repeated command gets (the store's ``commands`` table is read only here)."""
    row = await conn.fetchrow(
        "SELECT first_version, last_version, first_position, command_hash FROM commands"
        " WHERE stream = $1 AND command_id = $2", stream, command_id)
    if row is None:
        return None
    return AppendResult(row["first_version"], row["last_version"], row["first_position"],
                        True, row["command_hash"])


def _envelopes(stream: str, row: asyncpg.Record, encoded: Sequence[tuple[str, int, bytes]],
               event_ids: Sequence[uuid.UUID], at: dt.datetime, correlation_id: str | None,
               causation_id: str | None) -> tuple[EventEnvelope, ...]:
    """What an append just wrote, as published to JetStream: nothing is read back."""
    at_ms = int(at.timestamp() * 1000)
    return tuple(
        EventEnvelope(stream=stream, version=row["first_version"] + i, position=position,
                      type=kind, schema_version=schema, event_id=str(event_id),
                      occurred_at_ms=at_ms, correlation_id=correlation_id,
                      causation_id=causation_id, body=body)
        for i, (position, (kind, schema, body), event_id) in enumerate(zip(
            row["positions"], encoded, event_ids, strict=True)))


class StreamReads:
    """Reading what the store holds: a stream's events (decoded, or as published) and
    the global feed in commit order. The store's writes are ``EventStore``'s."""

    def __init__(self, pool: asyncpg.Pool, registry: EventRegistry) -> None:
        self.pool, self.registry = pool, registry

    async def version(self, stream: str) -> int:
        value = await self.pool.fetchval("SELECT max(version) FROM events WHERE stream = $1",
                                         stream)
        return int(value or 0)

    async def read(self, stream: str, from_version: int = 1, to_version: int | None = None,
                   conn: asyncpg.Connection | None = None) -> list[RecordedEvent]:
        """The stream's events in order; with ``conn``, inside the caller's transaction."""
        rows = await (conn or self.pool).fetch(_STREAM, stream, from_version, to_version)
        return [self._recorded(r) for r in rows]

    async def published(self, stream: str, from_version: int = 1,
                        to_version: int | None = None) -> list[EventEnvelope]:
        """The stream's events as published, bodies left encoded: for a reader that
        hands them on (``svc.game.since``) and would only throw the decoding away."""
        rows = await self.pool.fetch(_STREAM, stream, from_version, to_version)
        return [envelope(r) for r in rows]

    async def read_feed(self, after: FeedPosition = FeedPosition(),
                        limit: int = 500) -> tuple[list[RecordedEvent], FeedPosition]:
        """Events committed after the checkpoint, in feed order, and the new checkpoint."""
        rows = await self.pool.fetch(
            f"SELECT {_COLUMNS}, tx_id::text::bigint AS tx FROM events"
            " WHERE (tx_id, position) > ($1::text::xid8, $2)"
            "   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())"
            " ORDER BY tx_id, position LIMIT $3",
            str(after.tx_id), after.position, limit)
        if not rows:
            return [], after
        last = rows[-1]
        return [self._recorded(r) for r in rows], FeedPosition(last["tx"], last["position"])

    def _recorded(self, row: asyncpg.Record) -> RecordedEvent:
        return RecordedEvent(
            position=row["position"], stream=row["stream"], version=row["version"],
            type=row["type"], schema_version=row["schema_version"], event_id=row["event_id"],
            occurred_at=row["occurred_at"], correlation_id=row["correlation_id"],
            causation_id=row["causation_id"], command_id=row["command_id"], body=row["body"],
            event=self.registry.decode(row["type"], row["schema_version"], row["body"]),
            tx_id=row.get("tx", 0) if "tx" in row else 0)


class EventStore(StreamReads):
    def __init__(self, pool: asyncpg.Pool, registry: EventRegistry, *,
                 clock: Callable[[], dt.datetime] = _utcnow,
                 on_commit: Callable[[], None] | None = None,
                 notify_channel: str | None = None, publish: Publish | None = None) -> None:
        """``on_commit`` wakes an outbox relay in the same process.

        ``publish`` carries a fresh append's events to JetStream right after the
        commit (``outbox.Publisher``): the writer holds them already, so nothing is
        read back, and the outbox relay only sweeps what a crash left behind. It
        replaces ``on_commit``'s wake-up.

        ``notify_channel`` asks Postgres to NOTIFY relays in other processes on
        every commit. It is off by default: Postgres serializes the commits of
        transactions that notify, which costs most of the throughput of
        concurrent writers; relays elsewhere poll instead.
        """
        super().__init__(pool, registry)
        self.clock = clock
        self.on_commit = on_commit
        self.notify_channel = notify_channel
        self.publish = publish

    async def append(self, stream: str, expected_version: int | None,
                     events: Sequence[msgspec.Struct], command_id: str | None = None, *,
                     epoch: int | None = None, correlation_id: str | None = None,
                     causation_id: str | None = None, command_hash: str | None = None,
                     conn: asyncpg.Connection | None = None) -> AppendResult:
        """Append ``events`` after ``expected_version`` (0 for a new stream).

        ``command_hash`` is kept with the command id; a repeat returns the first
        command's hash, so the caller can tell a retry from a reused id.

        ``expected_version=None`` appends at the end whatever the version is.
        With ``conn`` the append joins the caller's open transaction instead of
        committing on its own.
        """
        if not events:
            raise ValueError("append needs at least one event")
        encoded = [self.registry.encode(e) for e in events]
        args = (stream, expected_version, command_id, epoch,
                [e.type for e in encoded], [e.schema_version for e in encoded],
                [uuid.uuid4() for _ in encoded], [e.body for e in encoded],
                self.clock(), correlation_id, causation_id or command_id, self.notify_channel,
                command_hash)
        if conn is not None:
            return await self._call(conn, args)  # the caller calls committed() after commit
        async with self.pool.acquire() as own:
            if faults.armed(faults.BEFORE_COMMIT):
                # Only a crash test pays for BEGIN and COMMIT as separate round trips:
                # it needs the process to die while the transaction is open.
                async with own.transaction():
                    result = await self._call(own, args)
                    faults.hit(faults.BEFORE_COMMIT)
            else:
                # One statement, its own transaction: one round trip per append.
                result = await self._call(own, args)
        await self.committed(result)
        faults.hit(faults.AFTER_COMMIT_BEFORE_REPLY)
        return result

    async def append_many(self, appends: Sequence[Append]
                          ) -> list[AppendResult | ConcurrencyError | FencedError]:
        """Append to many streams in one transaction: one round trip, one commit.

        Each append is checked as ``append`` checks it (command id, epoch, expected
        version); one that fails a check is answered with its error, in its place,
        and has written nothing, while the others commit. The events of the fresh
        appends are published after the commit, all at once. Raises only when the
        whole transaction failed (then nothing of it was written).
        """
        if not appends or any(not a.events for a in appends):
            raise ValueError("every append needs at least one event")
        at = self.clock()
        encoded = [[self.registry.encode(e) for e in a.events] for a in appends]
        flat = [e for batch in encoded for e in batch]
        event_ids = [uuid.uuid4() for _ in flat]
        args = ([a.stream for a in appends], [a.expected_version for a in appends],
                [a.command_id for a in appends], [a.epoch for a in appends],
                [len(batch) for batch in encoded], [e.type for e in flat],
                [e.schema_version for e in flat], event_ids, [e.body for e in flat], at,
                [a.correlation_id for a in appends],
                [a.causation_id or a.command_id for a in appends],
                [a.command_hash for a in appends])
        query = ("SELECT * FROM append_many($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
                 " $12, $13) ORDER BY item")
        async with self.pool.acquire() as conn:
            if faults.armed(faults.BEFORE_COMMIT):
                async with conn.transaction():
                    rows = await conn.fetch(query, *args)
                    faults.hit(faults.BEFORE_COMMIT)
            else:
                rows = await conn.fetch(query, *args)
        out: list[AppendResult | ConcurrencyError | FencedError] = []
        offset = 0
        for a, batch, row in zip(appends, encoded, rows, strict=True):
            ids = event_ids[offset:offset + len(batch)]
            offset += len(batch)
            if row["outcome"] == "conflict":
                out.append(ConcurrencyError(a.stream, a.expected_version or 0, row["actual"]))
                continue
            if row["outcome"] == "fenced":
                out.append(FencedError(f"stream {a.stream}: epoch {a.epoch} is stale"))
                continue
            duplicate = row["outcome"] == "duplicate"
            envelopes: tuple[EventEnvelope, ...] = ()
            if self.publish is not None and not duplicate:
                envelopes = _envelopes(a.stream, row, [(e.type, e.schema_version, e.body)
                                                       for e in batch],
                                       ids, at, a.correlation_id, a.causation_id or a.command_id)
            out.append(AppendResult(row["first_version"], row["last_version"],
                                    row["first_position"], duplicate, row["command_hash"],
                                    envelopes))
        fresh = [r for r in out if isinstance(r, AppendResult) and not r.duplicate]
        if fresh:
            await self._after_commit(tuple(e for r in fresh for e in r.envelopes))
        faults.hit(faults.AFTER_COMMIT_BEFORE_REPLY)
        return out

    async def committed(self, result: AppendResult) -> None:
        """Publish what a fresh append wrote (or wake the relay for it); after commit."""
        if not result.duplicate:
            await self._after_commit(result.envelopes)

    async def _after_commit(self, envelopes: Sequence[EventEnvelope]) -> None:
        faults.hit(faults.AFTER_COMMIT_BEFORE_PUBLISH)
        if self.publish is not None:
            await self.publish(envelopes)
        elif self.on_commit is not None:
            self.on_commit()

    async def _call(self, conn: asyncpg.Connection, args: tuple[Any, ...]) -> AppendResult:
        try:
            row = await conn.fetchrow(
                "SELECT * FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
                " $13)",
                *args)
        except asyncpg.UniqueViolationError:
            # Only reachable under snapshot isolation chosen by a caller's transaction:
            # another writer took these versions after this transaction's snapshot.
            raise ConcurrencyError(args[0], args[1], -1) from None
        except asyncpg.PostgresError as exc:
            if getattr(exc, "sqlstate", None) == "SPC01":
                raise ConcurrencyError(args[0], args[1], int(exc.detail or -1)) from None
            with fencing():
                raise
        assert row is not None
        envelopes: tuple[EventEnvelope, ...] = ()
        if self.publish is not None and not row["duplicate"]:
            envelopes = _envelopes(args[0], row, list(zip(args[4], args[5], args[7],
                                                          strict=True)),
                                   args[6], args[8], args[9], args[10])
        return AppendResult(row["first_version"], row["last_version"], row["first_position"],
                            row["duplicate"], row["command_hash"], envelopes)

