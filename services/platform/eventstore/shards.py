"""Streams spread over several event-store databases, each stream whole in one.

One Postgres commits a few thousand transactions a second, and even with
group commit a million players' tables are more than one database writes
(``docs/scaling.md``). Streams never join: a stream's events, its command
ids, its outbox rows and its lease belong to it alone, so each stream lives
whole in one database, and every check of an append (command id, epoch,
expected version) runs where the stream lives. A group commit that names
streams of several databases is one transaction in each, written side by
side; a database whose transaction failed fails only its own appends.

Where a stream lives is decided once, when its first events are written: a
new stream goes to the database a stable hash of its name picks among all the
databases named now; from then on its own rows are the record of where it is
(``Homes``), found by asking every database once and remembered. So adding a
database to a running deployment moves nothing: old streams are found where
they were written, new ones spread over all. The hash only places new streams.

What no longer exists is one order over all events: the global feed is read
per database, with a checkpoint per database (``read_feed(shard, after)``).
Consumers never needed a global order; they apply by (stream, version).
"""

from __future__ import annotations

import asyncio
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

import msgspec

from schemas.bus import EventEnvelope
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


class Homes:
    """The database of each stream: where its rows are, else (a new stream) where
    the hash over every database named now puts it.

    A stream never moves, so what was found is remembered (the most recently
    used ``remember`` of them); the first look at a stream a process has not met
    asks every database at once, one indexed lookup each. A stream that is
    nowhere yet is not remembered until it is written (``settle``): until then
    another database could still be the one that holds it.
    """

    def __init__(self, count: int, holds: Callable[[int, str], Awaitable[bool]],
                 remember: int = 200_000) -> None:
        self.count, self._holds, self._remember = count, holds, remember
        self._known: OrderedDict[str, int] = OrderedDict()

    def known(self, stream: str) -> int | None:
        shard = self._known.get(stream)
        if shard is not None:
            self._known.move_to_end(stream)
        return shard

    def settle(self, stream: str, shard: int) -> None:
        """Remember a stream's database once its rows are written there."""
        self._known[stream] = shard
        self._known.move_to_end(stream)
        while len(self._known) > self._remember:
            self._known.popitem(last=False)

    async def of(self, stream: str) -> int:
        known = self.known(stream)
        if known is not None:
            return known
        if self.count == 1:
            return 0
        held = await asyncio.gather(*(self._holds(i, stream) for i in range(self.count)))
        found = [i for i, has in enumerate(held) if has]
        if not found:
            return shard_of(stream, self.count)
        self.settle(stream, found[0])
        return found[0]


class ShardedEventStore:
    def __init__(self, stores: Sequence[EventStore], homes: Homes | None = None) -> None:
        if not stores:
            raise ValueError("at least one event store")
        self.stores = tuple(stores)
        self.homes = homes or Homes(len(self.stores), self._holds)

    async def _holds(self, shard: int, stream: str) -> bool:
        return await self.stores[shard].version(stream) > 0

    async def of(self, stream: str) -> EventStore:
        return self.stores[await self.homes.of(stream)]

    async def append(self, stream: str, expected_version: int | None,
                     events: Sequence[msgspec.Struct], command_id: str | None = None, *,
                     epoch: int | None = None, correlation_id: str | None = None,
                     causation_id: str | None = None,
                     command_hash: str | None = None) -> AppendResult:
        shard = await self.homes.of(stream)
        result = await self.stores[shard].append(
            stream, expected_version, events, command_id, epoch=epoch,
            correlation_id=correlation_id, causation_id=causation_id,
            command_hash=command_hash)
        self.homes.settle(stream, shard)
        return result

    async def append_many(self, appends: Sequence[Append]) -> list[Outcome]:
        """As ``EventStore.append_many``, one transaction per database named; the
        appends of a database whose transaction failed get its error."""
        homes = await asyncio.gather(*(self.homes.of(a.stream) for a in appends))
        by_shard: dict[int, list[int]] = {}
        for i, shard in enumerate(homes):
            by_shard.setdefault(shard, []).append(i)
        shards = list(by_shard.items())
        written = await asyncio.gather(
            *(self.stores[k].append_many([appends[i] for i in idx]) for k, idx in shards),
            return_exceptions=True)
        out: list[Outcome | None] = [None] * len(appends)
        for (shard, idx), outcomes in zip(shards, written, strict=True):
            if isinstance(outcomes, BaseException):
                if not isinstance(outcomes, Exception):
                    raise outcomes
                for i in idx:
                    out[i] = outcomes
                continue
            for i, outcome in zip(idx, outcomes, strict=True):
                out[i] = outcome
                if isinstance(outcome, AppendResult):
                    self.homes.settle(appends[i].stream, shard)
        return [o for o in out if o is not None]

    async def read(self, stream: str, from_version: int = 1,
                   to_version: int | None = None) -> list[RecordedEvent]:
        return await (await self.of(stream)).read(stream, from_version, to_version)

    async def published(self, stream: str, from_version: int = 1,
                        to_version: int | None = None) -> list[EventEnvelope]:
        return await (await self.of(stream)).published(stream, from_version, to_version)

    async def version(self, stream: str) -> int:
        return await (await self.of(stream)).version(stream)

    async def read_feed(self, shard: int, after: FeedPosition | None = None,
                        limit: int = 500) -> tuple[list[RecordedEvent], FeedPosition]:
        """One database's feed: its checkpoint is its own."""
        return await self.stores[shard].read_feed(after or FeedPosition(), limit)
