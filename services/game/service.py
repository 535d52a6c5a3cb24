"""The game service: game workers (commands, clocks, bots, table talk) and the outbox.

Each copy of the service is one game worker. It owns the games it created or
adopted (see ``worker``), answers their commands on NATS (see ``transport``),
and carries every committed event to JetStream with the outbox relay, which
every copy runs: rows are claimed with ``SKIP LOCKED``, so copies share the
work and a dead copy's unpublished events go out from another.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.game.clock import SystemClock
from services.game.store import GameStore
from services.game.transport import GameTransport
from services.game.worker import GameWorker, WorkerConfig
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.outbox import OutboxRelay
from services.platform.runtime import VERSION, Runtime
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
    lease_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How long a worker's hold on a game lasts without renewal; a "
                          "dead worker's games are adopted this long after its last "
                          "heartbeat.")] = 5.0
    heartbeat_seconds: Annotated[float, msgspec.Meta(
        gt=0, description="How often a worker renews its leases and looks for games "
                          "to adopt; well under the lease.")] = 1.0
    inbox_size: Annotated[int, msgspec.Meta(
        ge=1, description="Commands one game holds waiting; more are refused with "
                          "code busy.")] = 64
    bot_think_ms: Annotated[int, msgspec.Meta(
        ge=0, description="How long a bot seat waits before it bids or plays, in "
                          "milliseconds (0 in tests and benchmarks).")] = 800
    adopt_batch: Annotated[int, msgspec.Meta(
        ge=1, description="Most orphaned games one heartbeat adopts.")] = 256
    linger_seconds: Annotated[float, msgspec.Meta(
        ge=0, description="How long a finished game keeps answering repeated "
                          "commands before its worker forgets it.")] = 30.0
    answers_kept: Annotated[int, msgspec.Meta(
        ge=1, description="Recent answers a game keeps in memory to answer a repeated "
                          "command id without asking the store.")] = 512


class _Workers:
    """The worker and its transport as one part of the runtime: stopped together."""

    def __init__(self, worker: GameWorker, transport: GameTransport) -> None:
        self.worker, self.transport = worker, transport

    async def stop(self) -> None:
        await self.transport.stop_listening()
        await self.worker.stop()
        await self.transport.finish()

    @property
    def running(self) -> bool:
        return self.worker.running


def config_of(s: GameSettings) -> WorkerConfig:
    return WorkerConfig(lease_seconds=s.lease_seconds, heartbeat_seconds=s.heartbeat_seconds,
                        inbox_size=s.inbox_size, think_ms=s.bot_think_ms,
                        adopt_batch=s.adopt_batch, linger_seconds=s.linger_seconds,
                        answers_kept=s.answers_kept)


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, GameSettings)
    relay = OutboxRelay(rt.pool, rt.js, rt.names.game_event, batch=rt.settings.outbox_batch,
                        poll_seconds=rt.settings.outbox_poll_seconds)
    await relay.start()
    rt.workers.append(relay)
    events = EventStore(rt.pool, game_registry(), on_commit=relay.wake)
    transport = GameTransport(rt.nc, rt.names, rt.settings.instance_id, VERSION)
    worker = GameWorker(GameStore(rt.pool, events), config_of(rt.settings), SystemClock(),
                        rt.settings.instance_id, transport)
    await transport.start(worker)
    await worker.start()
    rt.workers.append(_Workers(worker, transport))
