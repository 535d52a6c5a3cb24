"""The game service: game workers (commands, clocks, bots, table talk) and the outbox.

Each copy of the service is one game worker. It owns the games it created or
adopted (see ``worker``), answers their commands on NATS (see ``transport``),
and publishes the events of each command to JetStream right after their
commit. The outbox relay, which every copy runs, is the backstop: it deletes
the rows of what was published, in bulk, and publishes what a writer left
behind (rows are claimed with ``SKIP LOCKED``, so copies share the work and a
dead copy's unpublished events go out from another).
"""

from __future__ import annotations

from services.game.clock import SystemClock
from services.game.settings import GameSettings
from services.game.store import GameStore
from services.game.transport import GameTransport
from services.game.worker import GameWorker
from services.platform.events import game_registry
from services.platform.eventstore import EventStore
from services.platform.outbox import OutboxRelay, Publisher
from services.platform.runtime import Runtime

NAME = "game"

__all__ = ["GameSettings", "setup"]  # the registry finds both here


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


async def setup(rt: Runtime) -> None:
    assert isinstance(rt.settings, GameSettings)
    relay = OutboxRelay(rt.pool, rt.js, rt.names.game_event, batch=rt.settings.outbox_batch,
                        poll_seconds=rt.settings.outbox_poll_seconds,
                        sweep_after=rt.settings.outbox_sweep_seconds)
    await relay.start()
    rt.workers.append(relay)
    events = EventStore(rt.pool, game_registry(),
                        publish=Publisher(rt.js, rt.names.game_event, relay))
    transport = GameTransport(rt.nc, rt.names, rt.settings.instance_id)
    worker = GameWorker(GameStore(rt.pool, events), rt.settings, SystemClock(),
                        rt.settings.instance_id, transport)
    await transport.start(worker)
    await worker.start()
    rt.workers.append(_Workers(worker, transport))
    rt.endpoints.extend(transport.endpoints(worker))
