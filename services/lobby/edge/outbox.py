"""A socket's frames waiting for its writer.

Every event a seat may see is put here once per socket on every gateway that
follows the game, so this is on the gateway's hottest path. An
``asyncio.Queue`` does more than one writer needs (a count of unfinished tasks
and its event, a deque of getters to wake): this is a bounded deque and the
one future the writer waits on, with the queue's names for what it does.
"""

from __future__ import annotations

import asyncio
import collections


class Outbox:
    """Frames (``None``: the end) in order, for one writer; ``asyncio.QueueFull`` past
    ``maxsize`` frames."""

    __slots__ = ("_frames", "_waiter", "maxsize")

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._frames: collections.deque[str | None] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

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
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
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
