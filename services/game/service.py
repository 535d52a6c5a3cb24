"""The game service: owner of the event store and of its outbox relay.

Game workers (command handling, clocks, bots) arrive with their own issue;
what runs here now is what they stand on: game streams in this service's
schema and every committed event carried to JetStream.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from schemas.events import GameEvent
from services.platform.events import EventRegistry
from services.platform.outbox import OutboxRelay
from services.platform.runtime import Runtime
from services.platform.settings import Settings

NAME = "game"


class GameSettings(Settings, frozen=True, kw_only=True):
    http_port: Annotated[int, msgspec.Meta(
        ge=0, le=65535, description="Port of the HTTP server (health, metrics).")] = 8001
    outbox_batch: Annotated[int, msgspec.Meta(
        ge=1, description="Events the outbox relay publishes per transaction.")] = 256
    outbox_poll_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="Longest pause of the outbox relay between checks for events "
                          "committed by other processes.")] = 0.2


def registry() -> EventRegistry:
    return EventRegistry(GameEvent)


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, GameSettings)
    relay = OutboxRelay(rt.pool, rt.js, rt.names.game_event, batch=rt.settings.outbox_batch,
                        poll_seconds=rt.settings.outbox_poll_seconds)
    await relay.start()
    rt.workers.append(relay)
