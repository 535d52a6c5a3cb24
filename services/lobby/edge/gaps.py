"""Filling a gap in a versioned stream this gateway follows: a game's events (``Hub``),
a tournament's (``TournamentFeed``). Both hear their stream on a plain subscription,
where an event can be missed or come early; both ask the stream's owner (the game
worker, the tournament service) for what they lack the same way, here: again and
again while something is still missing, 0.2 s between asks, a second after the owner
did not answer. A failure of another kind ends the fill and is raised. ``InOrder``
puts a game's events in version order around that fill."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from tenacity import AsyncRetrying, RetryCallState

AGAIN = 0.2  # seconds between asks while a gap stays open
AWAY = 1.0  # seconds after the owner did not answer
T = TypeVar("T")


def _wait(rs: RetryCallState) -> float:
    return AWAY if rs.outcome is not None and rs.outcome.failed else AGAIN


async def fill(missing: Callable[[], bool], fetch: Callable[[], Awaitable[None]],
               away: type[Exception],
               on_away: Callable[[BaseException], None] | None = None) -> None:
    """Call ``fetch`` until ``missing()`` says nothing is; ``fetch`` hands over what it
    read itself. ``away`` is what the owner raises when it does not answer (told to
    ``on_away``, then asked again); one still raised when the gap has closed meanwhile
    is dropped."""

    def again(rs: RetryCallState) -> bool:
        assert rs.outcome is not None
        error = rs.outcome.exception()
        if isinstance(error, away) and on_away is not None:
            on_away(error)
        return missing() and (isinstance(error, away) or not rs.outcome.failed)

    try:
        async for attempt in AsyncRetrying(retry=again, wait=_wait, reraise=True):
            with attempt:
                await fetch()
    except away:
        if missing():
            raise


class InOrder(Generic[T]):
    """One versioned stream's items taken in version order: a duplicate changes
    nothing, one that comes early waits in ``pending`` while the gap before it is
    filled (``fill``, from the stream's owner), and each in turn goes to ``advance``.

    ``fetch(version)`` reads what follows ``version`` from the owner and hands each
    item back through ``take``; ``away`` is what it raises when the owner does not
    answer (told to ``on_away``, then asked again). ``start`` None: items wait until
    ``begin`` says where the stream starts. ``reach`` waits a moment for a version
    another copy may be ahead on.
    """

    def __init__(self, advance: Callable[[T], None],
                 fetch: Callable[[int], Awaitable[None]], away: type[Exception],
                 on_away: Callable[[BaseException], None] | None = None,
                 start: int | None = 0) -> None:
        self.advance, self.fetch, self.away, self.on_away = advance, fetch, away, on_away
        # The last version taken; with ``start`` None, items wait until ``begin`` says it.
        self.version = -1 if start is None else start
        self.started = start is not None
        self.pending: dict[int, T] = {}
        self._filling: asyncio.Task[None] | None = None
        self._moved: asyncio.Event | None = None  # set when the version moves; reach waits

    def take(self, version: int, item: T) -> None:
        if version <= self.version:
            return  # a duplicate delivery
        if not self.started or version > self.version + 1:
            self.pending[version] = item
            self._fill()
            return
        self._next(item)
        if self.pending:  # the usual case is none: nothing waits behind a gap
            self._catch_up()

    def begin(self, version: int) -> None:
        """Start at ``version`` (the last one the follower already has): what waited and
        follows it goes on, and a gap behind it is filled."""
        self.version, self.started = version, True
        self._catch_up()
        self._fill()

    def _catch_up(self) -> None:
        while self.version + 1 in self.pending:
            self._next(self.pending.pop(self.version + 1))
        for v in [v for v in self.pending if v <= self.version]:
            del self.pending[v]

    def _fill(self) -> None:
        if self.started and self.pending and (self._filling is None or self._filling.done()):
            self._filling = asyncio.create_task(
                fill(lambda: bool(self.pending), lambda: self.fetch(self.version), self.away,
                     self.on_away))

    def _next(self, item: T) -> None:
        self.version += 1
        self.advance(item)
        if self._moved is not None:  # wake whoever waits in reach
            self._moved.set()
            self._moved = None

    async def reach(self, version: int, timeout: float = 1.0) -> None:
        """Wait a moment for ``version`` to arrive: another gateway, or the owner's
        reply, may be ahead of this copy of the stream. Woken by each item taken, not
        by polling."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while self.version < version:
                    if self._moved is None:
                        self._moved = asyncio.Event()
                    await self._moved.wait()

    def stop(self) -> None:
        if self._filling is not None:
            self._filling.cancel()
