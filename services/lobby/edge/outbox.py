"""A socket's frames waiting for its writer.

Every event a seat may see is put here once per socket on every gateway that
follows the game, so this is on the gateway's hottest path. An
``asyncio.Queue`` does more than one writer needs (a count of unfinished tasks
and its event, a deque of getters to wake): this is a bounded deque and the
one future the writer waits on, with the queue's names for what it does.

Waking a socket's writer task for the frames of each delivery costs a task step
per socket: a game's event wakes one writer per seat the gateway serves. When
the server can write a socket without waiting (``direct``), the outboxes that
received frames are written in one callback after the delivery instead
(``Flush``), and a writer is woken only for what that cannot do: a socket held
back by its client's reading, the end marker, a socket going away.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Sequence
from typing import cast

Direct = Callable[[Sequence[str]], bool]  # writes the frames now: False if it cannot


class Flush:
    """The outboxes with frames to write since the last callback, written in one."""

    __slots__ = ("_marked",)

    def __init__(self) -> None:
        self._marked: list[Outbox] = []

    def mark(self, box: Outbox) -> None:
        if not self._marked:
            asyncio.get_running_loop().call_soon(self._write)
        self._marked.append(box)

    def _write(self) -> None:
        marked, self._marked = self._marked, []
        for box in marked:
            box._flush()


class Outbox:
    """Frames (``None``: the end) in order, for one writer; ``asyncio.QueueFull`` past
    ``maxsize`` frames."""

    __slots__ = ("_flush_to", "_frames", "_marked", "_waiter", "direct", "maxsize")

    def __init__(self, maxsize: int, flush: Flush | None = None) -> None:
        self.maxsize = maxsize
        self._frames: collections.deque[str | None] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._flush_to = flush
        self._marked = False  # in the flush's list, its writer still asleep
        self.direct: Direct | None = None  # set by the writer when the server offers it

    def qsize(self) -> int:
        return len(self._frames)

    def empty(self) -> bool:
        return not self._frames

    def full(self) -> bool:
        return len(self._frames) >= self.maxsize

    def put_nowait(self, data: str | None) -> None:
        if len(self._frames) >= self.maxsize:
            raise asyncio.QueueFull
        self._frames.append(data)
        if self._waiter is None or self._marked:
            return  # the writer is awake, or the flush will see to it
        if self.direct is not None and self._flush_to is not None:
            self._marked = True
            self._flush_to.mark(self)
        else:
            self._wake()

    def _flush(self) -> None:
        """Write what waits if the socket takes it now; else wake the writer for it."""
        self._marked = False
        frames = self._frames
        if not frames or self._waiter is None:
            return  # the writer woke meanwhile and takes them itself
        direct = self.direct
        if (direct is not None and frames[-1] is not None and not self._waiter.done()
                and direct(cast(list[str], list(frames)))):  # None comes last only
            frames.clear()
            return
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> str | None:
        if not self._frames:
            raise asyncio.QueueEmpty
        return self._frames.popleft()

    async def get_all(self) -> list[str | None]:
        """Every frame waiting, in order, waiting for one; a single writer calls this, so
        the events of one delivery reach a socket in one write."""
        while not self._frames:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        frames = list(self._frames)
        self._frames.clear()
        return frames
