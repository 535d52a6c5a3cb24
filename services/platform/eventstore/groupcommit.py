"""Group commit: the appends of many streams that arrive together, in one transaction.

A game worker runs hundreds of games, each appending a command's few events at
a time. One transaction per command costs Postgres a commit (a WAL flush) and
the worker a round trip each; gathered, the commands of all its games that
arrive within a short window (``window`` seconds, or ``most`` appends, whichever
comes first) commit as one, and appends that arrive while a batch is being
written wait for the next. Each append is still checked against its own
expected version and fencing epoch, and one that fails its check fails alone
(``EventStore.append_many``). Every caller hears its answer only after the
commit and the publish of the batch's events, exactly as with one append each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec

from services.platform import tracing
from services.platform.eventstore import Append, AppendResult


class ManyAppends(Protocol):
    """An event store, or several behind a router (``shards.ShardedEventStore``)."""

    async def append_many(self, appends: Sequence[Append]
                          ) -> Sequence[AppendResult | Exception]: ...


@dataclass(slots=True)
class _Waiting:
    append: Append
    future: asyncio.Future[AppendResult]
    since: float  # the loop's time when it arrived
    trace: str | None = None  # the appending command's span, when tracing is on


class GroupCommit:
    def __init__(self, store: ManyAppends, *, window: float = 0.002,
                 most: int = 64) -> None:
        self.store = store
        self.window = window
        self.most = most
        self._queue: list[_Waiting] = []
        self._full = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.batches = 0  # transactions written, for tests and benches
        self.appends = 0

    async def append(self, stream: str, expected_version: int | None,
                     events: Sequence[msgspec.Struct], command_id: str | None = None, *,
                     epoch: int | None = None, causation_id: str | None = None,
                     command_hash: str | None = None) -> AppendResult:
        """As ``EventStore.append``, in the next batch: raises ``ConcurrencyError`` or
        ``FencedError`` for this append alone; whatever failed the whole batch (Postgres
        away) is raised to every append in it."""
        if not events:
            raise ValueError("append needs at least one event")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[AppendResult] = loop.create_future()
        self._queue.append(_Waiting(Append(stream, expected_version, events, command_id, epoch,
                                           causation_id=causation_id,
                                           command_hash=command_hash), future, loop.time(),
                                    tracing.traceparent()))
        if len(self._queue) >= self.most:
            self._full.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="group-commit")
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._queue:
            # The window runs from the oldest waiting append's arrival: appends that
            # waited out the last batch's write are not held back again.
            wait = self._queue[0].since + self.window - loop.time()
            if wait > 0 and len(self._queue) < self.most:
                self._full.clear()
                timer = loop.call_later(wait, self._full.set)
                await self._full.wait()
                timer.cancel()
            batch, self._queue = self._queue[:self.most], self._queue[self.most:]
            await self._write(batch)

    async def _write(self, batch: list[_Waiting]) -> None:
        if tracing.on():
            tracing.COMMITTING.set({w.append.stream: w.trace for w in batch if w.trace})
        try:
            outcomes = await self.store.append_many([w.append for w in batch])
        except BaseException as exc:
            for w in batch:
                if not w.future.done():
                    w.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        self.batches += 1
        self.appends += len(batch)
        for w, outcome in zip(batch, outcomes, strict=True):
            if w.future.done():  # its caller gave up waiting
                continue
            if isinstance(outcome, Exception):
                w.future.set_exception(outcome)
            else:
                w.future.set_result(outcome)

