"""Streams spread over several event-store databases, by their names.

One Postgres commits a few thousand transactions a second, and even with
group commit a million players' tables are more than one database writes
(``docs/scaling.md``). Streams never join: a stream's events, its command
ids, its outbox rows and its lease belong to it alone, so each stream lives
whole in one database, chosen by a stable hash of its name, and every check
of an append (command id, epoch, expected version) runs where the stream
lives. A group commit that names streams of several databases is one
transaction in each, written side by side; a database whose transaction
failed fails only its own appends.

What no longer exists is one order over all events: the global feed is read
per database, with a checkpoint per database (``read_feed(shard, after)``).
Consumers never needed a global order; they apply by (stream, version).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Sequence

import msgspec

from services.platform.eventstore import (
    Append,
    AppendResult,
    ConcurrencyError,
    EventStore,
    FeedPosition,
    RecordedEvent,
)
from services.platform.lease import FencedError

Outcome = AppendResult | ConcurrencyError | FencedError | Exception


def shard_of(stream: str, shards: int) -> int:
    """The database of a stream: the same in every process and every release."""
    return zlib.crc32(stream.encode()) % shards


class ShardedEventStore:
    def __init__(self, stores: Sequence[EventStore]) -> None:
        if not stores:
            raise ValueError("at least one event store")
        self.stores = tuple(stores)

    def of(self, stream: str) -> EventStore:
        return self.stores[shard_of(stream, len(self.stores))]

    async def append(self, stream: str, expected_version: int | None,
                     events: Sequence[msgspec.Struct], command_id: str | None = None, *,
                     epoch: int | None = None, correlation_id: str | None = None,
                     causation_id: str | None = None,
                     command_hash: str | None = None) -> AppendResult:
        return await self.of(stream).append(
            stream, expected_version, events, command_id, epoch=epoch,
            correlation_id=correlation_id, causation_id=causation_id,
            command_hash=command_hash)

    async def append_many(self, appends: Sequence[Append]) -> list[Outcome]:
        """As ``EventStore.append_many``, one transaction per database named; the
        appends of a database whose transaction failed get its error."""
        by_shard: dict[int, list[int]] = {}
        for i, a in enumerate(appends):
            by_shard.setdefault(shard_of(a.stream, len(self.stores)), []).append(i)
        shards = list(by_shard.items())
        written = await asyncio.gather(
            *(self.stores[k].append_many([appends[i] for i in idx]) for k, idx in shards),
            return_exceptions=True)
        out: list[Outcome | None] = [None] * len(appends)
        for (_, idx), outcomes in zip(shards, written, strict=True):
            if isinstance(outcomes, BaseException):
                if not isinstance(outcomes, Exception):
                    raise outcomes
                for i in idx:
                    out[i] = outcomes
                continue
            for i, outcome in zip(idx, outcomes, strict=True):
                out[i] = outcome
        return [o for o in out if o is not None]

    async def read(self, stream: str, from_version: int = 1,
                   to_version: int | None = None) -> list[RecordedEvent]:
        return await self.of(stream).read(stream, from_version, to_version)

    async def version(self, stream: str) -> int:
        return await self.of(stream).version(stream)

    async def read_feed(self, shard: int, after: FeedPosition | None = None,
                        limit: int = 500) -> tuple[list[RecordedEvent], FeedPosition]:
        """One database's feed: its checkpoint is its own."""
        return await self.stores[shard].read_feed(after or FeedPosition(), limit)
