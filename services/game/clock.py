"""Time for the game workers, as an input that tests can hold still.

The engine never reads a clock: commands carry ``at`` and events carry
deadlines in wall-clock milliseconds. The workers stamp commands and wait for
deadlines through one of these, so a test can replace the wall clock with a
manual one and step it past a deadline exactly when it wants to.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class SystemClock:
    """Wall-clock milliseconds; waits are real time."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def timeout(self, due_ms: int | None) -> float | None:
        """Seconds to wait for ``due_ms`` (None: nothing is due, wait until woken)."""
        if due_ms is None:
            return None
        return max(0.0, (due_ms - self.now_ms()) / 1000)

    def on_change(self, wake: Callable[[], None]) -> None:
        """A wall clock moves by itself; nobody needs waking."""


class ManualClock:
    """A clock that only moves when told to; moving it wakes every waiting game."""

    def __init__(self, now_ms: int = 1_800_000_000_000) -> None:
        self._now = now_ms
        self._wakers: list[Callable[[], None]] = []

    def now_ms(self) -> int:
        return self._now

    def timeout(self, due_ms: int | None) -> float | None:
        if due_ms is None or due_ms > self._now:
            return None
        return 0.0

    def on_change(self, wake: Callable[[], None]) -> None:
        self._wakers.append(wake)

    def advance(self, ms: int) -> None:
        self.set(self._now + ms)

    def set(self, now_ms: int) -> None:
        self._now = now_ms
        for wake in list(self._wakers):
            wake()


Clock = SystemClock | ManualClock
