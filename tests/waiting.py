"""Waiting in tests: poll a condition rather than sleep a guessed time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any


async def until(check: Callable[[], Awaitable[Any]], timeout: float = 10.0,
                every: float = 0.05) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout}s: {check.__name__}")
        await asyncio.sleep(every)
