"""A holder of a lease paused past its lease (SIGSTOP), adopted, then woken (SIGCONT).

The one scenario behind every fencing test that uses processes: the lease module's
own and the game workers' failover test both run it, each with its own idea of
"adopted" and of "gave up".
"""

from __future__ import annotations

import os
import signal
from collections.abc import Awaitable, Callable

from tests.waiting import until


async def pause_until_adopted(pid: int, adopted: Callable[[], Awaitable[bool]],
                              while_paused: Callable[[], Awaitable[None]],
                              gave_up: Callable[[], Awaitable[bool]],
                              timeout: float = 15.0) -> None:
    """Stop ``pid`` until ``adopted`` holds, run ``while_paused`` (the adopter's own
    writes), wake it and wait until it ``gave_up`` on the lease it no longer holds."""
    os.kill(pid, signal.SIGSTOP)
    try:
        await until(adopted, timeout)
        await while_paused()
    finally:
        os.kill(pid, signal.SIGCONT)
    await until(gave_up, timeout)
