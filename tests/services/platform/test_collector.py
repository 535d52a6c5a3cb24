"""A service's cycle collector once start-up is done: start-up's objects frozen out of
its passes, the youngest generation collected less often, cycles still collected."""

from __future__ import annotations

import gc
import weakref

from services.platform.runtime import _quiet_collector


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_start_ups_objects_are_frozen_and_later_cycles_still_collected() -> None:
    before = gc.get_threshold()
    try:
        started = _Node()
        _quiet_collector()
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == 10_000
        later = _Node()
        gone = weakref.ref(later)
        del later
        gc.collect()
        assert gone() is None  # made after start-up: collected as ever
        frozen = weakref.ref(started)
        del started
        gc.collect()
        assert frozen() is not None  # start-up's: never looked at again
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
