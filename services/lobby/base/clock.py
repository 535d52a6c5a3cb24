"""The lobby's one wall clock, in milliseconds since the epoch: what a command's time,
a ticket's wait and a cooldown are measured in."""

from __future__ import annotations

import time


def now_ms() -> int:
    return int(time.time() * 1000)
