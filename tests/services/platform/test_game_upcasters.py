"""Stored game events of older shapes read as today's: a game stored before seeds could
be sealed revealed its own seed, and its end listed no hand scores."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.presets import resolve
from schemas import events as ev
from services.platform.events import game_registry


def older(event: ev.Event, *dropped: str) -> bytes:
    """``event``'s body as an older version stored it: without ``dropped`` fields."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    for name in dropped:
        del data[name]
    return msgspec.msgpack.encode(data)


def test_a_version_1_game_start_reads_as_not_sealed() -> None:
    started = ev.GameStarted(rules=resolve("classic"), seed="ab" * 32, seed_hash="cd" * 32)
    got = game_registry().decode("GameStarted", 1, older(started, "sealed"))
    assert got == started and isinstance(got, ev.GameStarted) and not got.sealed


def test_a_version_2_game_end_reads_as_not_sealed_and_without_hand_scores() -> None:
    ended = ev.GameEnded(winner=0, reason="target", scores=(250, 120), bags=(1, 2),
                         hands_played=3, seed="ab" * 32, bags_taken=(1, 2))
    got = game_registry().decode("GameEnded", 2, older(ended, "sealed", "deals"))
    assert got == ended and isinstance(got, ev.GameEnded)
    assert (got.sealed, got.deals) == (False, ())


def test_a_version_1_game_end_is_lifted_through_every_step() -> None:
    ended = ev.GameEnded(winner=None, reason="hands", scores=(90, 90), bags=(0, 0),
                         hands_played=1)
    got = game_registry().decode("GameEnded", 1, older(
        ended, "sealed", "deals", "abandoned", "bags_taken"))
    assert got == ended
