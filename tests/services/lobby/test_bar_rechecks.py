"""Whom the matchmaker asks the ratings service about before a round (``Bars``): a
player found clear is trusted for the recheck period, a bar published for a player
ends that trust at once, and those who left the queue are forgotten."""

from __future__ import annotations

from typing import Any

from services.lobby.ranked.bars import Bars


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _bars(clock: Clock) -> Bars:
    queue: Any = None  # ``due`` and ``began`` never reach the queue
    return Bars(queue, 60.0, lambda: None, clock)


def test_everyone_is_asked_about_first_and_then_only_newcomers_until_the_recheck() -> None:
    clock = Clock()
    bars = _bars(clock)
    assert bars.due(["ann", "bob"]) == ["ann", "bob"]
    bars.cleared(["ann", "bob"], clock.now)  # as ``drop`` records them
    clock.now += 5
    assert bars.due(["ann", "bob", "cy"]) == ["cy"]
    clock.now += 55
    assert bars.due(["ann", "bob", "cy"]) == ["ann", "bob", "cy"]


def test_a_bar_published_is_asked_about_at_the_next_round() -> None:
    clock = Clock()
    bars = _bars(clock)
    bars.cleared(["ann", "bob"], clock.now)
    bars.began(["bob", "nobody-queued"])
    assert bars.due(["ann", "bob"]) == ["bob"]


def test_a_player_who_left_is_asked_about_afresh_on_coming_back() -> None:
    clock = Clock()
    bars = _bars(clock)
    bars.cleared(["ann"], clock.now)
    assert bars.due([]) == []
    assert bars.due(["ann"]) == ["ann"]
